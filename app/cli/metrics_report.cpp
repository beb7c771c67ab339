#include "metrics_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "attn/engine/large_pages.h"

namespace attn::cli {
namespace {

std::vector<float> toVector(const Vec& v) { return {v.data(), v.data() + v.size()}; }

std::string unitOf(const HeadMeasure& m, const AnalysisOptions& o) {
  return m.unit == "nats" ? std::string(unitName(o.unit)) : std::string(m.unit);
}

}  // namespace

nlohmann::json matrixJson(const Mat& m) {
  auto rows = nlohmann::json::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    const Eigen::RowVectorXf r = m.row(i);
    rows.push_back(std::vector<float>(r.data(), r.data() + r.size()));
  }
  return rows;
}

void addRollout(nlohmann::json& doc, std::string& text, const Mat& rollout, bool json) {
  if (json) doc["rollout"] = matrixJson(rollout);
  text += rollout.rows() <= kPrintedTokens
              ? matrixText(rollout,
                           "attention rollout (Abnar & Zuidema 2020), row = token after "
                           "the last layer, column = input token:")
              : "attention rollout: see --json\n";
}

void addFlow(nlohmann::json& doc, std::string& text, const Mat& flow, const std::string& note, bool json) {
  if (flow.size() == 0) {
    doc["flow_note"] = note;
    text += "attention flow: not computed: " + note + "\n";
    return;
  }
  if (json) doc["flow"] = matrixJson(flow);
  text += flow.rows() <= kPrintedTokens ? matrixText(flow, "attention flow (max-flow, rows normalized):")
                                        : "attention flow: see --json\n";
}

namespace {

// A head's long vectors (one number per row, or per offset): most of the JSON.
struct RowVector {
  const char* key;
  const Vec* values;
};
std::vector<RowVector> rowVectors(const HeadAnalysis& h) {
  return {{"row_entropy", &h.perRow.entropy},         {"row_normalized_entropy", &h.perRow.normalizedEntropy},
          {"row_max_weight", &h.perRow.maxWeight},     {"row_max_min_gap", &h.perRow.maxMinGap},
          {"row_max_min_ratio", &h.perRow.maxMinRatio}, {"row_mean_distance", &h.perRow.meanDistance},
          {"row_coverage_k", &h.perRow.coverageK},      {"mass", &h.offsets.mass}};
}

// What printAnalysisJson's headJson puts where a vector goes: the index of its
// rowVectors entry between marks no value of ours contains.
constexpr std::string_view kVectorMark = "@@attnscope-vector:";

// `placeholders`: each long vector as a short string naming it (printAnalysisJson
// prints the numbers itself); otherwise as the array.
nlohmann::json headJson(const HeadAnalysis& h, int headNumber, bool placeholders) {
  const auto vectors = rowVectors(h);
  const auto vec = [&](size_t i) {
    return placeholders ? nlohmann::json(fmt::format("{}{}@@", kVectorMark, i))
                        : nlohmann::json(toVector(*vectors[i].values));
  };
  nlohmann::json j;
  j["head"] = headNumber;
  for (const auto& m : headMeasures()) j[std::string(m.key)] = m.value(h);
  for (size_t i = 0; i + 1 < vectors.size(); ++i) j[vectors[i].key] = vec(i);
  j["offset_profile"] = {{"min_offset", h.offsets.minOffset}, {"mass", vec(vectors.size() - 1)}};
  j["separator_keys"] = h.shares.separatorKeys;
  j["fully_masked_rows"] = h.emptyRows;
  j["collapse"] = {{"near_uniform", h.collapse.nearUniform},
                   {"near_one_hot", h.collapse.nearOneHot},
                   {"uniform_row_share", h.collapse.uniformRowShare},
                   {"one_hot_row_share", h.collapse.oneHotRowShare},
                   {"rows_counted", h.collapse.rowsCounted}};
  return j;
}

}  // namespace

nlohmann::json headJson(const HeadAnalysis& h, int headNumber) { return headJson(h, headNumber, false); }

void addAnalysisJson(nlohmann::json& doc, const Analysis& an) {
  addAnalysisSummaryJson(doc, an);
  auto& heads = doc["heads"] = nlohmann::json::array();
  for (size_t h = 0; h < an.heads.size(); ++h) heads.push_back(headJson(an.heads[h], static_cast<int>(h) + 1));
}

void addAnalysisSummaryJson(nlohmann::json& doc, const Analysis& an) {
  doc["heads"] = nullptr;
  doc["uniform_bound"] = an.uniformBound;
  doc["head_divergence"] = matrixJson(an.headDivergence);
  auto order = an.headOrder;
  for (int& h : order) ++h;  // heads are numbered from 1 everywhere users see them
  doc["head_order"] = order;
  if (an.headDivergence.size() > 0) doc["head_divergence_method"] = divergenceJson(an.divergenceInfo);
}

namespace {

void writeText(std::FILE* out, std::string_view s) { std::fwrite(s.data(), 1, s.size(), out); }

// A number as nlohmann's dump() writes a float of an array: the shortest text
// that reads back as the same double (its to_chars), null when not finite.
void appendNumber(std::string& buf, float x) {
  if (!std::isfinite(x)) {
    buf += "null";
    return;
  }
  char digits[64];
  char* end = nlohmann::detail::to_chars(digits, digits + sizeof digits, static_cast<double>(x));
  buf.append(digits, end);
}

// `dumped` one level deeper: nlohmann puts every element on its own line, and
// a newline inside a string is escaped, so each raw newline is a line break.
// Written 64 KB at a time (two fwrite calls a line showed in `metrics`'
// profile). A head dumped with its `vectors` as placeholders has
// each placeholder replaced by its vector, laid out as dump(2) lays out an
// array: byte for byte the text of the head's full JSON (MetricsJsonWriter
// tests it), without building N JSON values per vector.
void writeIndented(std::FILE* out, std::string_view dumped, std::string_view indent,
                   const std::vector<RowVector>& vectors = {}) {
  constexpr size_t kChunk = 64 << 10;
  std::string buf;
  buf.reserve(kChunk + 256);
  const auto flush = [&] {
    if (buf.size() >= kChunk) {
      writeText(out, buf);
      buf.clear();
    }
  };
  size_t start = 0;
  while (start < dumped.size()) {
    size_t nl = dumped.find('\n', start);
    const std::string_view line = dumped.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    // A placeholder's line is exactly <spaces>"key": "<mark>i@@" (and a comma).
    const size_t depth = std::min(line.find_first_not_of(' '), line.size());
    const bool comma = !line.empty() && line.back() == ',';
    const std::string_view pair = line.substr(depth, line.size() - depth - (comma ? 1 : 0));
    size_t i = vectors.size();
    if (pair.find(kVectorMark) != std::string_view::npos)
      for (size_t c = 0; c < vectors.size(); ++c)
        if (pair == fmt::format("\"{}\": \"{}{}@@\"", vectors[c].key, kVectorMark, c)) i = c;
    if (i == vectors.size()) {
      buf.append(line);
    } else {
      const Vec& v = *vectors[i].values;
      buf.append(line.substr(0, line.find(": \"") + 2));  // <spaces>"key": 
      if (v.size() == 0) {
        buf += "[]";
      } else {
        buf += "[\n";
        for (Eigen::Index k = 0; k < v.size(); ++k) {
          buf.append(indent);
          buf.append(depth + 2, ' ');
          appendNumber(buf, v[k]);
          buf += k + 1 < v.size() ? ",\n" : "\n";
          flush();
        }
        buf.append(indent);
        buf.append(depth, ' ');
        buf += ']';
      }
      if (comma) buf += ',';
    }
    if (nl == std::string_view::npos) break;
    buf += '\n';
    buf.append(indent);
    start = nl + 1;
    flush();
  }
  writeText(out, buf);
}

}  // namespace

namespace {

// `obj` as dump(2) prints it `indent` deep, the value of its key `special` printed by
// print(value, indent of obj's keys) instead.
template <typename Print>
void printObject(std::FILE* out, const nlohmann::json& obj, const std::string& indent,
                 std::string_view special, Print print) {
  const std::string inner = indent + "  ";
  writeText(out, "{\n");
  bool first = true;
  for (const auto& [key, value] : obj.items()) {
    writeText(out, first ? inner : ",\n" + inner);
    first = false;
    writeText(out, nlohmann::json(key).dump());
    writeText(out, ": ");
    if (key == special)
      print(value, inner);
    else
      writeIndented(out, value.dump(2), inner);
  }
  writeText(out, "\n" + indent + "}");
}

// `obj` (an object whose "heads" is null, or an array of each head's extra keys) as dump(2)
// prints it `indent` deep, with each head of `an` in the place of "heads": its JSON built
// one head at a time, the extra keys merged in.
void printWithHeads(std::FILE* out, const nlohmann::json& obj, const Analysis& an,
                    const std::string& indent) {
  printObject(out, obj, indent, "heads", [&](const nlohmann::json& extra, const std::string& inner) {
    if (an.heads.empty()) {
      writeText(out, "[]");
      return;
    }
    writeText(out, "[\n");
    for (size_t h = 0; h < an.heads.size(); ++h) {
      writeText(out, inner + "  ");
      const HeadAnalysis& head = an.heads[h];
      nlohmann::json j = headJson(head, static_cast<int>(h) + 1, true);
      if (extra.is_array() && h < extra.size())
        for (const auto& [k, v] : extra[h].items()) j[k] = v;
      writeIndented(out, j.dump(2), inner + "  ", rowVectors(head));
      writeText(out, h + 1 < an.heads.size() ? ",\n" : "\n");
    }
    writeText(out, inner + "]");
  });
}

}  // namespace

void printAnalysisJson(std::FILE* out, const nlohmann::json& doc, const Analysis& an) {
  // dump() throws on text that is not UTF-8: do it before the first byte is printed.
  const std::string check = doc.dump();
  (void)check;
  printWithHeads(out, doc, an, "");
  writeText(out, "\n");
}

void printLayeredAnalysisJson(std::FILE* out, const nlohmann::json& doc,
                              const std::vector<Analysis>& layers) {
  const std::string check = doc.dump();
  (void)check;
  printObject(out, doc, "", "layers", [&](const nlohmann::json& value, const std::string& inner) {
    if (value.empty()) {
      writeIndented(out, value.dump(2), inner);
      return;
    }
    writeText(out, "[\n");
    static const Analysis kNone;
    for (size_t l = 0; l < value.size(); ++l) {
      writeText(out, inner + "  ");
      printWithHeads(out, value[l], l < layers.size() ? layers[l] : kNone, inner + "  ");
      writeText(out, l + 1 < value.size() ? ",\n" : "\n");
    }
    writeText(out, inner + "]");
  });
  writeText(out, "\n");
}

nlohmann::json divergenceJson(const DivergenceInfo& d) {
  return {{"method", d.sampled ? "sampled" : "exact"},
          {"rows_used", d.rowsUsed},
          {"rows_total", d.rowsTotal},
          {"bound", d.bound},
          {"confidence", d.sampled ? d.confidence : 1.0}};
}

std::string divergenceText(const DivergenceInfo& d, EntropyUnit unit) {
  if (!d.sampled) return fmt::format("head divergence: exact, mean over all {} rows\n", d.rowsTotal);
  return fmt::format("head divergence: sampled estimate over {} of {} rows (seeded); every pair within +-{:.4f} {} "
                     "of the exact value with probability {:g}% (Hoeffding-Serfling, union over pairs); "
                     "--divergence exact for the exact mean\n",
                     d.rowsUsed, d.rowsTotal, d.bound, unitName(unit), d.confidence * 100);
}

std::string profileText(const AnalysisProfile& p) {
  double total = 0;
  for (const auto& e : p.entries) total += e.cpuSeconds;
  std::string s = fmt::format("profile ({} thread(s); CPU seconds summed over threads; wall {:.3f} s)\n", p.threads,
                              p.wallSeconds);
  s += fmt::format("{:<44}{:>10}{:>8}\n", "stage", "cpu s", "share");
  for (const auto& e : p.entries)
    s += fmt::format("{:<44}{:>10.4f}{:>7.1f}%\n", e.name, e.cpuSeconds, total > 0 ? 100 * e.cpuSeconds / total : 0.0);
  s += fmt::format("{:<44}{:>10.4f}\n", "total", total);
  s += fmt::format("{}\n", largePagesLine());
  return s;
}

nlohmann::json optionsJson(const AnalysisOptions& o) {
  return {{"entropy_unit", unitName(o.unit)},
          {"coverage_level", o.coverageLevel},
          {"row_sum_tolerance", o.rowSumTolerance},
          {"collapse_thresholds",
           {{"uniform_normalized_entropy", o.collapse.uniformEntropy},
            {"one_hot_max_weight", o.collapse.oneHotMass},
            {"row_share", o.collapse.rowShare}}}};
}

/// One value in a 10-wide column with at least one space before it: 4 decimals while they fit
/// (a max / min weight ratio can be 3e6 and ran into its neighbour), fewer digits in exponent form
/// when not.
std::string tableCell(double v) {
  std::string t = fmt::format("{:.4f}", v);
  if (t.size() > 9) t = fmt::format("{:.4g}", v);
  if (t.size() > 9) t = fmt::format("{:.3g}", v);
  return fmt::format("{:>10}", t);
}

std::string analysisText(const Analysis& an, const std::string& title) {
  const auto& o = an.options;
  std::string s = title + "\n";
  s += fmt::format("{:<40}", "measure \\ head");
  for (size_t h = 0; h < an.heads.size(); ++h) s += fmt::format("{:>10}", h + 1);
  s += "\n";
  for (const auto& m : headMeasures()) {
    const std::string unit = unitOf(m, o);
    const std::string label = m.key == "coverage_k" ? fmt::format("keys covering {:g}% of mass", o.coverageLevel * 100)
                              : unit.empty()        ? std::string(m.label)
                                                    : fmt::format("{} ({})", m.label, unit);
    s += fmt::format("{:<40}", label);
    for (const auto& h : an.heads) s += tableCell(m.value(h));
    s += "\n";
  }
  s += fmt::format("uniform bound log N = {:.4f} {}\n", an.uniformBound, unitName(o.unit));
  for (size_t h = 0; h < an.heads.size(); ++h) {
    const auto& c = an.heads[h].collapse;
    if (c.nearUniform)
      s += fmt::format("head {}: NEAR-UNIFORM: {:.0f}% of rows have normalized entropy > {:g} (flag above {:.0f}%)\n",
                       h + 1, c.uniformRowShare * 100, o.collapse.uniformEntropy, o.collapse.rowShare * 100);
    if (c.nearOneHot)
      s += fmt::format("head {}: NEAR-ONE-HOT: {:.0f}% of rows give one key > {:g} of the mass (flag above {:.0f}%)\n",
                       h + 1, c.oneHotRowShare * 100, o.collapse.oneHotMass, o.collapse.rowShare * 100);
  }
  if (an.heads.size() > 1 && an.headDivergence.rows() == static_cast<Eigen::Index>(an.heads.size()))
    s += matrixText(an.headDivergence,
                    fmt::format("head divergence (mean row Jensen-Shannon, {}; 0 = identical):", unitName(o.unit)));
  if (an.heads.size() > 1 && an.headDivergence.size() > 0) s += divergenceText(an.divergenceInfo, o.unit);
  if (!an.headOrder.empty()) {
    s += "heads ordered by similarity (Jensen-Shannon):";
    for (int h : an.headOrder) s += fmt::format(" {}", h + 1);
    s += "\n";
  }
  return s;
}

std::string matrixText(const Mat& m, const std::string& title) {
  std::string s = title + "\n";
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    for (Eigen::Index j = 0; j < m.cols(); ++j) s += fmt::format("{:>8.4f}", m(i, j));
    s += "\n";
  }
  return s;
}

std::string csvHeader() {
  std::string s = "layer,head";
  for (const auto& m : headMeasures()) s += fmt::format(",{}", m.key);
  return s + ",near_uniform,near_one_hot,fully_masked_rows\n";
}

std::string csvRows(const Analysis& an, int layer) {
  std::string s;
  for (size_t h = 0; h < an.heads.size(); ++h) {
    const auto& a = an.heads[h];
    s += fmt::format("{},{}", layer, h + 1);
    for (const auto& m : headMeasures()) s += fmt::format(",{:.9g}", m.value(a));
    s += fmt::format(",{},{},{}\n", a.collapse.nearUniform ? 1 : 0, a.collapse.nearOneHot ? 1 : 0, a.emptyRows.size());
  }
  return s;
}

}  // namespace attn::cli
