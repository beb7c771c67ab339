// attnscope-cli metrics: every per-head measure (core/attn/analysis), for an
// engine run (--text ...) or precomputed weights (--attn FILE), as a text
// table, JSON (--json) or CSV (--csv FILE).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "attn/engine.h"
#include "attn/engine/memory_budget.h"
#include "attn/engine/worker_threads.h"
#include "attn/io/atomic_file.h"
#include "attn/io/input_file.h"
#include "attn/io/npy_reader.h"
#include "attn/metrics.h"
#include "attn/models/streamed/windowed_run.h"
#include "attn/vision/maps/patch_maps.h"
#include "commands.h"
#include "head_types_report.h"
#include "metrics_report.h"
#include "model_request.h"
#include "options.h"

namespace attn::cli {
namespace {

struct MetricsOptions {
  std::string attnFile;
  std::string csv;
  bool json = false;
  bool bits = false;
  bool force = false;
  bool profile = false;
  std::string divergence = "auto";
  int divergenceRows = 2048;
  std::string analysisPath = "auto";
  AnalysisOptions analysis;
  // --model: what the model itself predicts and what --intervene changed, added to the report.
  nlohmann::json modelJson = nlohmann::json::object();
  std::string modelText;
  // --model: every head's type from a run on a repeated random sequence (head_types_run.h).
  std::optional<models::ModelHeadTypes> headTypes;
  std::string rolloutNote;  // --model, streamed: why the rollout was not computed ("" : the default)
};

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct Precomputed {
  LayeredWeights layers;  // [L][H], L = 1 for 2-D and 3-D arrays
  bool hasLayerAxis = false;
  std::vector<std::string> tokens, keyTokens;
};

// Precomputed weights: an .npy, or an .npz holding `attn` (the input contract)
// or `weights` (what `run` writes), shaped [Nq,Nk], [H,Nq,Nk] or [L,H,Nq,Nk].
Result<Precomputed> loadPrecomputed(const std::string& path) {
  std::vector<NpyArray> arrays;
  if (path.ends_with(".npz")) {
    auto r = readNpzFile(path);
    if (!r) return r.error();
    arrays = std::move(r).value();
  } else if (path.ends_with(".npy")) {
    auto r = readNpyFile(path);
    if (!r) return r.error();
    r->name = "attn";
    arrays.push_back(std::move(r).value());
  } else {
    return Error{fmt::format("{}: --attn takes an .npy or .npz file", path)};
  }
  const NpyArray* attn = nullptr;
  Precomputed p;
  for (const auto& a : arrays) {
    if ((a.name == "attn" || (a.name == "weights" && !attn)) && !a.isText) attn = &a;
    if (a.name == "tokens" && a.isText) p.tokens = a.strings;
    if (a.name == "key_tokens" && a.isText) p.keyTokens = a.strings;
  }
  if (!attn) return Error{fmt::format("{}: no numeric array named 'attn' or 'weights'", path)};
  const auto& shape = attn->shape;
  if (shape.size() < 2 || shape.size() > 4)
    return Error{fmt::format("{}: '{}' has shape {}; expected [Nq,Nk], [H,Nq,Nk] or [L,H,Nq,Nk]", path,
                             attn->name, attn->shapeString())};
  const int64_t nl = shape.size() == 4 ? shape[0] : 1;
  const int64_t nh = shape.size() >= 3 ? shape[shape.size() - 3] : 1;
  const int64_t nq = shape[shape.size() - 2], nk = shape[shape.size() - 1];
  if (nl == 0) return Error{fmt::format("{}: '{}' has no layers (shape {})", path, attn->name, attn->shapeString())};
  const float* v = attn->values.data.data();
  for (int64_t k = 0; k < attn->values.size(); ++k)
    if (!std::isfinite(v[k])) {
      const int64_t j = k % std::max<int64_t>(nk, 1), i = k / std::max<int64_t>(nk, 1) % std::max<int64_t>(nq, 1);
      return Error{fmt::format("{}: '{}' has a non-finite value at flat index {} (row {}, column {})", path,
                               attn->name, k, i, j)};
    }
  p.hasLayerAxis = shape.size() == 4;
  p.layers.resize(static_cast<size_t>(nl));
  for (int64_t l = 0; l < nl; ++l)
    for (int64_t h = 0; h < nh; ++h)
      p.layers[static_cast<size_t>(l)].push_back(
          ConstMatMap(v + (l * nh + h) * nq * nk, static_cast<Eigen::Index>(nq), static_cast<Eigen::Index>(nk)));
  if (p.keyTokens.empty()) p.keyTokens = p.tokens;
  return p;
}

Status checkOptions(MetricsOptions& o) {
  o.analysis.unit = o.bits ? EntropyUnit::Bits : EntropyUnit::Nats;
  const double c = o.analysis.coverageLevel;
  if (!(c > 0.0 && c <= 1.0)) return Error{fmt::format("--coverage must be in (0, 1] (got {:g})", c)};
  for (auto [name, value] : {std::pair{"--collapse-entropy", o.analysis.collapse.uniformEntropy},
                             std::pair{"--collapse-mass", o.analysis.collapse.oneHotMass},
                             std::pair{"--collapse-share", o.analysis.collapse.rowShare}})
    if (!(value >= 0.0 && value <= 1.0)) return Error{fmt::format("{} must be in [0, 1] (got {:g})", name, value)};
  auto& d = o.analysis.divergence;
  if (o.divergence == "auto") d.mode = DivergenceOptions::Mode::Auto;
  else if (o.divergence == "exact") d.mode = DivergenceOptions::Mode::Exact;
  else if (o.divergence == "sampled") d.mode = DivergenceOptions::Mode::Sampled;
  else return Error{fmt::format("--divergence: expected auto, exact or sampled (got '{}')", o.divergence)};
  if (o.divergenceRows < 1) return Error{fmt::format("--divergence-rows must be at least 1 (got {})", o.divergenceRows)};
  d.sampleRows = o.divergenceRows;
  if (o.analysisPath != "auto" && o.analysisPath != "streamed" && o.analysisPath != "materialized")
    return Error{fmt::format("--analysis-path: expected auto, streamed or materialized (got '{}')", o.analysisPath)};
  if (!o.csv.empty()) {
    if (!o.csv.ends_with(".csv")) return Error{fmt::format("{}: --csv must name a .csv file", o.csv)};
    if (auto st = checkOverwrite(o.csv, o.force); !st) return st;
  }
  return okStatus();
}

void printWarnings(const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) fmt::print(stderr, "warning: {}\n", w);
}

// `headsOf`: doc holds the analysis' summary only, its heads are printed one at a time.
// headsOf / layersOf: the analyses whose heads `doc` left null (added with
// addAnalysisSummaryJson), printed one head at a time.
int finish(const MetricsOptions& o, const nlohmann::json& doc, const std::string& text,
           const std::string& csv, const Analysis* headsOf = nullptr,
           const std::vector<Analysis>* layersOf = nullptr) {
  if (!o.csv.empty())
    if (auto st = writeFileAtomic(o.csv, csvHeader() + csv); !st) return fail(st.error().message);
  if (o.json && headsOf) {
    printAnalysisJson(stdout, doc, *headsOf);
  } else if (o.json && layersOf) {
    printLayeredAnalysisJson(stdout, doc, *layersOf);
  } else if (o.json) {
    fmt::print("{}\n", doc.dump(2));
  } else {
    fmt::print("{}", text);
  }
  return 0;
}

// The mask without its pattern terms (window, block, random, ...): the dense
// attention a sparse pattern approximates, under the same causal/padding rule.
Mask restrictingTerms(const Mask& mask) {
  Mask out;
  const std::string spec = mask.spec();
  size_t start = 0;
  while (start <= spec.size()) {
    const size_t end = std::min(spec.find('+', start), spec.size());
    if (auto term = Mask::parse(spec.substr(start, end - start)); term && !term->isNone() && term->terms()[0].restricts())
      out = out.isNone() ? *term : out + *term;
    start = end + 1;
  }
  return out;
}

// Against exact attention: an approximate path's own comparison with
// exact softmax (the engine computes it), or a sparse pattern mask's weights
// against the dense attention under the mask's causal/padding terms.
void addVsExact(const AttentionInput& input, const AttentionSpec& spec, const AttentionResult& res,
                nlohmann::json& doc, std::string& text) {
  auto rows = nlohmann::json::array();
  for (int h = 0; h < res.numHeads(); ++h)
    if (const auto& e = res.heads[static_cast<size_t>(h)].approxError) {
      rows.push_back({{"head", h + 1}, {"reference", "exact softmax"}, {"weights_frobenius", e->weightsFrobenius},
                      {"mean_row_kl", e->meanRowKl}, {"output_rel_error", e->outputRelError}});
      text += fmt::format("head {}: vs exact softmax: weights Frobenius {:.4g}, mean row KL {:.4g} nats, output "
                          "rel. error {:.4g}\n", h + 1, e->weightsFrobenius, e->meanRowKl, e->outputRelError);
    }
  bool pattern = false;
  for (const auto& t : spec.mask.terms()) pattern |= !t.restricts();
  if (rows.empty() && pattern && res.numHeads() > 0 && res.heads[0].weights.size() > 0) {
    AttentionSpec dense = spec;
    dense.mask = restrictingTerms(spec.mask);
    const std::string ref = fmt::format("dense attention (mask '{}')", dense.mask.spec());
    auto exact = runAttention(input, dense);
    if (!exact) {
      doc["vs_exact_note"] = exact.error().message;
    } else {
      for (int h = 0; h < res.numHeads(); ++h) {
        auto e = approximationError(exact->heads[static_cast<size_t>(h)].weights, res.heads[static_cast<size_t>(h)].weights);
        if (!e) continue;
        rows.push_back({{"head", h + 1}, {"reference", ref}, {"weights_frobenius", e->frobenius},
                        {"relative_frobenius", e->relativeFrobenius}, {"mean_row_kl", e->meanRowKl},
                        {"max_row_kl", e->maxRowKl}, {"worst_row", e->worstRow}});
        text += fmt::format("head {}: vs {}: weights Frobenius {:.4g}, mean row KL {:.4g} nats (worst row {})\n", h + 1,
                            ref, e->frobenius, e->meanRowKl, e->worstRow);
      }
    }
  }
  if (!rows.empty()) doc["vs_exact"] = std::move(rows);
}

// Query and key rows of an engine input (projected q/k, or embeddings).
std::pair<int, int> inputRows(const AttentionInput& in) {
  if (!in.q.empty() && !in.k.empty()) return {static_cast<int>(in.queryRows()), static_cast<int>(in.k[0].rows())};
  const auto nq = static_cast<int>(in.x.rows());
  return {nq, in.xKv.size() > 0 ? static_cast<int>(in.xKv.rows()) : nq};
}

void printProfile(const MetricsOptions& o, AnalysisProfile& prof, Clock::time_point start) {
  if (!o.profile) return;
  prof.wallSeconds = secondsSince(start);
  fmt::print(stderr, "{}", profileText(prof));
}

int runOnEngine(const CommonOptions& common, const MetricsOptions& o) {
  const auto start = Clock::now();
  AnalysisProfile prof;
  auto req = buildRequest(common);
  if (!req) return fail(req.error().message);
  prof.add("load input, build request", secondsSince(start));
  const bool engineInput = !common.loaded || common.loaded->hasEngineInput();
  AttentionSpec streamSpec = req->second;
  if (o.analysisPath == "streamed" && streamSpec.exec == ExecPath::Auto) streamSpec.exec = ExecPath::Tiled;
  const auto [nq, nk] = inputRows(req->first);
  const bool streamable = engineInput && canStreamAnalysis(streamSpec, nq, nk);
  if (o.analysisPath == "streamed" && !streamable)
    return fail("--analysis-path streamed: needs the CPU tiled or sparse path, a mechanism it covers and a mask "
                "without pattern terms (causal/padding only)");
  if (!(streamable && o.analysisPath != "materialized") &&
      (req->first.valuesDropped() || req->first.queriesDropped())) {
    // The engine computes outputs here: read the file again, with its values this time.
    req = buildRequest(common);
    if (!req) return fail(req.error().message);
  }
  if (streamable && o.analysisPath != "materialized") {
    auto sm = analyzeAttentionStreamed(std::move(req->first), streamSpec, o.analysis, o.profile ? &prof : nullptr);
    if (!sm) return fail(sm.error().message);
    releaseIdleWorkers();  // the rest is the report, on this thread alone
    const auto t0 = Clock::now();
    const Analysis& an = sm->analysis;
    nlohmann::json doc = optionsJson(o.analysis);
    doc["n_query"] = sm->nq;
    doc["n_key"] = sm->nk;
    doc["mechanism"] = common.mechanism;
    doc["mask"] = req->second.mask.spec();
    doc["analysis_path"] = "streamed";
    auto warnings = sm->warnings;
    warnings.insert(warnings.end(), an.warnings.begin(), an.warnings.end());
    doc["warnings"] = warnings;
    addAnalysisSummaryJson(doc, an);
    printWarnings(warnings);
    const std::string title = fmt::format("{} x {} tokens, mechanism {}, mask {}, entropy in {}", sm->nq, sm->nk,
                                          common.mechanism, req->second.mask.spec(), unitName(o.analysis.unit));
    const int rc = finish(o, doc, analysisText(an, title), csvRows(an, 0), &an);
    prof.add("report (JSON, text, CSV)", secondsSince(t0));
    printProfile(o, prof, start);
    return rc;
  }
  auto t0 = Clock::now();
  auto res = runRequest(common, req->first, req->second);
  if (!res) return fail(res.error().message);
  prof.add("engine run (weights materialized)", secondsSince(t0));
  t0 = Clock::now();
  const Analysis an = analyzeResult(*res, o.analysis);
  releaseIdleWorkers();
  prof.add("analysis (all measures, head divergence)", secondsSince(t0));
  t0 = Clock::now();

  nlohmann::json doc = optionsJson(o.analysis);
  doc["n_query"] = res->nq();
  doc["n_key"] = res->nk();
  doc["mechanism"] = common.mechanism;
  doc["mask"] = req->second.mask.spec();
  doc["analysis_path"] = "materialized";
  auto warnings = res->warnings;
  warnings.insert(warnings.end(), an.warnings.begin(), an.warnings.end());
  doc["warnings"] = warnings;
  addAnalysisSummaryJson(doc, an);
  printWarnings(warnings);
  const std::string title = fmt::format("{} x {} tokens, mechanism {}, mask {}, entropy in {}", res->nq(), res->nk(),
                                        common.mechanism, req->second.mask.spec(), unitName(o.analysis.unit));
  std::string text = analysisText(an, title);
  if (engineInput) addVsExact(req->first, req->second, *res, doc, text);
  const int rc = finish(o, doc, text, csvRows(an, 0), &an);
  prof.add("report (JSON, text, CSV)", secondsSince(t0));
  printProfile(o, prof, start);
  return rc;
}

// Precomputed weights of a file in another format (.safetensors, .csv) as the input loader maps them.
Precomputed precomputedFrom(const LoadedInput& in) {
  Precomputed p;
  p.layers = in.attention.layers;
  p.hasLayerAxis = in.attention.numLayers() > 1;
  p.tokens = in.input.queryTokens;
  p.keyTokens = in.input.keyTokens.empty() ? p.tokens : in.input.keyTokens;
  return p;
}

// Each layer's heads gain "head_type" and "head_type_scores" (the thresholds are in "head_types").
void annotateHeadTypes(nlohmann::json& doc, const models::ModelHeadTypes& t) {
  const nlohmann::json types = headTypesJson(t);
  auto& layers = doc["layers"];
  for (size_t l = 0; l < layers.size() && l < types["layers"].size(); ++l) {
    auto& heads = layers[l]["heads"];
    const auto& typed = types["layers"][l]["heads"];
    // Heads left null for printLayeredAnalysisJson: one object of extra keys per head.
    if (heads.is_null()) heads = nlohmann::json::array();
    while (heads.size() < typed.size()) heads.push_back(nlohmann::json::object());
    for (size_t h = 0; h < heads.size() && h < typed.size(); ++h) {
      heads[h]["head_type"] = typed[h]["head_type"];
      nlohmann::json scores = typed[h];
      scores.erase("head");
      scores.erase("head_type");
      heads[h]["head_type_scores"] = std::move(scores);
    }
  }
}

int runOnFile(const MetricsOptions& o, Result<Precomputed> pre) {
  if (!pre) return fail(pre.error().message);
  nlohmann::json doc = optionsJson(o.analysis);
  doc["source"] = o.attnFile;
  const auto& first = pre->layers.front();
  doc["n_heads"] = first.size();
  doc["n_query"] = first.empty() ? 0 : first.front().rows();
  doc["n_key"] = first.empty() ? 0 : first.front().cols();
  std::string text, csv;
  if (!pre->hasLayerAxis) {
    const Analysis an = analyzeHeads(first, pre->keyTokens, {}, o.analysis);
    doc["warnings"] = an.warnings;
    addAnalysisSummaryJson(doc, an);
    printWarnings(an.warnings);
    text = analysisText(an, fmt::format("{}: {} heads, entropy in {}", o.attnFile, first.size(),
                                        unitName(o.analysis.unit)));
    return finish(o, doc, text, csvRows(an, 0), &an);
  }
  const LayeredAnalysis an = analyzeLayers(pre->layers, pre->keyTokens, o.analysis);
  doc["n_layers"] = an.layers.size();
  doc["warnings"] = an.warnings;
  auto& layers = doc["layers"] = nlohmann::json::array();
  for (size_t l = 0; l < an.layers.size(); ++l) {
    nlohmann::json layer{{"layer", l + 1}};
    addAnalysisSummaryJson(layer, an.layers[l]);
    layers.push_back(std::move(layer));
    text += analysisText(an.layers[l], fmt::format("{}: layer {} of {}, entropy in {}", o.attnFile, l + 1,
                                                   an.layers.size(), unitName(o.analysis.unit))) + "\n";
    csv += csvRows(an.layers[l], static_cast<int>(l) + 1);
  }
  if (!an.rollout.empty()) addRollout(doc, text, an.rollout.back(), o.json);
  addFlow(doc, text, an.flow, an.flowNote, o.json);
  printWarnings(an.warnings);
  if (o.headTypes) annotateHeadTypes(doc, *o.headTypes);
  for (const auto& [key, value] : o.modelJson.items()) doc[key] = value;
  text += o.modelText;
  return finish(o, doc, text, csv, nullptr, &an.layers);
}

nlohmann::json topJson(const std::vector<models::TopToken>& top) {
  auto a = nlohmann::json::array();
  for (const auto& t : top) a.push_back({{"token", t.token}, {"id", t.id}, {"prob", t.prob}});
  return a;
}

std::string topText(const std::vector<models::TopToken>& top) {
  std::string line;
  for (const auto& t : top) line += fmt::format("  {:?} {:.3f}", t.token, t.prob);
  return line;
}

// --intervene with --model: what changed (the report describes the intervened model).
nlohmann::json comparisonJson(const ModelRequest& req) {
  const auto& c = *req.comparison;
  nlohmann::json j;
  auto& specs = j["interventions"] = nlohmann::json::array();
  for (const auto& iv : req.interventions) specs.push_back(models::formatIntervention(iv));
  j["first_changed_layer"] = c.firstChangedLayer >= 0 ? nlohmann::json(c.firstChangedLayer + 1) : nlohmann::json();
  j["hidden_change"] = c.hiddenChange;
  if (c.causal) {
    j["kl"] = c.kl;
    j["kl_position"] = c.position;
    j["top5_before"] = topJson(c.topBefore);
    j["top5_after"] = topJson(c.topAfter);
    if (c.hasLoss) {
      j["loss_before"] = c.lossBefore;
      j["loss_after"] = c.lossAfter;
    }
  } else {
    j["cls_change"] = c.clsChange;
    j["cls_cosine"] = c.clsCosine;
    auto& masked = j["masked"] = nlohmann::json::array();
    for (const auto& mc : c.masked)
      masked.push_back({{"position", mc.position}, {"kl", mc.kl}, {"top5_before", topJson(mc.topBefore)},
                        {"top5_after", topJson(mc.topAfter)}});
  }
  return j;
}

std::string comparisonText(const ModelRequest& req) {
  const auto& c = *req.comparison;
  std::string specs;
  for (const auto& iv : req.interventions) specs += (specs.empty() ? "" : ", ") + models::formatIntervention(iv);
  std::string t = fmt::format("interventions: {}; final hidden states: relative change {:.4g}\n", specs, c.hiddenChange);
  if (c.causal) {
    if (c.hasLoss) t += fmt::format("mean next-token loss: {:.4f} -> {:.4f} nats\n", c.lossBefore, c.lossAfter);
    t += fmt::format("next token after position {}: KL {:.4g} nats\n  before:{}\n  after: {}\n", c.position + 1, c.kl,
                     topText(c.topBefore), topText(c.topAfter));
  } else {
    t += fmt::format("[CLS] representation: relative change {:.4g}, cosine {:.4f}\n", c.clsChange, c.clsCosine);
    for (const auto& mc : c.masked)
      t += fmt::format("masked token at position {}: KL {:.4g} nats\n  before:{}\n  after: {}\n", mc.position + 1,
                       mc.kl, topText(mc.topBefore), topText(mc.topAfter));
  }
  return t;
}

// --model: what the model predicts at its mask tokens, what --intervene changed and every
// head's type, added to the report.
void addModelReport(const ModelRequest& req, MetricsOptions& o) {
  o.attnFile = req.model->info().name;
  const auto& run = req.run;
  if (!run.maskPredictions.empty()) {
    auto& masked = o.modelJson["masked_predictions"] = nlohmann::json::array();
    for (size_t m = 0; m < run.maskPredictions.size() && m < run.maskPositions.size(); ++m) {
      masked.push_back({{"position", run.maskPositions[m]}, {"top5", topJson(run.maskPredictions[m])}});
      o.modelText += fmt::format("{} at position {}:{}\n", req.model->info().maskToken,
                                 run.maskPositions[m] + 1, topText(run.maskPredictions[m]));
    }
  }
  if (req.comparison) {
    o.modelJson["intervention"] = comparisonJson(req);
    o.modelText += comparisonText(req);
  }
  // Head types come from their own sequence (seed 0, as `heads` by default), not the text.
  if (auto types = models::modelHeadTypes(*req.model)) {
    o.modelJson["head_types"] = headTypesJson(*types);
    o.modelText += headTypesText(*types);
    o.headTypes = std::move(*types);
  } else {
    o.modelJson["head_types"] = {{"error", types.error().message}};
    o.modelText += "head types: not computed: " + types.error().message + "\n";
  }
}

// What a windowed report's measures mean (models/streamed/windowed_run.h).
constexpr const char* kWindowNote =
    "each token measured once, in the window where it has the most tokens before it (at least "
    "window - stride); distances and offsets within that window, the first-token share of the "
    "window's first token";

// --analysis-path auto streams a model whose layers' maps together pass this, and any text too
// long for the exact attention flow (then the same measures and the rollout come without the
// L x H maps: at GPT-2 small's 1,024 tokens, 604 MB of fresh memory whose first touch cost as
// much as the forward's products, docs/performance.md).
constexpr int64_t kStreamModelAbove = int64_t{1} << 30;

// The streamed rollout holds three N x N double matrices and the layer's head sum: 0.45 GB at this.
constexpr int kStreamedRolloutTokens = 4096;

// --model, streamed: each layer's measures from the tiled pass inside the forward
// (no N x N array); the report has the layered file's form, without rollout and flow.
int reportStreamedModel(MetricsOptions& o, const ModelRequest& req) {
  const auto& run = req.run;
  const auto& layersAn = run.streamedLayers;
  nlohmann::json doc = optionsJson(o.analysis);
  doc["source"] = o.attnFile;
  doc["analysis_path"] = "streamed";
  doc["n_heads"] = layersAn.empty() ? 0 : layersAn.front().heads.size();
  doc["n_query"] = run.encoding.size();
  doc["n_key"] = layersAn.empty() ? run.encoding.size() : layersAn.front().nk;  // --window: the window's keys
  doc["n_layers"] = layersAn.size();
  std::vector<std::string> warnings;
  std::string text, csv;
  auto& layers = doc["layers"] = nlohmann::json::array();
  for (size_t l = 0; l < layersAn.size(); ++l) {
    nlohmann::json layer{{"layer", l + 1}};
    addAnalysisSummaryJson(layer, layersAn[l]);
    layers.push_back(std::move(layer));
    for (const auto& w : layersAn[l].warnings) warnings.push_back(fmt::format("layer {} {}", l + 1, w));
    text += analysisText(layersAn[l], fmt::format("{}: layer {} of {} (streamed), entropy in {}", o.attnFile,
                                                  l + 1, layersAn.size(), unitName(o.analysis.unit))) +
            "\n";
    csv += csvRows(layersAn[l], static_cast<int>(l) + 1);
  }
  doc["warnings"] = warnings;
  const std::string note =
      "not computed on the streamed path (it needs every layer's full maps; "
      "--analysis-path materialized computes it on a text short enough)";
  if (run.streamedRollout.size() > 0) {
    addRollout(doc, text, run.streamedRollout, o.json);
  } else {
    doc["rollout_note"] = o.rolloutNote.empty() ? note : o.rolloutNote;
    text += "attention rollout: not computed: " + doc["rollout_note"].get<std::string>() + "\n";
  }
  const auto flow = attentionFlowFits(static_cast<int>(layersAn.size()), run.encoding.size());
  addFlow(doc, text, Mat(), flow ? note : flow.error().message, o.json);
  printWarnings(warnings);
  if (o.headTypes) annotateHeadTypes(doc, *o.headTypes);
  for (const auto& [key, value] : o.modelJson.items()) doc[key] = value;
  text += o.modelText;
  return finish(o, doc, text, csv, nullptr, &layersAn);
}

// --model with --image: the patch grid, each head's mean attention distance in pixels
// (Dosovitskiy et al. 2021, Fig. 7) and a classifier's top 5 labels.
void addVisionReport(const ModelRequest& req, MetricsOptions& o) {
  const auto& info = req.model->info();
  const auto& run = req.run;
  const int patch = std::max(info.patchSize, 1);
  const vision::PatchLayout layout{info.prefixTokens, run.pixelValues.height / patch,
                                   run.pixelValues.width / patch, patch};
  nlohmann::json distances = nlohmann::json::array();
  o.modelText += fmt::format(
      "image: {}x{} pixels after preprocessing, {}x{} patches of {} px, {} prefix token(s)\n",
      run.pixelValues.width, run.pixelValues.height, layout.cols, layout.rows, patch, layout.prefix);
  o.modelText += "mean attention distance (px), per layer and head:\n";
  for (size_t l = 0; l < run.layers.size(); ++l) {
    nlohmann::json row = nlohmann::json::array();
    std::string line = fmt::format("  layer {:>2}:", run.firstLayer + static_cast<int>(l) + 1);
    for (const auto& h : run.layers[l].heads) {
      const double d = vision::meanAttentionDistancePixels(h.weights, layout);
      row.push_back(d);
      line += fmt::format(" {:6.2f}", d);
    }
    distances.push_back(row);
    o.modelText += line + "\n";
  }
  o.modelJson["image"] = {{"height", run.pixelValues.height},
                          {"width", run.pixelValues.width},
                          {"grid_rows", layout.rows},
                          {"grid_cols", layout.cols},
                          {"patch", patch},
                          {"prefix_tokens", layout.prefix}};
  o.modelJson["mean_attention_distance_px"] = distances;
  if (!run.topLabels.empty()) {
    o.modelJson["labels_top5"] = topJson(run.topLabels);
    o.modelText += "top labels:" + topText(run.topLabels) + "\n";
  }
}

// --model: every layer of the model's run, analysed as a layered file is
// (per-layer measures, rollout, flow), labelled with the model's tokens; streamed
// (no N x N array) when asked or when the maps would pass kStreamModelAbove.
int runOnModel(CommonOptions& common, MetricsOptions& o) {
  common.modelRunOptions.keepQkv = false;
  common.modelRunOptions.topK = 0;
  bool streamed = false;
  auto adjust = [&](const models::ModelInfo& info, const models::Encoding& enc,
                    models::RunOptions& ro) -> Status {
    const int64_t maps = matrixBytes(int64_t{info.layers} * info.heads, enc.size(), enc.size());
    const bool flowFits = static_cast<bool>(attentionFlowFits(info.layers, enc.size()));
    streamed = o.analysisPath == "streamed" || (o.analysisPath == "auto" && common.intervene.empty() &&
                                                (maps > kStreamModelAbove || !flowFits));
    if (streamed && !common.intervene.empty())
      return Error{"--analysis-path streamed: --intervene needs the materialized maps (drop one of them)"};
    if (common.window > 0) {
      if (!common.intervene.empty())
        return Error{
            "--window measures each window's maps as it goes; --intervene needs them whole (drop one)"};
      if (o.analysisPath == "materialized")
        return Error{"--window streams its windows' measures: --analysis-path materialized does not apply"};
      streamed = true;
      const int stride = windowStride(common);
      const auto plan = models::slidingWindows(enc.size(), common.window, stride);
      if (!plan) return plan.error();
      const int windows = static_cast<int>(plan->size());
      o.modelJson["window"] = {{"window", common.window},
                               {"stride", stride},
                               {"windows", windows},
                               {"tokens", enc.size()},
                               {"note", kWindowNote}};
      o.modelText += fmt::format("sliding window: {} tokens in {} window(s) of {} every {}; {}\n", enc.size(),
                                 windows, common.window, stride, kWindowNote);
    }
    ro.streamed = streamed;
    ro.streamedRollout = streamed && common.window == 0 && enc.size() <= kStreamedRolloutTokens;
    if (streamed && common.window > 0)
      o.rolloutNote = "not computed through a sliding window (no window holds every token's rows)";
    else if (streamed && !ro.streamedRollout)
      o.rolloutNote = fmt::format("not computed past {} tokens on the streamed path (it holds N x N doubles)",
                                  kStreamedRolloutTokens);
    ro.keepStreamedQk = false;  // measures only
    ro.streamedAnalysis = o.analysis;
    return okStatus();
  };
  auto req = runModelRequest(common, common.modelRunOptions, adjust);
  if (!req) return fail(req.error().message);
  addModelReport(*req, o);
  if (streamed) return reportStreamedModel(o, *req);
  if (req->model->info().vision) addVisionReport(*req, o);
  Precomputed p;
  for (auto& layer : req->run.layers) {
    std::vector<Mat> heads;
    for (auto& h : layer.heads) heads.push_back(std::move(h.weights));
    p.layers.push_back(std::move(heads));
  }
  p.hasLayerAxis = true;
  p.tokens = req->run.encoding.tokens;
  p.keyTokens = p.tokens;
  return runOnFile(o, std::move(p));
}

}  // namespace

Action addMetricsCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("metrics", "Per-head entropy and the other attention measures");
  auto common = std::make_shared<CommonOptions>();
  auto o = std::make_shared<MetricsOptions>();
  addCommonOptions(*cmd, *common);
  // Precomputed weights replace the text input.
  auto* text = cmd->get_option("--text");
  text->required(false);
  cmd->add_option("--attn", o->attnFile,
                  "Precomputed weights to analyze: .npy, or .npz with 'attn' (or 'weights') "
                  "[Nq,Nk], [H,Nq,Nk] or [L,H,Nq,Nk] and optional 'tokens'")
      ->excludes(text)
      ->excludes(cmd->get_option("--model"));
  cmd->add_flag("--json", o->json, "Print JSON instead of a table");
  cmd->add_option("--csv", o->csv, "Also write one CSV line per head (and layer) to this file");
  cmd->add_flag("--force", o->force, "Overwrite an existing --csv file");
  cmd->add_flag("--bits", o->bits, "Entropy in bits instead of nats");
  cmd->add_option("--coverage", o->analysis.coverageLevel,
                  "Sparsity: share of a row's mass its k largest weights must cover")
      ->capture_default_str();
  cmd->add_flag("--profile", o->profile, "Print where the time went (per stage and measure) to stderr");
  cmd->add_option("--divergence", o->divergence,
                  "Head Jensen-Shannon divergence: exact (every row), sampled (a seeded row sample, with its "
                  "error bound), auto (exact up to 8192 x 8192)")
      ->capture_default_str();
  cmd->add_option("--divergence-rows", o->divergenceRows, "Rows drawn by --divergence sampled")->capture_default_str();
  cmd->add_option(
         "--analysis-path", o->analysisPath,
         "auto: stream the analysis through the tiled kernel when it runs (no N x N array; with "
         "--model, whenever the text is too long for the exact attention flow: the rollout then comes "
         "from each layer's head sums, up to 4096 tokens); "
         "streamed: always; materialized: keep every head's weights, then analyze")
      ->capture_default_str();
  auto* window =
      cmd->add_option("--window", common->window,
                      "With --model: read a text longer than the model's context through a sliding window of "
                      "this many tokens (causal models; each token measured once, streamed)");
  cmd->add_option("--stride", common->stride,
                  "With --window: tokens between window starts (default: half the window)")
      ->needs(window);
  cmd->add_option("--collapse-entropy", o->analysis.collapse.uniformEntropy,
                  "A row is near-uniform above this normalized entropy")
      ->capture_default_str();
  cmd->add_option("--collapse-mass", o->analysis.collapse.oneHotMass,
                  "A row is near-one-hot when one key holds more than this")
      ->capture_default_str();
  cmd->add_option("--collapse-share", o->analysis.collapse.rowShare,
                  "A head is flagged when more than this share of its rows qualify")
      ->capture_default_str();
  return [cmd, common, o]() -> int {
    if (!cmd->parsed()) return -1;
    if (auto st = checkOptions(*o); !st) return fail(st.error().message);
    if (!o->attnFile.empty()) return runOnFile(*o, loadPrecomputed(o->attnFile));
    if (common->window != 0 && common->modelDir.empty())
      return fail("--window reads a --model's text through a sliding window: give --model DIR");
    if (common->window != 0 && !common->image.empty())
      return fail("--window reads a text through a sliding window; an --image has no text to window");
    if (!common->modelDir.empty()) return runOnModel(*common, *o);
    if (common->text.empty() && common->textFile.empty() && common->inputFile.empty())
      return fail("metrics: give --text \"...\", --text-file, --input FILE or --attn FILE");
    // Precomputed layers alone in an .npz/.npy: the layered analysis (rollout, flow) of --attn.
    // 'v' is checked but not kept: the streamed analysis never reads the values (a third of a
    // q/k/v file); the materialized path reads the file again (runOnEngine). Nor is 'q' when
    // the streamed analysis can read it back a block of rows at a time (scores straight from
    // q, on the CPU): then only k is held whole.
    const bool queriesFromFile = o->analysisPath != "materialized" &&
                                 (common->mechanism == "scaled_dot" || common->mechanism == "dot") &&
                                 common->pos != "rope" && common->backend == "cpu";
    if (!common->inputFile.empty() && !common->inputFile.ends_with(".json"))
      if (auto in = loadInputFile(common->inputFile, {.keepValues = false, .keepQueries = !queriesFromFile}); in) {
        if (!in->hasEngineInput()) {
          o->attnFile = common->inputFile;
          const bool numpy = o->attnFile.ends_with(".npz") || o->attnFile.ends_with(".npy");
          return runOnFile(*o, numpy ? loadPrecomputed(o->attnFile) : precomputedFrom(*in));
        }
        common->preloaded = std::make_shared<LoadedInput>(std::move(in).value());  // read once
      }
    return runOnEngine(*common, *o);
  };
}

}  // namespace attn::cli
