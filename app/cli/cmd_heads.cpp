// attnscope-cli heads: every head of a model labelled by what it does, from one
// run on a seeded repeated random sequence (attn/analysis/head_types.h), as a
// layers x heads table, JSON (--json) or CSV (--csv FILE).
#include <fmt/format.h>

#include <memory>

#include "attn/io/atomic_file.h"
#include "commands.h"
#include "head_types_report.h"
#include "model_request.h"

namespace attn::cli {
namespace {

struct HeadsCliOptions {
  std::string modelDir, csv;
  bool json = false, force = false;
  uint64_t seed = 0;
  int length = 0;
};

int runHeads(const HeadsCliOptions& o, bool lengthGiven) {
  if (lengthGiven && o.length < 2) return fail(fmt::format("--length must be at least 2 (got {})", o.length));
  if (!o.csv.empty()) {
    if (!o.csv.ends_with(".csv")) return fail(fmt::format("{}: --csv must name a .csv file", o.csv));
    if (auto st = checkOverwrite(o.csv, o.force); !st) return fail(st.error().message);
  }
  auto model = models::Model::open(o.modelDir, terminalProgress());
  if (!model) return fail(model.error().message);
  models::HeadTypeRunOptions opt;
  opt.seed = o.seed;
  opt.length = o.length;
  auto types = models::modelHeadTypes(**model, opt, terminalProgress());
  if (!types) return fail(types.error().message);
  if (!o.csv.empty())
    if (auto st = writeFileAtomic(o.csv, headTypesCsv(*types)); !st) return fail(st.error().message);
  const auto& info = (*model)->info();
  if (o.json) {
    nlohmann::json doc = headTypesJson(*types);
    doc["model"] = info.name;
    doc["family"] = std::string(models::familyName(info.family));
    doc["n_layers"] = info.layers;
    doc["n_heads"] = info.heads;
    fmt::print("{}\n", doc.dump(2));
    return 0;
  }
  fmt::print("model: {} ({}, {} layers x {} heads)\n{}", info.name, models::familyName(info.family),
             info.layers, info.heads, headTypesText(*types));
  if (!o.csv.empty()) fmt::print("wrote {}\n", o.csv);
  return 0;
}

}  // namespace

Action addHeadsCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "heads",
      "Label every head of --model by what it does (induction, duplicate, previous-token, sink, self, "
      "local, broad) from its maps on a seeded repeated random sequence");
  auto o = std::make_shared<HeadsCliOptions>();
  cmd->add_option("--model", o->modelDir, "Hugging Face model folder or its cache directory")->required();
  cmd->add_flag("--json", o->json, "Print JSON (scores, labels, thresholds) instead of a table");
  cmd->add_option("--csv", o->csv, "Also write one CSV line per layer and head to this .csv file");
  cmd->add_option("--seed", o->seed, "Seed of the random tokens")->capture_default_str();
  auto* length = cmd->add_option("--length", o->length,
                                 "Tokens per copy (the sequence is 2 copies, plus the model's BOS/CLS/SEP); "
                                 "default: 50, or what the model's context allows");
  cmd->add_flag("--force", o->force, "Overwrite an existing --csv file");
  return [cmd, o, length]() -> int {
    if (!cmd->parsed()) return -1;
    return runHeads(*o, length->count() > 0);
  };
}

}  // namespace attn::cli
