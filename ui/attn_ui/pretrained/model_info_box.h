#pragma once
// The Input panel's summary of an open pretrained model: name, family,
// layers × heads (KV heads when fewer), parameter count, what the weights are
// (F16, BF16, F32 on disk; a GGUF file's "Q4_K_M, 4.8 bits/weight"),
// tokenizer kind and the tokens of the current run, with "Close Model" to go
// back to the text mode. Compact (a few lines), so that the Input and
// Configuration docks still fit a laptop screen. Hidden while no model is open.
#include <QGroupBox>

class QLabel;
class QPushButton;

namespace attn::models {
struct ModelInfo;
}

namespace attn::ui {

class ExplorerModel;

class ModelInfoBox : public QGroupBox {
  Q_OBJECT
 public:
  explicit ModelInfoBox(ExplorerModel* model, QWidget* parent = nullptr);

  /// One line per fact, as shown ("Family: GPT-2", ...), for tests and tooltips.
  QStringList facts() const;
  QPushButton* closeButton() const { return close_; }
  QSize sizeHint() const override;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void refresh();
  static QString weightsLine(const attn::models::ModelInfo& info);

  ExplorerModel* model_;
  QLabel* summary_;
  QPushButton* close_;
};

}  // namespace attn::ui
