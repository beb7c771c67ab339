#pragma once
// What an intervention changed, and head importance by ablation:
// every head alone zeroed, the increase of the text's mean next-token loss
// (causal models) or the relative change of the final hidden states
// (encoders) -- the ablation estimate -- or, for causal models, Michel et
// al.'s (2019) gate-gradient estimate from one backward pass. The pruning
// curve removes heads in increasing order of importance.
#include <string>
#include <vector>

#include "attn/models/model.h"

namespace attn::models {

/// Mean next-token cross-entropy (nats) of a causal run with full logits over the
/// encoding's real tokens: -log p(id[i+1] | ..i) averaged over i with both tokens real
/// (ModelRun::nextTokenLoss when the run computed it and kept no logits).
/// Errors: no logits kept, fewer than 2 real tokens.
Result<double> meanNextTokenLoss(const ModelRun& run);

struct HeadChange {
  float maxAbs = 0;   // max |B - A| over the map
  float meanAbs = 0;  // mean |B - A| over the map
};

/// Masked-LM models: what changed at one mask token of the text.
struct MaskChange {
  int position = 0;  // token index
  double kl = 0;     // KL(before || after) of the masked-LM head's distribution there, nats
  std::vector<TopToken> topBefore, topAfter;  // top 5
};

struct RunComparison {
  std::vector<std::vector<HeadChange>> weights;  // [layers][heads], attention maps (A = before, B = after)
  int firstChangedLayer = -1;   // first layer whose maps differ (-1: none)
  double hiddenChange = 0;      // ||B - A||_F / ||A||_F of the final hidden states
  double hiddenMaxAbs = 0;
  bool causal = false;
  // Causal models: at `position`, the next-token distribution.
  int position = 0;
  double kl = 0;  // KL(before || after), nats
  std::vector<TopToken> topBefore, topAfter;  // top 5
  double lossBefore = 0, lossAfter = 0;        // meanNextTokenLoss; 0 when the text is too short
  bool hasLoss = false;
  // Encoders: the first token's ([CLS]) final hidden state.
  double clsChange = 0;   // ||B - A|| / ||A||
  double clsCosine = 1;   // cosine between A and B
  // Masked-LM models: every mask token of the text (both runs' ModelRun::maskLogits).
  std::vector<MaskChange> masked;
};

/// Compares two runs of one encoding (same options, full logits kept for causal models,
/// every layer kept). `position` < 0 means the last real token.
Result<RunComparison> compareRuns(const Model& model, const ModelRun& before, const ModelRun& after, int position = -1);

struct PruningPoint {
  double fraction = 0;  // of all heads removed
  int removed = 0;
  double value = 0;     // mean next-token loss (causal) or final hidden-state change (encoder)
};

struct HeadImportance {
  std::string measure;  // what importance means for this model (ablation estimate)
  std::string curveMeasure;
  double baseline = 0;  // the unablated loss (causal) or 0
  Mat importance;       // [layers, heads]
  std::vector<PruningPoint> curve;
  int forwardPasses = 0;
  int reusedLayers = 0;  // layers not recomputed thanks to the prefix cache, over all passes
  double seconds = 0;
};

/// Ablation: each head alone zeroed, the change of the measure (L x H forward passes).
/// GateGradient (causal models): Michel et al. 2019's |d loss / d xi_h| for a gate xi_h on each
/// head, from one backward pass of the mean next-token loss (gradients/gradient_attribution.h).
enum class ImportanceMethod { Ablation, GateGradient };

struct ImportanceOptions {
  int curveSteps = 12;      // pruning curve points besides 0 (0: no curve)
  bool usePrefixCache = true;
  /// Ablations run side by side, one per OpenMP thread (each single-threaded); false: one
  /// at a time, each using every thread. The values agree to float rounding (~1e-7 relative).
  bool parallelHeads = true;
  ImportanceMethod method = ImportanceMethod::Ablation;
};

/// Ablates each head alone (or, with ImportanceMethod::GateGradient, one backward pass; an
/// encoder is then refused), then the pruning curve; `progress` may cancel. With
/// parallelHeads it is called from the worker threads (the caller's among them), one
/// call at a time, with fractions that only grow.
Result<HeadImportance> headImportance(const Model& model, const Encoding& encoding,
                                      const ImportanceOptions& options = {}, const ProgressFn& progress = {});

}  // namespace attn::models
