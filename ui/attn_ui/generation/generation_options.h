#pragma once
// The Generate dock's decoding controls: a token budget and greedy search, beam search
// (beams, length penalty), sampling (top-k, top-p, temperature, seed) or both (beam
// sampling), with the checkpoint's generation config as the defaults. Only the chosen mode's
// fields show; beam sampling's two sets take two lines, so the dock fits a 1366-pixel screen.
#include <QWidget>

#include "attn/models/generation/causal_generation.h"

class QBoxLayout;
class QComboBox;
class QDoubleSpinBox;
class QSpinBox;

namespace attn::ui {

class GenerationOptions : public QWidget {
  Q_OBJECT
 public:
  enum class Mode { Greedy = 0, Beam = 1, Sampling = 2, BeamSampling = 3 };

  explicit GenerationOptions(QWidget* parent = nullptr);

  /// The checkpoint's settings as the starting values (the mode too: num_beams > 1 is beam
  /// search, do_sample is sampling); the token budget is left as the user set it.
  void setDefaults(const attn::models::GenerationSettings& g);
  /// What Model::generate is asked for: every field explicit, so the config cannot override
  /// a choice made here.
  attn::models::CausalGenerateOptions options() const;

  void setMode(Mode mode);
  Mode mode() const;
  QSpinBox* maxNewBox() const { return maxNew_; }
  QComboBox* modeBox() const { return mode_; }
  QSpinBox* beamsBox() const { return beams_; }
  QDoubleSpinBox* lengthPenaltyBox() const { return lengthPenalty_; }
  QSpinBox* topKBox() const { return topK_; }
  QDoubleSpinBox* topPBox() const { return topP_; }
  QDoubleSpinBox* temperatureBox() const { return temperature_; }
  QSpinBox* seedBox() const { return seed_; }

 private:
  void showModeFields();

  QSpinBox* maxNew_;
  QComboBox* mode_;
  QWidget *beamFields_, *sampleFields_;
  QBoxLayout *firstRow_, *secondRow_;
  QSpinBox* beams_;
  QDoubleSpinBox* lengthPenalty_;
  QSpinBox* topK_;
  QDoubleSpinBox *topP_, *temperature_;
  QSpinBox* seed_;
};

}  // namespace attn::ui
