// attnscope-cli gradients: gradient attribution of --model on a text through the model's
// own backward pass: the gradient of the --target token's logit at the last position (masked-LM
// models: the first mask token; or --position) with
// respect to the input embeddings, as gradient x input and integrated gradients per token
// (Sundararajan et al. 2017), and attention x gradient per layer and head (Chefer et al.
// 2021). Writes grad_x_input [N], integrated_gradients [N] and attn_grad [L, H, N, N].
// Encoder-decoder models (--target-text): cmd_gradients_seq2seq.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "attn/io/npy_writer.h"
#include "attn/models/gradients/gradient_attribution.h"
#include "attn/models/seq2seq/seq2seq_model.h"
#include "commands.h"
#include "input_options.h"
#include "model_request.h"
#include "token_offsets.h"

namespace attn::cli {
namespace {

struct GradientCliOptions {
  InputOptions input;
  std::string target, targetText, out;
  int steps = 32;
  int position = -1;
  bool force = false, profile = false;
};

Tensor vecTensor(const Vec& v) {
  Tensor t;
  t.shape = {v.size()};
  t.data.assign(v.data(), v.data() + v.size());
  return t;
}

/// attn_grad [L, H, N, N] from the layer-major maps.
Tensor attnGradTensor(const models::GradientAttribution& g, int n) {
  Tensor t;
  t.shape = {g.layers, g.heads, n, n};
  t.data.reserve(static_cast<size_t>(g.layers) * g.heads * n * n);
  for (const Mat& m : g.attnGrad) t.data.insert(t.data.end(), m.data(), m.data() + m.size());
  return t;
}

Status writeGradients(const std::string& path, const models::GradientAttribution& g,
                      const models::Encoding& enc, const std::string& targetText, int steps) {
  NpzWriter npz;
  npz.add("grad_x_input", vecTensor(g.gradXInput));
  npz.add("integrated_gradients", vecTensor(g.integratedGradients));
  npz.add("attn_grad", attnGradTensor(g, enc.size()));
  npz.add("input_grad", Tensor{{g.inputGradient.rows(), g.inputGradient.cols()},
                               {g.inputGradient.data(), g.inputGradient.data() + g.inputGradient.size()}});
  npz.addStrings("tokens", enc.tokens);
  addTokenOffsets(npz, "token_offsets", enc);
  npz.addStrings("target", {targetText});
  npz.addInts("target_id", {g.target});
  npz.addInts("position", {g.position});
  npz.addInts("ig_steps", {steps});
  npz.add("target_logit", Tensor{{}, {static_cast<float>(g.targetLogit)}});
  npz.add("baseline_logit", Tensor{{}, {static_cast<float>(g.baselineLogit)}});
  return npz.write(path);
}

void printGradients(const models::ModelInfo& info, const models::GradientAttribution& g,
                    const models::Encoding& enc, const std::string& targetText, int steps) {
  fmt::print(
      "model: {} ({}, {} layers), {} tokens; target \"{}\" (#{}): logit {:.4f} at position {}, "
      "{:.4f} from zero embeddings\n",
      info.name, models::familyName(info.family), info.layers, enc.size(), targetText, g.target,
      g.targetLogit, g.position, g.baselineLogit);
  fmt::print(
      "integrated gradients: {} steps (right Riemann sum from the zero embedding), sum {:.4f} of the "
      "logit change {:.4f}\n",
      steps, g.integratedGradients.sum(), g.targetLogit - g.baselineLogit);
  fmt::print("{:>5}  {:<20}  {:>13}  {:>20}\n", "pos", "token", "grad x input", "integrated gradients");
  for (int i = 0; i < enc.size(); ++i)
    fmt::print("{:>5}  {:<20}  {:>13.5f}  {:>20.5f}\n", i, enc.tokens[static_cast<size_t>(i)],
               g.gradXInput(i), g.integratedGradients(i));
}

/// Median wall seconds of `runs` calls after one warm-up.
template <typename Fn>
double medianSeconds(int runs, Fn fn) {
  std::vector<double> t;
  for (int r = 0; r <= runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0) t.push_back(dt);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// --profile: one backward's cost against the forward, in this process: the forward as `run --model`
/// computes it (every layer's maps, top-5 predictions) and one gradient (taped forward, backward with
/// attention x gradient, no integrated gradients), medians of 3.
int profileGradients(const models::Model& model, const models::Encoding& enc, int target) {
  const double forward = medianSeconds(3, [&] { (void)model.run(enc); });
  models::GradientOptions opt;
  opt.integrated = false;
  const double gradient = medianSeconds(3, [&] { (void)model.gradients(enc, target, opt); });
  fmt::print(
      "forward: {:.1f} ms; forward + backward (one gradient, attention x gradient kept): {:.1f} ms "
      "({:.2f}x the forward); {} tokens, medians of 3\n",
      forward * 1e3, gradient * 1e3, gradient / forward, enc.size());
  fmt::print("{{\"forward_s\": {:.6f}, \"gradient_s\": {:.6f}, \"tokens\": {}}}\n", forward, gradient,
             enc.size());
  return 0;
}

int runGradients(const GradientCliOptions& o) {
  if (!o.out.empty()) {
    if (!o.out.ends_with(".npz")) return fail(fmt::format("{}: --out of gradients must end in .npz", o.out));
    if (auto st = checkOverwrite(o.out, o.force); !st) return fail(st.error().message);
  }
  if (o.steps < 1 || o.steps > 4096) return fail(fmt::format("--steps must be 1 to 4096 (got {})", o.steps));
  if (models::isEncoderDecoderFolder(o.input.modelDir)) {
    if (o.profile)
      return fail("--profile times a causal or masked-LM model's backward, not an encoder-decoder's");
    return runSeq2SeqGradients(o.input, o.targetText, o.target, o.position, o.steps, o.out);
  }
  if (!o.targetText.empty())
    return fail(fmt::format(
        "--target-text: {} is not an encoder-decoder model; a decoder's target text is read only by "
        "encoder-decoder models (bart, mbart, marian, t5)",
        o.input.modelDir));
  if (o.target.empty())
    return fail("--target is required: the token whose logit is explained (its text or #ID)");
  auto opened = openModelText(o.input);
  if (!opened) return fail(opened.error().message);
  const auto& [model, enc] = *opened;
  auto target = tokenId(*model, o.target, "--target");
  if (!target) return fail(target.error().message);
  if (o.profile) return profileGradients(*model, enc, *target);
  models::GradientOptions opt;
  opt.steps = o.steps;
  opt.position = o.position;
  auto g = model->gradients(enc, *target, opt, terminalProgress());
  if (!g) return fail(g.error().message);
  const std::string targetText = model->tokenizer().displayText(*target);
  if (!o.out.empty())
    if (auto st = writeGradients(o.out, *g, enc, targetText, o.steps); !st) return fail(st.error().message);
  printGradients(model->info(), *g, enc, targetText, o.steps);
  if (!o.out.empty())
    fmt::print("wrote {} (grad_x_input [{}], integrated_gradients [{}], attn_grad [{}, {}, {}, {}])\n", o.out,
               enc.size(), enc.size(), g->layers, g->heads, enc.size(), enc.size());
  return 0;
}

}  // namespace

Action addGradientsCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "gradients",
      "Gradient attribution of --model (GPT-2, Llama family, BERT-style masked LMs; encoder-decoder "
      "models with --target-text) "
      "through its backward pass: "
      "the gradient of the --target token's logit at the last position (a masked LM: its "
      "mask token) w.r.t. the input embeddings, as gradient x input and "
      "integrated gradients per token, and attention x gradient per layer and head");
  auto o = std::make_shared<GradientCliOptions>();
  cmd->add_option("--model", o->input.modelDir, "Hugging Face model folder or its cache directory")
      ->required();
  auto* text = cmd->add_option("--text", o->input.text, "Text to run the model on");
  auto* file = cmd->add_option("--text-file", o->input.textFile, "Text from a UTF-8 .txt file");
  text->excludes(file);
  cmd->add_option("--max-tokens", o->input.maxTokens, "Keep the first N tokens of the text");
  cmd->add_option("--target", o->target,
                  "The token whose logit is explained: one token's text or #ID (required, except for an "
                  "encoder-decoder model: default the token it predicts at --position)");
  cmd->add_option("--target-text", o->targetText,
                  "Encoder-decoder models: the decoder's text (forced decoding); --text is then the source. "
                  "Writes grad_x_input_source / _target, integrated_gradients_source / _target, "
                  "attn_grad_encoder, attn_grad_decoder, attn_grad_cross");
  cmd->add_option("--position", o->position,
                  "The position (0-based) whose logit is explained; default the last token (an "
                  "encoder-decoder model: the last decoder row), or a masked-LM model's first mask token");
  cmd->add_option("--steps", o->steps, "Integrated gradients' steps (right Riemann sum, zero baseline)")
      ->capture_default_str();
  cmd->add_option("--out", o->out,
                  "Write grad_x_input, integrated_gradients [N], attn_grad [L, H, N, N], input_grad [N, d], "
                  "the tokens, the target and its logits to this .npz");
  cmd->add_flag("--force", o->force, "Overwrite an existing --out file");
  cmd->add_flag("--profile", o->profile,
                "Time the forward and one gradient (forward + backward) instead, medians of 3, and print a "
                "JSON line (tests/bench/compare_gradients.py reads it)");
  return [cmd, o]() -> int {
    if (!cmd->parsed()) return -1;
    return runGradients(*o);
  };
}

}  // namespace attn::cli
