#include "attn/models/attribution/head_vectors.h"

namespace attn::models {

OutputProjection outputProjection(const LinearWeight& o, int d) {
  OutputProjection p;
  outputProjection(o, d, p);
  return p;
}

void outputProjection(const LinearWeight& o, int d, OutputProjection& p) {
  if (o.inOut) {  // stored as x W already (GPT-2's Conv1D): its rows are W's
    p.w.resize(o.w.rows, o.w.cols);
    for (int64_t r = 0; r < o.w.rows; ++r) o.w.rowTo(r, &p.w(r, 0));
  } else {
    Mat stored(o.w.rows, o.w.cols);
    for (int64_t r = 0; r < o.w.rows; ++r) o.w.rowTo(r, &stored(r, 0));
    p.w.resize(o.w.cols, o.w.rows);
    p.w = stored.transpose();
  }
  p.b = Eigen::RowVectorXf::Zero(d);
  if (!o.b.empty()) o.b.rowTo(0, p.b.data());
}

std::vector<Mat> headValueVectors(const AttentionResult& attn, const OutputProjection& proj, int headDim) {
  std::vector<Mat> f;
  headValueVectors(attn, proj, headDim, f);
  return f;
}

void headValueVectors(const AttentionResult& attn, const OutputProjection& proj, int headDim,
                      std::vector<Mat>& f) {
  const int H = static_cast<int>(attn.heads.size());
  f.resize(static_cast<size_t>(H));
  // Kobayashi et al. 2020, section 3: f(x) = (x W_V + b_V) W_O^h, head h's rows of W_O.
#pragma omp parallel for schedule(static)
  for (int h = 0; h < H; ++h)
    f[static_cast<size_t>(h)].noalias() = attn.heads[static_cast<size_t>(h)].v *
                                          proj.w.middleRows(static_cast<Eigen::Index>(h) * headDim, headDim);
}

Status checkAttributionRun(const ModelConfig& c, const ModelRun& run, const std::string& src) {
  const int n = run.encoding.size();
  if (run.layers.size() != static_cast<size_t>(c.layers) || run.firstLayer != 0 ||
      run.hiddenStates.size() < static_cast<size_t>(c.layers))
    return Error{src + ": contributions need every layer's attention and hidden states"};
  for (const auto& layer : run.layers) {
    if (layer.heads.size() != static_cast<size_t>(c.heads))
      return Error{src + ": contributions need every head of every layer"};
    for (const auto& h : layer.heads)
      if (h.v.rows() != n || h.v.cols() != c.headDim || h.weights.rows() != n || h.weights.cols() != n)
        return Error{src + ": contributions need every head's weights and values (keepQkv)"};
  }
  return okStatus();
}

}  // namespace attn::models
