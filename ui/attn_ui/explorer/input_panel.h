#pragma once
// What to attend over: query text, optional key text (cross-attention, or
// BERT's second segment), tokenizer, bundled examples, a list of what was
// loaded with its shapes, and the open model's facts; for a vision model, the
// image it looks at in place of the text rows.
#include <QWidget>

class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QListWidget;
class QPlainTextEdit;

namespace attn::ui {

class ExplorerModel;
class ModelInfoBox;

class InputPanel : public QWidget {
  Q_OBJECT
 public:
  explicit InputPanel(ExplorerModel* model, QWidget* parent = nullptr);

  void setQueryText(const QString& text);
  QPlainTextEdit* queryEdit() const { return query_; }
  QLineEdit* keyEdit() const { return key_; }
  QComboBox* exampleSelector() const { return examples_; }
  QListWidget* loadedList() const { return loaded_; }
  /// For a file with q/k/v (or x) and 'attn': compute (0) or show 'attn' (1).
  QComboBox* sourceSelector() const { return source_; }
  /// Leaves the loaded file and goes back to the text input.
  QPushButton* closeFileButton() const { return closeFile_; }
  /// The open model's name, family, shape, parameters, dtype and tokenizer; hidden without one.
  ModelInfoBox* modelBox() const { return modelBox_; }
  /// A vision model reads an image, not text: its rows replace the text rows while one is open.
  QPushButton* openImageButton() const { return openImage_; }
  QLabel* imageLabel() const { return imageText_; }
  /// Whether the text rows (example, query, key text, tokenizer) are shown.
  bool showsTextInput() const;

 private:
  void refreshLoaded();
  void followModel();  // tokenizer and key text follow an open model
  void refreshImage();  // a vision model's image: thumbnail, size, what the model sees

  ExplorerModel* model_;
  QPlainTextEdit* query_;
  QLineEdit* key_;
  QComboBox* tokenizer_;
  QComboBox* examples_;
  QListWidget* loaded_;
  QComboBox* source_;
  QPushButton* closeFile_;
  ModelInfoBox* modelBox_;
  QWidget* imageRow_;
  QLabel* imageThumb_;
  QLabel* imageText_;
  QPushButton* openImage_;
  QFormLayout* form_;
  QString keyTip_, keyPlaceholder_, tokenizerTip_;  // the text mode's, restored when a model closes
};

}  // namespace attn::ui
