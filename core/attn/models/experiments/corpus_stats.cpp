#include "attn/models/experiments/corpus_stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "attn/analysis/entropy.h"
#include "attn/analysis/head_analysis.h"
#include "attn/analysis/row_measures.h"
#include "attn/io/json_document.h"

namespace attn::models {
namespace {

constexpr std::array<std::string_view, kCorpusMeasureCount> kNames = {
    "entropy", "first", "separator", "previous", "next", "self", "distance", "coverage_k"};

constexpr int idx(CorpusMeasure m) { return static_cast<int>(m); }

struct FieldError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// nlohmann's get<int>() converts a float, or an integer out of int's range,
// without a check (undefined behaviour for 1e20): a state line is a file.
template <class T>
T integerAt(const nlohmann::json& j, const char* key) {
  const nlohmann::json& v = j.at(key);
  const bool tooBig = v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX);
  if (!v.is_number_integer() || tooBig || v.get<int64_t>() < std::numeric_limits<T>::min() ||
      v.get<int64_t>() > std::numeric_limits<T>::max())
    throw FieldError(fmt::format("'{}' must be an integer from {} to {} (got {})", key,
                                 std::numeric_limits<T>::min(), std::numeric_limits<T>::max(),
                                 jsonExcerpt(v)));
  return static_cast<T>(v.get<int64_t>());
}

}  // namespace

std::string_view corpusMeasureName(CorpusMeasure m) { return kNames[static_cast<size_t>(idx(m))]; }

std::optional<CorpusMeasure> parseCorpusMeasure(std::string_view name) {
  for (size_t k = 0; k < kNames.size(); ++k)
    if (kNames[k] == name) return static_cast<CorpusMeasure>(k);
  return std::nullopt;
}

std::string corpusMeasureList() {
  std::string s;
  for (auto n : kNames) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

SentenceMeasures measureSentence(const ModelRun& run, double coverageLevel) {
  SentenceMeasures out;
  out.layers = static_cast<int>(run.layers.size());
  out.heads = run.layers.empty() ? 0 : run.layers[0].numHeads();
  out.tokens = run.encoding.size();
  out.values.reserve(static_cast<size_t>(out.layers * out.heads));
  // The same analysis `metrics --model` runs on the sentence, so a corpus mean is
  // exactly the mean of what metrics prints per sentence.
  AnalysisOptions options;
  options.coverageLevel = coverageLevel;
  options.headSimilarity = false;
  for (const auto& layer : run.layers) {
    std::vector<Mat> weights;
    weights.reserve(layer.heads.size());
    for (const auto& head : layer.heads) weights.push_back(head.weights);
    const Analysis an = analyzeHeads(weights, run.encoding.tokens, {}, options);
    for (const auto& a : an.heads) {
      HeadMeasures m{};
      m[idx(CorpusMeasure::Entropy)] = a.entropyMean;
      m[idx(CorpusMeasure::First)] = a.shares.first;
      m[idx(CorpusMeasure::Separator)] = a.shares.separator;
      m[idx(CorpusMeasure::Previous)] = a.shares.previous;
      m[idx(CorpusMeasure::Next)] = a.shares.next;
      m[idx(CorpusMeasure::Self)] = a.shares.diagonal;
      m[idx(CorpusMeasure::Distance)] = a.meanDistance;
      m[idx(CorpusMeasure::CoverageK)] = a.coverageK;
      out.values.push_back(m);
    }
  }
  return out;
}

void appendTokens(const Encoding& from, size_t begin, size_t end, Encoding& to) {
  const auto take = [&](const auto& v, auto& out) {
    if (v.size() >= end)
      out.insert(out.end(), v.begin() + static_cast<std::ptrdiff_t>(begin),
                 v.begin() + static_cast<std::ptrdiff_t>(end));
  };
  take(from.ids, to.ids);
  take(from.tokens, to.tokens);
  take(from.typeIds, to.typeIds);
  take(from.special, to.special);
  take(from.attention, to.attention);
  take(from.offsets, to.offsets);
}

Result<std::vector<Encoding>> splitEncoding(const Encoding& e, int maxTokens) {
  if (e.size() <= maxTokens) return std::vector<Encoding>{e};
  const auto n = static_cast<size_t>(e.size());
  auto isSpecial = [&](size_t i) { return i < e.special.size() && e.special[i] != 0; };
  size_t head = 0, tail = 0;
  while (head < n && isSpecial(head)) ++head;
  while (tail < n - head && isSpecial(n - 1 - tail)) ++tail;
  const int room = maxTokens - static_cast<int>(head + tail);
  if (room < 1)
    return Error{
        fmt::format("--max-tokens {} leaves no room beside the {} special tokens", maxTokens, head + tail)};
  std::vector<Encoding> chunks;
  for (size_t start = head; start < n - tail; start += static_cast<size_t>(room)) {
    const size_t end = std::min(n - tail, start + static_cast<size_t>(room));
    Encoding c;
    for (auto [from, to] : {std::pair{size_t{0}, head}, std::pair{start, end}, std::pair{n - tail, n}})
      appendTokens(e, from, to, c);
    chunks.push_back(std::move(c));
  }
  return chunks;
}

RunOptions corpusRunOptions() {
  RunOptions ro;
  ro.keepQkv = false;
  ro.keepLogits = false;
  ro.topK = 0;
  return ro;
}

std::vector<MeasuredSentence> measureSentences(const Model& model, const std::vector<Encoding>& sentences,
                                               double coverageLevel) {
  std::vector<MeasuredSentence> out(sentences.size());
  const RunOptions ro = corpusRunOptions();
  const auto n = static_cast<int64_t>(sentences.size());
  // Inside this region the forward's own OpenMP loops see omp_in_parallel() and run on one thread.
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t k = 0; k < n; ++k) {
    auto run = model.run(sentences[static_cast<size_t>(k)], ro);
    if (run) out[static_cast<size_t>(k)].measures = measureSentence(*run, coverageLevel);
    else out[static_cast<size_t>(k)].error = run.error().message;
  }
  return out;
}

bool rankedBefore(const TopSentence& a, const TopSentence& b) {
  if (a.value != b.value) return a.value > b.value;
  if (a.line != b.line) return a.line < b.line;
  return a.chunk < b.chunk;
}

CorpusStats::CorpusStats(CorpusConfig config) : config_(std::move(config)) {
  const auto n = static_cast<size_t>(std::max(0, config_.layers * config_.heads));
  sums_.assign(n, HeadMeasures{});
  top_.assign(n, {});
}

void CorpusStats::offer(size_t head, TopSentence t) {
  auto& list = top_[head];
  const auto k = static_cast<size_t>(std::max(0, config_.topK));
  if (k == 0) return;
  if (list.size() == k && !rankedBefore(t, list.back())) return;
  list.insert(std::upper_bound(list.begin(), list.end(), t, rankedBefore), std::move(t));
  if (list.size() > k) list.pop_back();
}

Status CorpusStats::add(const SentenceMeasures& s, int64_t line, int chunk, std::string_view text) {
  if (s.layers != config_.layers || s.heads != config_.heads || s.values.size() != sums_.size())
    return Error{fmt::format("corpus statistics: line {} gave {} layers x {} heads, expected {} x {}", line, s.layers,
                             s.heads, config_.layers, config_.heads)};
  ++counts_.sentences;
  counts_.tokens += s.tokens;
  const int ranked = idx(config_.measure);
  for (size_t h = 0; h < sums_.size(); ++h) {
    for (int m = 0; m < kCorpusMeasureCount; ++m) sums_[h][static_cast<size_t>(m)] += s.values[h][static_cast<size_t>(m)];
    const double v = s.values[h][static_cast<size_t>(ranked)];
    if (config_.topK > 0 && (top_[h].size() < static_cast<size_t>(config_.topK) || v >= top_[h].back().value))
      offer(h, TopSentence{v, line, chunk, s.tokens, std::string(text)});
  }
  return okStatus();
}

Status CorpusStats::merge(const CorpusStats& other) {
  const auto& a = config_;
  const auto& b = other.config_;
  std::string what;
  if (a.model != b.model) what = fmt::format("model '{}' vs '{}'", a.model, b.model);
  else if (a.layers != b.layers || a.heads != b.heads)
    what = fmt::format("{} x {} heads vs {} x {}", a.layers, a.heads, b.layers, b.heads);
  else if (a.measure != b.measure)
    what = fmt::format("measure {} vs {}", corpusMeasureName(a.measure), corpusMeasureName(b.measure));
  else if (a.topK != b.topK) what = fmt::format("top {} vs {}", a.topK, b.topK);
  else if (a.maxTokens != b.maxTokens) what = fmt::format("max tokens {} vs {}", a.maxTokens, b.maxTokens);
  else if (a.coverageLevel != b.coverageLevel)
    what = fmt::format("coverage level {:g} vs {:g}", a.coverageLevel, b.coverageLevel);
  if (!what.empty()) return Error{"cannot merge corpus statistics of different runs: " + what};
  counts_.lines += other.counts_.lines;
  counts_.sentences += other.counts_.sentences;
  counts_.tokens += other.counts_.tokens;
  counts_.splitLines += other.counts_.splitLines;
  counts_.skippedLines += other.counts_.skippedLines;
  for (size_t h = 0; h < sums_.size(); ++h) {
    for (size_t m = 0; m < sums_[h].size(); ++m) sums_[h][m] += other.sums_[h][m];
    for (const auto& t : other.top_[h]) offer(h, t);
  }
  return okStatus();
}

double CorpusStats::sum(int layer, int head, CorpusMeasure m) const {
  return sums_[static_cast<size_t>(layer * config_.heads + head)][static_cast<size_t>(idx(m))];
}

double CorpusStats::mean(int layer, int head, CorpusMeasure m) const {
  return counts_.sentences > 0 ? sum(layer, head, m) / static_cast<double>(counts_.sentences) : 0.0;
}

const std::vector<TopSentence>& CorpusStats::top(int layer, int head) const {
  return top_[static_cast<size_t>(layer * config_.heads + head)];
}

std::string CorpusStats::toJsonLine() const {
  using nlohmann::json;
  json j;
  j["model"] = config_.model;
  j["layers"] = config_.layers;
  j["heads"] = config_.heads;
  j["measure"] = corpusMeasureName(config_.measure);
  j["top"] = config_.topK;
  j["max_tokens"] = config_.maxTokens;
  j["coverage_level"] = config_.coverageLevel;
  j["weighting"] = "sentence";
  j["counts"] = {{"lines", counts_.lines},           {"sentences", counts_.sentences},
                 {"tokens", counts_.tokens},         {"split_lines", counts_.splitLines},
                 {"skipped_lines", counts_.skippedLines}};
  j["measures"] = kNames;
  auto sums = json::array();
  for (const auto& s : sums_) sums.push_back(s);
  j["sums"] = std::move(sums);
  json means;
  for (int m = 0; m < kCorpusMeasureCount; ++m) {
    auto rows = json::array();
    for (int l = 0; l < config_.layers; ++l) {
      auto row = json::array();
      for (int h = 0; h < config_.heads; ++h) row.push_back(mean(l, h, static_cast<CorpusMeasure>(m)));
      rows.push_back(std::move(row));
    }
    means[std::string(kNames[static_cast<size_t>(m)])] = std::move(rows);
  }
  j["means"] = std::move(means);
  auto top = json::array();
  for (const auto& list : top_) {
    auto entries = json::array();
    for (const auto& t : list)
      entries.push_back({{"value", t.value}, {"line", t.line}, {"chunk", t.chunk}, {"tokens", t.tokens}, {"text", t.text}});
    top.push_back(std::move(entries));
  }
  j["top_sentences"] = std::move(top);
  // Invalid UTF-8 never reaches here (the tokenizer refuses it), but a dump must not throw.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<CorpusStats> CorpusStats::fromJsonLine(std::string_view line, const std::string& source) {
  using nlohmann::json;
  auto parsed = parseJsonText(line, source);
  if (!parsed) return parsed.error();
  try {
    const json& j = *parsed;
    CorpusConfig c;
    c.model = j.at("model").get<std::string>();
    c.layers = integerAt<int>(j, "layers");
    c.heads = integerAt<int>(j, "heads");
    const auto measure = parseCorpusMeasure(j.at("measure").get<std::string>());
    if (!measure) return Error{fmt::format("{}: unknown measure '{}'", source, j.at("measure").get<std::string>())};
    c.measure = *measure;
    c.topK = integerAt<int>(j, "top");
    c.maxTokens = integerAt<int>(j, "max_tokens");
    c.coverageLevel = j.at("coverage_level").get<double>();
    if (c.layers < 0 || c.heads < 0 || c.layers * static_cast<int64_t>(c.heads) > 1'000'000 || c.topK < 0)
      return Error{fmt::format("{}: {} layers x {} heads, top {}: out of range", source, c.layers, c.heads, c.topK)};
    CorpusStats s(c);
    const auto& counts = j.at("counts");
    s.counts_.lines = integerAt<int64_t>(counts, "lines");
    s.counts_.sentences = integerAt<int64_t>(counts, "sentences");
    s.counts_.tokens = integerAt<int64_t>(counts, "tokens");
    s.counts_.splitLines = integerAt<int64_t>(counts, "split_lines");
    s.counts_.skippedLines = integerAt<int64_t>(counts, "skipped_lines");
    const auto& sums = j.at("sums");
    const auto& top = j.at("top_sentences");
    if (!sums.is_array() || sums.size() != s.sums_.size() || !top.is_array() || top.size() != s.top_.size())
      return Error{fmt::format("{}: 'sums' and 'top_sentences' must hold {} heads", source, s.sums_.size())};
    for (size_t h = 0; h < s.sums_.size(); ++h) {
      s.sums_[h] = sums[h].get<HeadMeasures>();
      for (const auto& e : top[h]) {
        TopSentence t{e.at("value").get<double>(), integerAt<int64_t>(e, "line"), integerAt<int>(e, "chunk"),
                      integerAt<int>(e, "tokens"), e.at("text").get<std::string>()};
        s.offer(h, std::move(t));
      }
    }
    return s;
  } catch (const json::exception& e) {
    return Error{fmt::format("{}: not a corpus statistics line: {}", source, e.what())};
  } catch (const FieldError& e) {
    return Error{fmt::format("{}: not a corpus statistics line: {}", source, e.what())};
  }
}

}  // namespace attn::models
