#pragma once
// Small multiples: every head's weights as a thumbnail with its mean row
// entropy underneath. Click (or arrow keys + Enter) opens a head in the main
// heatmap through the model.
#include <QImage>
#include <QVector>
#include <QWidget>

namespace attn::ui {

class ExplorerModel;

class HeadGrid : public QWidget {
  Q_OBJECT
 public:
  explicit HeadGrid(ExplorerModel* model, QWidget* parent = nullptr);

  void setColormap(const QString& name);
  int columns() const;
  /// The head under a widget position, or -1.
  int headAt(const QPoint& pos) const;
  QRect tileRect(int head) const;
  /// Mean row entropy (nats) of each head, as shown under the tiles.
  const QVector<double>& meanEntropies() const { return entropy_; }
  QSize sizeHint() const override { return {280, 320}; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

 private:
  void rebuild();

  ExplorerModel* model_;
  QString colormap_ = QStringLiteral("viridis");
  QVector<QImage> thumbs_;
  QVector<double> entropy_;
};

}  // namespace attn::ui
