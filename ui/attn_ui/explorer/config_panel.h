#pragma once
// The attention configuration: mechanism, dims, temperature, init and seed,
// mask, positional encoding, execution path and backend. Each control edits
// the model's AttentionSpec; the model recomputes on its worker. While a
// pretrained model is open the controls it decides are disabled, each with a
// tooltip saying why, and come back as they were when it closes.
#include <QHash>
#include <QWidget>

#include "attn/spec.h"

class QComboBox;
class QLabel;
class QSlider;
class QSpinBox;

namespace attn::ui {

class ExplorerModel;
class MaskSelector;

class ConfigPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ConfigPanel(ExplorerModel* model, QWidget* parent = nullptr);

  /// Builds the spec from the controls and hands it to the model.
  void applyToModel();
  /// Sets the controls from `spec` (sessions) and applies it.
  void setSpec(const attn::AttentionSpec& spec);

  QComboBox* mechanismSelector() const { return mechanism_; }
  QSpinBox* headsSpin() const { return heads_; }
  QSpinBox* dModelSpin() const { return dModel_; }
  QSlider* temperatureSlider() const { return temperature_; }
  MaskSelector* maskSelector() const { return mask_; }
  QComboBox* positionalSelector() const { return positional_; }
  QComboBox* backendSelector() const { return backend_; }
  QComboBox* gpuInputsSelector() const { return gpuInputs_; }
  /// Core's message for controls that do not make a valid spec (hidden when they do).
  QLabel* problemLabel() const { return problem_; }

  /// The controls a pretrained model fixes (every one that shapes attention).
  QList<QWidget*> modelFixedControls() const;

  /// Temperature <-> slider position (logarithmic, 0.05 .. 20).
  static double sliderToTemperature(int pos);
  static int temperatureToSlider(double t);

 private:
  attn::Result<attn::AttentionSpec> specFromControls() const;
  void followModel();  // disables what an open model fixes, with the reason as tooltip

  ExplorerModel* model_;
  QComboBox* mechanism_;
  QSpinBox* heads_;
  QSpinBox* dModel_;
  QSpinBox* dK_;
  QSpinBox* hidden_;
  QSlider* temperature_;
  QLabel* temperatureValue_;
  QComboBox* init_;
  QSpinBox* seed_;
  MaskSelector* mask_;
  // The keep bitmap of a "custom" term set by setSpec (a session's), given back
  // to the custom term the controls name; the controls only hold its name.
  attn::Mask customData_;
  QComboBox* positional_;
  QComboBox* exec_;
  QComboBox* backend_;
  QComboBox* gpuInputs_;  // CUDA only: how Q, K, V are stored (enabled when a device was found)
  bool cudaFound_ = false;
  QLabel* problem_;
  QWidget* maskBox_ = nullptr;
  QHash<QWidget*, QString> ownTips_;  // tooltips of the text mode, restored when a model closes
  bool loading_ = false;
};

}  // namespace attn::ui
