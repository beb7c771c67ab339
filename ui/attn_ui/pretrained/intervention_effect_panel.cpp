#include "attn_ui/pretrained/intervention_effect_panel.h"

#include <QLabel>
#include <QVBoxLayout>

#include "attn/teaching/compare.h"
#include "attn/models/model.h"
#include "attn_ui/classroom/compare_view.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/pretrained/interventions_controller.h"

namespace attn::ui {

InterventionEffectPanel::InterventionEffectPanel(ExplorerModel* model, InterventionsController* controller,
                                                 QWidget* parent)
    : QWidget(parent), model_(model), controller_(controller), status_(new QLabel(this)), view_(new CompareView(this)) {
  setObjectName(QStringLiteral("InterventionEffectPanel"));
  status_->setWordWrap(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 4, 6, 4);
  layout->addWidget(status_);
  layout->addWidget(view_, 1);
  connect(controller_, &InterventionsController::resultChanged, this, &InterventionEffectPanel::refresh);
  connect(model_, &ExplorerModel::currentHeadChanged, this, &InterventionEffectPanel::refresh);
  connect(model_, &ExplorerModel::currentLayerChanged, this, &InterventionEffectPanel::refresh);
  refresh();
}

QString InterventionEffectPanel::statusText() const { return status_->text(); }

void InterventionEffectPanel::setColormap(const QString& name) { view_->setColormap(name); }

void InterventionEffectPanel::refresh() {
  const auto before = controller_->originalRun(), after = controller_->intervenedRun();
  const int layer = model_->currentLayer(), head = model_->currentHead();
  if (!before || !after) {
    status_->setText(controller_->active().empty()
                         ? tr("Intervene on a head (right-click a head tile) to compare the original model (A) "
                              "with the intervened one (B) here.")
                         : tr("Running the intervened model…"));
    view_->setEnabled(false);
    return;
  }
  const auto l = static_cast<size_t>(layer), h = static_cast<size_t>(head);
  if (l >= before->layers.size() || l >= after->layers.size() || h >= before->layers[l].heads.size() ||
      h >= after->layers[l].heads.size())
    return;
  const auto& a = before->layers[l].heads[h];
  const auto& b = after->layers[l].heads[h];
  auto summary = attn::compareHeads(a, b);
  if (!summary) {
    status_->setText(QString::fromStdString(summary.error().message));
    return;
  }
  view_->setEnabled(true);
  const QStringList labels = model_->queryLabels();
  const auto on = controller_->on(layer, head);
  QStringList here;
  for (const auto& iv : on) here << interventionKindText(iv);
  status_->setText(here.isEmpty()
                       ? tr("Layer %1, head %2 is not intervened on; any difference comes from earlier layers.")
                             .arg(layer + 1)
                             .arg(head + 1)
                       : tr("Layer %1, head %2: %3.").arg(layer + 1).arg(head + 1).arg(here.join(tr(", "))));
  view_->setComparison(a.weights, b.weights, *summary, labels, labels,
                       tr("A: original, L%1 H%2").arg(layer + 1).arg(head + 1),
                       tr("B: intervened, L%1 H%2").arg(layer + 1).arg(head + 1));
}

}  // namespace attn::ui
