#pragma once
// Crash safety for the GUI: while the session changes, it is written
// (atomically, core's writeFileAtomic) to an autosave file every few seconds;
// a clean exit removes that file, so finding it at start-up means the last run
// did not exit cleanly and the window offers to restore it.
// One autosave file per user (the app's local data folder); two windows open
// at once share it and the last one to save wins.
#include <QObject>
#include <QString>
#include <QTimer>
#include <functional>
#include <string>

#include "attn/io/session.h"
#include "attn/status.h"

namespace attn::ui {

class Autosave : public QObject {
  Q_OBJECT
 public:
  using Capture = std::function<attn::Session()>;

  Autosave(Capture capture, QString file, int intervalMs, QObject* parent = nullptr);

  /// $ATTNSCOPE_AUTOSAVE_DIR/autosave.json, else <local app data>/autosave.json.
  static QString defaultFile();
  /// $ATTNSCOPE_AUTOSAVE_MS when set (tests), else 30 seconds.
  static int defaultIntervalMs();
  /// The session an unclean exit left in `file`; an error when there is none
  /// or it cannot be read (a damaged autosave is never applied).
  static Result<attn::Session> recoverable(const QString& file);

  void start();
  /// Writes the session when it changed since the last write.
  Status saveNow();
  /// Clean exit: stops the timer and removes the autosave file.
  void finish();

  const QString& file() const { return file_; }
  int writes() const { return writes_; }

 signals:
  void saveFailed(const QString& message);

 private:
  Capture capture_;
  QString file_;
  QTimer timer_;
  std::string lastSaved_;
  int writes_ = 0;
};

}  // namespace attn::ui
