#pragma once
// File > Open (Ctrl+O), drag and drop, and File > Recent Files for the files
// researchers bring: tensors (.npz .npy .safetensors .csv, read by
// attn::loadInputFile), text (.txt) and sessions (.json). Files are read on a
// worker thread. A file that cannot be opened shows the core's one-line error
// (it names the file and the fault) in the window and changes nothing else:
// input, configuration, result and the recent list stay as they were.
#include <QObject>
#include <QStringList>
#include <memory>

class QAction;
class QMenu;

namespace attn::ui {

class NewestJob;
class RecentPathsMenu;

class MainWindow;

class FileOpenController : public QObject {
  Q_OBJECT
 public:
  /// Adds Open… and Recent Files at the top of the window's File menu.
  explicit FileOpenController(MainWindow* window);
  ~FileOpenController() override;

  /// The extensions open() takes: .npz .npy .safetensors .csv .txt .json.
  static bool canOpen(const QString& path);
  /// Starts opening `path`; opened() or failed() follows (failed() at once
  /// for an unknown type). A newer open() supersedes one still reading.
  void open(const QString& path);
  bool busy() const;
  /// Blocks until every read has been delivered (tests).
  void waitForIdle();

  /// Most recent first, absolute paths, at most kMaxRecent.
  static QStringList recentFiles();
  static constexpr int kMaxRecent = 10;
  QMenu* recentMenu() const;
  QAction* openAction() const { return open_; }
  /// Opens a Recent Files entry; a file that no longer exists is removed from
  /// the list with a message.
  void openRecent(const QString& path);

 signals:
  void opened(const QString& path);
  void failed(const QString& message);

 private:
  struct Job;
  void openDialog();
  static void readFile(Job& job);  // on a worker thread
  void deliver(const std::shared_ptr<Job>& job);
  void applyData(const Job& job);
  void fail(const QString& message);

  MainWindow* window_;
  QAction* open_;
  RecentPathsMenu* recent_;
  std::unique_ptr<NewestJob> reads_;  // newest request wins; older reads are dropped
};

}  // namespace attn::ui
