#pragma once
// The "Setup" of the training view: toy task, sequence length, vocabulary,
// mechanism, heads, d_k, d_model, layers, initialisation, optimizer, learning
// rate, seed, entropy regularisation, gradient clipping, temperature and where
// Train stops. Reads and writes an attn::train::TrainConfig; the limits are
// the core's (TrainLimits), so whatever the form gives validates.
#include <QWidget>

#include "attn/train/train_config.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;

namespace attn::ui {

/// The task's description in the UI language.
QString trainingTaskDescription(attn::train::Task task);
/// The task's name in the UI language ("Copy", "复制").
QString trainingTaskTitle(attn::train::Task task);

class TrainingConfigForm : public QWidget {
  Q_OBJECT
 public:
  explicit TrainingConfigForm(QWidget* parent = nullptr);

  attn::train::TrainConfig config() const;
  /// Shows `c` without emitting configChanged.
  void setConfig(const attn::train::TrainConfig& c);
  /// Where Train stops (steps).
  int stepLimit() const;
  void setStepLimit(int steps);

  QComboBox* taskBox() const { return task_; }
  QSpinBox* seqLenBox() const { return seqLen_; }
  QSpinBox* vocabBox() const { return vocab_; }
  QComboBox* mechanismBox() const { return mechanism_; }
  QSpinBox* headsBox() const { return heads_; }
  QSpinBox* dKBox() const { return dK_; }
  QComboBox* initBox() const { return init_; }
  QComboBox* optimizerBox() const { return optimizer_; }
  QDoubleSpinBox* learningRateBox() const { return lr_; }
  QSpinBox* seedBox() const { return seed_; }
  QDoubleSpinBox* entropyWeightBox() const { return entropy_; }
  QDoubleSpinBox* gradClipBox() const { return clip_; }
  QDoubleSpinBox* temperatureBox() const { return temperature_; }
  QCheckBox* residualBox() const { return residual_; }

 signals:
  /// The user changed a setting.
  void configChanged();

 private:
  void updateTaskHints();

  QComboBox *task_, *mechanism_, *init_, *optimizer_;
  QSpinBox *seqLen_, *vocab_, *heads_, *dK_, *dModel_, *layers_, *seed_, *limit_, *batch_;
  QDoubleSpinBox *lr_, *entropy_, *clip_, *temperature_;
  QCheckBox* residual_;
  QLabel* description_;
  attn::train::TrainConfig base_;  // fields the form does not show (causal, additive width, ...)
};

}  // namespace attn::ui
