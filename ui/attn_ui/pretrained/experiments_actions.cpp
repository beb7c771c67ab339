#include "attn_ui/pretrained/experiments_actions.h"

#include <QComboBox>
#include <QDockWidget>
#include <QMap>
#include <QMenu>

#include "attn/models/model.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/head_grid.h"
#include "attn_ui/explorer/heatmap_panel.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/pretrained/head_types_controller.h"
#include "attn_ui/pretrained/importance_controller.h"
#include "attn_ui/pretrained/importance_panel.h"
#include "attn_ui/pretrained/intervention_effect_panel.h"
#include "attn_ui/pretrained/intervention_menu.h"
#include "attn_ui/pretrained/interventions_controller.h"
#include "attn_ui/pretrained/interventions_panel.h"
#include "attn_ui/pretrained/prediction_panel.h"
#include "attn_ui/window/main_window.h"

namespace attn::ui {

QString predictionEffectText(const attn::models::RunComparison& c) {
  if (!c.causal) return {};
  auto top = [](const std::vector<attn::models::TopToken>& tokens) {
    QStringList parts;
    for (const auto& t : tokens)
      parts << QStringLiteral("%1 %2%").arg(visibleToken(t.token)).arg(100.0 * t.prob, 0, 'f', 1);
    return parts.join(QStringLiteral(", "));
  };
  QStringList lines;
  lines << ExperimentsActions::tr("With the interventions: KL(before ‖ after) = %1 nats at position %2.")
               .arg(c.kl, 0, 'g', 3)
               .arg(c.position);
  lines << ExperimentsActions::tr("Before: %1").arg(top(c.topBefore));
  lines << ExperimentsActions::tr("After: %1").arg(top(c.topAfter));
  if (c.hasLoss)
    lines << ExperimentsActions::tr("Mean next-token loss of the text: %1 → %2 nats (%3%4).")
                 .arg(c.lossBefore, 0, 'f', 4)
                 .arg(c.lossAfter, 0, 'f', 4)
                 .arg(c.lossAfter >= c.lossBefore ? QStringLiteral("+") : QString())
                 .arg(c.lossAfter - c.lossBefore, 0, 'f', 4);
  return lines.join(QLatin1Char('\n'));
}

ExperimentsActions::ExperimentsActions(MainWindow& window)
    : QObject(&window),
      window_(&window),
      interventions_(new InterventionsController(window.model(), &window)),
      importance_(new ImportanceController(window.model(), this)),
      list_(new InterventionsPanel(interventions_, &window)),
      effect_(new InterventionEffectPanel(window.model(), interventions_, &window)),
      importancePanel_(new ImportancePanel(window.model(), importance_, &window)),
      grid_(window.findChild<HeadGrid*>()),
      headTypes_(new HeadTypesController(window.model(), grid_, this)) {
  QMenu* menu = window.menu(tr("E&xperiments"));
  menu->addAction(importance_->computeAction());
  menu->addSeparator();
  menu->addAction(interventions_->undoAction());
  menu->addAction(interventions_->redoAction());
  menu->addAction(interventions_->clearAction());
  connect(importance_, &ImportanceController::message, window.model(), &ExplorerModel::reportError);

  QDockWidget* listDock = window.addPanel(tr("Interventions"), list_, Qt::RightDockWidgetArea);
  effectDock_ = window.addPanel(tr("Intervention effect"), effect_, Qt::BottomDockWidgetArea);
  effectDock_->hide();
  QDockWidget* importanceDock = window.addPanel(tr("Head importance"), importancePanel_, Qt::RightDockWidgetArea);
  // Beside the head grid, so the importance of a head sits next to its tile.
  QDockWidget* headsDock = grid_ ? qobject_cast<QDockWidget*>(grid_->parentWidget()) : nullptr;
  if (headsDock) {
    window.splitDockWidget(headsDock, importanceDock, Qt::Vertical);
    window.tabifyDockWidget(importanceDock, listDock);
    importanceDock->raise();
  }
  // A model's experiments start hidden until there is one.
  auto followModel = [this, listDock, importanceDock] {
    const bool on = window_->model()->hasModel();
    if (on && !listDock->isVisible() && !importanceDock->isVisible()) {
      listDock->show();
      importanceDock->show();
      importanceDock->raise();
    }
  };
  if (!window.model()->hasModel()) {
    listDock->hide();
    importanceDock->hide();
  }
  connect(window.model(), &ExplorerModel::modelChanged, this, followModel);
  connect(importance_, &ImportanceController::started, this, [importanceDock] {
    importanceDock->show();
    importanceDock->raise();
  });
  connect(interventions_, &InterventionsController::activeChanged, this, [this, listDock] {
    if (!interventions_->active().empty() && !effectDock_->isVisible()) effectDock_->show();
    if (!interventions_->active().empty()) listDock->show();
  });

  if (auto* selector = window.heatmapPanel()->colormapSelector()) {
    auto apply = [this](const QString& name) {
      importancePanel_->setColormap(name);
      effect_->setColormap(name);
    };
    apply(selector->currentData().toString());
    connect(window.heatmapPanel(), &HeatmapPanel::colormapChanged, this, apply);
  }

  // Right-click: the head grid's tile, or the head the heatmap shows.
  if (grid_) {
    grid_->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(grid_, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
      const int tile = grid_->headAt(pos);
      if (tile < 0 || !window_->model()->hasModel()) return;
      if (grid_->showsLayers())
        showMenu(tile / grid_->columns(), tile % grid_->columns(), grid_->mapToGlobal(pos));
      else
        showMenu(window_->model()->currentLayer(), tile, grid_->mapToGlobal(pos));
    });
  }
  HeatmapWidget* heatmap = window.heatmap();
  heatmap->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(heatmap, &QWidget::customContextMenuRequested, this, [this, heatmap](const QPoint& pos) {
    if (!window_->model()->hasModel() || !window_->model()->modelRun()) return;
    showMenu(window_->model()->currentLayer(), window_->model()->currentHead(), heatmap->mapToGlobal(pos));
  });

  connect(interventions_, &InterventionsController::activeChanged, this, &ExperimentsActions::refreshMarks);
  connect(window.model(), &ExplorerModel::resultChanged, this, &ExperimentsActions::refreshMarks);
  connect(window.model(), &ExplorerModel::currentLayerChanged, this, &ExperimentsActions::refreshMarks);
  connect(interventions_, &InterventionsController::resultChanged, this, &ExperimentsActions::refreshPrediction);
  connect(interventions_, &InterventionsController::activeChanged, this, &ExperimentsActions::refreshPrediction);
}

void ExperimentsActions::showMenu(int layer, int head, const QPoint& globalPos) {
  QMenu* menu = interventionMenu(interventions_, layer, head, window_);
  menu->setAttribute(Qt::WA_DeleteOnClose);
  menu->popup(globalPos);
}

void ExperimentsActions::refreshMarks() {
  if (!grid_) return;
  ExplorerModel* model = window_->model();
  QMap<int, QString> marks;
  for (const auto& iv : interventions_->active()) {
    int tile = -1;
    if (grid_->showsLayers())
      tile = iv.layer * grid_->columns() + iv.head;
    else if (iv.layer == model->currentLayer())
      tile = iv.head;
    if (tile < 0) continue;
    marks[tile] += (marks[tile].isEmpty() ? QString() : tr(", ")) + interventionKindText(iv);
  }
  grid_->setTileMarks(marks);
}

void ExperimentsActions::refreshPrediction() {
  auto* prediction = window_->findChild<PredictionPanel*>();
  if (!prediction) return;
  const auto* c = interventions_->comparison();
  if (interventions_->active().empty())
    prediction->setEffect(QString());
  else if (!c)
    prediction->setEffect(interventions_->intervenedRun() ? interventions_->comparisonError()
                                                          : tr("Running the intervened model…"));
  else
    prediction->setEffect(predictionEffectText(*c));
}

}  // namespace attn::ui
