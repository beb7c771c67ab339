#include "lens_report.h"

#include <fmt/format.h>

#include "attn/io/table_export.h"

namespace attn::cli {
namespace {

std::string rowName(int row) { return row == 0 ? std::string("embeddings") : fmt::format("layer {}", row); }

}  // namespace

void addLensMembers(NpzWriter& npz, const models::LogitLens& lens, const models::Encoding& enc,
                    const TokenText& text) {
  const int64_t rows = lens.rows, n = lens.positions, k = lens.k;
  std::vector<int32_t> ids(lens.topIds.begin(), lens.topIds.end());
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (int id : lens.topIds) tokens.push_back(text(id));
  Tensor probs;
  probs.shape = {rows, n, k};
  probs.data = lens.topProbs;
  Tensor finalProbs;
  finalProbs.shape = {rows, n};
  finalProbs.data = lens.finalProb;
  npz.addInts("lens_top_ids", ids, {rows, n, k});
  npz.add("lens_top_probs", probs);
  npz.addInts("lens_final_rank", std::vector<int32_t>(lens.finalRank.begin(), lens.finalRank.end()),
              {rows, n});
  npz.add("lens_final_probs", finalProbs);
  npz.addStrings("lens_top_tokens", tokens, {rows, n, k});
  std::vector<std::string> finalTokens;
  for (int id : lens.finalIds) finalTokens.push_back(text(id));
  npz.addInts("lens_final_ids", std::vector<int32_t>(lens.finalIds.begin(), lens.finalIds.end()));
  npz.addStrings("lens_final_tokens", finalTokens);
  npz.addStrings("tokens", enc.tokens);
  npz.addInts("ids", std::vector<int32_t>(enc.ids.begin(), enc.ids.end()));
}

nlohmann::json lensJson(const models::LogitLens& lens, const models::Encoding& enc, const TokenText& text) {
  nlohmann::json doc;
  doc["rows"] = lens.rows;
  doc["positions"] = lens.positions;
  doc["k"] = lens.k;
  doc["tokens"] = enc.tokens;
  doc["ids"] = enc.ids;
  auto& fin = doc["final"] = nlohmann::json::array();
  for (int id : lens.finalIds) fin.push_back({{"id", id}, {"token", text(id)}});
  auto& layers = doc["layers"] = nlohmann::json::array();
  for (int r = 0; r < lens.rows; ++r) {
    auto positions = nlohmann::json::array();
    for (int i = 0; i < lens.positions; ++i) {
      auto top = nlohmann::json::array();
      for (int j = 0; j < lens.k; ++j)
        top.push_back({{"id", lens.topId(r, i, j)},
                       {"token", text(lens.topId(r, i, j))},
                       {"prob", lens.topProb(r, i, j)}});
      positions.push_back(
          {{"position", i}, {"top", top}, {"final_rank", lens.rank(r, i)}, {"final_prob", lens.prob(r, i)}});
    }
    layers.push_back({{"layer", r}, {"name", rowName(r)}, {"positions", positions}});
  }
  return doc;
}

std::string lensCsv(const models::LogitLens& lens, const models::Encoding& enc, const TokenText& text) {
  std::string s = "layer,position,token,final_token,final_rank,final_prob";
  for (int j = 1; j <= lens.k; ++j) s += fmt::format(",top{0}_token,top{0}_prob", j);
  s += '\n';
  for (int r = 0; r < lens.rows; ++r)
    for (int i = 0; i < lens.positions; ++i) {
      const std::string token =
          i < static_cast<int>(enc.tokens.size()) ? enc.tokens[static_cast<size_t>(i)] : "";
      s += fmt::format("{},{},{},{},{},{:.9g}", r, i, csvField(token),
                       csvField(text(lens.finalIds[static_cast<size_t>(i)])), lens.rank(r, i),
                       lens.prob(r, i));
      for (int j = 0; j < lens.k; ++j)
        s += fmt::format(",{},{:.9g}", csvField(text(lens.topId(r, i, j))), lens.topProb(r, i, j));
      s += '\n';
    }
  return s;
}

std::string lensPositionText(const models::LogitLens& lens, const models::Encoding& enc,
                             const TokenText& text, int position) {
  const int finalId = lens.finalIds[static_cast<size_t>(position)];
  std::string s = fmt::format("position {} ({:?}): the model predicts {:?}\n", position,
                              enc.tokens[static_cast<size_t>(position)], text(finalId));
  s += fmt::format("{:<11} {:>6} {:>8}  top {}\n", "row", "rank", "p(final)", lens.k);
  for (int r = 0; r < lens.rows; ++r) {
    std::string top;
    for (int j = 0; j < lens.k; ++j)
      top += fmt::format("  {:?} {:.3f}", text(lens.topId(r, position, j)), lens.topProb(r, position, j));
    s += fmt::format("{:<11} {:>6} {:>8.4f}{}\n", rowName(r), lens.rank(r, position), lens.prob(r, position),
                     top);
  }
  return s;
}

std::string lensLayerText(const models::LogitLens& lens, const models::Encoding& enc, const TokenText& text,
                          int row) {
  std::string s = fmt::format("{}, read out through the output head:\n", rowName(row));
  s += fmt::format("{:>8}  {:<16} {:<16} {:>8} {:>6} {:>8}\n", "position", "token", "top-1", "p(top-1)",
                   "rank", "p(final)");
  for (int i = 0; i < lens.positions; ++i)
    s += fmt::format("{:>8}  {:<16} {:<16} {:>8.4f} {:>6} {:>8.4f}\n", i,
                     fmt::format("{:?}", enc.tokens[static_cast<size_t>(i)]),
                     fmt::format("{:?}", text(lens.topId(row, i, 0))), lens.topProb(row, i, 0),
                     lens.rank(row, i), lens.prob(row, i));
  return s;
}

}  // namespace attn::cli
