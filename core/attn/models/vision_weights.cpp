#include "attn/models/vision_weights.h"

#include <fmt/format.h>

namespace attn::models {
namespace {

/// Rows [r0, r0 + rows) of a matrix (or elements of a vector) as a tensor of its own.
WeightTensor rowSlice(const WeightTensor& t, int64_t r0, int64_t rows) {
  WeightTensor s = t;
  if (t.rows == 1) {  // a bias vector: a slice of its elements
    s.cols = rows;
    if (t.data) s.data = t.data + r0;
    if (t.bf16) s.bf16 = t.bf16 + 2 * r0;
    return s;
  }
  s.rows = rows;
  if (t.data) s.data = t.data + r0 * t.cols;
  if (t.bf16) s.bf16 = t.bf16 + 2 * r0 * t.cols;
  return s;
}

Status queueDinov2Layer(WeightLoader& l, const ModelConfig& c, LayerWeights& L, int i) {
  const int64_t d = c.dModel, hidden = c.intermediate;
  const std::string p = fmt::format("encoder.layer.{}.", i);
  Status st = l.needNorm(L.attnNorm, p + "norm1", true);
  if (st) st = l.needLinear(L.q, p + "attention.attention.query", d, d, c.attentionBias, false);
  if (st) st = l.needLinear(L.k, p + "attention.attention.key", d, d, c.attentionBias, false);
  if (st) st = l.needLinear(L.v, p + "attention.attention.value", d, d, c.attentionBias, false);
  if (st) st = l.needLinear(L.o, p + "attention.output.dense", d, d, true, false);
  if (st) st = l.need(L.layerScale1, p + "layer_scale1.lambda1", {d});
  if (st) st = l.needNorm(L.mlpNorm, p + "norm2", true);
  if (st && c.swiglu) {
    st = l.needLinear(L.gate, p + "mlp.weights_in", d, 2 * hidden, true, false);
    if (st) st = l.needLinear(L.down, p + "mlp.weights_out", hidden, d, true, false);
  } else if (st) {
    st = l.needLinear(L.up, p + "mlp.fc1", d, hidden, true, false);
    if (st) st = l.needLinear(L.down, p + "mlp.fc2", hidden, d, true, false);
  }
  if (st) st = l.need(L.layerScale2, p + "layer_scale2.lambda1", {d});
  return st;
}

}  // namespace

Status queueDinov2(WeightLoader& l, const ModelConfig& c, ModelWeights& w) {
  const int64_t d = c.dModel, P = c.patchSize, grid = c.imageSize / c.patchSize, table = grid * grid + 1;
  if (auto st = l.choosePrefix("embeddings.cls_token", {"", "dinov2.", "dinov2_with_registers."}); !st)
    return st;
  Status st = l.need(w.clsToken, "embeddings.cls_token", {1, 1, d});
  if (st && c.registerTokens > 0)
    st = l.need(w.registerTokens, "embeddings.register_tokens", {1, c.registerTokens, d});
  if (st) st = l.need(w.positionEmbedding, "embeddings.position_embeddings", {1, table, d});
  if (st)
    st =
        l.need(w.patchEmbedding.w, "embeddings.patch_embeddings.projection.weight", {d, c.numChannels, P, P});
  if (st) st = l.need(w.patchEmbedding.b, "embeddings.patch_embeddings.projection.bias", {d});
  if (!st) return st;
  w.positionEmbedding.rows = table, w.positionEmbedding.cols = d;
  w.registerTokens.rows = c.registerTokens, w.registerTokens.cols = d;
  for (int i = 0; i < c.layers; ++i)
    if (auto s2 = queueDinov2Layer(l, c, w.layers[static_cast<size_t>(i)], i); !s2) return s2;
  return l.needNorm(w.finalNorm, "layernorm", true);
}

Status queueClipVision(WeightLoader& l, const ModelConfig& c, ModelWeights& w) {
  const int64_t d = c.dModel, P = c.patchSize;
  if (auto st = l.choosePrefix("embeddings.class_embedding", {"vision_model.", ""}); !st) return st;
  Status st = l.need(w.clsToken, "embeddings.class_embedding", {d});
  if (st)
    st =
        l.need(w.patchEmbedding.w, "embeddings.patch_embedding.weight", {d, c.numChannels, P, P});  // no bias
  if (st) st = l.need(w.positionEmbedding, "embeddings.position_embedding.weight", {c.maxPositions, d});
  if (st) st = l.needNorm(w.preNorm, "pre_layrnorm", true);  // sic: transformers' name
  if (!st) return st;
  for (int i = 0; i < c.layers; ++i) {
    LayerWeights& L = w.layers[static_cast<size_t>(i)];
    const std::string p = fmt::format("encoder.layers.{}.", i);
    st = l.needNorm(L.attnNorm, p + "layer_norm1", true);
    if (st) st = l.needLinear(L.q, p + "self_attn.q_proj", d, d, true, false);
    if (st) st = l.needLinear(L.k, p + "self_attn.k_proj", d, d, true, false);
    if (st) st = l.needLinear(L.v, p + "self_attn.v_proj", d, d, true, false);
    if (st) st = l.needLinear(L.o, p + "self_attn.out_proj", d, d, true, false);
    if (st) st = l.needNorm(L.mlpNorm, p + "layer_norm2", true);
    if (st) st = l.needLinear(L.up, p + "mlp.fc1", d, c.intermediate, true, false);
    if (st) st = l.needLinear(L.down, p + "mlp.fc2", c.intermediate, d, true, false);
    if (!st) return st;
  }
  return l.needNorm(w.finalNorm, "post_layernorm", true);
}

void splitSwigluWeights(const ModelConfig& c, ModelWeights& w) {
  if (!c.swiglu) return;
  const int64_t hidden = c.intermediate;
  for (LayerWeights& L : w.layers) {
    const LinearWeight in = L.gate;
    L.gate.w = rowSlice(in.w, 0, hidden), L.gate.b = rowSlice(in.b, 0, hidden);
    L.up.w = rowSlice(in.w, hidden, hidden), L.up.b = rowSlice(in.b, hidden, hidden);
    L.up.inOut = L.gate.inOut = false;
  }
}

}  // namespace attn::models
