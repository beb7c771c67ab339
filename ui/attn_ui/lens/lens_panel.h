#pragma once
// The logit lens of a loaded model's text (nostalgebraist 2020): every layer's residual
// stream read out through the model's final norm and unembedding, drawn as a layers ×
// positions map — the last layer on top, the embeddings at the bottom, as the figure is
// usually drawn. Each cell names the layer's most probable token (when the cells are big
// enough to read) and is coloured by its probability, or by the probability the layer
// already gives the model's own final prediction. Hovering a cell lists its top tokens.
// Computed on a worker (Model::run with RunOptions::logitLens) only while the panel is
// visible; a new text or model cancels the computation in flight.
#include <QWidget>
#include <memory>
#include <vector>

#include "attn/models/model.h"

class QCPItemText;
class QComboBox;
class QLabel;
class QTimer;
class QToolButton;

namespace attn::ui {

class ExplorerModel;
class HeatmapWidget;
class HiddenPanelGate;
class NewestJob;

class LensPanel : public QWidget {
  Q_OBJECT
 public:
  /// What the colour of a cell shows.
  enum class Colour { TopProbability, FinalProbability };

  explicit LensPanel(ExplorerModel* model, QWidget* parent = nullptr);
  ~LensPanel() override;

  void setColour(Colour colour);
  Colour colour() const { return colour_; }
  /// The lens shown (null before a model's text has been read through it).
  std::shared_ptr<const attn::models::LogitLens> lens() const { return lens_; }
  /// The encoding the shown lens is of.
  const attn::models::Encoding& encoding() const { return encoding_; }
  HeatmapWidget* heatmap() const { return map_; }
  /// The top token's text drawn in cell (map row, column); empty when cells carry no text.
  QString cellText(int row, int column) const;
  /// The tooltip of a cell (map row = layers - layer).
  QString cellDetails(int row, int column) const;
  const QString& status() const;
  bool busy() const;
  /// Blocks until the computation in flight has been delivered (tests).
  void waitForIdle();
  QSize sizeHint() const override { return {520, 300}; }

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void removeTexts();
  void request();
  void launch();
  void show(std::shared_ptr<const attn::models::LogitLens> lens, attn::models::Encoding encoding);
  void redraw();
  void clear(const QString& why);
  QString tokenText(int id) const;

  ExplorerModel* model_;
  QComboBox* colourBox_;
  QLabel* status_;
  QToolButton* cancel_ = nullptr;
  QTimer* poll_ = nullptr;
  std::vector<QCPItemText*> items_;
  HeatmapWidget* map_;
  HiddenPanelGate* gate_;
  std::unique_ptr<NewestJob> job_;
  std::shared_ptr<const attn::models::ModelRun> base_;  // the run whose text the lens is of
  std::shared_ptr<const attn::models::LogitLens> lens_;
  attn::models::Encoding encoding_;
  std::vector<QString> texts_;  // per drawn cell, row-major; empty when cells are too small
  QString statusText_;
  Colour colour_ = Colour::TopProbability;
};

}  // namespace attn::ui
