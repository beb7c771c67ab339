#pragma once
// File > Open Ollama Model…: the models in Ollama's store (attn::models::gguf::listOllamaModels:
// $OLLAMA_MODELS or ~/.ollama/models), one row each with its tag and size. A manifest that does
// not resolve is listed greyed with its fault and cannot be picked; an empty or absent store
// says where it looked and how to point AttnScope elsewhere.
#include <QDialog>
#include <QString>

class QDialogButtonBox;
class QLabel;
class QTreeWidget;

namespace attn::ui {

class OllamaModelsDialog : public QDialog {
  Q_OBJECT
 public:
  explicit OllamaModelsDialog(QWidget* parent = nullptr);

  /// "ollama:NAME:TAG" of the picked row ("" when none).
  QString selectedSpec() const;
  /// Selects the row of `spec` (tests); false when it is absent or broken.
  bool select(const QString& spec);
  QTreeWidget* list() const { return list_; }
  /// The line above the list: where the store is, or why nothing is listed.
  QLabel* storeLabel() const { return where_; }
  /// The broken manifests, one line each ("" when none).
  QString problems() const;

 private:
  void fill();
  void updateOk();

  QLabel* where_;
  QTreeWidget* list_;
  QLabel* problems_;
  QDialogButtonBox* buttons_;
};

}  // namespace attn::ui
