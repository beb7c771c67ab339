#pragma once
// Software prefetch of the next group of weight rows while the current group's token tiles run.
#include <cstdint>

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace attn::models::gguf {

/// Prefetches part `part` of `parts` of the bytes [begin, begin + bytes) into L2, one line per
/// 64 bytes. The quantized products repack a group of 16 weight rows (34-140 KB of the mapped
/// file, read once per product) before its token tiles run; read cold, the repack waits on
/// memory. Spreading the next group's lines over the current group's tiles keeps a few dozen
/// misses in flight while the tiles compute. A prefetch never faults.
inline void prefetchGroupPart(const char* begin, int64_t bytes, int64_t part, int64_t parts) {
#if defined(__SSE__)
  constexpr int64_t kLine = 64;
  const int64_t lines = (bytes + kLine - 1) / kLine;
  const int64_t from = lines * part / parts, to = lines * (part + 1) / parts;
  for (int64_t i = from; i < to; ++i) _mm_prefetch(begin + i * kLine, _MM_HINT_T1);
#else
  (void)begin, (void)bytes, (void)part, (void)parts;
#endif
}

}  // namespace attn::models::gguf
