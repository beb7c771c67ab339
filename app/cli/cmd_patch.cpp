// attnscope-cli patch: activation patching (Meng et al. 2022; Wang et al. 2023):
// the corrupt text run with one activation at a time taken from the clean text's
// run, each patch scored by the fraction of the clean - corrupt logit difference
// (target - foil at the last position) it recovers. Writes residual [L, N],
// heads [L, H] and mlp [L, N] to --out, a summary (or --json) on stdout.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attn/io/npy_writer.h"
#include "attn/models/patching/activation_patching.h"
#include "commands.h"
#include "model_request.h"
#include "prompt_file.h"
#include "token_offsets.h"
#include "vector_tensor.h"

namespace attn::cli {
namespace {

struct PatchCliOptions {
  std::string modelDir, clean, corrupt, target, foil, out, sites = "residual,heads,mlp";
  std::string pairs;  // --pairs: a JSON-lines file of clean/corrupt/target/foil rows
  bool json = false, force = false;
};

Result<models::PatchingOptions> parseSites(const std::string& spec) {
  models::PatchingOptions o;
  o.residual = o.heads = o.mlp = false;
  std::istringstream in(spec);
  std::string s;
  while (std::getline(in, s, ',')) {
    if (s == "residual")
      o.residual = true;
    else if (s == "heads")
      o.heads = true;
    else if (s == "mlp")
      o.mlp = true;
    else
      return Error{fmt::format("--sites: unknown site \"{}\" (residual, heads, mlp)", s)};
  }
  if (!o.residual && !o.heads && !o.mlp) return Error{"--sites: name at least one of residual, heads, mlp"};
  return o;
}

Tensor scalarTensor(double v) {
  Tensor t;
  t.data = {static_cast<float>(v)};
  return t;
}

/// The `count` largest entries of m as "label value" lines.
std::string topEntries(const Mat& m, int count, const std::function<std::string(int, int)>& label) {
  std::vector<std::pair<float, std::pair<int, int>>> all;
  for (int r = 0; r < m.rows(); ++r)
    for (int c = 0; c < m.cols(); ++c) all.push_back({m(r, c), {r, c}});
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string s;
  for (int i = 0; i < std::min<int>(count, static_cast<int>(all.size())); ++i)
    s += fmt::format("  {:<28} {:+.3f}\n", label(all[i].second.first, all[i].second.second), all[i].first);
  return s;
}

nlohmann::json matJson(const Mat& m) {
  nlohmann::json rows = nlohmann::json::array();
  for (int r = 0; r < m.rows(); ++r) {
    nlohmann::json row = nlohmann::json::array();
    for (int c = 0; c < m.cols(); ++c) row.push_back(m(r, c));
    rows.push_back(std::move(row));
  }
  return rows;
}

/// One pair's patching, its tokens encoded; errors are prefixed with `where` (FILE:LINE).
Result<models::PatchingResult> patchPair(const models::Model& m, const PatchPair& p,
                                         const models::PatchingOptions& sites, int& tokens) {
  const auto prefixed = [&p](const Error& e) { return Error{fmt::format("{}: {}", p.where, e.message)}; };
  auto clean = m.encode(p.clean, std::nullopt, "clean");
  if (!clean) return prefixed(clean.error());
  auto corrupt = m.encode(p.corrupt, std::nullopt, "corrupt");
  if (!corrupt) return prefixed(corrupt.error());
  auto target = tokenId(m, p.target, "target");
  if (!target) return prefixed(target.error());
  auto foil = tokenId(m, p.foil, "foil");
  if (!foil) return prefixed(foil.error());
  tokens = clean->size();
  auto res = m.patch(*clean, *corrupt, *target, *foil, sites, terminalProgress());
  if (!res) return prefixed(res.error());
  return res;
}

// Patching over a data set (as Wang et al. 2023 average over their IOI prompts): each pair's
// recovered fractions, then the mean and the population standard deviation. Heads are
// comparable across pairs of any length; the residual and MLP maps are indexed by position, so
// they are averaged only when every pair has the same number of tokens.
int runPatchOverPairs(const PatchCliOptions& o, const models::PatchingOptions& sites) {
  auto pairs = readPatchPairs(o.pairs);
  if (!pairs) return fail(pairs.error().message);
  auto model = models::Model::open(o.modelDir, terminalProgress());
  if (!model) return fail(model.error().message);
  const models::Model& m = **model;
  std::vector<Mat> heads, residual, mlp;
  std::vector<double> cleanDiff, corruptDiff;
  int firstTokens = -1;
  bool sameLength = true;
  for (const PatchPair& p : *pairs) {
    int tokens = 0;
    auto res = patchPair(m, p, sites, tokens);
    if (!res) return fail(res.error().message);
    if (firstTokens < 0) firstTokens = tokens;
    sameLength = sameLength && tokens == firstTokens;
    heads.push_back(res->heads), residual.push_back(res->residual), mlp.push_back(res->mlp);
    cleanDiff.push_back(res->cleanDiff), corruptDiff.push_back(res->corruptDiff);
  }
  struct Site {
    const char* name;
    bool on;
    const std::vector<Mat>* samples;
  };
  const Site all[] = {{"residual", sites.residual && sameLength, &residual},
                      {"heads", sites.heads, &heads},
                      {"mlp", sites.mlp && sameLength, &mlp}};
  NpzWriter npz;
  nlohmann::json doc = {{"model", m.info().name},
                        {"pairs", pairs->size()},
                        {"clean_diff", cleanDiff},
                        {"corrupt_diff", corruptDiff},
                        {"same_length", sameLength}};
  std::string table;
  for (const Site& s : all) {
    if (!s.on) continue;
    const MeanSpread ms = meanAndSpread(*s.samples);
    const Mat &mean = ms.mean, &spread = ms.spread;
    npz.add(s.name, Tensor::fromMat(mean));
    npz.add(std::string(s.name) + "_std", Tensor::fromMat(spread));
    doc[s.name] = matJson(mean);
    doc[std::string(s.name) + "_std"] = matJson(spread);
    table += fmt::format("{}, top 5 by the mean:\n{}", s.name, topEntries(mean, 5, [&](int r, int c) {
                           return fmt::format("layer {} {} {} (± {:.3f})", r + 1,
                                              std::string_view(s.name) == "heads" ? "head" : "pos",
                                              std::string_view(s.name) == "heads" ? c + 1 : c, spread(r, c));
                         }));
  }
  npz.add("clean_diff", vectorTensor(cleanDiff));
  npz.add("corrupt_diff", vectorTensor(corruptDiff));
  if (!o.out.empty())
    if (auto st = npz.write(o.out); !st) return fail(st.error().message);
  if (o.json) {
    fmt::print("{}\n", doc.dump(2));
    return 0;
  }
  fmt::print(
      "model: {}; {} pairs from {}; fraction of each pair's clean - corrupt logit difference that a "
      "patch recovers, mean over the pairs\n{}",
      m.info().name, pairs->size(), o.pairs, table);
  if (!sameLength && (sites.residual || sites.mlp))
    fmt::print("the pairs differ in length: residual and MLP maps (by position) are not averaged\n");
  if (!o.out.empty()) fmt::print("wrote {}\n", o.out);
  return 0;
}

int runPatch(const PatchCliOptions& o) {
  if (!o.out.empty()) {
    if (!o.out.ends_with(".npz")) return fail(fmt::format("{}: --out of patch must end in .npz", o.out));
    if (auto st = checkOverwrite(o.out, o.force); !st) return fail(st.error().message);
  }
  auto sites = parseSites(o.sites);
  if (!sites) return fail(sites.error().message);
  if (!o.pairs.empty()) return runPatchOverPairs(o, *sites);
  if (o.clean.empty() || o.corrupt.empty() || o.target.empty() || o.foil.empty())
    return fail("patch needs --clean, --corrupt, --target and --foil, or --pairs FILE");
  auto model = models::Model::open(o.modelDir, terminalProgress());
  if (!model) return fail(model.error().message);
  const models::Model& m = **model;
  auto clean = m.encode(o.clean, std::nullopt, "--clean");
  if (!clean) return fail(clean.error().message);
  auto corrupt = m.encode(o.corrupt, std::nullopt, "--corrupt");
  if (!corrupt) return fail(corrupt.error().message);
  auto target = tokenId(m, o.target, "--target");
  if (!target) return fail(target.error().message);
  auto foil = tokenId(m, o.foil, "--foil");
  if (!foil) return fail(foil.error().message);
  auto res = m.patch(*clean, *corrupt, *target, *foil, *sites, terminalProgress());
  if (!res) return fail(res.error().message);
  const auto& tok = m.tokenizer();
  if (!o.out.empty()) {
    NpzWriter npz;
    if (sites->residual) npz.add("residual", Tensor::fromMat(res->residual));
    if (sites->heads) npz.add("heads", Tensor::fromMat(res->heads));
    if (sites->mlp) npz.add("mlp", Tensor::fromMat(res->mlp));
    npz.add("clean_diff", scalarTensor(res->cleanDiff));
    npz.add("corrupt_diff", scalarTensor(res->corruptDiff));
    npz.addStrings("clean_tokens", clean->tokens);
    npz.addStrings("corrupt_tokens", corrupt->tokens);
    addTokenOffsets(npz, "clean_token_offsets", *clean);
    addTokenOffsets(npz, "corrupt_token_offsets", *corrupt);
    npz.addStrings("target_foil", {tok.displayText(*target), tok.displayText(*foil)});
    if (auto st = npz.write(o.out); !st) return fail(st.error().message);
  }
  if (o.json) {
    nlohmann::json doc = {{"model", m.info().name},
                          {"target", {{"id", *target}, {"token", tok.displayText(*target)}}},
                          {"foil", {{"id", *foil}, {"token", tok.displayText(*foil)}}},
                          {"clean_diff", res->cleanDiff},
                          {"corrupt_diff", res->corruptDiff},
                          {"clean_tokens", clean->tokens},
                          {"corrupt_tokens", corrupt->tokens}};
    if (sites->residual) doc["residual"] = matJson(res->residual);
    if (sites->heads) doc["heads"] = matJson(res->heads);
    if (sites->mlp) doc["mlp"] = matJson(res->mlp);
    fmt::print("{}\n", doc.dump(2));
    return 0;
  }
  fmt::print("model: {}; logit({}) - logit({}) at the last position: clean {:.4f}, corrupt {:.4f}\n",
             m.info().name, tok.displayText(*target), tok.displayText(*foil), res->cleanDiff,
             res->corruptDiff);
  fmt::print("fraction of that difference each patch recovers (1 = all, 0 = none):\n");
  const auto position = [&](int l, int p) {
    return fmt::format("layer {} pos {} {}", l + 1, p, tok.displayText(clean->ids[static_cast<size_t>(p)]));
  };
  if (sites->residual) fmt::print("residual stream, top 5:\n{}", topEntries(res->residual, 5, position));
  if (sites->heads)
    fmt::print("heads, top 5:\n{}", topEntries(res->heads, 5, [](int l, int h) {
                 return fmt::format("layer {} head {}", l + 1, h + 1);
               }));
  if (sites->mlp) fmt::print("MLP outputs, top 5:\n{}", topEntries(res->mlp, 5, position));
  if (!o.out.empty()) fmt::print("wrote {}\n", o.out);
  return 0;
}

}  // namespace

Action addPatchCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "patch",
      "Activation patching: run --corrupt with one activation at a time (residual stream, head output, MLP "
      "output) taken from the run on --clean, and report how much of the clean run's logit difference "
      "(--target minus --foil at the last position) each patch recovers");
  auto o = std::make_shared<PatchCliOptions>();
  cmd->add_option("--model", o->modelDir, "Hugging Face model folder (a causal LM: GPT-2, Llama family)")
      ->required();
  auto* clean = cmd->add_option("--clean", o->clean, "The clean text");
  auto* corrupt = cmd->add_option("--corrupt", o->corrupt, "The corrupt text (the same number of tokens)");
  auto* target =
      cmd->add_option("--target", o->target, "The token the clean text predicts: one token's text or #ID");
  auto* foil = cmd->add_option("--foil", o->foil, "The token it is compared with: one token's text or #ID");
  auto* pairs = cmd->add_option(
      "--pairs", o->pairs,
      "A JSON-lines file, one {\"clean\", \"corrupt\", \"target\", \"foil\"} object per line: the mean and "
      "std over the pairs (heads always; residual and MLP when every pair has the same length)");
  for (auto* single : {clean, corrupt, target, foil}) pairs->excludes(single);
  cmd->add_option("--sites", o->sites, "What to patch: a comma list of residual, heads, mlp")
      ->capture_default_str();
  cmd->add_option("--out", o->out,
                  "Write residual [L, N], heads [L, H], mlp [L, N] and the two differences to this .npz");
  cmd->add_flag("--json", o->json, "Print every fraction as JSON instead of the summary");
  cmd->add_flag("--force", o->force, "Overwrite an existing --out file");
  return [cmd, o]() -> int {
    if (!cmd->parsed()) return -1;
    return runPatch(*o);
  };
}

}  // namespace attn::cli
