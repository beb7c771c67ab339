#pragma once
// The per-head analysis panel: a bar per head for a chosen measure
// (mean entropy by default, with the uniform bound log N), the selected head's
// per-row curve, collapse flags as visible warnings with their thresholds, the
// head-similarity matrix, and rollout / flow when the input has layers. Every
// number comes from attn::analyzeResult / analyzeLayers, computed on a worker
// thread; the newest request wins.
#include <QStringList>
#include <QWidget>
#include <memory>

#include "attn/engine.h"
#include "attn/metrics.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;

namespace attn {
struct PrecomputedAttention;
}
namespace attn::models {
struct ModelRun;
}

namespace attn::ui {

class ExplorerModel;
class HeatmapWidget;
class MetricsBarChart;
class MetricsRowChart;
class NewestJob;

class MetricsPanel : public QWidget {
  Q_OBJECT
 public:
  /// With a model, follows its result and current head, and a clicked bar
  /// selects that head in the model. Without one, call setResult yourself.
  explicit MetricsPanel(ExplorerModel* model = nullptr, QWidget* parent = nullptr);
  ~MetricsPanel() override;

  /// Analyzes an engine result (leaves layered mode).
  void setResult(std::shared_ptr<const attn::AttentionResult> result, int currentHead);
  /// Analyzes precomputed [L][H] weights: per-layer bars, rollout and flow.
  void setLayers(attn::LayeredWeights layers, std::vector<std::string> tokens, int currentHead = 0);
  void setCurrentHead(int head);
  int currentHead() const { return head_; }
  /// Non-empty while the model views draw signed maps that are not attention weights (what
  /// they are, in a phrase): the measures are not computed and the panel says why.
  void setSignedMaps(const QString& what);
  /// Blocks until the newest analysis is shown (tests).
  void waitForIdle();

  /// The analysis shown (the current layer's in layered mode); null before the first.
  const attn::Analysis* analysis() const;
  const attn::LayeredAnalysis* layeredAnalysis() const { return layered_.get(); }
  /// Tooltip text of head h's bar: the head and its values.
  QString headToolTip(int head) const;

  MetricsBarChart* barChart() const { return bars_; }
  MetricsRowChart* rowChart() const { return rows_; }
  HeatmapWidget* similarityMap() const { return similarity_; }
  HeatmapWidget* rolloutMap() const { return rollout_; }
  QComboBox* measureSelector() const { return measure_; }
  QComboBox* rowMeasureSelector() const { return rowMeasure_; }
  QComboBox* layerFlowSelector() const { return rolloutKind_; }
  QSpinBox* layerSelector() const { return layer_; }
  QLabel* flagsLabel() const { return flags_; }
  /// Token labels of the analysed input (rows of the curve, axes of rollout).
  const QStringList& tokens() const { return tokens_; }
  QLabel* thresholdsLabel() const { return thresholds_; }

 signals:
  /// A bar (or a similarity-matrix row) was clicked: 0-based head.
  void headActivated(int head);
  void analysisChanged();

 private:
  struct Job;
  void setUpSelectors();
  void setUpCharts();
  void buildLayout();
  void connectControls();
  void fitWidth();
  void connectModel();
  void launch();
  void deliver(const std::shared_ptr<Job>& job);
  void redraw();
  void drawBars();
  void drawRows();
  void drawSimilarity();
  void drawLayers();
  void showFlags();
  attn::AnalysisOptions options() const;
  void followModel();
  void followStreamed();

  ExplorerModel* model_;
  MetricsBarChart* bars_;
  MetricsRowChart* rows_;
  HeatmapWidget* similarity_;
  HeatmapWidget* rollout_;
  QComboBox* measure_;
  QComboBox* rowMeasure_;
  QComboBox* rolloutKind_;
  QCheckBox* bits_;
  QDoubleSpinBox* coverage_;
  QSpinBox* layer_;
  QLabel* layerLabel_;
  QLabel* flags_;
  QLabel* thresholds_;
  QLabel* similarityNote_;
  QWidget* layerBox_;

  // Inputs (one of the two) and what was computed from them.
  std::shared_ptr<const attn::AttentionResult> result_;
  std::shared_ptr<const attn::LayeredWeights> layers_;
  QStringList tokens_;
  std::shared_ptr<const attn::Analysis> analysis_;
  std::shared_ptr<const attn::LayeredAnalysis> layered_;
  int head_ = 0;
  // The model's loaded file whose layers are analyzed (rollout, flow); null
  // when following the model's engine result.
  std::shared_ptr<const attn::PrecomputedAttention> layeredFrom_;
  // The streamed model run whose forward measured every head (shown as it is); else null.
  std::shared_ptr<const attn::models::ModelRun> streamedFrom_;
  std::unique_ptr<NewestJob> jobs_;  // one analysis at a time; a closed input's is dropped
  bool rerun_ = false;  // input changed while an analysis ran
  QString signedMaps_;  // setSignedMaps
};

}  // namespace attn::ui
