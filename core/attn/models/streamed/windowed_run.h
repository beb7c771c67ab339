#pragma once
// A text longer than a causal model's context, read through a sliding window:
// windows of W tokens every S tokens (the last one ending at the text's end),
// each run by the streamed forward with positions from 0, as Hugging Face's
// strided perplexity evaluation reads a long text ("Perplexity of fixed-length
// models"). Every row is measured once, in the first window that holds it with
// the most tokens before it: a window measures the rows past the previous
// window's end, so each has at least W - S tokens of context (the first window's
// rows: those before them). Only the measures are kept (nothing N x N, no q/k).
#include <vector>

#include "attn/models/model.h"
#include "attn/status.h"

namespace attn::models {

struct TextWindow {
  int start = 0;     // the window's first token in the text
  int length = 0;    // its tokens
  int firstRow = 0;  // its first measured row, counted in the window
};

/// Windows of `window` tokens every `stride` over `n` tokens; one window when n <= window.
/// Errors: window < 2, stride < 1 or stride > window.
Result<std::vector<TextWindow>> slidingWindows(int n, int window, int stride);

/// Tokens [start, start + length) of `enc`, every per-token field sliced alike.
Encoding sliceEncoding(const Encoding& enc, int start, int length);

/// `enc` run a window at a time (slidingWindows) with `options` made a streamed, measures-only
/// run: ModelRun::streamedLayers holds every layer's measures of all enc.size() rows, encoding
/// the whole text; nothing else is filled. A causal model only (a bidirectional one's rows would
/// see keys on both sides of a cut); errors name the window and its tokens. Progress runs over
/// all the windows; a cancel stops between layers.
Result<ModelRun> runWindowed(const Model& model, const Encoding& enc, int window, int stride,
                             RunOptions options, const ProgressFn& progress = {});

}  // namespace attn::models
