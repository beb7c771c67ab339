#include "attn/tokenizers/gguf/gguf_tokenizer.h"

#include <fmt/format.h>

#include <cstring>
#include <nlohmann/json.hpp>

#include "attn/io/quote.h"
#include "attn/tokenizers/hf/hf_tokenizer_impl.h"
#include "attn/tokenizers/spm/sentencepiece_model.h"
#include "attn/tokenizers/spm/spm_hf_tokenizer.h"

namespace attn::models::gguf {
namespace {

constexpr int kGgufControl = 3, kGgufUserDefined = 4,
              kGgufByte = 6;  // llama.cpp's token types (SentencePiece's)
constexpr int kGgufUnknown = 2;

// The protobuf wire format (protobuf.dev/programming-guides/encoding): varints,
// length-delimited fields and fixed32 floats, enough for a SentencePiece ModelProto.
void protoVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
void protoKey(std::string& out, int field, int wire) {
  protoVarint(out, static_cast<uint64_t>(field) << 3 | wire);
}
void protoInt(std::string& out, int field, int64_t v) {
  protoKey(out, field, 0);
  protoVarint(out, static_cast<uint64_t>(v));  // negative int32: ten bytes, sign-extended
}
void protoBytes(std::string& out, int field, std::string_view v) {
  protoKey(out, field, 2);
  protoVarint(out, v.size());
  out.append(v);
}
void protoFloat(std::string& out, int field, float v) {
  protoKey(out, field, 5);
  char b[4];
  std::memcpy(b, &v, 4);
  out.append(b, 4);
}

struct GgufVocab {
  std::vector<std::string_view> tokens;
  std::vector<double> scores, types;
  int bos = -1, eos = -1, unk = -1, pad = -1;
  bool addBos = false, addEos = false;
};

Result<int> ggufTokenId(const GgufFile& f, const char* k, int64_t n) {
  auto v = f.integer(k, -1, -1, int64_t{1} << 32);
  if (!v) return v.error();
  if (*v >= n) return Error{fmt::format("{}: {} is {}, past the {} tokens", f.path(), k, *v, n)};
  return static_cast<int>(*v);
}

Result<GgufVocab> readGgufVocab(const GgufFile& f, bool llama) {
  GgufVocab v;
  auto tokens = f.stringArray("tokenizer.ggml.tokens");
  if (!tokens) return tokens.error();
  v.tokens = std::move(*tokens);
  const auto n = static_cast<int64_t>(v.tokens.size());
  if (n == 0) return Error{f.path() + ": tokenizer.ggml.tokens is empty"};
  // Scores (0 when absent) and token types (1, normal, when absent), one per token.
  auto perToken = [&](const char* k, double fallback, std::vector<double>& out) -> Status {
    out.assign(static_cast<size_t>(n), fallback);
    if (!f.find(k)) return okStatus();
    auto a = f.numberArray(k);
    if (!a) return a.error();
    if (static_cast<int64_t>(a->size()) != n)
      return Error{fmt::format("{}: {} has {} entries for {} tokens", f.path(), k, a->size(), n)};
    out = std::move(*a);
    return okStatus();
  };
  if (auto st = perToken("tokenizer.ggml.scores", 0.0, v.scores); !st) return st.error();
  if (auto st = perToken("tokenizer.ggml.token_type", 1.0, v.types); !st) return st.error();
  int* ids[] = {&v.bos, &v.eos, &v.unk, &v.pad};
  const char* keys[] = {"tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id",
                        "tokenizer.ggml.unknown_token_id", "tokenizer.ggml.padding_token_id"};
  for (int i = 0; i < 4; ++i) {
    auto id = ggufTokenId(f, keys[i], n);
    if (!id) return id.error();
    *ids[i] = *id;
  }
  auto addBos = f.boolean("tokenizer.ggml.add_bos_token", llama);
  if (!addBos) return addBos.error();
  auto addEos = f.boolean("tokenizer.ggml.add_eos_token", false);
  if (!addEos) return addEos.error();
  v.addBos = *addBos && v.bos >= 0, v.addEos = *addEos && v.eos >= 0;
  if (*addBos && v.bos < 0)
    return Error{f.path() + ": tokenizer.ggml.add_bos_token is set but no bos_token_id"};
  return v;
}

/// The ids written in text as whole tokens: control and user-defined types, BOS / EOS / UNK.
std::vector<int> ggufSpecialIds(const GgufVocab& v) {
  std::vector<int> out;
  for (size_t i = 0; i < v.types.size(); ++i)
    if (v.types[i] == kGgufControl || v.types[i] == kGgufUserDefined) out.push_back(static_cast<int>(i));
  for (int id : {v.bos, v.eos, v.unk})
    if (id >= 0 && v.types[static_cast<size_t>(id)] != kGgufControl &&
        v.types[static_cast<size_t>(id)] != kGgufUserDefined)
      out.push_back(id);
  return out;
}

/// SentencePiece BPE (Kudo & Richardson 2018): the pieces merged by score, what
/// llama.cpp's llm_tokenizer_spm computes, as a ModelProto for libsentencepiece.
Result<HfTokenizer> ggufSpmTokenizer(const GgufFile& f) {
  auto v = readGgufVocab(f, true);
  if (!v) return v.error();
  auto prefix = f.boolean("tokenizer.ggml.add_space_prefix", true);
  if (!prefix) return prefix.error();
  std::string proto, piece;
  bool bytes = false;
  int unk = v->unk;
  for (size_t i = 0; i < v->tokens.size(); ++i) {
    int type = static_cast<int>(v->types[i]);
    if (type < 1 || type > 6) type = 1;
    if (static_cast<int>(i) == v->unk)
      type = kGgufUnknown;
    else if (type == kGgufUnknown && unk < 0)
      unk = static_cast<int>(i);
    else if (type == kGgufUnknown)
      type = kGgufControl;  // SentencePiece allows one unknown piece
    bytes = bytes || type == kGgufByte;
    piece.clear();
    protoBytes(piece, 1, v->tokens[i]);
    protoFloat(piece, 2, static_cast<float>(v->scores[i]));
    protoInt(piece, 3, type);
    protoBytes(proto, 1, piece);
  }
  if (unk < 0)
    return Error{f.path() + ": the llama tokenizer has no unknown token (tokenizer.ggml.unknown_token_id)"};
  std::string trainer, normalizer;
  protoInt(trainer, 3, 2);  // model_type BPE
  protoInt(trainer, 4, static_cast<int64_t>(v->tokens.size()));
  protoInt(trainer, 35, bytes ? 1 : 0);  // byte_fallback
  protoInt(trainer, 40, unk);
  protoInt(trainer, 41, v->bos);
  protoInt(trainer, 42, v->eos);
  protoInt(trainer, 43, v->pad);
  protoBytes(proto, 2, trainer);
  protoBytes(normalizer, 1, "identity");
  protoInt(normalizer, 3, *prefix ? 1 : 0);  // add_dummy_prefix
  protoInt(normalizer, 4, 0);                // remove_extra_whitespaces: llama.cpp keeps them
  protoInt(normalizer, 5, 1);                // escape_whitespaces: " " -> "▁"
  protoBytes(proto, 3, normalizer);
  const std::string source = f.path() + " (tokenizer.ggml.tokens)";
  auto spm = SentencePieceModel::fromBytes(proto, source);
  if (!spm) return spm.error();
  v->unk = unk;
  return sentencePieceTokenizerFromModel(std::move(*spm), ggufSpecialIds(*v), v->addBos ? v->bos : -1,
                                         v->addEos ? v->eos : -1, "SentencePiece BPE (GGUF)", source);
}

// The pre-tokenizer regexes of llama.cpp's pre-tokenizer types (llama-vocab.cpp), as the
// models' own tokenizer.json files write them.
constexpr const char* kGgufLlama3Split =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
    "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
constexpr const char* kGgufQwen2Split =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
    "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

Result<nlohmann::json> ggufPreTokenizer(const GgufFile& f, const std::string& pre,
                                        nlohmann::json& normalizer) {
  using nlohmann::json;
  const json byteLevel = {
      {"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", true}};
  json byteLevelNoRegex = byteLevel;
  byteLevelNoRegex["use_regex"] = false;
  auto split = [](const char* re) {
    return json{{"type", "Split"}, {"pattern", {{"Regex", re}}}, {"behavior", "Isolated"}, {"invert", false}};
  };
  if (pre == "gpt-2" || pre == "default") return byteLevel;
  if (pre == "llama-bpe" || pre == "llama3")
    return json{{"type", "Sequence"},
                {"pretokenizers", json::array({split(kGgufLlama3Split), byteLevelNoRegex})}};
  if (pre == "qwen2") {
    normalizer = {{"type", "NFC"}};
    return json{{"type", "Sequence"},
                {"pretokenizers", json::array({split(kGgufQwen2Split), byteLevelNoRegex})}};
  }
  if (pre == "smollm")
    return json{
        {"type", "Sequence"},
        {"pretokenizers", json::array({{{"type", "Digits"}, {"individual_digits", true}}, byteLevel})}};
  return Error{
      fmt::format("{}: tokenizer.ggml.pre is {}; AttnScope knows gpt-2, default, llama-bpe, qwen2 and "
                  "smollm",
                  f.path(), quoteForMessage(pre))};
}

/// The pipeline of a tokenizer.json around the GGUF vocabulary: added (special) tokens, the
/// pre-tokenizer tokenizer.ggml.pre names, BOS / EOS as TemplateProcessing adds them.
nlohmann::json ggufBpePipeline(const GgufVocab& v, nlohmann::json normalizer, nlohmann::json preTokenizer) {
  using nlohmann::json;
  json added = json::array();
  for (int id : ggufSpecialIds(v))
    added.push_back({{"id", id},
                     {"content", std::string(v.tokens[static_cast<size_t>(id)])},
                     {"single_word", false},
                     {"lstrip", false},
                     {"rstrip", false},
                     {"normalized", false},
                     {"special", true}});
  json single = json::array(), pair = json::array(), specials = json::object();
  auto sequence = [&](json& list, const char* which, int typeId) {
    auto add = [&](int id) {
      const std::string name(v.tokens[static_cast<size_t>(id)]);
      list.push_back({{"SpecialToken", {{"id", name}, {"type_id", typeId}}}});
      specials[name] = {{"id", name}, {"ids", {id}}, {"tokens", {name}}};
    };
    if (v.addBos) add(v.bos);
    list.push_back({{"Sequence", {{"id", which}, {"type_id", typeId}}}});
    if (v.addEos) add(v.eos);
  };
  sequence(single, "A", 0);
  sequence(pair, "A", 0);
  sequence(pair, "B", 1);
  return {
      {"version", "1.0"},
      {"added_tokens", added},
      {"normalizer", std::move(normalizer)},
      {"pre_tokenizer", std::move(preTokenizer)},
      {"post_processor",
       {{"type", "TemplateProcessing"}, {"single", single}, {"pair", pair}, {"special_tokens", specials}}},
      {"decoder", {{"type", "ByteLevel"}}},
      {"model", {{"type", "BPE"}}}};
}

/// Byte-level BPE (Radford et al. 2019, section 2.2) from the stored vocabulary and merges, built
/// straight from the file's arrays (a JSON text of Llama 3's 128k tokens and 280k merges took
/// longer to write and read back than the prompt's forward) inside the tokenizer.json pipeline.
Result<HfTokenizer> ggufBpeTokenizer(const GgufFile& f) {
  auto v = readGgufVocab(f, false);
  if (!v) return v.error();
  auto merges = f.stringArray("tokenizer.ggml.merges");
  if (!merges) return merges.error();
  auto pre = f.string("tokenizer.ggml.pre", std::string("default"));
  if (!pre) return pre.error();
  nlohmann::json normalizer = nullptr;
  auto preTok = ggufPreTokenizer(f, *pre, normalizer);
  if (!preTok) return preTok.error();
  const std::string source = f.path() + " (tokenizer.ggml.*)";
  BpeOptions options;
  options.ignoreMerges = *pre == "llama-bpe" || *pre == "llama3";
  auto model = makeBpeInIdOrder(v->tokens, *merges, std::move(options), source);
  if (!model) return model.error();
  return tokenizerAroundModel(ggufBpePipeline(*v, std::move(normalizer), std::move(*preTok)),
                              std::move(*model), source);
}

}  // namespace

Result<HfTokenizer> ggufTokenizer(const GgufFile& f) {
  auto model = f.string("tokenizer.ggml.model", std::nullopt);
  if (!model) return model.error();
  if (*model == "llama") return ggufSpmTokenizer(f);
  if (*model == "gpt2") return ggufBpeTokenizer(f);
  return Error{
      fmt::format("{}: tokenizer.ggml.model is {}; AttnScope reads llama (SentencePiece) and gpt2 "
                  "(byte-level BPE) vocabularies",
                  f.path(), quoteForMessage(*model))};
}

}  // namespace attn::models::gguf
