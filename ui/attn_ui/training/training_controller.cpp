#include "attn_ui/training/training_controller.h"

#include <QDateTime>
#include <algorithm>
#include <cmath>
#include <limits>

#include "attn_ui/common/background_job.h"

namespace attn::ui {

using attn::train::StepSnapshot;
using attn::train::TrainConfig;
using attn::train::Trainer;

TrainingController::TrainingController(QObject* parent)
    : QObject(parent), pending_(std::make_shared<Pending>()) {
  drainTimer_.setInterval(kViewIntervalMs);
  connect(&drainTimer_, &QTimer::timeout, this, &TrainingController::drain);
}

TrainingController::~TrainingController() {
  if (!worker_) return;
  worker_->cancel();
  worker_->wait();  // the worker holds raw pointers to the trainers
}

int TrainingController::mapEveryFor(const TrainConfig& c) {
  // Maps of 10,000 steps within ~64 MB (the GUI keeps a copy beside the trainer's).
  const double bytesPerStep = 4.0 * c.layers * c.heads * c.seqLen * c.seqLen;
  const double budget = 64.0 * 1024 * 1024;
  return std::max(1, static_cast<int>(std::ceil(bytesPerStep * 10000.0 / budget)));
}

attn::Status TrainingController::configure(const std::vector<std::pair<QString, TrainConfig>>& runs,
                                           int stepLimit) {
  if (runs.empty()) return attn::Error{"no run to train"};
  if (worker_) worker_->cancel();
  waitForIdle();
  std::vector<std::unique_ptr<Trainer>> trainers;
  std::vector<TrainingRunView> views;
  for (const auto& [label, config] : runs) {
    TrainConfig c = config;
    c.mapEvery = std::max(c.mapEvery, mapEveryFor(c));
    auto t = Trainer::create(c);
    if (!t) return t.error();
    auto trainer = std::make_unique<Trainer>(std::move(*t));
    TrainingRunView v;
    v.label = label;
    v.config = c;
    v.mapEvery = c.mapEvery;
    v.example = trainer->example();
    v.steps.push_back(trainer->latest());
    views.push_back(std::move(v));
    trainers.push_back(std::move(trainer));
  }
  trainers_ = std::move(trainers);
  runs_ = std::move(views);
  stepLimit_ = std::max(0, stepLimit);
  stepsPerSecond_ = 0;
  {
    std::lock_guard lock(pending_->mutex);
    pending_->steps.assign(runs_.size(), {});
    pending_->errors.assign(runs_.size(), {});
  }
  emit stateChanged();
  emit advanced();
  return attn::okStatus();
}

void TrainingController::train() {
  if (busy_ || runs_.empty()) return;
  startWorker(stepLimit_ > 0 ? std::max(0, stepLimit_ - latestStep()) : std::numeric_limits<int>::max());
}

void TrainingController::setStepLimit(int steps) { stepLimit_ = std::max(0, steps); }

void TrainingController::pause() {
  if (busy_ && worker_) worker_->cancel();
}

void TrainingController::step() {
  if (busy_ || runs_.empty()) return;
  startWorker(1);
}

void TrainingController::reset() {
  if (worker_) worker_->cancel();
  waitForIdle();
  for (size_t r = 0; r < trainers_.size(); ++r) {
    trainers_[r]->reset();
    runs_[r].steps.assign(1, trainers_[r]->latest());
    runs_[r].error.clear();
  }
  stepsPerSecond_ = 0;
  emit stateChanged();
  emit advanced();
}

int TrainingController::latestStep() const {
  // The furthest run: a run that diverged stops, the others go on.
  int s = 0;
  for (const auto& r : runs_) s = std::max(s, r.steps.empty() ? 0 : r.steps.back().step);
  return s;
}

StepSnapshot TrainingController::snapshotAt(int r, int step) const {
  const auto& steps = runs_[static_cast<size_t>(r)].steps;
  const int i = std::clamp(step, 0, static_cast<int>(steps.size()) - 1);
  StepSnapshot s = steps[static_cast<size_t>(i)];
  if (s.maps.empty())
    for (int j = i - 1; j >= 0; --j)
      if (!steps[static_cast<size_t>(j)].maps.empty()) {
        s.maps = steps[static_cast<size_t>(j)].maps;
        s.mapsStep = steps[static_cast<size_t>(j)].mapsStep;
        break;
      }
  return s;
}

bool TrainingController::stepAll(const std::vector<Trainer*>& trainers, const std::vector<int>& mapEvery,
                                 Pending& pending) {
  bool any = false;
  for (size_t r = 0; r < trainers.size(); ++r) {
    Trainer& t = *trainers[r];
    if (t.diverged()) continue;
    const int before = t.stepCount();
    const attn::Status st = t.step();
    std::lock_guard lock(pending.mutex);
    if (t.stepCount() > before) {  // a step that diverges is still recorded; a refused one is not
      StepSnapshot s = t.latest();
      // Keep maps only where the trainer's history keeps them; scrubbing takes the nearest.
      if (s.step % mapEvery[r] != 0) s.maps.clear();
      pending.steps[r].push_back(std::move(s));
    }
    if (!st)
      pending.errors[r] = QString::fromStdString(st.error().message);
    else
      any = true;
  }
  return any;
}

void TrainingController::startWorker(int maxSteps) {
  if (maxSteps <= 0) return;
  busy_ = true;
  stretchStartMs_ = QDateTime::currentMSecsSinceEpoch();
  stretchStartStep_ = latestStep();
  std::vector<Trainer*> trainers;
  std::vector<int> mapEvery;
  for (size_t r = 0; r < trainers_.size(); ++r) {
    trainers.push_back(trainers_[r].get());
    mapEvery.push_back(runs_[r].mapEvery);
  }
  auto pending = pending_;
  worker_ = runOnWorker(
      this,
      [trainers, mapEvery, pending, maxSteps](JobControl& control) {
        for (int k = 0; k < maxSteps && !control.cancelled(); ++k)
          if (!stepAll(trainers, mapEvery, *pending)) break;  // every run diverged
      },
      [this] {
        worker_.reset();
        onWorkerFinished();
      });
  drainTimer_.start();
  emit stateChanged();
}

void TrainingController::drain() {
  bool any = false;
  QStringList errors;
  {
    std::lock_guard lock(pending_->mutex);
    for (size_t r = 0; r < runs_.size() && r < pending_->steps.size(); ++r) {
      auto& q = pending_->steps[r];
      if (!q.empty()) any = true;
      for (auto& s : q) runs_[r].steps.push_back(std::move(s));
      q.clear();
      if (!pending_->errors[r].isEmpty() && runs_[r].error.isEmpty()) {
        runs_[r].error = pending_->errors[r];
        errors << (runs_[r].label.isEmpty() ? runs_[r].error : runs_[r].label + QStringLiteral(": ") + runs_[r].error);
      }
    }
  }
  if (any) {
    ++viewUpdates_;
    emit advanced();
  }
  for (const QString& e : errors) emit failed(e);
}

void TrainingController::onWorkerFinished() {
  busy_ = false;
  drainTimer_.stop();
  drain();
  const qint64 ms = QDateTime::currentMSecsSinceEpoch() - stretchStartMs_;
  const int steps = latestStep() - stretchStartStep_;
  if (steps > 1 && ms > 0) stepsPerSecond_ = 1000.0 * steps / static_cast<double>(ms);
  emit stateChanged();
}

void TrainingController::waitForIdle() {
  if (!worker_) return;
  worker_->wait();
  worker_->drop();  // its queued delivery is not needed any more
  worker_.reset();
  onWorkerFinished();
}

}  // namespace attn::ui
