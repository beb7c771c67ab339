#pragma once
// Per-head interventions on a loaded model: zero a head's output
// (ablation, as Hugging Face's head_mask = 0 on that head), replace its
// weights by uniform attention over its allowed keys, divide its logits by a
// temperature, or add a mask term of the mask grammar. Several at once, given
// in RunOptions::interventions; the forward pass re-runs from the first
// changed layer when RunOptions::cache holds the hidden states of the layers
// before it (Michel et al. 2019, "Are Sixteen Heads Really Better than One?").
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "attn/tokenizers/hf/hf_tokenizer.h"
#include "attn/status.h"
#include "attn/tensor.h"

namespace attn::models {

enum class InterventionKind { Ablate, Uniform, Temperature, Mask };
/// "ablate", "uniform", "temperature", "mask".
std::string_view interventionKindName(InterventionKind k);

struct HeadIntervention {
  InterventionKind kind = InterventionKind::Ablate;
  int layer = 0;  // 0-based
  int head = 0;   // 0-based query head
  float temperature = 1.0f;  // Temperature: logits (after 1/sqrt(d)) are divided by it; > 0
  std::string mask;          // Mask: a term of the mask grammar (Mask::parse), ANDed with the model's mask
};

/// Parses the CLI form, 1-based: "ablate:L.H", "uniform:L.H", "temperature:L.H=2.0",
/// "mask:L.H=window:2". Checks the syntax and the mask grammar, not the model's size.
Result<HeadIntervention> parseIntervention(std::string_view spec);
/// The CLI form again (1-based), e.g. "temperature:3.2=0.5".
std::string formatIntervention(const HeadIntervention& iv);

/// Hidden states entering every layer of a run without interventions on one
/// encoding, for re-running from the first changed layer. Filled by a run
/// given an empty (or stale) cache and no interventions; read by runs with
/// interventions on the same model and encoding.
struct ForwardCache {
  const void* owner = nullptr;  // the weights the states were computed with
  std::vector<int> ids, typeIds;
  std::vector<uint8_t> attention;
  std::vector<Mat> layerInputs;  // [layers] x [N, d_model]
  int reusedLayers = 0;  // set by the last run that read the cache: layers it did not recompute
  void clear() { *this = ForwardCache{}; }
};

/// For the forward pass (transformer_forward.cpp): what the interventions do to one head.
struct HeadEdit {
  bool zero = false, uniform = false;
  float invTemperature = 1.0f;
  std::vector<uint8_t> keep;  // non-empty: the model's keep bitmap [N, N] ANDed with the added terms
};
/// Per layer, per head (an inner vector is empty for an untouched layer). Errors, one line
/// naming `source` and the intervention in its 1-based form: a layer or head the model
/// lacks, a temperature that is not a positive number, a mask term that does not parse.
Result<std::vector<std::vector<HeadEdit>>> headEdits(int layers, int heads, const Encoding& enc,
                                                     const std::vector<uint8_t>& modelKeep,
                                                     const std::vector<HeadIntervention>& interventions,
                                                     const std::string& source);
/// The first layer with an edit (layers when none).
int firstEditedLayer(const std::vector<std::vector<HeadEdit>>& edits);
/// How many leading layers a run may take from `cache`: 0 unless the cache was filled with
/// `weights` on this encoding and the run has interventions (firstEdited >= 0); then the
/// first edited layer, but no later than `firstStoredLayer` (the first layer whose
/// attention results the run must return; -1: every layer).
int reusableLayers(const ForwardCache* cache, const void* weights, const Encoding& enc, int layers, int firstEdited,
                   int firstStoredLayer);

}  // namespace attn::models
