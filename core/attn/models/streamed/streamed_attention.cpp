#include "attn/models/streamed/streamed_attention.h"

#include <stdexcept>

#include "attn/analysis/layers.h"
#include "attn/analysis/streamed_analysis.h"
#include "attn/cpu/tiled_attention.h"
#include "attn/models/nn_ops.h"

namespace attn::models {

void streamedAttention(ForwardPass& f, int layer, float scale) {
  const ModelConfig& c = f.config;
  StreamedOutputs& out = *f.streamed;
  const int n = f.tokens(), H = c.heads, KV = c.kvHeads, hd = c.headDim, group = H / KV;
  // Contiguous per-head copies (the kernels read whole matrices); keys and values once per KV head.
  std::vector<Mat> q(static_cast<size_t>(H)), k(static_cast<size_t>(KV)), v(static_cast<size_t>(KV));
  // Over the threads: at long N the copies are MB each, and one thread copying left the other idle.
  const int threads = threadsFor(8.0 * static_cast<double>(n) * hd * (H + 2 * KV));  // as copyColumns
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
  for (int i = 0; i < H + 2 * KV; ++i) {
    if (i < H)
      q[static_cast<size_t>(i)] = f.q.middleCols(static_cast<Eigen::Index>(i) * hd, hd);
    else if (i < H + KV)
      k[static_cast<size_t>(i - H)] = f.k.middleCols(static_cast<Eigen::Index>(i - H) * hd, hd);
    else
      v[static_cast<size_t>(i - H - KV)] = f.v.middleCols(static_cast<Eigen::Index>(i - H - KV) * hd, hd);
  }
  // The kernels read these copies. Without a q/k store or hooks to hand the projections'
  // matrices to, they go now (the next layer's projections allocate them again): at 32,768
  // tokens of a 32-head, 8-KV-head, d 2048 model they are 400 MB of the layer's peak.
  if (!out.store && !f.hooks) {
    f.q = Mat();
    f.k = Mat();
    f.v = Mat();
  }
  std::vector<HeadView> views(static_cast<size_t>(H));
  for (int h = 0; h < H; ++h) {
    HeadView& view = views[static_cast<size_t>(h)];
    view.q = &q[static_cast<size_t>(h)];
    view.k = &k[static_cast<size_t>(h / group)];
    view.v = &v[static_cast<size_t>(h / group)];
    view.scale = scale;
    view.mask = out.mask;
  }
  f.concat.resize(n, static_cast<Eigen::Index>(H) * hd);
  // With measures, their pass over the softmax rows writes the output as well (P V); the tiled
  // kernel would score Q K^T and exponentiate every cell a second time.
  if (out.windowed) {
    (*out.windowed)[static_cast<size_t>(layer)].add(views, f.enc.tokens, out.windowStart, out.firstRow,
                                                    &f.concat);
    return;
  }
  if (out.analyses) {
    out.analyses->push_back(analyzeStreamed(views, f.enc.tokens, out.options, nullptr, &f.concat,
                                            out.rollout ? &out.headSum : nullptr));
    if (out.rollout) {
      auto st = out.rollout->addHeadSum(out.headSum, H);
      if (!st) throw std::runtime_error(st.error().message);  // (N x N by construction)
    }
    if (out.store) out.store->setLayer(layer, f.q, f.k, scale);
    return;
  }
#pragma omp parallel
  {
    TileScratch scratch;
    Mat o;
    RowStats stats;
#pragma omp for schedule(dynamic, 1)
    for (int h = 0; h < H; ++h) {
      flashAttention(views[static_cast<size_t>(h)], TileConfig{}, scratch, o, stats);
      f.concat.middleCols(static_cast<Eigen::Index>(h) * hd, hd) = o;
    }
  }
  if (out.store) out.store->setLayer(layer, f.q, f.k, scale);
}

}  // namespace attn::models
