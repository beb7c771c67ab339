#pragma once
// Draws, over the heatmap, which cells the mask removed: masked cells dimmed
// and hatched (so a weight of exactly 0 is told apart from a small one), and
// rows whose every key is masked outlined in red. Asks the procedural mask for
// the visible cells only (blockState when zoomed out), so it costs no N x N
// bitmap at N = 4096.
#include <qcustomplot.h>

#include <vector>

#include "attn/masks/mask.h"

namespace attn::ui {

class MaskOverlay : public QCPAbstractItem {
  Q_OBJECT
 public:
  explicit MaskOverlay(QCustomPlot* plot);

  /// `mask` as applied (tokens bound: AttentionResult::mask) to a rows x cols matrix.
  void setMask(const attn::Mask& mask, int rows, int cols, std::vector<int> fullyMaskedRows);
  const attn::Mask& mask() const { return mask_; }
  const std::vector<int>& fullyMaskedRows() const { return fullRows_; }
  /// True when there is something to draw (a mask that removes cells, or flagged rows).
  bool hasContent() const { return rows_ > 0 && (!mask_.isNone() || !fullRows_.empty()); }

  double selectTest(const QPointF& pos, bool onlySelectable, QVariant* details = nullptr) const override;

 protected:
  void draw(QCPPainter* painter) override;

 private:
  /// Fraction of cells [r0, r1) x [c0, c1) the mask removes, exact for one
  /// cell, from blockState or a 4 x 4 sample for a larger block.
  double maskedFraction(int r0, int r1, int c0, int c1) const;

  // Dimmed runs of one block row, in cells: [r0, r1) x [c0, c1), alpha level 1..8.
  struct Run {
    int r0, r1, c0, c1, level;
  };
  const std::vector<Run>& runs(int r0, int r1, int c0, int c1, int stride);

  attn::Mask mask_;
  int rows_ = 0, cols_ = 0;
  std::vector<int> fullRows_;
  bool exactBlocks_ = true;  // blockState is exact and cheap (no random or custom term)
  // The runs of the last paint: a repaint of the same view (a temperature
  // drag, a pinned row) reuses them.
  std::vector<Run> runs_;
  int cached_[5] = {-1, -1, -1, -1, -1};
};

}  // namespace attn::ui
