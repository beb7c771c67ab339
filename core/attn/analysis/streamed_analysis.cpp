#include "attn/analysis/streamed_analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>

#include "attn/cpu/efficient_exec.h"
#include "attn/cpu/packed_keys.h"
#include "attn/engine/exec_path.h"
#include "attn/engine/head_inputs.h"

namespace attn {

void AnalysisProfile::add(const std::string& name, double cpuSeconds) {
  for (auto& e : entries)
    if (e.name == name) {
      e.cpuSeconds += cpuSeconds;
      return;
    }
  entries.push_back({name, cpuSeconds});
}

namespace {

using Clock = std::chrono::steady_clock;
double packSecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

Analysis analyzeStreamedOver(const std::vector<HeadView>& heads, const std::vector<const PackedKeys*>& keys,
                             const std::vector<std::string>& keyTokens, const AnalysisOptions& options,
                             AnalysisProfile* profile, const FloatRowsFile* queries, Mat* outputs,
                             Mat* headSum = nullptr) {
  const int nh = static_cast<int>(heads.size());
  const int nq = nh == 0 ? 0 : queries ? queries->rows() : static_cast<int>(heads[0].q->rows());
  const int nk = nh > 0 ? keys[0]->keys() : 0;
  StreamedRows rows(nh, nq, nk, options);
  rows.sumHeadsInto(headSum);
  rows.add(heads, keys, keyTokens, queries, 0, 0, outputs, profile);
  return rows.finish(profile);
}

// One packed copy per distinct key matrix: the query heads of a KV group (GQA) read the
// same keys, and packing each head's would take H / KV copies of them (N x head_dim
// floats each: 1 GB at 32,768 tokens for a 32-head layer with 8 KV heads). keys[h]: head h's.
std::vector<const PackedKeys*> packDistinctKeys(const std::vector<HeadView>& heads,
                                                std::vector<PackedKeys>& packed) {
  std::vector<const Mat*> distinct;
  std::vector<size_t> of(heads.size());
  for (size_t h = 0; h < heads.size(); ++h) {
    const auto at = std::find(distinct.begin(), distinct.end(), heads[h].k);
    of[h] = static_cast<size_t>(at - distinct.begin());
    if (at == distinct.end()) distinct.push_back(heads[h].k);
  }
  packed.assign(distinct.size(), PackedKeys());
  const int nd = static_cast<int>(distinct.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (int d = 0; d < nd; ++d) packed[static_cast<size_t>(d)].pack(*distinct[static_cast<size_t>(d)]);
  std::vector<const PackedKeys*> keys(heads.size());
  for (size_t h = 0; h < heads.size(); ++h) keys[h] = &packed[of[h]];
  return keys;
}

}  // namespace

Analysis analyzeStreamed(const std::vector<HeadView>& heads, const std::vector<std::string>& keyTokens,
                         const AnalysisOptions& options, AnalysisProfile* profile, Mat* outputs,
                         Mat* headSum) {
  const auto t0 = Clock::now();
  std::vector<PackedKeys> packed;
  const auto keys = packDistinctKeys(heads, packed);
  if (profile) profile->add("pack keys", packSecondsSince(t0));
  return analyzeStreamedOver(heads, keys, keyTokens, options, profile, nullptr, outputs, headSum);
}

WindowedAnalysis::WindowedAnalysis(int heads, int rows, int window, const AnalysisOptions& options)
    : rows_(heads, rows, window, options) {}

void WindowedAnalysis::add(const std::vector<HeadView>& heads, const std::vector<std::string>& keyTokens,
                           int windowStart, int firstRow, Mat* outputs) {
  std::vector<PackedKeys> packed;
  const auto keys = packDistinctKeys(heads, packed);
  rows_.add(heads, keys, keyTokens, nullptr, firstRow, windowStart, outputs, nullptr);
}

Analysis analyzeStreamed(const std::vector<HeadView>& heads, const std::vector<PackedKeys>& keys,
                         const std::vector<std::string>& keyTokens, const AnalysisOptions& options,
                         AnalysisProfile* profile, const FloatRowsFile* queries) {
  std::vector<const PackedKeys*> each(keys.size());
  for (size_t h = 0; h < keys.size(); ++h) each[h] = &keys[h];
  return analyzeStreamedOver(heads, each, keyTokens, options, profile, queries, nullptr);
}

bool canStreamAnalysis(const AttentionSpec& spec, int nq, int nk) {
  if (spec.backend == BackendKind::Cuda) return false;
  const ExecPath path = resolveExecPath(spec, nq, nk);
  if (path != ExecPath::Tiled && path != ExecPath::Sparse) return false;
  for (const auto& t : spec.mask.terms())
    if (!t.restricts()) return false;
  return true;
}

namespace {

Result<StreamedMetrics> streamedFrom(const AttentionInput& in, AttentionInput* take, const AttentionSpec& specIn,
                                     const AnalysisOptions& options, AnalysisProfile* profile) {
  const auto t0 = Clock::now();
  AttentionSpec spec = specIn;
  spec.weightsHead = -2;  // nothing N x N is kept (the memory guard counts only a logit bias)
  // Queries not kept: read back from their file, which only dot and scaled-dot
  // scores can use as they are (general and cosine transform q first).
  std::optional<FloatRowsFile> queries;
  if (in.queriesDropped()) {
    if (spec.mechanism != Mechanism::Dot && spec.mechanism != Mechanism::ScaledDot)
      return Error{"the queries 'q' were read without being kept; mechanism '" +
                   std::string(mechanismName(spec.mechanism)) + "' transforms them (read them with the input)"};
    const auto& d = in.droppedQ;
    auto f = FloatRowsFile::open(in.queryFile.path, in.queryFile.offset, static_cast<int>(d.heads),
                                 static_cast<int>(d.rows), static_cast<int>(d.cols));
    if (!f) return f.error();
    queries = std::move(f).value();
  }
  AttentionResult res;
  if (auto st = take ? setUpHeads(std::move(*take), spec, res) : setUpHeads(in, spec, res); !st) return st.error();
  StreamedMetrics m;
  m.nq = queries ? queries->rows() : static_cast<int>(res.heads[0].q.rows());
  m.nk = static_cast<int>(res.heads[0].k.rows());
  m.execUsed = std::string(execPathName(resolveExecPath(spec, m.nq, m.nk)));
  m.queryTokens = in.queryTokens;
  m.keyTokens = in.keyTokens;
  if (m.keyTokens.empty() && !in.isCross() && m.nk == m.nq) m.keyTokens = in.queryTokens;
  if (m.queryTokens.empty())
    for (int i = 0; i < m.nq; ++i) m.queryTokens.push_back(std::to_string(i));
  if (m.keyTokens.empty())
    for (int j = 0; j < m.nk; ++j) m.keyTokens.push_back(std::to_string(j));
  const size_t nh = res.heads.size();
  std::vector<Mat> qBuf(nh), kBuf(nh);
  std::vector<HeadView> views;
  std::vector<PackedKeys> keys(nh);
  for (size_t h = 0; h < nh; ++h) {
    res.heads[h].v.resize(0, 0);  // metrics never read the values
    views.push_back(tiledHeadView(spec, res.heads[h], qBuf[h], kBuf[h]));
    // Only the packed keys are read from here on, packed in k's own memory.
    keys[h].pack(std::move(views.back().k == &kBuf[h] ? kBuf[h] : res.heads[h].k));
    res.heads[h].k.resize(0, 0);
    kBuf[h].resize(0, 0);
    views.back().k = nullptr;
  }
  if (profile) profile->add("prepare heads (projections, positions, packed keys)", packSecondsSince(t0));
  try {
    m.analysis = analyzeStreamed(views, keys, m.keyTokens, options, profile, queries ? &*queries : nullptr);
  } catch (const std::runtime_error& e) {  // a failed read of the queries
    return Error{e.what()};
  }
  for (const auto& h : m.analysis.heads)
    if (!h.emptyRows.empty()) {
      m.warnings.push_back(
          fmt::format("{} query row(s) have every key masked; their weights are 0", h.emptyRows.size()));
      break;
    }
  return m;
}

}  // namespace

Result<StreamedMetrics> analyzeAttentionStreamed(const AttentionInput& in, const AttentionSpec& spec,
                                                 const AnalysisOptions& options, AnalysisProfile* profile) {
  return streamedFrom(in, nullptr, spec, options, profile);
}

Result<StreamedMetrics> analyzeAttentionStreamed(AttentionInput&& in, const AttentionSpec& spec,
                                                 const AnalysisOptions& options, AnalysisProfile* profile) {
  return streamedFrom(in, &in, spec, options, profile);
}

}  // namespace attn
