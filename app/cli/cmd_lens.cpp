// attnscope-cli lens: the logit lens of --model on a text (nostalgebraist 2020): every
// layer's residual stream through the final norm and the unembedding (BERT-style
// models: the masked-LM head), its top tokens and the rank of the model's own
// prediction per layer and position; .npz (--out), JSON (--json), CSV (--csv) or a table.
#include <fmt/format.h>

#include <memory>
#include <tuple>

#include "attn/io/atomic_file.h"
#include "commands.h"
#include "input_options.h"
#include "lens_report.h"
#include "model_request.h"
#include "prompt_file.h"

namespace attn::cli {
namespace {

struct LensCliOptions {
  InputOptions input;
  std::string out, csv;
  bool json = false, force = false;
  int position = -1;  // 0-based; -1: the last
  int top = 5;
  std::string prompts;  // --prompts: one prompt per line, the lens summarised over them
};

models::RunOptions lensRunOptions(int top) {
  models::RunOptions opt;
  opt.keepQkv = false;
  opt.keepAttention = false;
  opt.topK = 0;
  opt.maskTopK = 0;
  opt.logitLens = true;
  opt.lensTopK = top;
  return opt;
}

/// One prompt's lens as [rows, 2]: per layer, the mean over its real (not special, not padding)
/// positions of the probability of the model's own final prediction, and the share of those
/// positions where that layer's top-1 already is it (nostalgebraist 2020's two read-outs).
Mat lensSummary(const models::LogitLens& lens, const models::Encoding& enc) {
  Mat s = Mat::Zero(lens.rows, 2);
  int counted = 0;
  for (int p = 0; p < lens.positions; ++p) {
    const auto i = static_cast<size_t>(p);
    if ((!enc.special.empty() && enc.special[i]) || (!enc.attention.empty() && !enc.attention[i])) continue;
    ++counted;
    for (int r = 0; r < lens.rows; ++r) {
      s(r, 0) += lens.prob(r, p);
      s(r, 1) += lens.rank(r, p) == 0 ? 1.0f : 0.0f;
    }
  }
  if (counted > 0) s /= static_cast<float>(counted);
  return s;
}

Tensor lensColumn(const Mat& m, int c) {
  Tensor t;
  t.shape = {m.rows()};
  for (int r = 0; r < m.rows(); ++r) t.data.push_back(m(r, c));
  return t;
}

// The lens over a data set: each prompt summarised per layer (lensSummary), then the mean and
// the population standard deviation over the prompts.
int runLensOverPrompts(const LensCliOptions& o) {
  auto opened = openModelPrompts(o.input, o.prompts);
  if (!opened) return fail(opened.error().message);
  const auto& [model, prompts] = *opened;
  const auto& info = model->info();
  std::vector<Mat> perPrompt;
  int tokens = 0;
  for (const auto& enc : prompts) {
    auto run = model->run(enc, lensRunOptions(1), terminalProgress());
    if (!run) return fail(run.error().message);
    perPrompt.push_back(lensSummary(*run->lens, enc));
    tokens += enc.size();
  }
  const auto [mean, spread] = meanAndSpread(perPrompt);
  if (!o.out.empty()) {
    NpzWriter npz;
    npz.add("lens_final_prob_mean", lensColumn(mean, 0));
    npz.add("lens_final_prob_std", lensColumn(spread, 0));
    npz.add("lens_top1_agreement_mean", lensColumn(mean, 1));
    npz.add("lens_top1_agreement_std", lensColumn(spread, 1));
    if (auto st = npz.write(o.out); !st) return fail(st.error().message);
  }
  if (!o.csv.empty()) {
    std::string csv = "layer,final_prob,final_prob_std,top1_agreement,top1_agreement_std\n";
    for (int r = 0; r < mean.rows(); ++r)
      csv += fmt::format("{},{:.9g},{:.9g},{:.9g},{:.9g}\n", r, mean(r, 0), spread(r, 0), mean(r, 1),
                         spread(r, 1));
    if (auto st = writeFileAtomic(o.csv, csv); !st) return fail(st.error().message);
  }
  if (o.json) {
    nlohmann::json doc = {
        {"model", info.name}, {"prompts", perPrompt.size()}, {"tokens", tokens}, {"n_layers", info.layers}};
    for (auto [key, m, c] :
         {std::tuple{"final_prob_mean", &mean, 0}, std::tuple{"final_prob_std", &spread, 0},
          std::tuple{"top1_agreement_mean", &mean, 1}, std::tuple{"top1_agreement_std", &spread, 1}})
      doc[key] = lensColumn(*m, c).data;
    fmt::print("{}\n", doc.dump(2));
    return 0;
  }
  fmt::print("model: {} ({}, {} layers), {} prompts from {}, {} tokens\n", info.name,
             models::familyName(info.family), info.layers, perPrompt.size(), o.prompts, tokens);
  fmt::print(
      "per layer, mean ± std over the prompts: the probability of the model's own prediction, and the\n"
      "share of positions where the layer's top-1 is already it (row 0: the embeddings)\n");
  fmt::print("{:>5}  {:<17}  {}\n", "row", "final token prob", "top-1 agreement");
  for (int r = 0; r < mean.rows(); ++r)
    fmt::print("{:>5}  {:.4f} ± {:.4f}   {:.3f} ± {:.3f}\n", r, mean(r, 0), spread(r, 0), mean(r, 1),
               spread(r, 1));
  if (!o.out.empty()) fmt::print("wrote {}\n", o.out);
  if (!o.csv.empty()) fmt::print("wrote {}\n", o.csv);
  return 0;
}

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
  if (!o.prompts.empty()) return runLensOverPrompts(o);
  auto opened = openModelText(o.input);
  if (!opened) return fail(opened.error().message);
  const auto& [model, enc] = *opened;
  const auto& info = model->info();
  if (layerGiven)
    if (auto st = checkLayerOption(o.input.layer, info.layers); !st) return fail(st.error().message);
  if (o.position < -1 || o.position >= enc.size())
    return fail(fmt::format("--position: {} is out of range (0..{})", o.position, enc.size() - 1));
  auto run = model->run(enc, lensRunOptions(o.top), terminalProgress());
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
  auto* prompts = cmd->add_option(
      "--prompts", o->prompts,
      "A UTF-8 file of prompts, one per line: per layer, the mean ± std over them of the probability of the "
      "model's own prediction and of the share of positions where the layer's top-1 is already it");
  prompts->excludes(text)->excludes(file);
  cmd->add_option("--max-tokens", o->input.maxTokens,
                  "Keep the first N tokens of the text, or of each prompt (a BERT's [CLS]/[SEP] stay)");
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
