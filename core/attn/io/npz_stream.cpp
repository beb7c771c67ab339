#include "attn/io/npz_stream.h"

#include <fmt/format.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

#include "attn/io/float_convert.h"
#include "attn/io/little_endian.h"
#include "attn/io/npy_writer.h"

namespace attn {
namespace {

constexpr uint64_t kZip32Max = 0xFFFFFFFFull;  // no zip64: members and offsets below 4 GiB

}  // namespace

NpzStreamWriter::~NpzStreamWriter() {
  if (file_) {
    std::fclose(file_);
    std::error_code ec;
    std::filesystem::remove(tmp_, ec);
  }
}

Status NpzStreamWriter::fail(const std::string& what) {
  const std::string msg = fmt::format("{}: {}", path_, what);
  if (file_) {
    std::fclose(file_);
    file_ = nullptr;
    std::error_code ec;
    std::filesystem::remove(tmp_, ec);
  }
  return Error{msg};
}

Status NpzStreamWriter::open(const std::string& path) {
  path_ = path;
  tmp_ = path + fmt::format(".tmp{}", std::random_device{}());
  file_ = std::fopen(tmp_.c_str(), "wb");
  if (!file_) return Error{fmt::format("{}: cannot write ({})", path, std::strerror(errno))};
  pos_ = 0;
  entries_.clear();
  return okStatus();
}

Status NpzStreamWriter::writeRaw(const void* data, size_t n) {
  if (!file_) return Error{fmt::format("{}: not open for writing", path_)};
  if (n > 0 && std::fwrite(data, 1, n, file_) != n) return fail(fmt::format("write failed ({})", std::strerror(errno)));
  pos_ += n;
  return okStatus();
}

Status NpzStreamWriter::beginMember(const std::string& name, const std::string& header, uint64_t dataBytes) {
  if (inMember_) return fail(fmt::format("member '{}' started before the previous one ended", name));
  Entry e;
  e.fname = name + ".npy";
  e.size = header.size() + dataBytes;
  e.offset = pos_;
  if (e.size >= kZip32Max || e.offset >= kZip32Max)
    return fail(fmt::format("member '{}' would pass 4 GiB in the archive (zip64 is not written); "
                            "use --weights-dtype f16, fewer heads or --exec tiled with metrics",
                            name));
  std::string local;
  // Local file header: stored, sizes final, CRC patched in endMember.
  putLe(local, 0x04034b50, 4); putLe(local, 20, 2); putLe(local, 0, 2); putLe(local, 0, 2);
  putLe(local, 0, 2); putLe(local, 0x21, 2);  // time, date (1980-01-01)
  putLe(local, 0, 4); putLe(local, e.size, 4); putLe(local, e.size, 4);
  putLe(local, e.fname.size(), 2); putLe(local, 0, 2);
  local += e.fname;
  if (auto st = writeRaw(local.data(), local.size()); !st) return st;
  crc_ = static_cast<uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(header.data()), static_cast<uInt>(header.size())));
  if (auto st = writeRaw(header.data(), header.size()); !st) return st;
  entries_.push_back(std::move(e));
  inMember_ = true;
  return okStatus();
}

Status NpzStreamWriter::beginFloatMember(const std::string& name, NpyFloat type, const std::vector<int64_t>& shape) {
  uint64_t n = 1;
  for (int64_t d : shape) n *= static_cast<uint64_t>(std::max<int64_t>(d, 0));
  type_ = type;
  remaining_ = n;
  const uint64_t bytes = n * (type == NpyFloat::F16 ? 2 : 4);
  return beginMember(name, npyHeader(type == NpyFloat::F16 ? "<f2" : "<f4", shape), bytes);
}

Status NpzStreamWriter::appendFloats(const float* values, size_t n) {
  if (!inMember_) return fail("values written outside a member");
  if (n > remaining_) return fail(fmt::format("member '{}' got more values than its shape holds", entries_.back().fname));
  remaining_ -= n;
  constexpr size_t kChunk = 1 << 16;  // CRC and conversion in cache-sized pieces
  for (size_t off = 0; off < n; off += kChunk) {
    const size_t c = std::min(kChunk, n - off);
    const void* data = values + off;
    size_t bytes = c * sizeof(float);
    if (type_ == NpyFloat::F16) {
      half_.resize(c);
      for (size_t k = 0; k < c; ++k) half_[k] = floatToHalf(values[off + k]);  // x86-64: little-endian
      data = half_.data();
      bytes = c * sizeof(uint16_t);
    }
    crc_ = static_cast<uint32_t>(crc32(crc_, static_cast<const Bytef*>(data), static_cast<uInt>(bytes)));
    if (auto st = writeRaw(data, bytes); !st) return st;
  }
  return okStatus();
}

Status NpzStreamWriter::endMember() {
  if (!inMember_) return fail("no member to end");
  if (remaining_ != 0) return fail(fmt::format("member '{}' is {} values short of its shape", entries_.back().fname, remaining_));
  inMember_ = false;
  Entry& e = entries_.back();
  e.crc = crc_;
  if (pos_ != e.offset + 30 + e.fname.size() + e.size) return fail(fmt::format("member '{}' has the wrong size", e.fname));
  std::string crc;
  putLe(crc, e.crc, 4);
  if (std::fseek(file_, static_cast<long>(e.offset + 14), SEEK_SET) != 0 || std::fwrite(crc.data(), 1, 4, file_) != 4 ||
      std::fseek(file_, 0, SEEK_END) != 0)
    return fail(fmt::format("cannot patch the CRC of '{}' ({})", e.fname, std::strerror(errno)));
  return okStatus();
}

Status NpzStreamWriter::addFloat(const std::string& name, const Tensor& t, NpyFloat type) {
  if (auto st = beginFloatMember(name, type, t.shape); !st) return st;
  if (auto st = appendFloats(t.data.data(), t.data.size()); !st) return st;
  return endMember();
}

Status NpzStreamWriter::addStrings(const std::string& name, const std::vector<std::string>& strings,
                                   const std::vector<int64_t>& shape) {
  return addEncoded(name, encodeNpyStrings(strings, shape));
}

Status NpzStreamWriter::addInts(const std::string& name, const std::vector<int32_t>& values,
                                const std::vector<int64_t>& shape) {
  return addEncoded(name, encodeNpyInt32(values, shape));
}

Status NpzStreamWriter::addEncoded(const std::string& name, const std::string& npy) {
  // The header is the first 64-byte multiple ending in '\n'; what follows is data.
  const size_t headerLen = 10 + (static_cast<uint8_t>(npy[8]) | static_cast<size_t>(static_cast<uint8_t>(npy[9])) << 8);
  if (auto st = beginMember(name, npy.substr(0, headerLen), npy.size() - headerLen); !st) return st;
  crc_ = static_cast<uint32_t>(crc32(crc_, reinterpret_cast<const Bytef*>(npy.data() + headerLen),
                                     static_cast<uInt>(npy.size() - headerLen)));
  if (auto st = writeRaw(npy.data() + headerLen, npy.size() - headerLen); !st) return st;
  remaining_ = 0;
  return endMember();
}

Status NpzStreamWriter::commit() {
  if (inMember_) return fail("commit inside a member");
  if (!file_) return Error{fmt::format("{}: not open for writing", path_)};
  std::string central;
  for (const Entry& e : entries_) {
    putLe(central, 0x02014b50, 4); putLe(central, 20, 2); putLe(central, 20, 2);
    putLe(central, 0, 2); putLe(central, 0, 2); putLe(central, 0, 2); putLe(central, 0x21, 2);
    putLe(central, e.crc, 4); putLe(central, e.size, 4); putLe(central, e.size, 4);
    putLe(central, e.fname.size(), 2); putLe(central, 0, 2); putLe(central, 0, 2);
    putLe(central, 0, 2); putLe(central, 0, 2); putLe(central, 0, 4); putLe(central, e.offset, 4);
    central += e.fname;
  }
  const uint64_t cdOffset = pos_;
  if (cdOffset >= kZip32Max) return fail("the archive would pass 4 GiB (zip64 is not written)");
  const uint64_t dirSize = central.size();
  putLe(central, 0x06054b50, 4); putLe(central, 0, 2); putLe(central, 0, 2);
  putLe(central, entries_.size(), 2); putLe(central, entries_.size(), 2);
  putLe(central, dirSize, 4); putLe(central, cdOffset, 4); putLe(central, 0, 2);
  if (auto st = writeRaw(central.data(), central.size()); !st) return st;
  const bool flushed = std::fflush(file_) == 0;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  std::error_code ec;
  if (!flushed || !closed) {
    std::filesystem::remove(tmp_, ec);
    return Error{fmt::format("{}: write failed ({})", path_, std::strerror(errno))};
  }
  std::filesystem::rename(tmp_, path_, ec);
  if (ec) {
    std::filesystem::remove(tmp_, ec);
    return Error{fmt::format("{}: cannot replace file ({})", path_, ec.message())};
  }
  return okStatus();
}

}  // namespace attn
