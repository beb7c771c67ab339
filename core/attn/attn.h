#pragma once
// Umbrella header for attnscope::core.
#include "attn/engine.h"
#include "attn/init.h"
#include "attn/mask.h"
#include "attn/metrics.h"
#include "attn/scores.h"
#include "attn/spec.h"
#include "attn/status.h"
#include "attn/tensor.h"
#include "attn/tokenizer.h"
