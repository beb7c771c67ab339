#pragma once
// Small multiples: every head's weights as a thumbnail with its mean row
// entropy underneath. For layered weights (a file's precomputed 'attn' or a
// pretrained model's run), every layer x head (rows = layers, columns = heads). Click (or arrow keys)
// opens a tile in the main heatmap through the model.
#include <QImage>
#include <QMap>
#include <QVector>
#include <QWidget>
#include <memory>

namespace attn {
struct PrecomputedAttention;
}
namespace attn::models {
struct ModelRun;
}

namespace attn::ui {

class ExplorerModel;
class NewestJob;

class HeadGrid : public QWidget {
  Q_OBJECT
 public:
  explicit HeadGrid(ExplorerModel* model, QWidget* parent = nullptr);
  ~HeadGrid() override;

  void setColormap(const QString& name);
  int columns() const;
  int rows() const;
  /// True when the tiles are layers x heads (a layered file or a model).
  bool showsLayers() const { return layers_ > 0; }
  /// The tile under a widget position (the head; layer * heads + head when
  /// showsLayers), or -1.
  int headAt(const QPoint& pos) const;
  QRect tileRect(int tile) const;
  int tileCount() const { return static_cast<int>(thumbs_.size()); }
  /// A streamed run's thumbnails are still being computed from its q/k.
  bool thumbnailsBusy() const;
  /// Tile images as drawn (a streamed run's are null until computed).
  const QVector<QImage>& thumbnails() const { return thumbs_; }
  /// Mean row entropy (nats) of each tile, as shown under the tiles.
  const QVector<double>& meanEntropies() const { return entropy_; }
  QSize sizeHint() const override { return {280, 320}; }
  /// Marked tiles (heads with an intervention): outlined, with a badge, and
  /// the text added to their tooltip. Keys are tile indices as headAt() gives them.
  void setTileMarks(const QMap<int, QString>& marks);
  const QMap<int, QString>& tileMarks() const { return marks_; }
  /// What each head of the model does, [layer][head]: a label drawn on its
  /// tile (`abbreviations` where the label does not fit) and a longer text (the
  /// scores) added to its tooltip. Empty: none.
  void setHeadTypes(const QVector<QVector<QString>>& labels, const QVector<QVector<QString>>& abbreviations,
                    const QVector<QVector<QString>>& details);
  /// The label of a tile (headAt's index), "" when none.
  QString tileTypeLabel(int tile) const;
  /// The text drawn on the tile: the label, or its abbreviation when the label is too wide.
  QString tileTypeText(int tile) const;
  /// The rectangle the label is drawn in (empty when the tile is too small or has none).
  QRect tileTypeRect(int tile) const;

 protected:
  bool event(QEvent* event) override;
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

 private:
  void rebuild();
  void rebuildStreamed();
  int currentTile() const;
  void select(int tile);
  QString tileLabel(int tile) const;
  bool captioned() const;  // room for the entropy under each tile

  ExplorerModel* model_;
  QString colormap_ = QStringLiteral("viridis");
  QVector<QImage> thumbs_;
  QVector<double> entropy_;
  int layers_ = 0, heads_ = 0;  // layered tiles; 0 layers: one tile per head of the result
  std::shared_ptr<const attn::PrecomputedAttention> builtFrom_;  // the layered tiles' weights, to skip rebuilding
  QString builtColormap_;
  std::shared_ptr<const attn::models::ModelRun>
      streamedFrom_;  // a streamed run's tiles (thumbnails from q/k)
  std::unique_ptr<NewestJob> thumbJob_;
  QMap<int, QString> marks_;
  QVector<QVector<QString>> typeLabels_, typeShort_, typeDetails_;  // [layer][head]
  QFont typeFont() const;
  QString typeAt(const QVector<QVector<QString>>& table, int tile) const;
};

}  // namespace attn::ui
