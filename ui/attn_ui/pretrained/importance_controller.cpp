#include "attn_ui/pretrained/importance_controller.h"

#include <fmt/format.h>

#include <QAction>
#include <QCoreApplication>

#include "attn/models/model.h"
#include "attn_ui/common/background_job.h"
#include "attn_ui/explorer/explorer_model.h"

namespace attn::ui {

std::string importanceCsv(const attn::models::HeadImportance& imp) {
  std::string s = "layer,head,importance\n";
  for (int l = 0; l < imp.importance.rows(); ++l)
    for (int h = 0; h < imp.importance.cols(); ++h) s += fmt::format("{},{},{:.9g}\n", l + 1, h + 1, imp.importance(l, h));
  return s;
}

std::string pruningCurveCsv(const attn::models::HeadImportance& imp) {
  std::string s = "fraction_removed,heads_removed,value\n";
  for (const auto& p : imp.curve) s += fmt::format("{:.6g},{},{:.9g}\n", p.fraction, p.removed, p.value);
  return s;
}

struct ImportanceController::Job {
  std::shared_ptr<const attn::models::Model> model;
  std::shared_ptr<const attn::models::ModelRun> run;  // its encoding is measured
  QStringList tokens;
  std::shared_ptr<const attn::models::HeadImportance> result;
  QString error;
};

ImportanceController::ImportanceController(ExplorerModel* model, QObject* parent)
    : QObject(parent),
      model_(model),
      compute_(new QAction(tr("Compute Head &Importance"), this)),
      job_(std::make_unique<NewestJob>(this)) {
  compute_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_I));
  compute_->setToolTip(tr("Ablate every head alone and measure how much the model's output changes "
                          "(the text's mean next-token loss, or the final hidden states for encoders); "
                          "then the pruning curve."));
  compute_->setStatusTip(compute_->toolTip());
  compute_->setEnabled(model_->hasModel());
  connect(compute_, &QAction::triggered, this, &ImportanceController::compute);
  connect(model_, &ExplorerModel::modelChanged, this, [this] {
    cancel();
    result_.reset();
    ids_.clear();
    tokens_.clear();
    compute_->setEnabled(model_->hasModel());
    emit finished();
  });
}

// The worker stops at its next progress report (~NewestJob cancels it).
ImportanceController::~ImportanceController() = default;

bool ImportanceController::compute() {
  const auto m = model_->modelPtr();
  const auto run = model_->ownModelRun();
  if (!m || !run) {
    emit message(m ? tr("The model is still running; compute the head importance when its maps are shown.")
                   : tr("Open a model (File > Open Model…) to compute the importance of its heads."));
    return false;
  }
  auto job = std::make_shared<Job>();
  job->model = m;
  job->run = run;
  job->tokens = model_->queryLabels();
  // A second compute() supersedes the first: it is cancelled and its result dropped.
  job_->start(
      [job](JobControl& control) {
        auto progress = [&control](double fraction, std::string_view stage) {
          return control.report(fraction, stage);
        };
        try {
          auto r = attn::models::headImportance(*job->model, job->run->encoding, {}, progress);
          if (r)
            job->result = std::make_shared<const attn::models::HeadImportance>(std::move(r).value());
          else
            job->error = QString::fromStdString(r.error().message);
        } catch (const std::bad_alloc&) {
          job->error = ImportanceController::tr("not enough memory; use a shorter text");
        }
      },
      [this, job] { deliver(job); }, tr("Head importance"));
  emit started();
  return true;
}

void ImportanceController::cancel() {
  if (!job_->busy()) return;
  job_->cancel();
  emit finished();
}

bool ImportanceController::busy() const { return job_->busy(); }

void ImportanceController::waitForIdle() {
  while (job_->busy()) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
}

double ImportanceController::progress(QString* stage) const {
  if (!job_->busy()) return 0.0;
  const auto [text, fraction] = job_->current()->progress();
  if (stage) *stage = text;
  return fraction;
}

bool ImportanceController::stale() const {
  const auto run = model_->ownModelRun();
  return result_ && run && run->encoding.ids != ids_;
}

void ImportanceController::deliver(const std::shared_ptr<Job>& job) {
  if (!job->result) {
    emit message(tr("Head importance could not be computed: %1").arg(job->error));
    emit finished();
    return;
  }
  result_ = job->result;
  ids_ = job->run->encoding.ids;
  tokens_ = job->tokens;
  emit finished();
}

}  // namespace attn::ui
