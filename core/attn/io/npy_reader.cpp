#include "attn/io/npy_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <fstream>
#include <regex>

#include "attn/io/float_convert.h"
#include "attn/io/quote.h"
#include "attn/io/regular_file.h"
#include "attn/io/utf8.h"

namespace attn {
namespace {

uint64_t npyLe(std::string_view b, size_t off, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[off + i]);
  return v;
}

struct Header {
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
};

Result<Header> parseHeaderDict(std::string_view dict, const std::string& src) {
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
std::vector<float> fortranToC(const std::vector<float>& f, const std::vector<int64_t>& shape) {
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

using ItemLoader = float (*)(const char*, bool);

ItemLoader loaderFor(char kind, int64_t itemsize) {
  if (kind == 'f' && itemsize == 4) return [](const char* q, bool s) { return loadAs<float>(q, s); };
  if (kind == 'f' && itemsize == 8) return [](const char* q, bool s) { return loadAs<double>(q, s); };
  if (kind == 'f' && itemsize == 2)
    return [](const char* q, bool s) { return halfToFloat(static_cast<uint16_t>(loadAs<uint16_t>(q, s))); };
  if (kind == 'i' && itemsize == 1) return [](const char* q, bool) { return loadAs<int8_t>(q, false); };
  if (kind == 'i' && itemsize == 2) return [](const char* q, bool s) { return loadAs<int16_t>(q, s); };
  if (kind == 'i' && itemsize == 4) return [](const char* q, bool s) { return loadAs<int32_t>(q, s); };
  if (kind == 'i' && itemsize == 8) return [](const char* q, bool s) { return loadAs<int64_t>(q, s); };
  if (kind == 'u' && itemsize == 1) return [](const char* q, bool) { return loadAs<uint8_t>(q, false); };
  if (kind == 'u' && itemsize == 2) return [](const char* q, bool s) { return loadAs<uint16_t>(q, s); };
  if (kind == 'u' && itemsize == 4) return [](const char* q, bool s) { return loadAs<uint32_t>(q, s); };
  if (kind == 'u' && itemsize == 8) return [](const char* q, bool s) { return loadAs<uint64_t>(q, s); };
  if (kind == 'b' && itemsize == 1) return [](const char* q, bool) { return *q ? 1.0f : 0.0f; };
  return nullptr;
}

// Reads `count` items of the stream into dst: little-endian float32 straight
// into place, anything else converted from 1 MiB chunks.
bool readItems(ByteStream& in, float* dst, int64_t count, int64_t itemsize, ItemLoader load, bool swap,
               bool native) {
  if (native) return in.read(reinterpret_cast<char*>(dst), static_cast<size_t>(count) * sizeof(float));
  const int64_t perChunk = std::max<int64_t>(1, (int64_t{1} << 20) / itemsize);
  std::vector<char> chunk(static_cast<size_t>(std::min(count, perChunk) * itemsize));
  for (int64_t done = 0; done < count;) {
    const int64_t n = std::min(perChunk, count - done);
    if (!in.read(chunk.data(), static_cast<size_t>(n * itemsize))) return false;
    for (int64_t i = 0; i < n; ++i) dst[done + i] = load(chunk.data() + i * itemsize, swap);
    done += n;
  }
  return true;
}

}  // namespace

std::string NpyArray::shapeString() const {
  Tensor t;
  t.shape = shape;
  return t.shapeString();
}

namespace {

/// The header of a .npy (magic, version, dictionary) and where its data starts.
struct NpyLayout {
  Header header;
  uint64_t dataOffset = 0;
};

Result<NpyLayout> readNpyLayout(ByteStream& in, const std::string& src, uint64_t total) {
  std::string lead(12, '\0');
  if (total < 10 || !in.read(lead.data(), 10) || std::string_view(lead).substr(0, 6) != std::string_view("\x93NUMPY", 6))
    return in.failure().message.empty() ? Error{src + ": not a .npy file (bad magic)"} : in.failure();
  const int major = static_cast<unsigned char>(lead[6]);
  uint64_t headerLen = 0, off = 0;
  if (major == 1) {
    headerLen = npyLe(lead, 8, 2);
    off = 10;
  } else if (major == 2 || major == 3) {
    if (total < 12) return Error{src + ": truncated .npy header"};
    if (!in.read(lead.data() + 10, 2)) return in.failure();
    headerLen = npyLe(lead, 8, 4);
    off = 12;
  } else {
    return Error{fmt::format("{}: unsupported .npy format version {}", src, major)};
  }
  if (headerLen > total - off) return Error{src + ": truncated .npy header"};
  std::string dict(static_cast<size_t>(headerLen), '\0');
  if (!in.read(dict.data(), dict.size())) return in.failure();
  auto hdr = parseHeaderDict(dict, src);
  if (!hdr) return hdr.error();
  return NpyLayout{std::move(*hdr), off + headerLen};
}

/// A supported dtype string, taken apart.
struct Dtype {
  char kind = 0;
  int64_t itemsize = 0;
  bool swap = false;
  int64_t bytesPerItem = 0;
};

Result<Dtype> parseDtype(const std::string& d, const std::string& src) {
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
    return Error{fmt::format("{}: unsupported dtype {} (use float16/32/64, int, uint, bool or unicode)", src,
                             quoteForMessage(d))};
  // Bounded before it is multiplied: '<U3333333333323333333' overflowed int64 (fuzz finding, UBSan).
  if (itemsize <= 0 || itemsize > 4096)
    return Error{fmt::format("{}: unsupported dtype {}", src, quoteForMessage(d))};
  return Dtype{kind, itemsize, order == '>', kind == 'U' ? itemsize * 4 : itemsize};
}

/// numpy's '<U' strings: `count` items of UTF-32 code units, NUL-padded.
Status readTextItems(ByteStream& in, const std::string& src, const Dtype& dt, int64_t count, NpyArray& a) {
  a.isText = true;
  a.strings.reserve(static_cast<size_t>(count));
  std::string item(static_cast<size_t>(dt.bytesPerItem), '\0');
  for (int64_t i = 0; i < count; ++i) {
    if (!in.read(item.data(), item.size())) return in.failure();
    std::u32string s;
    for (int64_t c = 0; c < dt.itemsize; ++c) {
      const char32_t cp = static_cast<char32_t>(npyLe(item, static_cast<size_t>(c * 4), 4));
      if (cp == 0) continue;
      if (cp > 0x10FFFF) return Error{fmt::format("{}: invalid character in string element {}", src, i)};
      s.push_back(cp);
    }
    a.strings.push_back(utf32ToUtf8(s));
  }
  return okStatus();
}

/// How the numeric items are read: element loader, byte order, and whether
/// they can be copied as they are.
struct ItemReader {
  ItemLoader load = nullptr;
  int64_t itemsize = 0;
  bool swap = false, native = false;
  bool read(ByteStream& in, float* dst, int64_t n) const {
    return readItems(in, dst, n, itemsize, load, swap, native);
  }
};

/// [..., R, C] as row-major [R, C] planes: each read into the matrix dest(rows, cols)
/// gives, then handed to use(p, matrix).
template <class Dest, class Use>
bool readPlanes(ByteStream& in, const ItemReader& r, const std::vector<int64_t>& shape, int64_t count,
                Dest dest, Use use) {
  const int64_t rows = shape[shape.size() - 2], cols = shape.back();
  const int64_t planes = rows * cols == 0 ? 0 : count / (rows * cols);
  for (int64_t p = 0; p < planes; ++p) {
    Mat& plane = dest(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
    if (!r.read(in, plane.data(), rows * cols)) return false;
    use(p, plane);
  }
  return true;
}

/// A Fortran-ordered array read whole, then cut into planes for the sink or the caller.
void splitFortranPlanes(NpyArray& a, int64_t count, const PlaneDrop* drop) {
  const int64_t rows = a.shape[a.shape.size() - 2], cols = a.shape.back();
  for (int64_t p = 0; rows * cols > 0 && p < count / (rows * cols); ++p) {
    Mat plane = ConstMatMap(a.values.data.data() + p * rows * cols, static_cast<Eigen::Index>(rows),
                            static_cast<Eigen::Index>(cols));
    if (drop)
      drop->sink(p, plane);
    else
      a.planes.push_back(std::move(plane));
  }
  a.values.data = {};
  a.dropped = drop != nullptr;
}

Status readNumericItems(ByteStream& in, const std::string& src, const Dtype& dt, const Header& hdr,
                        int64_t count, bool asPlanes, const PlaneDrop* drop, NpyArray& a) {
  const ItemLoader load = loaderFor(dt.kind, dt.itemsize);
  if (!load)
    return Error{fmt::format("{}: unsupported dtype {} (use float16/32/64, int, uint or bool)", src,
                             quoteForMessage(a.descr))};
  // Unswapped float32 is copied as it is (numpy's '<f4', the common case), as loadAs<float> would.
  const ItemReader r{load, dt.itemsize, dt.swap, dt.kind == 'f' && dt.itemsize == 4 && !dt.swap};
  const bool fortran = hdr.fortran && a.shape.size() > 1;
  const bool rereadable = r.native && !fortran && in.stored();
  a.values.shape = a.shape;
  if (drop && !fortran && a.shape.size() >= 2 && (rereadable || !drop->onlyRereadable)) {
    // Plane by plane through one buffer into the sink; nothing is kept.
    if (rereadable) a.rereadOffset = in.sourceOffset();
    Mat buffer;
    const auto reuse = [&](Eigen::Index rows, Eigen::Index cols) -> Mat& {
      if (buffer.rows() != rows || buffer.cols() != cols) buffer.resize(rows, cols);
      return buffer;
    };
    if (!readPlanes(in, r, a.shape, count, reuse, [&](int64_t p, const Mat& plane) { drop->sink(p, plane); }))
      return in.failure();
    a.dropped = true;
    return okStatus();
  }
  if (asPlanes && !fortran && a.shape.size() >= 2) {
    // The engine's per-head matrices, filled in place.
    const auto append = [&](Eigen::Index rows, Eigen::Index cols) -> Mat& {
      return a.planes.emplace_back(rows, cols);
    };
    if (!readPlanes(in, r, a.shape, count, append, [](int64_t, const Mat&) {})) return in.failure();
    return okStatus();
  }
  std::vector<float> v(static_cast<size_t>(count));
  if (!r.read(in, v.data(), count)) return in.failure();
  a.values.data = fortran ? fortranToC(v, a.shape) : std::move(v);
  if ((asPlanes || drop) && fortran) splitFortranPlanes(a, count, drop);
  return okStatus();
}

}  // namespace

Result<NpyArray> decodeNpy(ByteStream& in, const std::string& src, const ReadLimits& limits, bool asPlanes,
                           const PlaneDrop* drop) {
  const uint64_t total = in.size();
  auto layout = readNpyLayout(in, src, total);
  if (!layout) return layout.error();
  const Header& hdr = layout->header;

  NpyArray a;
  a.descr = hdr.descr;
  a.shape = hdr.shape;
  int64_t count = 1;
  for (auto s : a.shape) {
    if (s < 0 || (s > 0 && count > limits.maxElements / s))
      return Error{
          fmt::format("{}: shape {} has more than {} elements", src, a.shapeString(), limits.maxElements)};
    count *= s;
  }
  auto dt = parseDtype(a.descr, src);
  if (!dt) return dt.error();
  const int64_t need = count * dt->bytesPerItem;
  if (need > limits.maxBytes)
    return Error{fmt::format("{}: array of {} bytes exceeds the {} byte limit", src, need, limits.maxBytes)};
  if (static_cast<int64_t>(total - layout->dataOffset) < need)
    return Error{fmt::format("{}: header says {} {} ({} bytes) but only {} bytes of data follow", src,
                             a.shapeString(), a.descr, need,
                             total - layout->dataOffset)};  // descr: checked above

  const Status st = dt->kind == 'U' ? readTextItems(in, src, *dt, count, a)
                                    : readNumericItems(in, src, *dt, hdr, count, asPlanes, drop, a);
  if (!st) return st.error();
  return a;
}

Result<NpyArray> parseNpy(std::string_view b, const std::string& src, const ReadLimits& limits) {
  MemoryByteSource source(b, src);
  ByteStream in = ByteStream::stored(source, 0, b.size(), src);
  return decodeNpy(in, src, limits);
}

Result<std::string> readFileBytes(const std::string& path, int64_t maxBytes) {
  return readRegularFile(path, maxBytes);
}

Result<NpyArray> readNpyFile(const std::string& path, const ReadLimits& limits) {
  auto source = FileByteSource::open(path);
  if (!source) return source.error();
  ByteStream in = ByteStream::stored(**source, 0, (*source)->size(), path);
  auto a = decodeNpy(in, path, limits);
  if (a) a->name = path;
  return a;
}

}  // namespace attn
