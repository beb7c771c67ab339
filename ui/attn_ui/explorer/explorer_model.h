#pragma once
// The explorer's view-model: holds the input (text, a loaded file, or text run
// through a pretrained model) and the configuration, runs the engine or the
// model on a worker thread, coalesces rapid changes, never lets an older result
// replace a newer one, and publishes the newest. Every panel observes this
// object; panels never talk to each other.
#include <QObject>
#include <QStringList>
#include <QTimer>
#include <memory>

#include "attn/engine.h"
#include "attn/engine/precomputed.h"
#include "attn/io/input_file.h"
#include "attn/models/streamed/qk_store.h"

namespace attn::models {
class Model;
struct ModelRun;
struct Encoding;
}  // namespace attn::models
namespace attn::vision {
struct ImagePixels;
}  // namespace attn::vision
namespace attn::gpu {
class Device;
}  // namespace attn::gpu

namespace attn::ui {

class JobControl;

/// What the progress line says of a model run `fraction` done through `layers` layers (the
/// forward reports layer l starting at l / (layers + 1), and 1 when it is done).
QString modelRunStage(double fraction, int layers);

class ExplorerModel : public QObject {
  Q_OBJECT
 public:
  explicit ExplorerModel(QObject* parent = nullptr);
  ~ExplorerModel() override;

  // --- input -------------------------------------------------------------
  void setText(const QString& text);
  /// Key sequence for cross-attention; empty = self-attention.
  void setKeyText(const QString& text);
  /// A loaded input (from a file); replaces the text input until cleared.
  void setLoadedInput(std::shared_ptr<const attn::AttentionInput> input, const QString& source);
  /// A loaded file as the core reads it: its q/k/v or x (+ weights) are scored
  /// with the current configuration (sizes fitted by attn::fitSpecToInput, the
  /// file's 'mask' bound to a "custom" mask term); its precomputed 'attn' is
  /// shown as it is when there is no engine input or setPrecomputedPreferred.
  void setLoadedFile(std::shared_ptr<const attn::LoadedInput> file);
  void clearLoadedInput();
  const QString& text() const { return text_; }
  const QString& keyText() const { return keyText_; }
  bool hasLoadedInput() const { return file_ != nullptr; }
  const QString& loadedSource() const { return loadedSource_; }
  /// The file's engine input; null when there is none (text, or only 'attn').
  const attn::AttentionInput* loadedInput() const;
  const attn::LoadedInput* loadedFile() const { return file_.get(); }
  std::shared_ptr<const attn::LoadedInput> loadedFilePtr() const { return file_; }

  // --- a pretrained model ----------------------------------------
  /// Runs the text through `model` on the worker: Model::encode (the key text is
  /// BERT's second segment) then Model::run with q/k/v kept. The shown result is
  /// the current layer of that run, so choosing another layer or head needs no
  /// recomputation. Replaces a loaded file; the configuration is kept for when
  /// the model is closed. A null model is clearModel().
  void setModel(std::shared_ptr<const attn::models::Model> model);
  /// Back to the text input with the configured mechanism.
  void clearModel();
  /// Runs these ids through the model instead of encoding a text (a generation's prompt and
  /// written tokens: decoding them and encoding the text again can give other tokens); `text`
  /// is what the input shows. Typing another text, or another model, goes back to encoding.
  void setModelEncoding(std::shared_ptr<const attn::models::Encoding> encoding, const QString& text);
  bool runsGivenEncoding() const { return givenEncoding_ != nullptr; }
  /// Vision models run on this image (decoded pixels; the model's image processor prepares
  /// them on the worker) instead of the text; it stays set when another model is opened.
  void setModelImage(std::shared_ptr<const attn::vision::ImagePixels> image, const QString& source);
  std::shared_ptr<const attn::vision::ImagePixels> modelImage() const { return image_; }
  const QString& modelImageSource() const { return imageSource_; }
  /// True when the model is a vision transformer (it reads the image, not the text).
  bool hasVisionModel() const;
  bool hasModel() const { return model_ != nullptr; }
  std::shared_ptr<const attn::models::Model> modelPtr() const { return model_; }
  /// The run the shown result is a layer of (encoding, every layer, next-token
  /// predictions); null without a model or before its first run.
  std::shared_ptr<const attn::models::ModelRun> modelRun() const { return run_; }
  /// Interventions: shows `run`, the same encoding through the model with some
  /// heads changed, in place of the model's own run (every view follows), until the text
  /// or the model changes; null shows the model's own run again.
  void setIntervenedRun(std::shared_ptr<const attn::models::ModelRun> run);
  bool showsIntervenedRun() const { return ownRun_ != nullptr; }
  /// The model's own run of the text (modelRun() unless an intervened run is shown).
  std::shared_ptr<const attn::models::ModelRun> ownModelRun() const { return ownRun_ ? ownRun_ : run_; }
  /// Text-model runs go where spec().backend (the Backend selector) asks, planned per run as
  /// the CLI plans them (models/device/device_run.h), GPU inputs fp16/bf16 naming the GEMMs'
  /// inputs; against `device` when set (the tests' emulation), else this process's CUDA device.
  void setModelDevice(std::shared_ptr<attn::gpu::Device> device) { device_ = std::move(device); }
  /// The shown model run's one line when it asked for the GPU and ran on the CPU (the plan's
  /// or the device's reason); empty when it ran where the Backend selector asked.
  const QString& modelBackendNote() const { return backendNote_; }

  // --- layers: a layered file's 'attn' or a model's run ----------------------
  /// True when the shown result is one layer of several: a file's precomputed
  /// 'attn', or a model run.
  bool showsLayers() const;
  /// Every layer's weights [L][H] of N x N behind the shown result; null when
  /// showsLayers() is false. The same pointer until the input changes.
  std::shared_ptr<const attn::PrecomputedAttention> layeredAttention() const;
  /// Key labels of the layered weights (the model's tokens, the file's tokens or indices).
  std::vector<std::string> layerTokens() const;

  // --- precomputed weights of a loaded file ([L][H] of N x N) --------------
  /// For a file with both an engine input and 'attn': show 'attn' (true) or
  /// compute from q/k/v or x (false, the default).
  void setPrecomputedPreferred(bool preferred);
  bool precomputedPreferred() const { return preferPrecomputed_; }
  /// True when results come from the file's 'attn' rather than the engine.
  bool showsPrecomputed() const;
  /// Layers of the shown layered weights (file or model); 0 when the engine computes.
  int numLayers() const;
  /// 0-based layer shown (0 when there are no layers).
  int currentLayer() const { return currentLayer_; }
  void setCurrentLayer(int layer);
  /// Opens one layer's head (the head grid's layer x head tiles).
  void setCurrentLayerHead(int layer, int head);

  // --- configuration -----------------------------------------------------
  void setSpec(const attn::AttentionSpec& spec);
  void setCausal(bool causal);
  void setTemperature(float t);
  const attn::AttentionSpec& spec() const { return spec_; }
  /// Sequences longer than this are not materialized as N x N.
  void setMaxMaterializedTokens(int n) { maxTokens_ = n; }
  int maxMaterializedTokens() const { return maxTokens_; }
  /// A model run whose every layer's N x N maps (L x H x N^2 x 4 bytes) would exceed this, or
  /// whose text is over the Sequence Limit, runs streamed: no map is kept, each head's
  /// measures come from the forward and any map is recomputed from the kept q/k.
  static constexpr long long kDefaultMapBudgetBytes = 1'000'000'000;
  void setMapBudgetBytes(long long bytes) { mapBudget_ = bytes; }
  long long mapBudgetBytes() const { return mapBudget_; }
  /// Precision of a streamed run's kept q/k (F16 by default; F32 recomputes maps exactly).
  void setStreamedQkPrecision(attn::models::QkPrecision p) { qkPrecision_ = p; }
  /// True when the shown model run is streamed: modelRun()->qk holds the q/k, the
  /// layers' results hold entropy but no weights, and layeredAttention() is null.
  bool isStreamed() const;
  /// The streamed run's kept q/k (null unless isStreamed()).
  std::shared_ptr<const attn::models::QkStore> streamedStore() const;
  /// Lets sequences over the limit run on the tiled path without weights
  /// (entropy and output only; up to 4x the limit). Off by default.
  void setMetricsOnlyAllowed(bool allowed);
  bool metricsOnlyAllowed() const { return metricsOnly_; }
  /// Delay that merges bursts of changes (slider drags) into one job.
  void setCoalesceMs(int ms) { coalesce_.setInterval(ms); }

  // --- view state shared by every panel -----------------------------------
  void setCurrentHead(int head);
  int currentHead() const { return currentHead_; }
  /// Pinned query row, -1 for none.
  void setPinnedRow(int row);
  int pinnedRow() const { return pinnedRow_; }

  // --- result ------------------------------------------------------------
  bool hasResult() const { return result_ != nullptr; }
  /// The configuration the shown result was computed with.
  const attn::AttentionSpec& resultSpec() const { return resultSpec_; }
  /// The shown result has no N x N weights (metrics-only view).
  bool isMetricsOnly() const;
  const attn::AttentionResult& result() const { return *result_; }
  std::shared_ptr<const attn::AttentionResult> resultPtr() const { return result_; }
  /// Weights of the current head (empty when there is no result).
  attn::Mat currentWeights() const;
  const attn::HeadResult* currentHeadResult() const;
  /// Labels for the views: the tokens, or for a model the text each token stands
  /// for, a leading space shown as "␣" (the result keeps the vocabulary strings).
  QStringList queryLabels() const;
  QStringList keyLabels() const;
  double lastComputeMs() const { return lastMs_; }
  /// The message of the newest failed request; empty after a success.
  const QString& lastError() const { return lastError_; }
  bool busy() const { return inFlight_ || coalesce_.isActive(); }
  /// Shows an error that did not come from a computation (a file that could
  /// not be opened): errorOccurred, lastError; the result stays as it is.
  void reportError(const QString& message);
  quint64 shownGeneration() const { return shownGeneration_; }

  /// The model run on the worker now (its stage and fraction; cancel() stops it between
  /// layers); null when no model run is in flight.
  std::shared_ptr<JobControl> modelRunControl() const { return runningModel_ ? running_ : nullptr; }
  /// Stops the model run in flight (or about to start) and every request queued behind
  /// it: the shown run and view stay as they are, modelRunCancelled() follows. False (and
  /// nothing changes) when no model run is in flight or queued.
  bool cancelModelRun();

  /// Schedules a recomputation (changes call it themselves).
  void recompute();
  /// Blocks until the newest request has been delivered (tests, CLI).
  void waitForIdle();

 signals:
  void resultChanged();
  void inputChanged();
  void specChanged();
  void currentHeadChanged(int head);
  void currentLayerChanged(int layer);
  void pinnedRowChanged(int row);
  void errorOccurred(const QString& message);
  void busyChanged(bool busy);
  /// recompute() was called: a result asked for from now on (the view's error banner stays until then).
  void recomputeRequested();
  /// A model was set or cleared (the configuration's meaning changes with it).
  void modelChanged();
  /// A model run started on the worker (modelRunControl() is its progress).
  void modelRunStarted();
  /// cancelModelRun() took effect: the requests up to it are dropped, the shown run stays.
  void modelRunCancelled();

 private:
  struct Job;
  static void runJob(const std::shared_ptr<Job>& job, JobControl& control);  // on a worker thread
  static void runModelJob(Job& job, JobControl& control);                    // on a worker thread
  static void runVisionJob(Job& job);                                        // on a worker thread
  void showModelLayer();
  void launch();
  void deliver(const std::shared_ptr<Job>& job);

  QString text_, keyText_;
  std::shared_ptr<const attn::LoadedInput> file_;  // a loaded file, or null for text
  // Before model_, so destroyed after it: the weights a model uploads to a device are freed
  // with the model, and a device must outlive them (gpu/weight_cache.h).
  std::shared_ptr<attn::gpu::Device> device_;         // model runs' device when set (tests)
  std::shared_ptr<const attn::models::Model> model_;  // a pretrained model the text runs through
  std::shared_ptr<const attn::models::Encoding> givenEncoding_;  // run in place of text_'s encoding
  std::shared_ptr<const attn::vision::ImagePixels> image_;       // what a vision model runs on
  QString imageSource_;
  std::shared_ptr<const attn::models::ModelRun> run_;  // its newest run (the shown result is a layer of it)
  std::shared_ptr<const attn::PrecomputedAttention> runLayers_;  // run_'s weights as [L][H]
  QStringList runLabels_;  // run_'s tokens as text ("␣animal"), for the views' labels
  // While an intervened run is shown: the model's own run and its weights (else null).
  std::shared_ptr<const attn::models::ModelRun> ownRun_;
  QString backendNote_;  // the shown model run's fallback line
  std::shared_ptr<const attn::PrecomputedAttention> ownRunLayers_;
  // Embeddings of the last text input: a temperature or mask change reuses them.
  struct InputCache;
  std::shared_ptr<const InputCache> inputCache_;
  QString loadedSource_;
  attn::AttentionSpec spec_;
  int currentHead_ = 0;
  int currentLayer_ = 0;
  bool preferPrecomputed_ = false;
  int pinnedRow_ = -1;
  int maxTokens_ = 4096;
  long long mapBudget_ = kDefaultMapBudgetBytes;
  attn::models::QkPrecision qkPrecision_ = attn::models::QkPrecision::F16;
  // A streamed run's layers as results without weights (entropy per row, tokens, mask).
  std::shared_ptr<const std::vector<attn::AttentionResult>> streamedResults_;
  bool metricsOnly_ = false;
  attn::AttentionSpec resultSpec_;
  std::shared_ptr<const attn::AttentionResult> result_;
  QTimer coalesce_;
  quint64 generation_ = 0;       // id of the newest request
  quint64 shownGeneration_ = 0;  // id of the request whose result is shown
  bool inFlight_ = false;        // at most one job runs; the newest request follows it
  std::shared_ptr<JobControl> running_;  // the job in flight
  bool runningModel_ = false;            // ... is a model run
  quint64 cancelledUpTo_ = 0;            // requests up to this id were cancelled
  bool busySignalled_ = false;
  double lastMs_ = 0.0;
  QString lastError_;
};

}  // namespace attn::ui
