#pragma once
// The Translation dock's interventions row: pick a stack (encoder self-attention, decoder
// self-attention, cross-attention), a layer and head (from 1, as the dock's Layer and Head
// boxes; the interventions it holds are the core's, from 0), a kind (ablate, uniform,
// temperature), Add; the active ones listed with Remove and Clear; Rerun translates again with
// them (seq2seq_interventions.h does the work).
#include <QWidget>
#include <vector>

#include "attn/models/seq2seq/seq2seq_interventions.h"

class QComboBox;
class QDoubleSpinBox;
class QListWidget;
class QPushButton;
class QSpinBox;

namespace attn::models {
struct Seq2SeqRun;
}

namespace attn::ui {

class TranslationInterventions : public QWidget {
  Q_OBJECT
 public:
  explicit TranslationInterventions(QWidget* parent = nullptr);

  /// The open model's stacks (0 layers: no model): the layer and head ranges; clears the list.
  void setShape(int encoderLayers, int encoderHeads, int decoderLayers, int decoderHeads);
  const std::vector<attn::models::Seq2SeqIntervention>& interventions() const { return active_; }
  /// Adds `iv` (one of the same kind on the same head is replaced).
  void add(const attn::models::Seq2SeqIntervention& iv);
  /// Adds what the row's boxes say.
  void addFromBoxes();
  void removeSelected();
  void clear();

  QComboBox* stackBox() const { return stack_; }
  QComboBox* kindBox() const { return kind_; }
  QSpinBox* layerBox() const { return layer_; }
  QSpinBox* headBox() const { return head_; }
  QDoubleSpinBox* temperatureBox() const { return temperature_; }
  QListWidget* list() const { return list_; }
  QPushButton* rerunButton() const { return rerun_; }

  /// One intervention in the dock's words and numbering (from 1), e.g. "Cross-attention 1.3: ablate".
  static QString describe(const attn::models::Seq2SeqIntervention& iv);
  /// Before → after in one line: the written translation, or for forced decoding each target
  /// token's probability (targetTokenProbabilities) without and with the interventions.
  static QString effectText(const attn::models::Seq2SeqRun& before, const attn::models::Seq2SeqRun& after,
                            bool forced);

 signals:
  void changed();
  void rerunRequested();

 private:
  void refresh();
  void fitRanges();

  int shape_[4] = {0, 0, 0, 0};  // encoder layers, heads, decoder layers, heads
  std::vector<attn::models::Seq2SeqIntervention> active_;
  QComboBox* stack_;
  QComboBox* kind_;
  QSpinBox* layer_;
  QSpinBox* head_;
  QDoubleSpinBox* temperature_;
  QPushButton* add_;
  QListWidget* list_;
  QPushButton* remove_;
  QPushButton* clear_;
  QPushButton* rerun_;
};

}  // namespace attn::ui
