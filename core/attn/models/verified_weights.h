#pragma once
// Model files whose weights were scanned for NaN and Inf and found finite, remembered in the
// user's cache folder, so that opening the same unchanged files again skips the scan.
//
// The scan (finite_scan.h) reads every weight once more than the forward does: 0.02-0.05 s of
// GPT-2 small's (498 MB, F32) 0.16-0.21 s `run` at 128 tokens, 0.08 s for a Llama-1B-shaped BF16
// folder (2.5 GB) and 0.1 s for its BF16 GGUF (2-core Zen 5 VM). A file is known by its device, inode, size,
// modification and status-change times, as build tools and git's index know a file unchanged:
// any write to it moves its status-change time (ctime), which no user call can set back, so a
// changed file is scanned again. The record is a cache: one that cannot be read or written is
// ignored, and then every open scans.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attn::models {

/// What identifies a file's contents without reading them (fstat of the open descriptor).
struct FileStamp {
  uint64_t device = 0, inode = 0;
  int64_t size = 0, mtimeNs = 0, ctimeNs = 0;
  bool valid = false;   // fstat failed: never matches a record
  int64_t takenNs = 0;  // when the stamp was taken (the realtime clock); not part of the identity
  bool operator==(const FileStamp& o) const {
    return valid && o.valid && device == o.device && inode == o.inode && size == o.size &&
           mtimeNs == o.mtimeNs && ctimeNs == o.ctimeNs;
  }
};

FileStamp stampOf(int fd);

/// A model's weights as scanned: its files and a digest of the tensors checked in them (names,
/// types and byte ranges), so a config that asks for other tensors of the same files scans again.
struct WeightsIdentity {
  std::vector<FileStamp> files;
  uint64_t tensors = 0;
};

/// FNV-1a, 64 bits: the tensors' digest is built from these steps.
inline uint64_t digestStep(uint64_t h, const void* p, size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 0x100000001B3ull;
  return h;
}
inline constexpr uint64_t kDigestStart = 0xCBF29CE484222325ull;

/// Whether the record holds `id` (every file's stamp and the tensors' digest equal).
bool knownFinite(const WeightsIdentity& id);
/// Adds `id` to the record (the newest 64 kept); written to a new file and renamed over the old.
/// Not a file changed less than a second before its stamp was taken: the kernel's file times
/// come from a clock that ticks every few milliseconds, so a write just after the stamp could
/// leave the same ctime (git's "racily clean" entries).
void rememberFinite(const WeightsIdentity& id);

/// The record's folder: nullopt (the default) resolves $XDG_CACHE_HOME/attnscope, else
/// $HOME/.cache/attnscope; "" turns the record off.
void setVerifiedWeightsDir(std::optional<std::string> dir);
/// The record file's path, or "" when off.
std::string verifiedWeightsPath();

/// Bytes of weights scanned, and bytes known finite from the record, since the process started
/// (`run --profile` prints them).
int64_t finiteScannedBytes();
int64_t finiteRememberedBytes();
void countFiniteCheck(int64_t bytes, bool remembered);

}  // namespace attn::models
