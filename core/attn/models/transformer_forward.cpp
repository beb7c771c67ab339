#include "attn/models/transformer_forward.h"

#include <fmt/format.h>

#include <algorithm>

#include "attn/models/families/families.h"
#include "attn/models/streamed/streamed_attention.h"

namespace attn::models {

Status checkModelEncoding(const ModelConfig& c, const Encoding& enc, const std::string& src) {
  const int n = enc.size();
  if (n == 0) return Error{src + ": nothing to run: the input has no tokens"};
  if (c.maxSequence() > 0 && n > c.maxSequence())
    return Error{fmt::format("{}: the input has {} tokens but max_position_embeddings allows {}", src, n,
                             c.maxSequence())};
  for (int i = 0; i < n && c.family != Family::Vit; ++i) {  // vision models: no vocabulary (ids 0)
    const int id = enc.ids[static_cast<size_t>(i)];
    if (id < 0 || id >= c.vocabSize)
      return Error{fmt::format("{}: token id {} at position {} is outside the vocabulary (vocab_size {})",
                               src, id, i, c.vocabSize)};
  }
  if (!enc.typeIds.empty() && enc.typeIds.size() != static_cast<size_t>(n))
    return Error{fmt::format("{}: {} type ids for {} tokens", src, enc.typeIds.size(), n)};
  if (!enc.attention.empty() && enc.attention.size() != static_cast<size_t>(n))
    return Error{fmt::format("{}: {} attention mask entries for {} tokens", src, enc.attention.size(), n)};
  for (size_t i = 0; i < enc.typeIds.size(); ++i)
    if (enc.typeIds[i] != 0 &&
        (c.family != Family::Bert || enc.typeIds[i] < 0 || enc.typeIds[i] >= c.typeVocabSize))
      return Error{fmt::format("{}: token type id {} at position {} is outside type_vocab_size {}", src,
                               enc.typeIds[i], i, c.family == Family::Bert ? c.typeVocabSize : 0)};
  return okStatus();
}

namespace {

/// The encoding's faults and a layer the model lacks.
Status checkEncoding(const ModelConfig& c, const Encoding& enc, const RunOptions& opt,
                     const std::string& src) {
  if (auto st = checkModelEncoding(c, enc, src); !st) return st;
  if (opt.onlyLayer >= c.layers)
    return Error{fmt::format("{}: layer {} asked for, but the model has {} layers (0 to {})", src,
                             opt.onlyLayer, c.layers, c.layers - 1)};
  return okStatus();
}

/// The first layer to compute (the ones before it come from the prefix cache), and
/// a run without interventions starts filling the cache afresh.
int prepareCache(const ModelConfig& c, const ModelWeights& w, const Encoding& enc, const RunOptions& opt,
                 const std::vector<std::vector<HeadEdit>>& edits) {
  const int start =
      reusableLayers(opt.cache, &w, enc, c.layers, opt.interventions.empty() ? -1 : firstEditedLayer(edits),
                     opt.keepAttention ? opt.onlyLayer : c.layers);
  if (opt.cache) {
    opt.cache->reusedLayers = start;
    if (opt.interventions.empty()) {
      opt.cache->clear();
      opt.cache->owner = &w;
      opt.cache->ids = enc.ids;
      opt.cache->typeIds = enc.typeIds;
      opt.cache->attention = enc.attention;
    }
  }
  return start;
}

/// Layers start..end of the family's graph on h, keeping what RunOptions asks for.
Status runLayers(const FamilyGraph& graph, ForwardPass& f, int start, const Mask& mask, Mat& h, ModelRun& run,
                 const std::string& src, const ProgressFn& progress) {
  const ModelConfig& c = f.config;
  const RunOptions& opt = f.opt;
  if (start > 0) {  // the layers before the first intervened one: as the cached run computed them
    if (opt.keepHiddenStates)
      for (int l = 0; l < start; ++l)
        run.hiddenStates.push_back(opt.cache->layerInputs[static_cast<size_t>(l)]);
    h = opt.cache->layerInputs[static_cast<size_t>(start)];
  }
  for (int l = start; l < c.layers; ++l) {
    if (progress && !progress(static_cast<double>(l) / (c.layers + 1), "running layers"))
      return Error{src + ": cancelled"};
    const bool store = opt.keepAttention && !opt.streamed && (opt.onlyLayer < 0 || opt.onlyLayer == l);
    if (opt.keepHiddenStates) run.hiddenStates.push_back(h);
    if (opt.cache && opt.interventions.empty()) opt.cache->layerInputs.push_back(h);
    AttentionResult res;
    graph.layer(f, l, h, store, res);
    if (!store) continue;
    res.queryTokens = f.enc.tokens;
    res.keyTokens = f.enc.tokens;
    res.concatOutput = f.concat;
    res.mask = mask;
    res.backendUsed = "cpu";
    res.execUsed = "naive";
    run.layers.push_back(std::move(res));
  }
  return okStatus();
}

}  // namespace

FamilyGraph familyGraph(Family family) {
  switch (family) {
    case Family::Gpt2:
      return gpt2Graph();
    case Family::Bert:
      return bertGraph();
    case Family::Llama:
      return llamaGraph();
    case Family::Vit:
      return vitGraph();
  }
  return gpt2Graph();
}

FamilyGraph familyGraph(const ModelConfig& c) {
  if (c.family == Family::Vit && c.visionArch == VisionArch::Dinov2) return dinov2Graph();
  if (c.family == Family::Vit && c.visionArch == VisionArch::ClipVision) return clipVisionGraph();
  return familyGraph(c.family);
}

Result<Mask> modelMask(const ModelConfig& c, const Encoding& enc) {
  const int n = enc.size();
  int real = n;  // attention 1 then only 0: "padding:L"; anything else: a custom bitmap
  bool trailing = true;
  if (!enc.attention.empty()) {
    real = static_cast<int>(std::find(enc.attention.begin(), enc.attention.end(), 0) - enc.attention.begin());
    trailing = std::all_of(enc.attention.begin() + real, enc.attention.end(), [](uint8_t a) { return a == 0; });
  }
  std::string spec;
  if (c.family != Family::Bert && c.family != Family::Vit) spec = "causal";
  if (c.slidingWindow > 0 && n > c.slidingWindow) spec += fmt::format("+window:{}", c.slidingWindow - 1);
  if (real < n && trailing) spec += fmt::format("{}padding:{}", spec.empty() ? "" : "+", real);
  Mask m;
  if (!spec.empty()) {
    auto p = Mask::parse(spec);
    if (!p) return p.error();
    m = *p;
  }
  if (!trailing) {
    std::vector<uint8_t> keep(static_cast<size_t>(n) * static_cast<size_t>(n));
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        keep[static_cast<size_t>(i) * static_cast<size_t>(n) + static_cast<size_t>(j)] =
            enc.attention[static_cast<size_t>(j)] != 0;
    m = m.isNone() ? Mask::custom(std::move(keep), n, n) : m.withCustom(std::move(keep), n, n);
  }
  return m.bind(n, n, enc.tokens.size() == static_cast<size_t>(n) ? enc.tokens : std::vector<std::string>{});
}

namespace {

Result<ModelRun> forwardOver(const ModelConfig& c, const ModelWeights& w, const Encoding& enc,
                             const vision::PixelTensor* pixels, const RunOptions& opt, const std::string& src,
                             const std::function<std::string(int)>& display, const ProgressFn& progress) {
  if (auto st = checkEncoding(c, enc, opt, src); !st) return st.error();
  if (opt.streamed && (!opt.interventions.empty() || opt.contributions))
    return Error{src +
                 ": a streamed run keeps no attention maps; interventions and contributions need them "
                 "(run without streaming, on a shorter text)"};
  const int n = enc.size();
  auto mask = modelMask(c, enc);
  if (!mask) return Error{src + ": " + mask.error().message};
  const std::vector<uint8_t> keep =
      mask->isNone() || opt.streamed ? std::vector<uint8_t>{} : mask->bitmap(n, n);  // streamed: no N x N
  auto edits = headEdits(c.layers, c.heads, enc, keep, opt.interventions, src);
  if (!edits) return edits.error();
  const int start = prepareCache(c, w, enc, opt, *edits);

  ModelRun run;
  run.encoding = enc;
  ForwardPass f(c, w, enc, opt, keep, *edits, display);
  f.pixels = pixels;
  std::shared_ptr<QkStore> store;
  StreamedOutputs streamed;
  RunningRollout rollout;
  if (opt.streamed) {
    if (opt.keepStreamedQk)
      store = std::make_shared<QkStore>(c.layers, n, c.heads, c.kvHeads, c.headDim, opt.qkPrecision, *mask);
    // keepAttention false: the forward's output alone (no per-head measures either).
    streamed = {mask->isNone() ? nullptr : &*mask,
                opt.streamedAnalysis,
                store.get(),
                opt.keepAttention ? &run.streamedLayers : nullptr,
                opt.windowLayers,
                opt.windowStart,
                opt.windowFirstRow};
    if (opt.streamedRollout && opt.keepAttention && !opt.windowLayers && opt.onlyLayer < 0 && start == 0)
      streamed.rollout = &rollout;
    f.streamed = &streamed;
  }
  const FamilyGraph graph = familyGraph(c);
  Mat h;
  graph.embed(f, h);
  if (opt.keepHiddenStates) run.hiddenStates.reserve(static_cast<size_t>(c.layers) + 1);
  if (auto st = runLayers(graph, f, start, *mask, h, run, src, progress); !st) return st.error();
  // The head after the last layer (lm_head over the vocabulary at every position) can take
  // as long as several layers at long N: one more report, so a cancel need not wait for it.
  if (progress && !progress(static_cast<double>(c.layers) / (c.layers + 1), "output head"))
    return Error{src + ": cancelled"};
  graph.output(f, h, run);
  run.qk = std::move(store);
  if (rollout.layers() == c.layers) run.streamedRollout = rollout.current();
  run.firstLayer = opt.onlyLayer >= 0 ? opt.onlyLayer : 0;
  if (progress && !progress(1.0, "done")) return Error{src + ": cancelled"};
  return run;
}

}  // namespace

Result<ModelRun> transformerForward(const ModelConfig& c, const ModelWeights& w, const Encoding& enc,
                                    const RunOptions& opt, const std::string& src,
                                    const std::function<std::string(int)>& display,
                                    const ProgressFn& progress) {
  if (c.family == Family::Vit)
    return Error{fmt::format("{}: a {} model reads an image, not text", src, c.modelType)};
  return forwardOver(c, w, enc, nullptr, opt, src, display, progress);
}

Encoding visionEncoding(const ModelConfig& c, int gridRows, int gridCols) {
  Encoding enc;
  enc.tokens.push_back("[CLS]");
  for (int r = 0; r < c.registerTokens; ++r) enc.tokens.push_back(fmt::format("[REG{}]", r));
  if (c.registerTokens == 0 && c.prefixTokens > 1) enc.tokens.push_back("[DIST]");
  enc.special.assign(enc.tokens.size(), 1);
  for (int r = 0; r < gridRows; ++r)
    for (int q = 0; q < gridCols; ++q) {
      enc.tokens.push_back(fmt::format("r{}c{}", r, q));
      enc.special.push_back(0);
    }
  enc.ids.assign(enc.tokens.size(), 0);
  return enc;
}

Result<ModelRun> visionForward(const ModelConfig& c, const ModelWeights& w, const vision::PixelTensor& px,
                               const RunOptions& opt, const std::string& src, const ProgressFn& progress) {
  if (c.family != Family::Vit)
    return Error{fmt::format("{}: a {} model reads text, not an image", src, c.modelType)};
  if (px.channels != c.numChannels ||
      px.values.size() != static_cast<size_t>(px.channels) * px.height * px.width)
    return Error{
        fmt::format("{}: the pixels have {} channels; the model takes {}", src, px.channels, c.numChannels)};
  if (px.height % c.patchSize != 0 || px.width % c.patchSize != 0)
    return Error{
        fmt::format("{}: the image is {}x{} pixels after preprocessing, not a multiple of patch_size {}", src,
                    px.width, px.height, c.patchSize)};
  const int64_t patches = int64_t{px.height / c.patchSize} * (px.width / c.patchSize);
  if (c.interpolatePositions && patches > kMaxImagePatches)
    return Error{
        fmt::format("{}: the image is {}x{} pixels after preprocessing: {} patches of {}, at most {}", src,
                    px.width, px.height, patches, c.patchSize, kMaxImagePatches)};
  if (!c.interpolatePositions && (px.height != c.imageSize || px.width != c.imageSize))
    return Error{
        fmt::format("{}: the image is {}x{} pixels after preprocessing but the model's position embeddings "
                    "are for image_size {}x{}",
                    src, px.width, px.height, c.imageSize, c.imageSize)};
  const Encoding enc = visionEncoding(c, px.height / c.patchSize, px.width / c.patchSize);
  RunOptions o = opt;
  o.cache = nullptr;  // the prefix cache compares ids, which are all 0 here
  auto run = forwardOver(c, w, enc, &px, o, src, {}, progress);
  if (!run) return run.error();
  run->pixelValues = px;
  return run;
}

}  // namespace attn::models
