// runOnWorker and NewestJob: the work runs off the GUI thread, done() on it;
// a newer request drops an older, slower one's result; cancel reaches the
// work and drops its result; an owner destroyed first gets nothing delivered.
#include "attn_ui/common/background_job.h"

#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QObject>
#include <QThread>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <thread>

namespace attn::ui {
namespace {

// Processes events until `ready` or 10 s; true if it became ready.
bool spinUntil(const std::function<bool()>& ready) {
  QElapsedTimer timer;
  timer.start();
  while (!ready()) {
    if (timer.elapsed() > 10000) return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
  }
  return true;
}

// A gate the work waits at until the test opens it.
struct Gate {
  std::atomic<bool> open{false};
  void wait() const {
    while (!open.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
};

TEST(BackgroundJob, WorkRunsOnAWorkerAndDoneOnTheGuiThread) {
  QObject owner;
  auto workThread = std::make_shared<std::atomic<QThread*>>(nullptr);
  QThread* doneThread = nullptr;
  bool done = false;
  runOnWorker(
      &owner, [workThread] { *workThread = QThread::currentThread(); },
      [&] {
        doneThread = QThread::currentThread();
        done = true;
      });
  ASSERT_TRUE(spinUntil([&] { return done; }));
  EXPECT_NE(workThread->load(), QCoreApplication::instance()->thread());
  EXPECT_EQ(doneThread, QCoreApplication::instance()->thread());
}

TEST(BackgroundJob, ProgressReportedByTheWorkIsReadOnTheGuiThread) {
  QObject owner;
  auto gate = std::make_shared<Gate>();
  bool done = false;
  auto control = runOnWorker(
      &owner,
      [gate](JobControl& c) {
        EXPECT_TRUE(c.report(0.25, "first half"));
        gate->wait();
      },
      [&] { done = true; }, QStringLiteral("starting"));
  ASSERT_TRUE(spinUntil([&] { return control->progress().first == QStringLiteral("first half"); }));
  EXPECT_DOUBLE_EQ(control->progress().second, 0.25);
  gate->open = true;
  ASSERT_TRUE(spinUntil([&] { return done; }));
  EXPECT_TRUE(control->finished());
}

TEST(BackgroundJob, NewestRequestWinsOverAnOlderSlowerOne) {
  QObject owner;
  NewestJob jobs(&owner);
  auto slowGate = std::make_shared<Gate>();
  auto slowSawCancel = std::make_shared<std::atomic<bool>>(false);
  std::vector<int> delivered;
  const auto slow = jobs.start(
      [slowGate, slowSawCancel](JobControl& c) {
        slowGate->wait();
        *slowSawCancel = c.cancelled();
      },
      [&] { delivered.push_back(1); });
  jobs.start([] {}, [&] { delivered.push_back(2); });
  EXPECT_TRUE(slow->cancelled());  // superseded: asked to stop
  ASSERT_TRUE(spinUntil([&] { return !delivered.empty(); }));
  EXPECT_FALSE(jobs.busy());
  EXPECT_EQ(jobs.running(), 1);  // the slow one is still on its worker
  slowGate->open = true;
  ASSERT_TRUE(spinUntil([&] { return jobs.running() == 0; }));
  EXPECT_TRUE(slowSawCancel->load());
  EXPECT_EQ(delivered, std::vector<int>{2});  // the older result was dropped
}

TEST(BackgroundJob, CancelStopsTheWorkAndDropsItsResult) {
  QObject owner;
  NewestJob jobs(&owner);
  auto steps = std::make_shared<std::atomic<int>>(0);
  bool done = false;
  jobs.start(
      [steps](JobControl& c) {
        // Long work that polls the flag the way core progress callbacks do.
        for (int i = 0; i < 100000 && c.report(i / 100000.0); ++i) {
          ++*steps;
          std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
      },
      [&] { done = true; });
  ASSERT_TRUE(spinUntil([&] { return steps->load() > 0; }));
  EXPECT_TRUE(jobs.busy());
  jobs.cancel();
  EXPECT_FALSE(jobs.busy());
  ASSERT_TRUE(spinUntil([&] { return jobs.running() == 0; }));
  EXPECT_LT(steps->load(), 100000);  // it stopped early
  QCoreApplication::processEvents();
  EXPECT_FALSE(done);
}

TEST(BackgroundJob, CancelWithoutDropStillDeliversAndDropDoesNot) {
  QObject owner;
  auto gate = std::make_shared<Gate>();
  bool stoppedDone = false, droppedDone = false;
  auto stopped = runOnWorker(
      &owner,
      [gate](JobControl& c) {
        gate->wait();
        EXPECT_TRUE(c.cancelled());
      },
      [&] { stoppedDone = true; });
  auto dropped = runOnWorker(
      &owner, [gate] { gate->wait(); }, [&] { droppedDone = true; });
  stopped->cancel();
  dropped->drop();
  EXPECT_TRUE(dropped->cancelled());
  gate->open = true;
  stopped->wait();
  dropped->wait();
  ASSERT_TRUE(spinUntil([&] { return stoppedDone; }));
  QCoreApplication::processEvents();
  EXPECT_FALSE(droppedDone);
}

TEST(BackgroundJob, OwnerDestroyedWhileRunningGetsNothingDelivered) {
  auto gate = std::make_shared<Gate>();
  auto payload = std::make_shared<int>(0);  // owned by the work, not by the owner
  bool done = false;
  auto* owner = new QObject;
  auto jobs = std::make_unique<NewestJob>(owner);
  auto control = jobs->start(
      [gate, payload](JobControl&) {
        gate->wait();
        *payload = 42;
      },
      [&] { done = true; });
  auto plain = runOnWorker(
      owner, [gate] { gate->wait(); }, [&] { done = true; });
  jobs.reset();  // members go first, as in an owner's destructor
  delete owner;
  EXPECT_TRUE(control->cancelled());
  gate->open = true;
  control->wait();
  plain->wait();
  for (int i = 0; i < 20; ++i) QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
  EXPECT_FALSE(done);
  EXPECT_EQ(*payload, 42);  // the work itself ran to its end on what it owns
}

}  // namespace
}  // namespace attn::ui
