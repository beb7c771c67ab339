#include "attn_ui/classroom/classroom_actions.h"

#include <QApplication>
#include <QFileDialog>
#include <QInputDialog>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>

#include "attn/io/table_export.h"
#include "attn_ui/classroom/compare_panel.h"
#include "attn_ui/classroom/compare_view.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/window/hidden_panel_gate.h"
#include "attn_ui/export/figure_export.h"
#include "attn_ui/export/figure_export_dialog.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/window/main_window.h"
#include "attn_ui/metrics/metrics_bar_chart.h"
#include "attn_ui/metrics/metrics_panel.h"
#include "attn_ui/metrics/metrics_row_chart.h"
#include "attn_ui/classroom/presentation_window.h"
#include "attn_ui/classroom/step_through_panel.h"
#include "attn_ui/classroom/step_through_view.h"
#include "attn_ui/explorer/token_lines_widget.h"
#include "attn_ui/explorer/toy_input_panel.h"

namespace attn::ui {


ClassroomActions::ClassroomActions(MainWindow& window)
    : QObject(&window),
      window_(&window),
      model_(window.model()),
      heatmap_(window.heatmap()),
      steps_(new StepThroughView(model_, &window)),
      lines_(new TokenLinesWidget(&window)),
      compare_(new ComparePanel(model_, &window)),
      toy_(new ToyInputPanel(&window)) {
  // File: Export Figure / Export Data, above Quit.
  QMenu* file = window.fileMenu();
  QAction* quit = nullptr;
  for (QAction* a : file->actions())
    if (a->menuRole() == QAction::QuitRole) quit = a;
  auto* exportFig = new QAction(tr("&Export Figure…"), this);
  exportFig->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  connect(exportFig, &QAction::triggered, this, &ClassroomActions::showExportFigureDialog);
  auto* exportData = new QAction(tr("Export &Data…"), this);
  connect(exportData, &QAction::triggered, this, &ClassroomActions::showExportDataDialog);
  file->insertActions(quit, {exportFig, exportData});
  if (quit) file->insertSeparator(quit);

  QMenu* view = window.viewMenu();
  auto* present = view->addAction(tr("&Presentation Mode"), this, &ClassroomActions::startPresentation);
  present->setShortcut(QKeySequence(Qt::Key_F5));
  auto* allHeads = view->addAction(tr("Token Lines: All Heads"));
  allHeads->setCheckable(true);
  connect(allHeads, &QAction::toggled, this, [this](bool on) {
    allHeadLines_ = on;
    refreshTokenLines();
  });
  window.addPanel(tr("Step-through"), steps_, Qt::RightDockWidgetArea);
  window.addPanel(tr("Token lines"), lines_, Qt::RightDockWidgetArea)->hide();
  window.addPanel(tr("Compare"), compare_, Qt::BottomDockWidgetArea)->hide();
  window.addPanel(tr("Toy example"), toy_, Qt::BottomDockWidgetArea)->hide();

  // Token lines copy the current head's weights (64 MB at N = 4096): not for a closed dock.
  auto* lines = new HiddenPanelGate(lines_, [this] { refreshTokenLines(); });
  connect(model_, &ExplorerModel::resultChanged, lines, &HiddenPanelGate::request);
  connect(steps_, &StepThroughView::queryChanged, this, [this](int q) {
    lines_->setFocusToken(TokenLinesWidget::Side::Query, q);
  });
}

PresentationWindow* ClassroomActions::presentation() const { return presentation_.data(); }

void ClassroomActions::refreshTokenLines() {
  if (!model_->hasResult()) return;
  const auto& res = model_->result();
  std::vector<attn::Mat> mats;
  QList<int> ids;
  for (int h = 0; h < res.numHeads(); ++h)
    if (allHeadLines_ || h == model_->currentHead()) {
      mats.push_back(res.heads[static_cast<size_t>(h)].weights);
      ids << h;
    }
  lines_->setData(model_->queryLabels(), model_->keyLabels(), mats, ids);
}

QStringList ClassroomActions::figureViewNames() const {
  return {tr("Heatmap (current head)"), tr("All heads (grid)"), tr("Token lines"), tr("Step-through (current step)"),
          tr("Compare view"), tr("Toy example heatmap"), tr("Metrics: per-head bars"),
          tr("Metrics: per-row curve"), tr("Metrics: head similarity"), tr("Metrics: rollout / flow (layers)")};
}

bool ClassroomActions::exportFigure(int view, const QString& path, const FigureOptions& options, QString* error) {
  attn::Status st = attn::okStatus();
  if (view != ToyHeatmap && !model_->hasResult()) {
    *error = tr("Nothing to export yet.");
    return false;
  }
  FigureOptions o = options;
  switch (view) {
    case CurrentHeatmap:  // what the heatmap panel shows (weights, logits or mask)
      o.title = heatmap_->title();
      if (o.title.isEmpty())
        o.title = tr("Head %1 — mask: %2").arg(model_->currentHead() + 1).arg(QString::fromStdString(model_->resultSpec().mask.spec()));
      st = exportHeatmap(heatmap_->matrix().size() ? heatmap_->matrix() : model_->currentWeights(), model_->queryLabels(),
                         model_->keyLabels(), path, o);
      break;
    case HeadGrid: {
      std::vector<attn::Mat> heads;
      for (const auto& h : model_->result().heads) heads.push_back(h.weights);
      o.title = model_->showsLayers()
                    ? tr("layer %1 of %2: %3 heads").arg(model_->currentLayer() + 1).arg(model_->numLayers()).arg(heads.size())
                    : tr("%1 heads — mask: %2").arg(heads.size()).arg(QString::fromStdString(model_->resultSpec().mask.spec()));
      st = exportHeadGrid(heads, model_->queryLabels(), model_->keyLabels(), path, o);
      break;
    }
    case TokenLines:
      st = writeFigure(path, o, [this](QCPPainter& p, const QRect& r) { lines_->paintLines(p, r); });
      break;
    case StepThrough:
      st = writeFigure(path, o, [this](QCPPainter& p, const QRect& r) { steps_->panel()->paintStep(p, r); });
      break;
    case Compare:
      st = writeFigure(path, o, compare_->view()->figurePainter());
      break;
    case ToyHeatmap:
      if (!toy_->result()) {
        *error = tr("The toy example has a cell that is not a number.");
        return false;
      }
      st = writeFigure(path, o, plotPainter(*toy_->heatmap()));
      break;
    case MetricsBars:
    case MetricsRows:
    case HeadSimilarity:
    case Rollout: {
      auto* metrics = window_->findChild<MetricsPanel*>();
      if (!metrics || !metrics->analysis()) {
        *error = tr("The metrics are not computed yet.");
        return false;
      }
      QCustomPlot* plot = view == MetricsBars ? static_cast<QCustomPlot*>(metrics->barChart())
                          : view == MetricsRows ? static_cast<QCustomPlot*>(metrics->rowChart())
                          : view == HeadSimilarity ? static_cast<QCustomPlot*>(metrics->similarityMap())
                                                   : static_cast<QCustomPlot*>(metrics->rolloutMap());
      if (view == Rollout && !metrics->rolloutMap()->isVisibleTo(metrics)) {
        *error = tr("Rollout and flow need an input with layers (an 'attn' array [L, H, N, N]).");
        return false;
      }
      st = writeFigure(path, o, livePlotPainter(*plot));
      break;
    }
    default: *error = tr("Unknown view."); return false;
  }
  if (!st) *error = QString::fromStdString(st.error().message);
  return st.ok();
}

void ClassroomActions::showExportFigureDialog() {
  FigureExportDialog dialog(figureViewNames(), CurrentHeatmap, window_);
  if (dialog.exec() != QDialog::Accepted) return;
  QString error;
  if (exportFigure(dialog.view(), dialog.path(), dialog.options(), &error))
    window_->statusBar()->showMessage(tr("Wrote %1").arg(dialog.path()), 6000);
  else
    QMessageBox::warning(window_, tr("Export figure"), error);
}

void ClassroomActions::showExportDataDialog() {
  if (!model_->hasResult()) return;
  bool ok = false;
  const QStringList kinds{"weights", "logits", "outputs", "metrics"};
  const QString kind = QInputDialog::getItem(window_, tr("Export data"), tr("What to export (every head):"), kinds, 0,
                                             false, &ok);
  if (!ok) return;
  // QFileDialog asks before replacing an existing file.
  const QString path = QFileDialog::getSaveFileName(window_, tr("Export data"), kind + ".csv",
                                                    tr("Data (*.csv *.npy *.npz *.json)"));
  if (path.isEmpty()) return;
  const attn::DataExportRequest req{*attn::parseDataKind(kind.toStdString()), {}};
  if (auto st = attn::writeResultData(model_->result(), req, path.toStdString()); !st)
    QMessageBox::warning(window_, tr("Export data"), QString::fromStdString(st.error().message));
  else
    window_->statusBar()->showMessage(tr("Wrote %1").arg(path), 6000);
}

void ClassroomActions::startPresentation() {
  if (presentation_) {
    presentation_->raise();
    return;
  }
  presentation_ = new PresentationWindow(model_, PresentationWindow::Heatmap | PresentationWindow::StepThrough);
  presentation_->stepThrough()->setQuery(steps_->query());
  presentation_->showFullScreen();
}

}  // namespace attn::ui
