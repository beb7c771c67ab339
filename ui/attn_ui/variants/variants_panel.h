#pragma once
// The "Attention variants" panel: segment memory (Transformer-XL),
// adaptive span, dynamic convolution, multi-hop attention and reduced
// precision, run on the explorer's current input and configuration. It shows
// the variant's maps side by side (memory columns set apart), a per-head chart
// (span ramps, entropy per hop), a summary, and a step-through of one query
// row. Every number comes from core (attn::variants::runVariant and the row
// walks); the panel builds the options and draws.
#include <QWidget>
#include <memory>
#include <optional>

#include "attn/variants/variant_run.h"
#include "attn_ui/variants/variant_walk_text.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;
class QStackedWidget;
class QTextBrowser;
class QVBoxLayout;

namespace attn::ui {

class ExplorerModel;
class VariantMapsWidget;
class VariantChartWidget;

class VariantsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit VariantsPanel(ExplorerModel* model, QWidget* parent = nullptr);

  QComboBox* variantBox() const { return variant_; }
  /// The options the controls describe (span z from the sliders).
  attn::variants::VariantOptions options() const;
  void setVariant(attn::variants::VariantKind kind);
  /// The latest run (empty with message() set when it could not run, and
  /// when the maps show a causal model's key/value cache: kvCacheShown()).
  const std::optional<attn::variants::VariantRun>& run() const { return run_; }
  bool kvCacheShown() const { return kvShown_; }
  QString message() const;
  QString summaryText() const;
  const std::vector<VariantStep>& steps() const { return steps_; }
  int currentStep() const { return step_; }
  VariantMapsWidget* mapsWidget() const { return maps_; }
  VariantChartWidget* chartWidget() const { return chart_; }
  QSpinBox* rowBox() const { return row_; }
  QSpinBox* segmentBox() const { return segment_; }
  QSpinBox* memoryBox() const { return memory_; }
  QSpinBox* hopsBox() const { return hops_; }
  QComboBox* precisionBox() const { return precision_; }
  /// The z sliders of the span, one per head (in spans of 0.5 token: value / 2).
  const std::vector<QSlider*>& spanSliders() const { return zSliders_; }
  /// Writes the figure the panel shows (maps, chart) to `path`.
  attn::Status exportFigure(const QString& path, QSize size = {1400, 700}, int dpi = 96) const;

  static constexpr int kMaxTokens = 256;

 public slots:
  void refresh();
  void setStep(int step);

 private:
  void rebuildSpanSliders(int heads);
  void showWalk();
  /// Segment memory on a causal model: its key/value cache at the query row's token.
  void showKvCache();
  void exportClicked();
  QWidget* buildParameters();

  ExplorerModel* model_;
  QComboBox* variant_;
  QSpinBox* head_;
  QSpinBox* row_;
  QStackedWidget* params_;
  QSpinBox *segment_, *memory_, *layers_, *segmentShown_;
  QDoubleSpinBox* ramp_;
  QWidget* zBox_;
  QVBoxLayout* zLayout_;
  std::vector<QSlider*> zSliders_;
  std::vector<QLabel*> zLabels_;
  QSpinBox* kernel_;
  QSpinBox* hops_;
  QComboBox* hopUpdate_;
  QComboBox *precision_, *accumulate_, *quantize_;
  VariantMapsWidget* maps_;
  VariantChartWidget* chart_;
  QLabel* summary_;
  QLabel* message_;
  QLabel* stepTitle_;
  QTextBrowser* stepBody_;
  QPushButton *prev_, *next_, *export_;
  std::optional<attn::variants::VariantRun> run_;
  std::shared_ptr<const attn::AttentionInput> input_;
  std::vector<VariantStep> steps_;
  int step_ = 0;
  bool kvShown_ = false;  // the maps show a model's key/value cache (no run_)
};

}  // namespace attn::ui
