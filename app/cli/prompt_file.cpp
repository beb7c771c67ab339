#include "prompt_file.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "attn/io/json_document.h"
#include "attn/io/text_file.h"
#include "input_options.h"
#include "model_request.h"

namespace attn::cli {
namespace {

constexpr size_t kMaxPairs = 10000;

/// Calls `line(number, text)` for each line of `text` that holds more than blanks.
template <typename F>
Status forEachLine(const std::string& text, F&& line) {
  size_t start = 0;
  for (int number = 1; start <= text.size(); ++number) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string s = text.substr(start, end - start);
    start = end + 1;
    if (!s.empty() && s.back() == '\r') s.pop_back();
    if (s.find_first_not_of(" \t") != std::string::npos)
      if (auto st = line(number, std::move(s)); !st) return st;
    if (end == text.size()) break;
  }
  return okStatus();
}

}  // namespace

Result<std::vector<models::Encoding>> encodePrompts(const models::Model& model, const InputOptions& o,
                                                    const std::string& path) {
  auto text = readUtf8TextFile(path);
  if (!text) return text.error();
  std::vector<models::Encoding> out;
  auto st = forEachLine(*text, [&](int line, std::string prompt) -> Status {
    const std::string where = fmt::format("{}:{}", path, line);
    auto enc = model.encode(prompt, std::nullopt, where, o.padTo);
    if (!enc) return enc.error();
    auto fitted = fitContext(model.info(), std::move(enc).value(), o, where);
    if (!fitted) return fitted.error();
    out.push_back(std::move(fitted).value());
    return okStatus();
  });
  if (!st) return st.error();
  if (out.empty()) return Error{fmt::format("{}: no prompt (every line is empty)", path)};
  return out;
}

Result<std::pair<std::shared_ptr<const models::Model>, std::vector<models::Encoding>>> openModelPrompts(
    const InputOptions& o, const std::string& path) {
  auto model = models::Model::open(o.modelDir, terminalProgress());
  if (!model) return model.error();
  auto prompts = encodePrompts(**model, o, path);
  if (!prompts) return prompts.error();
  return std::pair{std::shared_ptr<const models::Model>(*model), std::move(prompts).value()};
}

Result<std::vector<PatchPair>> readPatchPairs(const std::string& path) {
  auto text = readUtf8TextFile(path);
  if (!text) return text.error();
  std::vector<PatchPair> out;
  auto st = forEachLine(*text, [&](int line, std::string row) -> Status {
    const std::string where = fmt::format("{}:{}", path, line);
    if (out.size() == kMaxPairs)
      return Error{fmt::format("{}: more than {} pairs; split the file", where, kMaxPairs)};
    // A row is one flat object of strings: a value nested deeper (an object inside an object
    // inside the row) is refused before it is built; one level is left so the message can say
    // which member is not a string.
    auto parsed = parseJsonText(row, where, 2);
    if (!parsed) return parsed.error();
    const nlohmann::json& doc = *parsed;
    if (!doc.is_object())
      return Error{
          fmt::format("{}: not a JSON object (one {{\"clean\", \"corrupt\", \"target\", \"foil\"}} "
                      "object per line)",
                      where)};
    PatchPair p;
    p.where = where;
    for (auto [key, field] : {std::pair{"clean", &p.clean}, std::pair{"corrupt", &p.corrupt},
                              std::pair{"target", &p.target}, std::pair{"foil", &p.foil}}) {
      const auto it = doc.find(key);
      if (it == doc.end() || !it->is_string())
        return Error{fmt::format("{}: \"{}\" is missing or not a string", where, key)};
      *field = it->get<std::string>();
    }
    out.push_back(std::move(p));
    return okStatus();
  });
  if (!st) return st.error();
  if (out.empty()) return Error{fmt::format("{}: no pair (every line is empty)", path)};
  return out;
}

MeanSpread meanAndSpread(const std::vector<Mat>& samples) {
  MeanSpread r;
  if (samples.empty()) return r;
  const auto n = static_cast<double>(samples.size());
  Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(samples[0].rows(), samples[0].cols()), sumSq = sum;
  for (const Mat& m : samples) {
    const Eigen::MatrixXd d = m.cast<double>();
    sum += d;
    sumSq += d.cwiseProduct(d);
  }
  const Eigen::MatrixXd mean = sum / n;
  r.mean = mean.cast<float>();
  r.spread = (sumSq / n - mean.cwiseProduct(mean)).cwiseMax(0.0).cwiseSqrt().cast<float>();
  return r;
}

}  // namespace attn::cli
