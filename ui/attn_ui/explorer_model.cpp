#include "attn_ui/explorer_model.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QtConcurrent/QtConcurrentRun>

#include "attn/tokenizer.h"

namespace attn::ui {

struct ExplorerModel::Job {
  quint64 generation = 0;
  std::string text;
  attn::AttentionSpec spec;
  std::shared_ptr<attn::AttentionResult> result;
  QString error;
  double ms = 0.0;
};

ExplorerModel::ExplorerModel(QObject* parent) : QObject(parent) {}

// Worker lambdas own their job (not `this`), so a pending job may outlive the model.
ExplorerModel::~ExplorerModel() = default;

void ExplorerModel::setText(const QString& text) {
  if (text == text_) return;
  text_ = text;
  recompute();
}

void ExplorerModel::setSpec(const attn::AttentionSpec& spec) {
  spec_ = spec;
  recompute();
}

void ExplorerModel::setCausal(bool causal) {
  spec_.mask = causal ? attn::Mask::causal() : attn::Mask();
  recompute();
}

void ExplorerModel::setCurrentHead(int head) {
  if (!result_ || head < 0 || head >= result_->numHeads() || head == currentHead_) return;
  currentHead_ = head;
  emit currentHeadChanged(head);
  emit resultChanged();
}

attn::Mat ExplorerModel::currentWeights() const {
  if (!result_) return {};
  return result_->heads[static_cast<size_t>(currentHead_)].weights;
}

static QStringList toQStrings(const std::vector<std::string>& v) {
  QStringList out;
  out.reserve(static_cast<qsizetype>(v.size()));
  for (const auto& s : v) out << QString::fromStdString(s);
  return out;
}

QStringList ExplorerModel::queryLabels() const {
  return result_ ? toQStrings(result_->queryTokens) : QStringList{};
}

QStringList ExplorerModel::keyLabels() const {
  return result_ ? toQStrings(result_->keyTokens) : QStringList{};
}

void ExplorerModel::runJob(const std::shared_ptr<Job>& job) {
    QElapsedTimer timer;
    timer.start();
    auto tokens = attn::tokenizeWords(job->text);
    if (tokens.empty()) {
      job->error = QObject::tr("The text has no tokens; type a sentence.");
      return;
    }
    auto input = attn::inputFromTokens(std::move(tokens), job->spec.dModel, job->spec.seed);
    auto res = attn::runAttention(input, job->spec);
    if (!res) {
      job->error = QString::fromStdString(res.error().message);
      return;
    }
    job->result = std::make_shared<attn::AttentionResult>(std::move(res).value());
    job->ms = static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

void ExplorerModel::recompute() {
  auto job = std::make_shared<Job>();
  job->generation = ++generation_;
  job->text = text_.toStdString();
  job->spec = spec_;
  if (pending_++ == 0) emit busyChanged(true);
  auto* watcher = new QFutureWatcher<void>(this);
  connect(watcher, &QFutureWatcher<void>::finished, this, [this, watcher, job] {
    watcher->deleteLater();
    deliver(job);
  });
  watcher->setFuture(QtConcurrent::run([job] { runJob(job); }));
}

void ExplorerModel::deliver(const std::shared_ptr<Job>& job) {
  if (--pending_ == 0) emit busyChanged(false);
  if (job->generation != generation_) return;  // a newer request supersedes this one
  if (!job->error.isEmpty()) {
    emit errorOccurred(job->error);  // the previous result stays on screen
    return;
  }
  result_ = job->result;
  lastMs_ = job->ms;
  if (currentHead_ >= result_->numHeads()) {
    currentHead_ = 0;
    emit currentHeadChanged(0);
  }
  emit resultChanged();
}

void ExplorerModel::waitForIdle() {
  while (pending_ > 0) QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
}

}  // namespace attn::ui
