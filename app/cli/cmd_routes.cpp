// attnscope-cli routes: the contribution graph of --model on a text (Ferrando & Voita 2024,
// "Information Flow Routes"): every attention head-key, MLP and residual edge's share of its
// block's output, and the route from one token down through the layers at a threshold.
// Writes the importances and the route to --out (.npz), the route as JSON (--json) or a table.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>

#include "attn/io/npy_writer.h"
#include "attn/models/attribution/flow_routes.h"
#include "commands.h"
#include "input_options.h"
#include "model_request.h"
#include "token_offsets.h"

namespace attn::cli {
namespace {

struct RoutesCliOptions {
  InputOptions input;
  std::string out;
  bool json = false, force = false;
  int position = -1;  // 0-based; -1: the last
  double threshold = 0.04;
  int top = 15;
};

Tensor routesMatrixTensor(const Mat& m) {
  Tensor t;
  t.shape = {m.rows(), m.cols()};
  t.data.assign(m.data(), m.data() + m.size());
  return t;
}

void addRoutesMembers(NpzWriter& npz, const models::FlowRoutes& r, const models::Encoding& enc) {
  const int64_t L = static_cast<int64_t>(r.attnImportance.size()), n = enc.size();
  const int64_t H = L > 0 ? static_cast<int64_t>(r.attnImportance[0].size()) : 0;
  Tensor attn;
  attn.shape = {L, H, n, n};
  attn.data.reserve(static_cast<size_t>(L * H * n * n));
  for (const auto& layer : r.attnImportance)
    for (const Mat& m : layer) attn.data.insert(attn.data.end(), m.data(), m.data() + m.size());
  npz.add("attn_importance", attn);
  npz.add("attn_residual_importance", routesMatrixTensor(r.attnResidualImportance));
  npz.add("mlp_importance", routesMatrixTensor(r.mlpImportance));
  npz.add("mlp_residual_importance", routesMatrixTensor(r.mlpResidualImportance));
  std::vector<int32_t> layer, kind, head, from, to;
  std::vector<std::string> kindNames;
  Tensor imp;
  imp.shape = {static_cast<int64_t>(r.edges.size())};
  for (const auto& e : r.edges) {
    layer.push_back(e.layer);
    kind.push_back(static_cast<int32_t>(e.kind));
    kindNames.emplace_back(models::routeEdgeKindName(e.kind));
    head.push_back(e.head);
    from.push_back(e.from);
    to.push_back(e.to);
    imp.data.push_back(e.importance);
  }
  npz.addInts("edge_layer", layer);
  npz.addInts("edge_kind", kind);
  npz.addStrings("edge_kind_name", kindNames);
  npz.addInts("edge_head", head);
  npz.addInts("edge_from", from);
  npz.addInts("edge_to", to);
  npz.add("edge_importance", imp);
  npz.addInts("position", {r.position});
  Tensor tau;
  tau.data = {static_cast<float>(r.threshold)};
  npz.add("threshold", tau);
  npz.addStrings("tokens", enc.tokens);
  addTokenOffsets(npz, "token_offsets", enc);
  npz.addInts("ids", std::vector<int32_t>(enc.ids.begin(), enc.ids.end()));
}

std::string routesEdgeText(const models::RouteEdge& e, const models::Encoding& enc) {
  const auto tok = [&enc](int i) { return fmt::format("{}:{:?}", i, enc.tokens[static_cast<size_t>(i)]); };
  const std::string via = e.kind == models::RouteEdgeKind::Head ? fmt::format("head {}", e.head)
                                                                : std::string(routeEdgeKindName(e.kind));
  return fmt::format("{:>5}  {:<13}  {:>7.4f}  {} -> {}", e.layer + 1, via, e.importance, tok(e.from),
                     tok(e.to));
}

nlohmann::json routesJson(const models::FlowRoutes& r, const models::Encoding& enc) {
  nlohmann::json edges = nlohmann::json::array();
  for (const auto& e : r.edges)
    edges.push_back({{"layer", e.layer},
                     {"kind", std::string(routeEdgeKindName(e.kind))},
                     {"head", e.head},
                     {"from", e.from},
                     {"to", e.to},
                     {"importance", e.importance}});
  nlohmann::json doc = {
      {"tokens", enc.tokens}, {"position", r.position}, {"threshold", r.threshold}, {"edges", edges}};
  if (enc.offsets.size() == enc.tokens.size()) doc["token_offsets"] = enc.offsets;  // bytes of the text
  return doc;
}

int runRoutes(const RoutesCliOptions& o) {
  if (!(o.threshold > 0.0 && o.threshold <= 1.0))
    return fail(fmt::format("--threshold must be in (0, 1] (got {})", o.threshold));
  if (o.top < 0) return fail(fmt::format("--top must be at least 0 (got {})", o.top));
  if (!o.out.empty()) {
    if (!o.out.ends_with(".npz")) return fail(fmt::format("{}: --out of routes must end in .npz", o.out));
    if (auto st = checkOverwrite(o.out, o.force); !st) return fail(st.error().message);
  }
  auto opened = openModelText(o.input);
  if (!opened) return fail(opened.error().message);
  const auto& [model, enc] = *opened;
  const auto& info = model->info();
  if (o.position < -1 || o.position >= enc.size())
    return fail(fmt::format("--position: {} is out of range (0..{}; the text has {} tokens)", o.position,
                            enc.size() - 1, enc.size()));
  auto routes = model->flowRoutes(enc, {o.position, o.threshold}, terminalProgress());
  if (!routes) return fail(routes.error().message);
  if (!o.out.empty()) {
    NpzWriter npz;
    addRoutesMembers(npz, *routes, enc);
    if (auto st = npz.write(o.out); !st) return fail(st.error().message);
  }
  if (o.json) {
    nlohmann::json doc = routesJson(*routes, enc);
    doc["model"] = info.name;
    doc["family"] = std::string(models::familyName(info.family));
    doc["n_layers"] = info.layers;
    fmt::print("{}\n", doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
    return 0;
  }
  fmt::print("model: {} ({}, {} layers, {} heads), {} tokens; route of {}:{:?} at threshold {}: {} edges\n",
             info.name, models::familyName(info.family), info.layers, info.heads, enc.size(),
             routes->position, enc.tokens[static_cast<size_t>(routes->position)], o.threshold,
             routes->edges.size());
  std::vector<models::RouteEdge> top = routes->edges;
  std::stable_sort(top.begin(), top.end(),
                   [](const auto& a, const auto& b) { return a.importance > b.importance; });
  if (static_cast<int>(top.size()) > o.top) top.resize(static_cast<size_t>(o.top));
  int heads = 0;
  for (const auto& e : routes->edges) heads += e.kind == models::RouteEdgeKind::Head;
  fmt::print("{} attention-head edges, {} MLP and residual edges; the {} strongest (layer 1-based):\n", heads,
             routes->edges.size() - static_cast<size_t>(heads), top.size());
  fmt::print("{:>5}  {:<13}  {:>7}  {}\n", "layer", "via", "share", "from -> to");
  for (const auto& e : top) fmt::print("{}\n", routesEdgeText(e, enc));
  if (!o.out.empty()) fmt::print("wrote {}\n", o.out);
  return 0;
}

}  // namespace

Action addRoutesCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "routes",
      "Contribution graph of --model (Ferrando & Voita 2024, information flow routes): each attention "
      "head-key, MLP and residual edge's share of its block's output (ALTI's proximity), and the route from "
      "one token down through the layers; GPT-2 and the Llama family");
  auto o = std::make_shared<RoutesCliOptions>();
  cmd->add_option("--model", o->input.modelDir,
                  "Hugging Face model folder or its cache directory, or a bundled model's name (austen-gpt2; "
                  "without --text: its first example sentence)")
      ->required();
  auto* text = cmd->add_option("--text", o->input.text, "Text to run the model on");
  auto* file = cmd->add_option("--text-file", o->input.textFile, "Text from a UTF-8 .txt file");
  text->excludes(file);
  cmd->add_option("--max-tokens", o->input.maxTokens, "Keep the first N tokens of the text");
  cmd->add_option("--position", o->position, "The token (0-based) whose route is traced; default the last");
  cmd->add_option("--threshold", o->threshold,
                  "Keep the edges whose share of their block's output is at least this, in (0, 1]")
      ->capture_default_str();
  cmd->add_option(
      "--out", o->out,
      "Write attn_importance [L, H, N, N], attn_residual_importance, mlp_importance, "
      "mlp_residual_importance [L, N], the route's edge_layer, edge_kind (0 head, 1 attention "
      "residual, 2 MLP, 3 MLP residual), edge_kind_name, edge_head (-1: none), edge_from, edge_to, "
      "edge_importance, and the tokens to this .npz");
  cmd->add_flag("--json", o->json, "Print the route's edges as JSON instead of a table");
  cmd->add_option("--top", o->top, "Table: the strongest edges shown")->capture_default_str();
  cmd->add_flag("--force", o->force, "Overwrite an existing --out file");
  return [cmd, o]() -> int {
    if (!cmd->parsed()) return -1;
    return runRoutes(*o);
  };
}

}  // namespace attn::cli
