#pragma once
// The Generate dock: the loaded causal model (GPT-2, the Llama family, GGUF) writes text after
// a prompt on a worker — greedy, beam search or sampling (Model::generate, with the
// checkpoint's generation config as the defaults) — with progress and Cancel. The written
// tokens show as chips; for the one chosen (a click or the slider), a bar chart gives the
// attention with which it was written over every earlier token, for one layer and head or
// the mean of the heads, and the largest weights are listed. "Show in the main views" runs
// the whole sequence's ids through the explorer, so every other view shows its maps.
#include <QStringList>
#include <QWidget>
#include <memory>

#include "attn/models/generation/causal_generation.h"
#include "attn/tensor.h"
#include "attn_ui/export/figure_export.h"

class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QScrollArea;
class QSlider;
class QStackedWidget;
class QTimer;

namespace attn::ui {

class ExplorerModel;
class GenerationOptions;
class NewestJob;
class TokenChips;

class GenerationPanel : public QWidget {
  Q_OBJECT
 public:
  explicit GenerationPanel(ExplorerModel* model, QWidget* parent = nullptr);
  ~GenerationPanel() override;

  void generate();
  /// Stops the generation in progress; the previous result stays.
  void cancel();
  bool busy() const;
  void waitForIdle();
  /// An encoder-decoder model was opened (it writes in the Translation dock): said here while
  /// the explorer has no causal model.
  void noteEncoderDecoder(const QString& name);
  /// Runs the generated ids (prompt + written) through the explorer: every main view follows.
  void showInMainViews();

  /// Chooses written token `position` (an index into the generated ids, at or after the prompt).
  void setStep(int position);
  int step() const { return step_; }
  void setLayer(int layer);
  void setHead(int head);  // -1: the mean of the heads
  int layer() const;
  int head() const;

  const std::shared_ptr<const attn::models::CausalGeneration>& result() const { return result_; }
  /// The bars: the chosen token's attention over the tokens before it.
  const attn::Vec& shownWeights() const { return shown_; }
  QString status() const;
  /// The core's account of the settings the last generation used ("" before one).
  QString settingsText() const;
  /// The one line said instead of the controls, when generation is not possible ("" when it is).
  QString refusal() const;
  bool exportFigure(const QString& path, const FigureOptions& options, QString* error);

  QLineEdit* promptEdit() const { return prompt_; }
  GenerationOptions* options() const { return options_; }
  QPushButton* generateButton() const { return go_; }
  QPushButton* cancelButton() const { return cancel_; }
  TokenChips* chips() const { return chips_; }
  QSlider* stepSlider() const { return slider_; }
  QCustomPlot* chart() const { return chart_; }
  QListWidget* topList() const { return top_; }
  QSize sizeHint() const override { return {900, 420}; }

 signals:
  void message(const QString& text);

 protected:
  bool event(QEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;

 private:
  QWidget* buildControls();
  QLayout* buildStepRow();
  void followModel();
  void followText();
  void deliver(std::shared_ptr<const attn::models::CausalGeneration> result,
               std::shared_ptr<const attn::models::Encoding> prompt, double ms);
  void fillLayers();
  void fitChips();
  void redraw();
  void drawBars();
  void setStatus(const QString& text, bool error = false);
  void showExportDialog();

  ExplorerModel* model_;
  std::shared_ptr<const attn::models::CausalGeneration> result_;
  std::shared_ptr<const attn::models::Encoding> resultPrompt_;  // the prompt's encoding of result_
  QString resultPromptText_;                                    // and its text
  QStringList labels_;                                          // result_'s tokens as a reader sees them
  attn::Vec shown_;
  int step_ = -1;
  QString seq2seqName_;
  QStackedWidget* pages_;
  QLabel* refusal_;
  QLineEdit* prompt_;
  GenerationOptions* options_;
  QPushButton *go_, *cancel_, *showMain_, *export_;
  QProgressBar* progress_;
  TokenChips* chips_;
  QScrollArea* chipScroll_;
  QSlider* slider_;
  QLabel* stepLabel_;
  QComboBox *layerBox_, *headBox_;
  QCustomPlot* chart_;
  QListWidget* top_;
  QLabel *settings_, *status_;
  QTimer* poll_;
  std::unique_ptr<NewestJob> job_;
  bool promptEdited_ = false;   // typed by hand: a new input text does not replace it
  bool showingInMain_ = false;  // the explorer's text changes because this panel sent it there
};

}  // namespace attn::ui
