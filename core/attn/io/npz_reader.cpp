// .npz (a zip of .npy members, stored or deflated) read from a ByteSource:
// the zip directory first, then each member decoded from the source into its
// array, so a file is never held in memory next to its arrays.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "attn/io/byte_stream.h"
#include "attn/io/npy_reader.h"
#include "attn/io/quote.h"

namespace attn {
namespace {

// Decodes one member; the stream is then consumed to its end so that a damaged
// member is reported as such even when its .npy header already failed (as the
// whole-member parse did, which inflated every member before reading it).
Result<std::vector<NpyArray>> readNpzMembers(ByteSource& z, const std::string& src, const ReadLimits& limits,
                                             const std::vector<std::string>& planeNames, const std::vector<PlaneDrop>& drops) {
  const uint64_t size = z.size();
  // End of central directory: last 22+ bytes, signature PK\5\6; the tail is read once and searched.
  if (size < 22) return Error{src + ": not an .npz (too short for a zip archive)"};
  const uint64_t lo = size > 65557 ? size - 65557 : 0;
  std::string tail(static_cast<size_t>(size - lo), '\0');
  z.read(lo, tail.size(), tail.data());
  if (z.failed()) return Error{src + ": read failed"};
  uint64_t eocd = std::numeric_limits<uint64_t>::max();
  for (size_t i = tail.size() - 22 + 1; i-- > 0;)
    if (std::string_view(tail).substr(i, 4) == std::string_view("PK\x05\x06", 4)) {
      eocd = lo + i;
      break;
    }
  if (eocd == std::numeric_limits<uint64_t>::max())
    return Error{src + ": not an .npz (no zip directory found; truncated?)"};
  const uint64_t entries = z.littleEndianAt(eocd + 10, 2);
  const uint64_t cdSize = z.littleEndianAt(eocd + 12, 4);
  const uint64_t cdOff = z.littleEndianAt(eocd + 16, 4);
  if (cdOff > size || cdSize > size - cdOff)
    return Error{src + ": zip directory points past the end of the file (truncated?)"};

  std::vector<NpyArray> out;
  uint64_t pos = cdOff;
  for (uint64_t e = 0; e < entries; ++e) {
    if (pos + 46 > size || !z.bytesEqual(pos, std::string_view("PK\x01\x02", 4)))
      return Error{fmt::format("{}: zip directory entry {} is damaged", src, e)};
    const uint64_t method = z.littleEndianAt(pos + 10, 2);
    uint64_t csize = z.littleEndianAt(pos + 20, 4), usize = z.littleEndianAt(pos + 24, 4);
    const uint64_t nameLen = z.littleEndianAt(pos + 28, 2), extraLen = z.littleEndianAt(pos + 30, 2),
                   commentLen = z.littleEndianAt(pos + 32, 2);
    uint64_t localOff = z.littleEndianAt(pos + 42, 4);
    if (pos + 46 + nameLen + extraLen > size)
      return Error{fmt::format("{}: zip directory entry {} is damaged", src, e)};
    std::string name(static_cast<size_t>(nameLen), '\0');
    z.read(pos + 46, name.size(), name.data());
    // Zip64 extra field (numpy writes with force_zip64): sizes/offset that are 0xFFFFFFFF live here.
    uint64_t x = pos + 46 + nameLen;
    const uint64_t xend = x + extraLen;
    while (x + 4 <= xend) {
      const uint64_t id = z.littleEndianAt(x, 2), len = z.littleEndianAt(x + 2, 2);
      uint64_t f = x + 4;
      if (id == 0x0001) {
        if (usize == 0xFFFFFFFFu && f + 8 <= xend) {
          usize = z.littleEndianAt(f, 8);
          f += 8;
        }
        if (csize == 0xFFFFFFFFu && f + 8 <= xend) {
          csize = z.littleEndianAt(f, 8);
          f += 8;
        }
        if (localOff == 0xFFFFFFFFu && f + 8 <= xend) {
          localOff = z.littleEndianAt(f, 8);
          f += 8;
        }
      }
      x += 4 + len;
    }
    pos += 46 + nameLen + extraLen + commentLen;

    // The member's name comes from the archive: escaped, so errors stay one line.
    const std::string quoted = quoteForMessage(name, name.size());
    const std::string member = src + ":" + quoted.substr(1, quoted.size() - 2);
    if (localOff > size || size - localOff < 30 || !z.bytesEqual(localOff, std::string_view("PK\x03\x04", 4)))
      return Error{member + ": local zip header is missing (truncated?)"};
    const uint64_t dataOff =
        localOff + 30 + z.littleEndianAt(localOff + 26, 2) + z.littleEndianAt(localOff + 28, 2);
    if (dataOff > size || csize > size - dataOff)
      return Error{fmt::format("{}: member data ({} bytes) runs past the end of the file (truncated?)",
                               member, csize)};
    if (static_cast<int64_t>(usize) > limits.maxBytes + 65536)
      return Error{
          fmt::format("{}: member of {} bytes exceeds the {} byte limit", member, usize, limits.maxBytes)};
    // Deflate expands at most ~1032:1, so a larger declared size is a lie; refused
    // before anything of that size is allocated.
    if ((method == 0 && usize != csize) || (method == 8 && usize > csize * 1032 + 1024))
      return Error{fmt::format("{}: zip header declares {} bytes from {} stored bytes (corrupt header)",
                               member, usize, csize)};
    if (method != 0 && method != 8)
      return Error{fmt::format("{}: unsupported zip compression method {}", member, method)};
    if (z.failed()) return Error{src + ": read failed"};
    ByteStream data = method == 0 ? ByteStream::stored(z, dataOff, csize, member)
                                  : ByteStream::deflated(z, dataOff, csize, usize, member);
    if (!name.ends_with(".npy")) {  // npz members are .npy; anything else is skipped (once checked)
      if (auto st = data.finish(); !st) return st.error();
      continue;
    }
    const std::string arrayName = name.substr(0, name.size() - 4);
    const bool planes = std::find(planeNames.begin(), planeNames.end(), arrayName) != planeNames.end();
    const PlaneDrop* drop = nullptr;
    for (const PlaneDrop& d : drops)
      if (!d.name.empty() && arrayName == d.name && d.sink) drop = &d;
    auto arr = decodeNpy(data, member, limits, planes, drop);
    if (auto st = data.finish(); !st) return st.error();
    if (!arr) return arr.error();
    arr->name = arrayName;
    out.push_back(std::move(arr).value());
  }
  return out;
}

}  // namespace

Result<std::vector<NpyArray>> parseNpz(std::string_view bytes, const std::string& source,
                                       const ReadLimits& limits, const std::vector<std::string>& planeNames,
                                       const std::vector<PlaneDrop>& drops) {
  MemoryByteSource z(bytes, source);
  return readNpzMembers(z, source, limits, planeNames, drops);
}

Result<std::vector<NpyArray>> readNpzFile(const std::string& path, const ReadLimits& limits,
                                          const std::vector<std::string>& planeNames, const std::vector<PlaneDrop>& drops) {
  auto z = FileByteSource::open(path);
  if (!z) return z.error();
  return readNpzMembers(**z, path, limits, planeNames, drops);
}

}  // namespace attn
