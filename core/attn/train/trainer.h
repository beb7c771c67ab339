#pragma once
// Trains the tiny attention model one update at a time and records every step,
// so a front end can watch the maps form, pause, step and scrub.
//
// No globals, no Qt, no threads inside: one thread drives a Trainer (the GUI's
// worker); snapshots are plain values to copy to another thread. Cancel a long
// run() with the atomic flag or the callback.
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "attn/status.h"
#include "attn/tensor.h"
#include "attn/train/tasks.h"
#include "attn/train/tiny_model.h"
#include "attn/train/train_config.h"

namespace attn::train {

/// The state after one step (step 0 = before any update).
struct StepSnapshot {
  int step = 0;           // updates applied so far
  double loss = 0;        // total loss on this step's batch, before the update
  double crossEntropy = 0;
  double accuracy = 0;    // fraction of output tokens right on this step's fresh batch
  std::vector<double> headEntropy;  // [layers*heads], index layer*heads + head: mean row
                                    // entropy (nats) over the batch; uniform = log N
  double gradNormQK = 0;  // L2 norm of the gradient of every W_Q and W_K (before clipping)
  double gradNorm = 0;    // L2 norm of the whole gradient (before clipping)
  bool clipped = false;   // the gradient was rescaled to gradClipNorm
  bool diverged = false;  // the loss or the gradient became non-finite: training stops
  /// Induction only (else empty), [layers*heads] as headEntropy: the previous-token
  /// and induction scores of the fixed example's maps (induction_scores.h).
  std::vector<double> previousTokenScore, inductionScore;
  /// [layers][heads] attention maps [N, N] of the fixed example (rows = queries).
  /// May be empty in a history record when config.mapEvery skipped this step;
  /// Trainer::snapshotAt fills them from the closest kept step at or before it.
  std::vector<std::vector<Mat>> maps;
  int mapsStep = 0;  // the step the maps were taken at
};

/// The fixed example whose maps are shown (same for the whole run).
struct FixedExample {
  std::vector<int> source, target;                  // ids
  std::vector<std::string> keyLabels, queryLabels;  // axis labels: input tokens; for each
                                                    // query row, the target token it should produce
  Mat expected;                                     // [N, N] expectedPattern (tasks.h)
};

/// The recorded run: scalar curves for every step, maps every config.mapEvery steps.
struct TrainHistory {
  std::vector<StepSnapshot> steps;  // steps[i].step == i
  int size() const { return static_cast<int>(steps.size()); }
};

class Trainer {
 public:
  /// Validates the config (validateTrainConfig) and initialises step 0.
  static Result<Trainer> create(const TrainConfig& config);

  Trainer(Trainer&&) noexcept;
  Trainer& operator=(Trainer&&) noexcept;
  ~Trainer();

  const TrainConfig& config() const;
  const FixedExample& example() const;

  /// One update: draws a batch, forward, backward, clip, optimizer step, and
  /// appends a snapshot. After divergence it does nothing and returns an error
  /// ("training diverged at step 412: loss is not finite; lower the learning rate
  /// or set a gradient clip").
  Status step();

  /// Up to `steps` updates. Stops early (returning Ok) when `cancel` becomes true
  /// or `onStep` returns false; stops with the error of step() on divergence.
  /// onStep sees each new snapshot (keep it quick: it runs on the training thread).
  Status run(int steps, const std::atomic<bool>* cancel = nullptr,
             const std::function<bool(const StepSnapshot&)>& onStep = {});

  /// Back to step 0: the same seed gives the same initial weights and batches again.
  void reset();

  int stepCount() const;  // updates applied so far
  bool diverged() const;
  /// The newest snapshot (with maps).
  const StepSnapshot& latest() const;
  const TrainHistory& history() const;
  /// Scrubbing: a copy of step `step` (clamped to [0, stepCount()]), its maps taken
  /// from the nearest kept step at or before it (mapsStep says which).
  StepSnapshot snapshotAt(int step) const;

  /// Number of trainable scalars.
  int parameterCount() const;

  /// The current weights, the batch the newest snapshot was measured on and the
  /// gradient of its loss (the one the next step applies, before clipping):
  /// at step 0, the initial state a reference implementation can recompute.
  const ModelParams<float>& parameters() const;
  const TaskBatch& latestBatch() const;
  const ModelParams<float>& gradients() const;

 private:
  struct Impl;
  explicit Trainer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace attn::train
