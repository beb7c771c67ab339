#include "attn_ui/pretrained/interventions_controller.h"

#include <QAction>
#include <QCoreApplication>
#include <QStatusBar>
#include <algorithm>
#include <cmath>

#include "attn/masks/mask.h"
#include "attn/models/model.h"
#include "attn_ui/common/background_job.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/pretrained/status_progress.h"
#include "attn_ui/window/main_window.h"

namespace attn::ui {
namespace {

using attn::models::HeadIntervention;
using attn::models::InterventionKind;

bool sameIntervention(const HeadIntervention& a, const HeadIntervention& b) {
  return a.kind == b.kind && a.layer == b.layer && a.head == b.head && a.temperature == b.temperature &&
         a.mask == b.mask;
}

bool sameList(const std::vector<HeadIntervention>& a, const std::vector<HeadIntervention>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), sameIntervention);
}

// Full lm_head logits of both runs are kept for the KL and loss comparison while they
// stay this small (floats per run); a longer text gets the maps and hidden-state change only.
constexpr double kMaxFullLogits = 16e6;

}  // namespace

QString interventionKindText(const HeadIntervention& iv) {
  switch (iv.kind) {
    case InterventionKind::Ablate: return InterventionsController::tr("ablated (output zeroed)");
    case InterventionKind::Uniform: return InterventionsController::tr("uniform attention");
    case InterventionKind::Temperature:
      return InterventionsController::tr("temperature %1").arg(static_cast<double>(iv.temperature), 0, 'g', 4);
    case InterventionKind::Mask: return InterventionsController::tr("mask %1").arg(QString::fromStdString(iv.mask));
  }
  return {};
}

QString interventionText(const HeadIntervention& iv) {
  return InterventionsController::tr("L%1 H%2: %3").arg(iv.layer + 1).arg(iv.head + 1).arg(interventionKindText(iv));
}

// Filled in by the worker; read on the GUI thread once it has finished.
struct InterventionsController::Job {
  std::shared_ptr<const attn::models::Model> model;
  std::shared_ptr<const attn::models::ModelRun> base;  // the explorer's own run: encoding and options
  std::shared_ptr<const attn::models::ModelRun> original, intervened;  // reused when still valid
  std::vector<HeadIntervention> list;
  int position = -1;
  std::shared_ptr<const attn::models::RunComparison> comparison;
  QString error, comparisonError;
};

InterventionsController::InterventionsController(ExplorerModel* model, MainWindow* window)
    : QObject(window ? static_cast<QObject*>(window) : model),
      model_(model),
      window_(window),
      undoAction_(new QAction(tr("&Undo Intervention"), this)),
      redoAction_(new QAction(tr("&Redo Intervention"), this)),
      clearAction_(new QAction(tr("&Clear Interventions"), this)),
      status_(nullptr),
      job_(std::make_unique<NewestJob>(this)) {
  undoAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Z));
  redoAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z));
  undoAction_->setToolTip(tr("Take back the last change to the head interventions."));
  redoAction_->setToolTip(tr("Apply again the change to the head interventions that was undone."));
  clearAction_->setToolTip(tr("Remove every head intervention; the model runs as it was trained."));
  connect(undoAction_, &QAction::triggered, this, &InterventionsController::undo);
  connect(redoAction_, &QAction::triggered, this, &InterventionsController::redo);
  connect(clearAction_, &QAction::triggered, this, &InterventionsController::clear);
  refreshActions();

  if (window_) {
    status_ = new StatusProgress(
        window_, tr("Stop the intervened forward pass; the interventions go back to those shown."), this);
    connect(status_, &StatusProgress::cancelRequested, this, &InterventionsController::cancel);
  }
  connect(this, &InterventionsController::message, model_, &ExplorerModel::reportError);
  connect(model_, &ExplorerModel::resultChanged, this, &InterventionsController::followModelRun);
  connect(model_, &ExplorerModel::pinnedRowChanged, this, [this] {
    if (!active_.empty() && model_->modelPtr() && model_->modelPtr()->info().causal) launch();
  });
  connect(model_, &ExplorerModel::modelChanged, this, [this] {
    // Another model (or none): the interventions named this one's heads.
    job_->cancel();
    endProgress();
    active_.clear();
    shown_.clear();
    undo_.clear();
    redo_.clear();
    base_.reset();
    original_.reset();
    intervened_.reset();
    comparison_.reset();
    refreshActions();
    emit activeChanged();
    emit resultChanged();
  });
}

// The worker stops at its next progress report (~NewestJob cancels it).
InterventionsController::~InterventionsController() = default;

bool InterventionsController::busy() const { return job_->busy(); }

std::vector<HeadIntervention> InterventionsController::on(int layer, int head) const {
  std::vector<HeadIntervention> out;
  for (const auto& iv : active_)
    if (iv.layer == layer && iv.head == head) out.push_back(iv);
  return out;
}

bool InterventionsController::add(const HeadIntervention& iv, QString* error) {
  auto refuse = [&](const QString& why) {
    if (error)
      *error = why;  // the caller (a dialog) shows it
    else
      emit message(why);
    return false;
  };
  const auto m = model_->modelPtr();
  if (!m) return refuse(tr("Open a model (File > Open Model…) to intervene on its heads."));
  const auto& info = m->info();
  if (iv.layer < 0 || iv.layer >= info.layers || iv.head < 0 || iv.head >= info.heads)
    return refuse(tr("%1 has no layer %2, head %3 (it has %4 layers of %5 heads).")
                      .arg(QString::fromStdString(info.name), QString::number(iv.layer + 1),
                           QString::number(iv.head + 1), QString::number(info.layers),
                           QString::number(info.heads)));
  if (iv.kind == InterventionKind::Temperature && !(std::isfinite(iv.temperature) && iv.temperature > 0.0f))
    return refuse(tr("Temperature for layer %1, head %2 must be a positive number.").arg(iv.layer + 1).arg(iv.head + 1));
  if (iv.kind == InterventionKind::Mask) {
    auto mask = attn::Mask::parse(iv.mask);
    const QString spec = QString::fromStdString(iv.mask).trimmed();
    if (!mask)
      return refuse(tr("Mask “%1” for layer %2, head %3 does not parse: %4")
                        .arg(spec)
                        .arg(iv.layer + 1)
                        .arg(iv.head + 1)
                        .arg(QString::fromStdString(mask.error().message)));
    if (mask->isNone())
      return refuse(tr("The mask for layer %1, head %2 is empty; type a term such as window:2 or causal.")
                        .arg(iv.layer + 1)
                        .arg(iv.head + 1));
  }
  std::vector<HeadIntervention> list = active_;
  auto same = std::find_if(list.begin(), list.end(), [&](const HeadIntervention& o) {
    return o.kind == iv.kind && o.layer == iv.layer && o.head == iv.head;
  });
  if (same != list.end())
    *same = iv;  // one of each kind per head: a new temperature replaces the old one
  else
    list.push_back(iv);
  if (error) error->clear();
  setActive(std::move(list), true);
  return true;
}

void InterventionsController::remove(int index) {
  if (index < 0 || index >= static_cast<int>(active_.size())) return;
  std::vector<HeadIntervention> list = active_;
  list.erase(list.begin() + index);
  setActive(std::move(list), true);
}

void InterventionsController::clear() {
  if (!active_.empty()) setActive({}, true);
}

void InterventionsController::undo() {
  while (!undo_.empty() && sameList(undo_.back(), active_)) undo_.pop_back();  // left by a cancelled pass
  if (undo_.empty()) return;
  redo_.push_back(active_);
  auto list = std::move(undo_.back());
  undo_.pop_back();
  setActive(std::move(list), false);
}

void InterventionsController::redo() {
  if (redo_.empty()) return;
  undo_.push_back(active_);
  auto list = std::move(redo_.back());
  redo_.pop_back();
  setActive(std::move(list), false);
}

void InterventionsController::setActive(std::vector<HeadIntervention> list, bool record) {
  if (sameList(list, active_)) return;
  if (record) {
    undo_.push_back(active_);
    redo_.clear();
  }
  active_ = std::move(list);
  refreshActions();
  emit activeChanged();
  launch();
}

void InterventionsController::refreshActions() {
  undoAction_->setEnabled(canUndo());
  redoAction_->setEnabled(canRedo());
  clearAction_->setEnabled(!active_.empty());
}

void InterventionsController::followModelRun() {
  const auto own = model_->ownModelRun();
  if (own == base_) return;  // the intervened run itself, or another layer of the same run
  base_ = own;
  original_.reset();
  intervened_.reset();
  comparison_.reset();
  if (base_ && !active_.empty()) launch();  // the new text, with the same heads changed
}

void InterventionsController::launch() {
  job_->cancel();         // superseded: its result is dropped
  if (active_.empty()) {  // nothing to run: the model's own run again
    endProgress();
    shown_.clear();
    intervened_.reset();
    comparison_.reset();
    original_.reset();
    model_->setIntervenedRun(nullptr);
    emit resultChanged();
    return;
  }
  const auto m = model_->modelPtr();
  if (!m || !base_) return;  // followModelRun() launches when the model's run arrives
  auto job = std::make_shared<Job>();
  job->model = m;
  job->base = base_;
  job->original = original_;
  if (sameList(active_, shown_)) job->intervened = intervened_;  // only the pinned position changed
  job->list = active_;
  job->position = model_->pinnedRow();
  const auto& control = job_->start([job](JobControl& c) { runPasses(*job, c); },
                                    [this, job] { deliver(job); }, tr("Running the intervened model"));
  if (status_) status_->startFor(control);
}

void InterventionsController::runPasses(Job& job, JobControl& control) {
  const auto& info = job.model->info();
  const auto& base = *job.base;
  const int n = base.encoding.size();
  // The options the explorer ran with, so the views see the same kind of run.
  attn::models::RunOptions options;
  const attn::HeadResult* first =
      base.layers.empty() || base.layers[0].heads.empty() ? nullptr : &base.layers[0].heads[0];
  options.keepQkv = first && first->q.size() > 0;
  options.keepLogits = first && first->rawLogits.size() > 0;
  options.topK = base.nextTokens.empty() ? 0 : static_cast<int>(base.nextTokens.back().size());
  options.keepFullLogits = info.causal && static_cast<double>(n) * info.vocabSize <= kMaxFullLogits;
  const bool runOriginal = !job.original, runIntervened = !job.intervened;
  const double passes = (runOriginal ? 1.0 : 0.0) + (runIntervened ? 1.0 : 0.0);
  double done = 0.0;
  auto progress = [&control, &done, passes](double fraction, std::string_view) {
    return control.report(passes > 0 ? (done + fraction) / passes : 1.0);
  };
  try {
    if (runOriginal) {
      control.setStage(InterventionsController::tr("Running the original model"));
      auto r = job.model->run(base.encoding, options, progress);
      if (!r) {
        job.error = QString::fromStdString(r.error().message);
        return;
      }
      job.original = std::make_shared<const attn::models::ModelRun>(std::move(r).value());
      done += 1.0;
    }
    if (runIntervened) {
      control.setStage(InterventionsController::tr("Running the intervened model"));
      options.interventions = job.list;
      auto r = job.model->run(base.encoding, options, progress);
      if (!r) {
        job.error = QString::fromStdString(r.error().message);
        return;
      }
      job.intervened = std::make_shared<const attn::models::ModelRun>(std::move(r).value());
    }
    int position = job.position;
    if (position >= n) position = -1;
    auto c = attn::models::compareRuns(*job.model, *job.original, *job.intervened, position);
    if (c)
      job.comparison = std::make_shared<const attn::models::RunComparison>(std::move(c).value());
    else if (info.causal && !options.keepFullLogits)
      job.comparisonError = InterventionsController::tr(
          "The text is too long to keep both runs' next-token logits; the maps still show the change.");
    else
      job.comparisonError = QString::fromStdString(c.error().message);
  } catch (const std::bad_alloc&) {
    job.error = InterventionsController::tr(
        "Out of memory: the intervened run needs more memory than is available. "
        "Use a shorter text.");
  }
}

void InterventionsController::cancel() {
  if (!job_->busy()) return;
  job_->cancel();
  endProgress();
  if (!sameList(active_, shown_)) {
    active_ = shown_;
    refreshActions();
    emit activeChanged();
  }
  if (window_) window_->statusBar()->showMessage(tr("Stopped the intervened run; the interventions shown are unchanged."), 6000);
}

void InterventionsController::waitForIdle() {
  while (job_->busy()) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
}

void InterventionsController::deliver(const std::shared_ptr<Job>& job) {
  endProgress();
  if (!job->intervened || !job->original) {
    // Nothing changes on screen; the list goes back to the one shown.
    const QString why = job->error.isEmpty() ? tr("the run was stopped") : job->error;
    active_ = shown_;
    refreshActions();
    emit activeChanged();
    emit message(tr("The intervention could not be applied: %1").arg(why));
    return;
  }
  original_ = job->original;
  intervened_ = job->intervened;
  comparison_ = job->comparison;
  comparisonError_ = job->comparisonError;
  shown_ = job->list;
  model_->setIntervenedRun(intervened_);
  emit resultChanged();
}

QProgressBar* InterventionsController::progressBar() const { return status_ ? status_->bar() : nullptr; }

void InterventionsController::endProgress() {
  if (status_) status_->stop();
}

}  // namespace attn::ui
