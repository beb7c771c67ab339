#include "attn/models/safetensors_mmap.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <utility>

#include "attn/io/regular_file.h"
#include "attn/models/staged_reads.h"

namespace attn::models {

Result<std::unique_ptr<MappedFile>> MappedFile::open(const std::string& path) {
  auto f = RegularFile::open(path, std::numeric_limits<int64_t>::max());
  if (!f) return f.error();
  const auto size = static_cast<size_t>(f->size());
  const FileStamp stamp = stampOf(f->fd());
  void* addr = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, f->fd(), 0);
  const int err = errno;
  if (addr == MAP_FAILED) return Error{fmt::format("{}: cannot map file ({})", path, std::strerror(err))};
  // Pages this process's first touch reads from disk then come in 2 MB folios whatever the
  // device's read-ahead (the kernel's VM_HUGEPAGE path in do_sync_mmap_readahead), and are
  // mapped 2 MB at a time, in this run and every later one while they stay cached: 173
  // page-table entries for ViT-B's 346 MB instead of 84 K 4 KB ones (filled 16 per fault by
  // fault-around; under a shadow-paging hypervisor each also costs a host fault on first touch:
  // the first scan of those weights took 0.5 s in 4 KB pages, 0.05 s in 2 MB ones, on a loaded
  // 2-core VM). A hint: a kernel without transparent huge pages refuses it, nothing changes.
  ::madvise(addr, size, MADV_HUGEPAGE);
  // The descriptor stays open, with the mapping's address, for staged reads (staged_reads.h).
  registerMapping(static_cast<const char*>(addr), size, std::move(*f));
  return std::unique_ptr<MappedFile>(new MappedFile(addr, size, stamp));
}

MappedFile::~MappedFile() {
  if (!addr_) return;
  unregisterMapping(static_cast<const char*>(addr_));
  ::munmap(addr_, size_);
}

void MappedFile::release(size_t offset, size_t bytes) const {
  // Whole pages strictly inside the range only: a neighbour's bytes may share the edge pages.
  const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t begin = (offset + page - 1) / page * page, end = (offset + bytes) / page * page;
  if (end > begin) ::madvise(static_cast<char*>(addr_) + begin, end - begin, MADV_DONTNEED);
}

int safetensorsDtypeSize(std::string_view d) {
  if (d == "F64" || d == "I64" || d == "U64") return 8;
  if (d == "F32" || d == "I32" || d == "U32") return 4;
  if (d == "F16" || d == "BF16" || d == "I16" || d == "U16") return 2;
  if (d == "I8" || d == "U8" || d == "BOOL") return 1;
  return 0;
}

Result<std::shared_ptr<SafetensorsFile>> SafetensorsFile::open(const std::string& path) {
  auto map = MappedFile::open(path);
  if (!map) return map.error();
  const MappedFile& m = **map;
  if (m.size() < 8) return Error{path + ": too short for a safetensors file (truncated?)"};
  const uint64_t len = safetensorsHeaderLength(std::string_view(m.data(), 8));
  if (auto st = checkSafetensorsHeaderLength(len, m.size(), path); !st) return st.error();
  const auto dataStart = static_cast<int64_t>(8 + len);
  ReadLimits limits;
  limits.maxElements = static_cast<int64_t>(m.size());  // a tensor has at least one byte per element
  limits.maxBytes = int64_t{4} * static_cast<int64_t>(m.size());  // as f32, from 1-byte dtypes at most
  auto entries = parseSafetensorsHeader(std::string_view(m.data() + 8, len),
                                        static_cast<int64_t>(m.size()) - dataStart, path, limits);
  if (!entries) return entries.error();
  auto f = std::make_shared<SafetensorsFile>();
  f->path_ = path;
  f->map_ = std::move(*map);
  f->dataStart_ = dataStart;
  f->entries_ = std::move(*entries);
  for (size_t i = 0; i < f->entries_.size(); ++i) f->byName_.emplace(f->entries_[i].name, i);
  return f;
}

const SafetensorsEntry* SafetensorsFile::find(std::string_view name) const {
  auto it = byName_.find(std::string(name));
  return it == byName_.end() ? nullptr : &entries_[it->second];
}

std::string_view SafetensorsFile::bytes(const SafetensorsEntry& e) const {
  return {map_->data() + dataStart_ + e.begin, static_cast<size_t>(e.end - e.begin)};
}

void SafetensorsFile::release(const SafetensorsEntry& e) const {
  map_->release(static_cast<size_t>(dataStart_ + e.begin), static_cast<size_t>(e.end - e.begin));
}

}  // namespace attn::models
