#include "model_request.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>

#include "attn/io/text_file.h"
#include "attn/models/bundled_models.h"
#include "attn/models/device/device_run.h"
#include "attn/models/device/forward_plan.h"
#include "attn/models/experiments/corpus_stats.h"
#include "attn/models/seq2seq/seq2seq_interventions.h"
#include "attn/models/single_token.h"
#include "attn/models/streamed/windowed_run.h"
#include "input_options.h"

namespace attn::cli {

void keepOneLayer(InputOptions& o) {
  if (o.modelDir.empty()) return;
  o.modelRunOptions.keepQkv = true;
  o.modelRunOptions.topK = 0;
  o.modelRunOptions.onlyLayer = o.layer > 0 ? o.layer - 1 : kLastLayer;
}

models::ProgressFn terminalProgress() {
  if (isatty(fileno(stderr)) == 0) return {};
  return [](double fraction, std::string_view stage) {
    fmt::print(stderr, "\r{:3.0f}% {:<40.40}", 100.0 * fraction, stage);
    if (fraction >= 1.0) fmt::print(stderr, "\r{:50}\r", "");
    return true;
  };
}

namespace {

using StageClock = std::chrono::steady_clock;

double secondsSince(StageClock::time_point& t) {
  const auto now = StageClock::now();
  const double s = std::chrono::duration<double>(now - t).count();
  t = now;
  return s;
}

Result<std::string> textOf(const std::string& text, const std::string& file) {
  if (file.empty()) return text;
  return readUtf8TextFile(file);
}

// Without --text a bundled model runs its first example sentence, the one the
// window opens it on, so `--model austen-gpt2` alone shows its heads.
Result<std::string> queryTextOf(const InputOptions& o) {
  if (!o.text.empty() || !o.textFile.empty()) return textOf(o.text, o.textFile);
  if (const auto* bundled = models::findBundledModel(o.modelDir); bundled && !bundled->examples.empty())
    return bundled->examples.front();
  return Error{"--model needs the text to run on: --text or --text-file"};
}

/// --model with --image: a vision model on the preprocessed image, as runModelRequest does
/// for text (twice with --intervene, then compared).
Result<ModelRequest> runModelImage(const InputOptions& o, const models::RunOptions& runOptions,
                                   const std::vector<models::HeadIntervention>& interventions) {
  if (!o.text.empty() || !o.textFile.empty()) return Error{"--image and --text: give one input"};
  auto t = StageClock::now();
  auto model = models::Model::open(o.modelDir, terminalProgress());
  if (!model) return model.error();
  const double openSeconds = secondsSince(t);
  const models::ModelInfo& info = (*model)->info();
  if (!info.vision)
    return Error{
        fmt::format("--image: {} is a text model ({}); --image with --model needs a vision model (vit, "
                    "deit)",
                    info.name, info.modelType)};
  auto image = readImagePixels(o.image);
  if (!image) return image.error();
  auto pixels = (*model)->preprocessImage(*image, o.image);
  if (!pixels) return pixels.error();
  const double imageSeconds = secondsSince(t);
  models::RunOptions options = runOptions;
  if (auto st = checkLayerOption(o.layer, info.layers); !st) return st.error();
  if (options.onlyLayer == kLastLayer) options.onlyLayer = info.layers - 1;
  const int side = info.imageSize / std::max(info.patchSize, 1);
  auto onDevice = planModelBackend(o.backend, info, info.prefixTokens + side * side, options);
  if (!onDevice) return onDevice.error();
  auto run = (*model)->runImage(*pixels, options, terminalProgress());
  if (!run) return run.error();
  ModelRequest req{*model,      std::move(run).value(), interventions, std::nullopt, std::nullopt, {},
                   std::nullopt};
  req.stages = {
      {"open", openSeconds}, {"image read and preprocessed", imageSeconds}, {"forward", secondsSince(t)}};
  if (interventions.empty()) return req;
  options.interventions = interventions;
  auto after = (*model)->runImage(*pixels, options, terminalProgress());
  if (!after) return after.error();
  auto cmp = models::compareRuns(**model, req.run, *after);
  if (!cmp) return cmp.error();
  req.before = std::move(req.run);
  req.run = std::move(after).value();
  req.comparison = std::move(cmp).value();
  return req;
}

/// --quantization-effect: `enc` run with quantized products and at full precision, compared.
Result<ModelRequest> quantizationRequest(std::shared_ptr<const models::Model> model,
                                         const models::Encoding& enc, const models::RunOptions& options,
                                         double openSeconds, StageClock::time_point& t) {
  if (options.streamed)
    return Error{fmt::format(
        "--quantization-effect: the text's {} tokens are past the memory the maps may take, so the run "
        "would stream and keep no maps to compare; give a shorter text (or --max-tokens)",
        enc.size())};
  if (!options.quantizedDot)
    return Error{"--quantization-effect runs the model both ways: leave out --quantized-dot off"};
  auto effect = models::quantizationEffect(*model, enc, options, terminalProgress());
  if (!effect) return effect.error();
  ModelRequest req{model, std::move(effect->quantized), {}, std::nullopt, std::nullopt, {}, std::nullopt};
  req.quantization = std::move(effect).value();
  req.stages = {{"open and encode", openSeconds}, {"both forwards", secondsSince(t)}};
  return req;
}

}  // namespace

int windowStride(const InputOptions& o) { return o.stride > 0 ? o.stride : std::max(1, o.window / 2); }

// --max-tokens: the first N tokens of a longer text, its leading and trailing special tokens
// kept (the tokenizers library's truncation); without it, a text past the model's context is
// refused with the count and the way out, before any weight is touched by the forward.
Result<models::Encoding> fitContext(const models::ModelInfo& info, models::Encoding enc,
                                    const InputOptions& o, const std::string& source) {
  o.untruncatedTokens = 0;
  if (o.maxTokens < 0) return Error{fmt::format("--max-tokens must be at least 1 (got {})", o.maxTokens)};
  if (o.window < 0 || o.window == 1)
    return Error{fmt::format("--window must be at least 2 tokens (got {})", o.window)};
  if (o.stride < 0 || (o.window > 0 && o.stride > o.window))
    return Error{fmt::format("--stride must be between 1 and --window {} (got {})", o.window, o.stride)};
  if (o.window > 0) {  // windowed: any length; each window within the context
    if (info.maxPositions > 0 && o.window > info.maxPositions)
      return Error{fmt::format("--window {} exceeds {}'s context of {} tokens", o.window, info.name,
                               info.maxPositions)};
  } else if (o.maxTokens > 0 && info.maxPositions > 0 && o.maxTokens > info.maxPositions)
    return Error{fmt::format("--max-tokens {} exceeds {}'s context of {} tokens", o.maxTokens, info.name,
                             info.maxPositions)};
  if (o.maxTokens > 0 && enc.size() > o.maxTokens) {
    auto chunks = models::splitEncoding(enc, o.maxTokens);
    if (!chunks) return chunks.error();
    o.untruncatedTokens = enc.size();
    fmt::print(stderr, "note: {} has {} tokens; --max-tokens {} keeps the first {}\n", source, enc.size(),
               o.maxTokens, chunks->front().size());
    return std::move(chunks->front());
  }
  if (o.window == 0 && info.maxPositions > 0 && enc.size() > info.maxPositions)
    return Error{
        fmt::format("{}: the input has {} tokens but {} reads at most {} (max_position_embeddings); "
                    "--max-tokens {} keeps the first {}, `metrics --window {}` measures every token "
                    "through a sliding window, and `corpus --max-tokens` runs a long text in chunks",
                    source, enc.size(), info.name, info.maxPositions, info.maxPositions, info.maxPositions,
                    info.maxPositions)};
  return enc;
}

Result<std::pair<std::shared_ptr<const models::Model>, models::Encoding>> openModelText(const InputOptions& o) {
  auto text = queryTextOf(o);
  if (!text) return text.error();
  std::optional<std::string> pair;
  if (!o.keyText.empty() || !o.keyTextFile.empty()) {
    auto k = textOf(o.keyText, o.keyTextFile);
    if (!k) return k.error();
    pair = std::move(k).value();
  }
  if (o.padTo < 0) return Error{fmt::format("--pad-to must be at least 0 (got {})", o.padTo)};
  auto model = models::Model::open(o.modelDir, terminalProgress());
  if (!model) return model.error();
  const std::string source = o.textFile.empty() ? std::string("--text") : o.textFile;
  auto enc = (*model)->encode(*text, pair ? std::optional<std::string_view>(*pair) : std::nullopt, source, o.padTo);
  if (!enc) return enc.error();
  auto kept = fitContext((*model)->info(), std::move(enc).value(), o, source);
  if (!kept) return kept.error();
  return std::make_pair(std::move(model).value(), std::move(kept).value());
}

Result<ModelRequest> runModelRequest(const InputOptions& o, const models::RunOptions& runOptions,
                                     const AdjustRun& adjust) {
  std::vector<models::HeadIntervention> interventions;
  for (const auto& spec : o.intervene) {
    if (models::hasSeq2SeqStackPrefix(spec))
      return Error{fmt::format(
          "--intervene '{}': encoder:, decoder: and cross: name the stacks of an encoder-decoder model "
          "(bart, mbart, marian, t5, mt5); {} is not one: give KIND:L.H, e.g. ablate:1.2",
          spec, o.modelDir.empty() ? std::string("the input") : o.modelDir)};
    auto iv = models::parseIntervention(spec);
    if (!iv) return iv.error();
    interventions.push_back(*iv);
  }
  if (!o.image.empty()) return runModelImage(o, runOptions, interventions);
  auto t = StageClock::now();
  auto opened = openModelText(o);
  if (!opened) return opened.error();
  const double openSeconds = secondsSince(t);
  auto& [model, enc] = *opened;
  if (model->info().vision)
    return Error{fmt::format("--model: {} is a vision model ({}): give the image with --image FILE",
                             model->info().name, model->info().modelType)};
  models::RunOptions options = runOptions;
  const int layers = model->info().layers;
  // Every command with --model (metrics analyses all layers, but a wrong --layer is still wrong).
  if (auto st = checkLayerOption(o.layer, layers); !st) return st.error();
  if (options.onlyLayer == kLastLayer) options.onlyLayer = layers - 1;
  if (options.onlyLayer >= layers)
    return Error{fmt::format("--layer: {} is out of range (1..{})", options.onlyLayer + 1, layers)};
  if (!interventions.empty() && model->info().causal) options.keepFullLogits = true;  // KL and loss
  if (o.quantizationEffect) {
    if (!interventions.empty())
      return Error{"--quantization-effect and --intervene compare different runs: give one of them"};
    if (auto st = models::checkQuantizationEffect(model->info()); !st) return st.error();
  }
  if (adjust)
    if (auto st = adjust(model->info(), enc, options); !st) return st.error();
  if (o.quantizationEffect) return quantizationRequest(model, enc, options, openSeconds, t);
  auto backend = chooseModelBackend(o, model->info(), enc.size(), options, interventions);
  if (!backend) return backend.error();
  std::string note;
  auto run = o.window > 0
                 ? models::runWindowed(*model, enc, o.window, windowStride(o), options, terminalProgress())
                 : models::runModelOn(*model, *backend, enc, options, note, terminalProgress());
  if (!run) return run.error();
  if (!note.empty()) fmt::print(stderr, "warning: {}\n", note);
  ModelRequest req{model,       std::move(run).value(), interventions, std::nullopt, std::nullopt, {},
                   std::nullopt};
  req.stages = {{"open and encode", openSeconds}, {"forward", secondsSince(t)}};
  if (interventions.empty()) return req;
  options.interventions = interventions;
  auto after = model->run(enc, options, terminalProgress());
  if (!after) return after.error();
  auto cmp = models::compareRuns(*model, req.run, *after);
  if (!cmp) return cmp.error();
  req.before = std::move(req.run);
  req.run = std::move(after).value();
  req.comparison = std::move(cmp).value();
  return req;
}

Result<models::ModelBackend> chooseModelBackend(const InputOptions& o, const models::ModelInfo& info,
                                                int tokens, models::RunOptions& options,
                                                const std::vector<models::HeadIntervention>& interventions) {
  const auto kind = parseBackend(o.backend);
  if (!kind)
    return Error{fmt::format("--backend: unknown backend '{}' (expected cpu, cuda or auto)", o.backend)};
  if (o.gpuInputs != "fp32" && o.gpuInputs != "fp16" && o.gpuInputs != "bf16")
    return Error{fmt::format("--gpu-inputs: unknown format '{}' (expected fp32, fp16 or bf16)", o.gpuInputs)};
  options.deviceF32 = o.gpuInputs == "fp32";  // fp16/bf16: the GEMMs in the weights' own 16-bit format
  // Both runs of --intervene go where the intervened one can: their comparison is then exact.
  models::RunOptions planned = options;
  planned.interventions = interventions;
  auto backend = models::chooseModelBackend(*kind, info, tokens, planned);
  if (!backend.plan.note.empty()) fmt::print(stderr, "warning: {}\n", backend.plan.note);
  return backend;
}

Result<bool> planModelBackend(const std::string& backend, const models::ModelInfo& info, int tokens,
                              const models::RunOptions& options) {
  const auto kind = parseBackend(backend);
  if (!kind)
    return Error{fmt::format("--backend: unknown backend '{}' (expected cpu, cuda or auto)", backend)};
  if (*kind == BackendKind::Cpu) return false;
  const auto plan = models::planModelForward(*kind, info, tokens, options, models::probeDevice());
  if (!plan.note.empty()) fmt::print(stderr, "warning: {}\n", plan.note);
  return plan.onDevice;
}

AttentionSpec modelSpec(const models::ModelInfo& info, const models::Encoding& encoding) {
  AttentionSpec spec;
  spec.mechanism = Mechanism::ScaledDot;
  spec.heads = info.heads;
  spec.dModel = info.heads * info.headDim;
  spec.dK = info.headDim;
  bool padded = false;
  for (uint8_t a : encoding.attention) padded |= a == 0;
  if (info.causal) {
    spec.mask = Mask::causal();
    if (padded) {
      int valid = 0;
      for (uint8_t a : encoding.attention) valid += a != 0;
      if (auto m = Mask::parse(fmt::format("causal+padding:{}", valid))) spec.mask = *m;
    }
  } else if (padded) {
    int valid = 0;
    for (uint8_t a : encoding.attention) valid += a != 0;
    if (auto m = Mask::parse(fmt::format("padding:{}", valid))) spec.mask = *m;
  }
  return spec;
}

Result<int> modelLayerIndex(const ModelRequest& req, int layerOption) {
  const int layers = req.model->info().layers;
  if (auto st = checkLayerOption(layerOption, layers); !st) return st.error();
  const int wanted = layerOption == 0 ? layers - 1 : layerOption - 1;
  const int index = wanted - req.run.firstLayer;
  if (index < 0 || index >= static_cast<int>(req.run.layers.size()))
    return Error{fmt::format("--layer: layer {} was not kept by this run", wanted + 1)};
  return index;
}

std::string describeModel(const models::ModelInfo& info) {
  if (info.vision)
    return fmt::format(
        "model: {}\nfolder: {}\nfamily: {} ({}), bidirectional over image patches\nlayers: {}\nheads: {} of "
        "{}\n"
        "d_model: {}\nparameters: {} ({:.1f} M)\ndtype: {}\nimage: {}x{} pixels, {}x{} patches of {} + {} "
        "token(s)\n"
        "labels: {}\nimage processor: {}\n{}",
        info.name, info.dir, models::familyName(info.family), info.modelType, info.layers, info.heads,
        info.headDim, info.dModel, info.parameters, static_cast<double>(info.parameters) / 1e6, info.dtype,
        info.imageSize, info.imageSize, info.imageSize / info.patchSize, info.imageSize / info.patchSize,
        info.patchSize, info.prefixTokens,
        info.labels > 0 ? std::to_string(info.labels) : std::string("none (no classifier)"),
        info.processorFile.empty() ? std::string("defaults (no preprocessor_config.json)")
                                   : info.processorFile,
        info.visionNote.empty() ? std::string() : "note: " + info.visionNote + "\n");
  std::string heads = std::to_string(info.heads);
  if (info.kvHeads > 0 && info.kvHeads != info.heads) heads += fmt::format(" ({} key/value heads)", info.kvHeads);
  // GGUF files: the weights as llama.cpp names the file type, with the bits each weight takes.
  const std::string weights =
      info.quantization.empty() ? std::string() : "weights: " + info.quantization + "\n";
  return fmt::format(
      "model: {}\nfolder: {}\nfamily: {} ({}), {}\nlayers: {}\nheads: {} of {}\nd_model: {}\nparameters: {} "
      "({:.1f} M)\n"
      "dtype: {}\n{}vocabulary: {}\nmax positions: {}\ntokenizer: {}\n",
      info.name, info.dir, models::familyName(info.family), info.modelType,
      info.causal ? "causal" : "bidirectional", info.layers, heads, info.headDim, info.dModel,
      info.parameters, static_cast<double>(info.parameters) / 1e6, info.dtype, weights, info.vocabSize,
      info.maxPositions > 0 ? std::to_string(info.maxPositions) : std::string("no limit"),
      info.tokenizerKind);
}

Result<int> tokenId(const models::Model& model, const std::string& text, const std::string& option) {
  return models::singleTokenId(model, text, option);
}

}  // namespace attn::cli
