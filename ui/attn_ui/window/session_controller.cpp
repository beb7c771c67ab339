#include "attn_ui/window/session_controller.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>

#include "attn/models/model.h"
#include "attn_ui/common/remembered_dialog.h"
#include "attn_ui/explorer/config_panel.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/heatmap_panel.h"
#include "attn_ui/explorer/input_panel.h"
#include "attn_ui/window/main_window.h"

namespace attn::ui {
namespace {

// What reopens the model: its folder (a cache layout's resolved snapshot), its GGUF file, or
// its name in Ollama's store as given.
QString sessionModelPath(const attn::models::ModelInfo& info) {
  const QString source = QString::fromStdString(info.source);
  if (source.startsWith(QLatin1String("ollama:"))) return source;
  if (!source.isEmpty() && QFileInfo(source).isFile()) return QFileInfo(source).absoluteFilePath();
  return QFileInfo(QString::fromStdString(info.dir)).absoluteFilePath();
}
constexpr int kMaxRecent = 8;
}

SessionController::SessionController(MainWindow* window) : QObject(window), window_(window) {
  QMenu* file = window_->fileMenu();
  QAction* first = file->actions().value(0);
  auto* open = new QAction(tr("Open &Session…"), this);
  // Ctrl+Shift+O is File > Open Model…; File > Open… (Ctrl+O) opens sessions too.
  open->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_O));
  connect(open, &QAction::triggered, this, &SessionController::openDialog);
  auto* save = new QAction(tr("&Save Session"), this);
  save->setShortcut(QKeySequence::Save);
  connect(save, &QAction::triggered, this, &SessionController::save);
  auto* saveAs = new QAction(tr("Save Session &As…"), this);
  saveAs->setShortcut(QKeySequence::SaveAs);
  connect(saveAs, &QAction::triggered, this, &SessionController::saveAs);
  recent_ = new QMenu(tr("Recent Sessions"), window_);
  file->insertActions(first, {open, save, saveAs});
  file->insertMenu(first, recent_);
  file->insertSeparator(first);
  refreshRecent();
  connect(this, &SessionController::message, window_,
          [this](const QString& m) { window_->statusBar()->showMessage(m, 8000); });
}

attn::Session SessionController::capture() const {
  const ExplorerModel* m = window_->model();
  attn::Session s;
  s.input.text = m->text().toStdString();
  s.input.keyText = m->keyText().toStdString();
  if (m->hasLoadedInput()) s.input.file = m->loadedSource().toStdString();
  if (m->hasModel())  // absolute, so an autosave restores from any working folder; the spec stays the text mode's
    s.input.model = sessionModelPath(m->modelPtr()->info()).toStdString();
  s.spec = m->spec();
  s.view.head = m->currentHead();
  s.view.layer = m->currentLayer();
  s.view.pinnedRow = m->pinnedRow();
  s.view.quantity = window_->heatmapPanel()->quantityKey().toStdString();
  s.view.colormap = window_->heatmapPanel()->colormapSelector()->currentData().toString().toStdString();
  return s;
}

void SessionController::apply(const attn::Session& s) {
  ExplorerModel* m = window_->model();
  window_->inputPanel()->keyEdit()->setText(QString::fromStdString(s.input.keyText));
  window_->inputPanel()->setQueryText(QString::fromStdString(s.input.text));
  window_->configPanel()->setSpec(s.spec);
  window_->heatmapPanel()->setQuantityKey(QString::fromStdString(s.view.quantity));
  window_->heatmapPanel()->setColormapName(QString::fromStdString(s.view.colormap));
  if (!s.input.file.empty()) window_->openFile(QString::fromStdString(s.input.file));  // read on a worker
  const bool model = !s.input.model.empty();
  if (model)
    window_->openFile(QString::fromStdString(s.input.model));  // loaded on a worker
  else
    m->clearModel();
  // Layer, head and pinned row refer to the result, so they wait for it (a model's
  // first run when the session has one; a model that fails to open leaves them).
  const int head = s.view.head, row = s.view.pinnedRow, layer = s.view.layer;
  auto* once = new QMetaObject::Connection;
  *once = connect(m, &ExplorerModel::resultChanged, this, [m, head, row, layer, model, once] {
    if (model && !m->modelRun()) return;  // the text mode's result while the model loads
    QObject::disconnect(*once);
    delete once;
    m->setCurrentLayer(layer);
    m->setCurrentHead(head);
    m->setPinnedRow(row);
  });
}

bool SessionController::openPath(const QString& path) {
  auto s = attn::loadSession(path.toStdString());
  if (!s) {
    emit message(tr("Could not open the session: %1").arg(QString::fromStdString(s.error().message)));
    return false;
  }
  if (!s->input.file.empty())  // relative to the session's folder, as attnscope-cli reads it
    s->input.file = QFileInfo(QFileInfo(path).dir(), QString::fromStdString(s->input.file)).absoluteFilePath().toStdString();
  // (A name in Ollama's store is no path.)
  if (!s->input.model.empty() && !s->input.model.starts_with("ollama:"))
    s->input.model = QFileInfo(QFileInfo(path).dir(), QString::fromStdString(s->input.model)).absoluteFilePath().toStdString();
  apply(*s);
  path_ = path;
  remember(path);
  window_->setWindowFilePath(path);
  emit message(tr("Opened %1").arg(QFileInfo(path).fileName()));
  return true;
}

bool SessionController::savePath(const QString& path) {
  auto st = attn::saveSession(path.toStdString(), capture());
  if (!st) {
    emit message(tr("Could not save the session: %1").arg(QString::fromStdString(st.error().message)));
    return false;
  }
  path_ = path;
  remember(path);
  window_->setWindowFilePath(path);
  emit message(tr("Saved %1").arg(QFileInfo(path).fileName()));
  return true;
}

void SessionController::openDialog() {
  const QString path =
      openFileRemembered(window_, tr("Open Session"), "paths/lastFolder", tr("AttnScope session (*.json)"));
  if (!path.isEmpty()) openPath(path);
}

void SessionController::save() {
  if (path_.isEmpty())
    saveAs();
  else
    savePath(path_);
}

void SessionController::saveAs() {
  QSettings settings;
  QString path = QFileDialog::getSaveFileName(window_, tr("Save Session"),
                                              settings.value("paths/lastFolder").toString() + "/session.json",
                                              tr("AttnScope session (*.json)"));
  if (path.isEmpty()) return;
  if (QFileInfo(path).suffix().isEmpty()) {
    path += ".json";
    // The file dialog asked only about the name as typed, not the one written.
    if (QFileInfo::exists(path) &&
        QMessageBox::question(window_, tr("Replace file?"), tr("%1 already exists. Replace it?").arg(path),
                              QMessageBox::Yes | QMessageBox::No, QMessageBox::No) != QMessageBox::Yes)
      return;
  }
  settings.setValue("paths/lastFolder", QFileInfo(path).absolutePath());
  savePath(path);
}

void SessionController::remember(const QString& path) {
  QSettings settings;
  QStringList list = settings.value("recent/sessions").toStringList();
  const QString abs = QFileInfo(path).absoluteFilePath();
  list.removeAll(abs);
  list.prepend(abs);
  while (list.size() > kMaxRecent) list.removeLast();
  settings.setValue("recent/sessions", list);
  refreshRecent();
}

void SessionController::refreshRecent() {
  recent_->clear();
  const QStringList list = QSettings().value("recent/sessions").toStringList();
  for (const QString& p : list) {
    auto* a = recent_->addAction(QFileInfo(p).fileName(), this, [this, p] { openPath(p); });
    a->setToolTip(p);
  }
  if (list.isEmpty()) recent_->addAction(tr("(none)"))->setEnabled(false);
}

}  // namespace attn::ui
