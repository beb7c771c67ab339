#pragma once
// The explorer's view-model: holds the input text and configuration, runs the
// engine on a worker thread, drops stale results, and publishes the newest.
#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QObject>
#include <QStringList>
#include <memory>

#include "attn/engine.h"

namespace attn::ui {

class ExplorerModel : public QObject {
  Q_OBJECT
 public:
  explicit ExplorerModel(QObject* parent = nullptr);
  ~ExplorerModel() override;

  void setText(const QString& text);
  void setSpec(const attn::AttentionSpec& spec);
  void setCausal(bool causal);
  void setCurrentHead(int head);

  const QString& text() const { return text_; }
  const attn::AttentionSpec& spec() const { return spec_; }
  int currentHead() const { return currentHead_; }
  bool hasResult() const { return result_ != nullptr; }
  const attn::AttentionResult& result() const { return *result_; }
  /// Weights of the current head (empty when there is no result).
  attn::Mat currentWeights() const;
  QStringList queryLabels() const;
  QStringList keyLabels() const;
  double lastComputeMs() const { return lastMs_; }
  bool busy() const { return pending_ > 0; }

  /// Starts a recomputation now (changes call it themselves).
  void recompute();
  /// Blocks until the newest computation has been delivered (tests, CLI).
  void waitForIdle();

 signals:
  void resultChanged();
  void currentHeadChanged(int head);
  void errorOccurred(const QString& message);
  void busyChanged(bool busy);

 private:
  struct Job;
  static void runJob(const std::shared_ptr<Job>& job);  // on a worker thread
  void deliver(const std::shared_ptr<Job>& job);

  QString text_;
  attn::AttentionSpec spec_;
  int currentHead_ = 0;
  std::shared_ptr<const attn::AttentionResult> result_;
  quint64 generation_ = 0;  // id of the newest request; older results are dropped
  int pending_ = 0;
  double lastMs_ = 0.0;
};

}  // namespace attn::ui
