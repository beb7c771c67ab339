// HfTokenizer::fromFolder: tokenizer.json when the folder has one; otherwise the
// older files converted as transformers' BertTokenizerFast (vocab.txt),
// GPT2TokenizerFast and RobertaTokenizerFast (vocab.json + merges.txt) build them
// (transformers/convert_slow_tokenizer.py: BertConverter, GPT2Converter, RobertaConverter),
// or a SentencePiece model (spm/spm_hf_tokenizer.h).
#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "attn/io/json_document.h"
#include "attn/io/quote.h"
#include "attn/io/regular_file.h"
#include "attn/io/text_file.h"
#include "attn/models/model_paths.h"
#include "attn/tokenizers/bpe.h"
#include "attn/tokenizers/hf/hf_json.h"
#include "attn/tokenizers/hf/hf_tokenizer.h"
#include "attn/tokenizers/hf/hf_tokenizer_impl.h"
#include "attn/tokenizers/spm/spm_hf_tokenizer.h"

namespace attn::models {
namespace {

namespace fs = std::filesystem;

Result<std::unordered_map<std::string, int>> readVocabTxt(const std::string& path) {
  auto text = readUtf8TextFile(path, file_limit::kVocabulary);
  if (!text) return text.error();
  std::unordered_map<std::string, int> vocab;
  std::string_view t = *text;
  int index = 0;
  size_t start = 0;
  while (start < t.size()) {
    size_t end = t.find('\n', start);
    if (end == std::string_view::npos) end = t.size();
    std::string line(t.substr(start, end - start));
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
    vocab[line] = index++;  // a later duplicate wins, as in load_vocab's dict
    start = end + 1;
  }
  if (vocab.empty()) return Error{path + ": the vocabulary is empty"};
  return vocab;
}

Result<HfTokenizer> fromVocabTxt(const std::string& dir, const std::string& path) {
  auto config = readTokenizerConfig(dir);
  if (!config) return config.error();
  auto vocab = readVocabTxt(path);
  if (!vocab) return vocab.error();
  const bool lower = hfjson::boolean(*config, "do_lower_case", true);
  const bool chinese = hfjson::boolean(*config, "tokenize_chinese_chars", true);
  const auto sa = config->find("strip_accents");
  const bool strip = (sa == config->end() || !sa->is_boolean()) ? lower : sa->get<bool>();
  const std::string unk = configTokenName(*config, "unk_token", "[UNK]"),
                    sep = configTokenName(*config, "sep_token", "[SEP]"),
                    cls = configTokenName(*config, "cls_token", "[CLS]"),
                    pad = configTokenName(*config, "pad_token", "[PAD]"),
                    mask = configTokenName(*config, "mask_token", "[MASK]");
  for (const auto& needed : {unk, sep, cls})
    if (!vocab->count(needed))
      return Error{fmt::format("{}: the vocabulary has no {} token", path, quoteForMessage(needed))};
  return makeBertWordPiece(*vocab, lower, strip, chinese, unk, "##", sep, cls, {unk, sep, pad, cls, mask}, path, mask);
}

Result<HfTokenizer> fromVocabJson(const std::string& dir, const std::string& vocabPath, const std::string& mergesPath,
                                  const std::string& modelType) {
  auto config = readTokenizerConfig(dir);
  if (!config) return config.error();
  auto vtext = readUtf8TextFile(vocabPath, file_limit::kVocabulary);
  if (!vtext) return vtext.error();
  auto vocabResult = parseVocabJson(*vtext, vocabPath);
  if (!vocabResult) return vocabResult.error();
  const std::unordered_map<std::string, int>& vocab = *vocabResult;
  auto mtext = readUtf8TextFile(mergesPath, file_limit::kVocabulary);
  if (!mtext) return mtext.error();
  auto merges = parseMergesTxt(*mtext, mergesPath);
  if (!merges) return merges.error();
  auto impl = std::make_shared<HfTokenizer::Impl>();
  auto model = makeBpe(vocab, *merges, BpeOptions{}, mergesPath);
  if (!model) return model.error();
  impl->model = std::move(*model);
  impl->preTokenizer = byteLevelPreTokenizer(hfjson::boolean(*config, "add_prefix_space", false), true);
  impl->kind = HfKind::ByteLevelBpe;
  std::vector<AddedToken> added;
  auto addSpecial = [&](const std::string& name, bool lstrip) {
    if (!vocab.count(name)) return;
    for (const auto& a : added)
      if (a.content == name) return;
    added.push_back({name, vocab.at(name), true, false, lstrip, false, false});
  };
  if (modelType == "roberta" || modelType == "bart") {  // RobertaConverter; BART ships the same files
    const std::string bos = configTokenName(*config, "bos_token", "<s>"),
                      eos = configTokenName(*config, "eos_token", "</s>"),
                      cls = configTokenName(*config, "cls_token", "<s>"),
                      sep = configTokenName(*config, "sep_token", "</s>");
    for (const auto& needed : {cls, sep})
      if (!vocab.count(needed))
        return Error{fmt::format("{}: the vocabulary has no {} token", vocabPath, quoteForMessage(needed))};
    impl->post = PostProcessor::roberta(cls, vocab.at(cls), sep, vocab.at(sep));
    impl->post.addTrim(hfjson::boolean(*config, "add_prefix_space", false));  // trim_offsets=True
    addSpecial(bos, false);
    addSpecial(configTokenName(*config, "pad_token", "<pad>"), false);
    addSpecial(eos, false);
    addSpecial(configTokenName(*config, "unk_token", "<unk>"), false);
    addSpecial(configTokenName(*config, "mask_token", "<mask>"), true);
    impl->maskToken = configTokenName(*config, "mask_token", "<mask>");
  } else {
    for (const char* key : {"bos_token", "eos_token", "unk_token", "pad_token"})
      addSpecial(configTokenName(*config, key, "<|endoftext|>"), false);
  }
  impl->setAddedTokens(std::move(added));
  return makeHfTokenizer(std::move(impl));
}

}  // namespace

bool fileExists(const std::string& path) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(path, ec));
}

Result<nlohmann::json> readTokenizerConfig(const std::string& dir) {
  nlohmann::json merged = nlohmann::json::object();
  for (const char* name : {"special_tokens_map.json", "tokenizer_config.json"}) {
    const std::string path = (fs::path(dir) / name).string();
    if (!fileExists(path)) continue;
    if (auto st = checkModelFilePath(dir, path); !st) return st.error();
    auto doc = readJsonFile(path, file_limit::kTokenizerConfig);
    if (!doc) return doc.error();
    if (!doc->is_object()) return Error{path + ": not a JSON object"};
    for (auto& [k, v] : doc->items()) merged[k] = std::move(v);
  }
  return merged;
}

std::string configTokenName(const nlohmann::json& config, const char* key, const std::string& fallback) {
  const auto it = config.find(key);
  if (it == config.end()) return fallback;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_object()) return hfjson::str(*it, "content", fallback);
  return fallback;
}

Result<HfTokenizer> makeBertWordPiece(const std::unordered_map<std::string, int>& vocab, bool lowercase,
                                      bool stripAccents, bool chineseChars, const std::string& unk,
                                      const std::string& prefix, const std::string& sep, const std::string& cls,
                                      const std::vector<std::string>& specials, const std::string& source,
                                      const std::string& maskToken) {
  auto impl = std::make_shared<HfTokenizer::Impl>();
  impl->maskToken = maskToken;
  auto model = makeWordPiece(vocab, unk, prefix, 100, source);
  if (!model) return model.error();
  impl->model = std::move(*model);
  impl->normalizer = bertNormalizer(true, chineseChars, stripAccents, lowercase);
  impl->preTokenizer = bertPreTokenizer();
  const auto s = vocab.find(sep), c = vocab.find(cls);
  if (s != vocab.end() && c != vocab.end()) impl->post = PostProcessor::bert(cls, c->second, sep, s->second);
  impl->kind = HfKind::WordPiece;
  std::vector<AddedToken> added;
  for (const auto& name : specials) {
    bool seen = false;
    for (const auto& a : added) seen = seen || a.content == name;
    if (!seen && vocab.count(name)) added.push_back({name, vocab.at(name), true, false, false, false, false});
  }
  impl->setAddedTokens(std::move(added));
  return makeHfTokenizer(std::move(impl));
}

Result<HfTokenizer> HfTokenizer::fromFolder(const std::string& dir, const std::string& modelType) {
  try {
    const std::string json = (fs::path(dir) / "tokenizer.json").string();
    if (fileExists(json)) {
      if (auto st = checkModelFilePath(dir, json); !st) return st.error();
      auto text = readUtf8TextFile(json, file_limit::kTokenizerJson);
      if (!text) return text.error();
      return fromTokenizerJson(*text, json);
    }
    const std::string vocabTxt = (fs::path(dir) / "vocab.txt").string();
    if (fileExists(vocabTxt)) {
      if (auto st = checkModelFilePath(dir, vocabTxt); !st) return st.error();
      return fromVocabTxt(dir, vocabTxt);
    }
    const std::string vocabJson = (fs::path(dir) / "vocab.json").string();
    const std::string merges = (fs::path(dir) / "merges.txt").string();
    if (fileExists(vocabJson) && fileExists(merges)) {
      for (const auto& f : {vocabJson, merges})
        if (auto st = checkModelFilePath(dir, f); !st) return st.error();
      return fromVocabJson(dir, vocabJson, merges, modelType);
    }
    for (const char* name : kSentencePieceFileNames) {
      const std::string model = (fs::path(dir) / name).string();
      if (!fileExists(model)) continue;
      if (auto st = checkModelFilePath(dir, model); !st) return st.error();
      return sentencePieceTokenizer(dir, model, modelType);
    }
    if (fileExists(vocabJson)) return Error{merges + ": missing (vocab.json needs merges.txt beside it)"};
    return Error{dir +
                 ": no tokenizer.json, vocab.txt, vocab.json + merges.txt or SentencePiece model "
                 "(tokenizer.model, spiece.model, source.spm) in the folder"};
  } catch (const std::exception& ex) {
    return Error{fmt::format("{}: cannot read the tokenizer files ({})", dir, quoteForMessage(ex.what()))};
  }
}

}  // namespace attn::models
