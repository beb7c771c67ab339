#pragma once
// Draws a variant's maps side by side (core's attn::variants::variantMaps):
// one square-celled heatmap each, tokens along both axes, a colour bar per map.
// Memory columns (Transformer-XL) are set apart by a separator line and
// labels in the memory colour; an error map gets its own colour range. The
// same paint function serves the screen and the figure export.
#include <QColor>
#include <QWidget>
#include <vector>

#include "attn/variants/variant_run.h"

class QPainter;

namespace attn::ui {

class VariantMapsWidget : public QWidget {
  Q_OBJECT
 public:
  explicit VariantMapsWidget(QWidget* parent = nullptr);

  void setMaps(std::vector<attn::variants::VariantMap> maps);
  const std::vector<attn::variants::VariantMap>& maps() const { return maps_; }
  void setColormap(const QString& name);
  /// Outlines row `row` of every map (-1: none).
  void setHighlightRow(int row);
  /// Paints every map into `target` (black on white for figures when `figure`).
  void paintMaps(QPainter& painter, const QRect& target, bool figure = false) const;

  /// The colour of memory-column labels and the separator.
  static QColor memoryColour() { return {200, 90, 20}; }

  QSize sizeHint() const override { return {900, 360}; }

 protected:
  void paintEvent(class QPaintEvent*) override;

 private:
  std::vector<attn::variants::VariantMap> maps_;
  QString colormap_ = "viridis";
  int highlightRow_ = -1;
};

}  // namespace attn::ui
