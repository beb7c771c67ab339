#include "model_maps.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "attn/analysis/measure_table.h"
#include "attn/engine/memory_budget.h"
#include "attn/engine/worker_threads.h"
#include "attn/models/staged_reads.h"
#include "attn/models/streamed/head_maps.h"
#include "commands.h"

namespace attn::cli {
namespace {

struct Selection {
  int layer0 = 0, layers = 0, head0 = 0, heads = 0;
  models::MapRect rect;
};

Result<int64_t> budgetOf(const CommonOptions& opts) {
  if (opts.memoryBudget.empty()) return defaultMemoryBudget();
  auto b = parseByteSize(opts.memoryBudget);
  if (!b) return Error{"--memory-budget: " + b.error().message};
  return *b;
}

Result<Selection> selectionOf(const models::ModelInfo& info, int n, const CommonOptions& opts,
                              const ModelMapOptions& maps) {
  Selection s;
  s.layer0 = opts.layer > 0 ? opts.layer - 1 : 0;
  s.layers = opts.layer > 0 ? 1 : info.layers;
  if (maps.head < 0 || maps.head > info.heads)
    return Error{fmt::format("--head: {} is out of range (1..{}, 0 = every head)", maps.head, info.heads)};
  s.head0 = maps.head > 0 ? maps.head - 1 : 0;
  s.heads = maps.head > 0 ? 1 : info.heads;
  s.rect = {0, n, 0, n};
  if (!maps.rows.empty()) {
    int a = 0, b = 0;
    char colon = 0, extra = 0;
    if (std::sscanf(maps.rows.c_str(), "%d%c%d%c", &a, &colon, &b, &extra) != 3 || colon != ':')
      return Error{fmt::format("--rows: expected a:b, e.g. 0:256 (got '{}')", maps.rows)};
    if (a < 0 || b > n || a >= b)
      return Error{
          fmt::format("--rows {}: needs 0 <= a < b <= {} (the text has {} tokens)", maps.rows, n, n)};
    s.rect.row0 = a;
    s.rect.row1 = b;
  }
  if (maps.pool < 0) return Error{fmt::format("--pool must be at least 1 (got {})", maps.pool)};
  if (maps.pool > 0 && !maps.rows.empty())
    return Error{"--pool and --rows: give one (the overview or a band of rows)"};
  return s;
}

Result<models::QkPrecision> qkPrecisionOf(const std::string& name) {
  if (name == "f16") return models::QkPrecision::F16;
  if (name == "bf16") return models::QkPrecision::BF16;
  if (name == "f32") return models::QkPrecision::F32;
  return Error{fmt::format("--qk-dtype: expected f16, bf16 or f32 (got '{}')", name)};
}

std::string overBudget(const std::string& what, int64_t bytes, int64_t budget) {
  return fmt::format(
      "run --model: {} take {}, over the memory budget of {} (--memory-budget, ATTNSCOPE_MEMORY_BUDGET); ask "
      "for "
      "less: --layer L and --head H (one head's map), --rows a:b (a band of query rows), --pool B (the map "
      "in B x B "
      "blocks, --pool-mode max or mean), or `metrics --model` for every head's measures without maps",
      what, formatBytes(bytes), formatBytes(budget));
}

using MapClock = std::chrono::steady_clock;
double mapSecondsSince(MapClock::time_point t) {
  return std::chrono::duration<double>(MapClock::now() - t).count();
}

Status writeMeasures(NpzStreamWriter& npz, const models::ModelRun& run, int heads) {
  const auto& layers = run.streamedLayers;
  const int64_t L = static_cast<int64_t>(layers.size()), H = heads, n = run.encoding.size();
  const auto& table = headMeasures();  // the columns `metrics` writes, by the same names
  Tensor measures, entropy;
  measures.shape = {L, H, static_cast<int64_t>(table.size())};
  entropy.shape = {L, H, n};
  for (const auto& an : layers)
    for (const auto& h : an.heads) {
      for (const auto& m : table) measures.data.push_back(static_cast<float>(m.value(h)));
      entropy.data.insert(entropy.data.end(), h.perRow.entropy.data(),
                          h.perRow.entropy.data() + h.perRow.entropy.size());
    }
  std::vector<std::string> names;
  for (const auto& m : table) names.emplace_back(m.key);
  if (auto st = npz.addFloat("measures", measures); !st) return st;
  if (auto st = npz.addStrings("measure_names", names); !st) return st;
  return npz.addFloat("entropy", entropy);
}

Status writeMaps(NpzStreamWriter& npz, const models::QkStore& store, const Selection& s,
                 const ModelMapOptions& maps, NpyFloat type, const std::string& out) {
  const int n = store.tokens();
  const models::Pooling pooling = maps.poolMode == "mean" ? models::Pooling::Mean : models::Pooling::Max;
  const int64_t side = maps.pool > 0 ? (n + maps.pool - 1) / maps.pool : 0;
  const std::vector<int64_t> shape =
      maps.pool > 0 ? std::vector<int64_t>{s.layers, s.heads, side, side}
                    : std::vector<int64_t>{s.layers, s.heads, s.rect.row1 - s.rect.row0, n};
  if (auto st = npz.beginFloatMember(maps.pool > 0 ? "pooled" : "weights", type, shape); !st) return st;
  for (int l = s.layer0; l < s.layer0 + s.layers; ++l)
    for (int h = s.head0; h < s.head0 + s.heads; ++h) {
      auto m = maps.pool > 0 ? models::pooledMap(store, l, h, maps.pool, pooling)
                             : models::headMap(store, l, h, s.rect);
      if (!m) return Error{out + ": " + m.error().message};
      if (auto st = npz.appendFloats(m->data(), static_cast<size_t>(m->size())); !st) return st;
    }
  if (auto st = npz.endMember(); !st) return st;
  Tensor where;  // the layers, heads and rows the maps cover (0-based, end excluded)
  where.shape = {6};
  where.data = {static_cast<float>(s.layer0),    static_cast<float>(s.layer0 + s.layers),
                static_cast<float>(s.head0),     static_cast<float>(s.head0 + s.heads),
                static_cast<float>(s.rect.row0), static_cast<float>(s.rect.row1)};
  if (auto st = npz.addFloat("map_range", where); !st) return st;
  if (maps.pool > 0) {
    Tensor block;
    block.shape = {1};
    block.data = {static_cast<float>(maps.pool)};
    if (auto st = npz.addFloat("pool_block", block); !st) return st;
    if (auto st = npz.addStrings("pooling", {models::poolingName(pooling)}); !st) return st;
  }
  return okStatus();
}

Status writeTokens(NpzStreamWriter& npz, const models::ModelRun& run) {
  const int64_t n = run.encoding.size();
  if (auto st = npz.addStrings("tokens", run.encoding.tokens); !st) return st;
  Tensor ids;
  ids.shape = {n};
  for (int id : run.encoding.ids) ids.data.push_back(static_cast<float>(id));
  if (auto st = npz.addFloat("ids", ids); !st) return st;
  if (const auto rows = models::offsetRows(run.encoding); !rows.empty())
    if (auto st = npz.addInts("token_offsets", rows, {n, 2}); !st) return st;
  if (run.nextTokens.empty()) return okStatus();
  int64_t k = 0;  // the longest row: with --next-tokens last only the last one is filled
  for (const auto& row : run.nextTokens) k = std::max(k, static_cast<int64_t>(row.size()));
  Tensor nextIds, nextProbs;
  nextIds.shape = nextProbs.shape = {n, k};
  for (const auto& row : run.nextTokens)
    for (int64_t j = 0; j < k; ++j) {
      const bool has = j < static_cast<int64_t>(row.size());
      nextIds.data.push_back(has ? static_cast<float>(row[static_cast<size_t>(j)].id) : -1.0f);
      nextProbs.data.push_back(has ? row[static_cast<size_t>(j)].prob : 0.0f);
    }
  if (auto st = npz.addFloat("next_ids", nextIds); !st) return st;
  return npz.addFloat("next_probs", nextProbs);
}

}  // namespace

void addModelMapOptions(CLI::App& cmd, ModelMapOptions& m) {
  cmd.add_option("--head", m.head,
                 "With --model: only this head's maps, 1-based (0: every head); streams the run")
      ->capture_default_str();
  cmd.add_option(
      "--rows", m.rows,
      "With --model: only query rows a:b of the maps (0-based, b excluded), every key; streams the run");
  cmd.add_option(
      "--pool", m.pool,
      "With --model: the maps pooled in B x B blocks (an overview of a long text); streams the run");
  cmd.add_option("--pool-mode", m.poolMode, "How --pool reduces a block: max or mean")
      ->check(CLI::IsMember({"max", "mean"}))
      ->capture_default_str();
  cmd.add_option(
         "--qk-dtype", m.qkDtype,
         "With --model, streamed: what the run keeps of q and k to recompute maps from: f16, bf16, f32")
      ->check(CLI::IsMember({"f16", "bf16", "f32"}))
      ->capture_default_str();
  cmd.add_flag("--profile", m.profile, "With --model: stage times and the q/k store size on stderr");
  cmd.add_option("--next-tokens", m.nextTokens,
                 "With --model, causal models: the top-5 next tokens after every position (all), after the "
                 "last only (last: the rows before it empty, probabilities 0), or none")
      ->check(CLI::IsMember({"all", "last", "none"}))
      ->capture_default_str();
}

void applyNextTokens(const ModelMapOptions& m, models::RunOptions& ro) {
  ro.topK = m.nextTokens == "none" ? 0 : 5;
  ro.topKEveryPosition = m.nextTokens == "all";
}

Status planModelMaps(const models::ModelInfo& info, const models::Encoding& enc, const CommonOptions& opts,
                     const ModelMapOptions& maps, models::RunOptions& ro, bool& streamed) {
  const int n = enc.size();
  auto budget = budgetOf(opts);
  if (!budget) return budget.error();
  auto sel = selectionOf(info, n, opts, maps);
  if (!sel) return sel.error();
  if (!maps.partial()) {
    // The materialized forward keeps the maps of the layers written, and the file is built from a copy.
    const int64_t full = matrixBytes(int64_t{sel->layers} * info.heads, n, n);
    if (2 * full <= *budget) {
      streamed = false;
      return okStatus();
    }
    return Error{
        overBudget(fmt::format("the maps of {} layer(s) x {} heads x {} x {} tokens (kept while the file "
                               "is written)",
                               sel->layers, info.heads, n, n),
                   2 * full, *budget)};
  }
  const int64_t each = maps.pool > 0 ? models::pooledBytes(n, maps.pool) : models::mapBytes(sel->rect);
  const int64_t asked = each * sel->layers * sel->heads;
  if (asked > *budget)
    return Error{overBudget(fmt::format("the maps asked for ({} layer(s) x {} head(s), {} each)", sel->layers,
                                        sel->heads, formatBytes(each)),
                            asked, *budget)};
  if (!opts.intervene.empty())
    return Error{"--intervene needs the materialized maps: drop --head, --rows and --pool"};
  auto precision = qkPrecisionOf(maps.qkDtype);
  if (!precision) return precision.error();
  streamed = true;
  ro.streamed = true;
  ro.qkPrecision = *precision;
  ro.onlyLayer = -1;  // every layer's measures; the maps of --layer only
  return okStatus();
}

int writeStreamedModel(const ModelRequest& req, const CommonOptions& opts, const ModelMapOptions& maps,
                       const std::string& out, NpyFloat mapType) {
  const auto& info = req.model->info();
  const auto& run = req.run;
  if (!run.qk) return fail(out + ": the streamed run kept no q/k");
  auto sel = selectionOf(info, run.encoding.size(), opts, maps);
  if (!sel) return fail(sel.error().message);
  const auto t0 = MapClock::now();
  NpzStreamWriter npz;
  Status st = npz.open(out);
  if (st) st = writeMaps(npz, *run.qk, *sel, maps, mapType, out);
  const double mapSeconds = mapSecondsSince(t0);
  releaseIdleWorkers();
  if (st) st = writeMeasures(npz, run, info.heads);
  if (st) st = writeTokens(npz, run);
  if (st) st = npz.commit();
  if (!st) return fail(st.error().message);
  const std::string store =
      fmt::format("{} ({}, {} layers x {} tokens x ({} + {}) heads x {})", formatBytes(run.qk->bytes()),
                  models::qkPrecisionName(run.qk->precision()), info.layers, run.encoding.size(), info.heads,
                  info.kvHeads, info.headDim);
  if (maps.profile) {
    fmt::print(stderr, "maps recomputed from q/k and written: {:.3f} s\nq/k store: {}\n", mapSeconds, store);
    fmt::print(stderr, "weights read with pread: {}\n",
               formatBytes(static_cast<int64_t>(models::stagedBytesRead())));
  }
  fmt::print("model: {} ({}, {} layers x {} heads), streamed: no N x N array; q/k store {}\n", info.name,
             models::familyName(info.family), info.layers, info.heads, store);
  if (!run.nextTokens.empty() && !run.nextTokens.back().empty()) {
    std::string line;
    for (const auto& t : run.nextTokens.back()) line += fmt::format("  {:?} {:.3f}", t.token, t.prob);
    fmt::print("next token after the last position:{}\n", line);
  }
  const std::string what =
      maps.pool > 0
          ? fmt::format("maps {}-pooled in {} x {} blocks", maps.poolMode, maps.pool, maps.pool)
          : (maps.rows.empty() ? std::string("maps") : fmt::format("rows {} of the maps", maps.rows));
  fmt::print("wrote {} ({} of {} layer(s) x {} head(s); measures of every head; {} tokens)\n", out, what,
             sel->layers, sel->heads, run.encoding.size());
  return 0;
}

}  // namespace attn::cli
