#include "attn_ui/explorer/mask_overlay.h"

#include <algorithm>
#include <cmath>

namespace attn::ui {
namespace {

constexpr int kMinCellPx = 4;    // below this, cells are merged into blocks
constexpr int kHatchCellPx = 6;  // from this size on, masked cells are hatched too
const QColor kDim(70, 70, 70, 170);
const QColor kHatch(255, 255, 255, 150);
const QColor kFullRow(220, 30, 30);

// Same cells: same spec text, shape and bitmaps (custom, bound padding).
bool sameMask(const attn::Mask& a, const attn::Mask& b) {
  if (a.terms().size() != b.terms().size() || a.spec() != b.spec()) return false;
  for (size_t i = 0; i < a.terms().size(); ++i)
    if (a.terms()[i].keep != b.terms()[i].keep) return false;
  return true;
}

}  // namespace

MaskOverlay::MaskOverlay(QCustomPlot* plot) : QCPAbstractItem(plot) { setSelectable(false); }

void MaskOverlay::setMask(const attn::Mask& mask, int rows, int cols, std::vector<int> fullyMaskedRows) {
  if (!sameMask(mask, mask_) || rows != rows_ || cols != cols_) std::fill(std::begin(cached_), std::end(cached_), -1);
  mask_ = mask;
  rows_ = std::max(rows, 0);
  cols_ = std::max(cols, 0);
  fullRows_ = std::move(fullyMaskedRows);
  exactBlocks_ = std::none_of(mask_.terms().begin(), mask_.terms().end(), [](const attn::MaskTerm& t) {
    return t.kind == attn::MaskTerm::Kind::Random || t.kind == attn::MaskTerm::Kind::Custom;
  });
}

double MaskOverlay::selectTest(const QPointF&, bool, QVariant*) const { return -1; }

double MaskOverlay::maskedFraction(int r0, int r1, int c0, int c1) const {
  if (r1 - r0 == 1 && c1 - c0 == 1) return mask_.allowed(r0, c0) ? 0.0 : 1.0;
  // blockState visits every cell of a custom bitmap and answers Mixed for
  // random cells: for those, the sample alone.
  if (exactBlocks_) {
    switch (mask_.blockState(r0, r1, c0, c1)) {
      case BlockState::AllMasked: return 1.0;
      case BlockState::AllAllowed: return 0.0;
      case BlockState::Mixed: break;
    }
  }
  // A constant-cost estimate keeps a zoomed-out N = 4096 view fast; zooming in
  // makes it exact.
  const int sr = std::min(4, r1 - r0), sc = std::min(4, c1 - c0);
  int masked = 0;
  for (int a = 0; a < sr; ++a)
    for (int b = 0; b < sc; ++b)
      masked += !mask_.allowed(r0 + (a * (r1 - r0)) / sr, c0 + (b * (c1 - c0)) / sc);
  return static_cast<double>(masked) / (sr * sc);
}

const std::vector<MaskOverlay::Run>& MaskOverlay::runs(int r0, int r1, int c0, int c1, int stride) {
  const int key[5] = {r0, r1, c0, c1, stride};
  if (std::equal(std::begin(key), std::end(key), std::begin(cached_))) return runs_;
  std::copy(std::begin(key), std::end(key), std::begin(cached_));
  runs_.clear();
  for (int ra = r0; ra < r1; ra += stride) {
    const int rb = std::min(r1, ra + stride);
    // Neighbouring blocks with the same (quantized) masked share become one run.
    int start = c0, level = 0;
    for (int ca = c0; ca < c1; ca += stride) {
      const int cb = std::min(c1, ca + stride);
      const int l = static_cast<int>(std::lround(8.0 * maskedFraction(ra, rb, ca, cb)));
      if (l != level) {
        if (level > 0) runs_.push_back({ra, rb, start, ca, level});
        start = ca;
        level = l;
      }
    }
    if (level > 0) runs_.push_back({ra, rb, start, c1, level});
  }
  return runs_;
}

void MaskOverlay::draw(QCPPainter* painter) {
  if (!hasContent()) return;
  QCPAxis* xa = parentPlot()->xAxis;
  QCPAxis* ya = parentPlot()->yAxis;
  const QCPRange xr = xa->range(), yr = ya->range();
  // Cell c covers [c - 0.5, c + 0.5]; the visible cells, clamped to the matrix.
  const int c0 = std::clamp(static_cast<int>(std::floor(xr.lower + 0.5)), 0, cols_);
  const int c1 = std::clamp(static_cast<int>(std::floor(xr.upper + 0.5)) + 1, c0, cols_);
  const int r0 = std::clamp(static_cast<int>(std::floor(yr.lower + 0.5)), 0, rows_);
  const int r1 = std::clamp(static_cast<int>(std::floor(yr.upper + 0.5)) + 1, r0, rows_);
  const double cellPx = std::min(std::abs(xa->coordToPixel(1) - xa->coordToPixel(0)),
                                 std::abs(ya->coordToPixel(1) - ya->coordToPixel(0)));
  const int stride = std::max(1, static_cast<int>(std::ceil(kMinCellPx / std::max(cellPx, 1e-9))));
  auto pixelRect = [&](int ra, int rb, int ca, int cb) {
    return QRectF(QPointF(xa->coordToPixel(ca - 0.5), ya->coordToPixel(ra - 0.5)),
                  QPointF(xa->coordToPixel(cb - 0.5), ya->coordToPixel(rb - 0.5)))
        .normalized();
  };
  painter->setAntialiasing(false);
  painter->setPen(Qt::NoPen);
  const bool hatch = stride == 1 && cellPx >= kHatchCellPx;
  if (!mask_.isNone()) {
    for (const Run& run : runs(r0, r1, c0, c1, stride)) {
      QColor c = kDim;
      c.setAlpha(kDim.alpha() * run.level / 8);
      const QRectF rect = pixelRect(run.r0, run.r1, run.c0, run.c1);
      painter->fillRect(rect, c);
      if (hatch && run.level == 8) painter->fillRect(rect, QBrush(kHatch, Qt::BDiagPattern));
    }
  }
  // Rows with every key masked: their weights are all 0 by convention, not by softmax.
  painter->setAntialiasing(true);
  painter->setBrush(Qt::NoBrush);
  painter->setPen(QPen(kFullRow, 2, Qt::DashLine));
  for (int row : fullRows_)
    if (row >= r0 && row < r1) painter->drawRect(pixelRect(row, row + 1, 0, cols_).adjusted(1, 1, -1, -1));
}

}  // namespace attn::ui
