// attnscope-cli importance: every head of a model zeroed alone (the ablation
// estimate of head importance: loss increase for causal models, final hidden-state
// change for encoders; "method": "ablation" in the JSON) or, with --method gradient,
// Michel et al.'s (2019) gate gradients of the next-token loss from one backward pass
// (causal models), and the pruning curve (heads removed in increasing order of
// importance), as a table, JSON (--json), CSV (--csv) and the curve as CSV
// (--curve-csv, or --curve).
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>

#include "attn/io/atomic_file.h"
#include "attn/models/experiments/head_experiments.h"
#include "commands.h"
#include "input_options.h"
#include "model_request.h"
#include "prompt_file.h"

namespace attn::cli {
namespace {

struct ImportanceCliOptions {
  InputOptions input;
  bool json = false;
  bool force = false;
  bool noPrefixCache = false;
  bool serialHeads = false;
  int steps = 12;
  std::string csv, curve;
  std::string prompts;              // --prompts: one prompt per line, importance averaged over them
  std::string method = "ablation";  // or "gradient"
};

bool gradientMethod(const ImportanceCliOptions& o) { return o.method == "gradient"; }

models::ImportanceOptions importanceOptions(const ImportanceCliOptions& o, int curveSteps) {
  models::ImportanceOptions io{curveSteps, !o.noPrefixCache, !o.serialHeads};
  io.method = gradientMethod(o) ? models::ImportanceMethod::GateGradient : models::ImportanceMethod::Ablation;
  return io;
}

// What the table's heading says the numbers are.
const char* methodLine(const ImportanceCliOptions& o) {
  return gradientMethod(o) ? "gate gradients (Michel et al. 2019: |d loss / d head gate|, one backward pass)"
                           : "ablation (each head zeroed alone)";
}

// Every pass of the importance measure ablates a head (an intervention), which only the
// CPU forward computes: --backend cuda says so and the CPU runs.
Status planImportanceBackend(const ImportanceCliOptions& o, const models::ModelInfo& info, int tokens) {
  models::RunOptions ablation;
  ablation.interventions.resize(1);
  auto onDevice = planModelBackend(o.input.backend, info, tokens, ablation);
  if (!onDevice) return onDevice.error();
  return okStatus();
}

// Michel et al. (2019) average head importance over a data set: each prompt's ablation
// importance, then the mean and the (population) standard deviation per head.
int runImportanceOverPrompts(const ImportanceCliOptions& o) {
  auto opened = openModelPrompts(o.input, o.prompts);
  if (!opened) return fail(opened.error().message);
  const auto& [model, prompts] = *opened;
  const auto& info = model->info();
  if (auto st = planImportanceBackend(o, info, prompts.empty() ? 0 : prompts.front().size()); !st)
    return fail(st.error().message);
  std::vector<Mat> perPrompt;
  std::string measure;
  int passes = 0, tokens = 0;
  for (const auto& enc : prompts) {
    auto imp = models::headImportance(*model, enc, importanceOptions(o, 0), terminalProgress());
    if (!imp) return fail(imp.error().message);
    perPrompt.push_back(imp->importance);
    measure = imp->measure, passes += imp->forwardPasses, tokens += enc.size();
  }
  const auto [mean, spread] = meanAndSpread(perPrompt);
  if (!o.csv.empty()) {
    std::string csv = "layer,head,importance,std\n";
    for (int l = 0; l < mean.rows(); ++l)
      for (int h = 0; h < mean.cols(); ++h)
        csv += fmt::format("{},{},{:.9g},{:.9g}\n", l + 1, h + 1, mean(l, h), spread(l, h));
    if (auto st = writeFileAtomic(o.csv, csv); !st) return fail(st.error().message);
  }
  if (o.json) {
    nlohmann::json doc;
    doc["model"] = info.name;
    doc["method"] = o.method;
    doc["measure"] = measure;
    doc["prompts"] = prompts.size();
    doc["tokens"] = tokens;
    auto& m = doc["importance"] = nlohmann::json::array();
    auto& sd = doc["importance_std"] = nlohmann::json::array();
    for (int l = 0; l < mean.rows(); ++l) {
      auto meanRow = nlohmann::json::array(), stdRow = nlohmann::json::array();
      for (int h = 0; h < mean.cols(); ++h) meanRow.push_back(mean(l, h)), stdRow.push_back(spread(l, h));
      m.push_back(meanRow);
      sd.push_back(stdRow);
    }
    doc["forward_passes"] = passes;
    fmt::print("{}\n", doc.dump(2));
    return 0;
  }
  fmt::print("model: {} ({}, {} layers x {} heads), {} prompts from {}, {} tokens\n", info.name,
             models::familyName(info.family), info.layers, info.heads, prompts.size(), o.prompts, tokens);
  fmt::print("importance: {}, mean ± std over the prompts\nmethod: {}\n", measure, methodLine(o));
  for (int l = 0; l < mean.rows(); ++l) {
    std::string line = fmt::format("{:>5}", l + 1);
    for (int h = 0; h < mean.cols(); ++h) line += fmt::format(" {:>8.4f}±{:<7.4f}", mean(l, h), spread(l, h));
    fmt::print("{}\n", line);
  }
  fmt::print("{} forward passes\n", passes);
  if (!o.csv.empty()) fmt::print("wrote {}\n", o.csv);
  return 0;
}

std::string importanceCsv(const models::HeadImportance& imp) {
  std::string s = "layer,head,importance\n";
  for (int l = 0; l < imp.importance.rows(); ++l)
    for (int h = 0; h < imp.importance.cols(); ++h) s += fmt::format("{},{},{:.9g}\n", l + 1, h + 1, imp.importance(l, h));
  return s;
}

// fraction_removed, heads_removed and the curve's measure: the mean next-token loss
// (causal models) or the relative change of the final hidden states (encoders).
std::string curveCsv(const models::HeadImportance& imp, bool causal) {
  std::string s = fmt::format("fraction_removed,heads_removed,{}\n", causal ? "loss" : "representation_change");
  for (const auto& p : imp.curve) s += fmt::format("{:.6g},{},{:.9g}\n", p.fraction, p.removed, p.value);
  return s;
}

int runImportance(const ImportanceCliOptions& o) {
  if (o.steps < 0) return fail(fmt::format("--steps must be at least 0 (got {})", o.steps));
  for (const auto* f : {&o.csv, &o.curve})
    if (!f->empty())
      if (auto st = checkOverwrite(*f, o.force); !st) return fail(st.error().message);
  if (!o.prompts.empty()) return runImportanceOverPrompts(o);
  auto opened = openModelText(o.input);
  if (!opened) return fail(opened.error().message);
  const auto& [model, enc] = *opened;
  const auto& info = model->info();
  if (auto st = planImportanceBackend(o, info, enc.size()); !st) return fail(st.error().message);
  auto imp = models::headImportance(*model, enc, importanceOptions(o, o.steps), terminalProgress());
  if (!imp) return fail(imp.error().message);
  if (!o.csv.empty())
    if (auto st = writeFileAtomic(o.csv, importanceCsv(*imp)); !st) return fail(st.error().message);
  if (!o.curve.empty())
    if (auto st = writeFileAtomic(o.curve, curveCsv(*imp, info.causal)); !st) return fail(st.error().message);
  const int L = static_cast<int>(imp->importance.rows()), H = static_cast<int>(imp->importance.cols());
  std::vector<int> order(static_cast<size_t>(L * H));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return imp->importance(a / H, a % H) > imp->importance(b / H, b % H);
  });
  if (o.json) {
    nlohmann::json doc;
    doc["model"] = info.name;
    doc["family"] = std::string(models::familyName(info.family));
    doc["tokens"] = enc.size();
    doc["method"] = o.method;
    doc["estimate"] = o.method;
    doc["measure"] = imp->measure;
    doc["baseline"] = imp->baseline;
    auto& rows = doc["importance"] = nlohmann::json::array();
    for (int l = 0; l < L; ++l) {
      auto row = nlohmann::json::array();
      for (int h = 0; h < H; ++h) row.push_back(imp->importance(l, h));
      rows.push_back(row);
    }
    auto& ranking = doc["ranking"] = nlohmann::json::array();
    for (int i : order) ranking.push_back({{"layer", i / H + 1}, {"head", i % H + 1}, {"importance", imp->importance(i / H, i % H)}});
    doc["curve_measure"] = imp->curveMeasure;
    auto& curve = doc["curve"] = nlohmann::json::array();
    for (const auto& p : imp->curve)
      curve.push_back({{"fraction_removed", p.fraction}, {"heads_removed", p.removed}, {"value", p.value}});
    doc["forward_passes"] = imp->forwardPasses;
    doc["reused_layers"] = imp->reusedLayers;
    doc["seconds"] = imp->seconds;
    fmt::print("{}\n", doc.dump(2));
    return 0;
  }
  fmt::print("model: {} ({}, {} layers x {} heads), {} tokens\n", info.name, models::familyName(info.family), L, H,
             enc.size());
  fmt::print("method: {}\n", methodLine(o));
  fmt::print("importance: {}\n", imp->measure);
  if (info.causal) fmt::print("baseline mean next-token loss: {:.4f} nats\n", imp->baseline);
  std::string header = "layer";
  for (int h = 0; h < H; ++h) header += fmt::format(" {:>9}", fmt::format("h{}", h + 1));
  fmt::print("{}\n", header);
  for (int l = 0; l < L; ++l) {
    std::string line = fmt::format("{:>5}", l + 1);
    for (int h = 0; h < H; ++h) line += fmt::format(" {:>9.4f}", imp->importance(l, h));
    fmt::print("{}\n", line);
  }
  std::string top;
  for (size_t i = 0; i < std::min<size_t>(5, order.size()); ++i)
    top += fmt::format("{}{}.{} ({:.4f})", i ? ", " : "", order[i] / H + 1, order[i] % H + 1,
                       imp->importance(order[i] / H, order[i] % H));
  fmt::print("most important (layer.head): {}\n", top);
  if (!imp->curve.empty()) {
    fmt::print("pruning curve ({}):\n", imp->curveMeasure);
    for (const auto& p : imp->curve) fmt::print("  {:5.1f}% removed ({:3} heads): {:.4f}\n", 100 * p.fraction, p.removed, p.value);
  }
  fmt::print("{} forward passes in {:.2f} s ({} layers reused from the prefix cache)\n", imp->forwardPasses,
             imp->seconds, imp->reusedLayers);
  if (!o.csv.empty()) fmt::print("wrote {}\n", o.csv);
  if (!o.curve.empty()) fmt::print("wrote {}\n", o.curve);
  return 0;
}

}  // namespace

Action addImportanceCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("importance",
                                 "Head importance by ablation (each head alone zeroed) or gate gradients, "
                                 "and the pruning curve, for --model");
  auto o = std::make_shared<ImportanceCliOptions>();
  cmd->add_option("--model", o->input.modelDir, "Hugging Face model folder or its cache directory")->required();
  auto* text = cmd->add_option("--text", o->input.text, "Text to run the model on");
  auto* file = cmd->add_option("--text-file", o->input.textFile, "Text from a UTF-8 .txt file");
  text->excludes(file);
  auto* prompts = cmd->add_option("--prompts", o->prompts,
                                  "A UTF-8 file of prompts, one per line: the importance of each head is "
                                  "averaged over them, with its standard deviation (no pruning curve)");
  prompts->excludes(text)->excludes(file);
  cmd->add_option("--max-tokens", o->input.maxTokens, "Keep the first N tokens of a longer text or prompt");
  cmd->add_option("--key-text", o->input.keyText, "BERT-style models: the second segment");
  cmd->add_option("--pad-to", o->input.padTo, "Pad the tokens to this length (padding keys are masked)");
  cmd->add_option("--backend", o->input.backend, "Backend: cpu, cuda, auto (ablations run on the CPU)")
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "Print JSON instead of a table");
  cmd->add_option("--csv", o->csv, "Write the importance per layer and head as CSV");
  cmd->add_option("--curve,--curve-csv", o->curve,
                  "Write the pruning curve as CSV: fraction_removed, heads_removed, loss (causal models) or "
                  "representation_change (encoders)");
  cmd->add_option(
         "--method", o->method,
         "ablation: each head zeroed alone (any model); gradient: Michel et al.'s gate gradients of the "
         "next-token loss, one backward pass (causal models)")
      ->check(CLI::IsMember({"ablation", "gradient"}))
      ->capture_default_str();
  cmd->add_option("--steps", o->steps, "Pruning curve points besides 0 (0: no curve)")->capture_default_str();
  cmd->add_flag("--no-prefix-cache", o->noPrefixCache, "Recompute every layer of every pass (for timing)");
  cmd->add_flag("--serial-heads", o->serialHeads,
                "One ablation at a time, each using every core (for timing; by default one per core)");
  cmd->add_flag("--force", o->force, "Overwrite existing --csv / --curve files");
  return [cmd, o]() -> int {
    if (!cmd->parsed()) return -1;
    return runImportance(*o);
  };
}

}  // namespace attn::cli
