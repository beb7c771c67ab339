#pragma once
// What the heatmap draws when the matrix is not held in memory: a source that
// gives a block-pooled overview of the whole matrix and any rectangle of it at
// full resolution, both computed on demand (on a worker: they may take a while).
// A streamed model run's head is one (its map recomputed from the kept q/k);
// an in-memory matrix is the other, so the two answer the same questions.
#include <memory>

#include "attn/models/streamed/head_maps.h"
#include "attn/status.h"
#include "attn/tensor.h"

namespace attn::ui {

class HeatmapSource {
 public:
  virtual ~HeatmapSource() = default;
  virtual int rows() const = 0;
  virtual int cols() const = 0;
  /// Cell (I, J) pools rows [I B, (I+1) B) x columns [J B, (J+1) B) (shorter at the edges):
  /// [ceil(rows / B), ceil(cols / B)].
  virtual attn::Result<attn::Mat> overview(int block, attn::models::Pooling pooling) const = 0;
  /// The cells of `rect`, [rect rows, rect cols].
  virtual attn::Result<attn::Mat> cells(const attn::models::MapRect& rect) const = 0;
};

/// An in-memory matrix.
class MatrixSource : public HeatmapSource {
 public:
  explicit MatrixSource(attn::Mat values) : values_(std::move(values)) {}
  int rows() const override { return static_cast<int>(values_.rows()); }
  int cols() const override { return static_cast<int>(values_.cols()); }
  attn::Result<attn::Mat> overview(int block, attn::models::Pooling pooling) const override;
  attn::Result<attn::Mat> cells(const attn::models::MapRect& rect) const override;

 private:
  attn::Mat values_;
};

/// Head `head` of layer `layer` of a streamed run, recomputed from its kept q/k.
class StreamedHeadSource : public HeatmapSource {
 public:
  StreamedHeadSource(std::shared_ptr<const attn::models::QkStore> store, int layer, int head)
      : store_(std::move(store)), layer_(layer), head_(head) {}
  int rows() const override { return store_ ? store_->tokens() : 0; }
  int cols() const override { return rows(); }
  attn::Result<attn::Mat> overview(int block, attn::models::Pooling pooling) const override;
  attn::Result<attn::Mat> cells(const attn::models::MapRect& rect) const override;
  const std::shared_ptr<const attn::models::QkStore>& store() const { return store_; }
  int layer() const { return layer_; }
  int head() const { return head_; }

 private:
  std::shared_ptr<const attn::models::QkStore> store_;
  int layer_, head_;
};

/// Block side of an overview of `n` rows that keeps it at most `maxSide` cells a side.
int overviewBlock(int n, int maxSide = 1024);

}  // namespace attn::ui
