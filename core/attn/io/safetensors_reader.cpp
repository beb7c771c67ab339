#include "attn/io/safetensors_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "attn/io/float_convert.h"
#include "attn/io/json_document.h"
#include "attn/io/quote.h"
#include "attn/io/regular_file.h"

namespace attn {
namespace {

int dtypeSize(const std::string& d) {
  if (d == "F64" || d == "I64" || d == "U64") return 8;
  if (d == "F32" || d == "I32" || d == "U32") return 4;
  if (d == "F16" || d == "BF16" || d == "I16" || d == "U16") return 2;
  if (d == "I8" || d == "U8" || d == "BOOL") return 1;
  return 0;
}

template <class T>
T loadLe(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));  // the format is little-endian, as is every host we build for
  return v;
}

float convertOne(const std::string& d, const char* p) {
  if (d == "F32") return loadLe<float>(p);
  if (d == "F16") return halfToFloat(loadLe<uint16_t>(p));
  if (d == "BF16") return bf16ToFloat(loadLe<uint16_t>(p));
  if (d == "F64") return static_cast<float>(loadLe<double>(p));
  if (d == "I64") return static_cast<float>(loadLe<int64_t>(p));
  if (d == "U64") return static_cast<float>(loadLe<uint64_t>(p));
  if (d == "I32") return static_cast<float>(loadLe<int32_t>(p));
  if (d == "U32") return static_cast<float>(loadLe<uint32_t>(p));
  if (d == "I16") return static_cast<float>(loadLe<int16_t>(p));
  if (d == "U16") return static_cast<float>(loadLe<uint16_t>(p));
  if (d == "I8") return static_cast<float>(loadLe<int8_t>(p));
  if (d == "U8") return static_cast<float>(loadLe<uint8_t>(p));
  return *p ? 1.0f : 0.0f;  // BOOL
}

NpyArray convertTensor(const SafetensorsEntry& e, std::string_view data) {
  NpyArray a;
  a.name = e.name;
  a.descr = e.dtype;
  a.shape = e.shape;
  a.values.shape = e.shape;
  const int sz = dtypeSize(e.dtype);
  const size_t n = data.size() / static_cast<size_t>(sz);
  a.values.data.resize(n);
  for (size_t i = 0; i < n; ++i) a.values.data[i] = convertOne(e.dtype, data.data() + i * sz);
  return a;
}

uint64_t headerLength(std::string_view first8) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(first8[static_cast<size_t>(i)]);
  return v;
}

}  // namespace

Status checkSafetensorsHeaderLength(uint64_t len, uint64_t fileSize, const std::string& src) {
  if (len > static_cast<uint64_t>(kMaxSafetensorsHeader))
    return Error{fmt::format("{}: safetensors header claims {} bytes (limit {}); not a safetensors file or corrupt",
                             src, len, kMaxSafetensorsHeader)};
  if (len > fileSize - 8)
    return Error{fmt::format("{}: safetensors header claims {} bytes but the file has only {} after the length "
                             "(truncated?)", src, len, fileSize - 8)};
  if (len < 2) return Error{fmt::format("{}: safetensors header of {} bytes is too short", src, len)};
  return okStatus();
}

uint64_t safetensorsHeaderLength(std::string_view first8) { return headerLength(first8); }

Result<std::vector<SafetensorsEntry>> parseSafetensorsHeader(std::string_view json, int64_t dataSize,
                                                             const std::string& src, const ReadLimits& limits) {
  // The reference loader (safetensors' Rust crate, `Metadata::validate`) wants
  // the header to start with '{' (trailing spaces are its padding).
  if (json.empty() || json.front() != '{')
    return Error{src + ": safetensors header is not a JSON object (bad magic or corrupt file)"};
  auto parsed = parseJsonText(json, src + " (safetensors header)");
  if (!parsed) return parsed.error();
  const nlohmann::json& doc = *parsed;
  if (!doc.is_object())
    return Error{src + ": safetensors header is not a JSON object (bad magic or corrupt file)"};
  std::vector<SafetensorsEntry> out;
  for (const auto& [name, v] : doc.items()) {
    if (name == "__metadata__") {
      bool strings = v.is_object();
      if (strings)
        for (const auto& [k, m] : v.items()) strings = strings && m.is_string();
      if (!strings) return Error{src + ": __metadata__ must map names to strings"};
      continue;
    }
    const std::string where = fmt::format("{}: tensor {}", src, quoteForMessage(name));
    if (!v.is_object() || !v.contains("dtype") || !v.contains("shape") || !v.contains("data_offsets") ||
        !v["dtype"].is_string() || !v["shape"].is_array() || !v["data_offsets"].is_array() ||
        v["data_offsets"].size() != 2)
      return Error{where + ": header entry needs dtype, shape and data_offsets [begin, end]"};
    SafetensorsEntry e;
    e.name = name;
    e.dtype = v["dtype"].get<std::string>();
    const int sz = dtypeSize(e.dtype);
    if (sz == 0)
      return Error{fmt::format("{}: unsupported dtype '{}' (use F32, F16, BF16, F64, integer or BOOL)", where,
                               e.dtype)};
    // The product of the non-zero dimensions is bounded too: a zero first
    // dimension must not let [0, 2^64-1] through as a negative int64 size, nor
    // sizes whose product overflows for code that multiplies them in another order.
    int64_t count = 1, nonZero = 1;
    for (const auto& s : v["shape"]) {
      if (!s.is_number_unsigned()) return Error{where + ": shape must be a list of non-negative integers"};
      const uint64_t dim = s.get<uint64_t>();
      if (dim > 0 && static_cast<uint64_t>(nonZero) > static_cast<uint64_t>(limits.maxElements) / dim)
        return Error{fmt::format("{}: shape has more than {} elements", where, limits.maxElements)};
      e.shape.push_back(static_cast<int64_t>(dim));
      count *= static_cast<int64_t>(dim);
      if (dim > 0) nonZero *= static_cast<int64_t>(dim);
    }
    const auto& off = v["data_offsets"];
    if (!off[0].is_number_unsigned() || !off[1].is_number_unsigned())
      return Error{where + ": data_offsets must be non-negative integers"};
    const uint64_t b = off[0].get<uint64_t>(), en = off[1].get<uint64_t>();
    if (b > en || en > static_cast<uint64_t>(dataSize))
      return Error{fmt::format("{}: data_offsets [{}, {}] lie outside the {} data bytes (truncated?)", where, b, en,
                               dataSize)};
    e.begin = static_cast<int64_t>(b);
    e.end = static_cast<int64_t>(en);
    if (e.end - e.begin != count * sz)
      return Error{fmt::format("{}: shape {} of {} needs {} bytes but data_offsets span {}", where,
                               Tensor{e.shape, {}}.shapeString(), e.dtype, count * sz, e.end - e.begin)};
    if (count * 4 > limits.maxBytes)
      return Error{fmt::format("{}: {} elements exceed the {} byte limit", where, count, limits.maxBytes)};
    out.push_back(std::move(e));
  }
  // nlohmann orders keys alphabetically; the file's order is by offset.
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
  // The reference loader's rule: sorted by offset, the tensors tile the data
  // section exactly, each starting where the previous one ended. Overlaps would
  // let a small file expand into many copies of its data; gaps and trailing
  // bytes are data no tensor owns (a corrupt or hand-edited file).
  int64_t at = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i].begin < at)
      return Error{fmt::format("{}: tensors {} and {} overlap (data_offsets [{}, {}] and [{}, {}])", src,
                               quoteForMessage(out[i - 1].name), quoteForMessage(out[i].name), out[i - 1].begin,
                               out[i - 1].end, out[i].begin, out[i].end)};
    if (out[i].begin > at)
      return Error{i == 0 ? fmt::format("{}: tensor {} starts at data byte {}; the first tensor must start at 0 "
                                        "(a gap no tensor owns)", src, quoteForMessage(out[i].name), out[i].begin)
                          : fmt::format("{}: gap of {} bytes between tensors {} and {} (data_offsets [{}, {}] and "
                                        "[{}, {}]); tensors must cover the data section exactly",
                                        src, out[i].begin - at, quoteForMessage(out[i - 1].name),
                                        quoteForMessage(out[i].name), out[i - 1].begin, out[i - 1].end,
                                        out[i].begin, out[i].end)};
    at = out[i].end;
  }
  if (at != dataSize)
    return Error{fmt::format("{}: the tensors cover {} of the {} data bytes; {} trailing bytes belong to no tensor",
                             src, at, dataSize, dataSize - at)};
  return out;
}

Result<std::vector<NpyArray>> parseSafetensors(std::string_view bytes, const std::string& src,
                                               const ReadLimits& limits) {
  if (bytes.size() < 8) return Error{src + ": too short for a safetensors file (truncated?)"};
  const uint64_t len = headerLength(bytes.substr(0, 8));
  if (auto st = checkSafetensorsHeaderLength(len, bytes.size(), src); !st) return st.error();
  const std::string_view data = bytes.substr(8 + len);
  auto entries = parseSafetensorsHeader(bytes.substr(8, len), static_cast<int64_t>(data.size()), src, limits);
  if (!entries) return entries.error();
  std::vector<NpyArray> out;
  for (const auto& e : *entries)
    out.push_back(convertTensor(e, data.substr(static_cast<size_t>(e.begin), static_cast<size_t>(e.end - e.begin))));
  return out;
}

Result<std::vector<NpyArray>> readSafetensorsFile(const std::string& path, const ReadLimits& limits) {
  auto f = RegularFile::open(path, std::numeric_limits<int64_t>::max());
  if (!f) return f.error();
  const int64_t size = f->size();
  if (size < 8) return Error{path + ": too short for a safetensors file (truncated?)"};
  char first8[8];
  if (!f->readAt(0, 8, first8)) return Error{path + ": read failed"};
  const uint64_t len = headerLength(std::string_view(first8, 8));
  if (auto st = checkSafetensorsHeaderLength(len, static_cast<uint64_t>(size), path); !st) return st.error();
  std::string header(len, '\0');
  if (!f->readAt(8, header.size(), header.data())) return Error{path + ": read failed"};
  const int64_t dataStart = 8 + static_cast<int64_t>(len);
  auto entries = parseSafetensorsHeader(header, size - dataStart, path, limits);
  if (!entries) return entries.error();
  std::vector<NpyArray> out;
  std::string buf;
  for (const auto& e : *entries) {
    buf.resize(static_cast<size_t>(e.end - e.begin));
    if (!f->readAt(dataStart + e.begin, buf.size(), buf.data()))
      return Error{fmt::format("{}: tensor {}: read failed", path, quoteForMessage(e.name))};
    out.push_back(convertTensor(e, buf));
  }
  return out;
}

}  // namespace attn
