#pragma once
// File > Open Model Folder…, Open Model File… (GGUF), Open Ollama Model…, File >
// Recent Models, a model folder or .gguf file dropped on the window or named on
// the command line (also ollama:NAME[:TAG]). attn::models::Model::open
// runs on a worker with a progress bar and a Cancel button in the status bar;
// the opened model goes to the view-model (ExplorerModel::setModel), an encoder-decoder
// one to the Translation dock (seq2seqOpened). A folder
// that cannot be opened shows the core's one-line message (it names the file
// and the fault) in the window's error banner and changes nothing else.
#include <QObject>
#include <QStringList>
#include <memory>

class QAction;
class QMenu;
class QProgressBar;
class QToolButton;

namespace attn::models {
class Seq2SeqModel;
}

namespace attn::ui {

class MainWindow;
class RecentPathsMenu;
class JobControl;
class NewestJob;
class StatusProgress;

class ModelOpenController : public QObject {
  Q_OBJECT
 public:
  /// Adds the Open Model entries and Recent Models to the window's File menu (after
  /// Recent Files) and the loading progress to its status bar.
  explicit ModelOpenController(MainWindow* window);
  ~ModelOpenController() override;

  /// A folder attn::models::isModelFolder accepts (config.json, or a Hugging Face cache
  /// layout), a .gguf file, or an Ollama name "ollama:NAME[:TAG]".
  static bool canOpen(const QString& path);
  /// What open() should be given rather than the file opener: a folder, a *.gguf path or an
  /// ollama: name, openable or not (open() then says what is wrong with it).
  static bool isModelPath(const QString& path);
  /// The short name shown while loading and in messages: a folder's or file's name, or NAME:TAG.
  static QString displayName(const QString& path);
  /// Starts opening the model folder, GGUF file or ollama: name `path`; opened() or failed()
  /// follows. A newer open() supersedes one still loading.
  void open(const QString& path);
  /// Stops the load in progress; the view stays as it was.
  void cancel();
  bool busy() const;
  /// Blocks until the load in progress has been delivered (tests).
  void waitForIdle();

  /// Most recent first, absolute paths, at most kMaxRecent.
  static QStringList recentModels();
  static constexpr int kMaxRecent = 10;
  QAction* openAction() const { return open_; }
  QAction* openFileAction() const { return openFile_; }
  QAction* openOllamaAction() const { return openOllama_; }
  QMenu* recentMenu() const;
  /// Opens a Recent Models entry; one that no longer exists is dropped from the list with a message.
  void openRecent(const QString& path);
  QProgressBar* progressBar() const;
  QToolButton* cancelButton() const;

 signals:
  void opened(const QString& path);
  /// An encoder-decoder folder (Marian, BART, mBART, T5) opened: it goes to the Translation dock.
  void seq2seqOpened(std::shared_ptr<const attn::models::Seq2SeqModel> model);
  void failed(const QString& message);
  void cancelled(const QString& path);

 private:
  struct Job;
  void openDialog();
  void openFileDialog();
  void openOllamaDialog();
  static void load(Job& job, JobControl& control);  // on a worker thread
  void deliver(const std::shared_ptr<Job>& job);

  MainWindow* window_;
  QAction* open_;
  QAction* openFile_;
  QAction* openOllama_;
  RecentPathsMenu* recent_;
  StatusProgress* status_;
  std::unique_ptr<NewestJob> job_;  // the load in progress
  QString loadingPath_;             // its folder, file or ollama: name
};

}  // namespace attn::ui
