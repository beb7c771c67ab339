#pragma once
// Drives one or more attn::train::Trainer runs on a worker thread (the GUI
// never waits on training) and keeps, on the GUI thread, a copy of every
// recorded step for the views and the scrubber. The worker appends each
// step's snapshot to a queue; a timer on the GUI thread drains it every
// kViewIntervalMs and emits `advanced` once, so the views repaint at a steady
// ~25 Hz however many hundred steps per second the trainer makes.
//
// A demonstration trains two or more runs side by side (step for step,
// alternating on the one worker); everything else trains one run.
#include <QObject>
#include <QString>
#include <QTimer>
#include <memory>
#include <mutex>
#include <vector>

#include "attn/train/trainer.h"

namespace attn::ui {

class JobControl;

/// One trained configuration: its config, fixed example and recorded steps.
struct TrainingRunView {
  QString label;  // legend text ("" for a plain run)
  attn::train::TrainConfig config;
  attn::train::FixedExample example;
  std::vector<attn::train::StepSnapshot> steps;  // steps[i].step == i; maps kept every mapEvery
  int mapEvery = 1;
  QString error;  // divergence message, empty while healthy
};

class TrainingController : public QObject {
  Q_OBJECT
 public:
  static constexpr int kViewIntervalMs = 40;  // views refresh at 25 Hz while training

  explicit TrainingController(QObject* parent = nullptr);
  ~TrainingController() override;

  /// Replaces the runs (stops training first). Each config is validated; on
  /// error nothing changes and the message names the field. `stepLimit` is
  /// where Train stops (0: no limit).
  attn::Status configure(const std::vector<std::pair<QString, attn::train::TrainConfig>>& runs, int stepLimit);
  /// Starts (or resumes) training on the worker until pause() or the limit.
  void train();
  /// Asks the worker to stop after the current step; `paused` follows.
  void pause();
  /// One update of every run (on the worker), when not training.
  void step();
  /// Back to step 0 with the same configs (same seed: the same run again).
  void reset();

  bool isTraining() const { return busy_; }
  int runCount() const { return static_cast<int>(runs_.size()); }
  const TrainingRunView& run(int i) const { return runs_[static_cast<size_t>(i)]; }
  /// Where Train stops (0: no limit); takes effect at the next train().
  void setStepLimit(int steps);
  /// The newest step recorded (the furthest run's: a diverged run stops early).
  int latestStep() const;
  int stepLimit() const { return stepLimit_; }
  /// The snapshot of run `r` at `step` (clamped), with maps from the nearest
  /// kept step at or before it.
  attn::train::StepSnapshot snapshotAt(int r, int step) const;
  /// Steps per second of the last training stretch (0 before any).
  double stepsPerSecond() const { return stepsPerSecond_; }
  /// Number of times `advanced` was emitted (view updates), for tests and the status line.
  long long viewUpdates() const { return viewUpdates_; }

  /// Blocks until the worker is idle and every queued step is delivered
  /// (tests, and before reconfiguring).
  void waitForIdle();

  /// How often to keep maps so a long run's maps stay within ~64 MB.
  static int mapEveryFor(const attn::train::TrainConfig& c);

 signals:
  /// New steps were recorded (at most every kViewIntervalMs while training).
  void advanced();
  /// Training started or stopped, or the runs were replaced or reset.
  void stateChanged();
  /// A run diverged or failed (the message says which and why).
  void failed(const QString& message);

 private:
  void startWorker(int maxSteps);
  struct Pending;
  /// One step of every run that has not diverged; false when none could step.
  static bool stepAll(const std::vector<attn::train::Trainer*>& trainers, const std::vector<int>& mapEvery,
                      Pending& pending);
  void drain();
  void onWorkerFinished();

  struct Pending {
    std::mutex mutex;
    std::vector<std::vector<attn::train::StepSnapshot>> steps;  // per run
    std::vector<QString> errors;
  };
  std::vector<TrainingRunView> runs_;
  std::vector<std::unique_ptr<attn::train::Trainer>> trainers_;  // touched by the worker while busy_
  std::shared_ptr<Pending> pending_;
  std::shared_ptr<JobControl> worker_;  // the training stretch on a worker, or null
  QTimer drainTimer_;
  bool busy_ = false;
  bool resetWhenIdle_ = false;
  int stepLimit_ = 0;
  double stepsPerSecond_ = 0;
  long long viewUpdates_ = 0;
  qint64 stretchStartMs_ = 0;
  int stretchStartStep_ = 0;
};

}  // namespace attn::ui
