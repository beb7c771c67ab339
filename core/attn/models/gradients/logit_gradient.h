#pragma once
// One family's forward pass from given input embeddings to one logit at the last
// position, taped, and its backward pass to the embeddings (gradients/*_gradient.cpp).
#include <utility>
#include <vector>

#include "attn/models/gradients/backward_ops.h"
#include "attn/models/model.h"
#include "attn/models/model_config.h"
#include "attn/models/model_weights.h"
#include "attn/models/nn_ops.h"

namespace attn::models {

struct LogitGradientPass {
  const ModelConfig& config;
  const ModelWeights& weights;
  const std::vector<uint8_t>& keep;  // the model's mask bitmap [n, n] (empty: every key)
  int target = 0;
  int position = 0;               // the row whose logit is differentiated
  const Encoding* enc = nullptr;  // BERT: the ids (RoBERTa positions) and type ids
  /// Causal models, GradientObjective::NextTokenLoss: the rows whose next token is predicted
  /// and those tokens; the pass then differentiates their mean cross-entropy instead.
  const std::vector<int>* lossRows = nullptr;
  const std::vector<int>* lossTargets = nullptr;
};

/// Returns logit[position, target] of the model on `emb` [n, d] (the token embedding rows, or
/// a point of integrated gradients' path). With dEmb: dLogit/d(emb) [n, d]; with attnGrad:
/// per layer and head (layer-major) alpha * dLogit/d(alpha) [n, n].
using LogitGradientFn = float (*)(const LogitGradientPass& pass, const Mat& emb, Mat* dEmb,
                                  std::vector<Mat>* attnGrad);

float gpt2LogitGradient(const LogitGradientPass& pass, const Mat& emb, Mat* dEmb, std::vector<Mat>* attnGrad);
float llamaLogitGradient(const LogitGradientPass& pass, const Mat& emb, Mat* dEmb,
                         std::vector<Mat>* attnGrad);
float bertLogitGradient(const LogitGradientPass& pass, const Mat& emb, Mat* dEmb, std::vector<Mat>* attnGrad);

/// The target's lm_head row as f32 [1, d].
Eigen::RowVectorXf lmHeadRow(const ModelWeights& weights, int target);

using NormTapedFn = void (*)(const ConstMatRef&, const NormWeight&, double, Mat&, NormTape&);
using NormBackwardFn = void (*)(const ConstMatRef&, const NormWeight&, const NormTape&, Mat&);
/// A causal pass's readout of the last layer's output h [n, d] through the final norm (`norm`,
/// with its backward): logit[position, target], or with lossRows the mean next-token loss
/// over them. With dh: the readout's gradient w.r.t. h, zero outside the rows read.
float causalReadout(const LogitGradientPass& g, const Mat& h, Mat* dh, NormTapedFn norm,
                    NormBackwardFn normBackward);

/// The layers' backward from the last down: dh [n, d] starts as d/d(the last layer's output)
/// and ends as d/d(the first layer's input); `layer(l, dh, heads)` is one layer's backward,
/// its heads' alpha * dLogit/d(alpha) (asked for when heads is not null) go to attnGrad.
template <typename LayerBackward>
void layersBackward(const ModelConfig& c, Mat& dh, std::vector<Mat>* attnGrad, LayerBackward layer) {
  if (attnGrad) attnGrad->assign(static_cast<size_t>(c.layers) * static_cast<size_t>(c.heads), Mat{});
  std::vector<Mat> heads;
  for (int l = c.layers - 1; l >= 0; --l) {
    layer(l, dh, attnGrad ? &heads : nullptr);
    if (attnGrad)
      for (int h = 0; h < c.heads; ++h)
        (*attnGrad)[static_cast<size_t>(l) * static_cast<size_t>(c.heads) + static_cast<size_t>(h)] =
            std::move(heads[static_cast<size_t>(h)]);
  }
}

}  // namespace attn::models
