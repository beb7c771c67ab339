#include "attn_ui/pretrained/model_open_controller.h"

#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QMenu>
#include <QStatusBar>

#include "attn/models/gguf/ollama_store.h"
#include "attn/models/model.h"
#include "attn/models/seq2seq/seq2seq_model.h"
#include "attn_ui/common/background_job.h"
#include "attn_ui/common/remembered_dialog.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/pretrained/model_text.h"
#include "attn_ui/pretrained/ollama_models_dialog.h"
#include "attn_ui/pretrained/status_progress.h"
#include "attn_ui/window/file_open_controller.h"
#include "attn_ui/window/main_window.h"
#include "attn_ui/window/recent_paths_menu.h"

namespace attn::ui {
namespace {
const char* const kRecentKey = "recent/models";

bool isOllamaName(const QString& path) { return path.startsWith(QLatin1String("ollama:")); }

bool isGgufName(const QString& path) { return path.endsWith(QLatin1String(".gguf"), Qt::CaseInsensitive); }
}  // namespace

// Owned by the worker and the GUI thread, so either may finish first.
struct ModelOpenController::Job {
  QString path;
  std::shared_ptr<const attn::models::Model> model;
  std::shared_ptr<const attn::models::Seq2SeqModel> seq2seq;  // an encoder-decoder folder
  QString error;
  double ms = 0.0;
};

ModelOpenController::ModelOpenController(MainWindow* window)
    : QObject(window),
      window_(window),
      open_(new QAction(tr("Open &Model Folder…"), this)),
      openFile_(new QAction(tr("Open Model &File (GGUF)…"), this)),
      openOllama_(new QAction(tr("Open O&llama Model…"), this)),
      recent_(new RecentPathsMenu(tr("Recent &Models"), kRecentKey, kMaxRecent, window,
                                  [this](const QString& p) { openRecent(p); })),
      status_(
          new StatusProgress(window, tr("Stop loading the model; the current view stays as it is."), this)),
      job_(std::make_unique<NewestJob>(this)) {
  open_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  open_->setToolTip(tr("Open a Hugging Face model folder (config.json, safetensors weights, tokenizer files) "
                       "or its cache directory models--org--name, and run the text through it."));
  open_->setStatusTip(open_->toolTip());
  connect(open_, &QAction::triggered, this, &ModelOpenController::openDialog);
  openFile_->setToolTip(
      tr("Open a GGUF model file (llama.cpp, LM Studio; F32, F16, Q8_0, Q4_K_M and other "
         "quantized types) with its embedded tokenizer."));
  openFile_->setStatusTip(openFile_->toolTip());
  connect(openFile_, &QAction::triggered, this, &ModelOpenController::openFileDialog);
  openOllama_->setToolTip(
      tr("Pick one of the models Ollama has downloaded ($OLLAMA_MODELS or ~/.ollama/models)."));
  openOllama_->setStatusTip(openOllama_->toolTip());
  connect(openOllama_, &QAction::triggered, this, &ModelOpenController::openOllamaDialog);
  // After File > Open… and Recent Files.
  QMenu* file = window_->fileMenu();
  const QList<QAction*> actions = file->actions();
  const qsizetype at = actions.indexOf(window_->fileOpener()->recentMenu()->menuAction());
  QAction* before = at >= 0 ? actions.value(at + 1) : actions.value(0);
  file->insertAction(before, open_);
  file->insertAction(before, openFile_);
  file->insertAction(before, openOllama_);
  file->insertMenu(before, recent_->menu());

  connect(status_, &StatusProgress::cancelRequested, this, &ModelOpenController::cancel);
  connect(this, &ModelOpenController::failed, window_->model(), &ExplorerModel::reportError);
}

// The worker stops at its next progress report (~NewestJob cancels it).
ModelOpenController::~ModelOpenController() = default;

bool ModelOpenController::busy() const { return job_->busy(); }

bool ModelOpenController::canOpen(const QString& path) {
  if (isOllamaName(path)) return true;
  const QFileInfo info(path);
  // Only a regular file's name is looked at here (drag-enter asks on the GUI thread): a FIFO
  // named x.gguf would block a read.
  if (info.isFile()) return isGgufName(path);
  return info.isDir() && attn::models::isModelFolder(QDir::toNativeSeparators(path).toStdString());
}

bool ModelOpenController::isModelPath(const QString& path) {
  return isOllamaName(path) || isGgufName(path) || QFileInfo(path).isDir();
}

QString ModelOpenController::displayName(const QString& path) {
  return isOllamaName(path) ? path.mid(int(attn::models::gguf::kOllamaPrefix.size()))
                            : QFileInfo(path).fileName();
}

void ModelOpenController::open(const QString& path) {
  auto job = std::make_shared<Job>();
  job->path = path;
  loadingPath_ = path;
  // A newer open() supersedes this one: it is cancelled and its result dropped.
  // The worker owns the job (not `this`), so a load may outlive the window.
  const auto& control = job_->start([job](JobControl& c) { load(*job, c); }, [this, job] { deliver(job); },
                                    tr("Opening %1").arg(displayName(path)));
  status_->startFor(control);
}

void ModelOpenController::load(Job& job, JobControl& control) {
  QElapsedTimer timer;
  timer.start();
  auto progress = [&control](double fraction, std::string_view stage) {
    return control.report(fraction, stage);
  };
  try {
    const std::string path = job.path.toStdString();
    if (QFileInfo(job.path).isDir() && attn::models::isEncoderDecoderFolder(path)) {
      auto s = attn::models::Seq2SeqModel::open(path, progress);
      if (s)
        job.seq2seq = std::move(s).value();
      else
        job.error = QString::fromStdString(s.error().message);
      job.ms = static_cast<double>(timer.nsecsElapsed()) / 1e6;
      return;
    }
    auto m = attn::models::Model::open(path, progress);
    if (m)
      job.model = std::move(m).value();
    else
      job.error = QString::fromStdString(m.error().message);
  } catch (const std::bad_alloc&) {
    job.error = tr("%1: not enough memory to open this model").arg(job.path);
  }
  job.ms = static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

void ModelOpenController::cancel() {
  if (!job_->busy()) return;
  job_->cancel();
  const QString path = loadingPath_;
  status_->stop();
  window_->statusBar()->showMessage(tr("Stopped opening %1; the view is unchanged.").arg(displayName(path)),
                                    6000);
  emit cancelled(path);
}

void ModelOpenController::waitForIdle() {
  while (job_->busy()) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
}

QProgressBar* ModelOpenController::progressBar() const { return status_->bar(); }
QToolButton* ModelOpenController::cancelButton() const { return status_->cancelButton(); }

void ModelOpenController::deliver(const std::shared_ptr<Job>& job) {
  status_->stop();
  if (job->seq2seq) {  // the Translation dock shows it; the other views keep their model
    recent_->remember(job->path);
    const auto& info = job->seq2seq->info();
    window_->statusBar()->showMessage(tr("Opened %1 (encoder–decoder, %2 + %3 layers) in %4 ms: see the "
                                         "Translation dock")
                                          .arg(QString::fromStdString(info.name))
                                          .arg(info.encoderLayers)
                                          .arg(info.decoderLayers)
                                          .arg(job->ms, 0, 'f', 0),
                                      8000);
    emit seq2seqOpened(job->seq2seq);
    emit opened(job->path);
    return;
  }
  if (!job->model) {
    // The core's message names the file and the fault; the view stays as it was.
    emit failed(tr("Could not open the model %1: %2").arg(displayName(job->path), job->error));
    return;
  }
  window_->model()->setModel(job->model);
  recent_->remember(job->path);
  const auto& info = job->model->info();
  window_->statusBar()->showMessage(tr("Opened %1: %2, %3 parameters, in %4 ms")
                                        .arg(QString::fromStdString(info.name), modelShapeText(info),
                                             parameterCountText(info.parameters))
                                        .arg(job->ms, 0, 'f', 0),
                                    8000);
  emit opened(job->path);
}

void ModelOpenController::openDialog() {
  const QString path = openFolderRemembered(window_, tr("Open Model Folder"), "paths/lastModelFolder");
  if (!path.isEmpty()) open(path);
}

void ModelOpenController::openFileDialog() {
  const QString path = openFileRemembered(window_, tr("Open Model File"), "paths/lastModelFile",
                                          tr("GGUF models (*.gguf);;All files (*)"));
  if (!path.isEmpty()) open(path);
}

void ModelOpenController::openOllamaDialog() {
  OllamaModelsDialog dialog(window_);
  if (dialog.exec() != QDialog::Accepted || dialog.selectedSpec().isEmpty()) return;
  open(dialog.selectedSpec());
}

void ModelOpenController::openRecent(const QString& path) {
  QString gone;
  if (isOllamaName(path)) {  // the store's manifest or blob may have been removed (ollama rm)
    if (auto blob = attn::models::gguf::resolveOllamaModel(path.toStdString()); !blob)
      gone = QString::fromStdString(blob.error().message);
  } else if (!QFileInfo(path).isDir() && !QFileInfo(path).isFile()) {
    gone = tr("%1 no longer exists").arg(path);
  }
  if (!gone.isEmpty()) {
    recent_->forget(path);
    emit failed(tr("%1; it was removed from Recent Models.").arg(gone));
    return;
  }
  open(path);
}

QStringList ModelOpenController::recentModels() { return RecentPathsMenu::stored(kRecentKey); }

QMenu* ModelOpenController::recentMenu() const { return recent_->menu(); }

}  // namespace attn::ui
