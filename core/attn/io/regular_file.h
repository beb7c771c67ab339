#pragma once
// Every file the program reads is untrusted: a FIFO or a character device put in
// place of model.safetensors, a shard index or refs/main would block open() or
// read() forever, and /dev/zero never ends. Files are therefore opened with
// O_NONBLOCK, checked to be regular files with fstat on the open descriptor (no
// gap between check and use), and read no further than a limit per kind.
#include <cstdint>
#include <string>

#include "attn/status.h"

namespace attn {

/// Size limits per kind of file (bytes). A real file of each kind is far below
/// its limit; past it the file is refused before anything is allocated.
namespace file_limit {
inline constexpr int64_t kModelConfig = int64_t{4} << 20;      // config.json (a few KiB)
inline constexpr int64_t kTokenizerJson = int64_t{256} << 20;  // tokenizer.json (Llama 3: 9 MB, Gemma: 33 MB)
inline constexpr int64_t kTokenizerConfig = int64_t{16}
                                            << 20;          // tokenizer_config.json, special_tokens_map.json
inline constexpr int64_t kVocabulary = int64_t{256} << 20;  // vocab.txt, vocab.json, merges.txt
inline constexpr int64_t kSentencePieceModel = int64_t{64} << 20;  // .model / .spm (Gemma: 4 MB, mT5: 4 MB)
inline constexpr int64_t kShardIndex = int64_t{64} << 20;          // model.safetensors.index.json
inline constexpr int64_t kRefsMain = 4096;                   // a Hugging Face cache's refs/main (a hash)
inline constexpr int64_t kSession = int64_t{64} << 20;       // a saved session
inline constexpr int64_t kCorpusState = int64_t{256} << 20;  // corpus statistics state
}  // namespace file_limit

/// An open read-only descriptor of a regular file, closed on destruction.
class RegularFile {
 public:
  RegularFile() = default;
  RegularFile(RegularFile&& o) noexcept : fd_(o.fd_), size_(o.size_) { o.fd_ = -1; }
  RegularFile& operator=(RegularFile&& o) noexcept;
  RegularFile(const RegularFile&) = delete;
  RegularFile& operator=(const RegularFile&) = delete;
  ~RegularFile();

  /// Opens `path` without blocking; refuses anything but a regular file (FIFO,
  /// socket, device, folder), an empty file (unless allowEmpty) and a file
  /// larger than maxBytes. Errors name the file and the fault.
  static Result<RegularFile> open(const std::string& path, int64_t maxBytes, bool allowEmpty = false);

  int fd() const { return fd_; }
  int64_t size() const { return size_; }
  /// Reads [offset, offset + n) with pread; false on a short or failed read.
  bool readAt(int64_t offset, size_t n, char* dst) const;
  /// Gives the descriptor up to the caller (mmap keeps the file alive on its own).
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  RegularFile(int fd, int64_t size) : fd_(fd), size_(size) {}
  int fd_ = -1;
  int64_t size_ = 0;
};

/// The whole of a regular file of at most maxBytes bytes (RegularFile::open's checks).
Result<std::string> readRegularFile(const std::string& path, int64_t maxBytes, bool allowEmpty = false);

}  // namespace attn
