#include "attn/models/staged_reads.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <utility>

#include "attn/io/regular_file.h"

namespace attn::models {
namespace {

StagedReads initialPolicy() {
  const char* v = std::getenv("ATTNSCOPE_STAGED_READS");
  if (v && std::strcmp(v, "always") == 0) return StagedReads::Always;
  if (v && std::strcmp(v, "never") == 0) return StagedReads::Never;
  return StagedReads::Auto;
}

std::atomic<StagedReads>& policy() {
  static std::atomic<StagedReads> p{initialPolicy()};
  return p;
}

std::atomic<size_t> gStagedBytes{0};

struct Mapping {
  const char* begin = nullptr;
  size_t size = 0;
  RegularFile file;
  std::once_flag measured;
  bool costly = false;
};

struct Registry {
  std::shared_mutex mutex;
  std::vector<std::unique_ptr<Mapping>> mappings;
};

Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: mappings may outlive static destruction order
  return *r;
}

/// Eight windows of 64 pages spread over the file, mapped in (no faults left), then one byte of
/// each page read once: a cache and TLB miss, 0.05-0.2 us a page on bare metal or for pages
/// mapped 2 MB at a time; about 1 us under a hypervisor that shadows the 4 KB entries (measured
/// on the project's VMs). The threshold sits between the two.
bool measureFirstTouch(const char* base, size_t size) {
  constexpr size_t kWindows = 8, kPages = 64;
  constexpr double kCostlySeconds = 0.5e-6;
  const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  if (size < 4 * kWindows * kPages * page) return false;  // a small file: nothing to gain
  size_t at[kWindows];
  for (size_t w = 0; w < kWindows; ++w) {
    at[w] = size / (2 * kWindows) * (2 * w + 1) / page * page;
#if defined(MADV_POPULATE_READ)
    ::madvise(const_cast<char*>(base) + at[w], kPages * page, MADV_POPULATE_READ);
#endif
  }
  // Each window timed apart and the median taken: a thread descheduled in the middle of one
  // window (a loaded machine) does not decide it.
  double seconds[kWindows];
  for (size_t w = 0; w < kWindows; ++w) {
    const auto t0 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < kPages; ++i) (void)*static_cast<const volatile char*>(base + at[w] + i * page);
    seconds[w] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  std::sort(seconds, seconds + kWindows);
  return (seconds[kWindows / 2 - 1] + seconds[kWindows / 2]) / 2 > kCostlySeconds * kPages;
}

bool costly(Mapping& m) {
  std::call_once(m.measured, [&m] { m.costly = measureFirstTouch(m.begin, m.size); });
  return m.costly;
}

}  // namespace

void setStagedReads(StagedReads p) { policy().store(p, std::memory_order_relaxed); }
StagedReads stagedReads() { return policy().load(std::memory_order_relaxed); }

void registerMapping(const char* begin, size_t size, RegularFile file) {
  auto m = std::make_unique<Mapping>();
  m->begin = begin, m->size = size, m->file = std::move(file);
  auto& r = registry();
  std::unique_lock lock(r.mutex);
  r.mappings.push_back(std::move(m));
}

void unregisterMapping(const char* begin) {
  auto& r = registry();
  std::unique_lock lock(r.mutex);
  r.mappings.erase(std::remove_if(r.mappings.begin(), r.mappings.end(),
                                  [begin](const std::unique_ptr<Mapping>& m) { return m->begin == begin; }),
                   r.mappings.end());
}

bool costlyFirstTouch(const char* begin) {
  Mapping* found = nullptr;
  {
    auto& r = registry();
    std::shared_lock lock(r.mutex);
    for (const auto& m : r.mappings)
      if (m->begin == begin) found = m.get();
  }
  return found && costly(*found);
}

bool readsStaged(const char* begin) {
  const StagedReads p = stagedReads();
  return p == StagedReads::Always || (p == StagedReads::Auto && costlyFirstTouch(begin));
}

const char* stagedBytes(const char* src, size_t bytes, std::vector<char>& buffer) {
  const StagedReads p = stagedReads();
  if (p == StagedReads::Never || bytes == 0) return src;
  Mapping* file = nullptr;
  size_t offset = 0;
  {
    // As integers: the pointer may lie in no mapped file at all.
    const auto at = reinterpret_cast<uintptr_t>(src);
    auto& r = registry();
    std::shared_lock lock(r.mutex);
    for (const auto& m : r.mappings) {
      const auto begin = reinterpret_cast<uintptr_t>(m->begin);
      if (at >= begin && bytes <= m->size && at - begin <= m->size - bytes) {
        file = m.get(), offset = at - begin;
        break;
      }
    }
  }
  // The mapping (and so its entry) stays while a product reads its weights: the model holds it.
  if (!file || (p == StagedReads::Auto && !costly(*file))) return src;
  if (buffer.size() < bytes) buffer.resize(bytes);
  if (!file->file.readAt(static_cast<int64_t>(offset), bytes, buffer.data())) return src;
  gStagedBytes.fetch_add(bytes, std::memory_order_relaxed);
  return buffer.data();
}

size_t stagedBytesRead() { return gStagedBytes.load(std::memory_order_relaxed); }

}  // namespace attn::models
