#include "attn/models/model.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "attn/cuda/weight_cache.h"
#include "attn/io/regular_file.h"
#include "attn/io/text_file.h"
#include "attn/models/attribution/attribution.h"
#include "attn/models/attribution/flow_routes.h"
#include "attn/models/device/device_run.h"
#include "attn/models/generation/causal_generation.h"
#include "attn/models/gguf/gguf_file.h"
#include "attn/models/gguf/gguf_model.h"
#include "attn/models/gguf/ollama_store.h"
#include "attn/models/gguf/quantized_dot.h"
#include "attn/models/gradients/gradient_attribution.h"
#include "attn/models/lens/lens_readout.h"
#include "attn/models/model_config.h"
#include "attn/models/model_paths.h"
#include "attn/models/model_weights.h"
#include "attn/models/patching/activation_patching.h"
#include "attn/models/single_token.h"
#include "attn/models/transformer_forward.h"
#include "attn/models/transformer_layers.h"
#include "attn/tokenizers/gguf/gguf_tokenizer.h"

namespace attn::models {

namespace fs = std::filesystem;

struct Model::Impl {
  ModelInfo info;
  ModelConfig config;
  std::string configPath;
  ModelWeights weights;
  HfTokenizer tokenizer;
  vision::ImageProcessorConfig processor;  // vision models
  gpu::ModelDeviceWeights deviceWeights;   // uploaded by the first runOnDevice
};

std::string_view familyName(Family f) {
  switch (f) {
    case Family::Gpt2: return "GPT-2";
    case Family::Bert: return "BERT";
    case Family::Llama: return "Llama";
    case Family::Vit:
      return "ViT";
  }
  return "?";
}

namespace {

/// The tokenizer file HfTokenizer::fromFolder reads first, for messages.
std::string tokenizerFile(const std::string& dir) {
  std::error_code ec;
  for (const char* f : {"tokenizer.json", "vocab.txt", "vocab.json"})
    if (fs::exists(fs::path(dir) / f, ec)) return (fs::path(dir) / f).string();
  return (fs::path(dir) / "tokenizer.json").string();
}

/// preprocessor_config.json when the folder has one; else the family's processor defaults
/// (ViTImageProcessor, CLIPImageProcessor, DINOv2's BitImageProcessor) at the config's image_size.
Status readProcessor(const std::string& dir, const ModelConfig& c, vision::ImageProcessorConfig& out,
                     std::string& file) {
  std::error_code ec;
  const std::string path = (fs::path(dir) / "preprocessor_config.json").string();
  if (!fs::exists(fs::symlink_status(path, ec))) {
    out = vision::defaultImageProcessor(c.visionArch == VisionArch::ClipVision ? "CLIPImageProcessor"
                                        : c.visionArch == VisionArch::Dinov2   ? "BitImageProcessor"
                                                                               : "ViTImageProcessor",
                                        c.imageSize);
    file.clear();
    return okStatus();
  }
  if (auto st = checkModelFilePath(dir, path); !st) return st.error();
  auto text = readUtf8TextFile(path, file_limit::kModelConfig);
  if (!text) return text.error();
  auto p = vision::parseImageProcessorConfig(*text, path);
  if (!p) return p.error();
  out = *p;
  file = path;
  return okStatus();
}

/// What the views show of a model, from its config and weights.
void fillInfo(Model::Impl& impl, const std::string& dir, const std::string& name) {
  ModelInfo& info = impl.info;
  const ModelConfig& c = impl.config;
  info.dir = dir;
  info.name = name;
  info.modelType = c.modelType;
  info.family = c.family;
  info.layers = c.layers, info.heads = c.heads, info.kvHeads = c.kvHeads, info.dModel = c.dModel;
  info.headDim = c.headDim, info.intermediate = c.intermediate, info.vocabSize = c.vocabSize;
  info.maxPositions = c.maxSequence();
  info.parameters = impl.weights.parameters;
  info.dtype = impl.weights.dtype;
  info.tokenizerKind = c.family == Family::Vit ? std::string("image patches") : impl.tokenizer.kindName();
  info.causal = c.family != Family::Bert && c.family != Family::Vit;
  info.vision = c.family == Family::Vit;
  if (info.vision) {
    info.imageSize = c.imageSize, info.patchSize = c.patchSize, info.prefixTokens = c.prefixTokens;
    info.labels = impl.weights.classifier.w.empty() ? 0 : static_cast<int>(c.labels.size());
    if (c.visionArch == VisionArch::Dinov2)
      info.visionNote = fmt::format(
          "DINOv2: layer scale{}{}; position embeddings for a {}x{} grid, interpolated bicubically to the "
          "image's",
          c.swiglu ? ", SwiGLU MLP" : "",
          c.registerTokens > 0 ? fmt::format(", {} register tokens", c.registerTokens) : std::string(),
          c.imageSize / c.patchSize, c.imageSize / c.patchSize);
    else if (c.visionTowerOnly)
      info.visionNote = "CLIP: the vision tower only (vision_model); the text tower is not run";
    else if (c.visionArch == VisionArch::ClipVision)
      info.visionNote =
          "CLIP vision tower: pre-LayerNorm on the embeddings, quick GELU, post-LayerNorm on [CLS]";
  }
  info.maskedLm = impl.weights.mlmHead.present();
  if (c.maskTokenId >= 0) info.maskToken = impl.tokenizer.idToToken(c.maskTokenId);
}

/// A GGUF file (llama.cpp, Ollama, LM Studio): config, weights and tokenizer from the one file.
Result<std::unique_ptr<Model::Impl>> openGguf(const std::string& path, const ProgressFn& progress) {
  if (progress && !progress(0.0, "reading the GGUF header")) return Error{path + ": cancelled"};
  auto file = gguf::GgufFile::open(path);
  if (!file) return file.error();
  const gguf::GgufFile& f = **file;
  auto cfg = gguf::ggufModelConfig(f);
  if (!cfg) return cfg.error();
  auto impl = std::make_unique<Model::Impl>();
  impl->config = std::move(*cfg);
  impl->configPath = path;
  auto w = gguf::loadGgufWeights(*file, impl->config);
  if (!w) return w.error();
  impl->weights = std::move(*w);
  if (progress && !progress(0.9, "reading the tokenizer")) return Error{path + ": cancelled"};
  auto tok = gguf::ggufTokenizer(f);
  if (!tok) return tok.error();
  impl->tokenizer = std::move(*tok);
  if (impl->tokenizer.idLimit() > impl->config.vocabSize)
    return Error{fmt::format("{}: the tokenizer has {} tokens but token_embd.weight only {} rows", path,
                             impl->tokenizer.idLimit(), impl->config.vocabSize)};
  const fs::path p(path);
  fillInfo(*impl, p.parent_path().string(), p.filename().string());
  impl->info.quantization = gguf::ggufWeightSummary(f);
  impl->info.quantizedProductTypes = gguf::quantizedProductTypes(impl->weights);
  return impl;
}

}  // namespace

Result<std::shared_ptr<const Model>> Model::open(const std::string& path, const ProgressFn& progress) {
  if (path.starts_with(gguf::kOllamaPrefix)) {
    auto blob = gguf::resolveOllamaModel(path);
    if (!blob) return blob.error();
    auto impl = openGguf(*blob, progress);
    if (!impl) return impl.error();
    (*impl)->info.name = path.substr(gguf::kOllamaPrefix.size());
    (*impl)->info.source = path;
    return std::shared_ptr<const Model>(new Model(std::move(*impl)));
  }
  std::error_code ec;
  // By the magic, or by the name: a damaged x.gguf is then refused by the GGUF reader, by name.
  if (gguf::looksLikeGguf(path) || (path.ends_with(".gguf") && !fs::is_directory(path, ec))) {
    auto impl = openGguf(path, progress);
    if (!impl) return impl.error();
    (*impl)->info.source = path;
    if (progress && !progress(1.0, "ready")) return Error{path + ": cancelled"};
    return std::shared_ptr<const Model>(new Model(std::move(*impl)));
  }
  auto read = readFolderConfig(path, progress);
  if (!read) return read.error();
  const ModelFolder* folder = &read->folder;
  auto impl = std::make_unique<Impl>();
  impl->configPath = read->path;
  auto cfg = parseModelConfig(read->text, impl->configPath);
  if (!cfg) return cfg.error();
  impl->config = std::move(*cfg);
  const ModelConfig& c = impl->config;

  // Weights take nearly all the time: 5% .. 90%.
  ProgressFn weightProgress;
  if (progress)
    weightProgress = [&progress](double f, std::string_view stage) { return progress(0.05 + 0.85 * f, stage); };
  auto w = loadModelWeights(folder->dir, c, weightProgress);
  if (!w) return w.error();
  impl->weights = std::move(*w);

  ModelInfo& info = impl->info;
  if (c.family == Family::Vit) {
    if (progress && !progress(0.9, "reading the image processor"))
      return Error{impl->configPath + ": cancelled"};
    if (auto st = readProcessor(folder->dir, c, impl->processor, info.processorFile); !st) return st.error();
  } else {
    if (progress && !progress(0.9, "reading the tokenizer")) return Error{impl->configPath + ": cancelled"};
    auto tok = HfTokenizer::fromFolder(folder->dir, c.modelType);
    if (!tok) return tok.error();
    impl->tokenizer = std::move(*tok);
    impl->config.maskTokenId = impl->weights.mlmHead.present() ? impl->tokenizer.maskTokenId() : -1;
  }
  // A vocab_size above the tokenizer's ids is normal (Qwen2 pads it); below, ids would index past the embedding.
  if (c.family != Family::Vit && impl->tokenizer.idLimit() > c.vocabSize)
    return Error{fmt::format("{}: the tokenizer has ids up to {} but config.json's vocab_size is {} (embedding rows "
                             "in {})", tokenizerFile(folder->dir), impl->tokenizer.idLimit() - 1, c.vocabSize,
                             impl->weights.files.empty() ? std::string("the weights") : impl->weights.files[0])};

  fillInfo(*impl, folder->dir, folder->name);
  info.source = path;
  if (progress && !progress(1.0, "ready")) return Error{impl->configPath + ": cancelled"};
  return std::shared_ptr<const Model>(new Model(std::move(impl)));
}

Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Model::~Model() = default;

const ModelInfo& Model::info() const { return impl_->info; }
const HfTokenizer& Model::tokenizer() const { return impl_->tokenizer; }

Result<Encoding> Model::encode(std::string_view text, std::optional<std::string_view> pair, const std::string& source,
                               int padTo) const {
  const ModelConfig& c = impl_->config;
  if (c.family == Family::Vit)
    return Error{fmt::format("{}: {} is a vision model ({}): give it an image, not text", source,
                             impl_->info.name, c.modelType)};
  // Compared with the context before anything is tokenized or allocated: 2e9 pad
  // tokens would take gigabytes first. A config without max_position_embeddings
  // still has the config reader's bound on positions.
  const int64_t context = c.maxSequence() > 0 ? c.maxSequence() : int64_t{1} << 24;
  if (padTo < 0 || padTo > context)
    return Error{fmt::format("{}: cannot pad to {} tokens: the model takes {} positions at most ({})", source,
                             padTo, context, impl_->configPath)};
  std::string first, second;
  // "A [SEP] B" typed into one box is BERT's sentence pair (token_type_ids 1 for B).
  if (c.modelType == "bert" && !pair) {
    if (const size_t at = text.find("[SEP]"); at != std::string_view::npos) {
      auto trim = [](std::string_view s) {
        const size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
        return b == std::string_view::npos ? std::string() : std::string(s.substr(b, e - b + 1));
      };
      first = trim(text.substr(0, at));
      second = trim(text.substr(at + 5));
      text = first;
      pair = std::string_view(second);
    }
  }
  auto enc = impl_->tokenizer.encode(text, pair, /*addSpecialTokens=*/true, source);
  if (!enc) return enc.error();
  // DistilBERT has no token types: its tokenizer returns no token_type_ids (model_input_names).
  if (c.family == Family::Bert && c.typeVocabSize == 0)
    std::fill(enc->typeIds.begin(), enc->typeIds.end(), 0);
  if (padTo > enc->size()) {
    if (c.padTokenId < 0)
      return Error{fmt::format("{}: cannot pad to {} tokens: {} names no pad_token_id", source, padTo,
                               impl_->configPath)};
    const std::string padToken = impl_->tokenizer.idToToken(c.padTokenId);
    if (enc->attention.empty()) enc->attention.assign(static_cast<size_t>(enc->size()), 1);
    if (enc->typeIds.empty()) enc->typeIds.assign(static_cast<size_t>(enc->size()), 0);
    if (enc->special.empty()) enc->special.assign(static_cast<size_t>(enc->size()), 0);
    while (enc->size() < padTo) {  // HF padding="max_length", padding_side right
      enc->ids.push_back(c.padTokenId);
      enc->tokens.push_back(padToken);
      enc->typeIds.push_back(0);
      enc->special.push_back(1);
      enc->attention.push_back(0);
      if (!enc->offsets.empty()) enc->offsets.emplace_back(0, 0);  // padding, as the library's pad()
    }
  }
  return enc;
}

namespace {

/// Drops what a run kept only for the contributions or the lens (`widened`: the forward
/// kept every layer's heads for the contributions).
void trimToOptions(ModelRun& run, const RunOptions& options, bool widened) {
  if (!options.keepHiddenStates) {
    run.hiddenStates.clear();
    run.lastResidual = Mat();
  }
  if (!widened) return;
  if (!options.keepOutputs)
    for (auto& layer : run.layers) layer.output = Mat();
  if (!options.keepQkv)
    for (auto& layer : run.layers)
      for (auto& h : layer.heads) h.q = h.k = h.v = Mat();
  if (!options.keepAttention) {
    run.layers.clear();
  } else if (options.onlyLayer >= 0) {
    AttentionResult kept = std::move(run.layers[static_cast<size_t>(options.onlyLayer)]);
    run.layers.clear();
    run.layers.push_back(std::move(kept));
    run.firstLayer = options.onlyLayer;
  }
}

}  // namespace

Result<ModelRun> Model::run(const Encoding& encoding, const RunOptions& options, const ProgressFn& progress) const {
  const gguf::QuantizedDotScope quantizedDot(options.quantizedDot);
  const HfTokenizer& tok = impl_->tokenizer;
  const ModelConfig& c = impl_->config;
  const auto display = [&tok](int id) { return tok.displayText(id); };
  if (!options.contributions && !options.logitLens)
    return transformerForward(c, impl_->weights, encoding, options, impl_->configPath, display, progress);
  if (options.onlyLayer >= c.layers)
    return Error{fmt::format("{}: layer {} asked for, but the model has {} layers (0 to {})",
                             impl_->configPath, options.onlyLayer, c.layers, c.layers - 1)};
  RunOptions inner = options;
  inner.keepHiddenStates = true;
  if (options.contributions) {  // the maps and values (the forward keeps v for them); q, k only if asked
    inner.keepAttention = true;
    inner.onlyLayer = -1;
  }
  // The forward is most of the time; the contributions and the lens cost a fraction of it.
  ProgressFn forwardProgress, contributionProgress, lensProgress;
  const double contributionShare = options.contributions ? 0.1 : 0.0,
               lensShare = options.logitLens ? 0.1 : 0.0;
  const double forwardShare = 1.0 - contributionShare - lensShare;
  if (progress) {
    forwardProgress = [&progress, forwardShare](double f, std::string_view s) {
      return progress(forwardShare * f, s);
    };
    contributionProgress = [&progress, forwardShare, contributionShare](double f, std::string_view s) {
      return progress(forwardShare + contributionShare * f, s);
    };
    lensProgress = [&progress, lensShare](double f, std::string_view s) {
      return progress(1.0 - lensShare + lensShare * f, s);
    };
  }
  auto run =
      transformerForward(c, impl_->weights, encoding, inner, impl_->configPath, display, forwardProgress);
  if (!run) return run.error();
  if (options.contributions) {
    auto contributions =
        computeContributions(c, impl_->weights, *run, impl_->configPath, contributionProgress);
    if (!contributions) return contributions.error();
    run->contributions = std::make_shared<const Contributions>(std::move(*contributions));
  }
  if (options.logitLens) {
    auto lens = computeLogitLens(c, impl_->weights, *run, options.lensTopK, impl_->configPath, lensProgress);
    if (!lens) return lens.error();
    run->lens = std::make_shared<const LogitLens>(std::move(*lens));
  }
  trimToOptions(*run, options, options.contributions);
  return run;
}

Result<ModelRun> Model::runOnDevice(gpu::Device& device, const Encoding& encoding, const RunOptions& options,
                                    const ProgressFn& progress) const {
  const HfTokenizer& tok = impl_->tokenizer;
  return deviceModelRun(
      device, impl_->deviceWeights, impl_->info, impl_->config, impl_->weights, encoding, options,
      [&tok](int id) { return tok.displayText(id); }, progress);
}

Result<vision::PixelTensor> Model::preprocessImage(const vision::ImagePixels& image,
                                                   const std::string& source) const {
  const ModelConfig& c = impl_->config;
  if (c.family != Family::Vit)
    return Error{fmt::format("{}: {} is a text model ({}): it does not read images", source, impl_->info.name,
                             c.modelType)};
  const vision::ImageProcessorConfig& p = impl_->processor;
  const std::string cfgFile =
      impl_->info.processorFile.empty() ? impl_->configPath : impl_->info.processorFile;
  if (auto st = vision::checkImagePixels(image, source); !st) return st.error();
  // Checked before any pixel is resampled: the processor's output against the model's input.
  const auto [oh, ow] = vision::outputSize(p, image.height, image.width);
  if (oh % c.patchSize != 0 || ow % c.patchSize != 0)
    return Error{
        fmt::format("{}: the image processor gives {}x{} pixels, not a multiple of patch_size {} ({})",
                    cfgFile, ow, oh, c.patchSize, impl_->configPath)};
  if (c.interpolatePositions && int64_t{oh / c.patchSize} * (ow / c.patchSize) > kMaxImagePatches)
    return Error{fmt::format("{}: the image processor gives {}x{} pixels: {} patches of {}, at most {} ({})",
                             cfgFile, ow, oh, int64_t{oh / c.patchSize} * (ow / c.patchSize), c.patchSize,
                             kMaxImagePatches, impl_->configPath)};
  if (!c.interpolatePositions && (oh != c.imageSize || ow != c.imageSize))
    return Error{
        fmt::format("{}: the image processor gives {}x{} pixels but the model takes image_size {}x{} ({})",
                    cfgFile, ow, oh, c.imageSize, c.imageSize, impl_->configPath)};
  return vision::preprocessImage(image, p, source);
}

const vision::ImageProcessorConfig& Model::imageProcessor() const { return impl_->processor; }

Result<ModelRun> Model::runImage(const vision::PixelTensor& pixels, const RunOptions& options,
                                 const ProgressFn& progress) const {
  if (options.contributions)
    return Error{impl_->configPath + ": attention contributions are not computed for vision models"};
  return visionForward(impl_->config, impl_->weights, pixels, options, impl_->configPath, progress);
}

Result<PatchingResult> Model::patch(const Encoding& clean, const Encoding& corrupt, int target, int foil,
                                    const PatchingOptions& options, const ProgressFn& progress) const {
  return activationPatching(impl_->config, impl_->weights, clean, corrupt, target, foil, options,
                            impl_->configPath, progress);
}

Result<GradientAttribution> Model::gradients(const Encoding& enc, int target, const GradientOptions& options,
                                             const ProgressFn& progress) const {
  // The backward pass differentiates the float forward: rounding activations to 8 bits is a
  // step function, so GGUF Q8_0 products run on f32 activations here.
  const gguf::QuantizedDotScope floatProducts(false);
  return gradientAttribution(impl_->config, impl_->weights, enc, target, options, impl_->configPath,
                             progress);
}

Result<FlowRoutes> Model::flowRoutes(const Encoding& encoding, const FlowRouteOptions& options,
                                     const ProgressFn& progress) const {
  const ModelConfig& c = impl_->config;
  if (c.family != Family::Gpt2 && c.family != Family::Llama)
    return Error{
        fmt::format("{}: the contribution graph (information flow routes) is computed for causal "
                    "language models (GPT-2, Llama, Mistral, Qwen2), not {} ({})",
                    impl_->configPath, familyName(c.family), c.modelType)};
  if (auto st = checkFlowRouteOptions(options, encoding.size()); !st)
    return Error{impl_->configPath + ": " + st.error().message};
  // Every layer's heads (weights and v) and inputs, and the last output before the final norm.
  RunOptions inner;
  inner.keepHiddenStates = true;
  inner.topK = 0;
  const gguf::QuantizedDotScope quantizedDot(inner.quantizedDot);
  ProgressFn forwardProgress, routeProgress;
  if (progress) {  // the forward is about as long as the importances
    forwardProgress = [&progress](double f, std::string_view s) { return progress(0.5 * f, s); };
    routeProgress = [&progress](double f, std::string_view s) { return progress(0.5 + 0.5 * f, s); };
  }
  const HfTokenizer& tok = impl_->tokenizer;
  auto run = transformerForward(
      c, impl_->weights, encoding, inner, impl_->configPath, [&tok](int id) { return tok.displayText(id); },
      forwardProgress);
  if (!run) return run.error();
  auto routes = computeFlowImportances(c, impl_->weights, *run, impl_->configPath, routeProgress);
  if (!routes) return routes.error();
  routes->position = options.position < 0 ? encoding.size() - 1 : options.position;
  routes->threshold = options.threshold;
  routes->edges = routeEdges(*routes, routes->position, options.threshold);
  return routes;
}

Result<CausalGeneration> Model::generate(const Encoding& prompt, const CausalGenerateOptions& options,
                                         const ProgressFn& progress) const {
  auto settings = causalGenerationSettings(impl_->info, impl_->config);
  if (!settings) return settings.error();
  return generateCausal(impl_->config, impl_->weights, impl_->tokenizer, *settings, prompt, options,
                        impl_->configPath, progress);
}

Result<std::vector<TopToken>> Model::nextTokensAt(const ModelRun& run, int position, int k) const {
  const ModelInfo& info = impl_->info;
  if (!info.causal)
    return Error{
        fmt::format("{}: {} is bidirectional: it predicts no next token", impl_->configPath, info.name)};
  const auto n = run.finalHidden.rows();
  if (run.finalHidden.cols() != impl_->config.dModel)
    return Error{fmt::format("{}: the run was not made by this model (hidden size {}, the model's {})",
                             impl_->configPath, run.finalHidden.cols(), impl_->config.dModel)};
  if (position < 0 || position >= n)
    return Error{
        fmt::format("{}: position {} is outside the run's {} tokens", impl_->configPath, position, n)};
  if (k < 1) return Error{fmt::format("{}: {} next tokens asked for; at least 1", impl_->configPath, k)};
  const HfTokenizer& tok = impl_->tokenizer;
  const auto display = [&tok](int id) { return tok.displayText(id); };
  auto top = nextTokensAtRows(impl_->weights.lmHead, run.finalHidden, {position}, k, display);
  return std::move(top.front());
}

bool isModelFolder(const std::string& path) {
  std::error_code ec;
  const fs::path p(path);
  if (!fs::is_directory(p, ec)) return false;
  if (fs::is_regular_file(p / "config.json", ec)) return true;
  return fs::is_directory(p / "snapshots", ec) &&
         (p.filename().string().starts_with("models--") || fs::exists(p / "refs", ec));
}

// Declared in single_token.h (the CLI's and the window's target and foil fields).
Result<int> singleTokenId(const Model& model, const std::string& text, const std::string& what) {
  if (text.size() > 1 && text[0] == '#') {
    int id = -1;
    std::istringstream in(text.substr(1));
    if (!(in >> id) || !in.eof() || id < 0 || id >= model.info().vocabSize)
      return Error{fmt::format("{} {}: not a token id of this model (0 to {})", what, text,
                               model.info().vocabSize - 1)};
    return id;
  }
  auto enc = model.encode(text, std::nullopt, what);
  if (!enc) return enc.error();
  std::vector<int> ids;
  for (int i = 0; i < enc->size(); ++i)
    if (enc->special.empty() || !enc->special[static_cast<size_t>(i)])
      ids.push_back(enc->ids[static_cast<size_t>(i)]);
  if (ids.size() != 1)
    return Error{
        fmt::format("{} \"{}\" is {} tokens for this tokenizer; give one token (e.g. with its leading "
                    "space, \" Mary\") or its id as #ID",
                    what, text, ids.size())};
  return ids[0];
}

}  // namespace attn::models
