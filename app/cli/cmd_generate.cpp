// attnscope-cli generate: text written by a causal language model (GPT-2, the Llama family)
// after a prompt, greedy, by beam search or sampled, with the attention of every token of
// the final sequence (prompt + generated).
#include <fmt/format.h>

#include <memory>
#include <optional>

#include "attn/io/npy_writer.h"
#include "attn/io/text_file.h"
#include "attn/models/generation/causal_generation.h"
#include "attn/models/seq2seq/seq2seq_model.h"
#include "commands.h"
#include "model_request.h"
#include "sampling_options.h"
#include "vector_tensor.h"

namespace attn::cli {

namespace {

struct GenerateCliOptions {
  std::string modelDir, text, textFile, out;
  bool force = false;
  int maxNewTokens = 0;
  int beam = 0;
  bool beamGiven = false;
  std::optional<double> lengthPenalty;
  std::string earlyStopping;  // "", "true" or "false"
  std::optional<int> noRepeatNgram;
  bool greedy = false;
  SamplingCliOptions sampling;
};

/// [L, H, N, N] from the maps of every layer and head.
Tensor stackedGenerationMaps(const std::vector<std::vector<Mat>>& maps) {
  Tensor t;
  const int64_t L = static_cast<int64_t>(maps.size()), H = L > 0 ? static_cast<int64_t>(maps[0].size()) : 0;
  const int64_t N = L > 0 && H > 0 ? maps[0][0].rows() : 0;
  t.shape = {L, H, N, N};
  t.data.reserve(static_cast<size_t>(L * H * N * N));
  for (const auto& layer : maps)
    for (const Mat& m : layer) t.data.insert(t.data.end(), m.data(), m.data() + m.size());
  return t;
}

/// The options' ranges, before the model is opened.
Status checkGenerateOptions(const GenerateCliOptions& o) {
  if (o.beam < 0 || o.beam > 8 || (o.beamGiven && o.beam == 0))
    return Error{fmt::format("--beam: {} is out of range (1 to 8)", o.beam)};
  if (o.maxNewTokens < 0)
    return Error{fmt::format("--max-new-tokens: {} must be at least 1", o.maxNewTokens)};
  if (o.sampling.doSample && o.greedy) return Error{"--do-sample and --greedy exclude each other"};
  if (o.noRepeatNgram && *o.noRepeatNgram < 0)
    return Error{fmt::format("--no-repeat-ngram-size: {} must be 0 (off) or more", *o.noRepeatNgram)};
  return checkSamplingRanges(o.sampling);
}

int runGenerate(const GenerateCliOptions& o) {
  if (!o.out.ends_with(".npz")) return fail(fmt::format("{}: --out of generate must end in .npz", o.out));
  if (auto st = checkOverwrite(o.out, o.force); !st) return fail(st.error().message);
  if (auto st = checkGenerateOptions(o); !st) return fail(st.error().message);
  if (o.text.empty() && o.textFile.empty()) return fail("generate needs the prompt: --text or --text-file");
  if (models::isEncoderDecoderFolder(o.modelDir))
    return fail(
        fmt::format("--model: {} is an encoder-decoder model: use `attnscope-cli translate`", o.modelDir));
  std::string text = o.text;
  if (!o.textFile.empty()) {
    auto t = readUtf8TextFile(o.textFile);
    if (!t) return fail(t.error().message);
    text = std::move(*t);
  }
  auto model = models::Model::open(o.modelDir, terminalProgress());
  if (!model) return fail(model.error().message);
  const models::ModelInfo& info = (*model)->info();
  if (!info.causal)
    return fail(
        fmt::format("--model: {} is {} (model_type {}): generate needs a causal language model (GPT-2 or "
                    "the Llama family)",
                    info.name, models::familyName(info.family), info.modelType));
  auto enc = (*model)->encode(text, std::nullopt, o.textFile.empty() ? std::string("--text") : o.textFile);
  if (!enc) return fail(enc.error().message);
  models::CausalGenerateOptions g;
  g.maxNewTokens = o.maxNewTokens;
  g.beams = o.beam;
  g.lengthPenalty = o.lengthPenalty;
  if (!o.earlyStopping.empty()) g.earlyStopping = o.earlyStopping == "true";
  g.noRepeatNgramSize = o.noRepeatNgram;
  if (o.sampling.doSample || o.greedy) g.doSample = o.sampling.doSample;
  applySamplingOptions(o.sampling, g);
  auto run = (*model)->generate(*enc, g, terminalProgress());
  if (!run) return fail(run.error().message);
  NpzWriter npz;
  npz.addStrings("output_text", {run->outputText}, {1});
  npz.add("output_ids", vectorTensor(run->ids));
  npz.addStrings("tokens", run->tokens);
  npz.add("prompt_length", vectorTensor(std::vector<int>{run->promptLength}));
  npz.add("weights", stackedGenerationMaps(run->maps));
  if (auto st = npz.write(o.out); !st) return fail(st.error().message);
  fmt::print("model: {} ({}, {} layers x {} heads)\n", info.name, info.modelType, info.layers, info.heads);
  fmt::print("generation: {}\n", run->settings);
  fmt::print("output: {:?}\n", run->outputText);
  fmt::print("wrote {} ({} prompt + {} generated tokens)\n", o.out, run->promptLength,
             run->ids.size() - static_cast<size_t>(run->promptLength));
  return 0;
}

}  // namespace

Action addGenerateCommand(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("generate",
                         "Write text after --text with a causal model (GPT-2, Llama family) and write the "
                         "attention of the prompt and every generated token (.npz)");
  auto o = std::make_shared<GenerateCliOptions>();
  cmd->add_option("--model", o->modelDir,
                  "Hugging Face causal model folder (gpt2, llama, qwen2, mistral, ...)")
      ->required();
  auto* text = cmd->add_option("--text", o->text, "The prompt");
  auto* file = cmd->add_option("--text-file", o->textFile, "The prompt from a UTF-8 .txt file");
  text->excludes(file);
  cmd->add_option(
      "--max-new-tokens", o->maxNewTokens,
      "At most this many tokens after the prompt (default: the model's max_length, prompt included)");
  cmd->add_option("--beam", o->beam,
                  "Beams: 1 greedy (or sampling), 2 to 8 beam search (or beam sampling with --do-sample) as "
                  "transformers' generate; default: the model's num_beams");
  cmd->add_option(
      "--length-penalty", o->lengthPenalty,
      "Beam search: score = sum log p / generated_length^this (default: the model's length_penalty)");
  cmd->add_option("--early-stopping", o->earlyStopping,
                  "Beam search: stop once as many hypotheses as beams are closed (default: the model's)")
      ->check(CLI::IsMember({"true", "false"}));
  cmd->add_option("--no-repeat-ngram-size", o->noRepeatNgram,
                  "Never repeat an n-gram of this size (0: off; default: the model's no_repeat_ngram_size)");
  addSamplingOptions(cmd, o->sampling);
  cmd->add_flag("--greedy", o->greedy, "Greedy search even where the generation config sets do_sample");
  cmd->add_option("--out", o->out, "Result file (.npz)")->required();
  cmd->add_flag("--force", o->force, "Overwrite an existing output file");
  return [cmd, o]() -> int {
    if (!cmd->parsed()) return -1;
    o->beamGiven = cmd->count("--beam") > 0;
    return runGenerate(*o);
  };
}

}  // namespace attn::cli
