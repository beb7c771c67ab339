#pragma once
// A causal model's forward one block of new tokens at a time (GPT-2, the Llama family),
// with the keys and values of every earlier token kept (the KV cache of Ott et al. 2019,
// fairseq's incremental decoding; transformers' past_key_values), so each generated token
// costs one row per layer instead of a whole re-run. Each new attention row is kept as it
// is computed: a prefill of the whole text and a token-by-token feed give the same maps as
// transformerForward (eager attention, the same masks: causal, Mistral's sliding window).
#include <string>
#include <vector>

#include "attn/models/model_config.h"
#include "attn/models/model_weights.h"
#include "attn/models/nn_ops.h"
#include "attn/status.h"

namespace attn::models {

/// What one sequence has fed so far.
struct CausalState {
  std::vector<Mat> keys, values;  // per layer [t, kvHeads * headDim] (keys after RoPE)
  /// Per layer * heads + head: row i of the map packed (i + 1 weights, zeros before a
  /// sliding window's start), rows one after another; empty when maps are not kept.
  std::vector<std::vector<float>> rows;
  bool keepMaps = true;
  std::vector<int> ids;  // fed so far
};

class CausalDecoder {
 public:
  /// `maxLength`: the longest sequence it will be fed (the RoPE table's rows). `src` names errors.
  CausalDecoder(const ModelConfig& c, const ModelWeights& w, int maxLength, std::string src);

  /// GPT-2 and the Llama family only: an error naming the family otherwise.
  static Status supports(const ModelConfig& c, const std::string& src);

  /// Feeds `ids` after what `s` holds; `logits` [vocab]: the lm_head of the last new row.
  /// Errors: ids outside the vocabulary, a sequence past maxLength.
  Status feed(CausalState& s, const std::vector<int>& ids, std::vector<float>& logits) const;

  /// The kept map of (layer, head) [t, t], 0 above the diagonal.
  Mat map(const CausalState& s, int layer, int head) const;

 private:
  void layer(CausalState& s, int l, int first, Mat& h) const;
  void attend(CausalState& s, int l, int first, const Mat& q, Mat& concat) const;

  const ModelConfig& c_;
  const ModelWeights& w_;
  int maxLength_;
  std::string src_;
  RopeTable rope_;
};

}  // namespace attn::models
