#include "attn/io/byte_stream.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <limits>
#include <vector>

namespace attn {

struct ByteStream::Inflater {
  z_stream zs{};
  bool started = false;
  bool ended = false;     // Z_STREAM_END seen
  uint64_t consumed = 0;  // compressed bytes handed to zlib
  std::vector<char> input = std::vector<char>(size_t{64} << 10);
  ~Inflater() {
    if (started) inflateEnd(&zs);
  }
};

ByteStream::ByteStream(ByteSource& source, uint64_t offset, uint64_t compressedSize, uint64_t size,
                       std::string name)
    : source_(source),
      offset_(offset),
      compressedSize_(compressedSize),
      size_(size),
      name_(std::move(name)) {}

ByteStream::ByteStream(ByteStream&&) noexcept = default;
ByteStream::~ByteStream() = default;

ByteStream ByteStream::stored(ByteSource& source, uint64_t offset, uint64_t size, std::string name) {
  return ByteStream(source, offset, size, size, std::move(name));
}

ByteStream ByteStream::deflated(ByteSource& source, uint64_t offset, uint64_t compressedSize, uint64_t size,
                                std::string name) {
  ByteStream s(source, offset, compressedSize, size, std::move(name));
  s.inflater_ = std::make_unique<Inflater>();
  if (inflateInit2(&s.inflater_->zs, -MAX_WBITS) != Z_OK) {
    s.failed_ = true;
    s.failure_ = Error{s.name_ + ": cannot start zlib"};
  } else {
    s.inflater_->started = true;
  }
  return s;
}

bool ByteStream::fail(bool ioFault) {
  if (!failed_) {
    failed_ = true;
    failure_ = ioFault
                   ? Error{source_.name() + ": read failed"}
                   : Error{fmt::format("{}: deflate data is corrupt or its size is not the {} bytes declared",
                                       name_, size_)};
  }
  return false;
}

int64_t ByteStream::inflateSome(char* dst, size_t cap) {
  Inflater& in = *inflater_;
  z_stream& zs = in.zs;
  if (in.ended) return -1;  // more output asked for than the stream holds
  if (zs.avail_in == 0 && in.consumed < compressedSize_) {
    const size_t chunk =
        static_cast<size_t>(std::min<uint64_t>(in.input.size(), compressedSize_ - in.consumed));
    source_.read(offset_ + in.consumed, chunk, in.input.data());
    if (source_.failed()) {
      fail(true);
      return -1;
    }
    in.consumed += chunk;
    zs.next_in = reinterpret_cast<Bytef*>(in.input.data());
    zs.avail_in = static_cast<uInt>(chunk);
  }
  const uInt room = static_cast<uInt>(std::min<size_t>(cap, std::numeric_limits<uInt>::max()));
  zs.next_out = reinterpret_cast<Bytef*>(dst);
  zs.avail_out = room;
  const int rc = inflate(&zs, Z_NO_FLUSH);
  const int64_t produced = room - zs.avail_out;
  if (rc == Z_STREAM_END) {
    in.ended = true;
    return produced;
  }
  if (rc != Z_OK && rc != Z_BUF_ERROR) return -1;  // corrupt data, a preset dictionary, no memory
  // No progress with no input left: the data ends before the stream does.
  if (produced == 0 && zs.avail_in == 0 && in.consumed == compressedSize_) return -1;
  if (produced == 0 && rc == Z_BUF_ERROR && zs.avail_in > 0) return -1;
  return produced;
}

bool ByteStream::read(char* dst, size_t n) {
  if (failed_) return false;
  if (n > size_ - position_) return fail(false);
  if (!inflater_) {
    source_.read(offset_ + position_, n, dst);
    if (source_.failed()) return fail(true);
    position_ += n;
    return true;
  }
  while (n > 0) {
    const int64_t got = inflateSome(dst, n);
    if (got < 0) return fail(false);
    dst += got;
    n -= static_cast<size_t>(got);
    position_ += static_cast<uint64_t>(got);
  }
  return true;
}

Status ByteStream::finish() {
  if (failed_) return failure_;
  if (!inflater_) return okStatus();  // stored: the directory already fixed the size
  std::vector<char> scratch(size_t{64} << 10);
  while (position_ < size_) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(scratch.size(), size_ - position_));
    if (!read(scratch.data(), n)) return failure_;
  }
  // Exactly size() bytes: the stream must end here, with not one byte more.
  while (!inflater_->ended) {
    const int64_t got = inflateSome(scratch.data(), 1);
    if (got != 0) {
      fail(false);
      return failure_;
    }
  }
  return okStatus();
}

}  // namespace attn
