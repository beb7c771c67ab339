// attnscope-cli run: computes attention and writes the result .npz.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "attn/engine.h"
#include "attn/engine/worker_threads.h"
#include "attn/io/npy_writer.h"
#include "attn/io/npz_stream.h"
#include "attn/models/seq2seq/seq2seq_model.h"
#include "attn/models/staged_reads.h"
#include "attn/models/verified_weights.h"
#include "commands.h"
#include "model_maps.h"
#include "model_request.h"
#include "options.h"
#include "token_offsets.h"
#include "variant_options.h"

namespace attn::cli {

namespace {

Tensor scalar(double v) {
  Tensor t;
  t.shape = {1};
  t.data = {static_cast<float>(v)};
  return t;
}

/// A --model run's .npz written member by member to disk (NpzStreamWriter: no stacked copy of the
/// maps, no archive in memory); the first failure is kept and the later members are skipped.
class ModelRunNpz {
 public:
  explicit ModelRunNpz(const std::string& path) : status_(writer_.open(path)) {}
  void add(const std::string& name, const Tensor& t) {
    if (status_) status_ = writer_.addFloat(name, t);
  }
  void addStrings(const std::string& name, const std::vector<std::string>& s,
                  const std::vector<int64_t>& shape = {}) {
    if (status_) status_ = writer_.addStrings(name, s, shape);
  }
  void addInts(const std::string& name, const std::vector<int32_t>& v, const std::vector<int64_t>& shape) {
    if (status_) status_ = writer_.addInts(name, v, shape);
  }
  /// Every head's `member` of every layer, stacked as `shape`, straight from the run.
  template <typename Member>
  void addStacked(const std::string& name, const std::vector<int64_t>& shape,
                  const std::vector<AttentionResult>& layers, Member member) {
    if (status_) status_ = writer_.beginFloatMember(name, NpyFloat::F32, shape);
    for (const auto& layer : layers)
      for (const auto& h : layer.heads) {
        const auto& m = member(h);
        if (status_) status_ = writer_.appendFloats(m.data(), static_cast<size_t>(m.size()));
      }
    if (status_) status_ = writer_.endMember();
  }
  /// Matrices one after another as one member of `shape`, straight from where they are.
  void addMats(const std::string& name, const std::vector<int64_t>& shape,
               const std::vector<const Mat*>& mats) {
    if (status_) status_ = writer_.beginFloatMember(name, NpyFloat::F32, shape);
    for (const Mat* m : mats)
      if (status_) status_ = writer_.appendFloats(m->data(), static_cast<size_t>(m->size()));
    if (status_) status_ = writer_.endMember();
  }
  Status commit() {
    if (status_) status_ = writer_.commit();
    return status_;
  }

 private:
  NpzStreamWriter writer_;
  Status status_;
};

// Rows of top-k tokens as a string array and their probabilities, both [rows, k].
void addTopRows(ModelRunNpz& npz, const std::string& tokensName, const std::string& probsName,
                const std::vector<std::vector<models::TopToken>>& rows) {
  const int64_t n = static_cast<int64_t>(rows.size());
  int64_t k = 0;  // the longest row: with --next-tokens last only the last one is filled
  for (const auto& row : rows) k = std::max(k, static_cast<int64_t>(row.size()));
  std::vector<std::string> tokens;
  Tensor probs;
  probs.shape = {n, k};
  for (const auto& row : rows)
    for (int64_t j = 0; j < k; ++j) {
      const bool has = j < static_cast<int64_t>(row.size());
      tokens.push_back(has ? row[static_cast<size_t>(j)].token : std::string());
      probs.data.push_back(has ? row[static_cast<size_t>(j)].prob : 0.0f);
    }
  npz.addStrings(tokensName, tokens, {n, k});
  npz.add(probsName, probs);
}

// --intervene: the weights without the interventions, their difference (after - before),
// the final hidden-state change, and for causal models the next-token KL and top-5 at the
// last position and the mean next-token loss; for encoders the [CLS] change.
void addComparison(ModelRunNpz& npz, const ModelRequest& req, const std::vector<int64_t>& shape) {
  const auto& c = *req.comparison;
  Tensor after, before, delta;
  after.shape = before.shape = delta.shape = shape;
  for (const auto* run : {&req.run, &*req.before})
    for (const auto& layer : run->layers)
      for (const auto& h : layer.heads) {
        auto& t = run == &req.run ? after : before;
        t.data.insert(t.data.end(), h.weights.data(), h.weights.data() + h.weights.size());
      }
  delta.data.resize(after.data.size());
  for (size_t i = 0; i < after.data.size() && i < before.data.size(); ++i) delta.data[i] = after.data[i] - before.data[i];
  npz.add("weights_before", before);
  npz.add("delta_weights", delta);
  std::vector<std::string> specs;
  for (const auto& iv : req.interventions) specs.push_back(models::formatIntervention(iv));
  npz.addStrings("interventions", specs);
  npz.add("hidden_change", scalar(c.hiddenChange));
  if (c.causal) {
    npz.add("kl", scalar(c.kl));
    npz.add("kl_position", scalar(c.position));
    if (c.hasLoss) {
      npz.add("loss_before", scalar(c.lossBefore));
      npz.add("loss_after", scalar(c.lossAfter));
    }
    for (const auto* side : {&c.topBefore, &c.topAfter}) {
      const std::string suffix = side == &c.topBefore ? "before" : "after";
      std::vector<std::string> tokens;
      Tensor probs;
      probs.shape = {static_cast<int64_t>(side->size())};
      for (const auto& t : *side) {
        tokens.push_back(t.token);
        probs.data.push_back(t.prob);
      }
      npz.addStrings("top5_" + suffix, tokens);
      npz.add("top5_probs_" + suffix, probs);
    }
  } else {
    npz.add("cls_change", scalar(c.clsChange));
    npz.add("cls_cosine", scalar(c.clsCosine));
    if (!c.masked.empty()) {  // masked-LM models: each [MASK]'s prediction before / after, KL
      const int64_t m = static_cast<int64_t>(c.masked.size());
      Tensor kl;
      kl.shape = {m};
      for (const auto& mc : c.masked) kl.data.push_back(static_cast<float>(mc.kl));
      npz.add("mask_kl", kl);
      for (const bool later : {false, true}) {
        std::vector<std::vector<models::TopToken>> rows;
        for (const auto& mc : c.masked) rows.push_back(later ? mc.topAfter : mc.topBefore);
        addTopRows(npz, later ? "mask_tokens_after" : "mask_tokens_before", later ? "mask_probs_after" : "mask_probs_before",
                   rows);
      }
    }
  }
}

std::string topLine(const std::vector<models::TopToken>& top) {
  std::string line;
  for (const auto& t : top) line += fmt::format("  {:?} {:.3f}", t.token, t.prob);
  return line;
}

void printComparison(const ModelRequest& req) {
  const auto& c = *req.comparison;
  std::string specs;
  for (const auto& iv : req.interventions) specs += (specs.empty() ? "" : ", ") + models::formatIntervention(iv);
  fmt::print("interventions: {}\n", specs);
  float maxDelta = 0;
  int ml = 0, mh = 0;
  for (size_t l = 0; l < c.weights.size(); ++l)
    for (size_t h = 0; h < c.weights[l].size(); ++h)
      if (c.weights[l][h].maxAbs > maxDelta) {
        maxDelta = c.weights[l][h].maxAbs;
        ml = static_cast<int>(l) + req.run.firstLayer;
        mh = static_cast<int>(h);
      }
  if (c.firstChangedLayer >= 0)
    fmt::print("attention maps: first changed layer {}, largest change {:.4f} (layer {} head {})\n",
               c.firstChangedLayer + 1, maxDelta, ml + 1, mh + 1);
  else
    fmt::print("attention maps: unchanged\n");
  fmt::print("final hidden states: relative change {:.4g}\n", c.hiddenChange);
  if (c.causal) {
    if (c.hasLoss) fmt::print("mean next-token loss: {:.4f} -> {:.4f} nats\n", c.lossBefore, c.lossAfter);
    fmt::print("next token after position {}: KL {:.4g} nats\n  before:{}\n  after: {}\n", c.position + 1, c.kl,
               topLine(c.topBefore), topLine(c.topAfter));
  } else {
    fmt::print("[CLS] representation: relative change {:.4g}, cosine {:.4f}\n", c.clsChange, c.clsCosine);
    for (const auto& mc : c.masked)
      fmt::print("masked token at position {}: KL {:.4g} nats\n  before:{}\n  after: {}\n", mc.position + 1, mc.kl,
                 topLine(mc.topBefore), topLine(mc.topAfter));
  }
}

// --quantization-effect: weights_full_precision (the dequantized weights on f32 activations) and
// weights_quantization_delta (quantized - full precision) as `weights`, quantization_max_delta
// [L, H] (max |delta| per head) and, for causal models, quantization_kl (KL(full precision ||
// quantized) of the next token after the last position, nats).
void addQuantizationEffect(ModelRunNpz& npz, const ModelRequest& req, const std::vector<int64_t>& shape) {
  const auto& e = *req.quantization;
  npz.addStacked("weights_full_precision", shape, e.fullPrecision.layers,
                 [](const HeadResult& h) -> const Mat& { return h.weights; });
  Tensor delta, largest;
  delta.shape = shape;
  for (size_t l = 0; l < req.run.layers.size() && l < e.fullPrecision.layers.size(); ++l)
    for (size_t h = 0; h < req.run.layers[l].heads.size(); ++h) {
      const Mat d = req.run.layers[l].heads[h].weights - e.fullPrecision.layers[l].heads[h].weights;
      delta.data.insert(delta.data.end(), d.data(), d.data() + d.size());
      largest.data.push_back(e.comparison.weights[l][h].maxAbs);
    }
  largest.shape = {shape.begin(), shape.end() - 2};
  npz.add("weights_quantization_delta", delta);
  npz.add("quantization_max_delta", largest);
  if (e.comparison.causal) npz.add("quantization_kl", scalar(e.comparison.kl));
}

void printQuantizationEffect(const ModelRequest& req) {
  const auto& e = *req.quantization;
  std::string types;
  for (const auto& t : e.types) types += (types.empty() ? "" : ", ") + t;
  fmt::print("quantization effect: {} products on 8-bit activations against the dequantized weights in f32\n",
             types);
  fmt::print("attention maps: largest |quantized - full precision| {:.4g} (layer {} head {})\n",
             e.largestChange, e.largestLayer + 1, e.largestHead + 1);
  const auto& c = e.comparison;
  if (c.causal)
    fmt::print(
        "next token after position {}: KL(full precision || quantized) {:.4g} nats\n  full precision:{}\n"
        "  quantized:     {}\n",
        c.position + 1, c.kl, topLine(c.topBefore), topLine(c.topAfter));
}

// --contributions: attention_norms [L, H, N, N], attention_norms_resln [L, N, N], alti [L, N, N]
// (with --layer the one layer: [H, N, N], [N, N], [N, N]) and alti_rollout [N, N] through
// the last layer (with --layer through that layer).
void addContributions(ModelRunNpz& npz, const models::Contributions& c, int onlyLayer, int n) {
  const int layers = static_cast<int>(c.alti.size());
  const int first = onlyLayer >= 0 ? onlyLayer : 0, last = onlyLayer >= 0 ? onlyLayer : layers - 1;
  const int heads = c.attentionNorms.empty() ? 0 : static_cast<int>(c.attentionNorms.front().size());
  auto shape = [&](std::vector<int64_t> tail) {
    if (onlyLayer < 0) tail.insert(tail.begin(), layers);
    return tail;
  };
  std::vector<const Mat*> norms, resln, alti;
  for (int l = first; l <= last; ++l) {
    for (const Mat& m : c.attentionNorms[static_cast<size_t>(l)]) norms.push_back(&m);
    resln.push_back(&c.attentionNormsResLn[static_cast<size_t>(l)]);
    alti.push_back(&c.alti[static_cast<size_t>(l)]);
  }
  // Through the last layer the run has it already (L products of N x N matrices at long N).
  const Mat rollout = last == layers - 1 ? Mat() : models::altiRollout(c.alti, last);
  npz.addMats("attention_norms", shape({heads, n, n}), norms);
  npz.addMats("attention_norms_resln", shape({n, n}), resln);
  npz.addMats("alti", shape({n, n}), alti);
  npz.addMats("alti_rollout", {n, n}, {last == layers - 1 ? &c.altiRollout : &rollout});
}

// --model: every layer's weights [L, H, N, N] (one layer with --layer: [H, N, N]),
// their row entropy, the tokens and ids, for causal models the top-5 next tokens
// after each position with their probabilities, and for masked-LM models the
// top 5 at each mask token (mask_tokens / mask_probs [M, 5], mask_positions [M]).
// Past the memory budget, or with --head/--rows/--pool, the run streams (model_maps.h).
int runModelCommand(CommonOptions& opts, const ModelMapOptions& maps, const std::string& out,
                    NpyFloat mapType) {
  opts.modelRunOptions.keepQkv = false;
  opts.modelRunOptions.keepOutputs = false;  // the archive holds the maps, not the heads' outputs
  applyNextTokens(maps, opts.modelRunOptions);
  if (opts.layer > 0) opts.modelRunOptions.onlyLayer = opts.layer - 1;
  bool streamed = false;
  const auto plan = [&](const models::ModelInfo& info, const models::Encoding& enc, models::RunOptions& ro) {
    return planModelMaps(info, enc, opts, maps, ro, streamed);
  };
  auto req = runModelRequest(opts, opts.modelRunOptions, opts.image.empty() ? AdjustRun(plan) : AdjustRun());
  if (!req) return fail(req.error().message);
  if (streamed) return writeStreamedModel(*req, opts, maps, out, mapType);
  const auto written0 = std::chrono::steady_clock::now();
  const auto& info = req->model->info();
  const auto& run = req->run;
  const int n = run.encoding.size();
  const int heads = info.heads;
  const int layers = static_cast<int>(run.layers.size());
  const auto shape = [&](std::vector<int64_t> tail) {  // [L, H, ...], with --layer [H, ...]
    tail.insert(tail.begin(), heads);
    if (opts.layer <= 0) tail.insert(tail.begin(), layers);
    return tail;
  };
  releaseIdleWorkers();  // writing the archive is serial
  ModelRunNpz npz(out);
  npz.addStacked("weights", shape({n, n}), run.layers,
                 [](const HeadResult& h) -> const Mat& { return h.weights; });
  npz.addStacked("entropy", shape({n}), run.layers,
                 [](const HeadResult& h) -> const Vec& { return h.entropy; });
  npz.addStrings("tokens", run.encoding.tokens);
  Tensor ids;
  ids.shape = {n};
  for (int id : run.encoding.ids) ids.data.push_back(static_cast<float>(id));
  npz.add("ids", ids);
  addTokenOffsets(npz, "token_offsets", run.encoding);
  if (!run.nextTokens.empty()) addTopRows(npz, "next_tokens", "next_probs", run.nextTokens);
  if (!run.maskPredictions.empty()) {  // masked-LM models: the top 5 at each mask token
    addTopRows(npz, "mask_tokens", "mask_probs", run.maskPredictions);
    Tensor positions;
    positions.shape = {static_cast<int64_t>(run.maskPositions.size())};
    for (int p : run.maskPositions) positions.data.push_back(static_cast<float>(p));
    npz.add("mask_positions", positions);
  }
  if (info.vision) {  // the pixels the model read [C, H, W], and a classifier's top 5 labels
    const auto& px = run.pixelValues;
    Tensor pixels;
    pixels.shape = {px.channels, px.height, px.width};
    pixels.data = px.values;
    npz.add("pixel_values", pixels);
    if (run.pooledOutput.size() > 0) {  // CLIP: post_layernorm of the last [CLS] state
      Tensor pooled;
      pooled.shape = {static_cast<int64_t>(run.pooledOutput.size())};
      pooled.data.assign(run.pooledOutput.data(), run.pooledOutput.data() + run.pooledOutput.size());
      npz.add("pooler_output", pooled);
    }
    if (!run.topLabels.empty()) {
      std::vector<std::string> labels;
      Tensor probs;
      probs.shape = {static_cast<int64_t>(run.topLabels.size())};
      for (const auto& t : run.topLabels) {
        labels.push_back(t.token);
        probs.data.push_back(t.prob);
      }
      npz.addStrings("labels_top5", labels);
      npz.add("labels_top5_probs", probs);
    }
  }
  if (req->comparison) addComparison(npz, *req, shape({n, n}));
  if (req->quantization) addQuantizationEffect(npz, *req, shape({n, n}));
  if (run.contributions) addContributions(npz, *run.contributions, opts.layer > 0 ? opts.layer - 1 : -1, n);
  if (opts.untruncatedTokens > 0) npz.add("untruncated_tokens", scalar(opts.untruncatedTokens));
  if (auto st = npz.commit(); !st) return fail(st.error().message);
  if (maps.profile) {
    for (const auto& [stage, seconds] : req->stages)
      fmt::print(stderr, "profile {}: {:.3f} s\n", stage, seconds);
    fmt::print(stderr, "profile .npz assembled and written: {:.3f} s\n",
               std::chrono::duration<double>(std::chrono::steady_clock::now() - written0).count());
    // Weights copied out of the page cache (staged_reads.h: files it holds in small pages).
    fmt::print(stderr, "profile weights read with pread: {:.3f} GB\n",
               static_cast<double>(models::stagedBytesRead()) / 1e9);
    fmt::print(stderr,
               "profile weights scanned for NaN/Inf: {:.3f} GB ({:.3f} GB known finite from a scan before)\n",
               static_cast<double>(models::finiteScannedBytes()) / 1e9,
               static_cast<double>(models::finiteRememberedBytes()) / 1e9);
  }
  fmt::print("model: {} ({}, {} layers x {} heads)\n", info.name, models::familyName(info.family), info.layers,
             info.heads);
  if (req->comparison) printComparison(*req);
  if (req->quantization) printQuantizationEffect(*req);
  if (!run.nextTokens.empty() && !run.nextTokens.back().empty()) {
    std::string line;
    for (const auto& t : run.nextTokens.back()) line += fmt::format("  {:?} {:.3f}", t.token, t.prob);
    fmt::print("next token after the last position:{}\n", line);
  }
  if (!run.topLabels.empty()) fmt::print("top labels:{}\n", topLine(run.topLabels));
  for (size_t m = 0; m < run.maskPredictions.size() && m < run.maskPositions.size(); ++m)
    fmt::print("{} at position {}:{}\n", info.maskToken, run.maskPositions[m] + 1, topLine(run.maskPredictions[m]));
  const std::string cut =
      opts.untruncatedTokens > 0
          ? fmt::format(", the first of the text's {}: --max-tokens", opts.untruncatedTokens)
          : std::string();
  fmt::print("wrote {} ({} layer(s), {} heads, {} tokens{})\n", out, layers, heads, n, cut);
  return 0;
}

}  // namespace

Action addRunCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "Compute attention and write scores, weights, output, entropy (.npz)");
  auto opts = std::make_shared<CommonOptions>();
  auto out = std::make_shared<std::string>();
  auto force = std::make_shared<bool>(false);
  auto dtype = std::make_shared<std::string>("f32");
  auto variant = std::make_shared<VariantCliOptions>();
  auto target = std::make_shared<std::string>();
  auto maps = std::make_shared<ModelMapOptions>();
  addCommonOptions(*cmd, *opts);
  addModelMapOptions(*cmd, *maps);
  cmd->add_option("--target-text", *target,
                  "With --model on an encoder-decoder model (bart, mbart, marian, t5, mt5): the target the "
                  "decoder reads "
                  "(forced decoding); writes encoder_weights, decoder_weights, cross_weights, source_tokens, "
                  "target_tokens")
      ->needs(cmd->get_option("--model"));
  addVariantOptions(*cmd, *variant);
  cmd->add_option("--out", *out, "Result file (.npz)")->required();
  cmd->add_option("--weights-dtype", *dtype,
                  "Element type of the N x N arrays 'weights' and 'scores': f32, or f16 (half the file, "
                  "about 3 significant digits: enough to view)")
      ->check(CLI::IsMember({"f32", "f16"}))
      ->capture_default_str();
  cmd->add_flag("--force", *force, "Overwrite an existing output file");
  cmd->add_flag("--contributions", opts->modelRunOptions.contributions,
                "With --model: also write attention_norms, attention_norms_resln, alti and alti_rollout "
                "(what each token contributes: Kobayashi et al. 2020/2021, Ferrando et al. 2022)");
  cmd->add_flag("--quantization-effect", opts->quantizationEffect,
                "With a GGUF --model whose matrices are Q8_0, Q4_K or Q6_K: also run it at full precision "
                "(the dequantized weights on f32 activations) and write weights_full_precision, "
                "weights_quantization_delta (quantized - full precision), quantization_max_delta [L, H] "
                "and quantization_kl (the next token's KL)")
      ->needs(cmd->get_option("--model"));
  return [cmd, opts, out, force, dtype, variant, target, maps]() -> int {
    if (!cmd->parsed()) return -1;
    if (!out->ends_with(".npz")) return fail(fmt::format("{}: --out of run must end in .npz", *out));
    if (auto st = checkOverwrite(*out, *force); !st) return fail(st.error().message);
    if (!opts->modelDir.empty() && models::isEncoderDecoderFolder(opts->modelDir)) {
      if (opts->modelRunOptions.contributions || variant->active() || opts->quantizationEffect)
        return fail(
            "--contributions, --quantization-effect and attention variants do not apply to an "
            "encoder-decoder model");
      return runSeq2SeqForced(*opts, *target, *out);
    }
    if (!target->empty())
      return fail(
          fmt::format("--target-text: {} is not an encoder-decoder model; a target text is read only by "
                      "translation models (bart, mbart, marian, t5, mt5)",
                      opts->modelDir));
    if (opts->modelRunOptions.contributions && opts->modelDir.empty())
      return fail("--contributions needs --model (a pretrained model's forward pass)");
    if (opts->quantizationEffect &&
        (opts->modelRunOptions.contributions || variant->active() || maps->partial()))
      return fail(
          "--quantization-effect writes whole maps of the model's own run: leave out --contributions, "
          "attention variants, --head, --rows and --pool");
    if (variant->active()) return runVariantCommand(*opts, *variant, *out);
    if (maps->partial() && opts->modelDir.empty())
      return fail("--head, --rows and --pool choose the maps of a --model run");
    if (!opts->modelDir.empty())
      return runModelCommand(*opts, *maps, *out, *dtype == "f16" ? NpyFloat::F16 : NpyFloat::F32);
    auto req = buildRequest(*opts);
    if (!req) return fail(req.error().message);
    auto res = runRequest(*opts, req->first, req->second);
    if (!res) return fail(res.error().message);
    releaseIdleWorkers();  // writing the archive is serial

    // Each member streams to disk straight from the heads: no stacked copies,
    // no archive in memory.
    const NpyFloat mapType = *dtype == "f16" ? NpyFloat::F16 : NpyFloat::F32;
    const int nh = res->numHeads();
    NpzStreamWriter npz;
    if (auto st = npz.open(*out); !st) return fail(st.error().message);
    auto stacked = [&](const std::string& name, NpyFloat type, auto member) -> Status {
      const Mat& first = member(res->heads[0]);
      if (auto st = npz.beginFloatMember(name, type, {nh, first.rows(), first.cols()}); !st) return st;
      for (int h = 0; h < nh; ++h) {
        const Mat& m = member(res->heads[static_cast<size_t>(h)]);
        if (type == NpyFloat::F16 && m.size() > 0 && m.cwiseAbs().maxCoeff() > 65504.0f)
          return Error{fmt::format("{}: head {} '{}' has values beyond float16's range (65504); use --weights-dtype f32",
                                   *out, h + 1, name)};
        if (auto st = npz.appendFloats(m.data(), static_cast<size_t>(m.size())); !st) return st;
      }
      return npz.endMember();
    };
    // Precomputed weights (--input with only 'attn') have no logits or outputs to write.
    Status st = okStatus();
    if (res->heads[0].scaledLogits.size() > 0)
      st = stacked("scores", mapType, [](const HeadResult& h) -> const Mat& { return h.scaledLogits; });
    if (st) st = stacked("weights", mapType, [](const HeadResult& h) -> const Mat& { return h.weights; });
    if (st && res->heads[0].output.size() > 0)
      st = stacked("output", NpyFloat::F32, [](const HeadResult& h) -> const Mat& { return h.output; });
    if (st) {
      Mat entropy(nh, res->nq());
      for (int h = 0; h < nh; ++h) entropy.row(h) = res->heads[static_cast<size_t>(h)].entropy.transpose();
      st = npz.addFloat("entropy", Tensor::fromMat(entropy));
    }
    if (st && nh > 0 && res->heads[0].approxError) {
      Mat err(nh, 3);  // weights Frobenius, mean row KL, output rel. error
      for (int h = 0; h < nh; ++h) {
        const auto& e = *res->heads[static_cast<size_t>(h)].approxError;
        err.row(h) << static_cast<float>(e.weightsFrobenius), static_cast<float>(e.meanRowKl),
            static_cast<float>(e.outputRelError);
      }
      st = npz.addFloat("approx_error", Tensor::fromMat(err));
    }
    if (st) st = npz.addStrings("tokens", res->queryTokens);
    if (st) st = npz.addStrings("key_tokens", res->keyTokens);
    if (st) st = npz.commit();
    if (!st) return fail(st.error().message);
    for (const auto& w : res->warnings) fmt::print(stderr, "warning: {}\n", w);
    fmt::print("exec: {}{}\n", res->execUsed, req->second.exec == ExecPath::Auto ? " (picked by auto)" : "");
    for (int h = 0; h < res->numHeads(); ++h)
      if (const auto& e = res->heads[static_cast<size_t>(h)].approxError)
        fmt::print("head {}: vs exact softmax: weights Frobenius {:.4g}, mean row KL {:.4g}, output rel. error {:.4g}\n",
                   h, e->weightsFrobenius, e->meanRowKl, e->outputRelError);
    fmt::print("wrote {} ({} heads, {} x {})\n", *out, res->numHeads(), res->nq(), res->nk());
    return 0;
  };
}

}  // namespace attn::cli
