// attnscope-cli gradients on an encoder-decoder model (--model ENCDEC --text SRC --target-text
// TGT): forced decoding of the target, the gradient of one token's logit at one decoder row
// w.r.t. the source and decoder input embeddings (models/gradients/seq2seq_gradient.h), as
// gradient x input and integrated gradients per token of each, and attention x gradient for
// the encoder, decoder self- and cross-attention.
#include <fmt/format.h>

#include "attn/io/npy_writer.h"
#include "commands.h"
#include "model_request.h"
#include "seq2seq_input.h"
#include "token_offsets.h"
#include "vector_tensor.h"

namespace attn::cli {
namespace {

Tensor seq2seqVec(const Vec& v) {
  Tensor t;
  t.shape = {v.size()};
  t.data.assign(v.data(), v.data() + v.size());
  return t;
}

Tensor seq2seqMat(const Mat& m) { return Tensor{{m.rows(), m.cols()}, {m.data(), m.data() + m.size()}}; }

/// [L, H, rows, cols] from layer-major per-head maps.
Tensor seq2seqMaps(const std::vector<Mat>& maps, int layers, int heads, int64_t rows, int64_t cols) {
  Tensor t;
  t.shape = {layers, heads, rows, cols};
  t.data.reserve(static_cast<size_t>(layers) * static_cast<size_t>(heads) * static_cast<size_t>(rows * cols));
  for (const Mat& m : maps) t.data.insert(t.data.end(), m.data(), m.data() + m.size());
  return t;
}

Status writeSeq2SeqGradients(const std::string& path, const models::Seq2SeqGradientRun& run,
                             const models::Encoding& source, const std::string& targetText, int steps) {
  const models::Seq2SeqGradientAttribution& g = run.attribution;
  const int64_t ns = source.size(), nt = static_cast<int64_t>(run.targetIds.size());
  NpzWriter npz;
  npz.add("grad_x_input_source", seq2seqVec(g.gradXInputSource));
  npz.add("grad_x_input_target", seq2seqVec(g.gradXInputTarget));
  npz.add("integrated_gradients_source", seq2seqVec(g.integratedSource));
  npz.add("integrated_gradients_target", seq2seqVec(g.integratedTarget));
  npz.add("attn_grad_encoder", seq2seqMaps(g.attnGradEncoder, g.encoderLayers, g.encoderHeads, ns, ns));
  npz.add("attn_grad_decoder", seq2seqMaps(g.attnGradDecoder, g.decoderLayers, g.decoderHeads, nt, nt));
  npz.add("attn_grad_cross", seq2seqMaps(g.attnGradCross, g.decoderLayers, g.decoderHeads, nt, ns));
  npz.add("source_grad", seq2seqMat(g.sourceGradient));
  npz.add("target_grad", seq2seqMat(g.targetGradient));
  npz.addStrings("source_tokens", source.tokens);
  addTokenOffsets(npz, "source_token_offsets", source);
  npz.addStrings("target_tokens", run.targetTokens);
  npz.add("source_ids", vectorTensor(source.ids));
  npz.add("target_ids", vectorTensor(run.targetIds));
  npz.addStrings("target", {targetText});
  npz.addInts("target_id", {g.target});
  npz.addInts("position", {g.position});
  npz.addInts("ig_steps", {steps});
  npz.add("target_logit", Tensor{{}, {static_cast<float>(g.targetLogit)}});
  npz.add("baseline_logit", Tensor{{}, {static_cast<float>(g.baselineLogit)}});
  return npz.write(path);
}

void printSeq2SeqTokens(const char* stack, const std::vector<std::string>& tokens, const Vec& gxi,
                        const Vec& ig) {
  for (size_t i = 0; i < tokens.size(); ++i)
    fmt::print("{:<7} {:>4}  {:<20}  {:>13.5f}  {:>20.5f}\n", stack, i, tokens[i],
               gxi(static_cast<Eigen::Index>(i)), ig(static_cast<Eigen::Index>(i)));
}

void printSeq2SeqGradients(const models::Seq2SeqInfo& info, const models::Seq2SeqGradientRun& run,
                           const models::Encoding& source, const std::string& targetText, int steps) {
  const auto& g = run.attribution;
  fmt::print(
      "model: {} ({}, encoder {} x {} heads, decoder {} x {} heads), {} source, {} decoder tokens; target "
      "\"{}\" (#{}): logit {:.4f} at decoder position {}, {:.4f} from zero embeddings\n",
      info.name, info.modelType, info.encoderLayers, info.encoderHeads, info.decoderLayers, info.decoderHeads,
      source.size(), run.targetIds.size(), targetText, g.target, g.targetLogit, g.position, g.baselineLogit);
  fmt::print(
      "integrated gradients: {} steps (right Riemann sum from zero embeddings in both stacks), sum {:.4f} "
      "(source {:.4f}, target {:.4f}) of the logit change {:.4f}\n",
      steps, g.integratedSource.sum() + g.integratedTarget.sum(), g.integratedSource.sum(),
      g.integratedTarget.sum(), g.targetLogit - g.baselineLogit);
  fmt::print("{:<7} {:>4}  {:<20}  {:>13}  {:>20}\n", "stack", "pos", "token", "grad x input",
             "integrated gradients");
  printSeq2SeqTokens("source", source.tokens, g.gradXInputSource, g.integratedSource);
  printSeq2SeqTokens("target", run.targetTokens, g.gradXInputTarget, g.integratedTarget);
}

}  // namespace

int runSeq2SeqGradients(const InputOptions& input, const std::string& targetText, const std::string& target,
                        int position, int steps, const std::string& out) {
  if (targetText.empty())
    return fail(fmt::format(
        "--model: {} is an encoder-decoder model: give the decoder's text with --target-text (forced "
        "decoding; --target then picks the token whose logit is explained, default the predicted one)",
        input.modelDir));
  if (!input.intervene.empty())
    return fail(
        "--intervene does not apply to the gradients of an encoder-decoder model (use run or translate)");
  auto opened = openSeq2Seq(input);
  if (!opened) return fail(opened.error().message);
  const models::Seq2SeqModel& model = *opened->model;
  int token = -1;
  if (!target.empty()) {
    auto id = model.targetTokenId(target, "--target");
    if (!id) return fail(id.error().message);
    token = *id;
  }
  models::GradientOptions opt;
  opt.steps = steps;
  opt.position = position;
  auto run = model.gradients(opened->source, targetText, "--target-text", token, opt, terminalProgress());
  if (!run) return fail(run.error().message);
  const std::string shown = model.targetTokenText(run->attribution.target);
  if (!out.empty())
    if (auto st = writeSeq2SeqGradients(out, *run, opened->source, shown, steps); !st)
      return fail(st.error().message);
  printSeq2SeqGradients(model.info(), *run, opened->source, shown, steps);
  if (!out.empty()) {
    const auto& g = run->attribution;
    const size_t ns = opened->source.ids.size(), nt = run->targetIds.size();
    fmt::print(
        "wrote {} (grad_x_input_source [{}], grad_x_input_target [{}], integrated_gradients_source / "
        "_target, "
        "attn_grad_encoder [{}, {}, {}, {}], attn_grad_decoder [{}, {}, {}, {}], attn_grad_cross [{}, {}, "
        "{}, "
        "{}])\n",
        out, ns, nt, g.encoderLayers, g.encoderHeads, ns, ns, g.decoderLayers, g.decoderHeads, nt, nt,
        g.decoderLayers, g.decoderHeads, nt, ns);
  }
  return 0;
}

}  // namespace attn::cli
