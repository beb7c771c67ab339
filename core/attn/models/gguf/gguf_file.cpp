#include "attn/models/gguf/gguf_file.h"

#include <fmt/format.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <numeric>

#include "attn/io/quote.h"
#include "attn/io/regular_file.h"
#include "attn/models/gguf/ggml_types.h"
#include "attn/models/safetensors_mmap.h"
#include "attn/models/staged_reads.h"

namespace attn::models::gguf {

namespace {

constexpr int kMaxArrayDepth = 8;         // nesting no real file uses past 1; keeps recursion bounded
constexpr uint64_t kMaxNameBytes = 1024;  // ggml refuses tensor names of 64 bytes or more
constexpr uint64_t kMaxAlignment = uint64_t{1} << 30;
constexpr int64_t kMaxElements = int64_t{1} << 50;

/// Fixed size of a scalar type in bytes; 0 for strings and arrays.
uint64_t scalarSize(ValueType t) {
  switch (t) {
    case ValueType::UInt8:
    case ValueType::Int8:
    case ValueType::Bool:
      return 1;
    case ValueType::UInt16:
    case ValueType::Int16:
      return 2;
    case ValueType::UInt32:
    case ValueType::Int32:
    case ValueType::Float32:
      return 4;
    case ValueType::UInt64:
    case ValueType::Int64:
    case ValueType::Float64:
      return 8;
    default:
      return 0;
  }
}

/// The fewest bytes a value of the type takes (a string's length, an array's type and count).
uint64_t minimumSize(ValueType t) {
  if (t == ValueType::String) return 8;
  if (t == ValueType::Array) return 12;
  return scalarSize(t);
}

bool knownValueType(uint32_t t) { return t <= static_cast<uint32_t>(ValueType::Float64); }

}  // namespace

std::string_view valueTypeName(ValueType t) {
  static constexpr std::string_view kNames[] = {"uint8",  "int8",    "uint16", "int16",  "uint32",
                                                "int32",  "float32", "bool",   "string", "array",
                                                "uint64", "int64",   "float64"};
  const auto i = static_cast<uint32_t>(t);
  return i < std::size(kNames) ? kNames[i] : "unknown";
}

/// Reads the file front to back; the first fault is kept and every later read is a no-op.
class GgufParser {
 public:
  explicit GgufParser(GgufFile& f) : f_(f), b_(f.bytes_) {}

  Status run() {
    if (!header()) return fail();
    for (uint64_t i = 0; i < kvCount_; ++i)
      if (!keyValue()) return fail();
    if (!alignment()) return fail();
    for (uint64_t i = 0; i < tensorCount_; ++i)
      if (!tensorInfo()) return fail();
    if (!placeData()) return fail();
    return okStatus();
  }

 private:
  bool error(std::string message) {
    if (error_.empty()) error_ = fmt::format("{}: {}", f_.path_, message);
    return false;
  }
  Status fail() const { return Error{error_}; }
  uint64_t left() const { return b_.size() - pos_; }

  bool take(uint64_t n, std::string_view what, std::string_view* out) {
    if (n > left())
      return error(fmt::format("truncated at byte {}: {} needs {} bytes, {} left", pos_, what, n, left()));
    if (out) *out = b_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  bool u32(uint32_t& v, std::string_view what) {
    std::string_view s;
    if (!take(4, what, &s)) return false;
    std::memcpy(&v, s.data(), 4);  // GGUF is little-endian; so are the hosts this builds for
    return true;
  }
  bool u64(uint64_t& v, std::string_view what) {
    std::string_view s;
    if (!take(8, what, &s)) return false;
    std::memcpy(&v, s.data(), 8);
    return true;
  }
  bool str(std::string_view& s, std::string_view what, uint64_t maxBytes = UINT64_MAX) {
    uint64_t n = 0;
    const uint64_t at = pos_;
    if (!u64(n, what)) return false;
    if (n > maxBytes)
      return error(fmt::format("{} at byte {} is {} bytes long, at most {} allowed", what, at, n, maxBytes));
    if (n > left())
      return error(
          fmt::format("{} at byte {} claims {} bytes but only {} are left in the file", what, at, n, left()));
    return take(n, what, &s);
  }

  bool header() {
    if (b_.size() < 4 || std::memcmp(b_.data(), "GGUF", 4) != 0)
      return error(fmt::format("not a GGUF file (it does not start with the bytes 'GGUF', but {})",
                               quoteForMessage(b_.substr(0, 4))));
    pos_ = 4;
    uint32_t v = 0;
    if (!u32(v, "the version")) return false;
    const uint32_t swapped = __builtin_bswap32(v);
    if (swapped == 2 || swapped == 3)
      return error("a big-endian GGUF file; only little-endian files are read");
    if (v == 1)
      return error(
          "GGUF version 1 (32-bit counts, before August 2023) is not supported; versions 2 and 3 are");
    if (v != 2 && v != 3)
      return error(fmt::format("GGUF version {} is not supported; versions 2 and 3 are", v));
    f_.version_ = v;
    if (!u64(tensorCount_, "the tensor count") || !u64(kvCount_, "the metadata count")) return false;
    // Bounded by the bytes left before anything is reserved: a key/value takes 13 bytes at
    // least, a tensor info 24.
    if (kvCount_ > left() / 13)
      return error(fmt::format("the header claims {} metadata entries, more than the {} bytes left can hold",
                               kvCount_, left()));
    if (tensorCount_ > left() / 24)
      return error(fmt::format("the header claims {} tensors, more than the {} bytes left can hold",
                               tensorCount_, left()));
    f_.metadata_.reserve(kvCount_);
    f_.tensors_.reserve(tensorCount_);
    return true;
  }

  /// Skips (and checks) one value of type t; `what` names it in errors.
  bool value(ValueType t, MetaValue& out, const std::string& what, int depth) {
    out.type = t;
    const uint64_t start = pos_;
    if (t == ValueType::String) return str(out.bytes, what);
    if (t != ValueType::Array) {
      if (!take(scalarSize(t), what, &out.bytes)) return false;
      if (t == ValueType::Bool && static_cast<uint8_t>(out.bytes[0]) > 1)
        return error(fmt::format("{} at byte {} is a bool of value {}, not 0 or 1", what, start,
                                 static_cast<unsigned>(static_cast<uint8_t>(out.bytes[0]))));
      return true;
    }
    if (depth >= kMaxArrayDepth)
      return error(fmt::format("{}: arrays nested deeper than {}", what, kMaxArrayDepth));
    uint32_t et = 0;
    if (!u32(et, what + "'s element type")) return false;
    if (!knownValueType(et))
      return error(fmt::format("{} at byte {}: unknown array element type {}", what, start, et));
    out.elementType = static_cast<ValueType>(et);
    if (!u64(out.count, what + "'s length")) return false;
    const uint64_t each = minimumSize(out.elementType);
    if (out.count > left() / each)
      return error(
          fmt::format("{} at byte {} claims {} elements of type {}, more than the {} bytes left can hold",
                      what, start, out.count, valueTypeName(out.elementType), left()));
    const uint64_t first = pos_;
    if (const uint64_t size = scalarSize(out.elementType)) {
      if (!take(out.count * size, what, nullptr)) return false;
      if (out.elementType == ValueType::Bool)
        for (uint64_t i = 0; i < out.count; ++i)
          if (static_cast<uint8_t>(b_[first + i]) > 1)
            return error(fmt::format("{}: element {} is a bool of value {}, not 0 or 1", what, i,
                                     static_cast<unsigned>(static_cast<uint8_t>(b_[first + i]))));
    } else if (out.elementType == ValueType::String) {
      // A vocabulary holds 10^5 strings: their names are formatted only for an error.
      for (uint64_t i = 0; i < out.count; ++i) {
        uint64_t n = 0;
        if (left() >= 8) std::memcpy(&n, b_.data() + pos_, 8);
        if (left() < 8 || n > left() - 8) {  // the checked read below names the fault
          MetaValue element;
          return value(ValueType::String, element, fmt::format("{}[{}]", what, i), depth + 1);
        }
        pos_ += 8 + n;
      }
    } else {
      MetaValue element;
      for (uint64_t i = 0; i < out.count; ++i)
        if (!value(out.elementType, element, fmt::format("{}[{}]", what, i), depth + 1)) return false;
    }
    out.bytes = b_.substr(first, pos_ - first);
    return true;
  }

  bool keyValue() {
    std::string_view key;
    if (!str(key, fmt::format("metadata key {}", f_.metadata_.size()), 65535)) return false;
    const std::string name = fmt::format("metadata {}", quoteForMessage(key));
    uint32_t t = 0;
    if (!u32(t, name + "'s type")) return false;
    if (!knownValueType(t)) return error(fmt::format("{} has unknown value type {}", name, t));
    MetaEntry e{std::string(key), {}};
    if (!value(static_cast<ValueType>(t), e.value, name, 0)) return false;
    if (!f_.metaIndex_.emplace(e.key, f_.metadata_.size()).second)
      return error(fmt::format("{} appears twice", name));
    f_.metadata_.push_back(std::move(e));
    return true;
  }

  bool alignment() {
    const MetaValue* a = f_.find("general.alignment");
    if (!a) return true;  // docs/gguf.md: 32 when absent
    const uint64_t size = scalarSize(a->type);
    if (size == 0 || a->type == ValueType::Float32 || a->type == ValueType::Float64 ||
        a->type == ValueType::Bool)
      return error(fmt::format("metadata 'general.alignment' is a {}, expected an unsigned integer",
                               valueTypeName(a->type)));
    uint64_t v = 0;
    std::memcpy(&v, a->bytes.data(), size);
    if (v == 0 || (v & (v - 1)) != 0 || v > kMaxAlignment)
      return error(fmt::format("metadata 'general.alignment' is {}, expected a power of two up to {}", v,
                               kMaxAlignment));
    f_.alignment_ = v;
    return true;
  }

  bool tensorInfo() {
    TensorInfo t;
    std::string_view name;
    const size_t index = f_.tensors_.size();
    if (!str(name, fmt::format("tensor {}'s name", index), kMaxNameBytes)) return false;
    t.name = std::string(name);
    const std::string what = fmt::format("tensor {}", quoteForMessage(t.name));
    uint32_t nd = 0;
    if (!u32(nd, what + "'s dimension count")) return false;
    if (nd < 1 || nd > 4) return error(fmt::format("{} has {} dimensions, expected 1 to 4", what, nd));
    t.elements = 1;
    for (uint32_t d = 0; d < nd; ++d) {
      uint64_t n = 0;
      if (!u64(n, what + "'s dimensions")) return false;
      if (n < 1 || n > static_cast<uint64_t>(kMaxElements) ||
          static_cast<int64_t>(n) > kMaxElements / t.elements)
        return error(fmt::format("{} has dimension {} of size {} (at most 2^50 elements in all, none empty)",
                                 what, d, n));
      t.dims.push_back(static_cast<int64_t>(n));
      t.elements *= static_cast<int64_t>(n);
    }
    if (!u32(t.type, what + "'s type")) return false;
    const GgmlTypeTraits* traits = ggmlTypeTraits(t.type);
    if (!traits) return error(fmt::format("{} has unknown tensor type {}", what, t.type));
    if (t.dims[0] % traits->blockElements != 0)
      return error(fmt::format("{} of type {}: its rows of {} values are not whole blocks of {}", what,
                               traits->name, t.dims[0], traits->blockElements));
    t.bytes = static_cast<uint64_t>(t.elements / traits->blockElements * traits->blockBytes);
    if (!u64(t.offset, what + "'s offset")) return false;
    if (t.offset % f_.alignment_ != 0)
      return error(
          fmt::format("{} has offset {}, not a multiple of the alignment {}", what, t.offset, f_.alignment_));
    if (!f_.tensorIndex_.emplace(t.name, index).second) return error(fmt::format("{} appears twice", what));
    f_.tensors_.push_back(std::move(t));
    return true;
  }

  bool placeData() {
    const uint64_t a = f_.alignment_;
    const uint64_t start = pos_ + (a - pos_ % a) % a;
    if (f_.tensors_.empty()) {
      f_.dataOffset_ = std::min<uint64_t>(start, b_.size());
      return true;
    }
    if (start > b_.size())
      return error(fmt::format("the tensor data would start at byte {}, past the end of the file ({} bytes)",
                               start, b_.size()));
    f_.dataOffset_ = start;
    const uint64_t room = b_.size() - start;
    std::vector<size_t> order(f_.tensors_.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::sort(order.begin(), order.end(),
              [&](size_t x, size_t y) { return f_.tensors_[x].offset < f_.tensors_[y].offset; });
    for (size_t i = 0; i < order.size(); ++i) {
      const TensorInfo& t = f_.tensors_[order[i]];
      if (t.offset > room || t.bytes > room - t.offset)
        return error(
            fmt::format("tensor {} ({} bytes at data offset {}) ends past the end of the file ({} bytes of "
                        "tensor data)",
                        quoteForMessage(t.name), t.bytes, t.offset, room));
      if (i + 1 < order.size()) {
        const TensorInfo& next = f_.tensors_[order[i + 1]];
        if (t.offset + t.bytes > next.offset)
          return error(fmt::format("tensors {} and {} overlap (data offsets {} + {} bytes and {})",
                                   quoteForMessage(t.name), quoteForMessage(next.name), t.offset, t.bytes,
                                   next.offset));
      }
    }
    return true;
  }

  GgufFile& f_;
  std::string_view b_;
  uint64_t pos_ = 0;
  uint64_t tensorCount_ = 0, kvCount_ = 0;
  std::string error_;
};

GgufFile::~GgufFile() = default;

Result<std::shared_ptr<const GgufFile>> GgufFile::parse(std::string_view bytes, std::string name) {
  std::shared_ptr<GgufFile> f(new GgufFile());
  f->path_ = std::move(name);
  f->bytes_ = bytes;
  if (auto st = GgufParser(*f).run(); !st) return st.error();
  return std::shared_ptr<const GgufFile>(std::move(f));
}

Result<std::shared_ptr<const GgufFile>> GgufFile::open(const std::string& path) {
  auto map = MappedFile::open(path);
  if (!map) return map.error();
  std::shared_ptr<GgufFile> f(new GgufFile());
  f->path_ = path;
  f->map_ = std::move(*map);
  f->bytes_ = std::string_view(f->map_->data(), f->map_->size());
  if (auto st = GgufParser(*f).run(); !st) return st.error();
  return std::shared_ptr<const GgufFile>(std::move(f));
}

void GgufFile::mapAllPages() const {
#if defined(MADV_POPULATE_READ)
  // Where the products will copy the weights with pread, mapping every page is wasted: 0.07 s
  // for 1.3 GB in 4 KB pages on the project's VMs.
  if (map_ && !readsStaged(map_->data()))
    ::madvise(const_cast<char*>(map_->data()), map_->size(),
              MADV_POPULATE_READ);  // failure: pages fault in on use
#endif
}

const FileStamp* GgufFile::stamp() const { return map_ ? &map_->stamp() : nullptr; }

const MetaValue* GgufFile::find(std::string_view key) const {
  auto it = metaIndex_.find(std::string(key));
  return it == metaIndex_.end() ? nullptr : &metadata_[it->second].value;
}

const TensorInfo* GgufFile::tensor(std::string_view name) const {
  auto it = tensorIndex_.find(std::string(name));
  return it == tensorIndex_.end() ? nullptr : &tensors_[it->second];
}

bool looksLikeGguf(const std::string& path) {
  auto f = RegularFile::open(path, INT64_MAX);
  char magic[4];
  return f && f->size() >= 4 && f->readAt(0, 4, magic) && std::memcmp(magic, "GGUF", 4) == 0;
}

}  // namespace attn::models::gguf
