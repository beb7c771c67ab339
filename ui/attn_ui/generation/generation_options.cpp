#include "attn_ui/generation/generation_options.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <utility>

#include "attn/models/seq2seq/seq2seq_config.h"

namespace attn::ui {
namespace {

QHBoxLayout* tightRow(QWidget* owner) {
  auto* row = new QHBoxLayout(owner);
  row->setContentsMargins(0, 0, 0, 0);
  return row;
}

}  // namespace

GenerationOptions::GenerationOptions(QWidget* parent)
    : QWidget(parent),
      maxNew_(new QSpinBox(this)),
      mode_(new QComboBox(this)),
      beamFields_(new QWidget(this)),
      sampleFields_(new QWidget(this)),
      beams_(new QSpinBox(beamFields_)),
      lengthPenalty_(new QDoubleSpinBox(beamFields_)),
      topK_(new QSpinBox(sampleFields_)),
      topP_(new QDoubleSpinBox(sampleFields_)),
      temperature_(new QDoubleSpinBox(sampleFields_)),
      seed_(new QSpinBox(sampleFields_)) {
  maxNew_->setRange(1, 512);
  maxNew_->setValue(20);
  maxNew_->setToolTip(tr("Most tokens to write after the prompt; an end-of-text token stops sooner."));
  mode_->addItem(tr("Greedy"), int(Mode::Greedy));
  mode_->addItem(tr("Beam search"), int(Mode::Beam));
  mode_->addItem(tr("Sampling"), int(Mode::Sampling));
  mode_->addItem(tr("Beam sampling"), int(Mode::BeamSampling));
  mode_->setToolTip(
      tr("Greedy: the most probable token each step. Beam search: the best of several "
         "hypotheses as transformers' generate scores them. Sampling: drawn from the filtered "
         "distribution, reproducible with the seed. Beam sampling: beam search whose candidates "
         "are drawn instead of taken best first."));
  beams_->setRange(2, 8);
  beams_->setToolTip(tr("Hypotheses kept at each step (2 to 8)"));
  lengthPenalty_->setRange(-5.0, 5.0);
  lengthPenalty_->setSingleStep(0.1);
  lengthPenalty_->setDecimals(2);
  lengthPenalty_->setToolTip(
      tr("A finished hypothesis scores Σ log p / length^penalty: above 0 favours longer ones."));
  topK_->setRange(0, 100000);
  topK_->setSpecialValueText(tr("off"));
  topK_->setToolTip(tr("Draw among the k most probable tokens only (0: off)"));
  topP_->setRange(0.01, 1.0);
  topP_->setSingleStep(0.05);
  topP_->setDecimals(2);
  topP_->setToolTip(tr("Nucleus sampling: the smallest set of tokens whose probability reaches p (1: off)"));
  temperature_->setRange(0.05, 10.0);
  temperature_->setSingleStep(0.1);
  temperature_->setDecimals(2);
  temperature_->setToolTip(
      tr("Logits are divided by this before sampling: below 1 sharper, above 1 flatter"));
  seed_->setRange(0, 2147483647);
  seed_->setToolTip(tr("The same seed, prompt and settings write the same text"));

  auto* beamRow = tightRow(beamFields_);
  beamRow->addWidget(new QLabel(tr("Beams"), beamFields_));
  beamRow->addWidget(beams_);
  beamRow->addWidget(new QLabel(tr("Length penalty"), beamFields_));
  beamRow->addWidget(lengthPenalty_);
  auto* sampleRow = tightRow(sampleFields_);
  const std::pair<QString, QWidget*> sampleFields[] = {
      {tr("Top-k"), topK_}, {tr("Top-p"), topP_}, {tr("Temperature"), temperature_}, {tr("Seed"), seed_}};
  for (const auto& [label, box] : sampleFields) {
    sampleRow->addWidget(new QLabel(label, sampleFields_));
    sampleRow->addWidget(box);
  }
  auto* rows = new QVBoxLayout(this);
  rows->setContentsMargins(0, 0, 0, 0);
  firstRow_ = new QHBoxLayout;
  secondRow_ = new QHBoxLayout;
  rows->addLayout(firstRow_);
  rows->addLayout(secondRow_);
  secondRow_->addStretch(1);
  firstRow_->addWidget(new QLabel(tr("Max new tokens"), this));
  firstRow_->addWidget(maxNew_);
  firstRow_->addWidget(new QLabel(tr("Mode"), this));
  firstRow_->addWidget(mode_);
  firstRow_->addWidget(beamFields_);
  firstRow_->addWidget(sampleFields_);
  setDefaults(attn::models::GenerationSettings{});
  connect(mode_, &QComboBox::currentIndexChanged, this, &GenerationOptions::showModeFields);
  showModeFields();
}

void GenerationOptions::setDefaults(const attn::models::GenerationSettings& g) {
  beams_->setValue(std::clamp(g.numBeams, 2, 8));
  lengthPenalty_->setValue(g.lengthPenalty);
  topK_->setValue(std::max(0, g.sampling.topK));
  topP_->setValue(g.sampling.topP);
  temperature_->setValue(g.sampling.temperature);
  const bool beam = g.numBeams > 1;
  setMode(g.sampling.enabled ? (beam ? Mode::BeamSampling : Mode::Sampling)
          : beam             ? Mode::Beam
                             : Mode::Greedy);
}

attn::models::CausalGenerateOptions GenerationOptions::options() const {
  attn::models::CausalGenerateOptions o;
  o.maxNewTokens = maxNew_->value();
  const bool beam = mode() == Mode::Beam || mode() == Mode::BeamSampling;
  const bool sample = mode() == Mode::Sampling || mode() == Mode::BeamSampling;
  o.doSample = sample;
  o.beams = beam ? beams_->value() : 1;
  if (beam) o.lengthPenalty = lengthPenalty_->value();
  if (sample) {
    o.topK = topK_->value();
    o.topP = topP_->value();
    o.temperature = temperature_->value();
    o.seed = static_cast<uint64_t>(seed_->value());
  }
  return o;
}

void GenerationOptions::setMode(Mode m) { mode_->setCurrentIndex(mode_->findData(int(m))); }

GenerationOptions::Mode GenerationOptions::mode() const {
  return static_cast<Mode>(mode_->currentData().toInt());
}

void GenerationOptions::showModeFields() {
  const bool both = mode() == Mode::BeamSampling;
  beamFields_->setVisible(mode() == Mode::Beam || both);
  sampleFields_->setVisible(mode() == Mode::Sampling || both);
  // Beam sampling's fields on one line would widen the dock past a 1366-pixel screen.
  firstRow_->removeWidget(sampleFields_);
  secondRow_->removeWidget(sampleFields_);
  if (both) {
    secondRow_->insertWidget(0, sampleFields_);
  } else {
    firstRow_->addWidget(sampleFields_);
  }
}

}  // namespace attn::ui
