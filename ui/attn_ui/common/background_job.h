#pragma once
// The one shape of background work in the UI: run a job on a worker thread,
// let it report progress and honour Cancel, deliver its result on the GUI
// thread, and drop results that a newer request has made stale.
//
//   runOnWorker(owner, work, done)   work(JobControl&) on the global thread pool;
//                                     done() on owner's thread when work returns,
//                                     unless owner is gone or the job was dropped.
//   NewestJob                         a series of such jobs where each start()
//                                     cancels the one before and only the newest
//                                     one's done() runs (a generation counter).
//
// The work must own what it reads and writes (capture shared_ptrs, never the
// owner's `this`): the owner may be destroyed while it runs. done() may use
// `this` freely; it never runs after the owner is destroyed.
#include <QFuture>
#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QtConcurrent/QtConcurrentRun>
#include <atomic>
#include <memory>
#include <mutex>
#include <string_view>
#include <type_traits>
#include <utility>

namespace attn::ui {

/// Shared by a job's worker (which reports progress and polls for cancel) and
/// the GUI thread (which reads progress, cancels, waits).
class JobControl {
 public:
  // Worker side.
  /// True once cancel() (or drop()) was called; long work stops at the next check.
  bool cancelled() const noexcept { return cancel_.load(); }
  /// Records how far the work is; returns false once cancelled, so it can be
  /// returned from a core progress callback (`return control.report(f, stage);`).
  bool report(double fraction, std::string_view stage);
  bool report(double fraction);  // keeps the stage
  void setStage(const QString& stage);

  // GUI side.
  /// Asks the work to stop; done() still runs when it returns.
  void cancel() noexcept { cancel_ = true; }
  /// cancel(), and done() will not run.
  void drop() noexcept;
  bool dropped() const noexcept { return dropped_.load(); }
  /// (stage, fraction in [0, 1]) as last reported.
  std::pair<QString, double> progress() const;
  /// Blocks until the work has returned (its done() is still queued, if any).
  void wait();
  bool finished() const { return future_.isFinished(); }
  /// The future wait() and finished() look at (set by runOnWorker).
  void attach(QFuture<void> future) { future_ = std::move(future); }

 private:
  std::atomic<bool> cancel_{false}, dropped_{false};
  mutable std::mutex mutex_;
  double fraction_ = 0.0;  // guarded by mutex_
  QString stage_;          // guarded by mutex_
  QFuture<void> future_;   // GUI thread only
};

/// Runs `work` (callable as work(JobControl&) or work()) on a worker and then
/// `done()` on `owner`'s thread. The watcher that delivers is a child of
/// `owner`, so destroying the owner first simply drops the result. `stage`
/// is what progress() says until the work reports.
template <typename Work, typename Done>
std::shared_ptr<JobControl> runOnWorker(QObject* owner, Work&& work, Done&& done, const QString& stage = {}) {
  auto control = std::make_shared<JobControl>();
  control->setStage(stage);
  auto* watcher = new QFutureWatcher<void>(owner);
  QObject::connect(watcher, &QFutureWatcher<void>::finished, owner,
                   [watcher, control, done = std::forward<Done>(done)]() mutable {
                     watcher->deleteLater();
                     if (!control->dropped()) done();
                   });
  QFuture<void> future = QtConcurrent::run([control, work = std::forward<Work>(work)]() mutable {
    if constexpr (std::is_invocable_v<decltype(work)&, JobControl&>)
      work(*control);
    else
      work();
  });
  watcher->setFuture(future);
  control->attach(std::move(future));
  return control;
}

/// Newest request wins: start() cancels the job before it and drops its
/// result; busy() is true from start() until the newest job's done() ran or
/// it was cancelled.
class NewestJob {
 public:
  explicit NewestJob(QObject* owner) : owner_(owner) {}
  /// The running job is asked to stop (it cannot deliver any more).
  ~NewestJob() { cancel(); }
  NewestJob(const NewestJob&) = delete;
  NewestJob& operator=(const NewestJob&) = delete;

  template <typename Work, typename Done>
  const std::shared_ptr<JobControl>& start(Work&& work, Done&& done, const QString& stage = {}) {
    cancel();
    const quint64 generation = generation_;
    ++running_;
    current_ = runOnWorker(
        owner_, std::forward<Work>(work),
        [this, generation, done = std::forward<Done>(done)]() mutable {
          --running_;
          if (generation != generation_) return;  // superseded or cancelled
          current_.reset();
          done();
        },
        stage);
    return current_;
  }
  /// Cancels the newest job and drops its result (its done() will not run).
  void cancel();
  /// The newest job has not delivered yet (and was not cancelled).
  bool busy() const { return current_ != nullptr; }
  /// Jobs still on a worker, the superseded ones included.
  int running() const { return running_; }
  /// The newest job's control (progress, cancel), or null when not busy().
  const std::shared_ptr<JobControl>& current() const { return current_; }
  /// Bumped by every start() and cancel().
  quint64 generation() const { return generation_; }

 private:
  QObject* owner_;
  std::shared_ptr<JobControl> current_;
  quint64 generation_ = 0;
  int running_ = 0;
};

}  // namespace attn::ui
