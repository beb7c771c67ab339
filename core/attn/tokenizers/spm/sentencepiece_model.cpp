#include "attn/tokenizers/spm/sentencepiece_model.h"

#include <fmt/format.h>
#include <sentencepiece_processor.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "attn/io/quote.h"
#include "attn/io/regular_file.h"
#include "attn/io/utf8.h"
#include "attn/tokenizers/spm/model_proto_scan.h"
#include "attn/tokenizers/spm/precompiled_charsmap.h"

namespace attn::models {

struct SentencePieceModel::Impl {
  sentencepiece::SentencePieceProcessor sp;
  std::string algorithm;
};

namespace {

std::string statusText(const sentencepiece::util::Status& st) {
  return quoteForMessage(st.error_message() ? st.error_message() : "unknown error", 200);
}

}  // namespace

SentencePieceModel::SentencePieceModel() = default;
SentencePieceModel::~SentencePieceModel() = default;
SentencePieceModel::SentencePieceModel(SentencePieceModel&&) noexcept = default;
SentencePieceModel& SentencePieceModel::operator=(SentencePieceModel&&) noexcept = default;

Result<SentencePieceModel> SentencePieceModel::fromFile(const std::string& path) {
  auto bytes = readRegularFile(path, file_limit::kSentencePieceModel);
  if (!bytes) return bytes.error();
  return fromBytes(*bytes, path);
}

namespace {

/// The charsmap's check (PrecompiledCharsmap::parse walks every node of its trie) once per
/// distinct blob in the process: Marian's source.spm and target.spm carry the same one. Blobs
/// are compared whole; only ones that passed are kept, at most a few.
Status checkCharsmapOnce(std::string_view map, const std::string& source) {
  if (map.empty()) return okStatus();
  static std::mutex mutex;
  static std::vector<std::string> passed;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (std::find(passed.begin(), passed.end(), map) != passed.end()) return okStatus();
  }
  if (auto checked = PrecompiledCharsmap::parse(map, source); !checked) return checked.error();
  const std::lock_guard<std::mutex> lock(mutex);
  if (passed.size() >= 4) passed.erase(passed.begin());
  passed.emplace_back(map);
  return okStatus();
}

}  // namespace

Result<SentencePieceModel> SentencePieceModel::fromBytes(std::string_view bytes, const std::string& source) {
  auto facts = scanModelProto(bytes, source);
  if (!facts) return facts.error();
  for (std::string_view map : facts->charsmaps)
    if (auto st = checkCharsmapOnce(map, source); !st) return st.error();
  if (facts->modelType < 1 || facts->modelType > 4)
    return Error{fmt::format("{}: unknown SentencePiece model type {}", source, facts->modelType)};
  auto impl = std::make_shared<Impl>();
  impl->algorithm = spmModelTypeName(facts->modelType);
  try {
    if (const auto st = impl->sp.LoadFromSerializedProto(bytes); !st.ok())
      return Error{fmt::format("{}: not a usable SentencePiece model ({})", source, statusText(st))};
  } catch (const std::exception& ex) {  // std::bad_alloc and the like from inside the library
    return Error{
        fmt::format("{}: not a usable SentencePiece model ({})", source, quoteForMessage(ex.what()))};
  }
  if (impl->sp.GetPieceSize() <= 0) return Error{source + ": the SentencePiece model has no pieces"};
  SentencePieceModel model;
  model.impl_ = std::move(impl);
  return model;
}

Result<std::vector<SpmPiece>> SentencePieceModel::encode(std::string_view text,
                                                         const std::string& source) const {
  if (!impl_) return Error{source + ": no SentencePiece model loaded"};
  if (const int64_t bad = firstInvalidUtf8(text); bad >= 0)
    return Error{fmt::format("{}: the text is not valid UTF-8 (byte offset {})", source, bad)};
  sentencepiece::ImmutableSentencePieceText spt;
  if (const auto st = impl_->sp.Encode(text, spt.mutable_proto()); !st.ok())
    return Error{fmt::format("{}: SentencePiece cannot encode the text ({})", source, statusText(st))};
  std::vector<SpmPiece> out;
  out.reserve(spt.pieces_size());
  for (size_t i = 0; i < spt.pieces_size(); ++i) {
    const auto p = spt.pieces(static_cast<int>(i));
    out.push_back({static_cast<int>(p.id()), p.piece(), std::min<size_t>(p.begin(), text.size()),
                   std::min<size_t>(p.end(), text.size())});
  }
  return out;
}

int SentencePieceModel::pieceCount() const { return impl_ ? impl_->sp.GetPieceSize() : 0; }

std::string SentencePieceModel::idToPiece(int id) const {
  // The library indexes its pieces without a range check.
  if (id < 0 || id >= pieceCount()) return {};
  return impl_->sp.IdToPiece(id);
}

std::optional<int> SentencePieceModel::pieceToId(const std::string& piece) const {
  if (!impl_) return std::nullopt;
  const int id = impl_->sp.PieceToId(piece);  // the unknown id for a piece it does not have
  if (id < 0 || id >= pieceCount() || impl_->sp.IdToPiece(id) != piece) return std::nullopt;
  return id;
}

bool SentencePieceModel::isControl(int id) const {
  return id >= 0 && id < pieceCount() && impl_->sp.IsControl(id);
}
bool SentencePieceModel::isByte(int id) const { return id >= 0 && id < pieceCount() && impl_->sp.IsByte(id); }
int SentencePieceModel::unkId() const { return impl_ ? impl_->sp.unk_id() : -1; }
int SentencePieceModel::bosId() const { return impl_ ? impl_->sp.bos_id() : -1; }
int SentencePieceModel::eosId() const { return impl_ ? impl_->sp.eos_id() : -1; }
int SentencePieceModel::padId() const { return impl_ ? impl_->sp.pad_id() : -1; }

const std::string& SentencePieceModel::algorithm() const {
  static const std::string none;
  return impl_ ? impl_->algorithm : none;
}

}  // namespace attn::models
