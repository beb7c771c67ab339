#pragma once
// The whole-buffer .npy/.npz parser as it was before the streaming reader (the file's bytes
// and the decoded arrays held together), kept as the reference the streaming
// reader (core/attn/io/npz_reader.cpp) must match: the same arrays, byte for
// byte, and the same error for every malformed file.
#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <regex>

#include "attn/io/float_convert.h"
#include "attn/io/npy_reader.h"
#include "attn/io/utf8.h"
#include "attn/io/quote.h"

namespace attn::legacy {

inline uint64_t le(std::string_view b, size_t off, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[off + i]);
  return v;
}

struct Header {
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
};

inline Result<Header> parseHeaderDict(std::string_view dict, const std::string& src) {
  Header h;
  static const std::regex descrRe(R"('descr'\s*:\s*'([^']*)')");
  static const std::regex fortranRe(R"('fortran_order'\s*:\s*(True|False))");
  static const std::regex shapeRe(R"('shape'\s*:\s*\(([^)]*)\))");
  const std::string d(dict);
  std::smatch m;
  if (!std::regex_search(d, m, descrRe)) return Error{src + ": .npy header has no 'descr'"};
  h.descr = m[1];
  if (!std::regex_search(d, m, fortranRe)) return Error{src + ": .npy header has no 'fortran_order'"};
  h.fortran = m[1] == "True";
  if (!std::regex_search(d, m, shapeRe)) return Error{src + ": .npy header has no 'shape'"};
  const std::string dims = m[1];
  static const std::regex dimRe(R"(\s*(\d+)\s*,?)");
  for (auto it = std::sregex_iterator(dims.begin(), dims.end(), dimRe); it != std::sregex_iterator(); ++it) {
    const std::string num = (*it)[1];
    if (num.size() > 15) return Error{fmt::format("{}: .npy shape {} is absurdly large", src, quoteForMessage(dims))};
    h.shape.push_back(std::stoll(num));
  }
  // Anything other than digits, commas and spaces inside the tuple is malformed.
  if (dims.find_first_not_of("0123456789, ") != std::string::npos)
    return Error{fmt::format("{}: .npy shape {} is malformed", src, quoteForMessage(dims))};
  return h;
}

template <class T>
float loadAs(const char* p, bool swap) {
  T v;
  char buf[sizeof(T)];
  std::memcpy(buf, p, sizeof(T));
  if (swap) std::reverse(buf, buf + sizeof(T));
  std::memcpy(&v, buf, sizeof(T));
  return static_cast<float>(v);
}

// Converts a Fortran-order buffer (first index fastest) into C order.
inline std::vector<float> fortranToC(const std::vector<float>& f, const std::vector<int64_t>& shape) {
  const size_t rank = shape.size();
  std::vector<float> c(f.size());
  std::vector<int64_t> idx(rank, 0);
  for (size_t lin = 0; lin < f.size(); ++lin) {  // lin walks Fortran order
    int64_t cOff = 0;
    for (size_t d = 0; d < rank; ++d) cOff = cOff * shape[d] + idx[d];
    c[static_cast<size_t>(cOff)] = f[lin];
    for (size_t d = 0; d < rank; ++d) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return c;
}

inline Result<NpyArray> parseNpy(std::string_view b, const std::string& src, const ReadLimits& limits = {}) {
  if (b.size() < 10 || b.substr(0, 6) != std::string_view("\x93NUMPY", 6))
    return Error{src + ": not a .npy file (bad magic)"};
  const int major = static_cast<unsigned char>(b[6]);
  size_t headerLen = 0, off = 0;
  if (major == 1) {
    headerLen = le(b, 8, 2);
    off = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) return Error{src + ": truncated .npy header"};
    headerLen = le(b, 8, 4);
    off = 12;
  } else {
    return Error{fmt::format("{}: unsupported .npy format version {}", src, major)};
  }
  if (headerLen > b.size() - off) return Error{src + ": truncated .npy header"};
  auto hdr = parseHeaderDict(b.substr(off, headerLen), src);
  if (!hdr) return hdr.error();
  const size_t dataOff = off + headerLen;

  NpyArray a;
  a.descr = hdr->descr;
  a.shape = hdr->shape;
  int64_t count = 1;
  for (auto s : a.shape) {
    if (s < 0 || (s > 0 && count > limits.maxElements / s))
      return Error{fmt::format("{}: shape {} has more than {} elements", src, a.shapeString(), limits.maxElements)};
    count *= s;
  }

  const std::string& d = a.descr;
  if (d.size() < 3) return Error{fmt::format("{}: unsupported dtype {}", src, quoteForMessage(d))};
  const char order = d[0];
  const char kind = d[1];
  int64_t itemsize = 0;
  // The item size is all the rest: "<f2.junk" is not float16 (fuzz finding).
  const char* sizeEnd = d.data() + d.size();
  if (auto [ptr, ec] = std::from_chars(d.data() + 2, sizeEnd, itemsize); ec != std::errc() || ptr != sizeEnd)
    return Error{fmt::format("{}: unsupported dtype {}", src, quoteForMessage(d))};
  if (order != '<' && order != '>' && order != '|' && order != '=')
    return Error{fmt::format("{}: unsupported dtype {}", src, quoteForMessage(d))};
  const bool supported = (kind == 'f' && (itemsize == 2 || itemsize == 4 || itemsize == 8)) ||
                         ((kind == 'i' || kind == 'u') &&
                          (itemsize == 1 || itemsize == 2 || itemsize == 4 || itemsize == 8)) ||
                         (kind == 'b' && itemsize == 1) || (kind == 'U' && itemsize > 0);
  if (!supported)
    return Error{fmt::format("{}: unsupported dtype {} (use float16/32/64, int, uint, bool or unicode)", src, quoteForMessage(d))};
  // Bounded before it is multiplied: '<U3333333333323333333' overflowed int64 (fuzz finding, UBSan).
  if (itemsize <= 0 || itemsize > 4096)
    return Error{fmt::format("{}: unsupported dtype {}", src, quoteForMessage(d))};
  const bool swap = order == '>';
  const int64_t bytesPerItem = kind == 'U' ? itemsize * 4 : itemsize;
  const int64_t need = count * bytesPerItem;
  if (need > limits.maxBytes)
    return Error{fmt::format("{}: array of {} bytes exceeds the {} byte limit", src, need, limits.maxBytes)};
  if (static_cast<int64_t>(b.size() - dataOff) < need)
    return Error{fmt::format("{}: header says {} {} ({} bytes) but only {} bytes of data follow", src,
                             a.shapeString(), d, need, b.size() - dataOff)};  // d: checked above
  const char* p = b.data() + dataOff;

  if (kind == 'U') {
    a.isText = true;
    a.strings.reserve(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) {
      std::u32string s;
      for (int64_t c = 0; c < itemsize; ++c) {
        const char32_t cp = static_cast<char32_t>(le(std::string_view(p, 4), 0, 4));
        p += 4;
        if (cp == 0) continue;
        if (cp > 0x10FFFF) return Error{fmt::format("{}: invalid character in string element {}", src, i)};
        s.push_back(cp);
      }
      a.strings.push_back(utf32ToUtf8(s));
    }
    return a;
  }

  std::vector<float> v(static_cast<size_t>(count));
  auto convert = [&](auto loader) {
    for (int64_t i = 0; i < count; ++i) v[static_cast<size_t>(i)] = loader(p + i * itemsize);
  };
  if (kind == 'f' && itemsize == 4) convert([&](const char* q) { return loadAs<float>(q, swap); });
  else if (kind == 'f' && itemsize == 8) convert([&](const char* q) { return loadAs<double>(q, swap); });
  else if (kind == 'f' && itemsize == 2)
    convert([&](const char* q) { return halfToFloat(static_cast<uint16_t>(loadAs<uint16_t>(q, swap))); });
  else if (kind == 'i' && itemsize == 1) convert([&](const char* q) { return loadAs<int8_t>(q, false); });
  else if (kind == 'i' && itemsize == 2) convert([&](const char* q) { return loadAs<int16_t>(q, swap); });
  else if (kind == 'i' && itemsize == 4) convert([&](const char* q) { return loadAs<int32_t>(q, swap); });
  else if (kind == 'i' && itemsize == 8) convert([&](const char* q) { return loadAs<int64_t>(q, swap); });
  else if (kind == 'u' && itemsize == 1) convert([&](const char* q) { return loadAs<uint8_t>(q, false); });
  else if (kind == 'u' && itemsize == 2) convert([&](const char* q) { return loadAs<uint16_t>(q, swap); });
  else if (kind == 'u' && itemsize == 4) convert([&](const char* q) { return loadAs<uint32_t>(q, swap); });
  else if (kind == 'u' && itemsize == 8) convert([&](const char* q) { return loadAs<uint64_t>(q, swap); });
  else if (kind == 'b' && itemsize == 1) convert([&](const char* q) { return *q ? 1.0f : 0.0f; });
  else return Error{fmt::format("{}: unsupported dtype {} (use float16/32/64, int, uint or bool)", src, quoteForMessage(d))};

  a.values.shape = a.shape;
  a.values.data = hdr->fortran && a.shape.size() > 1 ? fortranToC(v, a.shape) : std::move(v);
  return a;
}

inline Result<std::vector<NpyArray>> parseNpz(std::string_view z, const std::string& src,
                                              const ReadLimits& limits = {}) {
  // End of central directory: last 22+ bytes, signature PK\5\6.
  if (z.size() < 22) return Error{src + ": not an .npz (too short for a zip archive)"};
  size_t eocd = std::string_view::npos;
  const size_t lo = z.size() > 65557 ? z.size() - 65557 : 0;
  for (size_t i = z.size() - 22 + 1; i-- > lo;)
    if (z.substr(i, 4) == std::string_view("PK\x05\x06", 4)) { eocd = i; break; }
  if (eocd == std::string_view::npos) return Error{src + ": not an .npz (no zip directory found; truncated?)"};
  const uint64_t entries = le(z, eocd + 10, 2);
  const uint64_t cdSize = le(z, eocd + 12, 4);
  const uint64_t cdOff = le(z, eocd + 16, 4);
  if (cdOff > z.size() || cdSize > z.size() - cdOff)
    return Error{src + ": zip directory points past the end of the file (truncated?)"};

  std::vector<NpyArray> out;
  size_t pos = cdOff;
  for (uint64_t e = 0; e < entries; ++e) {
    if (pos + 46 > z.size() || z.substr(pos, 4) != std::string_view("PK\x01\x02", 4))
      return Error{fmt::format("{}: zip directory entry {} is damaged", src, e)};
    const uint64_t method = le(z, pos + 10, 2);
    uint64_t csize = le(z, pos + 20, 4), usize = le(z, pos + 24, 4);
    const uint64_t nameLen = le(z, pos + 28, 2), extraLen = le(z, pos + 30, 2), commentLen = le(z, pos + 32, 2);
    uint64_t localOff = le(z, pos + 42, 4);
    if (pos + 46 + nameLen + extraLen > z.size()) return Error{fmt::format("{}: zip directory entry {} is damaged", src, e)};
    std::string name(z.substr(pos + 46, nameLen));
    // Zip64 extra field (numpy writes with force_zip64): sizes/offset that are 0xFFFFFFFF live here.
    size_t x = pos + 46 + nameLen, xend = x + extraLen;
    while (x + 4 <= xend) {
      const uint64_t id = le(z, x, 2), len = le(z, x + 2, 2);
      size_t f = x + 4;
      if (id == 0x0001) {
        if (usize == 0xFFFFFFFFu && f + 8 <= xend) { usize = le(z, f, 8); f += 8; }
        if (csize == 0xFFFFFFFFu && f + 8 <= xend) { csize = le(z, f, 8); f += 8; }
        if (localOff == 0xFFFFFFFFu && f + 8 <= xend) { localOff = le(z, f, 8); f += 8; }
      }
      x += 4 + len;
    }
    pos += 46 + nameLen + extraLen + commentLen;

    // The member's name comes from the archive: escaped, so errors stay one line.
    const std::string quoted = quoteForMessage(name, name.size());
    const std::string member = src + ":" + quoted.substr(1, quoted.size() - 2);
    if (localOff > z.size() || z.size() - localOff < 30 || z.substr(localOff, 4) != std::string_view("PK\x03\x04", 4))
      return Error{member + ": local zip header is missing (truncated?)"};
    const uint64_t dataOff = localOff + 30 + le(z, localOff + 26, 2) + le(z, localOff + 28, 2);
    if (dataOff > z.size() || csize > z.size() - dataOff)
      return Error{fmt::format("{}: member data ({} bytes) runs past the end of the file (truncated?)", member, csize)};
    if (static_cast<int64_t>(usize) > limits.maxBytes + 65536)
      return Error{fmt::format("{}: member of {} bytes exceeds the {} byte limit", member, usize, limits.maxBytes)};
    // Deflate expands at most ~1032:1, so a larger declared size is a lie; refuse
    // it before allocating the output buffer.
    if ((method == 0 && usize != csize) || (method == 8 && usize > csize * 1032 + 1024))
      return Error{fmt::format("{}: zip header declares {} bytes from {} stored bytes (corrupt header)", member,
                               usize, csize)};
    std::string_view comp = z.substr(dataOff, csize);
    std::string inflated;
    std::string_view data;
    if (method == 0) {
      data = comp;
    } else if (method == 8) {
      // Deflate expands at most ~1032:1; a larger claim is a damaged or hostile
      // header, refused before the claimed size is allocated.
      if (usize > csize * 1032 + 1024)
        return Error{fmt::format("{}: declares {} bytes from {} compressed bytes, more than deflate can produce",
                                 member, usize, csize)};
      inflated.resize(usize);
      z_stream zs{};
      if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) return Error{member + ": cannot start zlib"};
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(comp.data()));
      zs.avail_in = static_cast<uInt>(std::min<uint64_t>(comp.size(), std::numeric_limits<uInt>::max()));
      zs.next_out = reinterpret_cast<Bytef*>(inflated.data());
      zs.avail_out = static_cast<uInt>(std::min<uint64_t>(usize, std::numeric_limits<uInt>::max()));
      const int rc = inflate(&zs, Z_FINISH);
      const uint64_t produced = zs.total_out;
      inflateEnd(&zs);
      if (rc != Z_STREAM_END || produced != usize)
        return Error{fmt::format("{}: deflate data is corrupt or its size is not the {} bytes declared", member, usize)};
      data = inflated;
    } else {
      return Error{fmt::format("{}: unsupported zip compression method {}", member, method)};
    }
    if (!name.ends_with(".npy")) continue;  // npz members are .npy; ignore anything else
    auto arr = attn::legacy::parseNpy(data, member, limits);
    if (!arr) return arr.error();
    arr->name = name.substr(0, name.size() - 4);
    out.push_back(std::move(arr).value());
  }
  return out;
}

}  // namespace attn::legacy
