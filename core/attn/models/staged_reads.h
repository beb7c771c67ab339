#pragma once
// Weight panels read from the page cache with pread() instead of through a file's mapping,
// where the first touch of the mapping's pages is measured to be expensive.
//
// Why: the products read each weight once per forward. Through a mapping, the first touch
// of each 4 KB page-table entry in a process costs little on bare metal (a TLB and cache
// miss), but about 1 us under a hypervisor that shadows the guest's page tables (measured on
// the project's 2-core VMs: 0.3-0.4 s for a 1.3 GB file in every new process, barely shared
// between threads). Pages the page cache holds in 2 MB folios (what a first read through
// MappedFile's mapping, which asks for huge pages, leaves) are mapped 2 MB at a time and cost
// nothing of the sort; a file written moments ago (a fresh download, a converted model) sits
// in small folios until evicted. There a pread() of each panel into a reused buffer (the
// kernel copies through its own long-lived mapping, 6-7 GB/s a thread) is the cheaper read.
// Either way the bytes, and so every result, are the same.
#include <cstddef>
#include <vector>

namespace attn {
class RegularFile;
}

namespace attn::models {

enum class StagedReads {
  Auto,    // pread for files whose first touch through the mapping is measured costly (the default)
  Always,  // pread whenever the bytes lie in a mapped model file (tests, measurements)
  Never,   // always read through the mapping
};

/// The process-wide policy; ATTNSCOPE_STAGED_READS=auto|always|never sets the initial one.
void setStagedReads(StagedReads policy);
StagedReads stagedReads();

/// [src, src + bytes) of a mapped model file: copied into `buffer` (grown as needed) and the
/// copy's start returned when the policy stages that file's reads; otherwise (or when the
/// bytes are not in one registered file, or the read fails) `src` itself.
const char* stagedBytes(const char* src, size_t bytes, std::vector<char>& buffer);

/// Whether reading a page of the mapping at `begin` for the first time is expensive here:
/// measured once per mapping, on 512 pages of the file, when first asked (false for a file
/// under 8 MB or an address that is no registered mapping's start).
bool costlyFirstTouch(const char* begin);

/// Whether stagedBytes() copies the bytes of the mapping at `begin` under the current policy
/// (then populating the mapping's pages ahead is wasted work).
bool readsStaged(const char* begin);

/// Bytes copied by stagedBytes() in this process so far (a diagnostic: run --profile, tests).
size_t stagedBytesRead();

/// Sets the policy for a scope, then puts the previous one back.
class StagedReadsScope {
 public:
  explicit StagedReadsScope(StagedReads p) : previous_(stagedReads()) { setStagedReads(p); }
  ~StagedReadsScope() { setStagedReads(previous_); }
  StagedReadsScope(const StagedReadsScope&) = delete;
  StagedReadsScope& operator=(const StagedReadsScope&) = delete;

 private:
  StagedReads previous_;
};

/// MappedFile's registration of a mapping [begin, begin + size) of `file` (kept open for the
/// reads) and its removal before the unmap; not for other callers.
void registerMapping(const char* begin, size_t size, RegularFile file);
void unregisterMapping(const char* begin);

}  // namespace attn::models
