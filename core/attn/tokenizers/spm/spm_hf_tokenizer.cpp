#include "attn/tokenizers/spm/spm_hf_tokenizer.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <unordered_map>

#include "attn/io/quote.h"
#include "attn/io/regular_file.h"
#include "attn/io/text_file.h"
#include "attn/models/model_paths.h"
#include "attn/tokenizers/bpe.h"
#include "attn/tokenizers/hf/hf_json.h"
#include "attn/tokenizers/hf/hf_tokenizer_impl.h"
#include "attn/tokenizers/spm/sentencepiece_model.h"

namespace attn::models {
namespace {

namespace fs = std::filesystem;

/// Marian's vocab.json: piece -> id, and id -> piece for decoding (two pieces on one id: the
/// smaller, always the same one). Ids are dense in real files; a file with far larger ids than
/// entries gets a hash map instead of a table of that size.
struct MarianVocab {
  std::unordered_map<std::string, int> ids;
  std::vector<const std::string*> dense;  // by id (null: none), when dense
  std::unordered_map<int, const std::string*> sparse;
  int limit = 0;

  explicit MarianVocab(std::unordered_map<std::string, int> parsed) : ids(std::move(parsed)) {
    for (const auto& entry : ids) limit = std::max(limit, entry.second + 1);
    const bool isDense = static_cast<size_t>(limit) <= 4 * ids.size() + 1024;
    if (isDense) dense.assign(static_cast<size_t>(limit), nullptr);
    for (const auto& [piece, id] : ids) {
      const std::string*& slot = isDense ? dense[static_cast<size_t>(id)] : sparse[id];
      if (slot == nullptr || piece < *slot) slot = &piece;
    }
  }
  const std::string* piece(int id) const {
    if (!dense.empty()) return id >= 0 && id < limit ? dense[static_cast<size_t>(id)] : nullptr;
    const auto it = sparse.find(id);
    return it == sparse.end() ? nullptr : it->second;
  }
};

/// The pieces of a SentencePiece model as an HfModel: each piece of text between
/// added tokens goes to the library whole (it normalizes and splits on its own).
/// With `vocab` (Marian's vocab.json) the ids are that file's, the unknown id
/// for a piece it lacks, as MarianTokenizer._convert_token_to_id.
class SpmHfModel final : public HfModel {
 public:
  SpmHfModel(SentencePieceModel model, std::shared_ptr<const MarianVocab> vocab, int vocabUnk)
      : model_(std::move(model)), vocab_(std::move(vocab)), vocabUnk_(vocabUnk) {
    limit_ = vocab_ ? vocab_->limit : model_.pieceCount();
  }

  void tokenize(const std::string& word, std::vector<ModelToken>& out) const override {
    auto pieces = model_.encode(word, "the text");
    if (!pieces) throw std::runtime_error(pieces.error().message);
    for (auto& p : *pieces) {
      int id = p.id;
      if (vocab_) {
        const auto it = vocab_->ids.find(p.piece);
        id = it == vocab_->ids.end() ? vocabUnk_ : it->second;
      }
      out.push_back({id, std::move(p.piece), p.begin, p.end});  // the library's own byte offsets
    }
  }
  std::optional<int> tokenToId(const std::string& token) const override {
    if (!vocab_) return model_.pieceToId(token);
    const auto it = vocab_->ids.find(token);
    return it == vocab_->ids.end() ? std::nullopt : std::optional<int>(it->second);
  }
  std::string idToToken(int id) const override {
    if (!vocab_) return model_.idToPiece(id);
    const std::string* piece = vocab_->piece(id);
    return piece ? *piece : std::string();
  }
  int idLimit() const override { return limit_; }
  bool isWordPiece() const override { return false; }

  const SentencePieceModel& model() const { return model_; }

 private:
  SentencePieceModel model_;
  std::shared_ptr<const MarianVocab> vocab_;  // null: the model's own ids
  int vocabUnk_ = 0;
  int limit_ = 0;
};

bool appendsEosOnly(const std::string& modelType) {
  return modelType == "t5" || modelType == "mt5" || modelType == "umt5" || modelType == "marian";
}

/// "[BOS] $A [EOS]" and "[BOS] $A [EOS] [BOS] $B [EOS]" (each special only where
/// the model adds it), as build_inputs_with_special_tokens of the slow tokenizers.
Result<PostProcessor> specialTokenTemplate(const std::string& bos, int bosId, const std::string& eos,
                                           int eosId, int pairTypeId, const std::string& source) {
  nlohmann::json single = nlohmann::json::array(), pair = nlohmann::json::array(),
                 specials = nlohmann::json::object();
  auto add = [&](nlohmann::json& list, const std::string& name, int id, int typeId) {
    list.push_back({{"SpecialToken", {{"id", name}, {"type_id", typeId}}}});
    specials[name] = {{"id", name}, {"ids", {id}}, {"tokens", {name}}};
  };
  auto sequence = [&](nlohmann::json& list, const char* which, int typeId) {
    if (bosId >= 0) add(list, bos, bosId, typeId);
    list.push_back({{"Sequence", {{"id", which}, {"type_id", typeId}}}});
    if (eosId >= 0) add(list, eos, eosId, typeId);
  };
  sequence(single, "A", 0);
  sequence(pair, "A", 0);
  sequence(pair, "B", pairTypeId);
  const nlohmann::json j = {
      {"type", "TemplateProcessing"}, {"single", single}, {"pair", pair}, {"special_tokens", specials}};
  return PostProcessor::parse(j, source);
}

/// Marian's vocab.json beside source.spm / target.spm; null when the folder has none. The
/// source and the target tokenizer read the same file: a text equal to the last one parsed
/// (compared whole, so an edited file is parsed again) shares its maps.
Result<std::shared_ptr<const MarianVocab>> marianVocab(const std::string& dir, const std::string& modelPath) {
  const std::string file = fs::path(modelPath).filename().string();
  if (file != "source.spm" && file != "target.spm") return std::shared_ptr<const MarianVocab>();
  const std::string path = (fs::path(dir) / "vocab.json").string();
  if (!fileExists(path)) return std::shared_ptr<const MarianVocab>();
  if (auto st = checkModelFilePath(dir, path); !st) return st.error();
  auto text = readUtf8TextFile(path, file_limit::kVocabulary);
  if (!text) return text.error();
  static std::mutex lastMutex;
  static std::string lastText;
  static std::weak_ptr<const MarianVocab> lastVocab;
  {
    const std::lock_guard<std::mutex> lock(lastMutex);
    if (auto shared = lastVocab.lock(); shared && lastText == *text) return shared;
    if (lastVocab.expired()) lastText.clear();
  }
  auto parsed = parseVocabJson(*text, path);
  if (!parsed) return parsed.error();
  if (parsed->empty()) return std::shared_ptr<const MarianVocab>();  // {}: the model's own ids
  auto vocab = std::make_shared<const MarianVocab>(std::move(*parsed));
  const std::lock_guard<std::mutex> lock(lastMutex);
  lastText = std::move(*text);
  lastVocab = vocab;
  return std::shared_ptr<const MarianVocab>(vocab);
}

}  // namespace

Result<HfTokenizer> sentencePieceTokenizer(const std::string& dir, const std::string& modelPath,
                                           const std::string& modelType) {
  auto config = readTokenizerConfig(dir);
  if (!config) return config.error();
  auto spm = SentencePieceModel::fromFile(modelPath);
  if (!spm) return spm.error();
  auto vocab = marianVocab(dir, modelPath);
  if (!vocab) return vocab.error();
  const std::string vocabPath = (fs::path(dir) / "vocab.json").string();
  const std::string unkName = configTokenName(*config, "unk_token", spm->idToPiece(spm->unkId()));
  int vocabUnk = 0;
  if (*vocab) {
    const auto it = (*vocab)->ids.find(unkName);
    if (it == (*vocab)->ids.end())
      return Error{
          fmt::format("{}: the vocabulary has no unknown token {}", vocabPath, quoteForMessage(unkName))};
    vocabUnk = it->second;
  }
  auto model = std::make_unique<SpmHfModel>(std::move(*spm), std::move(*vocab), vocabUnk);
  const SentencePieceModel& sp = model->model();
  auto impl = std::make_shared<HfTokenizer::Impl>();
  impl->kind = HfKind::SentencePieceBpe;  // "▁" and <0xNN> pieces: shown as SentencePiece BPE's
  impl->kindLabel = "SentencePiece " + sp.algorithm() + " (" + fs::path(modelPath).filename().string() + ")";

  // The special pieces by name (the config may rename them), their ids from the model.
  const bool eosOnly = appendsEosOnly(modelType);
  const bool addBos = hfjson::boolean(*config, "add_bos_token", !eosOnly && sp.bosId() >= 0);
  const bool addEos = hfjson::boolean(*config, "add_eos_token", eosOnly && sp.eosId() >= 0);
  const std::string bos = configTokenName(*config, "bos_token", sp.idToPiece(sp.bosId()));
  const std::string eos = configTokenName(*config, "eos_token", sp.idToPiece(sp.eosId()));
  const std::string pad = configTokenName(*config, "pad_token", sp.idToPiece(sp.padId()));
  std::vector<AddedToken> added;
  for (const std::string& name : {unkName, bos, eos, pad}) {
    if (name.empty()) continue;
    bool seen = false;
    for (const auto& a : added) seen = seen || a.content == name;
    if (const auto id = model->tokenToId(name); id && !seen)
      added.push_back({name, *id, true, false, false, false, false});
  }
  const auto bosId = model->tokenToId(bos), eosId = model->tokenToId(eos);
  if (addBos && !bosId)
    return Error{fmt::format("{}: the model has no BOS piece {}", modelPath, quoteForMessage(bos))};
  if (addEos && !eosId)
    return Error{fmt::format("{}: the model has no EOS piece {}", modelPath, quoteForMessage(eos))};
  auto post =
      specialTokenTemplate(bos, addBos ? *bosId : -1, eos, addEos ? *eosId : -1, eosOnly ? 0 : 1, modelPath);
  if (!post) return post.error();
  impl->post = std::move(*post);
  impl->model = std::move(model);
  impl->setAddedTokens(std::move(added));
  return makeHfTokenizer(std::move(impl));
}

Result<HfTokenizer> sentencePieceTokenizerFromModel(SentencePieceModel spm, const std::vector<int>& specials,
                                                    int bosId, int eosId, const std::string& label,
                                                    const std::string& source) {
  auto model = std::make_unique<SpmHfModel>(std::move(spm), nullptr, 0);
  const SentencePieceModel& sp = model->model();
  auto impl = std::make_shared<HfTokenizer::Impl>();
  impl->kind = HfKind::SentencePieceBpe;
  impl->kindLabel = label;
  std::vector<AddedToken> added;
  for (int id : specials)
    if (const std::string name = sp.idToPiece(id); !name.empty())
      added.push_back({name, id, true, false, false, false, false});
  auto post = specialTokenTemplate(sp.idToPiece(bosId), bosId, sp.idToPiece(eosId), eosId, 1, source);
  if (!post) return post.error();
  impl->post = std::move(*post);
  impl->model = std::move(model);
  impl->setAddedTokens(std::move(added));
  return makeHfTokenizer(std::move(impl));
}

}  // namespace attn::models
