#pragma once
// Per-head interventions on the loaded model: the list of what is
// active (ablate, uniform, temperature, mask per head), undo/redo of every
// change, and the intervened forward pass on a worker (progress bar and Cancel
// in the status bar; a newer change supersedes a pass still running, as
// ModelOpenController does). The intervened run is shown in place of the
// model's own (ExplorerModel::setIntervenedRun), so every later layer's maps
// change in every view; the original run and attn::models::compareRuns of the
// two are kept for the "what changed" views. A new text or pin re-runs;
// another model clears the list.
#include <QObject>
#include <QString>
#include <memory>
#include <vector>

#include "attn/models/experiments/head_experiments.h"
#include "attn/models/experiments/interventions.h"

class QAction;
class QProgressBar;

namespace attn::ui {

class ExplorerModel;
class JobControl;
class NewestJob;
class StatusProgress;
class MainWindow;

class InterventionsController : public QObject {
  Q_OBJECT
 public:
  /// Without a window (tests): no status-bar progress.
  explicit InterventionsController(ExplorerModel* model, MainWindow* window = nullptr);
  ~InterventionsController() override;

  using Intervention = attn::models::HeadIntervention;
  /// Adds `iv` (0-based layer and head): checked against the model (layer and head exist,
  /// temperature > 0, the mask term parses with the core mask grammar). One of the same
  /// kind on the same head is replaced. On a fault nothing changes and false is returned
  /// with one line in `error`, or, when `error` is null, in message().
  bool add(const Intervention& iv, QString* error = nullptr);
  /// Removes entry `index` of active().
  void remove(int index);
  void clear();
  void undo();
  void redo();
  bool canUndo() const { return !undo_.empty(); }
  bool canRedo() const { return !redo_.empty(); }

  const std::vector<Intervention>& active() const { return active_; }
  /// The entries on head (layer, head), 0-based.
  std::vector<Intervention> on(int layer, int head) const;
  bool busy() const;
  /// Stops the pass in progress; the list goes back to what is shown.
  void cancel();
  /// Blocks until the pass in progress has been delivered (tests).
  void waitForIdle();

  /// The model's own run (full logits kept for causal models) and the intervened one
  /// (null while the list is empty), of the shown text.
  std::shared_ptr<const attn::models::ModelRun> originalRun() const { return original_; }
  std::shared_ptr<const attn::models::ModelRun> intervenedRun() const { return intervened_; }
  /// compareRuns(original, intervened) at the pinned position (last token when none);
  /// null while the list is empty.
  const attn::models::RunComparison* comparison() const { return comparison_.get(); }
  /// Why there is no comparison although the intervened run is shown (a long text's logits).
  const QString& comparisonError() const { return comparisonError_; }

  QAction* undoAction() const { return undoAction_; }
  QAction* redoAction() const { return redoAction_; }
  QAction* clearAction() const { return clearAction_; }
  QProgressBar* progressBar() const;

 signals:
  /// The list changed (before its run is delivered).
  void activeChanged();
  /// A run (or its comparison) was delivered, or the list emptied.
  void resultChanged();
  /// One line for the user: a refused intervention or a failed run.
  void message(const QString& text);

 private:
  struct Job;
  void setActive(std::vector<Intervention> list, bool record);
  void launch();
  static void runPasses(Job& job, JobControl& control);  // on a worker thread
  void deliver(const std::shared_ptr<Job>& job);
  void followModelRun();
  void endProgress();
  void refreshActions();

  ExplorerModel* model_;
  MainWindow* window_;
  std::vector<Intervention> active_;
  std::vector<Intervention> shown_;  // the list whose run is shown
  std::vector<std::vector<Intervention>> undo_, redo_;
  std::shared_ptr<const attn::models::ModelRun> base_;  // ExplorerModel's own run the others are of
  std::shared_ptr<const attn::models::ModelRun> original_, intervened_;
  std::shared_ptr<const attn::models::RunComparison> comparison_;
  QString comparisonError_;
  QAction *undoAction_, *redoAction_, *clearAction_;
  StatusProgress* status_ = nullptr;  // in the window's status bar (none without a window)
  std::unique_ptr<NewestJob> job_;    // the intervened run in progress
};

/// "L3 H2: ablated", "L1 H4: temperature 2", "L2 H1: mask window:2" (1-based).
QString interventionText(const attn::models::HeadIntervention& iv);
/// "ablated", "temperature 2", ... without the head.
QString interventionKindText(const attn::models::HeadIntervention& iv);

}  // namespace attn::ui
