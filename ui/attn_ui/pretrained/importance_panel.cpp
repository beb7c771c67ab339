#include "attn_ui/pretrained/importance_panel.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTimer>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>

#include "attn/io/atomic_file.h"
#include "attn/models/model.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/export/figure_export_dialog.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/pretrained/importance_controller.h"
#include "attn_ui/pretrained/pruning_curve_plot.h"

namespace attn::ui {

ImportancePanel::ImportancePanel(ExplorerModel* model, ImportanceController* controller, QWidget* parent)
    : QWidget(parent),
      model_(model),
      controller_(controller),
      status_(new QLabel(this)),
      progress_(new QProgressBar(this)),
      cancel_(new QPushButton(tr("Cancel"), this)),
      heatmap_(new HeatmapWidget(this)),
      curve_(new PruningCurvePlot(this)),
      export_(new QToolButton(this)),
      poll_(new QTimer(this)) {
  setObjectName(QStringLiteral("ImportancePanel"));
  auto* compute = new QToolButton(this);
  compute->setDefaultAction(controller_->computeAction());
  compute->setToolButtonStyle(Qt::ToolButtonTextOnly);
  progress_->setRange(0, 1000);
  progress_->setTextVisible(false);
  progress_->hide();
  cancel_->setToolTip(tr("Stop computing the head importance; the map shown stays."));
  cancel_->hide();
  export_->setText(tr("Export"));
  export_->setPopupMode(QToolButton::InstantPopup);
  auto* menu = new QMenu(export_);
  menu->addAction(tr("Figure…"), this, &ImportancePanel::exportFigureDialog);
  menu->addAction(tr("CSV…"), this, &ImportancePanel::exportCsvDialog);
  export_->setMenu(menu);
  export_->setEnabled(false);
  auto* row = new QHBoxLayout;
  row->addWidget(compute);
  row->addWidget(progress_, 1);
  row->addWidget(cancel_);
  row->addStretch(0);
  row->addWidget(export_);
  status_->setWordWrap(true);
  heatmap_->setColorScaleLabel(tr("importance"));
  heatmap_->xAxis->setLabel(tr("head"));
  heatmap_->yAxis->setLabel(tr("layer"));
  heatmap_->setMinimumHeight(160);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(heatmap_);
  split->addWidget(curve_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 4, 6, 4);
  layout->addLayout(row);
  layout->addWidget(status_);
  layout->addWidget(split, 1);

  poll_->setInterval(50);
  connect(poll_, &QTimer::timeout, this, &ImportancePanel::showProgress);
  connect(cancel_, &QPushButton::clicked, controller_, &ImportanceController::cancel);
  connect(controller_, &ImportanceController::started, this, &ImportancePanel::started);
  connect(controller_, &ImportanceController::finished, this, &ImportancePanel::refresh);
  connect(model_, &ExplorerModel::resultChanged, this, [this] {
    if (!controller_->busy()) refresh();  // says when the text changed since
  });
  connect(heatmap_, &HeatmapWidget::cellHovered, this,
          [this](int r, int c, const QPoint& at) { QToolTip::showText(at, cellText(r, c), heatmap_); });
  connect(heatmap_, &HeatmapWidget::hoverLeft, this, [] { QToolTip::hideText(); });
  connect(heatmap_, &HeatmapWidget::cellClicked, this, [this](int r, int c) {
    if (controller_->result() && !controller_->stale()) model_->setCurrentLayerHead(r, c);
  });
  refresh();
}

QString ImportancePanel::statusText() const { return status_->text(); }

void ImportancePanel::setColormap(const QString& name) {
  colormap_ = name;
  heatmap_->setColormap(name);
}

QString ImportancePanel::cellText(int layer, int head) const {
  const auto r = controller_->result();
  if (!r || layer < 0 || head < 0 || layer >= r->importance.rows() || head >= r->importance.cols()) return {};
  const auto m = model_->modelPtr();
  const bool causal = m && m->info().causal;
  return causal ? tr("Layer %1, head %2: ablating it raises the mean next-token loss by %3 nats")
                      .arg(layer + 1)
                      .arg(head + 1)
                      .arg(static_cast<double>(r->importance(layer, head)), 0, 'g', 4)
                : tr("Layer %1, head %2: ablating it changes the final hidden states by %3 (relative)")
                      .arg(layer + 1)
                      .arg(head + 1)
                      .arg(static_cast<double>(r->importance(layer, head)), 0, 'g', 4);
}

void ImportancePanel::started() {
  progress_->setValue(0);
  progress_->show();
  cancel_->show();
  status_->setText(tr("Ablating every head in turn…"));
  poll_->start();
}

void ImportancePanel::showProgress() {
  QString stage;
  const double f = controller_->progress(&stage);
  progress_->setValue(static_cast<int>(std::clamp(f, 0.0, 1.0) * 1000.0));
}

void ImportancePanel::refresh() {
  if (controller_->busy()) return;
  poll_->stop();
  progress_->hide();
  cancel_->hide();
  const auto r = controller_->result();
  export_->setEnabled(r != nullptr);
  heatmap_->setVisible(r != nullptr);
  curve_->setVisible(r != nullptr);
  if (!r) {
    shown_.reset();
    curve_->clearCurve();
    status_->setText(model_->hasModel()
                         ? tr("Compute the importance of every head by ablation (Ctrl+Shift+I).")
                         : tr("Open a model to measure the importance of its heads."));
    return;
  }
  if (r != shown_) {
    shown_ = r;
    QStringList rows, cols;
    for (int l = 0; l < r->importance.rows(); ++l) rows << tr("L%1").arg(l + 1);
    for (int h = 0; h < r->importance.cols(); ++h) cols << tr("H%1").arg(h + 1);
    heatmap_->setMatrix(r->importance, rows, cols, tr("Head importance (ablation)"));
    curve_->setCurve(*r);
  }
  const auto m = model_->modelPtr();
  QString text = (m && m->info().causal)
                     ? tr("Loss increase when each head alone is zeroed (baseline %1 nats); %2 forward passes in %3 s.")
                           .arg(r->baseline, 0, 'f', 4)
                           .arg(r->forwardPasses)
                           .arg(r->seconds, 0, 'f', 2)
                     : tr("Final hidden-state change when each head alone is zeroed; %1 forward passes in %2 s.")
                           .arg(r->forwardPasses)
                           .arg(r->seconds, 0, 'f', 2);
  text += QLatin1Char(' ') + tr("Ablation estimate: the model has no backward pass here, so not Michel et al.'s gradient estimate.");
  if (controller_->stale()) text += QLatin1Char(' ') + tr("The text has changed since: compute again for the new text.");
  status_->setText(text);
  setToolTip(QString::fromStdString(r->measure));
  curve_->setToolTip(QString::fromStdString(r->curveMeasure));
}

attn::Status ImportancePanel::exportFigure(Figure figure, const QString& path, const FigureOptions& options) {
  const auto r = controller_->result();
  if (!r) return attn::Error{tr("%1: no head importance computed yet").arg(path).toStdString()};
  FigureOptions o = options;
  if (figure == ImportanceMap) {
    QStringList rows, cols;
    for (int l = 0; l < r->importance.rows(); ++l) rows << tr("L%1").arg(l + 1);
    for (int h = 0; h < r->importance.cols(); ++h) cols << tr("H%1").arg(h + 1);
    if (o.title.isEmpty()) o.title = tr("Head importance (ablation)");
    return exportHeatmap(r->importance, rows, cols, path, o);
  }
  return writeFigure(path, o, livePlotPainter(*curve_));
}

attn::Status ImportancePanel::exportCsv(Figure figure, const QString& path) {
  const auto r = controller_->result();
  if (!r) return attn::Error{tr("%1: no head importance computed yet").arg(path).toStdString()};
  return attn::writeFileAtomic(path.toStdString(), figure == ImportanceMap ? importanceCsv(*r) : pruningCurveCsv(*r));
}

void ImportancePanel::exportFigureDialog() {
  FigureExportDialog dialog({tr("Head importance map"), tr("Pruning curve")}, ImportanceMap, this);
  if (dialog.exec() != QDialog::Accepted) return;
  const auto st = exportFigure(dialog.view() == 1 ? PruningCurve : ImportanceMap, dialog.path(), dialog.options());
  if (!st) QMessageBox::warning(this, tr("Export figure"), QString::fromStdString(st.error().message));
}

void ImportancePanel::exportCsvDialog() {
  QString selected;
  const QString importanceFilter = tr("Head importance (*.csv)"), curveFilter = tr("Pruning curve (*.csv)");
  const QString path = QFileDialog::getSaveFileName(this, tr("Export CSV"), QStringLiteral("importance.csv"),
                                                    importanceFilter + QStringLiteral(";;") + curveFilter, &selected);
  if (path.isEmpty()) return;
  const auto st = exportCsv(selected == curveFilter ? PruningCurve : ImportanceMap, path);
  if (!st) QMessageBox::warning(this, tr("Export CSV"), QString::fromStdString(st.error().message));
}

}  // namespace attn::ui
