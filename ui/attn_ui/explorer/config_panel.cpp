#include "attn_ui/explorer/config_panel.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>
#include <cmath>

#include "attn/engine/exec_path.h"
#include "attn/models/model.h"
#include "attn_ui/common/core_text.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/mask_selector.h"
#include "attn_ui/pretrained/model_text.h"
#include "attn_ui/system/backend_choices.h"

namespace attn::ui {
namespace {

constexpr double kTMin = 0.05, kTMax = 20.0;
constexpr int kSliderSteps = 400;

void selectData(QComboBox* box, const QString& data) {
  const int i = box->findData(data);
  if (i >= 0) box->setCurrentIndex(i);
}

}  // namespace

double ConfigPanel::sliderToTemperature(int pos) {
  const double f = static_cast<double>(pos) / kSliderSteps;
  return std::exp(std::log(kTMin) + f * (std::log(kTMax) - std::log(kTMin)));
}

int ConfigPanel::temperatureToSlider(double t) {
  t = std::clamp(t, kTMin, kTMax);
  return static_cast<int>(std::lround((std::log(t) - std::log(kTMin)) /
                                      (std::log(kTMax) - std::log(kTMin)) * kSliderSteps));
}

ConfigPanel::ConfigPanel(ExplorerModel* model, QWidget* parent)
    : QWidget(parent),
      model_(model),
      mechanism_(new QComboBox(this)),
      heads_(new QSpinBox(this)),
      dModel_(new QSpinBox(this)),
      dK_(new QSpinBox(this)),
      hidden_(new QSpinBox(this)),
      temperature_(new QSlider(Qt::Horizontal, this)),
      temperatureValue_(new QLabel(this)),
      init_(new QComboBox(this)),
      seed_(new QSpinBox(this)),
      mask_(new MaskSelector(this)),
      positional_(new QComboBox(this)),
      exec_(new QComboBox(this)),
      backend_(new QComboBox(this)),
      gpuInputs_(new QComboBox(this)),
      problem_(new QLabel(this)) {
  for (std::string_view m : attn::allMechanisms()) mechanism_->addItem(qs(m), qs(m));
  selectData(mechanism_, qs(attn::mechanismName(attn::Mechanism::ScaledDot)));
  mechanism_->setToolTip(tr("The score function that compares each query with each key: dot, scaled dot, "
                            "general (bilinear), additive (Bahdanau) or cosine."));
  heads_->setRange(1, 64);
  heads_->setValue(4);
  heads_->setToolTip(tr("Number of attention heads, each with its own projections."));
  dModel_->setRange(1, 4096);
  dModel_->setValue(64);
  dModel_->setToolTip(tr("Width of the token embeddings (d_model); with d_k on auto it must divide by the heads."));
  dK_->setRange(0, 1024);
  dK_->setSpecialValueText(tr("auto (d_model / heads)"));
  dK_->setToolTip(tr("Width of each head's queries and keys (d_k); auto uses d_model / heads."));
  hidden_->setRange(0, 4096);
  hidden_->setSpecialValueText(tr("auto (d_k)"));
  hidden_->setToolTip(tr("Hidden size of the additive score's tanh layer; used by the additive mechanism only."));
  temperature_->setRange(0, kSliderSteps);
  temperature_->setValue(temperatureToSlider(1.0));
  temperature_->setToolTip(tr("Divides the logits before softmax: below 1 sharpens attention, above 1 flattens it."));
  temperatureValue_->setMinimumWidth(44);
  for (auto s : {attn::InitScheme::XavierUniform, attn::InitScheme::KaimingNormal, attn::InitScheme::Orthogonal})
    init_->addItem(qs(attn::initSchemeName(s)), qs(attn::initSchemeName(s)));
  init_->setToolTip(tr("How the seeded projection matrices W_Q, W_K, W_V, W_O are drawn."));
  seed_->setRange(0, 1 << 30);
  seed_->setValue(42);
  seed_->setToolTip(tr("Seed for embeddings and weights: the same seed gives the same numbers."));
  mask_->setToolTip(tr("Which keys each query may attend to; masked cells get weight exactly 0."));
  for (const attn::PositionalInfo& p : attn::positionalEncodings()) {
    positional_->addItem(coreText(p.title), QString::fromStdString(p.name));
    positional_->setItemData(positional_->count() - 1,
                             tr("%1 Applied to: %2.").arg(coreText(p.description), coreText(p.appliedTo)),
                             Qt::ToolTipRole);
  }
  positional_->setToolTip(tr("How token positions enter attention (added to embeddings, rotated into q and k, or a logit bias)."));
  for (std::string_view name : attn::allExecPaths())
    exec_->addItem(qs(name), int(*attn::parseExecPath(name)));
  exec_->setCurrentIndex(exec_->findData(int(attn::ExecPath::Auto)));
  exec_->setToolTip(tr("How attention is evaluated: naive keeps every N x N step, tiled uses an online softmax, "
                       "performer / linear_elu / linformer approximate it (error in the status bar)."));
  cudaFound_ = fillBackendChoices(backend_);
  for (auto d : {attn::DeviceInputs::F32, attn::DeviceInputs::F16, attn::DeviceInputs::BF16})
    gpuInputs_->addItem(qs(attn::deviceInputsName(d)), qs(attn::deviceInputsName(d)));
  gpuInputs_->setEnabled(cudaFound_);
  gpuInputs_->setToolTip(cudaFound_ ? tr("How the CUDA backend stores Q, K, V (fp16 and bf16: half the memory on the tiled "
                                         "paths); arithmetic stays fp32, and the difference from fp32 inputs is reported.")
                                    : tr("Only the CUDA backend stores Q, K, V in fp16 or bf16; no CUDA device was found."));
  backend_->setToolTip(tr("Where attention runs; an unavailable backend falls back to the CPU with a warning."));
  problem_->setWordWrap(true);
  problem_->setStyleSheet("color: #c03030;");
  problem_->hide();

  auto* tRow = new QHBoxLayout;
  tRow->addWidget(temperature_, 1);
  tRow->addWidget(temperatureValue_);
  auto* form = new QFormLayout(this);
  form->addRow(tr("Mechanism"), mechanism_);
  form->addRow(tr("Heads"), heads_);
  form->addRow(tr("d_model"), dModel_);
  form->addRow(tr("d_k"), dK_);
  form->addRow(tr("Hidden"), hidden_);
  form->addRow(tr("Temperature"), tRow);
  form->addRow(tr("Init"), init_);
  form->addRow(tr("Seed"), seed_);
  auto* maskBox = new QGroupBox(tr("Mask"), this);
  maskBox->setToolTip(mask_->toolTip());
  auto* maskLayout = new QVBoxLayout(maskBox);
  maskLayout->setContentsMargins(6, 4, 6, 4);
  maskLayout->addWidget(mask_);
  maskLayout->addWidget(problem_);  // bad parameters: core's message, right under them
  form->addRow(maskBox);
  maskBox_ = maskBox;
  form->addRow(tr("Positions"), positional_);
  form->addRow(tr("Execution"), exec_);
  form->addRow(tr("Backend"), backend_);
  form->addRow(tr("GPU inputs"), gpuInputs_);

  auto apply = [this] { applyToModel(); };
  for (QComboBox* b : {mechanism_, init_, positional_, exec_, backend_, gpuInputs_})
    connect(b, &QComboBox::currentIndexChanged, this, apply);
  for (QSpinBox* s : {heads_, dModel_, dK_, hidden_, seed_}) connect(s, &QSpinBox::valueChanged, this, apply);
  connect(temperature_, &QSlider::valueChanged, this, apply);
  connect(mask_, &MaskSelector::edited, this, apply);
  temperatureValue_->setText(QString::number(sliderToTemperature(temperature_->value()), 'g', 3));
  for (QWidget* w : modelFixedControls()) ownTips_.insert(w, w->toolTip());
  ownTips_.insert(backend_, backend_->toolTip());
  connect(model_, &ExplorerModel::modelChanged, this, &ConfigPanel::followModel);
}

QList<QWidget*> ConfigPanel::modelFixedControls() const {
  return {mechanism_, heads_, dModel_,  dK_,   hidden_,     temperature_,
          init_,      seed_,  maskBox_, mask_, positional_, exec_};
}

void ConfigPanel::followModel() {
  const auto m = model_->modelPtr();
  const bool fixed = m != nullptr;
  if (!fixed) {
    for (QWidget* w : modelFixedControls()) {
      w->setEnabled(true);
      w->setToolTip(ownTips_.value(w));
    }
    temperatureValue_->setEnabled(true);
    backend_->setToolTip(ownTips_.value(backend_));
    return;
  }
  backend_->setToolTip(
      tr("Where the model's forward runs: CUDA runs GPT-2 and the Llama family on the GPU; "
         "what it does not cover runs on the CPU and the status bar says why."));
  const FixedByModel why = fixedByModel(m->info());
  const QHash<QWidget*, QString> tips = {{mechanism_, why.mechanism},
                                         {heads_, why.sizes},
                                         {dModel_, why.sizes},
                                         {dK_, why.sizes},
                                         {hidden_, why.sizes},
                                         {temperature_, why.temperature},
                                         {init_, why.init},
                                         {seed_, why.init},
                                         {maskBox_, why.mask},
                                         {mask_, why.mask},
                                         {positional_, why.positional},
                                         {exec_, why.execution}};
  for (QWidget* w : modelFixedControls()) {
    w->setEnabled(false);
    w->setToolTip(tips.value(w));
  }
  temperatureValue_->setEnabled(false);
}

attn::Result<attn::AttentionSpec> ConfigPanel::specFromControls() const {
  attn::AttentionSpec s = model_->spec();
  s.mechanism = attn::parseMechanism(mechanism_->currentData().toString().toStdString()).value_or(s.mechanism);
  s.heads = heads_->value();
  s.dModel = dModel_->value();
  s.dK = dK_->value();
  s.hidden = hidden_->value();
  s.temperature = static_cast<float>(sliderToTemperature(temperature_->value()));
  s.init = attn::parseInitScheme(init_->currentData().toString().toStdString()).value_or(s.init);
  s.seed = static_cast<uint64_t>(seed_->value());
  auto mask = attn::Mask::parse(mask_->specText().toStdString());
  if (!mask) return attn::Error{mask.error().message};
  s.mask = *mask;
  for (const auto& t : customData_.terms())
    if (t.kind == attn::MaskTerm::Kind::Custom && t.keep && s.mask.needsCustomData())
      s.mask = s.mask.withCustom(*t.keep, t.rows, t.cols);
  s.positional = attn::parsePositional(positional_->currentData().toString().toStdString()).value_or(s.positional);
  s.exec = static_cast<attn::ExecPath>(exec_->currentData().toInt());
  s.backend = attn::parseBackend(backend_->currentData().toString().toStdString()).value_or(s.backend);
  s.deviceInputs =
      attn::parseDeviceInputs(gpuInputs_->currentData().toString().toStdString()).value_or(s.deviceInputs);
  return s;
}

void ConfigPanel::applyToModel() {
  if (loading_) return;
  temperatureValue_->setText(QString::number(sliderToTemperature(temperature_->value()), 'g', 3));
  auto spec = specFromControls();
  if (!spec) {
    problem_->setText(tr("%1 — the previous view is kept.").arg(QString::fromStdString(spec.error().message)));
    problem_->show();
    return;
  }
  problem_->hide();
  model_->setSpec(*spec);
}

void ConfigPanel::setSpec(const attn::AttentionSpec& spec) {
  loading_ = true;
  selectData(mechanism_, qs(attn::mechanismName(spec.mechanism)));
  heads_->setValue(spec.heads);
  dModel_->setValue(spec.dModel);
  dK_->setValue(spec.dK);
  hidden_->setValue(spec.hidden);
  temperature_->setValue(temperatureToSlider(spec.temperature));
  selectData(init_, qs(attn::initSchemeName(spec.init)));
  seed_->setValue(static_cast<int>(spec.seed));
  mask_->setSpecText(QString::fromStdString(spec.mask.spec()));  // "custom" checks the Custom row
  customData_ = spec.mask;
  selectData(positional_, qs(attn::positionalName(spec.positional)));
  exec_->setCurrentIndex(exec_->findData(int(spec.exec)));
  selectData(backend_, qs(attn::backendName(spec.backend)));
  selectData(gpuInputs_, qs(attn::deviceInputsName(spec.deviceInputs)));
  loading_ = false;
  applyToModel();
  // Exact values (the slider quantizes temperature) come from the spec itself.
  if (std::abs(sliderToTemperature(temperature_->value()) - spec.temperature) > 1e-6) {
    model_->setTemperature(spec.temperature);
    temperatureValue_->setText(QString::number(spec.temperature, 'g', 3));
  }
}

}  // namespace attn::ui
