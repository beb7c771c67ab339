#pragma once
// Experiments > Compute Head Importance: attn::models::headImportance (every
// head alone ablated, then the pruning curve) on the shown text, on a worker
// with progress and Cancel; a newer request supersedes one still running.
#include <QObject>
#include <QStringList>
#include <memory>
#include <string>

#include "attn/models/experiments/head_experiments.h"

class QAction;

namespace attn::ui {

class ExplorerModel;
class NewestJob;

class ImportanceController : public QObject {
  Q_OBJECT
 public:
  explicit ImportanceController(ExplorerModel* model, QObject* parent = nullptr);
  ~ImportanceController() override;

  /// Starts on the model's own run of the shown text; false (with message()) without one.
  bool compute();
  void cancel();
  bool busy() const;
  /// Blocks until the computation in progress has been delivered (tests).
  void waitForIdle();
  /// Progress of the computation in progress, 0..1, and its stage.
  double progress(QString* stage = nullptr) const;

  /// The newest result (null before the first), and the tokens it was computed on.
  std::shared_ptr<const attn::models::HeadImportance> result() const { return result_; }
  const QStringList& resultTokens() const { return tokens_; }
  /// True when the shown text is no longer the one the result is of.
  bool stale() const;
  QAction* computeAction() const { return compute_; }

 signals:
  void started();
  void finished();  // a result, a failure or a cancel
  void message(const QString& text);

 private:
  struct Job;
  void deliver(const std::shared_ptr<Job>& job);

  ExplorerModel* model_;
  QAction* compute_;
  std::unique_ptr<NewestJob> job_;  // the computation in progress
  std::shared_ptr<const attn::models::HeadImportance> result_;
  std::vector<int> ids_;  // the encoding the result is of
  QStringList tokens_;
};

/// layer,head,importance (1-based), as attnscope-cli importance --csv writes it.
std::string importanceCsv(const attn::models::HeadImportance& imp);
/// fraction_removed,heads_removed,value, as attnscope-cli importance --curve writes it.
std::string pruningCurveCsv(const attn::models::HeadImportance& imp);

}  // namespace attn::ui
