#pragma once

namespace attn::ui {

/// Keeps freed N x N buffers in the heap instead of returning them to the OS, and
/// asks for 2 MiB pages for it (attn/engine/large_pages.h, as the CLI does). Each
/// recompute allocates several N x N matrices per head; with glibc's defaults large
/// blocks are mmap'd and unmapped every time, and first touch of fresh pages is
/// expensive (docs/performance.md): it dominated a 12-head N = 512 recompute, and the
/// 604 MB of GPT-2 small's maps at 1,024 tokens. Call once at start-up, before other
/// threads exist.
void keepLargeAllocationsInHeap();

}  // namespace attn::ui
