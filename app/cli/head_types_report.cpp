#include "head_types_report.h"

#include <fmt/format.h>

namespace attn::cli {
namespace {

// In classifyHead's order (attn/analysis/head_types.h).
const char* const kHeadTypePrecedence[] = {"induction", "duplicate", "previous-token", "sink",
                                           "self",      "local",     "broad"};

struct NamedScore {
  const char* key;
  float value;
};

std::vector<NamedScore> namedScores(const HeadTypeScores& s) {
  return {{"previous_token", s.previousToken},
          {"induction", s.induction},
          {"duplicate", s.duplicate},
          {"sink", s.sink},
          {"self", s.self},
          {"local", s.local}};
}

}  // namespace

nlohmann::json headTypesJson(const models::ModelHeadTypes& t) {
  nlohmann::json j;
  j["seed"] = t.seed;
  j["period"] = t.sequence.period;
  j["sequence_length"] = t.sequence.encoding.size();
  j["rows"] = {t.sequence.secondCopy.begin, t.sequence.secondCopy.end};  // 0-based, end exclusive
  j["local_window"] = kLocalWindow;
  const HeadTypeThresholds& th = t.thresholds;
  j["thresholds"] = {
      {"induction", th.induction}, {"duplicate", th.duplicate}, {"previous_token", th.previousToken},
      {"sink", th.sink},           {"self", th.self},           {"local", th.local}};
  j["precedence"] = kHeadTypePrecedence;
  j["rule"] = "a head takes the first type in precedence whose score is >= its threshold; broad when none is";
  auto& layers = j["layers"] = nlohmann::json::array();
  for (size_t l = 0; l < t.scores.size(); ++l) {
    auto heads = nlohmann::json::array();
    for (size_t h = 0; h < t.scores[l].size(); ++h) {
      nlohmann::json head{{"head", h + 1}, {"head_type", std::string(headTypeName(t.types[l][h]))}};
      for (const auto& s : namedScores(t.scores[l][h])) head[s.key] = s.value;
      heads.push_back(std::move(head));
    }
    layers.push_back({{"layer", l + 1}, {"heads", std::move(heads)}});
  }
  return j;
}

std::string headTypesCsv(const models::ModelHeadTypes& t) {
  std::string s = "layer,head,head_type,previous_token,induction,duplicate,sink,self,local\n";
  for (size_t l = 0; l < t.scores.size(); ++l)
    for (size_t h = 0; h < t.scores[l].size(); ++h) {
      s += fmt::format("{},{},{}", l + 1, h + 1, headTypeName(t.types[l][h]));
      for (const auto& n : namedScores(t.scores[l][h])) s += fmt::format(",{:.6g}", n.value);
      s += "\n";
    }
  return s;
}

std::string headTypesText(const models::ModelHeadTypes& t) {
  const HeadTypeThresholds& th = t.thresholds;
  std::string s = fmt::format(
      "head types on a repeated random sequence: {} tokens, 2 copies of {} (seed {}), scores over the second "
      "copy\n"
      "thresholds (first match wins): induction >= {:g}, duplicate >= {:g}, previous-token >= {:g}, sink >= "
      "{:g}, "
      "self >= {:g}, local (|i-j| <= {}) >= {:g}, else broad\n",
      t.sequence.encoding.size(), t.sequence.period, t.seed, th.induction, th.duplicate, th.previousToken,
      th.sink, th.self, kLocalWindow, th.local);
  const size_t heads = t.scores.empty() ? 0 : t.scores.front().size();
  std::string header = "layer";
  for (size_t h = 0; h < heads; ++h) header += fmt::format(" {:>14}", fmt::format("h{}", h + 1));
  s += header + "\n";
  for (size_t l = 0; l < t.types.size(); ++l) {
    std::string line = fmt::format("{:>5}", l + 1);
    for (HeadType type : t.types[l]) line += fmt::format(" {:>14}", headTypeName(type));
    s += line + "\n";
  }
  s += "layer.head  type            prev   induct dup    sink   self   local\n";
  for (size_t l = 0; l < t.scores.size(); ++l)
    for (size_t h = 0; h < t.scores[l].size(); ++h) {
      const HeadTypeScores& c = t.scores[l][h];
      s += fmt::format("{:>10}  {:<14} {:.3f}  {:.3f}  {:.3f}  {:.3f}  {:.3f}  {:.3f}\n",
                       fmt::format("{}.{}", l + 1, h + 1), headTypeName(t.types[l][h]), c.previousToken,
                       c.induction, c.duplicate, c.sink, c.self, c.local);
    }
  return s;
}

}  // namespace attn::cli
