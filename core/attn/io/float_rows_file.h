#pragma once
// Rows of a [planes, rows, cols] float32 array stored as it is in a file (an
// uncompressed .npz member in the machine's byte order), read again on demand:
// the streamed analysis reads its queries a block of rows at a time instead of
// holding them (at N = 32768, 12 heads x 64, q alone is 100 MB).
// Reads are positional (pread), so threads share one open file.
#include <cstdint>
#include <memory>
#include <string>

#include "attn/status.h"

namespace attn {

class FloatRowsFile {
 public:
  /// Opens `path`; the array's first value is at byte `offset`. Fails when the
  /// file cannot be opened or is too short for the array.
  static Result<FloatRowsFile> open(const std::string& path, uint64_t offset, int planes, int rows, int cols);

  int planes() const { return planes_; }
  int rows() const { return rows_; }
  int cols() const { return cols_; }

  /// Rows rows[0..count) of `plane` into dst (count x cols, row-major); runs
  /// of consecutive rows are read at once. Fails on a short read or a
  /// non-finite value (the file changed since it was checked).
  Status read(int plane, const int* rows, int count, float* dst) const;

 private:
  std::shared_ptr<int> fd_;  // closed with the last copy
  std::string path_;
  uint64_t offset_ = 0;
  int planes_ = 0, rows_ = 0, cols_ = 0;
};

}  // namespace attn
