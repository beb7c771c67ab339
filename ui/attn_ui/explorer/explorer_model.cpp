#include "attn_ui/explorer/explorer_model.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <algorithm>
#include <cmath>
#include <new>

#include "attn/models/device/device_run.h"
#include "attn/models/model.h"
#include "attn/tokenizers/tokenizer.h"
#include "attn/vision/image_pixels.h"
#include "attn_ui/common/background_job.h"
#include "attn_ui/common/core_text.h"
#include "attn_ui/explorer/explorer_model_job.h"
#include "attn_ui/explorer/model_run_view.h"
#include "attn_ui/pretrained/model_spec.h"

namespace attn::ui {

struct ExplorerModel::InputCache {
  std::string text, keyText;
  int dModel = 0;
  uint64_t seed = 0;
  std::shared_ptr<const attn::AttentionInput> input;
  bool matches(const std::string& t, const std::string& k, const attn::AttentionSpec& s) const {
    return t == text && k == keyText && s.dModel == dModel && s.seed == seed;
  }
};

QString modelRunStage(double fraction, int layers) {
  const int layer = std::clamp(static_cast<int>(std::lround(fraction * (layers + 1))), 0, layers);
  if (layer >= layers) return QObject::tr("Running the model: next-token predictions");
  return QObject::tr("Running the model: layer %1 of %2").arg(layer + 1).arg(layers);
}

ExplorerModel::ExplorerModel(QObject* parent) : QObject(parent) {
  coalesce_.setSingleShot(true);
  coalesce_.setInterval(8);
  connect(&coalesce_, &QTimer::timeout, this, &ExplorerModel::launch);
}

// Worker lambdas own their job (not `this`), so a running job may outlive the model.
ExplorerModel::~ExplorerModel() = default;

void ExplorerModel::setText(const QString& text) {
  if (text == text_ && !file_) return;
  text_ = text;
  givenEncoding_.reset();
  file_.reset();
  loadedSource_.clear();
  currentLayer_ = 0;
  emit inputChanged();
  recompute();
}

void ExplorerModel::setKeyText(const QString& text) {
  if (text == keyText_) return;
  keyText_ = text;
  emit inputChanged();
  // A model reads the key text only as BERT's second segment.
  if (model_ ? model_->info().family == attn::models::Family::Bert : !file_) recompute();
}

void ExplorerModel::setLoadedInput(std::shared_ptr<const attn::AttentionInput> input,
                                   const QString& source) {
  auto file = std::make_shared<attn::LoadedInput>();
  if (input) file->input = *input;
  file->path = source.toStdString();
  setLoadedFile(std::move(file));
}

void ExplorerModel::setLoadedFile(std::shared_ptr<const attn::LoadedInput> file) {
  givenEncoding_.reset();
  if (model_) {  // a file replaces the model as the input
    model_.reset();
    run_.reset();
    backendNote_.clear();
    runLayers_.reset();
    emit modelChanged();
    ownRun_.reset();
    ownRunLayers_.reset();
  }
  file_ = std::move(file);
  loadedSource_ = file_ ? QString::fromStdString(file_->path) : QString();
  currentLayer_ = 0;
  emit currentLayerChanged(0);
  emit inputChanged();
  recompute();
}

void ExplorerModel::clearLoadedInput() {
  if (!file_) return;
  file_.reset();
  loadedSource_.clear();
  currentLayer_ = 0;
  emit currentLayerChanged(0);
  emit inputChanged();
  recompute();
}

void ExplorerModel::setModel(std::shared_ptr<const attn::models::Model> model) {
  if (!model) return clearModel();
  if (model == model_) return;
  model_ = std::move(model);
  givenEncoding_.reset();
  run_.reset();
  backendNote_.clear();
  runLayers_.reset();
  ownRun_.reset();
  ownRunLayers_.reset();
  file_.reset();
  loadedSource_.clear();
  currentLayer_ = 0;
  emit currentLayerChanged(0);
  emit modelChanged();
  emit inputChanged();
  recompute();
}

void ExplorerModel::clearModel() {
  if (!model_) return;
  model_.reset();
  givenEncoding_.reset();
  run_.reset();
  backendNote_.clear();
  runLayers_.reset();
  ownRun_.reset();
  ownRunLayers_.reset();
  currentLayer_ = 0;
  emit currentLayerChanged(0);
  emit modelChanged();
  emit inputChanged();
  recompute();
}

void ExplorerModel::setModelEncoding(std::shared_ptr<const attn::models::Encoding> encoding,
                                     const QString& text) {
  if (!model_ || !encoding || hasVisionModel()) return;
  givenEncoding_ = std::move(encoding);
  text_ = text;
  file_.reset();
  loadedSource_.clear();
  currentLayer_ = 0;
  emit inputChanged();
  recompute();
}

void ExplorerModel::setModelImage(std::shared_ptr<const attn::vision::ImagePixels> image,
                                  const QString& source) {
  image_ = std::move(image);
  imageSource_ = source;
  if (!hasVisionModel()) return;
  emit inputChanged();
  recompute();
}

bool ExplorerModel::hasVisionModel() const { return model_ && model_->info().vision; }

bool ExplorerModel::showsLayers() const { return model_ ? run_ != nullptr : showsPrecomputed(); }

std::shared_ptr<const attn::PrecomputedAttention> ExplorerModel::layeredAttention() const {
  if (model_) return runLayers_;
  if (!showsPrecomputed()) return nullptr;
  return {file_, &file_->attention};  // shares the file's ownership: no copy
}

std::vector<std::string> ExplorerModel::layerTokens() const {
  if (model_) return run_ ? run_->encoding.tokens : std::vector<std::string>{};
  if (!showsPrecomputed()) return {};
  std::vector<std::string> tokens = file_->input.keyTokens.empty() ? file_->input.queryTokens : file_->input.keyTokens;
  if (tokens.empty())
    for (int j = 0; j < file_->attention.nk(); ++j) tokens.push_back(std::to_string(j));
  return tokens;
}

const attn::AttentionInput* ExplorerModel::loadedInput() const {
  return file_ && file_->hasEngineInput() ? &file_->input : nullptr;
}

void ExplorerModel::setPrecomputedPreferred(bool preferred) {
  if (preferred == preferPrecomputed_) return;
  preferPrecomputed_ = preferred;
  if (file_ && file_->hasAttention() && file_->hasEngineInput()) {
    emit inputChanged();
    recompute();
  }
}

bool ExplorerModel::showsPrecomputed() const {
  return file_ && file_->hasAttention() && (preferPrecomputed_ || !file_->hasEngineInput());
}

bool ExplorerModel::isStreamed() const { return model_ && run_ && run_->qk && streamedResults_; }

std::shared_ptr<const attn::models::QkStore> ExplorerModel::streamedStore() const {
  return isStreamed() ? run_->qk : nullptr;
}

int ExplorerModel::numLayers() const {
  if (isStreamed()) return static_cast<int>(streamedResults_->size());
  if (model_) return run_ ? static_cast<int>(run_->layers.size()) : 0;
  return showsPrecomputed() ? file_->attention.numLayers() : 0;
}

void ExplorerModel::setCurrentLayer(int layer) {
  if (layer < 0 || layer >= numLayers() || layer == currentLayer_) return;
  currentLayer_ = layer;
  emit currentLayerChanged(layer);
  if (model_)
    showModelLayer();  // every layer is in the run already
  else
    recompute();
}

void ExplorerModel::showModelLayer() {
  if (isStreamed() && !streamedResults_->empty()) {
    currentLayer_ = std::clamp(currentLayer_, 0, static_cast<int>(streamedResults_->size()) - 1);
    result_ = std::shared_ptr<const attn::AttentionResult>(
        streamedResults_, &(*streamedResults_)[static_cast<size_t>(currentLayer_)]);
    if (currentHead_ >= result_->numHeads()) {
      currentHead_ = 0;
      emit currentHeadChanged(0);
    }
    emit resultChanged();
    return;
  }
  if (!run_ || run_->layers.empty()) return;
  currentLayer_ = std::clamp(currentLayer_, 0, static_cast<int>(run_->layers.size()) - 1);
  // Shares the run's ownership: the layer lives as long as the run.
  result_ = std::shared_ptr<const attn::AttentionResult>(run_, &run_->layers[static_cast<size_t>(currentLayer_)]);
  if (currentHead_ >= result_->numHeads()) {
    currentHead_ = 0;
    emit currentHeadChanged(0);
  }
  emit resultChanged();
}

void ExplorerModel::setCurrentLayerHead(int layer, int head) {
  const auto layered = layeredAttention();
  const int heads = isStreamed() && !streamedResults_->empty() ? streamedResults_->front().numHeads()
                    : layered                                  ? layered->numHeads()
                                                               : 0;
  if (showsLayers() && head >= 0 && head < heads && head != currentHead_) {
    currentHead_ = head;  // every layer has the same heads: valid before the layer's result arrives
    emit currentHeadChanged(head);
    if (layer == currentLayer_) emit resultChanged();
  }
  setCurrentLayer(layer);
}

void ExplorerModel::reportError(const QString& message) {
  lastError_ = message;
  emit errorOccurred(message);
}

void ExplorerModel::setSpec(const attn::AttentionSpec& spec) {
  // A model's attention is fixed (the spec waits for clearModel()), but not where its forward runs.
  const bool forwardMoves =
      model_ && (spec.backend != spec_.backend || spec.deviceInputs != spec_.deviceInputs);
  spec_ = spec;
  emit specChanged();
  if (!model_ || forwardMoves) recompute();
}

void ExplorerModel::setCausal(bool causal) {
  auto s = spec_;
  s.mask = causal ? attn::Mask::causal() : attn::Mask();
  setSpec(s);
}

void ExplorerModel::setTemperature(float t) {
  auto s = spec_;
  s.temperature = t;
  setSpec(s);
}

void ExplorerModel::setCurrentHead(int head) {
  if (!result_ || head < 0 || head >= result_->numHeads() || head == currentHead_) return;
  currentHead_ = head;
  emit currentHeadChanged(head);
  emit resultChanged();
}

void ExplorerModel::setPinnedRow(int row) {
  if (result_ && row >= result_->nq()) row = -1;
  if (row < -1) row = -1;
  if (row == pinnedRow_) return;
  pinnedRow_ = row;
  emit pinnedRowChanged(row);
}

void ExplorerModel::setMetricsOnlyAllowed(bool allowed) {
  if (allowed == metricsOnly_) return;
  metricsOnly_ = allowed;
  recompute();
}

bool ExplorerModel::isMetricsOnly() const {
  return result_ && !result_->heads.empty() && result_->heads.front().weights.size() == 0;
}

attn::Mat ExplorerModel::currentWeights() const {
  const auto* h = currentHeadResult();
  return h ? h->weights : attn::Mat();
}

const attn::HeadResult* ExplorerModel::currentHeadResult() const {
  if (!result_ || result_->heads.empty()) return nullptr;
  return &result_->heads[static_cast<size_t>(currentHead_)];
}

static QStringList toQStrings(const std::vector<std::string>& v) {
  QStringList out;
  out.reserve(static_cast<qsizetype>(v.size()));
  for (const auto& s : v) out << QString::fromStdString(s);
  return out;
}

QStringList ExplorerModel::queryLabels() const {
  if (model_ && run_) return runLabels_;
  return result_ ? toQStrings(result_->queryTokens) : QStringList{};
}

QStringList ExplorerModel::keyLabels() const {
  if (model_ && run_) return runLabels_;
  return result_ ? toQStrings(result_->keyTokens) : QStringList{};
}

namespace {
// Why N x N is not materialized: the engine keeps five N x N float matrices per head.
QString tooLongMessage(long long nq, long long nk, int heads, int limit) {
  const double gb = 5.0 * 4.0 * static_cast<double>(nq) * static_cast<double>(nk) * std::max(1, heads) / 1e9;
  return QObject::tr("%1 x %2 tokens: the full N x N attention would need about %3 GB "
                     "(limit: %4 tokens, View > Sequence Limit). The metrics-only view computes entropy "
                     "without it, up to %5 tokens.")
      .arg(nq).arg(nk).arg(gb, 0, 'f', 1).arg(limit).arg(4LL * limit);
}
}  // namespace

void ExplorerModel::runJob(const std::shared_ptr<Job>& job, JobControl& control) {
  if (job->model) return runModelJob(*job, control);
  QElapsedTimer timer;
  timer.start();
  if (job->precomputed) {  // weights from the file, viewed as they are
    const auto& f = *job->file;
    // The configured mask did not make these weights; the file's own mask (if any) did.
    job->spec.mask = f.maskKeep.empty() ? attn::Mask() : attn::Mask::custom(f.maskKeep, f.maskRows, f.maskCols);
    if (!f.attention.inputs
             .empty()) {  // the heads' q/k/v came along: the step-through walks how they were scored
      job->spec.mechanism = f.attention.scaledScores ? attn::Mechanism::ScaledDot : attn::Mechanism::Dot;
      job->spec.temperature = 1.0f;
    }
    job->result = std::make_shared<attn::AttentionResult>(attn::resultFromPrecomputed(
        job->file->attention, job->layer, job->file->input.queryTokens, job->file->input.keyTokens));
    job->ms = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    return;
  }
  const attn::AttentionInput* input = job->file ? &job->file->input : nullptr;
  if (input) {
    // The configuration follows the file's sizes (heads from q, d_model from x, ...).
    if (auto st = attn::fitSpecToInput(*input, job->spec); !st) {
      job->error = uiMessage(job->file->path + ": " + st.error().message);
      return;
    }
    if (!job->file->maskKeep.empty() && job->spec.mask.needsCustomData())
      job->spec.mask =
          job->spec.mask.withCustom(job->file->maskKeep, job->file->maskRows, job->file->maskCols);
  }
  if (!input && job->cache && job->cache->matches(job->text, job->keyText, job->spec))
    input = job->cache->input.get();
  if (!input) {
    auto tokens = attn::tokenizeWords(job->text);
    if (tokens.empty()) {
      job->cache.reset();
      job->error = QObject::tr("The text has no tokens; type a sentence.");
      return;
    }
    auto cache = std::make_shared<InputCache>();
    cache->text = job->text;
    cache->keyText = job->keyText;
    cache->dModel = job->spec.dModel;
    cache->seed = job->spec.seed;
    const long long n = static_cast<long long>(tokens.size());
    if (n > (job->metricsOnly ? 4LL : 1LL) * job->maxTokens) {  // embeddings that won't be used
      job->error = tooLongMessage(n, n, job->spec.heads, job->maxTokens);
      return;
    }
    cache->input = std::make_shared<attn::AttentionInput>(attn::inputFromTokens(
        std::move(tokens), job->spec.dModel, job->spec.seed, attn::tokenizeWords(job->keyText)));
    job->cache = cache;
    input = cache->input.get();
  }
  const long long nq = input->isProjected() ? input->q.front().rows() : input->x.rows();
  const long long nk = input->isProjected()             ? input->k.front().rows()
                       : input->xKv.size() > 0 ? input->xKv.rows()
                                               : nq;
  if (std::max(nq, nk) > job->maxTokens) {
    if (!job->metricsOnly || std::max(nq, nk) > 4LL * job->maxTokens) {
      job->error = tooLongMessage(nq, nk, job->spec.heads, job->maxTokens);
      return;
    }
    // Metrics only: the tiled path with online softmax keeps O(N) memory and no weights.
    job->spec.exec = attn::ExecPath::Tiled;
    job->spec.weightsHead = -2;
  }
  // The engine refuses requests over its memory budget; an allocation that
  // still fails must not take the window (and the user's session) down.
  try {
    auto res = attn::runAttention(*input, job->spec);
    if (!res) {
      job->error = uiMessage(res.error().message);
      return;
    }
    job->result = std::make_shared<attn::AttentionResult>(std::move(res).value());
  } catch (const std::bad_alloc&) {
    job->error = QObject::tr("Out of memory: this request needs more memory than is available. "
                             "Use fewer tokens or heads.");
    return;
  }
  job->ms = static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

void ExplorerModel::setIntervenedRun(std::shared_ptr<const attn::models::ModelRun> run) {
  if (!model_ || !run_) return;
  if (run) {
    if (run->layers.size() != run_->layers.size() || run->encoding.ids != ownModelRun()->encoding.ids) return;
    if (!ownRun_) {
      ownRun_ = run_;
      ownRunLayers_ = runLayers_;
    }
    run_ = std::move(run);
    runLayers_ = layeredWeights(*run_);
  } else {
    if (!ownRun_) return;
    run_ = std::move(ownRun_);
    runLayers_ = std::move(ownRunLayers_);
    ownRun_.reset();
    ownRunLayers_.reset();
  }
  showModelLayer();
}

void ExplorerModel::recompute() {
  ++generation_;
  emit recomputeRequested();
  if (!busySignalled_) {
    busySignalled_ = true;
    emit busyChanged(true);
  }
  if (!inFlight_ && !coalesce_.isActive()) coalesce_.start();
}

void ExplorerModel::launch() {
  if (inFlight_) return;  // deliver() launches the newest request when the running job ends
  auto job = std::make_shared<Job>();
  job->generation = generation_;
  job->text = text_.toStdString();
  job->keyText = keyText_.toStdString();
  job->file = file_;
  job->model = model_;
  job->encoding = givenEncoding_;
  job->image = image_;
  job->imageSource = imageSource_.toStdString();
  job->precomputed = showsPrecomputed();
  job->layer = std::clamp(currentLayer_, 0, std::max(0, numLayers() - 1));
  job->spec = spec_;
  job->maxTokens = maxTokens_;
  job->mapBudget = mapBudget_;
  job->qkPrecision = qkPrecision_;
  job->metricsOnly = metricsOnly_;
  job->backend = spec_.backend;
  job->deviceF32 = spec_.deviceInputs == attn::DeviceInputs::F32;
  job->device = device_;
  job->cache = inputCache_;
  inFlight_ = true;
  runningModel_ = job->model != nullptr;
  running_ = runOnWorker(
      this, [job](JobControl& control) { runJob(job, control); }, [this, job] { deliver(job); },
      runningModel_ ? tr("Running the model") : QString());
  if (runningModel_) emit modelRunStarted();
}

bool ExplorerModel::cancelModelRun() {
  const bool queued = coalesce_.isActive() && model_;
  if (!queued && !(inFlight_ && runningModel_)) return false;
  cancelledUpTo_ = generation_;
  coalesce_.stop();
  if (inFlight_) {
    if (running_) running_->cancel();
    return true;  // deliver() reports it once the worker has returned
  }
  if (busySignalled_) {  // nothing started: the queued request is simply dropped
    busySignalled_ = false;
    emit busyChanged(false);
  }
  emit modelRunCancelled();
  return true;
}

void ExplorerModel::deliver(const std::shared_ptr<Job>& job) {
  inFlight_ = false;
  running_.reset();
  runningModel_ = false;
  if (job->cache) inputCache_ = job->cache;
  const bool newest = job->generation == generation_;
  // Cancelled: this job and every request before the cancel are dropped (a result that
  // finished anyway included), so the previous run stays on screen.
  const bool cancelled = job->generation <= cancelledUpTo_;
  const bool allCancelled = generation_ <= cancelledUpTo_;
  // The newest request starts before the panels redraw this result (a
  // slider drag then computes on the workers while the GUI thread paints, rather
  // than the two taking turns).
  if (!newest && !allCancelled) launch();
  // Jobs run one at a time in request order, so a result is always newer than
  // the one on screen; the check keeps that true should that ever change.
  // A file opened or closed since this job started: its result would show one
  // input under the other's labels and titles; the newest request follows.
  const bool otherInput = job->file != file_ || job->model != model_ ||
                          (hasVisionModel() && job->image != image_) ||
                          job->precomputed != showsPrecomputed();
  if (cancelled) {
    if (allCancelled) emit modelRunCancelled();
  } else if (job->generation > shownGeneration_ && !(otherInput && !newest)) {
    if (job->run) {  // a model run: show the current layer of it
      ownRun_.reset();  // a new text: interventions re-run on it
      ownRunLayers_.reset();
      run_ = job->run;
      runLayers_ = job->runLayers;
      streamedResults_ = job->streamedResults;
      runLabels_ = job->runLabels;
      backendNote_ = job->backendNote;
      resultSpec_ = job->spec;
      shownGeneration_ = job->generation;
      lastMs_ = job->ms;
      lastError_.clear();
      if (pinnedRow_ >= run_->encoding.size()) {
        pinnedRow_ = -1;
        emit pinnedRowChanged(-1);
      }
      showModelLayer();
    } else if (job->result) {
      run_.reset();
      backendNote_.clear();
      runLayers_.reset();
      ownRun_.reset();
      ownRunLayers_.reset();
      result_ = job->result;
      resultSpec_ = job->spec;
      shownGeneration_ = job->generation;
      lastMs_ = job->ms;
      lastError_.clear();
      if (currentHead_ >= result_->numHeads()) {
        currentHead_ = 0;
        emit currentHeadChanged(0);
      }
      if (pinnedRow_ >= result_->nq()) {
        pinnedRow_ = -1;
        emit pinnedRowChanged(-1);
      }
      emit resultChanged();
    } else if (newest) {
      lastError_ = job->error;
      emit errorOccurred(job->error);  // the previous result stays on screen
    }
  }
  if ((newest || allCancelled) && !coalesce_.isActive() && busySignalled_) {
    busySignalled_ = false;
    emit busyChanged(false);
  }
}

void ExplorerModel::waitForIdle() {
  while (busy()) QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
}

}  // namespace attn::ui
