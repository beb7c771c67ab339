#pragma once
// Gradient attribution through a backward pass of the model itself: the gradient of
// one target token's logit at one position (causal models: the last; masked-LM models: a
// mask token) with respect to the input embeddings (the token embedding rows, Hugging
// Face's inputs_embeds: learned positions and token types are added after them), and what the
// interpretability literature builds from it:
//  - gradient x input per token: sum over the embedding dimension of grad * embedding
//    (Shrikumar et al. 2016; the convention of Inseq and Captum's InputXGradient summed
//    over the last axis);
//  - integrated gradients (Sundararajan et al. 2017, eq. 3) from the all-zero embedding,
//    its path integral as a right Riemann sum: alpha_k = k / steps, k = 1..steps;
//  - attention x gradient per layer and head, alpha_ij * dLogit / d alpha_ij (Chefer et al.
//    2021, "Generic Attention-model Explainability", eq. 5 before the mean over heads and
//    the clamp to positive values).
#include <string>
#include <vector>

#include "attn/models/model.h"
#include "attn/models/model_config.h"
#include "attn/models/model_weights.h"

namespace attn::models {

/// What is differentiated: one token's logit at one position, or (causal models) the text's
/// mean next-token cross-entropy -log p(id[i+1] | ..i) over the pairs of real tokens, the loss
/// whose gradient w.r.t. a gate on each head Michel et al. 2019 rank heads by.
enum class GradientObjective { TargetLogit, NextTokenLoss };

struct GradientOptions {
  GradientObjective objective = GradientObjective::TargetLogit;
  int steps = 32;  // integrated gradients' Riemann steps (1..4096)
  /// The position whose logit is explained (0-based); -1: the last (causal models) or the
  /// first mask token (masked-LM models).
  int position = -1;
  bool attention = true;   // attnGrad: every layer's and head's map
  bool integrated = true;  // false: the gradient at the input only (no baseline, no Riemann steps)
};

struct GradientAttribution {
  GradientObjective objective = GradientObjective::TargetLogit;
  int target = 0;            // the token whose logit at `position` is explained
  int position = 0;          // the row it is read at (GradientOptions::position resolved)
  double targetLogit = 0;    // that logit for the input (NextTokenLoss: the loss, nats)
  double baselineLogit = 0;  // for the zero embeddings (integrated gradients' baseline)
  Mat inputGradient;         // [N, d]: dLogit / d(input embeddings)
  Vec gradXInput;            // [N]
  Vec integratedGradients;   // [N]; sums to about targetLogit - baselineLogit (completeness); empty
                             // without GradientOptions::integrated
  int layers = 0, heads = 0;
  std::vector<Mat> attnGrad;  // layers * heads maps [N, N], layer-major (attention option)
};

/// Michel et al. 2019 (sec. 4.1, eq. 2): d loss / d xi_h for a gate xi_h on each head (Hugging
/// Face's head_mask, multiplying the head's weights) at xi = 1, [layers, heads]. With z_i =
/// sum_j alpha_ij v_j, dL/dxi_h = sum_i dL/dz_i . z_i = sum_ij alpha_ij dL/dalpha_ij: the sum of
/// the head's attention x gradient map for the next-token loss (GradientObjective::NextTokenLoss).
Mat headGateGradients(const GradientAttribution& lossGradients);

/// Families with a backward pass here: GPT-2 and the Llama family (the lm_head's logit), and
/// BERT-style checkpoints with their masked-LM head (its logit). Errors, naming `source`: another
/// family or a BERT without the head, an encoding the model cannot run, target outside the
/// vocabulary, a position outside the text or on padding (BERT without one: no mask token),
/// steps outside 1..4096, cancelled; NextTokenLoss on a masked-LM model or a text with fewer
/// than 2 real tokens (the target and position are then not used).
Result<GradientAttribution> gradientAttribution(const ModelConfig& config, const ModelWeights& weights,
                                                const Encoding& enc, int target,
                                                const GradientOptions& options, const std::string& source,
                                                const ProgressFn& progress = {});

}  // namespace attn::models
