// attnscope-cli translate, and `run --model --target-text` on an encoder-decoder model:
// the three attention kinds of a BART-style model (encoder self-attention, decoder
// self-attention, cross-attention) for a source and a target that is given (forced
// decoding) or generated greedily.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "attn/io/npy_writer.h"
#include "attn/io/text_file.h"
#include "attn/models/seq2seq/seq2seq_model.h"
#include "commands.h"
#include "input_options.h"
#include "model_request.h"
#include "sampling_options.h"
#include "seq2seq_input.h"
#include "token_offsets.h"
#include "vector_tensor.h"

namespace attn::cli {

namespace {

/// [L, H, rows, cols] from one attention kind's layers.
Tensor stackedMaps(const std::vector<AttentionResult>& layers) {
  Tensor t;
  const int64_t L = static_cast<int64_t>(layers.size()), H = layers.empty() ? 0 : layers[0].numHeads();
  const int64_t rows = L > 0 && H > 0 ? layers[0].heads[0].weights.rows() : 0,
                cols = L > 0 && H > 0 ? layers[0].heads[0].weights.cols() : 0;
  t.shape = {L, H, rows, cols};
  t.data.reserve(static_cast<size_t>(L * H * rows * cols));
  for (const auto& layer : layers)
    for (const auto& h : layer.heads)
      t.data.insert(t.data.end(), h.weights.data(), h.weights.data() + h.weights.size());
  return t;
}

void addSeq2SeqArrays(NpzWriter& npz, const models::Seq2SeqRun& run,
                      const std::vector<models::Seq2SeqIntervention>& interventions) {
  if (!interventions.empty()) {
    std::vector<std::string> specs;
    for (const auto& iv : interventions) specs.push_back(models::formatSeq2SeqIntervention(iv));
    npz.addStrings("interventions", specs);
  }
  npz.add("encoder_weights", stackedMaps(run.attention.encoder));
  npz.add("decoder_weights", stackedMaps(run.attention.decoder));
  npz.add("cross_weights", stackedMaps(run.attention.cross));
  npz.addStrings("source_tokens", run.source.tokens);
  addTokenOffsets(npz, "source_token_offsets", run.source);
  npz.addStrings("target_tokens", run.targetTokens);
  npz.add("source_ids", vectorTensor(run.source.ids));
  npz.add("target_ids", vectorTensor(run.targetIds));
}

/// Beam search's returned sequences: returned_texts [K], returned_scores [K] and returned_ids
/// [K, longest] (-1 after each sequence's end), best first.
void addReturnedSequences(NpzWriter& npz, const std::vector<models::ReturnedSequence>& returned) {
  std::vector<std::string> texts;
  Tensor scores, ids;
  size_t longest = 0;
  for (const auto& r : returned) longest = std::max(longest, r.ids.size());
  scores.shape = {static_cast<int64_t>(returned.size())};
  ids.shape = {static_cast<int64_t>(returned.size()), static_cast<int64_t>(longest)};
  for (const auto& r : returned) {
    texts.push_back(r.text);
    scores.data.push_back(static_cast<float>(r.score));
    for (size_t j = 0; j < longest; ++j)
      ids.data.push_back(j < r.ids.size() ? static_cast<float>(r.ids[j]) : -1.0f);
  }
  npz.addStrings("returned_texts", texts);
  npz.add("returned_scores", scores);
  npz.add("returned_ids", ids);
}

void printModelLine(const models::Seq2SeqInfo& i) {
  fmt::print("model: {} ({}, encoder {} x {} heads, decoder {} x {} heads)\n", i.name, i.modelType,
             i.encoderLayers, i.encoderHeads, i.decoderLayers, i.decoderHeads);
}

struct TranslateOptions {
  InputOptions input;
  std::string out;
  bool force = false;
  int maxNewTokens = 0;
  int beam = 0;  // 0: the config's num_beams
  bool beamGiven = false;
  std::optional<double> lengthPenalty;
  std::string earlyStopping;  // "", "true" or "false"
  int numReturn = 1;
  std::string sourceLang, targetLang;
  SamplingCliOptions sampling;
};

int runTranslate(const TranslateOptions& o) {
  if (!o.out.ends_with(".npz")) return fail(fmt::format("{}: --out of translate must end in .npz", o.out));
  if (auto st = checkOverwrite(o.out, o.force); !st) return fail(st.error().message);
  if (o.beam < 0 || o.beam > 8 || (o.beamGiven && o.beam == 0))
    return fail(fmt::format("--beam: {} is out of range (1 to 8)", o.beam));
  if (o.maxNewTokens < 0) return fail(fmt::format("--max-new-tokens: {} must be at least 1", o.maxNewTokens));
  if (auto st = checkSamplingRanges(o.sampling); !st) return fail(st.error().message);
  if (!models::isEncoderDecoderFolder(o.input.modelDir)) {
    auto m = models::Model::open(o.input.modelDir);  // says what the folder is, or what is wrong with it
    if (!m) return fail(m.error().message);
    return fail(
        fmt::format("--model: {} is not an encoder-decoder model (model_type {}): translate needs one "
                    "(bart, mbart, marian, t5, mt5); causal models write text with `attnscope-cli generate`",
                    (*m)->info().name, (*m)->info().modelType));
  }
  auto opened = openSeq2Seq(o.input);
  if (!opened) return fail(opened.error().message);
  models::GenerateOptions g;
  g.maxNewTokens = o.maxNewTokens;
  g.beams = o.beam;
  g.lengthPenalty = o.lengthPenalty;
  if (!o.earlyStopping.empty()) g.earlyStopping = o.earlyStopping == "true";
  g.numReturnSequences = o.numReturn;
  g.sourceLanguage = o.sourceLang;
  g.targetLanguage = o.targetLang;
  if (o.sampling.doSample) g.doSample = true;
  applySamplingOptions(o.sampling, g);
  g.forward.interventions = opened->interventions;
  auto run = opened->model->generate(opened->source, g, terminalProgress());
  if (!run) return fail(run.error().message);
  NpzWriter npz;
  addSeq2SeqArrays(npz, *run, opened->interventions);
  npz.addStrings("output_text", {run->outputText}, {1});
  npz.add("output_ids", vectorTensor(run->targetIds));
  if (o.numReturn > 1) addReturnedSequences(npz, run->returned);
  if (auto st = npz.write(o.out); !st) return fail(st.error().message);
  printModelLine(opened->model->info());
  fmt::print("generation: {}\n", run->settings);
  fmt::print("output: {:?}\n", run->outputText);
  if (o.numReturn > 1)
    for (size_t r = 0; r < run->returned.size(); ++r)
      fmt::print("  {}. {:?} (score {:.4f})\n", r + 1, run->returned[r].text, run->returned[r].score);
  fmt::print("wrote {} ({} source, {} target tokens)\n", o.out, run->source.size(), run->targetIds.size());
  return 0;
}

}  // namespace

Result<Seq2SeqOpened> openSeq2Seq(const InputOptions& o) {
  if (o.text.empty() && o.textFile.empty())
    return Error{"--model needs the source text: --text or --text-file"};
  if (!o.keyText.empty() || !o.keyTextFile.empty() || o.padTo > 0 || !o.image.empty())
    return Error{"--key-text, --pad-to and --image do not apply to an encoder-decoder model"};
  std::vector<models::Seq2SeqIntervention> interventions;
  for (const auto& spec : o.intervene) {
    if (!models::hasSeq2SeqStackPrefix(spec))
      return Error{fmt::format(
          "--intervene '{}': {} is an encoder-decoder model: name the stack first (encoder:{}, decoder:{} or "
          "cross:{})",
          spec, o.modelDir, spec, spec, spec)};
    auto iv = models::parseSeq2SeqIntervention(spec);
    if (!iv) return iv.error();
    interventions.push_back(std::move(*iv));
  }
  std::string text = o.text;
  if (!o.textFile.empty()) {
    auto t = readUtf8TextFile(o.textFile);
    if (!t) return t.error();
    text = std::move(*t);
  }
  auto model = models::Seq2SeqModel::open(o.modelDir, terminalProgress());
  if (!model) return model.error();
  auto enc = (*model)->encode(text, o.textFile.empty() ? std::string("--text") : o.textFile);
  if (!enc) return enc.error();
  return Seq2SeqOpened{std::move(*model), std::move(*enc), std::move(interventions)};
}

int runSeq2SeqForced(const InputOptions& o, const std::string& targetText, const std::string& out) {
  if (targetText.empty())
    return fail(
        fmt::format("--model: {} is an encoder-decoder model: give the target with --target-text, or "
                    "generate one with `attnscope-cli translate`",
                    o.modelDir));
  auto opened = openSeq2Seq(o);
  if (!opened) return fail(opened.error().message);
  models::Seq2SeqRunOptions options;
  options.interventions = opened->interventions;
  auto run = opened->model->forced(opened->source, targetText, "--target-text", options);
  if (!run) return fail(run.error().message);
  NpzWriter npz;
  addSeq2SeqArrays(npz, *run, opened->interventions);
  if (auto st = npz.write(out); !st) return fail(st.error().message);
  printModelLine(opened->model->info());
  if (!run->settings.empty()) fmt::print("settings: {}\n", run->settings);
  fmt::print("wrote {} ({} source, {} target tokens)\n", out, run->source.size(), run->targetIds.size());
  return 0;
}

Action addTranslateCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("translate",
                                 "Translate --text with an encoder-decoder model (greedy) and write its "
                                 "encoder, decoder and cross-attention "
                                 "(.npz)");
  auto o = std::make_shared<TranslateOptions>();
  cmd->add_option("--model", o->input.modelDir,
                  "Hugging Face encoder-decoder folder (bart, mbart, marian, t5, mt5) or its cache directory")
      ->required();
  auto* text = cmd->add_option("--text", o->input.text, "Source text");
  auto* file = cmd->add_option("--text-file", o->input.textFile, "Source text from a UTF-8 .txt file");
  text->excludes(file);
  cmd->add_option("--max-new-tokens", o->maxNewTokens,
                  "At most this many tokens after the decoder start (default: the model's max_length)");
  cmd->add_option("--beam", o->beam,
                  "Beams: 1 greedy (or sampling), 2 to 8 beam search (or beam sampling with --do-sample) as "
                  "transformers' generate (length_penalty and early_stopping from the model's generation "
                  "config); default: its num_beams");
  cmd->add_option("--length-penalty", o->lengthPenalty,
                  "Beam search: score = sum log p / length^this (default: the model's length_penalty)");
  cmd->add_option("--early-stopping", o->earlyStopping,
                  "Beam search: stop once as many hypotheses as beams are closed (default: the model's "
                  "early_stopping)")
      ->check(CLI::IsMember({"true", "false"}));
  cmd->add_option("--num-return-sequences", o->numReturn,
                  "Beam search: write this many of the best sequences (returned_texts, returned_scores, "
                  "returned_ids; at most --beam); the maps are the best one's")
      ->capture_default_str();
  cmd->add_option("--source-lang", o->sourceLang,
                  "mBART: the source's language code (e.g. ro_RO); default: the tokenizer's src_lang");
  cmd->add_option("--target-lang", o->targetLang,
                  "mBART: the language to write (e.g. en_XX), forced as the first token; default: the "
                  "model's forced_bos_token_id");
  addSamplingOptions(cmd, o->sampling);
  cmd->add_option("--intervene", o->input.intervene,
                  "Repeatable: a head of one stack changed at every step: encoder:, decoder: or cross: then "
                  "ablate:L.H, uniform:L.H, temperature:L.H=T or mask:L.H=SPEC (layer and head from 1), "
                  "e.g. cross:ablate:2.3");
  cmd->add_option("--out", o->out, "Result file (.npz)")->required();
  cmd->add_flag("--force", o->force, "Overwrite an existing output file");
  return [cmd, o]() -> int {
    if (!cmd->parsed()) return -1;
    o->beamGiven = cmd->count("--beam") > 0;
    return runTranslate(*o);
  };
}

}  // namespace attn::cli
