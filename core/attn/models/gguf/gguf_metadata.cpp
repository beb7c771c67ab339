// GgufFile's typed metadata look-ups.
#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "attn/io/quote.h"
#include "attn/models/gguf/gguf_file.h"

namespace attn::models::gguf {
namespace {

template <class T>
T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

bool isInteger(ValueType t) {
  switch (t) {
    case ValueType::UInt8:
    case ValueType::Int8:
    case ValueType::UInt16:
    case ValueType::Int16:
    case ValueType::UInt32:
    case ValueType::Int32:
    case ValueType::UInt64:
    case ValueType::Int64:
      return true;
    default:
      return false;
  }
}

/// A numeric scalar at p as a double; nullopt for strings and arrays. 64-bit integers past
/// 2^53 lose precision, which no range check below depends on.
std::optional<double> numberAt(ValueType t, const char* p) {
  switch (t) {
    case ValueType::UInt8:
    case ValueType::Bool:
      return load<uint8_t>(p);
    case ValueType::Int8:
      return load<int8_t>(p);
    case ValueType::UInt16:
      return load<uint16_t>(p);
    case ValueType::Int16:
      return load<int16_t>(p);
    case ValueType::UInt32:
      return load<uint32_t>(p);
    case ValueType::Int32:
      return load<int32_t>(p);
    case ValueType::Float32:
      return load<float>(p);
    case ValueType::UInt64:
      return static_cast<double>(load<uint64_t>(p));
    case ValueType::Int64:
      return static_cast<double>(load<int64_t>(p));
    case ValueType::Float64:
      return load<double>(p);
    default:
      return std::nullopt;
  }
}

size_t scalarBytes(ValueType t) {
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
    default:
      return 8;
  }
}

}  // namespace

Result<int64_t> GgufFile::integer(std::string_view key, std::optional<int64_t> fallback, int64_t lo,
                                  int64_t hi) const {
  const MetaValue* v = find(key);
  if (!v) {
    if (fallback) return *fallback;
    return Error{fmt::format("{}: metadata {} is missing", path_, quoteForMessage(key))};
  }
  if (!isInteger(v->type))
    return Error{fmt::format("{}: metadata {} is a {}, expected an integer", path_, quoteForMessage(key),
                             valueTypeName(v->type))};
  int64_t x = 0;
  if (v->type == ValueType::UInt64) {
    const auto u = load<uint64_t>(v->bytes.data());
    x = u > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(u);
  } else if (v->type == ValueType::Int64) {
    x = load<int64_t>(v->bytes.data());
  } else {
    x = static_cast<int64_t>(*numberAt(v->type, v->bytes.data()));
  }
  if (x < lo || x > hi)
    return Error{
        fmt::format("{}: metadata {} is {}, expected {} to {}", path_, quoteForMessage(key), x, lo, hi)};
  return x;
}

Result<double> GgufFile::number(std::string_view key, std::optional<double> fallback, double lo,
                                double hi) const {
  const MetaValue* v = find(key);
  if (!v) {
    if (fallback) return *fallback;
    return Error{fmt::format("{}: metadata {} is missing", path_, quoteForMessage(key))};
  }
  const auto x = v->type == ValueType::Bool ? std::nullopt : numberAt(v->type, v->bytes.data());
  if (!x)
    return Error{fmt::format("{}: metadata {} is a {}, expected a number", path_, quoteForMessage(key),
                             valueTypeName(v->type))};
  if (!(*x >= lo && *x <= hi))
    return Error{
        fmt::format("{}: metadata {} is {}, expected {} to {}", path_, quoteForMessage(key), *x, lo, hi)};
  return *x;
}

Result<bool> GgufFile::boolean(std::string_view key, std::optional<bool> fallback) const {
  const MetaValue* v = find(key);
  if (!v) {
    if (fallback) return *fallback;
    return Error{fmt::format("{}: metadata {} is missing", path_, quoteForMessage(key))};
  }
  if (v->type != ValueType::Bool)
    return Error{fmt::format("{}: metadata {} is a {}, expected a bool", path_, quoteForMessage(key),
                             valueTypeName(v->type))};
  return v->bytes[0] != 0;
}

Result<std::string> GgufFile::string(std::string_view key, std::optional<std::string> fallback) const {
  const MetaValue* v = find(key);
  if (!v) {
    if (fallback) return *fallback;
    return Error{fmt::format("{}: metadata {} is missing", path_, quoteForMessage(key))};
  }
  if (v->type != ValueType::String)
    return Error{fmt::format("{}: metadata {} is a {}, expected a string", path_, quoteForMessage(key),
                             valueTypeName(v->type))};
  return std::string(v->bytes);
}

Result<std::vector<std::string_view>> GgufFile::stringArray(std::string_view key) const {
  const MetaValue* v = find(key);
  if (!v) return Error{fmt::format("{}: metadata {} is missing", path_, quoteForMessage(key))};
  if (v->type != ValueType::Array || v->elementType != ValueType::String)
    return Error{fmt::format("{}: metadata {} is not an array of strings", path_, quoteForMessage(key))};
  std::vector<std::string_view> out;
  out.reserve(v->count);  // the parser bounded count by the bytes the strings take
  const char* p = v->bytes.data();
  for (uint64_t i = 0; i < v->count; ++i) {  // lengths were checked when the file was parsed
    const auto n = load<uint64_t>(p);
    out.emplace_back(p + 8, n);
    p += 8 + n;
  }
  return out;
}

Result<std::vector<double>> GgufFile::numberArray(std::string_view key) const {
  const MetaValue* v = find(key);
  if (!v) return Error{fmt::format("{}: metadata {} is missing", path_, quoteForMessage(key))};
  if (v->type != ValueType::Array || v->elementType == ValueType::String ||
      v->elementType == ValueType::Array)
    return Error{fmt::format("{}: metadata {} is not an array of numbers", path_, quoteForMessage(key))};
  std::vector<double> out;
  out.reserve(v->count);
  const size_t each = scalarBytes(v->elementType);
  for (uint64_t i = 0; i < v->count; ++i)
    out.push_back(*numberAt(v->elementType, v->bytes.data() + i * each));
  return out;
}

}  // namespace attn::models::gguf
