#include "attn/io/npy_writer.h"

#include <fmt/format.h>
#include <zlib.h>

#include <cassert>
#include <cstring>

#include "attn/io/atomic_file.h"
#include "attn/io/little_endian.h"
#include "attn/io/npz_stream.h"
#include "attn/io/utf8.h"

namespace attn {

std::string npyHeader(const std::string& descr, const std::vector<int64_t>& shape) {
  std::string shapeStr;
  for (size_t i = 0; i < shape.size(); ++i) shapeStr += (i ? ", " : "") + std::to_string(shape[i]);
  shapeStr = "(" + shapeStr + (shape.size() == 1 ? ",)" : ")");
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr, shapeStr);
  // Pad with spaces so magic(6)+version(2)+len(2)+header+'\n' is a multiple of 64.
  const size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict.push_back('\n');
  std::string out("\x93NUMPY\x01\x00", 8);
  putLe(out, dict.size(), 2);
  return out + dict;
}

std::string encodeNpy(const Tensor& t) {
  std::string out = npyHeader("<f4", t.shape);
  const size_t n = t.data.size() * sizeof(float);
  const size_t off = out.size();
  out.resize(off + n);
  std::memcpy(out.data() + off, t.data.data(), n);  // x86-64 is little-endian
  return out;
}

std::string encodeNpyInt32(const std::vector<int32_t>& values, const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  assert(shape.empty() || count == static_cast<int64_t>(values.size()));
  std::string out =
      npyHeader("<i4", shape.empty() ? std::vector<int64_t>{static_cast<int64_t>(values.size())} : shape);
  const size_t n = values.size() * sizeof(int32_t);
  const size_t off = out.size();
  out.resize(off + n);
  std::memcpy(out.data() + off, values.data(), n);  // x86-64 is little-endian
  return out;
}

std::string encodeNpyStrings(const std::vector<std::string>& strings, const std::vector<int64_t>& shape) {
  std::vector<std::u32string> wide;
  size_t maxLen = 1;
  for (const auto& s : strings) {
    auto w = utf8ToUtf32(s).value_or(std::u32string(U"\uFFFD"));
    maxLen = std::max(maxLen, w.size());
    wide.push_back(std::move(w));
  }
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  assert(shape.empty() || count == static_cast<int64_t>(strings.size()));
  std::string out = npyHeader(fmt::format("<U{}", maxLen),
                              shape.empty() ? std::vector<int64_t>{static_cast<int64_t>(strings.size())} : shape);
  for (const auto& w : wide)
    for (size_t i = 0; i < maxLen; ++i) putLe(out, i < w.size() ? w[i] : 0, 4);
  return out;
}

std::string NpzWriter::bytes() const {
  std::string zip, central;
  uint16_t count = 0;
  for (const auto& [name, data] : members_) {
    const std::string fname = name + ".npy";
    const uint32_t crc = static_cast<uint32_t>(
        crc32(0L, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
    const uint32_t offset = static_cast<uint32_t>(zip.size());
    // Local file header (stored, no data descriptor).
    putLe(zip, 0x04034b50, 4); putLe(zip, 20, 2); putLe(zip, 0, 2); putLe(zip, 0, 2);
    putLe(zip, 0, 2); putLe(zip, 0x21, 2);  // time, date (1980-01-01)
    putLe(zip, crc, 4); putLe(zip, data.size(), 4); putLe(zip, data.size(), 4);
    putLe(zip, fname.size(), 2); putLe(zip, 0, 2);
    zip += fname;
    zip += data;
    // Central directory entry.
    putLe(central, 0x02014b50, 4); putLe(central, 20, 2); putLe(central, 20, 2);
    putLe(central, 0, 2); putLe(central, 0, 2); putLe(central, 0, 2); putLe(central, 0x21, 2);
    putLe(central, crc, 4); putLe(central, data.size(), 4); putLe(central, data.size(), 4);
    putLe(central, fname.size(), 2); putLe(central, 0, 2); putLe(central, 0, 2);
    putLe(central, 0, 2); putLe(central, 0, 2); putLe(central, 0, 4); putLe(central, offset, 4);
    central += fname;
    ++count;
  }
  const uint32_t cdOffset = static_cast<uint32_t>(zip.size());
  zip += central;
  putLe(zip, 0x06054b50, 4); putLe(zip, 0, 2); putLe(zip, 0, 2);
  putLe(zip, count, 2); putLe(zip, count, 2);
  putLe(zip, central.size(), 4); putLe(zip, cdOffset, 4); putLe(zip, 0, 2);
  return zip;
}

Status NpzWriter::write(const std::string& path) const { return writeFileAtomic(path, bytes()); }

}  // namespace attn
