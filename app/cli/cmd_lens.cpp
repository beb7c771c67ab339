// attnscope-cli lens: the logit lens of --model on a text (nostalgebraist 2020): every
// layer's residual stream through the final norm and the unembedding (BERT-style
// models: the masked-LM head), its top tokens and the rank of the model's own
// prediction per layer and position; .npz (--out), JSON (--json), CSV (--csv) or a table.
#include <fmt/format.h>

#include <memory>

#include "attn/io/atomic_file.h"
#include "commands.h"
#include "input_options.h"
#include "lens_report.h"
#include "model_request.h"

namespace attn::cli {
namespace {

struct LensCliOptions {
  InputOptions input;
  std::string out, csv;
  bool json = false, force = false;
  int position = -1;  // 0-based; -1: the last
  int top = 5;
};

int runLens(const LensCliOptions& o, bool layerGiven) {
  if (!o.out.empty()) {
    if (!o.out.ends_with(".npz")) return fail(fmt::format("{}: --out of lens must end in .npz", o.out));
    if (auto st = checkOverwrite(o.out, o.force); !st) return fail(st.error().message);
  }
  if (!o.csv.empty()) {
    if (!o.csv.ends_with(".csv")) return fail(fmt::format("{}: --csv must name a .csv file", o.csv));
    if (auto st = checkOverwrite(o.csv, o.force); !st) return fail(st.error().message);
  }
  if (o.top < 1 || o.top > 100) return fail(fmt::format("--top must be 1 to 100 (got {})", o.top));
  auto opened = openModelText(o.input);
  if (!opened) return fail(opened.error().message);
  const auto& [model, enc] = *opened;
  const auto& info = model->info();
  if (layerGiven)
    if (auto st = checkLayerOption(o.input.layer, info.layers); !st) return fail(st.error().message);
  if (o.position < -1 || o.position >= enc.size())
    return fail(fmt::format("--position: {} is out of range (0..{})", o.position, enc.size() - 1));
  models::RunOptions opt;
  opt.keepQkv = false;
  opt.keepAttention = false;
  opt.topK = 0;
  opt.maskTopK = 0;
  opt.logitLens = true;
  opt.lensTopK = o.top;
  auto run = model->run(enc, opt, terminalProgress());
  if (!run) return fail(run.error().message);
  const models::LogitLens& lens = *run->lens;
  const auto& tok = model->tokenizer();
  const TokenText text = [&tok](int id) { return tok.displayText(id); };
  if (!o.out.empty()) {
    NpzWriter npz;
    addLensMembers(npz, lens, enc, text);
    if (auto st = npz.write(o.out); !st) return fail(st.error().message);
  }
  if (!o.csv.empty())
    if (auto st = writeFileAtomic(o.csv, lensCsv(lens, enc, text)); !st) return fail(st.error().message);
  if (o.json) {
    nlohmann::json doc = lensJson(lens, enc, text);
    doc["model"] = info.name;
    doc["family"] = std::string(models::familyName(info.family));
    doc["n_layers"] = info.layers;
    doc["readout"] = info.causal ? "final norm + lm_head" : "masked-LM head";
    fmt::print("{}\n", doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
    return 0;
  }
  fmt::print("model: {} ({}, {} layers), {} tokens; logit lens through the {}\n", info.name,
             models::familyName(info.family), info.layers, enc.size(),
             info.causal ? "final norm and the lm_head" : "masked-LM head");
  if (layerGiven)
    fmt::print("{}", lensLayerText(lens, enc, text, o.input.layer == 0 ? info.layers : o.input.layer));
  else
    fmt::print("{}", lensPositionText(lens, enc, text, o.position < 0 ? enc.size() - 1 : o.position));
  if (!o.out.empty())
    fmt::print("wrote {} ({} rows x {} positions x {})\n", o.out, lens.rows, lens.positions, lens.k);
  if (!o.csv.empty()) fmt::print("wrote {}\n", o.csv);
  return 0;
}

}  // namespace

Action addLensCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "lens",
      "Logit lens of --model (nostalgebraist 2020): each layer's residual stream through the final norm and "
      "the "
      "unembedding (BERT-style models: the masked-LM head): top tokens, and the probability and rank of the "
      "model's own prediction, per layer and position");
  auto o = std::make_shared<LensCliOptions>();
  cmd->add_option("--model", o->input.modelDir,
                  "Hugging Face model folder or its cache directory, or a bundled model's name (austen-gpt2; "
                  "without --text: its first example sentence)")
      ->required();
  auto* text = cmd->add_option("--text", o->input.text, "Text to run the model on");
  auto* file = cmd->add_option("--text-file", o->input.textFile, "Text from a UTF-8 .txt file");
  text->excludes(file);
  cmd->add_option("--key-text", o->input.keyText, "BERT-style models: the second segment");
  cmd->add_option("--pad-to", o->input.padTo, "Pad the tokens to this length (padding keys are masked)");
  cmd->add_option(
      "--out", o->out,
      "Write lens_top_ids, lens_top_probs [L+1, N, k], lens_final_rank, lens_final_probs [L+1, N] "
      "(row 0: the embeddings, row L: the model's output) and the tokens to this .npz");
  cmd->add_flag("--json", o->json, "Print every layer and position as JSON instead of a table");
  cmd->add_option("--csv", o->csv, "Also write one CSV line per layer and position to this .csv file");
  auto* layer =
      cmd->add_option("--layer", o->input.layer,
                      "Table: one layer's output (1-based; 0: the last) at every position, instead of "
                      "one position down every layer");
  cmd->add_option("--position", o->position,
                  "Table: the position (0-based) shown down every layer; default the last");
  cmd->add_option("--top", o->top, "Tokens kept per layer and position")->capture_default_str();
  cmd->add_flag("--force", o->force, "Overwrite existing --out / --csv files");
  return [cmd, o, layer]() -> int {
    if (!cmd->parsed()) return -1;
    return runLens(*o, layer->count() > 0);
  };
}

}  // namespace attn::cli
