// BERT's post-LayerNorm block (Devlin et al. 2019; families/bert.cpp) run forward with a
// tape and backward to the word embeddings: a = LN_1(h + W_O attn(h)), h' = LN_2(a + MLP(a)),
// under the embeddings' LayerNorm, with the masked-LM head's logit at one position on top.
#include <cmath>

#include "attn/models/gradients/backward_ops.h"
#include "attn/models/gradients/logit_gradient.h"

namespace attn::models {
namespace {

struct BertLayerTape {
  NormTape ln1, ln2;
  AttentionTape attn;
  Mat pre;
};

void bertTapedLayer(const LogitGradientPass& g, int l, Mat& h, BertLayerTape& t) {
  const ModelConfig& c = g.config;
  const LayerWeights& L = g.weights.layers[static_cast<size_t>(l)];
  Mat concat, o, a, u;
  linear(h, L.q, t.attn.q);
  linear(h, L.k, t.attn.k);
  linear(h, L.v, t.attn.v);
  t.attn.heads = t.attn.kvHeads = c.heads;
  t.attn.headDim = c.headDim;
  t.attn.scale = 1.0f / std::sqrt(static_cast<float>(c.headDim));
  attentionTaped(t.attn, g.keep, concat);
  linear(concat, L.o, o);
  o += h;
  layerNormTaped(o, L.attnNorm, c.normEps, a, t.ln1);
  linear(a, L.up, t.pre);
  u = t.pre;
  activate(u, c.activation);
  linear(u, L.down, o);
  o += a;
  layerNormTaped(o, L.mlpNorm, c.normEps, h, t.ln2);
}

void bertLayerBackward(const LogitGradientPass& g, int l, const BertLayerTape& t, Mat& dh,
                       std::vector<Mat>* heads) {
  const LayerWeights& L = g.weights.layers[static_cast<size_t>(l)];
  Mat ds, du, da, dconcat, dq, dk, dv, dx;
  layerNormBackward(dh, L.mlpNorm, t.ln2, ds);  // d(a + MLP(a))
  linearBackward(ds, L.down, du);
  activationBackward(t.pre, g.config.activation, du);
  linearBackward(du, L.up, da);
  da += ds;
  layerNormBackward(da, L.attnNorm, t.ln1, ds);  // d(h + W_O attn(h))
  linearBackward(ds, L.o, dconcat);
  attentionBackward(t.attn, dconcat, dq, dk, dv, heads);
  dh = ds;
  linearBackward(dq, L.q, dx);
  dh += dx;
  linearBackward(dk, L.k, dx);
  dh += dx;
  linearBackward(dv, L.v, dx);
  dh += dx;
}

/// emb + position + token type embeddings (RoBERTa's positions counted from the ids).
Mat bertEmbeddingSum(const LogitGradientPass& g, const Mat& emb) {
  const ModelConfig& c = g.config;
  const ModelWeights& w = g.weights;
  Mat x = emb;
  int pos = c.positionOffset;
  for (int i = 0; i < static_cast<int>(emb.rows()); ++i) {
    int p = i;
    if (c.positionOffset > 0)  // create_position_ids_from_input_ids
      p = g.enc->ids[static_cast<size_t>(i)] == c.padTokenId ? c.padTokenId : pos++;
    x.row(i) += w.positionEmbedding.mat().row(p);
    if (!w.typeEmbedding.empty())
      x.row(i) +=
          w.typeEmbedding.mat().row(g.enc->typeIds.empty() ? 0 : g.enc->typeIds[static_cast<size_t>(i)]);
  }
  return x;
}

}  // namespace

float bertLogitGradient(const LogitGradientPass& g, const Mat& emb, Mat* dEmb, std::vector<Mat>* attnGrad) {
  const ModelConfig& c = g.config;
  const MaskedLmHead& head = g.weights.mlmHead;
  const Eigen::Index n = emb.rows();
  NormTape embTape, headTape;
  Mat h, pre, y;
  layerNormTaped(bertEmbeddingSum(g, emb), g.weights.embeddingNorm, c.normEps, h, embTape);
  std::vector<BertLayerTape> tapes(static_cast<size_t>(c.layers));
  for (int l = 0; l < c.layers; ++l) bertTapedLayer(g, l, h, tapes[static_cast<size_t>(l)]);
  // The masked-LM head (mlm_head.h) on the one row: dense, activation, LayerNorm, decoder.
  linear(h.row(g.position), head.transform, pre);
  Mat act = pre;
  activate(act, head.activation);
  layerNormTaped(act, head.norm, c.normEps, y, headTape);
  Eigen::RowVectorXf decoder(head.decoder.cols);
  head.decoder.rowTo(g.target, decoder.data());
  float bias = 0;
  if (!head.bias.empty()) {  // [vocab], one row
    Eigen::RowVectorXf b(head.bias.rows * head.bias.cols);
    head.bias.rowTo(0, b.data());
    bias = b(g.target);
  }
  const float logit = y.row(0).dot(decoder) + bias;
  if (!dEmb) return logit;
  Mat dAct, dPre, dRow;
  layerNormBackward(decoder, head.norm, headTape, dAct);
  activationBackward(pre, head.activation, dAct);
  linearBackward(dAct, head.transform, dRow);
  Mat dh = Mat::Zero(n, c.dModel);
  dh.row(g.position) = dRow.row(0);
  layersBackward(c, dh, attnGrad, [&g, &tapes](int l, Mat& d, std::vector<Mat>* heads) {
    bertLayerBackward(g, l, tapes[static_cast<size_t>(l)], d, heads);
  });
  layerNormBackward(dh, g.weights.embeddingNorm, embTape, *dEmb);  // positions, types: added, identity
  return logit;
}

}  // namespace attn::models
