#pragma once
// The vector-Jacobian products of the layers in nn_ops.h, for a backward pass that
// asks only for the gradient with respect to the input (no weight gradients): each
// takes dL/d(output) and gives dL/d(input), from what its taped forward kept.
#include <vector>

#include "attn/models/nn_ops.h"

namespace attn::models {

/// dx = dy W (nn.Linear, W [out, in]) or dy W^T (Conv1D, W [in, out]); the bias has no
/// input gradient. BF16 / quantized matrices are decoded a panel of rows at a time.
void linearBackward(const ConstMatRef& dy, const LinearWeight& w, Mat& dx);

/// What a norm's backward needs: the normalized rows x_hat (LayerNorm; RMSNorm: x * inv)
/// and each row's 1 / sqrt(var + eps).
struct NormTape {
  Mat xhat;
  Vec inv;
};
/// layerNorm (nn_ops.h) keeping its tape.
void layerNormTaped(const ConstMatRef& x, const NormWeight& n, double eps, Mat& y, NormTape& t);
/// LayerNorm's input gradient (Ba et al. 2016): with g = dy * gamma,
/// dx = inv * (g - mean(g) - x_hat * mean(g * x_hat)) per row.
void layerNormBackward(const ConstMatRef& dy, const NormWeight& n, const NormTape& t, Mat& dx);
/// rmsNorm (nn_ops.h) keeping its tape.
void rmsNormTaped(const ConstMatRef& x, const NormWeight& n, double eps, Mat& y, NormTape& t);
/// RMSNorm's input gradient (Zhang & Sennrich 2019): with g = dy * gamma and x_hat = x * inv,
/// dx = inv * (g - x_hat * mean(g * x_hat)) per row.
void rmsNormBackward(const ConstMatRef& dy, const NormWeight& n, const NormTape& t, Mat& dx);

/// du *= act'(pre), the derivative of activate()'s function at the pre-activations.
void activationBackward(const Mat& pre, Activation a, Mat& du);

/// x = rotate-half RoPE's inverse rotation (the transpose of applyRope's): the gradient of
/// applyRope's input from its output's, in place.
void ropeBackward(Mat& dx, int headDim, const RopeTable& t);

/// Multi-head attention, kept for its backward: per query head, the weights
/// P = softmax(scale * q k^T, masked) [n, n] (masked weights exactly 0); attentionBackward
/// also takes probs [m, n] of m queries over n keys of another sequence (cross-attention).
struct AttentionTape {
  Mat q, k, v;  // [n, H*hd], [n, KV*hd] (after RoPE where the family rotates)
  std::vector<Mat> probs;
  float scale = 1;
  int heads = 0, kvHeads = 0, headDim = 0;
};
/// concat [n, H*hd] = per head P_h v_{kv(h)}; query head h reads kv head h / (H / KV).
/// `keep` is the mask bitmap [n, n] (empty: every key).
void attentionTaped(AttentionTape& t, const std::vector<uint8_t>& keep, Mat& concat);
/// From d(concat): dq, dk, dv of the tape's shapes, and per head alpha * dL/d(alpha)
/// (Chefer et al. 2021's gradient-weighted attention before their head mean and clamp)
/// into attnGrad[h] when attnGrad is not null. With dP = dO v^T:
/// dS = P * (dP - rowsum(P * dP)), dq = scale dS k, dk = scale dS^T q, dv = P^T dO.
void attentionBackward(const AttentionTape& t, const Mat& dconcat, Mat& dq, Mat& dk, Mat& dv,
                       std::vector<Mat>* attnGrad);

}  // namespace attn::models
