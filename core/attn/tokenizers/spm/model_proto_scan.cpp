#include "attn/tokenizers/spm/model_proto_scan.h"

#include <fmt/format.h>

#include <cstdint>
#include <optional>

namespace attn::models {
namespace {

// sentencepiece_model.proto field numbers.
constexpr uint64_t kTrainerSpec = 2, kNormalizerSpec = 3, kDenormalizerSpec = 5;
constexpr uint64_t kTrainerModelType = 3, kPrecompiledCharsmap = 2;

struct WireField {
  uint64_t number;
  int wireType;
  uint64_t varint;        // wire type 0
  std::string_view data;  // wire type 2
};

class WireReader {
 public:
  WireReader(std::string_view bytes, size_t base) : bytes_(bytes), base_(base) {}
  bool done() const { return at_ >= bytes_.size(); }
  size_t offset() const { return base_ + at_; }
  size_t dataOffset(const WireField& f) const {
    return base_ + static_cast<size_t>(f.data.data() - bytes_.data());
  }

  /// The next field, or nullopt (with at_ left at the faulty byte) on malformed input.
  std::optional<WireField> next() {
    const auto key = varint();
    if (!key || (*key >> 3) == 0) return std::nullopt;
    WireField f{*key >> 3, static_cast<int>(*key & 7), 0, {}};
    switch (f.wireType) {
      case 0: {
        const auto v = varint();
        if (!v) return std::nullopt;
        f.varint = *v;
        return f;
      }
      case 1:
        return skip(8) ? std::optional<WireField>(f) : std::nullopt;
      case 5:
        return skip(4) ? std::optional<WireField>(f) : std::nullopt;
      case 2: {
        const auto len = varint();
        if (!len || *len > bytes_.size() - at_) return std::nullopt;
        f.data = bytes_.substr(at_, static_cast<size_t>(*len));
        at_ += static_cast<size_t>(*len);
        return f;
      }
      default:
        return std::nullopt;  // groups (3, 4) and 6, 7: no SentencePiece field uses them
    }
  }

 private:
  std::optional<uint64_t> varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64 && at_ < bytes_.size(); shift += 7) {
      const auto b = static_cast<unsigned char>(bytes_[at_++]);
      v |= static_cast<uint64_t>(b & 0x7F) << shift;
      if ((b & 0x80) == 0) return v;
    }
    return std::nullopt;
  }
  bool skip(size_t n) {
    if (n > bytes_.size() - at_) return false;
    at_ += n;
    return true;
  }

  std::string_view bytes_;
  size_t base_;
  size_t at_ = 0;
};

Error malformedProto(const std::string& source, size_t offset) {
  return Error{fmt::format("{}: not a SentencePiece model (malformed protobuf at byte {})", source, offset)};
}

/// Calls `onField` for each field of the message in `bytes` (at `base` in the file).
template <class OnField>
Status forEachField(std::string_view bytes, size_t base, const std::string& source, OnField onField) {
  WireReader r(bytes, base);
  while (!r.done()) {
    const size_t at = r.offset();
    const auto f = r.next();
    if (!f) return malformedProto(source, at);
    if (auto st = onField(*f, r); !st) return st;
  }
  return okStatus();
}

}  // namespace

Result<SpmProtoFacts> scanModelProto(std::string_view bytes, const std::string& source) {
  SpmProtoFacts facts;
  bool sawPieces = false;
  auto st = forEachField(bytes, 0, source, [&](const WireField& f, const WireReader& r) -> Status {
    if (f.number == 1 && f.wireType == 2) sawPieces = true;
    if (f.wireType != 2 ||
        (f.number != kTrainerSpec && f.number != kNormalizerSpec && f.number != kDenormalizerSpec))
      return okStatus();
    return forEachField(
        f.data, r.dataOffset(f), source, [&](const WireField& g, const WireReader&) -> Status {
          if (f.number == kTrainerSpec && g.number == kTrainerModelType && g.wireType == 0)
            facts.modelType = static_cast<int>(g.varint & 0x7FFFFFFF);
          else if (f.number != kTrainerSpec && g.number == kPrecompiledCharsmap && g.wireType == 2)
            facts.charsmaps.push_back(g.data);
          return okStatus();
        });
  });
  if (!st) return st.error();
  if (!sawPieces) return Error{source + ": not a SentencePiece model (no pieces)"};
  return facts;
}

std::string spmModelTypeName(int modelType) {
  switch (modelType) {
    case 1:
      return "Unigram";
    case 2:
      return "BPE";
    case 3:
      return "word";
    case 4:
      return "char";
    default:
      return fmt::format("type {}", modelType);
  }
}

}  // namespace attn::models
