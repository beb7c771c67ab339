#include "attn/models/seq2seq/seq2seq_model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <mutex>
#include <optional>

#include "attn/io/json_document.h"
#include "attn/io/regular_file.h"
#include "attn/io/text_file.h"
#include "attn/models/generation/argmax_screen.h"
#include "attn/models/model_config.h"
#include "attn/models/model_paths.h"
#include "attn/models/nn_ops.h"
#include "attn/models/seq2seq/beam_search.h"
#include "attn/models/seq2seq/greedy_search.h"
#include "attn/models/seq2seq/seq2seq_weights.h"
#include "attn/tokenizers/spm/spm_hf_tokenizer.h"

namespace attn::models {

namespace fs = std::filesystem;

struct Seq2SeqModel::Impl {
  Seq2SeqInfo info;
  Seq2SeqConfig config;
  std::string configPath;
  Seq2SeqWeights weights;
  HfTokenizer tokenizer;
  /// Marian: target.spm's pieces (MarianTokenizer's text_target and decode), with vocab.json's ids.
  std::optional<HfTokenizer> targetTokenizer;

  const HfTokenizer& target() const { return targetTokenizer ? *targetTokenizer : tokenizer; }

  /// The int8 screen of an f32 lm_head for greedy steps (argmax_screen.h), built on first use;
  /// null where the head is stored otherwise or its rows are not the vocabulary.
  const ArgmaxScreen* argmaxScreen() const {
    std::call_once(screenOnce, [this] {
      if (weights.lmHead.rows == config.base.vocabSize) screen = ArgmaxScreen::build(weights.lmHead);
    });
    return screen.get();
  }
  mutable std::once_flag screenOnce;
  mutable std::unique_ptr<ArgmaxScreen> screen;
};

namespace {

/// generation_config.json over the config's settings, when the folder has one.
Status readFolderGenerationConfig(const std::string& dir, Seq2SeqConfig& c) {
  std::error_code ec;
  const std::string path = (fs::path(dir) / "generation_config.json").string();
  if (!fs::exists(fs::symlink_status(path, ec))) return okStatus();
  if (auto st = checkModelFilePath(dir, path); !st) return st;
  auto text = readUtf8TextFile(path, file_limit::kModelConfig);
  if (!text) return text.error();
  return readGenerationConfig(*text, path, c.base.vocabSize, c.generation);
}

/// The token strings of ids, for the views.
std::vector<std::string> tokenStrings(const HfTokenizer& tok, const std::vector<int>& ids) {
  std::vector<std::string> out;
  out.reserve(ids.size());
  for (int id : ids) out.push_back(tok.idToToken(id));
  return out;
}

}  // namespace

Result<std::shared_ptr<const Seq2SeqModel>> Seq2SeqModel::open(const std::string& path,
                                                               const ProgressFn& progress) {
  auto read = readFolderConfig(path, progress);
  if (!read) return read.error();
  const ModelFolder* folder = &read->folder;
  auto impl = std::make_unique<Impl>();
  impl->configPath = read->path;
  auto cfg = parseSeq2SeqConfig(read->text, impl->configPath);
  if (!cfg) return cfg.error();
  impl->config = std::move(*cfg);
  Seq2SeqConfig& c = impl->config;
  if (auto st = readFolderGenerationConfig(folder->dir, c); !st) return st.error();
  if (c.generation.decoderStartTokenId < 0)
    return Error{fmt::format("{}: no decoder_start_token_id (config.json or generation_config.json)",
                             impl->configPath)};

  ProgressFn weightProgress;
  if (progress)
    weightProgress = [&progress](double f, std::string_view stage) {
      return progress(0.05 + 0.85 * f, stage);
    };
  auto w = loadSeq2SeqWeights(folder->dir, c, weightProgress);
  if (!w) return w.error();
  impl->weights = std::move(*w);
  if (progress && !progress(0.9, "reading the tokenizer")) return Error{impl->configPath + ": cancelled"};
  auto tok = HfTokenizer::fromFolder(folder->dir, c.base.modelType);
  if (!tok) return tok.error();
  impl->tokenizer = std::move(*tok);
  const std::string targetSpm = (fs::path(folder->dir) / "target.spm").string();
  std::error_code ec;
  if (c.base.modelType == "marian" && fs::exists(fs::symlink_status(targetSpm, ec))) {
    if (auto st = checkModelFilePath(folder->dir, targetSpm); !st) return st.error();
    auto target = sentencePieceTokenizer(folder->dir, targetSpm, c.base.modelType);
    if (!target) return target.error();
    if (target->idLimit() > c.base.vocabSize)
      return Error{
          fmt::format("{}: the target tokenizer has ids up to {} but config.json's vocab_size is {} ({})",
                      targetSpm, target->idLimit() - 1, c.base.vocabSize, impl->configPath)};
    impl->targetTokenizer = std::move(*target);
  }
  if (impl->tokenizer.idLimit() > c.base.vocabSize)
    return Error{fmt::format("{}: the tokenizer has ids up to {} but config.json's vocab_size is {} ({})",
                             (fs::path(folder->dir) / "tokenizer.json").string(),
                             impl->tokenizer.idLimit() - 1, c.base.vocabSize, impl->configPath)};

  Seq2SeqInfo& info = impl->info;
  info.dir = folder->dir, info.name = folder->name, info.modelType = c.base.modelType;
  info.encoderLayers = c.encoderLayers, info.decoderLayers = c.decoderLayers;
  info.encoderHeads = c.encoderHeads, info.decoderHeads = c.decoderHeads;
  info.dModel = c.base.dModel, info.vocabSize = c.base.vocabSize, info.maxPositions = c.maxPositions;
  info.parameters = impl->weights.store.parameters, info.dtype = impl->weights.store.dtype;
  info.tokenizerKind = impl->tokenizer.kindName();
  info.generation = c.generation;
  if (progress && !progress(1.0, "ready")) return Error{impl->configPath + ": cancelled"};
  return std::shared_ptr<const Seq2SeqModel>(new Seq2SeqModel(std::move(impl)));
}

Seq2SeqModel::Seq2SeqModel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Seq2SeqModel::~Seq2SeqModel() = default;

const Seq2SeqInfo& Seq2SeqModel::info() const { return impl_->info; }
const HfTokenizer& Seq2SeqModel::tokenizer() const { return impl_->tokenizer; }

Result<Encoding> Seq2SeqModel::encode(std::string_view text, const std::string& source) const {
  auto enc = impl_->tokenizer.encode(text, std::nullopt, /*addSpecialTokens=*/true, source);
  if (!enc) return enc.error();
  if (enc->size() == 0) return Error{source + ": the text gives no tokens"};
  if (enc->size() > impl_->config.maxPositions)
    return Error{fmt::format("{}: {} tokens, but the model takes {} at most (max_position_embeddings in {})",
                             source, enc->size(), impl_->config.maxPositions, impl_->configPath)};
  return enc;
}

namespace {

/// A state set up for `o`: its interventions checked against the model, its q/k/v choice.
Status prepareState(const Seq2SeqConfig& c, const std::string& configPath, const Seq2SeqRunOptions& o,
                    Seq2SeqState& s) {
  s.keepQkv = o.keepQkv;
  if (o.interventions.empty()) return okStatus();
  auto edits = seq2seqEdits(c, o.interventions, configPath);
  if (!edits) return edits.error();
  s.edits = std::make_shared<const Seq2SeqEdits>(std::move(*edits));
  return okStatus();
}

}  // namespace

Result<Seq2SeqRun> Seq2SeqModel::forcedIds(const Encoding& source, const std::vector<int>& decoderIds,
                                           const Seq2SeqRunOptions& o) const {
  const Seq2SeqConfig& c = impl_->config;
  Seq2SeqState s;
  if (auto st = prepareState(c, impl_->configPath, o, s); !st) return st.error();
  if (auto st = encodeSource(c, impl_->weights, source.ids, impl_->configPath, s); !st) return st.error();
  Seq2SeqRun run;
  if (auto st =
          decodeRows(c, impl_->weights, decoderIds, /*lastOnly=*/false, impl_->configPath, s, run.logits);
      !st)
    return st.error();
  run.source = source;
  run.targetIds = decoderIds;
  run.targetTokens = tokenStrings(impl_->target(), decoderIds);
  run.attention = seq2seqResults(c, impl_->weights, s, source.tokens, run.targetTokens);
  if (!o.interventions.empty())
    run.settings = "forced decoding; interventions " + formatSeq2SeqInterventions(o.interventions);
  return run;
}

namespace {

/// The decoder's ids for a forced target text: decoder_start_token_id then the target as the
/// tokenizer encodes it.
Result<std::vector<int>> forcedDecoderIds(const Seq2SeqModel::Impl& m, std::string_view target,
                                          const std::string& targetName) {
  const GenerationSettings& g = m.config.generation;
  // mBART's tokenizer.json carries the source language's template; the target is
  // [target language] pieces </s> as MBart50Tokenizer's text_target writes it, the language
  // being forced_bos_token_id. Without one (mbart-large-cc25 / en-ro: decoding starts at the
  // language code) the decoder reads shift_tokens_right of [pieces </s> language].
  const bool languageCodes = m.config.base.modelType == "mbart";
  auto enc = m.target().encode(target, std::nullopt, /*addSpecialTokens=*/!languageCodes, targetName);
  if (!enc) return enc.error();
  std::vector<int> ids{g.decoderStartTokenId};
  if (languageCodes && g.forcedBosTokenId >= 0) ids.push_back(g.forcedBosTokenId);
  ids.insert(ids.end(), enc->ids.begin(), enc->ids.end());
  if (languageCodes && g.eosTokenId >= 0) ids.push_back(g.eosTokenId);
  if (static_cast<int>(ids.size()) > m.config.maxPositions)
    return Error{
        fmt::format("{}: {} decoder tokens with the decoder start, but the model takes {} at most ({})",
                    targetName, ids.size(), m.config.maxPositions, m.configPath)};
  return ids;
}

}  // namespace

Result<Seq2SeqRun> Seq2SeqModel::forced(const Encoding& source, std::string_view target,
                                        const std::string& targetName, const Seq2SeqRunOptions& o) const {
  auto ids = forcedDecoderIds(*impl_, target, targetName);
  if (!ids) return ids.error();
  return forcedIds(source, *ids, o);
}

Result<Seq2SeqGradientRun> Seq2SeqModel::gradients(const Encoding& source, std::string_view target,
                                                   const std::string& targetName, int targetToken,
                                                   const GradientOptions& options,
                                                   const ProgressFn& progress) const {
  auto ids = forcedDecoderIds(*impl_, target, targetName);
  if (!ids) return ids.error();
  auto a = seq2seqGradientAttribution(impl_->config, impl_->weights, source.ids, *ids, targetToken, options,
                                      impl_->configPath, progress);
  if (!a) return a.error();
  Seq2SeqGradientRun run{std::move(*a), *ids, tokenStrings(impl_->target(), *ids)};
  return run;
}

Result<int> Seq2SeqModel::targetTokenId(const std::string& text, const std::string& what) const {
  const int vocab = impl_->config.base.vocabSize;
  if (text.size() > 1 && text[0] == '#') {
    int id = -1;
    const auto [end, ec] = std::from_chars(text.data() + 1, text.data() + text.size(), id);
    if (ec != std::errc{} || end != text.data() + text.size() || id < 0 || id >= vocab)
      return Error{fmt::format("{} {}: not a token id of this model (0 to {})", what, text, vocab - 1)};
    return id;
  }
  auto enc = impl_->target().encode(text, std::nullopt, /*addSpecialTokens=*/false, what);
  if (!enc) return enc.error();
  if (enc->size() != 1)
    return Error{
        fmt::format("{} \"{}\" is {} tokens for the target tokenizer; give one token or its id as #ID", what,
                    text, enc->size())};
  return enc->ids[0];
}

std::string Seq2SeqModel::targetTokenText(int id) const { return impl_->target().displayText(id); }

namespace {

/// mBART-50's language codes: ll_CC (or lll_CC), as the tokenizer's added tokens spell them.
bool isLanguageCode(const std::string& t) {
  const size_t u = t.find('_');
  if (u < 2 || u > 3 || t.size() != u + 3) return false;
  for (size_t i = 0; i < t.size(); ++i) {
    const char ch = t[i];
    if (i < u ? !(ch >= 'a' && ch <= 'z') : i > u && !(ch >= 'A' && ch <= 'Z')) return false;
  }
  return true;
}

/// The id of language code `code` in `tok`, or an error listing the codes it has.
Result<int> languageCodeId(const HfTokenizer& tok, const std::string& code, const std::string& src) {
  std::vector<std::string> codes;
  for (int id = 0; id < tok.idLimit(); ++id) {
    const std::string t = tok.idToToken(id);
    if (!isLanguageCode(t)) continue;
    if (t == code) return id;
    if (codes.size() < 60) codes.push_back(t);
  }
  return Error{fmt::format("{}: {:?} is not a language code of this tokenizer (it has {})", src, code,
                           codes.empty() ? std::string("none") : fmt::format("{}", fmt::join(codes, ", ")))};
}

/// GenerateOptions' mBART languages: the target's code as forced_bos_token_id in `c`, the
/// source's in place of the code the tokenizer's template added to `source`.
Status applyLanguages(const GenerateOptions& o, const HfTokenizer& sourceTok, const HfTokenizer& targetTok,
                      const std::string& configPath, Seq2SeqConfig& c, Encoding& source) {
  if (o.sourceLanguage.empty() && o.targetLanguage.empty()) return okStatus();
  if (c.base.modelType != "mbart")
    return Error{fmt::format("{}: source and target languages are mBART's language codes; this is a {} model",
                             configPath, c.base.modelType)};
  if (!o.targetLanguage.empty()) {
    auto id = languageCodeId(targetTok, o.targetLanguage, configPath);
    if (!id) return id.error();
    c.generation.forcedBosTokenId = *id;
  }
  if (o.sourceLanguage.empty()) return okStatus();
  auto id = languageCodeId(sourceTok, o.sourceLanguage, configPath);
  if (!id) return id.error();
  for (size_t i = 0; i < source.ids.size(); ++i) {
    const bool added = source.special.size() != source.ids.size() || source.special[i] != 0;
    if (added && isLanguageCode(sourceTok.idToToken(source.ids[i]))) {
      source.ids[i] = *id;
      if (i < source.tokens.size()) source.tokens[i] = o.sourceLanguage;
    }
  }
  return okStatus();
}

/// The greedy token after the decoder's output rows `h`: through the screen where it holds
/// (argmax_screen.h), else the whole lm_head product.
int greedyFromHidden(const Seq2SeqConfig& c, const Seq2SeqWeights& w, const ArgmaxScreen& screen,
                     const Mat& h, const std::vector<int>& ids, int maxLength) {
  const GenerationSettings& g = c.generation;
  const int vocab = c.base.vocabSize;
  if (const int forced = forcedGreedyToken(vocab, ids, g, maxLength); forced >= 0) return forced;
  const Eigen::RowVectorXf x = h.bottomRows(1);
  const float* bias = w.finalLogitsBias.empty() ? nullptr : w.finalLogitsBias.data;
  if (const int t = screen.argmax(x.data(), bias, greedyBannedTokens(ids, g)); t >= 0) return t;
  LinearWeight head;
  head.w = w.lmHead;
  head.b = w.finalLogitsBias;
  Mat logits;
  linear(h.bottomRows(1), head, logits);
  return greedyNextToken(logits.data(), vocab, ids, g, maxLength);
}

/// Greedy decoding or sampling from `ids` (the decoder start) until EOS or maxLength, one token
/// fed at a time; every token written is fed too (its rows of every map are then there).
Status decodeOneByOne(const Seq2SeqConfig& c, const Seq2SeqWeights& w, const ArgmaxScreen* screen,
                      int maxLength, const std::string& src, const ProgressFn& progress, Seq2SeqState& s,
                      std::vector<int>& ids) {
  const GenerationSettings& g = c.generation;
  Mat rows;  // the last fed rows: decoder outputs (screened greedy) or their logits
  const auto feed = [&](const std::vector<int>& fed) {
    return screen ? decodeHidden(c, w, fed, src, s, rows) : decodeRows(c, w, fed, true, src, s, rows);
  };
  if (auto st = feed(ids); !st) return st;
  SamplingRng rng(g.sampling.seed);
  while (static_cast<int>(ids.size()) < maxLength) {
    if (progress && !progress(static_cast<double>(ids.size()) / maxLength, "generating"))
      return Error{src + ": cancelled"};
    int next = 0;
    if (g.sampling.enabled) {  // the processors on the logits, then the warpers and one draw
      processScores(rows.data(), c.base.vocabSize, ids, g, maxLength);
      next = sampleNextToken(rows.data(), c.base.vocabSize, g.sampling, rng);
    } else if (screen) {
      next = greedyFromHidden(c, w, *screen, rows, ids, maxLength);
    } else {
      next = greedyNextToken(rows.data(), c.base.vocabSize, ids, g, maxLength);
    }
    ids.push_back(next);
    if (auto st = feed({next}); !st) return st;
    if (g.isEos(next)) break;
  }
  return okStatus();
}

}  // namespace

Result<Seq2SeqRun> Seq2SeqModel::generate(const Encoding& given, const GenerateOptions& o,
                                          const ProgressFn& progress) const {
  Seq2SeqConfig c =
      impl_->config;  // a copy: the language and sampling options change its generation settings
  const GenerationSettings& g = c.generation;
  SamplingSettings& sampling = c.generation.sampling;
  if (o.doSample) sampling.enabled = *o.doSample;
  if (o.topK) sampling.topK = *o.topK;
  if (o.topP) sampling.topP = *o.topP;
  if (o.temperature) sampling.temperature = *o.temperature;
  sampling.seed = o.seed;
  Encoding source = given;
  if (auto st = applyLanguages(o, tokenizer(), impl_->target(), impl_->configPath, c, source); !st)
    return st.error();
  const int beams = o.beams > 0 ? o.beams : g.numBeams;
  if (beams < 1 || beams > 8)
    return Error{fmt::format(
        "{} beams ({}): beam search takes 1 to 8; choose with --beam", beams,
        o.beams > 0 ? "the option" : "num_beams in " + (g.source.empty() ? impl_->configPath : g.source))};
  if (o.maxNewTokens < 0) return Error{fmt::format("max new tokens {}: must be at least 1", o.maxNewTokens)};
  if (sampling.enabled)  // with beams > 1: beam sampling (beam_loop.h)
    if (auto st = checkSamplingSettings(sampling); !st) return st.error();
  if (o.numReturnSequences < 1 || o.numReturnSequences > beams)
    return Error{
        fmt::format("{} sequences to return: 1 to the number of beams ({}; greedy search returns one)",
                    o.numReturnSequences, beams)};
  int maxLength = o.maxNewTokens > 0 ? 1 + o.maxNewTokens : g.maxLength;
  maxLength = std::min(maxLength, c.maxPositions);  // the decoder has no position past its table
  Seq2SeqState s;
  if (auto st = prepareState(c, impl_->configPath, o.forward, s); !st) return st.error();
  if (auto st = encodeSource(c, impl_->weights, source.ids, impl_->configPath, s); !st) return st.error();
  std::vector<int> ids{g.decoderStartTokenId};
  const BeamSettings beam{beams, o.lengthPenalty.value_or(g.lengthPenalty),
                          o.earlyStopping.value_or(g.earlyStopping)};
  std::vector<BeamHypothesis> hypotheses;
  if (beams > 1) {  // the best hypothesis, then its maps by feeding it (the same rows as kept per step)
    auto found = beamSearch(c, impl_->weights, s, beam, maxLength, impl_->configPath, progress);
    if (!found) return found.error();
    hypotheses = std::move(*found);
    ids = hypotheses.front().ids;
    Mat hidden;  // no logits needed: the rows are fed for their maps
    if (auto st = decodeHidden(c, impl_->weights, ids, impl_->configPath, s, hidden); !st) return st.error();
  } else if (auto st = decodeOneByOne(c, impl_->weights, sampling.enabled ? nullptr : impl_->argmaxScreen(),
                                      maxLength, impl_->configPath, progress, s, ids);
             !st) {
    return st.error();
  }
  Seq2SeqRun run;
  run.source = source;
  run.targetIds = ids;
  run.targetTokens = tokenStrings(impl_->target(), ids);
  run.attention = seq2seqResults(c, impl_->weights, s, source.tokens, run.targetTokens);
  const auto textOf = [&](const std::vector<int>& written) {
    std::vector<int> text;
    for (int id : written)
      if (id != g.decoderStartTokenId && id != g.bosTokenId && !g.isEos(id) && id != g.padTokenId &&
          id != g.forcedBosTokenId)
        text.push_back(id);
    return impl_->target().decode(text);
  };
  run.outputText = textOf(ids);
  for (size_t r = 0; r < hypotheses.size() && static_cast<int>(r) < o.numReturnSequences; ++r)
    run.returned.push_back({hypotheses[r].ids, textOf(hypotheses[r].ids), hypotheses[r].score});
  const std::string search = describeSearch(c.generation, beams, beam);
  run.settings = fmt::format(
      "{}; decoder_start_token_id {}, forced_bos_token_id {}, forced_eos_token_id {}, eos_token_id {}, "
      "max_length {}{}, no_repeat_ngram_size {}, bad_words_ids {} (from {})",
      search, g.decoderStartTokenId, g.forcedBosTokenId, g.forcedEosText(), g.eosText(), maxLength,
      o.maxNewTokens > 0 ? " (1 + max new tokens)" : "", g.noRepeatNgramSize, g.badWordsIds.size(),
      g.source.empty() ? impl_->configPath : g.source);
  if (!o.forward.interventions.empty())
    run.settings += "; interventions " + formatSeq2SeqInterventions(o.forward.interventions);
  if (progress && !progress(1.0, "done")) return Error{impl_->configPath + ": cancelled"};
  return run;
}

bool isEncoderDecoderFolder(const std::string& path) {
  auto folder = resolveModelFolder(path);
  if (!folder) return false;
  const std::string config = (fs::path(folder->dir) / "config.json").string();
  if (!checkModelFilePath(folder->dir, config)) return false;
  auto text = readUtf8TextFile(config, file_limit::kModelConfig);
  if (!text) return false;
  auto doc = parseJsonText(*text, config);
  if (!doc || !doc->is_object()) return false;
  const auto it = doc->find("model_type");
  return it != doc->end() && it->is_string() && isEncoderDecoderType(it->get<std::string>());
}

}  // namespace attn::models
