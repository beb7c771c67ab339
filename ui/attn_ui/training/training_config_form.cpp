#include "attn_ui/training/training_config_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include "attn/train/tasks.h"

namespace attn::ui {

using attn::train::OptimizerKind;
using attn::train::Task;
using attn::train::TrainConfig;
using attn::train::TrainInit;
using attn::train::TrainLimits;
using attn::train::TrainMechanism;

QString trainingTaskTitle(Task t) {
  switch (t) {
    case Task::Copy: return TrainingConfigForm::tr("Copy");
    case Task::Reverse: return TrainingConfigForm::tr("Reverse");
    case Task::Sort: return TrainingConfigForm::tr("Sort digits");
    case Task::Shift: return TrainingConfigForm::tr("Shift by one");
    case Task::Translate: return TrainingConfigForm::tr("Translate (cross-attention)");
    case Task::Brackets: return TrainingConfigForm::tr("Matching bracket");
    case Task::Induction:
      return TrainingConfigForm::tr("Induction (repeated segment)");
  }
  return {};
}

QString trainingTaskDescription(Task t) {
  switch (t) {
    case Task::Copy:
      return TrainingConfigForm::tr("Copy the input: each output position should attend to the same input "
                                    "position (the diagonal).");
    case Task::Reverse:
      return TrainingConfigForm::tr("Reverse the input: output position i should attend to input position "
                                    "N−1−i (the anti-diagonal).");
    case Task::Sort:
      return TrainingConfigForm::tr("Sort the digits: output position i should attend to the i-th smallest "
                                    "input (the sorting permutation).");
    case Task::Shift:
      return TrainingConfigForm::tr("Shift by one: output position i should attend to input position i−1 "
                                    "(the sub-diagonal).");
    case Task::Translate:
      return TrainingConfigForm::tr("Translate word by word into a toy language that swaps adjacent words: "
                                    "each target position attends across to the source word it translates "
                                    "(encoder–decoder cross-attention).");
    case Task::Brackets:
      return TrainingConfigForm::tr("Find the matching bracket: each position should attend to the bracket "
                                    "that closes or opens it.");
    case Task::Induction:
      return TrainingConfigForm::tr(
          "Predict the next token where a segment repeats: layer 1 finds each token's "
          "predecessor (a previous-token head) so that layer 2 can attend to the token "
          "after the earlier copy of the current one (an induction head). Needs 2 "
          "layers and the residual stream.");
  }
  return {};
}

namespace {

template <class E>
void addItem(QComboBox* box, const QString& text, E value) {
  box->addItem(text, static_cast<int>(value));
}

template <class E>
E current(const QComboBox* box) {
  return static_cast<E>(box->currentData().toInt());
}

template <class E>
void select(QComboBox* box, E value) {
  const int i = box->findData(static_cast<int>(value));
  if (i >= 0) box->setCurrentIndex(i);
}

QSpinBox* spin(QWidget* parent, int lo, int hi, const QString& tip) {
  auto* s = new QSpinBox(parent);
  s->setRange(lo, hi);
  s->setToolTip(tip);
  return s;
}

QDoubleSpinBox* dspin(QWidget* parent, double lo, double hi, int decimals, double step, const QString& tip) {
  auto* s = new QDoubleSpinBox(parent);
  s->setRange(lo, hi);
  s->setDecimals(decimals);
  s->setSingleStep(step);
  s->setToolTip(tip);
  return s;
}

}  // namespace

TrainingConfigForm::TrainingConfigForm(QWidget* parent)
    : QWidget(parent),
      task_(new QComboBox(this)),
      mechanism_(new QComboBox(this)),
      init_(new QComboBox(this)),
      optimizer_(new QComboBox(this)),
      seqLen_(spin(this, 2, TrainLimits::maxSeqLen, tr("Sequence length N: tokens per example."))),
      vocab_(spin(this, 2, TrainLimits::maxVocab, tr("Number of input symbols (0–9, then A–Z)."))),
      heads_(spin(this, 1, TrainLimits::maxHeads, tr("Attention heads per layer."))),
      dK_(spin(this, 1, TrainLimits::maxDim, tr("Query/key width per head, d_k."))),
      dModel_(spin(this, 1, TrainLimits::maxDim, tr("Embedding width, d_model."))),
      layers_(spin(this, 1, TrainLimits::maxLayers, tr("Attention layers (1 or 2)."))),
      seed_(spin(this, 0, 1000000,
                 tr("Seed of the weights, the batches and the fixed example: the same seed "
                    "gives the same run."))),
      limit_(spin(this, 1, 1000000, tr("Train stops after this many updates (Pause stops earlier)."))),
      batch_(spin(this, 1, TrainLimits::maxBatch, tr("Fresh random sequences per update."))),
      lr_(dspin(this, 1e-5, 10.0, 5, 1e-3, tr("Learning rate of the optimizer."))),
      entropy_(dspin(this, 0.0, 10.0, 3, 0.01,
                     tr("Entropy regularisation: adds this times the mean attention entropy to the loss, "
                        "pulling heads toward focus (0 = off)."))),
      clip_(
          dspin(this, 0.0, 1000.0, 2, 0.5,
                tr("Gradient clipping: rescales the gradient to this L2 norm when it is larger (0 = off)."))),
      temperature_(
          dspin(this, 0.01, 1000.0, 2, 0.5,
                tr("Softmax temperature: logits are divided by it; large values flatten every map."))),
      residual_(new QCheckBox(tr("Residual stream"), this)),
      description_(new QLabel(this)) {
  residual_->setToolTip(
      tr("Each layer adds its output to its input (a transformer's residual stream), so a "
         "layer-2 head can read what a layer-1 head wrote. Off: each layer replaces it."));
  for (Task t :
       {Task::Copy, Task::Reverse, Task::Sort, Task::Shift, Task::Translate, Task::Brackets, Task::Induction})
    addItem(task_, trainingTaskTitle(t), t);
  addItem(mechanism_, tr("scaled dot q·k/√d_k"), TrainMechanism::ScaledDot);
  addItem(mechanism_, tr("dot q·k (unscaled)"), TrainMechanism::Dot);
  addItem(mechanism_, tr("general qᵀWk"), TrainMechanism::General);
  addItem(mechanism_, tr("additive vᵀtanh(Wq + Uk)"), TrainMechanism::Additive);
  addItem(init_, tr("Xavier (Glorot)"), TrainInit::Xavier);
  addItem(init_, tr("Kaiming (He)"), TrainInit::Kaiming);
  addItem(init_, tr("Orthogonal"), TrainInit::Orthogonal);
  addItem(init_, tr("Bad: W_Q = W_K = 0"), TrainInit::Bad);
  addItem(optimizer_, tr("Adam"), OptimizerKind::Adam);
  addItem(optimizer_, tr("SGD"), OptimizerKind::Sgd);
  task_->setToolTip(tr("The toy task the model learns; each has one attention pattern that solves it."));
  init_->setToolTip(tr("How the weights start. The bad one keeps every map uniform: attention never forms."));
  lr_->setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);
  description_->setWordWrap(true);
  description_->setObjectName(QStringLiteral("taskDescription"));

  auto* form = new QFormLayout;
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  form->addRow(tr("Task"), task_);
  form->addRow(description_);
  form->addRow(tr("Sequence length"), seqLen_);
  form->addRow(tr("Vocabulary size"), vocab_);
  form->addRow(tr("Mechanism"), mechanism_);
  form->addRow(tr("Heads"), heads_);
  form->addRow(tr("d_k"), dK_);
  form->addRow(tr("d_model"), dModel_);
  form->addRow(tr("Layers"), layers_);
  form->addRow(QString(), residual_);
  form->addRow(tr("Initialisation"), init_);
  form->addRow(tr("Optimizer"), optimizer_);
  form->addRow(tr("Learning rate"), lr_);
  form->addRow(tr("Batch size"), batch_);
  form->addRow(tr("Seed"), seed_);
  form->addRow(tr("Entropy regularisation"), entropy_);
  form->addRow(tr("Gradient clipping"), clip_);
  form->addRow(tr("Temperature"), temperature_);
  form->addRow(tr("Stop after (steps)"), limit_);
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addLayout(form);

  setConfig(TrainConfig{});
  setStepLimit(3000);
  for (QComboBox* b : {task_, mechanism_, init_, optimizer_})
    connect(b, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] {
      updateTaskHints();
      emit configChanged();
    });
  for (QSpinBox* s : {seqLen_, vocab_, heads_, dK_, dModel_, layers_, seed_, batch_})
    connect(s, qOverload<int>(&QSpinBox::valueChanged), this, &TrainingConfigForm::configChanged);
  connect(residual_, &QCheckBox::toggled, this, &TrainingConfigForm::configChanged);
  for (QDoubleSpinBox* s : {lr_, entropy_, clip_, temperature_})
    connect(s, qOverload<double>(&QDoubleSpinBox::valueChanged), this, &TrainingConfigForm::configChanged);
}

void TrainingConfigForm::updateTaskHints() {
  const Task t = current<Task>(task_);
  description_->setText(QStringLiteral("<i>%1</i>").arg(trainingTaskDescription(t).toHtmlEscaped()));
  // Brackets always has two symbols; the bracket strings need an even length.
  vocab_->setEnabled(t != Task::Brackets);
  vocab_->setMaximum(t == Task::Translate ? attn::train::translateVocabularyLimit() : TrainLimits::maxVocab);
  seqLen_->setSingleStep(t == Task::Brackets ? 2 : 1);
}

TrainConfig TrainingConfigForm::config() const {
  TrainConfig c = base_;
  c.task = current<Task>(task_);
  c.seqLen = seqLen_->value();
  if (c.task == Task::Brackets && c.seqLen % 2) ++c.seqLen;
  c.vocabSize = vocab_->value();
  c.mechanism = current<TrainMechanism>(mechanism_);
  c.heads = heads_->value();
  c.dK = dK_->value();
  c.dModel = dModel_->value();
  c.layers = layers_->value();
  c.residual = residual_->isChecked();
  if (!c.residual) c.mlpHidden = 0;  // the MLP lives on the residual stream
  c.init = current<TrainInit>(init_);
  c.optimizer = current<OptimizerKind>(optimizer_);
  c.learningRate = lr_->value();
  c.batchSize = batch_->value();
  c.seed = static_cast<uint64_t>(seed_->value());
  c.entropyWeight = entropy_->value();
  c.gradClipNorm = clip_->value();
  c.temperature = temperature_->value();
  return c;
}

void TrainingConfigForm::setConfig(const TrainConfig& c) {
  const QSignalBlocker b0(task_), b1(mechanism_), b2(init_), b3(optimizer_), b4(seqLen_), b5(vocab_),
      b6(heads_), b7(dK_), b8(dModel_), b9(layers_), b10(seed_), b11(lr_), b12(entropy_), b13(clip_),
      b14(temperature_), b15(batch_), b16(residual_);
  base_ = c;
  select(task_, c.task);
  seqLen_->setValue(c.seqLen);
  updateTaskHints();
  vocab_->setValue(c.vocabSize);
  select(mechanism_, c.mechanism);
  heads_->setValue(c.heads);
  dK_->setValue(c.dK);
  dModel_->setValue(c.dModel);
  layers_->setValue(c.layers);
  residual_->setChecked(c.residual);
  select(init_, c.init);
  select(optimizer_, c.optimizer);
  lr_->setValue(c.learningRate);
  batch_->setValue(c.batchSize);
  seed_->setValue(static_cast<int>(std::min<uint64_t>(c.seed, 1000000)));
  entropy_->setValue(c.entropyWeight);
  clip_->setValue(c.gradClipNorm);
  temperature_->setValue(c.temperature);
  updateTaskHints();
}

int TrainingConfigForm::stepLimit() const { return limit_->value(); }
void TrainingConfigForm::setStepLimit(int steps) {
  const QSignalBlocker b(limit_);
  limit_->setValue(steps);
}

}  // namespace attn::ui
