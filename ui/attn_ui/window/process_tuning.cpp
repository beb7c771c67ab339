#include "attn_ui/window/process_tuning.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace attn::ui {

void keepLargeAllocationsInHeap() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 256 << 20);  // blocks up to 256 MB come from the heap
  mallopt(M_TRIM_THRESHOLD, 1 << 30);    // and stay there when freed (up to 1 GB slack)
#endif
}

}  // namespace attn::ui
