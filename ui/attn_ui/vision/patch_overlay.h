#pragma once
// Paints a patch map over the image a vision transformer read: the image, then
// one colour square per patch (the map's level through the colormap) at the
// chosen opacity, patches outside a DINO mask darkened, the query patch
// outlined. The levels come from core (attn/vision/maps/patch_maps.h); this
// only scales and colours them. The panel's big view, its layers x heads grid
// and the exported figure all paint through it.
#include <QImage>
#include <QRectF>
#include <QString>

#include "attn/tensor.h"

class QPainter;

namespace attn::ui {

struct PatchOverlay {
  QImage image;          // the preprocessed crop, patch * cols x patch * rows pixels
  attn::Mat levels;      // [rows, cols] in [0, 1] (normalizedToMax); empty: the image alone
  attn::Mat mask;        // [rows, cols] of 0/1 (massMask); empty: no mask
  double opacity = 0.6;  // of the heat layer, 0..1
  QString colormap = "magma";
  int queryPatch = -1;  // patch outlined (row-major), -1 for none ([CLS])

  bool valid() const { return !image.isNull() && levels.rows() > 0 && levels.cols() > 0; }
};

/// The largest rectangle of the image's aspect centred in `area`.
QRectF fittedImageRect(const QRectF& area, const QSize& image);

/// Paints `overlay` into `target` (the image fitted, aspect kept); returns where the image went.
QRectF paintPatchOverlay(QPainter& painter, const QRectF& target, const PatchOverlay& overlay);

/// The patch (row-major) under `pos` for an image drawn at `imageRect` with rows x cols patches, or -1.
int patchAtPoint(const QRectF& imageRect, int rows, int cols, const QPointF& pos);

}  // namespace attn::ui
