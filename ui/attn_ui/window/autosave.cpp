#include "attn_ui/window/autosave.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

#include "attn/io/atomic_file.h"

namespace attn::ui {

Autosave::Autosave(Capture capture, QString file, int intervalMs, QObject* parent)
    : QObject(parent), capture_(std::move(capture)), file_(std::move(file)) {
  timer_.setInterval(intervalMs);
  connect(&timer_, &QTimer::timeout, this, [this] {
    if (auto st = saveNow(); !st) emit saveFailed(QString::fromStdString(st.error().message));
  });
}

QString Autosave::defaultFile() {
  QString dir = qEnvironmentVariable("ATTNSCOPE_AUTOSAVE_DIR");
  if (dir.isEmpty()) dir = QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation);
  return QDir(dir).filePath(QStringLiteral("autosave.json"));
}

int Autosave::defaultIntervalMs() {
  bool ok = false;
  const int ms = qEnvironmentVariableIntValue("ATTNSCOPE_AUTOSAVE_MS", &ok);
  return ok && ms > 0 ? ms : 30000;
}

Result<attn::Session> Autosave::recoverable(const QString& file) {
  if (!QFileInfo::exists(file)) return Error{file.toStdString() + ": no autosaved session"};
  return attn::loadSession(file.toStdString());
}

void Autosave::start() {
  QDir().mkpath(QFileInfo(file_).absolutePath());
  timer_.start();
}

Status Autosave::saveNow() {
  std::string json = attn::sessionToJson(capture_());
  if (json == lastSaved_) return okStatus();
  if (auto st = attn::writeFileAtomic(file_.toStdString(), json); !st) return st;
  lastSaved_ = std::move(json);
  ++writes_;
  return okStatus();
}

void Autosave::finish() {
  timer_.stop();
  QFile::remove(file_);
  lastSaved_.clear();
}

}  // namespace attn::ui
