#include "attn/models/generation/causal_generation.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <utility>

#include "attn/io/regular_file.h"
#include "attn/io/text_file.h"
#include "attn/models/generation/beam_loop.h"
#include "attn/models/generation/causal_decoder.h"
#include "attn/models/generation/token_sampler.h"
#include "attn/models/model_paths.h"
#include "attn/models/seq2seq/greedy_search.h"

namespace attn::models {

namespace fs = std::filesystem;

namespace {

/// One KV cache per beam; every beam starts from the prompt less its last token.
class CausalBeams : public BeamStepper {
 public:
  CausalBeams(const CausalDecoder& d, const CausalState& start, int beams)
      : d_(d), states_(static_cast<size_t>(beams), start) {}
  Status feed(int beam, int token, std::vector<float>& logits) override {
    return d_.feed(states_[static_cast<size_t>(beam)], {token}, logits);
  }
  void reorder(const std::vector<int>& parents) override {
    std::vector<CausalState> next;
    next.reserve(parents.size());
    for (int p : parents) next.push_back(states_[static_cast<size_t>(p)]);
    states_ = std::move(next);
  }

 private:
  const CausalDecoder& d_;
  std::vector<CausalState> states_;
};

/// The options over the generation config: the settings a run uses.
GenerationSettings settingsFor(GenerationSettings g, const CausalGenerateOptions& o) {
  if (o.noRepeatNgramSize) g.noRepeatNgramSize = *o.noRepeatNgramSize;
  if (o.doSample) g.sampling.enabled = *o.doSample;
  if (o.topK) g.sampling.topK = *o.topK;
  if (o.topP) g.sampling.topP = *o.topP;
  if (o.temperature) g.sampling.temperature = *o.temperature;
  g.sampling.seed = o.seed;
  return g;
}

/// Greedy search or sampling from the fed prompt (`logits` after its last token) until EOS or
/// maxLength; the last token written is fed too, so its attention row is kept.
Status writeOneByOne(const CausalDecoder& d, const GenerationSettings& g, int vocab, int maxLength,
                     const std::string& src, const ProgressFn& progress, CausalState& s,
                     std::vector<int>& ids, std::vector<float>& logits) {
  SamplingRng rng(g.sampling.seed);
  const int promptLength = static_cast<int>(ids.size());
  while (static_cast<int>(ids.size()) < maxLength) {
    if (progress && !progress(static_cast<double>(static_cast<int>(ids.size()) - promptLength) /
                                  std::max(1, maxLength - promptLength),
                              "generating"))
      return Error{src + ": cancelled"};
    int next = 0;
    if (g.sampling.enabled) {  // the processors on the logits, then the warpers and one draw
      processScores(logits.data(), vocab, ids, g, maxLength);
      next = sampleNextToken(logits.data(), vocab, g.sampling, rng);
    } else {
      next = greedyNextToken(logits.data(), vocab, ids, g, maxLength);
    }
    ids.push_back(next);
    if (auto st = d.feed(s, {next}, logits); !st) return st;
    if (g.isEos(next)) break;
  }
  return okStatus();
}

std::string describeSettings(const GenerationSettings& g, int beams, const BeamSettings& b, int maxLength,
                             bool fromBudget, const std::string& src) {
  const std::string search = describeSearch(g, beams, b);
  return fmt::format(
      "{}; eos_token_id {}, max_length {}{}, no_repeat_ngram_size {}, bad_words_ids {}, forced_bos_token_id "
      "{}, "
      "forced_eos_token_id {} (from {})",
      search, g.eosText(), maxLength, fromBudget ? " (prompt + max new tokens)" : "", g.noRepeatNgramSize,
      g.badWordsIds.size(), g.forcedBosTokenId, g.forcedEosText(), g.source.empty() ? src : g.source);
}

}  // namespace

Result<GenerationSettings> causalGenerationSettings(const ModelInfo& info, const ModelConfig& c) {
  GenerationSettings g;
  std::error_code ec;
  for (const char* name : {"config.json", "generation_config.json"}) {
    const std::string path = (fs::path(info.dir) / name).string();
    if (info.dir.empty() || !fs::is_regular_file(path, ec)) continue;
    if (auto st = checkModelFilePath(info.dir, path); !st) return st.error();
    auto text = readUtf8TextFile(path, file_limit::kModelConfig);
    if (!text) return text.error();
    if (auto st = readGenerationConfig(*text, path, c.vocabSize, g); !st) return st.error();
  }
  return g;
}

Result<CausalGeneration> generateCausal(const ModelConfig& c, const ModelWeights& w, const HfTokenizer& tok,
                                        const GenerationSettings& config, const Encoding& prompt,
                                        const CausalGenerateOptions& o, const std::string& src,
                                        const ProgressFn& progress) {
  if (auto st = CausalDecoder::supports(c, src); !st) return st.error();
  const GenerationSettings g = settingsFor(config, o);
  const int beams = o.beams > 0 ? o.beams : g.numBeams;
  const std::string beamSource =
      o.beams > 0 ? "the option" : "num_beams in " + (g.source.empty() ? src : g.source);
  if (beams < 1 || beams > 8)
    return Error{
        fmt::format("{} beams ({}): beam search takes 1 to 8; choose with --beam", beams, beamSource)};
  if (g.sampling.enabled)  // with beams > 1: beam sampling (beam_loop.h)
    if (auto st = checkSamplingSettings(g.sampling); !st) return st.error();
  if (o.maxNewTokens < 0)
    return Error{fmt::format("--max-new-tokens: {} must be at least 1", o.maxNewTokens)};
  if (g.noRepeatNgramSize < 0)
    return Error{fmt::format("--no-repeat-ngram-size: {} must be 0 (off) or more", g.noRepeatNgramSize)};
  const int promptLength = prompt.size();
  if (promptLength == 0) return Error{src + ": the prompt gives no tokens"};
  int maxLength = o.maxNewTokens > 0 ? promptLength + o.maxNewTokens : g.maxLength;
  if (c.maxSequence() > 0) maxLength = std::min(maxLength, c.maxSequence());
  if (promptLength >= maxLength)
    return Error{fmt::format(
        "{} prompt tokens leave nothing to write within max_length {} ({}): give --max-new-tokens",
        promptLength, maxLength,
        c.maxSequence() > 0 && maxLength == c.maxSequence() ? "the model's positions"
                                                            : "the generation config")};
  const CausalDecoder decoder(c, w, maxLength, src);
  const BeamSettings beam{beams, o.lengthPenalty.value_or(g.lengthPenalty),
                          o.earlyStopping.value_or(g.earlyStopping)};
  std::vector<int> ids = prompt.ids;
  CausalState s;
  std::vector<float> logits;
  if (beams > 1) {  // the searches without maps; then the best sequence's maps in one pass
    CausalState start;
    start.keepMaps = false;
    if (promptLength > 1)
      if (auto st = decoder.feed(start, std::vector<int>(ids.begin(), ids.end() - 1), logits); !st)
        return st.error();
    CausalBeams stepper(decoder, start, beams);
    auto found = runBeamSearch(stepper, ids, c.vocabSize, g, beam, maxLength, src, progress);
    if (!found) return found.error();
    ids = found->front().ids;
    if (auto st = decoder.feed(s, ids, logits); !st) return st.error();
  } else {
    if (auto st = decoder.feed(s, ids, logits); !st) return st.error();
    if (auto st = writeOneByOne(decoder, g, c.vocabSize, maxLength, src, progress, s, ids, logits); !st)
      return st.error();
  }
  CausalGeneration out;
  out.ids = ids;
  out.promptLength = promptLength;
  out.tokens = prompt.tokens;
  std::vector<int> written;
  for (size_t i = static_cast<size_t>(promptLength); i < ids.size(); ++i) {
    out.tokens.push_back(tok.idToToken(ids[i]));
    const int id = ids[i];
    if (!g.isEos(id) && id != g.bosTokenId && id != g.padTokenId) written.push_back(id);
  }
  out.outputText = tok.decode(written);
  out.maps.resize(static_cast<size_t>(c.layers));
  for (int l = 0; l < c.layers; ++l)
    for (int h = 0; h < c.heads; ++h) out.maps[static_cast<size_t>(l)].push_back(decoder.map(s, l, h));
  out.settings = describeSettings(g, beams, beam, maxLength, o.maxNewTokens > 0, src);
  if (progress && !progress(1.0, "done")) return Error{src + ": cancelled"};
  return out;
}

}  // namespace attn::models
