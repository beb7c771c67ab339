#pragma once
// Umbrella header for attnscope::core.
#include "attn/engine.h"
#include "attn/engine/init.h"
#include "attn/masks/mask.h"
#include "attn/metrics.h"
#include "attn/engine/scores.h"
#include "attn/spec.h"
#include "attn/status.h"
#include "attn/tensor.h"
#include "attn/tokenizers/tokenizer.h"
