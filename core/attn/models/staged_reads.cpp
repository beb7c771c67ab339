#include "attn/models/staged_reads.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <shared_mutex>

#include "attn/models/safetensors_mmap.h"

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

struct Registry {
  std::shared_mutex mutex;
  std::vector<const MappedFile*> files;
};

Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: mappings may outlive static destruction order
  return *r;
}

}  // namespace

void setStagedReads(StagedReads p) { policy().store(p, std::memory_order_relaxed); }
StagedReads stagedReads() { return policy().load(std::memory_order_relaxed); }

void registerMapping(const MappedFile* file) {
  std::unique_lock lock(registry().mutex);
  registry().files.push_back(file);
}

void unregisterMapping(const MappedFile* file) {
  auto& r = registry();
  std::unique_lock lock(r.mutex);
  r.files.erase(std::remove(r.files.begin(), r.files.end(), file), r.files.end());
}

const char* stagedBytes(const char* src, size_t bytes, std::vector<char>& buffer) {
  const StagedReads p = stagedReads();
  if (p == StagedReads::Never || bytes == 0) return src;
  const MappedFile* file = nullptr;
  size_t offset = 0;
  {
    // As integers: the pointer may lie in no mapped file at all.
    const auto at = reinterpret_cast<uintptr_t>(src);
    auto& r = registry();
    std::shared_lock lock(r.mutex);
    for (const MappedFile* f : r.files) {
      const auto begin = reinterpret_cast<uintptr_t>(f->data());
      if (at >= begin && bytes <= f->size() && at - begin <= f->size() - bytes) {
        file = f, offset = at - begin;
        break;
      }
    }
  }
  // The file stays mapped while a product reads its weights (the model holds it).
  if (!file || (p == StagedReads::Auto && !file->costlyFirstTouch())) return src;
  if (buffer.size() < bytes) buffer.resize(bytes);
  if (!file->readAt(offset, bytes, buffer.data())) return src;
  gStagedBytes.fetch_add(bytes, std::memory_order_relaxed);
  return buffer.data();
}

size_t stagedBytesRead() { return gStagedBytes.load(std::memory_order_relaxed); }

}  // namespace attn::models
