#include "attn_ui/explorer/heatmap_source.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn::ui {

attn::Result<attn::Mat> MatrixSource::overview(int block, attn::models::Pooling pooling) const {
  if (block < 1) return attn::Error{fmt::format("overview block {} is not positive", block)};
  const int r = rows(), c = cols();
  const int pr = (r + block - 1) / block, pc = (c + block - 1) / block;
  attn::Mat out(pr, pc);
  const bool max = pooling == attn::models::Pooling::Max;
  for (int bi = 0; bi < pr; ++bi)
    for (int bj = 0; bj < pc; ++bj) {
      const int h = std::min(block, r - bi * block), w = std::min(block, c - bj * block);
      const auto cells = values_.block(bi * block, bj * block, h, w);
      // As pooledMap: masked (NaN) cells count as weight 0.
      const auto finite = cells.unaryExpr([](float v) { return std::isfinite(v) ? v : 0.0f; });
      out(bi, bj) = max ? finite.maxCoeff() : finite.sum() / static_cast<float>(h * w);
    }
  return out;
}

attn::Result<attn::Mat> MatrixSource::cells(const attn::models::MapRect& rect) const {
  if (rect.row0 < 0 || rect.col0 < 0 || rect.row1 > rows() || rect.col1 > cols() || rect.row0 >= rect.row1 ||
      rect.col0 >= rect.col1)
    return attn::Error{fmt::format("rectangle rows {}:{} x columns {}:{} is outside a {} x {} matrix",
                                   rect.row0, rect.row1, rect.col0, rect.col1, rows(), cols())};
  return attn::Mat(values_.block(rect.row0, rect.col0, rect.row1 - rect.row0, rect.col1 - rect.col0));
}

attn::Result<attn::Mat> StreamedHeadSource::overview(int block, attn::models::Pooling pooling) const {
  if (!store_) return attn::Error{"no kept q/k"};
  return attn::models::pooledMap(*store_, layer_, head_, block, pooling);
}

attn::Result<attn::Mat> StreamedHeadSource::cells(const attn::models::MapRect& rect) const {
  if (!store_) return attn::Error{"no kept q/k"};
  return attn::models::headMap(*store_, layer_, head_, rect);
}

int overviewBlock(int n, int maxSide) { return std::max(1, (n + maxSide - 1) / std::max(1, maxSide)); }

}  // namespace attn::ui
