#include "attn_ui/translation/translation_interventions.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>

#include "attn/models/seq2seq/seq2seq_model.h"

namespace attn::ui {

using attn::models::InterventionKind;
using attn::models::Seq2SeqIntervention;
using attn::models::Seq2SeqStack;

TranslationInterventions::TranslationInterventions(QWidget* parent)
    : QWidget(parent),
      stack_(new QComboBox(this)),
      kind_(new QComboBox(this)),
      layer_(new QSpinBox(this)),
      head_(new QSpinBox(this)),
      temperature_(new QDoubleSpinBox(this)),
      add_(new QPushButton(tr("Add"), this)),
      list_(new QListWidget(this)),
      remove_(new QPushButton(tr("Remove"), this)),
      clear_(new QPushButton(tr("Clear"), this)),
      rerun_(new QPushButton(tr("&Rerun"), this)) {
  stack_->addItem(tr("Cross-attention"), int(Seq2SeqStack::Cross));
  stack_->addItem(tr("Encoder self-attention"), int(Seq2SeqStack::Encoder));
  stack_->addItem(tr("Decoder self-attention"), int(Seq2SeqStack::Decoder));
  kind_->addItem(tr("Ablate"), int(InterventionKind::Ablate));
  kind_->addItem(tr("Uniform"), int(InterventionKind::Uniform));
  kind_->addItem(tr("Temperature"), int(InterventionKind::Temperature));
  kind_->setToolTip(
      tr("Ablate: the head's output is zero (Hugging Face's head masks). Uniform: equal weight on every "
         "key the head may see. Temperature: its logits divided by T."));
  temperature_->setRange(0.05, 100.0);
  temperature_->setValue(2.0);
  temperature_->setSingleStep(0.5);
  temperature_->setPrefix(QStringLiteral("T = "));
  temperature_->setVisible(false);
  layer_->setToolTip(tr("Layer, numbered as the Layer box above"));
  head_->setToolTip(tr("Head, numbered as the Head box above"));
  list_->setFlow(QListView::LeftToRight);
  list_->setWrapping(false);
  list_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  // One line, as tall as the buttons beside it: the dock is wide and short.
  list_->setFixedHeight(add_->sizeHint().height());
  list_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  list_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  list_->setSpacing(1);
  list_->setToolTip(tr("Active interventions; Rerun applies them (right-click a head's map to ablate it)."));
  rerun_->setToolTip(tr("Translate again with these interventions: the output and maps show before → after"));
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(new QLabel(tr("Intervene"), this));
  for (QWidget* w :
       std::initializer_list<QWidget*>{stack_, new QLabel(tr("Layer"), this), layer_,
                                       new QLabel(tr("Head"), this), head_, kind_, temperature_, add_})
    row->addWidget(w);
  row->addWidget(list_, 1);
  for (QWidget* w : std::initializer_list<QWidget*>{remove_, clear_, rerun_}) row->addWidget(w);
  connect(stack_, &QComboBox::currentIndexChanged, this, &TranslationInterventions::fitRanges);
  connect(kind_, &QComboBox::currentIndexChanged, this, [this] {
    temperature_->setVisible(kind_->currentData().toInt() == int(InterventionKind::Temperature));
  });
  connect(add_, &QPushButton::clicked, this, &TranslationInterventions::addFromBoxes);
  connect(remove_, &QPushButton::clicked, this, &TranslationInterventions::removeSelected);
  connect(clear_, &QPushButton::clicked, this, &TranslationInterventions::clear);
  connect(rerun_, &QPushButton::clicked, this, &TranslationInterventions::rerunRequested);
  setShape(0, 0, 0, 0);
}

void TranslationInterventions::setShape(int encoderLayers, int encoderHeads, int decoderLayers,
                                        int decoderHeads) {
  shape_[0] = encoderLayers, shape_[1] = encoderHeads, shape_[2] = decoderLayers, shape_[3] = decoderHeads;
  active_.clear();
  fitRanges();
  refresh();
  setEnabled(encoderLayers > 0);
}

void TranslationInterventions::fitRanges() {
  const bool enc = stack_->currentData().toInt() == int(Seq2SeqStack::Encoder);
  // From 1, as the dock's Layer and Head boxes, the main window and the CLI number them.
  layer_->setRange(1, std::max(1, shape_[enc ? 0 : 2]));
  head_->setRange(1, std::max(1, shape_[enc ? 1 : 3]));
}

QString TranslationInterventions::describe(const Seq2SeqIntervention& iv) {
  const QString stack = iv.stack == Seq2SeqStack::Cross     ? tr("Cross-attention")
                        : iv.stack == Seq2SeqStack::Encoder ? tr("Encoder self-attention")
                                                            : tr("Decoder self-attention");
  QString kind = iv.head.kind == InterventionKind::Ablate    ? tr("ablate")
                 : iv.head.kind == InterventionKind::Uniform ? tr("uniform")
                                                             : tr("temperature %1").arg(iv.head.temperature);
  if (iv.head.kind == InterventionKind::Mask) kind = tr("mask %1").arg(QString::fromStdString(iv.head.mask));
  return tr("%1 %2.%3: %4").arg(stack).arg(iv.head.layer + 1).arg(iv.head.head + 1).arg(kind);
}

QString TranslationInterventions::effectText(const attn::models::Seq2SeqRun& before,
                                             const attn::models::Seq2SeqRun& after, bool forced) {
  if (!forced)
    return tr("Translation: %1 → with the interventions: %2")
        .arg(QString::fromStdString(before.outputText), QString::fromStdString(after.outputText));
  const auto p0 = attn::models::targetTokenProbabilities(before.logits, before.targetIds);
  const auto p1 = attn::models::targetTokenProbabilities(after.logits, after.targetIds);
  QStringList cells;
  constexpr size_t kShown = 16;  // a long target: the first tokens, then "…"
  for (size_t i = 0; i < p0.size() && i < p1.size() && i < kShown; ++i) {
    const QString token =
        i + 1 < after.targetTokens.size() ? QString::fromStdString(after.targetTokens[i + 1]) : QString();
    cells << QStringLiteral("%1 %2→%3").arg(token).arg(p0[i], 0, 'f', 3).arg(p1[i], 0, 'f', 3);
  }
  if (p1.size() > kShown) cells << QStringLiteral("…");
  return tr("Forced target, p(token) before → after: %1").arg(cells.join(QStringLiteral(", ")));
}

void TranslationInterventions::add(const Seq2SeqIntervention& iv) {
  for (auto& a : active_)
    if (a.stack == iv.stack && a.head.layer == iv.head.layer && a.head.head == iv.head.head &&
        a.head.kind == iv.head.kind) {
      a = iv;
      refresh();
      emit changed();
      return;
    }
  active_.push_back(iv);
  refresh();
  emit changed();
}

void TranslationInterventions::addFromBoxes() {
  Seq2SeqIntervention iv;
  iv.stack = static_cast<Seq2SeqStack>(stack_->currentData().toInt());
  iv.head.kind = static_cast<InterventionKind>(kind_->currentData().toInt());
  iv.head.layer = layer_->value() - 1;  // the core counts from 0
  iv.head.head = head_->value() - 1;
  iv.head.temperature = static_cast<float>(temperature_->value());
  add(iv);
}

void TranslationInterventions::removeSelected() {
  std::vector<Seq2SeqIntervention> kept;
  for (int i = 0; i < list_->count(); ++i)
    if (!list_->item(i)->isSelected()) kept.push_back(active_[static_cast<size_t>(i)]);
  if (kept.size() == active_.size()) return;
  active_ = std::move(kept);
  refresh();
  emit changed();
}

void TranslationInterventions::clear() {
  if (active_.empty()) return;
  active_.clear();
  refresh();
  emit changed();
}

void TranslationInterventions::refresh() {
  list_->clear();
  for (const auto& iv : active_) {
    auto* item = new QListWidgetItem(describe(iv), list_);
    item->setToolTip(QStringLiteral("--intervene ") + QString::fromStdString(formatSeq2SeqIntervention(iv)));
  }
  remove_->setEnabled(!active_.empty());
  clear_->setEnabled(!active_.empty());
}

}  // namespace attn::ui
