#pragma once

namespace attn::ui {

/// Keeps freed N x N buffers in the heap instead of returning them to the OS.
/// Each recompute allocates several N x N matrices per head; with glibc's
/// defaults large blocks are mmap'd and unmapped every time, and first touch of
/// fresh pages is expensive (docs/performance.md), which
/// dominated a 12-head N = 512 recompute. Call once at start-up.
void keepLargeAllocationsInHeap();

}  // namespace attn::ui
