#pragma once
// The attention variants beside the engine: segment memory
// (Transformer-XL), adaptive span and dynamic convolution, multi-hop attention,
// reduced precision and INT8 quantization. Each takes plain Eigen inputs (or an
// engine result) and returns every number its view draws.
#include "attn/variants/adaptive_span.h"
#include "attn/variants/dynamic_conv.h"
#include "attn/variants/kv_cache.h"
#include "attn/variants/multi_hop.h"
#include "attn/variants/precision.h"
#include "attn/variants/segment_memory.h"
#include "attn/variants/variant_rows.h"
