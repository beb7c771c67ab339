#include "attn_ui/pretrained/interventions_panel.h"

#include <QAction>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "attn/models/experiments/head_experiments.h"
#include "attn_ui/pretrained/interventions_controller.h"

namespace attn::ui {

QString interventionSummaryText(const attn::models::RunComparison& c) {
  QStringList lines;
  lines << (c.firstChangedLayer >= 0
                ? InterventionsPanel::tr("Attention changes from layer %1 on.").arg(c.firstChangedLayer + 1)
                : InterventionsPanel::tr("No attention map changed."));
  lines << InterventionsPanel::tr("Final hidden states: relative change %1 (max |Δ| %2).")
               .arg(c.hiddenChange, 0, 'g', 3)
               .arg(c.hiddenMaxAbs, 0, 'g', 3);
  if (c.causal) {
    lines << InterventionsPanel::tr("Next token after position %1: KL(before ‖ after) = %2 nats.")
                 .arg(c.position)
                 .arg(c.kl, 0, 'g', 3);
    if (c.hasLoss)
      lines << InterventionsPanel::tr("Mean next-token loss: %1 → %2 nats (%3%4).")
                   .arg(c.lossBefore, 0, 'f', 4)
                   .arg(c.lossAfter, 0, 'f', 4)
                   .arg(c.lossAfter >= c.lossBefore ? QStringLiteral("+") : QString())
                   .arg(c.lossAfter - c.lossBefore, 0, 'f', 4);
  } else {
    lines << InterventionsPanel::tr("[CLS] representation: relative change %1, cosine %2.")
                 .arg(c.clsChange, 0, 'g', 3)
                 .arg(c.clsCosine, 0, 'f', 4);
  }
  return lines.join(QLatin1Char('\n'));
}

InterventionsPanel::InterventionsPanel(InterventionsController* controller, QWidget* parent)
    : QWidget(parent),
      controller_(controller),
      list_(new QListWidget(this)),
      remove_(new QPushButton(tr("&Remove"), this)),
      summary_(new QLabel(this)) {
  setObjectName(QStringLiteral("InterventionsPanel"));
  list_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  list_->setToolTip(tr("Active head interventions. Right-click a head tile or the heatmap to add one; "
                       "select one and press Delete to remove it; Ctrl+Z undoes the last change."));
  remove_->setToolTip(tr("Remove the selected interventions."));
  remove_->setEnabled(false);
  auto button = [this](QAction* a) {
    auto* b = new QToolButton(this);
    b->setDefaultAction(a);
    return b;
  };
  auto* row = new QHBoxLayout;
  row->addWidget(remove_);
  row->addWidget(button(controller_->clearAction()));
  row->addStretch(1);
  row->addWidget(button(controller_->undoAction()));
  row->addWidget(button(controller_->redoAction()));
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->addWidget(list_, 1);
  layout->addLayout(row);
  layout->addWidget(summary_);
  auto* del = new QAction(this);
  del->setShortcuts({QKeySequence::Delete, QKeySequence(Qt::Key_Backspace)});
  del->setShortcutContext(Qt::WidgetShortcut);
  list_->addAction(del);
  connect(del, &QAction::triggered, this, &InterventionsPanel::removeSelected);
  connect(remove_, &QPushButton::clicked, this, &InterventionsPanel::removeSelected);
  connect(list_, &QListWidget::itemSelectionChanged, this,
          [this] { remove_->setEnabled(!list_->selectedItems().isEmpty()); });
  connect(controller_, &InterventionsController::activeChanged, this, &InterventionsPanel::refreshList);
  connect(controller_, &InterventionsController::resultChanged, this, &InterventionsPanel::refreshSummary);
  refreshList();
  refreshSummary();
}

QString InterventionsPanel::summaryText() const { return summary_->text(); }

void InterventionsPanel::refreshList() {
  list_->clear();
  for (const auto& iv : controller_->active()) {
    auto* item = new QListWidgetItem(interventionText(iv), list_);
    item->setToolTip(tr("Layer %1, head %2: %3").arg(iv.layer + 1).arg(iv.head + 1).arg(interventionKindText(iv)));
  }
  remove_->setEnabled(false);
  refreshSummary();
}

void InterventionsPanel::refreshSummary() {
  if (controller_->active().empty()) {
    summary_->setText(tr("No interventions. Right-click a head tile or the heatmap: Ablate, Uniform, "
                         "Temperature…, Mask…"));
    return;
  }
  const auto* c = controller_->comparison();
  if (c)
    summary_->setText(interventionSummaryText(*c));
  else if (controller_->intervenedRun())
    summary_->setText(controller_->comparisonError());
  else
    summary_->setText(tr("Running the intervened model…"));
}

void InterventionsPanel::removeSelected() {
  std::vector<int> rows;
  for (auto* item : list_->selectedItems()) rows.push_back(list_->row(item));
  std::sort(rows.rbegin(), rows.rend());  // from the end, so earlier rows keep their index
  if (rows.size() == 1) return controller_->remove(rows.front());
  // Several at once: one undo step each, newest last.
  for (int r : rows) controller_->remove(r);
}

}  // namespace attn::ui
