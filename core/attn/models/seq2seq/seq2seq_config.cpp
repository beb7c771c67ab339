#include "attn/models/seq2seq/seq2seq_config.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>

#include "attn/io/json_document.h"
#include "attn/io/json_fields.h"
#include "attn/io/quote.h"

namespace attn::models {
namespace {

using nlohmann::json;

constexpr int64_t kSeq2SeqMaxLayers = 1024, kSeq2SeqMaxWidth = int64_t{1} << 17,
                  kSeq2SeqMaxVocab = int64_t{1} << 24, kSeq2SeqMaxPositions = int64_t{1} << 20;

using Seq2SeqFields = JsonFields;

#define ATTN_S2S_TRY(var, expr)         \
  auto var##_r = (expr);                \
  if (!var##_r) return var##_r.error(); \
  auto var = std::move(*var##_r)

/// The token-id fields of GenerationConfig present in `f`, each -1 .. vocab - 1 (-1: none).
Status readGenerationFields(const Seq2SeqFields& f, int vocab, GenerationSettings& g) {
  struct IdField {
    const char* key;
    int* dest;
  };
  const std::array<IdField, 6> ids{{{"decoder_start_token_id", &g.decoderStartTokenId},
                                    {"bos_token_id", &g.bosTokenId},
                                    {"eos_token_id", &g.eosTokenId},
                                    {"pad_token_id", &g.padTokenId},
                                    {"forced_bos_token_id", &g.forcedBosTokenId},
                                    {"forced_eos_token_id", &g.forcedEosTokenId}}};
  for (const auto& [key, dest] : ids) {
    const json* v = f.find(key);
    const bool eos = dest == &g.eosTokenId, forcedEos = dest == &g.forcedEosTokenId;
    // A list: eos_token_id and forced_eos_token_id keep every id; the other fields take the first.
    if (v && v->is_array()) {
      if (v->empty() || v->size() > 1024)
        return Error{fmt::format("{}: '{}' must be a token id or a list of 1 to 1024 ids", f.src, key)};
      std::vector<int> list;
      for (const json& item : *v) {
        const json one = json{{key, item}};
        const Seq2SeqFields sub{one, f.src};
        ATTN_S2S_TRY(id, sub.integer(key, -1, -1, vocab - 1));
        if (id >= 0) list.push_back(id);
      }
      *dest = list.empty() ? -1 : list.front();
      if (eos) g.eosTokenIds = list;
      if (forcedEos) g.forcedEosTokenIds = list;
      continue;
    }
    ATTN_S2S_TRY(id, f.integer(key, *dest, -1, vocab - 1));
    if (eos && v) g.eosTokenIds.clear();  // a single id replaces an earlier file's list
    if (forcedEos && v) g.forcedEosTokenIds.clear();
    *dest = id;
  }
  if (const json* bad = f.find("bad_words_ids")) {
    const auto fault = Error{
        fmt::format("{}: 'bad_words_ids' must be a list of lists of token ids 0 to {}", f.src, vocab - 1)};
    if (!bad->is_array() || bad->size() > 4096) return fault;
    g.badWordsIds.clear();
    for (const json& words : *bad) {
      if (!words.is_array() || words.empty() || words.size() > 64) return fault;
      std::vector<int> banned;
      for (const json& id : words) {
        if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() >= vocab) return fault;
        banned.push_back(static_cast<int>(id.get<int64_t>()));
      }
      g.badWordsIds.push_back(std::move(banned));
    }
  }
  ATTN_S2S_TRY(maxLength, f.integer("max_length", g.maxLength, 2, kSeq2SeqMaxPositions));
  ATTN_S2S_TRY(ngram, f.integer("no_repeat_ngram_size", g.noRepeatNgramSize, 0, 1024));
  ATTN_S2S_TRY(beams, f.integer("num_beams", g.numBeams, 1, 1024));
  ATTN_S2S_TRY(penalty, f.number("length_penalty", g.lengthPenalty, -1e6, 1e6));
  if (const json* early = f.find("early_stopping"); early && !early->is_boolean())
    return Error{
        fmt::format("{}: 'early_stopping' must be true or false (\"never\" is not supported)", f.src)};
  ATTN_S2S_TRY(early, f.boolean("early_stopping", g.earlyStopping));
  g.maxLength = maxLength, g.noRepeatNgramSize = ngram, g.numBeams = beams;
  g.lengthPenalty = penalty, g.earlyStopping = early;
  ATTN_S2S_TRY(sample, f.boolean("do_sample", g.sampling.enabled));
  ATTN_S2S_TRY(topK, f.integer("top_k", g.sampling.topK, 0, kSeq2SeqMaxVocab));
  ATTN_S2S_TRY(topP, f.number("top_p", g.sampling.topP, 0.0, 1.0));
  ATTN_S2S_TRY(temperature, f.number("temperature", g.sampling.temperature, 0.0, 1e6));
  g.sampling.enabled = sample, g.sampling.topK = static_cast<int>(topK);
  g.sampling.topP = topP, g.sampling.temperature = temperature;
  g.source = f.src;
  return okStatus();
}

}  // namespace

namespace {
std::string idListText(int single, const std::vector<int>& list) {
  if (list.size() < 2) return std::to_string(single);
  std::string s = "[";
  for (size_t i = 0; i < list.size(); ++i) s += (i ? ", " : "") + std::to_string(list[i]);
  return s + "]";
}
}  // namespace

std::string GenerationSettings::eosText() const { return idListText(eosTokenId, eosTokenIds); }

std::string GenerationSettings::forcedEosText() const {
  return idListText(forcedEosTokenId, forcedEosTokenIds);
}

namespace {

Status readBartConfig(const Seq2SeqFields& f, Seq2SeqConfig& c) {
  ATTN_S2S_TRY(d, f.integer("d_model", 1024, 1, kSeq2SeqMaxWidth));
  ATTN_S2S_TRY(encLayers, f.integer("encoder_layers", 12, 1, kSeq2SeqMaxLayers));
  ATTN_S2S_TRY(decLayers, f.integer("decoder_layers", 12, 1, kSeq2SeqMaxLayers));
  ATTN_S2S_TRY(encHeads, f.integer("encoder_attention_heads", 16, 1, kSeq2SeqMaxWidth));
  ATTN_S2S_TRY(decHeads, f.integer("decoder_attention_heads", 16, 1, kSeq2SeqMaxWidth));
  ATTN_S2S_TRY(encFfn, f.integer("encoder_ffn_dim", 4096, 1, 8 * kSeq2SeqMaxWidth));
  ATTN_S2S_TRY(decFfn, f.integer("decoder_ffn_dim", 4096, 1, 8 * kSeq2SeqMaxWidth));
  ATTN_S2S_TRY(pos, f.integer("max_position_embeddings", 1024, 1, kSeq2SeqMaxPositions));
  ATTN_S2S_TRY(vocab, f.integer("vocab_size", 50265, 1, kSeq2SeqMaxVocab));
  ATTN_S2S_TRY(act, f.string("activation_function", "gelu"));
  ATTN_S2S_TRY(scale, f.boolean("scale_embedding", false));
  ATTN_S2S_TRY(before, f.boolean("normalize_before", false));
  ATTN_S2S_TRY(finalNorm, f.boolean("add_final_layer_norm", false));
  ATTN_S2S_TRY(tie, f.boolean("tie_word_embeddings", true));
  const bool marian = c.base.modelType == "marian";
  if (marian) {  // one vocabulary, shared by the encoder, the decoder and the lm_head
    ATTN_S2S_TRY(share, f.boolean("share_encoder_decoder_embeddings", true));
    ATTN_S2S_TRY(decVocab, f.integer("decoder_vocab_size", vocab, 1, kSeq2SeqMaxVocab));
    if (!share || decVocab != vocab)
      return Error{
          fmt::format("{}: separate source and target vocabularies (share_encoder_decoder_embeddings "
                      "false, decoder_vocab_size {} vs vocab_size {}) are not supported for marian",
                      f.src, decVocab, vocab)};
    if (d % 2 != 0)
      return Error{fmt::format("{}: d_model {} must be even for sinusoidal positions", f.src, d)};
  }
  const bool mbart = c.base.modelType == "mbart";  // pre-LN whatever the legacy fields say
  if (!mbart && (before || finalNorm))
    return Error{
        fmt::format("{}: normalize_before / add_final_layer_norm (pre-LayerNorm, mBART's layout) is not "
                    "supported for {}",
                    f.src, c.base.modelType)};
  if (!tie)
    return Error{
        fmt::format("{}: tie_word_embeddings false is not supported for {}", f.src, c.base.modelType)};
  for (const auto& [heads, key] :
       {std::pair{encHeads, "encoder_attention_heads"}, std::pair{decHeads, "decoder_attention_heads"}})
    if (d % heads != 0)
      return Error{fmt::format("{}: d_model {} is not a multiple of {} {}", f.src, d, key, heads)};
  // transformers.activations.ACT2FN names the BART family uses.
  Activation a = Activation::GeluErf;
  if (act == "gelu")
    a = Activation::GeluErf;
  else if (act == "gelu_new" || act == "gelu_pytorch_tanh")
    a = Activation::GeluNew;
  else if (act == "relu")
    a = Activation::Relu;
  else if (act == "silu" || act == "swish")
    a = Activation::Silu;
  else
    return Error{fmt::format("{}: activation_function {} is not supported (gelu, gelu_new, relu, swish)",
                             f.src, quoteForMessage(act))};
  ModelConfig& b = c.base;
  b.layers = encLayers, b.heads = b.kvHeads = encHeads, b.dModel = d, b.headDim = d / encHeads;
  b.intermediate = encFfn, b.vocabSize = vocab, b.activation = a, b.normEps = 1e-5;  // nn.LayerNorm's default
  b.maxPositions = pos, b.tieWordEmbeddings = true, b.attentionBias = b.outputBias = b.mlpBias = true;
  c.encoderLayers = encLayers, c.decoderLayers = decLayers, c.encoderHeads = encHeads,
  c.decoderHeads = decHeads;
  c.encoderFfn = encFfn, c.decoderFfn = decFfn, c.maxPositions = pos, c.positionOffset = 2;
  c.scaleEmbedding = scale;
  c.sinusoidalPositions = marian;
  c.positionOffset = marian ? 0 : 2;
  GenerationSettings& g = c.generation;
  if (vocab < 3) return Error{fmt::format("{}: vocab_size {} is below the special tokens (3)", f.src, vocab)};
  c.preNorm = mbart;
  if (marian) {  // MarianConfig's defaults: </s> 0, decoding starts at the pad token
    g.eosTokenId = 0, g.forcedEosTokenId = 0, g.padTokenId = -1, g.decoderStartTokenId = -1;
  } else if (mbart) {  // MBartConfig's: BART's ids, no decoder start (checkpoints name it)
    g.bosTokenId = 0, g.padTokenId = 1, g.eosTokenId = 2, g.decoderStartTokenId = -1, g.forcedEosTokenId = 2;
  } else {  // BartConfig's: <s> 0, <pad> 1, </s> 2; decoding starts at </s>
    g.bosTokenId = 0, g.padTokenId = 1, g.eosTokenId = 2, g.decoderStartTokenId = 2, g.forcedEosTokenId = 2;
  }
  if (auto st = readGenerationFields(f, vocab, g); !st) return st;
  b.padTokenId = g.padTokenId;
  return okStatus();
}

/// T5Config's feed_forward_proj: "ACT" or "gated-ACT" (ACT one of ACT2FN's names; "gated-gelu"
/// is gelu_new, as T5Config sets dense_act_fn for it).
Status readT5FeedForward(const Seq2SeqFields& f, Seq2SeqConfig& c) {
  ATTN_S2S_TRY(proj, f.string("feed_forward_proj", "relu"));
  const bool gated = proj.rfind("gated-", 0) == 0;
  const std::string act = gated ? proj.substr(6) : proj;
  const std::pair<const char*, Activation> known[] = {
      {"relu", Activation::Relu},        {"gelu", Activation::GeluErf},
      {"gelu_new", Activation::GeluNew}, {"gelu_pytorch_tanh", Activation::GeluNew},
      {"silu", Activation::Silu},        {"swish", Activation::Silu}};
  for (const auto& [name, a] : known)
    if (act == name) {
      c.gatedFfn = gated;
      c.base.activation = proj == "gated-gelu" ? Activation::GeluNew : a;
      return okStatus();
    }
  return Error{
      fmt::format("{}: feed_forward_proj {} is not supported (relu, gelu, gelu_new, silu, each "
                  "optionally as gated-ACT, e.g. gated-gelu)",
                  f.src, quoteForMessage(proj))};
}

/// The fields and defaults of transformers' T5Config (t5-small's sizes), for t5 and mt5.
Status readT5Config(const Seq2SeqFields& f, Seq2SeqConfig& c) {
  ATTN_S2S_TRY(d, f.integer("d_model", 512, 1, kSeq2SeqMaxWidth));
  ATTN_S2S_TRY(dkv, f.integer("d_kv", 64, 1, kSeq2SeqMaxWidth));
  ATTN_S2S_TRY(ff, f.integer("d_ff", 2048, 1, 8 * kSeq2SeqMaxWidth));
  ATTN_S2S_TRY(encLayers, f.integer("num_layers", 6, 1, kSeq2SeqMaxLayers));
  ATTN_S2S_TRY(decLayers, f.integer("num_decoder_layers", encLayers, 1, kSeq2SeqMaxLayers));
  ATTN_S2S_TRY(heads, f.integer("num_heads", 8, 1, 4096));
  ATTN_S2S_TRY(buckets, f.integer("relative_attention_num_buckets", 32, 4, 1 << 16));
  ATTN_S2S_TRY(distance, f.integer("relative_attention_max_distance", 128, 1, kSeq2SeqMaxPositions));
  ATTN_S2S_TRY(eps, f.number("layer_norm_epsilon", 1e-6, 0.0, 1.0));
  ATTN_S2S_TRY(vocab, f.integer("vocab_size", 32128, 3, kSeq2SeqMaxVocab));
  ATTN_S2S_TRY(tie, f.boolean("tie_word_embeddings", true));
  if (int64_t{heads} * dkv > kSeq2SeqMaxWidth)
    return Error{fmt::format("{}: num_heads {} x d_kv {} is too wide", f.src, heads, dkv)};
  // _relative_position_bucket takes log(max_distance / max_exact), max_exact being a quarter
  // (encoder) or a half (decoder) of the buckets: it must be above 1.
  if (distance <= buckets / 2)
    return Error{
        fmt::format("{}: relative_attention_max_distance {} must exceed half of "
                    "relative_attention_num_buckets {}",
                    f.src, distance, buckets)};
  if (auto st = readT5FeedForward(f, c); !st) return st;
  ModelConfig& b = c.base;
  b.layers = encLayers, b.heads = b.kvHeads = heads, b.dModel = d, b.headDim = dkv, b.intermediate = ff;
  b.vocabSize = vocab, b.normEps = eps, b.tieWordEmbeddings = tie;
  b.attentionBias = b.outputBias = b.mlpBias = false;
  // Relative positions have no table to run past; a bound on the maps' memory instead.
  b.maxPositions = c.maxPositions = 4096;
  c.family = Seq2SeqFamily::T5;
  c.encoderLayers = encLayers, c.decoderLayers = decLayers, c.encoderHeads = c.decoderHeads = heads;
  c.encoderFfn = c.decoderFfn = ff, c.kvDim = dkv, c.positionOffset = 0;
  c.relativeBuckets = buckets, c.relativeMaxDistance = distance;
  c.tiedLmHead = tie;
  // T5ForConditionalGeneration rescales before the tied lm_head (Mesh TensorFlow's convention).
  c.lmHeadScale = tie ? static_cast<float>(1.0 / std::sqrt(static_cast<double>(d))) : 1.0f;
  GenerationSettings& g = c.generation;  // T5Config's: <pad> 0 starts decoding, </s> 1
  g.padTokenId = 0, g.eosTokenId = 1, g.decoderStartTokenId = 0;
  if (auto st = readGenerationFields(f, vocab, g); !st) return st;
  b.padTokenId = g.padTokenId;
  return okStatus();
}

}  // namespace

bool isEncoderDecoderType(std::string_view t) {
  for (std::string_view known : {"bart", "mbart", "marian", "t5", "mt5", "umt5", "pegasus", "m2m_100",
                                 "nllb-moe", "fsmt", "blenderbot", "blenderbot-small", "led", "prophetnet",
                                 "bigbird_pegasus", "longt5", "switch_transformers", "whisper"})
    if (t == known) return true;
  return false;
}

Result<Seq2SeqConfig> parseSeq2SeqConfig(std::string_view text, const std::string& src) {
  auto parsed = parseJsonText(text, src);
  if (!parsed) return parsed.error();
  const json& doc = *parsed;
  if (!doc.is_object()) return Error{src + ": expected a JSON object"};
  const Seq2SeqFields f{doc, src};
  ATTN_S2S_TRY(type, f.string("model_type", ""));
  if (type.empty()) return Error{src + ": missing 'model_type'"};
  Seq2SeqConfig c;
  c.base.modelType = type;
  if (type == "t5" || type == "mt5") {
    if (auto st = readT5Config(f, c); !st) return st.error();
    return c;
  }
  if (type != "bart" && type != "mbart" && type != "marian")
    return Error{fmt::format(
        "{}: model_type {} is not a supported encoder-decoder model (bart, mbart, marian, t5, mt5)", src,
        quoteForMessage(type))};
  if (auto st = readBartConfig(f, c); !st) return st.error();
  return c;
}

Status readGenerationConfig(std::string_view text, const std::string& src, int vocabSize,
                            GenerationSettings& g) {
  auto parsed = parseJsonText(text, src);
  if (!parsed) return parsed.error();
  if (!parsed->is_object()) return Error{src + ": expected a JSON object"};
  return readGenerationFields(Seq2SeqFields{*parsed, src}, vocabSize, g);
}

}  // namespace attn::models
