#pragma once
// The Translation dock: an encoder–decoder checkpoint (Marian, BART, mBART, T5) translates the
// source sentence on a worker (greedy, beam search, sampling or beam sampling — the Generate
// dock's decoding controls, the checkpoint's generation config as their defaults — or a target
// the user forces), with progress and Cancel, and a line saying the settings that ran; then any
// layer's encoder self-attention, decoder self-attention or cross-attention — one head or the
// mean of the heads — as a heatmap (target tokens × source tokens for cross-attention) and as
// links between the two sentences, each target token's argmax link bold (the alignment figure
// of Bahdanau et al. 2015). A reference alignment in the Pharaoh format is drawn beside it and
// scored by the alignment error rate (Och & Ney 2003). Interventions on heads of any of the
// three stacks (translation_interventions.h) rerun it, showing the output, or the forced
// target's token probabilities, before → after.
#include <QWidget>
#include <memory>
#include <vector>

#include "attn/alignment/word_alignment.h"
#include "attn/io/input_file.h"
#include "attn/tensor.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTimer;
class QToolButton;

namespace attn::models {
class Seq2SeqModel;
struct GenerateOptions;
struct Seq2SeqRun;
}  // namespace attn::models

namespace attn::ui {

class AlignmentLinksView;
class GenerationOptions;
class HeatmapWidget;
class NewestJob;
class TranslationInterventions;

class TranslationPanel : public QWidget {
  Q_OBJECT
 public:
  enum class Kind { Cross = 0, Encoder = 1, Decoder = 2 };

  explicit TranslationPanel(QWidget* parent = nullptr);
  ~TranslationPanel() override;

  /// Shows `model` and translates the source sentence with it (an example if it is empty).
  void setModel(std::shared_ptr<const attn::models::Seq2SeqModel> model);
  const std::shared_ptr<const attn::models::Seq2SeqModel>& model() const { return model_; }
  /// Translates the source (or forces the target, when one is given) on a worker.
  void translate();
  /// Stops the translation in progress; the previous one stays on screen.
  void cancel();
  bool busy() const;
  void waitForIdle();

  void setKind(Kind kind);
  /// Layer and head indices are the core's, from 0; the boxes show them from 1.
  void setLayer(int layer);
  void setHead(int head);  // -1: the mean of the heads
  Kind kind() const;
  int layer() const;
  int head() const;

  const std::shared_ptr<const attn::models::Seq2SeqRun>& run() const { return run_; }
  /// With interventions: the same translation without them (the "before"); else null.
  const std::shared_ptr<const attn::models::Seq2SeqRun>& baselineRun() const { return baseline_; }
  TranslationInterventions* interventionsRow() const { return interventions_; }
  QString outputText() const;
  /// Adds "ablate" on the shown kind's layer and head (nothing for the mean) and reruns.
  void ablateShownHead();
  /// The map shown: [query tokens, key tokens] of the chosen kind, layer and head (or mean); for
  /// cross-attention the rows are the tokens each decoder step writes (the decoder's input rows
  /// 0 .. Nt - 2), so a link (s, t) pairs source token s with target token t + 1.
  const attn::Mat& shownMap() const { return shown_; }
  const std::vector<attn::alignment::Link>& argmaxLinks() const { return argmax_; }
  QString status() const;
  QString scoreText() const;

  QLineEdit* sourceEdit() const { return source_; }
  QLineEdit* targetEdit() const { return target_; }
  QLineEdit* referenceEdit() const { return reference_; }
  /// The decoding controls (mode, beams, sampling fields, token budget; 0 tokens: the
  /// checkpoint's max_length).
  GenerationOptions* decodingOptions() const { return decoding_; }
  /// What generate is asked for: the decoding controls and the interventions.
  attn::models::GenerateOptions generateOptions() const;
  /// "Settings: …" — what the last generation used, in the core's words (the whole line; the
  /// label shows as much as fits).
  QString settingsText() const;
  QPushButton* translateButton() const { return go_; }
  QToolButton* cancelButton() const { return cancel_; }
  QPushButton* mainViewsButton() const { return mainViews_; }
  QComboBox* layerBox() const { return layerBox_; }
  QComboBox* headBox() const { return headBox_; }
  /// Hands the shown kind of attention, every layer and head, to the main window's views
  /// (showInMainViews); nothing without a translation.
  void showKindInMainViews();
  HeatmapWidget* heatmap() const { return heatmap_; }
  AlignmentLinksView* linksView() const { return links_; }

 signals:
  void message(const QString& text);
  /// The shown kind's maps as a loaded file's weights (translation_views.h).
  void showInMainViews(std::shared_ptr<const attn::LoadedInput> weights);

 protected:
  bool event(QEvent* e) override;
  bool eventFilter(QObject* watched, QEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;

 private:
  QLayout* buildInputRows();
  QLayout* buildViewRow();
  void fillLayers();
  void elideSettings();
  void redraw();
  void scoreReference();
  void deliver(std::shared_ptr<const attn::models::Seq2SeqRun> run,
               std::shared_ptr<const attn::models::Seq2SeqRun> baseline, double ms);
  void showHeadMenu(const QPoint& at);

  std::shared_ptr<const attn::models::Seq2SeqModel> model_;
  std::shared_ptr<const attn::models::Seq2SeqRun> run_;
  std::shared_ptr<const attn::models::Seq2SeqRun> baseline_;
  attn::Mat shown_;
  std::vector<attn::alignment::Link> argmax_;
  QLabel* modelLabel_;
  QLineEdit* source_;
  QLineEdit* target_;
  GenerationOptions* decoding_;
  QPushButton* go_;
  QToolButton* cancel_;
  QProgressBar* progress_;
  QLabel* output_;
  QLabel* settings_;
  QString settingsFull_;
  QComboBox* kindBox_;
  QComboBox* layerBox_;
  QComboBox* headBox_;
  QPushButton* mainViews_;
  HeatmapWidget* heatmap_;
  AlignmentLinksView* links_;
  QLineEdit* reference_;
  QLabel* score_;
  QLabel* status_;
  TranslationInterventions* interventions_;
  QTimer* poll_;
  std::unique_ptr<NewestJob> job_;
};

}  // namespace attn::ui
