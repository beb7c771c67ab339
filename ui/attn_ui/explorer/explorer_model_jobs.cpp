#include <QElapsedTimer>
#include <new>
#include <optional>

#include "attn/models/device/device_run.h"
#include "attn/models/model.h"
#include "attn/vision/image_pixels.h"
#include "attn_ui/common/background_job.h"
#include "attn_ui/common/core_text.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/explorer_model_job.h"
#include "attn_ui/explorer/model_run_view.h"
#include "attn_ui/pretrained/model_spec.h"

namespace attn::ui {

// A vision transformer on the image: its processor's tensor, then every layer over
// [CLS] (and [DIST]) followed by the patches, labelled r{row}c{col}.
void ExplorerModel::runVisionJob(Job& job) {
  QElapsedTimer timer;
  timer.start();
  const auto& info = job.model->info();
  job.spec = specOfModel(info);
  if (!job.image) {
    job.error = QObject::tr("%1 is a vision model: open an image with File > Open Image…")
                    .arg(QString::fromStdString(info.name));
    return;
  }
  try {
    auto pixels = job.model->preprocessImage(*job.image, job.imageSource);
    if (!pixels) {
      job.error = uiMessage(pixels.error().message);
      return;
    }
    attn::models::RunOptions options;
    options.keepQkv = true;
    options.topK = 0;
    auto run = job.model->runImage(*pixels, options);
    if (!run) {
      job.error = uiMessage(run.error().message);
      return;
    }
    auto shared = std::make_shared<attn::models::ModelRun>(std::move(run).value());
    if (shared->layers.empty()) {
      job.error = QObject::tr("%1: the model returned no layers.").arg(QString::fromStdString(info.dir));
      return;
    }
    job.runLabels.clear();
    for (const auto& t : shared->encoding.tokens) job.runLabels << QString::fromStdString(t);
    job.runLayers = layeredWeights(*shared);
    job.run = std::move(shared);
  } catch (const std::bad_alloc&) {
    job.error = QObject::tr("Out of memory: this image needs more memory than is available.");
    return;
  }
  job.ms = static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

void ExplorerModel::runModelJob(Job& job, JobControl& control) {
  if (job.model->info().vision) return runVisionJob(job);
  QElapsedTimer timer;
  timer.start();
  const auto& info = job.model->info();
  job.spec = specOfModel(info);
  std::optional<std::string_view> pair;
  if (info.family == attn::models::Family::Bert && !job.keyText.empty()) pair = job.keyText;
  auto encoding = job.encoding ? attn::Result<attn::models::Encoding>(*job.encoding)
                               : job.model->encode(job.text, pair, "text");
  if (!encoding) {
    job.error = uiMessage(encoding.error().message);
    return;
  }
  const long long n = encoding->size();
  if (n == 0) {
    job.error = QObject::tr("The text has no tokens; type a sentence.");
    return;
  }
  // Every layer's N x N weights, kept by a materialized run; past the budget (or the
  // Sequence Limit) the run streams: measures from the forward, maps recomputed on demand.
  const double mapBytes = 4.0 * static_cast<double>(n) * n * info.heads * info.layers;
  const bool streamed = n > job.maxTokens || mapBytes > static_cast<double>(job.mapBudget);
  attn::models::RunOptions options;
  if (streamed) {
    options.streamed = true;
    options.keepQkv = false;
    options.qkPrecision = job.qkPrecision;
    // The LM head over every position would be most of a long run; the prediction panel
    // asks Model::nextTokensAt for the position it shows.
    options.topKEveryPosition = false;
  } else {
    options.keepQkv = true;  // the step-through view walks a real head
    // Logits (raw, scaled, masked: three N x N per head and layer) for the heatmap's
    // logit views while they stay small; weights are always kept.
    options.keepLogits = 3.0 * mapBytes <= 256e6;
  }
  options.topK = info.causal ? 5 : 0;
  // The forward checks between layers: a cancelled run stops there and keeps nothing.
  const attn::models::ProgressFn progress = [&control, total = info.layers](double f, std::string_view) {
    control.setStage(modelRunStage(f, total));
    return control.report(f);
  };
  try {
    // The device forward keeps no per-head logits: on the device the heatmap's logit views
    // are unavailable (as past the logits' budget), on the CPU they stay.
    options.deviceF32 = job.deviceF32;
    attn::models::RunOptions onDevice = options;
    onDevice.keepLogits = false;
    const attn::models::ModelBackend backend =
        attn::models::chooseModelBackend(job.backend, info, static_cast<int>(n), onDevice, job.device);
    std::string note;
    auto run = attn::models::runModelOn(*job.model, backend, *encoding,
                                        backend.plan.onDevice ? onDevice : options, note, progress);
    job.backendNote = QString::fromStdString(backend.plan.note.empty() ? note : backend.plan.note);
    if (!run) {
      job.error = uiMessage(run.error().message);
      return;
    }
    auto shared = std::make_shared<attn::models::ModelRun>(std::move(run).value());
    if (streamed) job.streamedResults = streamedLayerResults(*shared);
    auto layers = streamed ? nullptr : layeredWeights(*shared);
    if (streamed ? !job.streamedResults || job.streamedResults->empty() : shared->layers.empty()) {
      job.error = QObject::tr("%1: the model returned no layers.").arg(QString::fromStdString(info.dir));
      return;
    }
    job.runLabels = modelTokenLabels(job.model->tokenizer(), shared->encoding);
    job.run = std::move(shared);
    job.runLayers = std::move(layers);
  } catch (const std::bad_alloc&) {
    job.error = QObject::tr(
        "Out of memory: this request needs more memory than is available. "
        "Use a shorter text.");
    return;
  }
  job.ms = static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

}  // namespace attn::ui
