#include "attn/models/device/device_run.h"

#include <fmt/format.h>

#include <algorithm>

#include "attn/cuda/decoder_forward.h"
#include "attn/cuda/weight_cache.h"
#include "attn/models/model_config.h"
#include "attn/models/model_weights.h"
#include "attn/models/next_token_loss.h"
#include "attn/models/transformer_forward.h"

#ifdef ATTNSCOPE_HAVE_CUDA
#include "attn/cuda/device_cuda.h"
#endif

namespace attn::models {
namespace {

/// What the driver cannot take that the plan does not see: padding, quantized matrices.
Status deviceCovers(const ModelWeights& w, const Encoding& enc) {
  for (size_t i = 0; i < enc.attention.size(); ++i)
    if (enc.attention[i] == 0)
      return Error{fmt::format("the CUDA forward does not take padded text (attention 0 at position {})", i)};
  if (w.tokenEmbedding.quant || (!w.layers.empty() && (w.layers[0].q.w.quant || w.layers[0].qkv.w.quant)))
    return Error{"the CUDA forward does not cover quantized weights"};
  return okStatus();
}

gpu::DecoderForwardOptions driverOptions(const RunOptions& o) {
  gpu::DecoderForwardOptions d;
  d.keepMaps = d.keepOutputs = o.keepAttention;
  d.keepQkv = o.keepAttention && o.keepQkv;
  d.onlyLayer = o.onlyLayer;
  d.topK = o.topK;
  d.keepFullLogits = o.keepFullLogits;
  d.f32Compute = o.deviceF32;
  return d;
}

/// The driver's kept layers as the CPU forward's AttentionResults (transformer_forward.cpp's runLayers).
void fillLayers(gpu::DecoderForwardResult& d, const Encoding& enc, const Mask& mask, ModelRun& run) {
  for (size_t i = 0; i < d.weights.size(); ++i) {
    AttentionResult& res = run.layers.emplace_back();
    res.queryTokens = res.keyTokens = enc.tokens;
    res.heads.resize(d.weights[i].size());
    gpu::DecoderLayerOutputs* kept = i < d.layers.size() ? &d.layers[i] : nullptr;
    for (size_t h = 0; h < res.heads.size(); ++h) {
      HeadResult& hr = res.heads[h];
      hr.weights = std::move(d.weights[i][h]);
      hr.entropy = std::move(d.entropy[i][h]);
      if (!kept) continue;
      if (h < kept->headOutput.size()) hr.output = std::move(kept->headOutput[h]);
      if (h < kept->q.size())
        hr.q = std::move(kept->q[h]), hr.k = std::move(kept->k[h]), hr.v = std::move(kept->v[h]);
    }
    if (kept) res.concatOutput = std::move(kept->concat), res.output = std::move(kept->output);
    res.mask = mask;
    res.backendUsed = "cuda";
    res.execUsed = "tiled";
  }
}

}  // namespace

DeviceFacts deviceFacts(const gpu::Device& device) {
  DeviceFacts d;
  d.found = true;
  d.name = device.description();
  d.freeBytes = device.freeBytes();
  d.forwardBuilt = true;
  return d;
}

ModelBackend chooseModelBackend(BackendKind requested, const ModelInfo& info, int tokens, const RunOptions& o,
                                std::shared_ptr<gpu::Device> device) {
  ModelBackend b;
  if (requested == BackendKind::Cpu) return b;
  b.plan = planModelForward(requested, info, tokens, o, device ? deviceFacts(*device) : probeDevice());
  if (!b.plan.onDevice) return b;
#ifdef ATTNSCOPE_HAVE_CUDA
  if (!device) {
    auto opened = gpu::openCudaDevice();
    if (!opened) {  // probeDevice found it: only a failure between the two calls lands here
      b.plan.onDevice = false;
      b.plan.note = "the model forward runs on the CPU: " + opened.error().message;
      return b;
    }
    device = *opened;
  }
#endif
  b.device = std::move(device);
  b.plan.onDevice = b.device != nullptr;
  return b;
}

Result<ModelRun> runModelOn(const Model& model, const ModelBackend& backend, const Encoding& enc,
                            const RunOptions& options, std::string& note, const ProgressFn& progress) {
  note.clear();
  if (!backend.plan.onDevice || !backend.device) return model.run(enc, options, progress);
  auto run = model.runOnDevice(*backend.device, enc, options, progress);
  if (run || run.error().message.ends_with("cancelled")) return run;
  auto cpu = model.run(enc, options, progress);
  if (cpu) note = "the model forward runs on the CPU: " + run.error().message;
  return cpu;
}

Result<ModelRun> deviceModelRun(gpu::Device& dev, gpu::ModelDeviceWeights& cache, const ModelInfo& info,
                                const ModelConfig& c, const ModelWeights& w, const Encoding& enc,
                                const RunOptions& o, const std::function<std::string(int)>& display,
                                const ProgressFn& progress) {
  if (const auto pieces = deviceUnsupportedOptions(o); !pieces.empty())
    return Error{"the CUDA forward does not cover " + pieces.front()};
  if (auto st = checkModelEncoding(c, enc, info.dir); !st) return st.error();
  if (o.onlyLayer >= c.layers)
    return Error{fmt::format("layer {} asked for, but the model has {}", o.onlyLayer, c.layers)};
  if (auto st = deviceCovers(w, enc); !st) return st.error();
  auto mask = modelMask(c, enc);
  if (!mask) return mask.error();
  const std::string cancelled = info.dir + ": cancelled";
  if (progress && !progress(0.0, "uploading the weights to the device")) return Error{cancelled};
  const DeviceForwardBytes bytes = deviceForwardBytes(info, enc.size(), o);
  std::lock_guard<std::mutex> lock(dev.requestMutex);  // one stream and cuBLAS handle per device
  auto weights = cache.get(dev, w, bytes.total() - bytes.weights);
  if (!weights) return weights.error();
  // The CPU forward's reports (transformer_forward.cpp): layer l starts at l / (layers + 1),
  // the lm_head at layers / (layers + 1); a stop between two layers frees the forward's buffers.
  gpu::DecoderForwardOptions driver = driverOptions(o);
  if (progress)
    driver.beforeLayer = [&progress, layers = c.layers](int l) {
      return progress(static_cast<double>(l) / (layers + 1),
                      l < layers ? "running layers on the device" : "output head");
    };
  auto d = gpu::decoderForward(dev, c, w, **weights, enc.ids, driver);
  if (!d) return d.error().message == "cancelled" ? Error{cancelled} : d.error();
  ModelRun run;
  run.encoding = enc;
  fillLayers(*d, enc, *mask, run);
  run.firstLayer = o.onlyLayer >= 0 ? o.onlyLayer : 0;
  run.finalHidden = std::move(d->finalHidden);
  run.nextTokens = std::move(d->nextTokens);
  if (!o.topKEveryPosition)  // the CPU run's contract: the last position only
    for (size_t i = 0; i + 1 < run.nextTokens.size(); ++i) run.nextTokens[i].clear();
  if (display)
    for (auto& row : run.nextTokens)
      for (auto& t : row) t.token = display(t.id);
  if (o.keepFullLogits) run.logits = std::move(d->logits);
  if (o.nextTokenLoss && enc.size() >= 2) {  // on the CPU, from the device's final hidden states
    std::vector<int> rows, targets;
    for (int i = 0; i + 1 < enc.size(); ++i)
      rows.push_back(i), targets.push_back(enc.ids[static_cast<size_t>(i) + 1]);
    run.nextTokenLoss = fusedNextTokenLoss(run.finalHidden, w.lmHead, rows, targets);
  }
  if (progress && !progress(1.0, "done")) return Error{cancelled};
  return run;
}

}  // namespace attn::models
