#pragma once
// Per-row and per-head measures of attention weights: umbrella header over
// attn/analysis/ (one small header per role).
#include "attn/analysis/approximation.h"
#include "attn/analysis/entropy.h"
#include "attn/analysis/head_analysis.h"
#include "attn/analysis/head_similarity.h"
#include "attn/analysis/head_types.h"
#include "attn/analysis/layers.h"
#include "attn/analysis/measure_table.h"
#include "attn/analysis/row_measures.h"
#include "attn/analysis/streamed_analysis.h"
