#include "attn_ui/window/file_open_controller.h"

#include <QAction>
#include <QCoreApplication>
#include <QFileInfo>
#include <QMenu>
#include <QStatusBar>

#include "attn/io/input_file.h"
#include "attn/io/session.h"
#include "attn/io/text_file.h"
#include "attn_ui/common/background_job.h"
#include "attn_ui/common/remembered_dialog.h"
#include "attn_ui/explorer/config_panel.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/input_panel.h"
#include "attn_ui/window/main_window.h"
#include "attn_ui/window/recent_paths_menu.h"
#include "attn_ui/window/session_controller.h"

namespace attn::ui {
namespace {

enum class Kind { Data, Text, Session, Unknown };

Kind kindOf(const QString& path) {
  const QString ext = QFileInfo(path).suffix().toLower();
  if (ext == "npz" || ext == "npy" || ext == "safetensors" || ext == "csv") return Kind::Data;
  if (ext == "txt") return Kind::Text;
  if (ext == "json") return Kind::Session;
  return Kind::Unknown;
}

const char* const kRecentKey = "recent/files";

}  // namespace

struct FileOpenController::Job {
  QString path;
  Kind kind = Kind::Unknown;
  std::shared_ptr<attn::LoadedInput> file;  // Data
  QString text;                             // Text
  QString error;                            // the core's message, naming the file
};

FileOpenController::FileOpenController(MainWindow* window)
    : QObject(window),
      window_(window),
      open_(new QAction(tr("&Open…"), this)),
      recent_(new RecentPathsMenu(tr("Recent &Files"), kRecentKey, kMaxRecent, window,
                                  [this](const QString& p) { openRecent(p); })),
      reads_(std::make_unique<NewestJob>(this)) {
  open_->setShortcut(QKeySequence::Open);
  open_->setToolTip(tr("Open tensors (.npz, .npy, .safetensors, .csv), text (.txt) or a session (.json)."));
  connect(open_, &QAction::triggered, this, &FileOpenController::openDialog);
  QMenu* file = window_->fileMenu();
  QAction* first = file->actions().value(0);
  file->insertAction(first, open_);
  file->insertMenu(first, recent_->menu());
  file->insertSeparator(first);
  connect(this, &FileOpenController::failed, window_->model(), &ExplorerModel::reportError);
}

FileOpenController::~FileOpenController() = default;

bool FileOpenController::busy() const { return reads_->running() > 0; }

bool FileOpenController::canOpen(const QString& path) { return kindOf(path) != Kind::Unknown; }

void FileOpenController::open(const QString& path) {
  auto job = std::make_shared<Job>();
  job->path = path;
  job->kind = kindOf(path);
  if (job->kind == Kind::Unknown) {
    fail(tr("%1: unknown file type '%2' (open .npz, .npy, .safetensors, .csv, .txt or a .json session)")
             .arg(path, QFileInfo(path).suffix()));
    return;
  }
  // A newer open() replaces this one: its result is dropped. The worker owns
  // the job (not `this`), so a read may outlive the window.
  reads_->start([job] { readFile(*job); }, [this, job] { deliver(job); });
}

void FileOpenController::readFile(Job& job) {
  const std::string p = job.path.toStdString();
  switch (job.kind) {
    case Kind::Data: {
      auto in = attn::loadInputFile(p);
      if (in)
        job.file = std::make_shared<attn::LoadedInput>(std::move(in).value());
      else
        job.error = QString::fromStdString(in.error().message);
      break;
    }
    case Kind::Text: {
      auto t = attn::readUtf8TextFile(p);
      if (t)
        job.text = QString::fromStdString(*t).trimmed();
      else
        job.error = QString::fromStdString(t.error().message);
      break;
    }
    case Kind::Session: {  // checked here; SessionController applies it
      auto s = attn::loadSession(p);
      if (!s) job.error = QString::fromStdString(s.error().message);
      break;
    }
    case Kind::Unknown:
      break;
  }
}

void FileOpenController::waitForIdle() {
  while (reads_->running() > 0) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
}

void FileOpenController::deliver(const std::shared_ptr<Job>& job) {
  if (!job->error.isEmpty()) {
    fail(tr("Could not open %1: %2").arg(QFileInfo(job->path).fileName(), job->error));
    return;
  }
  switch (job->kind) {
    case Kind::Data:
      applyData(*job);
      break;
    case Kind::Text:
      window_->inputPanel()->setQueryText(job->text);
      break;
    case Kind::Session:
      if (!window_->sessions()->openPath(job->path)) return;  // it says why
      break;
    case Kind::Unknown: return;
  }
  recent_->remember(job->path);
  window_->setWindowFilePath(job->path);
  window_->statusBar()->showMessage(tr("Opened %1").arg(QFileInfo(job->path).fileName()), 6000);
  emit opened(job->path);
}

void FileOpenController::applyData(const Job& job) {
  ExplorerModel* model = window_->model();
  std::shared_ptr<const attn::LoadedInput> file = job.file;
  if (!file->hasEngineInput()) {  // precomputed weights only: the configuration does not apply
    model->setLoadedFile(file);
    return;
  }
  // Sizes follow the file; the mechanism stays as configured. A file's 'mask'
  // joins the configured mask as its "custom" term (see attn::Mask).
  attn::AttentionSpec spec = model->spec();
  if (auto st = attn::fitSpecToInput(file->input, spec); !st)
    spec = model->spec();  // the model shows the error when it computes; the controls stay as they are
  if (!file->maskKeep.empty() && !spec.mask.needsCustomData()) {
    bool hasCustom = false;
    for (const auto& t : spec.mask.terms()) hasCustom |= t.kind == attn::MaskTerm::Kind::Custom;
    if (!hasCustom) spec.mask = spec.mask.isNone() ? *attn::Mask::parse("custom") : spec.mask + *attn::Mask::parse("custom");
  }
  model->setLoadedFile(file);
  window_->configPanel()->setSpec(spec);
}

void FileOpenController::fail(const QString& message) {
  emit failed(message);
}

void FileOpenController::openDialog() {
  const QString path = openFileRemembered(
      window_, tr("Open"), "paths/lastFolder",
      tr("Everything AttnScope opens (*.npz *.npy *.safetensors *.csv *.txt *.json);;"
         "Tensors (*.npz *.npy *.safetensors *.csv);;Text (*.txt);;Sessions (*.json);;All files (*)"));
  if (!path.isEmpty()) open(path);
}

void FileOpenController::openRecent(const QString& path) {
  if (!QFileInfo::exists(path)) {
    recent_->forget(path);
    fail(tr("%1 no longer exists; it was removed from Recent Files.").arg(path));
    return;
  }
  open(path);
}

QStringList FileOpenController::recentFiles() { return RecentPathsMenu::stored(kRecentKey); }

QMenu* FileOpenController::recentMenu() const { return recent_->menu(); }

}  // namespace attn::ui
