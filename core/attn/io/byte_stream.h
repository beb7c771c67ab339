#pragma once
// The bytes of one zip member (or of a whole .npy) read in order from a
// ByteSource: stored bytes straight from the source, deflated ones through
// zlib in 64 KiB input chunks, so a member is decoded into its destination
// without a copy of the file or of the member. Reads never go past
// the declared size; finish() checks the member really is that size.
#include <cstdint>
#include <memory>
#include <string>

#include "attn/io/byte_source.h"
#include "attn/status.h"

namespace attn {

class ByteStream {
 public:
  /// `size` bytes at `offset`, as they are.
  static ByteStream stored(ByteSource& source, uint64_t offset, uint64_t size, std::string name);
  /// Raw deflate data of `compressedSize` bytes at `offset` that must inflate
  /// to exactly `size` bytes.
  static ByteStream deflated(ByteSource& source, uint64_t offset, uint64_t compressedSize, uint64_t size,
                             std::string name);
  ByteStream(ByteStream&&) noexcept;
  ByteStream& operator=(ByteStream&&) = delete;
  ~ByteStream();

  uint64_t size() const { return size_; }
  uint64_t position() const { return position_; }
  /// Whether the bytes are stored as they are (no deflate), and then where
  /// the next byte lies in the source.
  bool stored() const { return !inflater_; }
  uint64_t sourceOffset() const { return offset_ + position_; }
  /// Reads the next n bytes; false when the data is damaged or a file read
  /// failed (failure() says which; later reads fail too).
  bool read(char* dst, size_t n);
  /// Consumes the rest and checks the member ends exactly at size() (deflate:
  /// the stream ends there). The first failure of read() is returned again.
  Status finish();
  const Error& failure() const { return failure_; }

 private:
  struct Inflater;
  ByteStream(ByteSource& source, uint64_t offset, uint64_t compressedSize, uint64_t size, std::string name);
  bool fail(bool ioFault);
  // Inflates into [dst, dst + cap); returns the bytes produced, -1 on a fault.
  int64_t inflateSome(char* dst, size_t cap);

  ByteSource& source_;
  uint64_t offset_ = 0, compressedSize_ = 0, size_ = 0, position_ = 0;
  std::string name_;                    // the member, as errors name it
  std::unique_ptr<Inflater> inflater_;  // null for stored bytes
  bool failed_ = false;
  Error failure_;
};

}  // namespace attn
