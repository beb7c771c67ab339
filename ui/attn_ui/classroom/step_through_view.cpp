#include "attn_ui/classroom/step_through_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include "attn/teaching/step_through.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/classroom/step_through_panel.h"

namespace attn::ui {

StepThroughView::StepThroughView(ExplorerModel* model, QWidget* parent)
    : QWidget(parent),
      model_(model),
      panel_(new StepThroughPanel(this)),
      queries_(new QComboBox(this)),
      prev_(new QPushButton(tr("◀ Previous"), this)),
      next_(new QPushButton(tr("Next ▶"), this)) {
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Query:"), this));
  queries_->setToolTip(tr("The query row to walk through (or click a row of the heatmap)."));
  bar->addWidget(queries_, 1);
  prev_->setToolTip(tr("Previous step (Left)"));
  next_->setToolTip(tr("Next step (Right or Space)"));
  bar->addWidget(prev_);
  bar->addWidget(next_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(bar);
  layout->addWidget(panel_, 1);
  connect(prev_, &QPushButton::clicked, panel_, &StepThroughPanel::previous);
  connect(next_, &QPushButton::clicked, panel_, &StepThroughPanel::next);
  connect(queries_, &QComboBox::activated, this, &StepThroughView::setQuery);
  connect(model_, &ExplorerModel::resultChanged, this, &StepThroughView::refresh);
  connect(model_, &ExplorerModel::pinnedRowChanged, this, [this](int row) {
    if (row >= 0) setQuery(row);  // unpinning keeps the query being explained
  });
  if (model_->pinnedRow() >= 0) query_ = model_->pinnedRow();
  refresh();
}

void StepThroughView::setQuery(int query) {
  if (query < 0) return;
  if (model_->pinnedRow() != query) model_->setPinnedRow(query);  // comes back through pinnedRowChanged
  if (query == query_) return;
  query_ = query;
  refresh();
  emit queryChanged(query_);
}

void StepThroughView::refresh() {
  if (!model_->hasResult()) {
    panel_->clearWalk();
    return;
  }
  const auto& res = model_->result();
  const QStringList q = model_->queryLabels();
  if (query_ >= res.nq()) query_ = 0;
  {
    const QSignalBlocker block(queries_);
    queries_->clear();
    for (int i = 0; i < q.size(); ++i) queries_->addItem(QString("%1: %2").arg(i).arg(q[i]));
    queries_->setCurrentIndex(query_);
  }
  const attn::HeadResult* head = model_->currentHeadResult();
  // The configuration the shown result was computed with (a model's own, while one is open),
  // with the mask the result applied.
  attn::AttentionSpec spec = model_->resultSpec();
  if (!res.mask.isNone()) spec.mask = res.mask;
  auto walk = head ? attn::stepThrough(*head, spec, query_) : attn::Result<attn::StepThrough>(attn::Error{""});
  if (!walk) {
    panel_->clearWalk(head ? QString::fromStdString(walk.error().message) : QString());
    return;
  }
  panel_->setWalk(*walk, model_->keyLabels(), q.value(query_));
}

void StepThroughView::attachHeatmap(HeatmapWidget* heatmap) {
  connect(heatmap, &HeatmapWidget::cellClicked, this, [this](int row, int) { setQuery(row); });
  connect(model_, &ExplorerModel::pinnedRowChanged, heatmap, &HeatmapWidget::setPinnedRow);
  heatmap->setPinnedRow(model_->pinnedRow());
}

}  // namespace attn::ui
