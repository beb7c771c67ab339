#pragma once
// Gradient attribution of an encoder-decoder model (BART, mBART, Marian, T5) under forced
// decoding: the gradient of one target token's logit at one decoder row with respect to
// the input embeddings of both stacks, Hugging Face's inputs_embeds: the token embedding
// rows times the embedding scale (sqrt(d_model) with BART/Marian's scale_embedding, else 1),
// before the positions and layernorm_embedding are applied. From it, as for causal models
// (gradient_attribution.h): gradient x input per token, integrated gradients (Sundararajan
// et al. 2017, eq. 3) from the all-zero embedding of source and target together, and
// attention x gradient per layer and head (Chefer et al. 2021, eq. 5 before the head mean)
// for the encoder self-attention, the decoder self-attention and the cross-attention.
#include <string>
#include <vector>

#include "attn/models/gradients/gradient_attribution.h"
#include "attn/models/seq2seq/seq2seq_config.h"
#include "attn/models/seq2seq/seq2seq_weights.h"

namespace attn::models {

struct Seq2SeqGradientAttribution {
  int target = 0;                      // the token whose logit at `position` is explained
  int position = 0;                    // the decoder row it is read at
  double targetLogit = 0;              // that logit (lm_head + final_logits_bias) for the inputs
  double baselineLogit = 0;            // for zero embeddings in both stacks
  Mat sourceGradient, targetGradient;  // [Ns, d], [Nt, d]: dLogit / d(inputs_embeds)
  Vec gradXInputSource, gradXInputTarget;
  /// Sum of both about targetLogit - baselineLogit (completeness, to the Riemann sum's error);
  /// empty without GradientOptions::integrated.
  Vec integratedSource, integratedTarget;
  int encoderLayers = 0, decoderLayers = 0, encoderHeads = 0, decoderHeads = 0;
  /// Layer-major per head (GradientOptions::attention): encoder [Ns, Ns], decoder self
  /// [Nt, Nt] (0 above the diagonal), cross [Nt, Ns].
  std::vector<Mat> attnGradEncoder, attnGradDecoder, attnGradCross;
};

/// The logit of `target` at decoder row options.position (-1: the last) with the decoder
/// reading `decoderIds` (decoder start first) over `sourceIds`; target -1: the token the model
/// predicts there. Errors name `src`: ids outside the vocabulary or the positions, a position
/// outside the decoder rows, target outside the vocabulary, steps outside 1..4096, cancelled.
Result<Seq2SeqGradientAttribution> seq2seqGradientAttribution(
    const Seq2SeqConfig& config, const Seq2SeqWeights& weights, const std::vector<int>& sourceIds,
    const std::vector<int>& decoderIds, int target, const GradientOptions& options, const std::string& src,
    const ProgressFn& progress = {});

}  // namespace attn::models
