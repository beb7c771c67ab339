#include "attn_ui/window/process_tuning.h"

#include "attn/engine/large_pages.h"

namespace attn::ui {

void keepLargeAllocationsInHeap() { attn::preferLargePages(); }

}  // namespace attn::ui
