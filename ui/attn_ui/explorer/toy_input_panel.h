#pragma once
// Toy input for working an example by hand in front of a class: small
// editable tables of Q, K and V (default 4 tokens x 4 dims) run through
// attn::runAttention as one projected head; the heatmap and the step-through
// follow every edit. A 4x4 head costs microseconds, so it runs right here on
// the GUI thread: no stale-result handling needed.
#include <QWidget>
#include <optional>

#include "attn/engine.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTableWidget;

namespace attn::ui {

class HeatmapWidget;
class StepThroughPanel;

class ToyInputPanel : public QWidget {
  Q_OBJECT
 public:
  enum class Matrix { Q, K, V };

  explicit ToyInputPanel(QWidget* parent = nullptr);

  QTableWidget* table(Matrix m) const;
  HeatmapWidget* heatmap() const { return heatmap_; }
  StepThroughPanel* stepPanel() const { return steps_; }
  QCheckBox* causalToggle() const { return causal_; }
  QLineEdit* tokensEdit() const { return tokens_; }
  /// The newest result (none while a cell holds something that is not a number).
  const std::optional<attn::AttentionResult>& result() const { return result_; }
  const attn::AttentionSpec& spec() const { return spec_; }
  QString errorText() const;

  /// Sets the tables' sizes (tokens x dims), keeping the numbers that fit.
  void resizeTables(int tokens, int dims);
  void setQuery(int query);
  int query() const { return query_; }

 public slots:
  void recompute();

 signals:
  void resultChanged();

 private:
  attn::AttentionInput readInput(QString* error) const;

  QTableWidget *q_, *k_, *v_;
  QSpinBox *tokensCount_, *dims_;
  QLineEdit* tokens_;
  QCheckBox *causal_, *scaled_;
  QDoubleSpinBox* temperature_;
  QComboBox* queryBox_;
  HeatmapWidget* heatmap_;
  StepThroughPanel* steps_;
  QLabel* status_;
  std::optional<attn::AttentionResult> result_;
  attn::AttentionSpec spec_;
  int query_ = 0;
};

}  // namespace attn::ui
