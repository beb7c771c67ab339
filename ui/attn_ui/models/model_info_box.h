#pragma once
// The Input panel's summary of an open pretrained model: name, family,
// layers × heads (KV heads when fewer), parameter count, weight dtype and
// tokenizer kind, with "Close Model" to go back to the text mode. Hidden
// while no model is open.
#include <QGroupBox>

class QLabel;
class QPushButton;

namespace attn::ui {

class ExplorerModel;

class ModelInfoBox : public QGroupBox {
  Q_OBJECT
 public:
  explicit ModelInfoBox(ExplorerModel* model, QWidget* parent = nullptr);

  /// One line per fact, as shown ("Family: GPT-2", ...), for tests and tooltips.
  QStringList facts() const;
  QPushButton* closeButton() const { return close_; }

 private:
  void refresh();

  ExplorerModel* model_;
  QLabel* name_;
  QLabel* family_;
  QLabel* shape_;
  QLabel* parameters_;
  QLabel* dtype_;
  QLabel* tokenizer_;
  QLabel* folder_;
  QPushButton* close_;
};

}  // namespace attn::ui
