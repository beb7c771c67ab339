#include "attn_ui/classroom/compare_panel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>

#include "attn/teaching/compare.h"
#include "attn/engine/exec_path.h"
#include "attn_ui/classroom/compare_view.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/window/hidden_panel_gate.h"

namespace attn::ui {

ComparePanel::ComparePanel(ExplorerModel* modelA, QWidget* parent)
    : QWidget(parent),
      modelA_(modelA),
      modelB_(new ExplorerModel(this)),
      view_(new CompareView(this)),
      headA_(new QSpinBox(this)),
      headB_(new QSpinBox(this)),
      maskB_(new QLineEdit(this)),
      temperatureB_(new QDoubleSpinBox(this)),
      execB_(new QComboBox(this)),
      layerB_(new QSpinBox(this)),
      textB_(new QLineEdit(this)),
      status_(new QLabel(this)) {
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("A: head"), this));
  headA_->setRange(1, 1);
  bar->addWidget(headA_);
  bar->addSpacing(16);
  auto* layerLabel = new QLabel(tr("B: layer"), this);
  bar->addWidget(layerLabel);
  layerB_->setRange(1, 1);
  layerB_->setToolTip(tr("The model layer B shows; A is the layer chosen in the head grid."));
  bar->addWidget(layerB_);
  bar->addWidget(new QLabel(tr("B: head"), this));
  headB_->setRange(1, 1);
  bar->addWidget(headB_);
  auto* textLabel = new QLabel(tr("text"), this);
  bar->addWidget(textLabel);
  textB_->setPlaceholderText(tr("same as A"));
  textB_->setToolTip(tr("A second sentence for B, run through the same model (as many tokens as A's to compare "
                        "cell by cell); empty uses A's text. Press Enter to apply."));
  bar->addWidget(textB_, 1);
  modelOnly_ = {layerLabel, layerB_, textLabel, textB_};
  auto* maskLabel = new QLabel(tr("mask"), this);
  bar->addWidget(maskLabel);
  maskB_->setPlaceholderText(tr("same as A"));
  maskB_->setToolTip(tr("B's mask, e.g. causal; empty keeps A's mask. Press Enter to apply."));
  bar->addWidget(maskB_, 1);
  auto* temperatureLabel = new QLabel(tr("temperature"), this);
  bar->addWidget(temperatureLabel);
  temperatureB_->setRange(0.05, 20.0);
  temperatureB_->setSingleStep(0.1);
  temperatureB_->setValue(1.0);
  bar->addWidget(temperatureB_);
  auto* pathLabel = new QLabel(tr("path"), this);
  bar->addWidget(pathLabel);
  execB_->addItem(tr("same as A"));
  for (auto name : attn::allExecPaths()) execB_->addItem(QString::fromUtf8(name.data(), static_cast<int>(name.size())));
  execB_->setToolTip(tr("B's execution path, e.g. performer to compare an approximation with exact attention."));
  bar->addWidget(execB_);
  engineOnly_ = {maskLabel, maskB_, temperatureLabel, temperatureB_, pathLabel, execB_};
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(bar);
  layout->addWidget(view_, 1);
  layout->addWidget(status_);

  // B is a second engine run of every change: only while the panel can be seen.
  auto* sync = new HiddenPanelGate(this, [this] { syncB(); });
  connect(modelA_, &ExplorerModel::resultChanged, sync, &HiddenPanelGate::request);
  connect(modelB_, &ExplorerModel::resultChanged, this, &ComparePanel::refresh);
  connect(modelB_, &ExplorerModel::errorOccurred, status_, &QLabel::setText);
  connect(headA_, &QSpinBox::valueChanged, this, &ComparePanel::refresh);
  connect(headB_, &QSpinBox::valueChanged, this, &ComparePanel::refresh);
  connect(maskB_, &QLineEdit::returnPressed, this, &ComparePanel::syncB);
  connect(temperatureB_, &QDoubleSpinBox::valueChanged, this, &ComparePanel::syncB);
  connect(execB_, &QComboBox::currentIndexChanged, this, &ComparePanel::syncB);
  connect(textB_, &QLineEdit::returnPressed, this, &ComparePanel::syncB);
  connect(layerB_, &QSpinBox::valueChanged, this, [this](int l) { modelB_->setCurrentLayer(l - 1); });
  connect(modelA_, &ExplorerModel::modelChanged, this, &ComparePanel::followModel);
  followModel();
  if (modelA_->hasResult()) sync->request();
}

void ComparePanel::followModel() {
  for (QWidget* w : modelOnly_) w->setVisible(modelA_->hasModel());
  for (QWidget* w : engineOnly_) w->setVisible(!modelA_->hasModel());
}

void ComparePanel::syncB() {
  if (modelA_->hasModel()) {  // the same model; B's own layer, head and (optionally) text
    status_->clear();
    modelB_->setModel(modelA_->modelPtr());
    const QString text = textB_->text().trimmed();
    modelB_->setText(text.isEmpty() ? modelA_->text() : text);
    modelB_->setKeyText(modelA_->keyText());
    return;
  }
  if (modelB_->hasModel()) modelB_->clearModel();
  attn::AttentionSpec spec = modelA_->spec();
  const QString mask = maskB_->text().trimmed();
  if (!mask.isEmpty()) {
    auto parsed = attn::Mask::parse(mask.toStdString());
    if (!parsed) {
      status_->setText(tr("B's mask: %1").arg(QString::fromStdString(parsed.error().message)));
      return;
    }
    spec.mask = std::move(parsed).value();
  }
  spec.temperature = static_cast<float>(temperatureB_->value());
  if (execB_->currentIndex() > 0)
    if (auto path = attn::parseExecPath(execB_->currentText().toStdString())) spec.exec = *path;
  status_->clear();
  // B attends over exactly A's input: the text (and key text), or the loaded file.
  if (modelA_->hasLoadedInput()) {
    if (modelB_->loadedFilePtr() != modelA_->loadedFilePtr()) modelB_->setLoadedFile(modelA_->loadedFilePtr());
    modelB_->setPrecomputedPreferred(modelA_->precomputedPreferred());
    modelB_->setCurrentLayer(modelA_->currentLayer());
  } else {
    if (modelB_->hasLoadedInput()) modelB_->clearLoadedInput();
    modelB_->setText(modelA_->text());  // (setText would drop a loaded file)
    modelB_->setKeyText(modelA_->keyText());
  }
  modelB_->setSpec(spec);
}

void ComparePanel::refresh() {
  if (!modelA_->hasResult() || !modelB_->hasResult()) return;
  const auto& a = modelA_->result();
  const auto& b = modelB_->result();
  if (modelB_->hasModel()) {
    layerB_->setMaximum(std::max(1, modelB_->numLayers()));
    if (modelB_->currentLayer() != layerB_->value() - 1) modelB_->setCurrentLayer(layerB_->value() - 1);
  }
  headA_->setMaximum(a.numHeads());
  headB_->setMaximum(b.numHeads());
  const int ha = headA_->value() - 1, hb = headB_->value() - 1;
  if (ha >= a.numHeads() || hb >= b.numHeads()) return;
  auto s = attn::compareHeads(a.heads[static_cast<size_t>(ha)], b.heads[static_cast<size_t>(hb)]);
  if (!s) {
    status_->setText(QString::fromStdString(s.error().message));  // B still computing on older text
    return;
  }
  const auto title = [](const attn::AttentionSpec& spec, int head, float t) {
    const auto path = attn::execPathName(spec.exec);
    return tr("head %1, mask %2, T = %3, %4")
        .arg(head + 1)
        .arg(QString::fromStdString(spec.mask.spec()))
        .arg(t)
        .arg(QString::fromUtf8(path.data(), static_cast<int>(path.size())));
  };
  if (modelA_->hasModel() && modelB_->hasModel()) {
    const auto layerTitle = [](const ExplorerModel* m, int head) {
      return tr("layer %1, head %2").arg(m->currentLayer() + 1).arg(head + 1);
    };
    view_->setComparison(a.heads[static_cast<size_t>(ha)].weights, b.heads[static_cast<size_t>(hb)].weights, *s,
                         modelA_->queryLabels(), modelA_->keyLabels(), layerTitle(modelA_, ha),
                         layerTitle(modelB_, hb));
    return;
  }
  view_->setComparison(a.heads[static_cast<size_t>(ha)].weights, b.heads[static_cast<size_t>(hb)].weights, *s,
                       modelA_->queryLabels(), modelA_->keyLabels(), title(modelA_->spec(), ha, modelA_->spec().temperature),
                       title(modelB_->spec(), hb, modelB_->spec().temperature));
}

}  // namespace attn::ui
