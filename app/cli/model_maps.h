#pragma once
// run --model at long N: which maps to write (--layer, --head, --rows, --pool)
// and the refusal of a request whose maps exceed the memory budget. Past the
// budget, or when a part of the maps is asked for, the model runs streamed (no
// N x N array): the file gets every head's measures and only the maps asked
// for, recomputed from the kept q/k.
#include <CLI/CLI.hpp>
#include <string>

#include "attn/io/npz_stream.h"
#include "model_request.h"
#include "options.h"

namespace attn::cli {

struct ModelMapOptions {
  int head = 0;                    // --head: 1-based, 0 = every head
  std::string rows;                // --rows a:b: query rows a..b-1 (0-based, b excluded, as numpy)
  int pool = 0;                    // --pool B: B x B blocks
  std::string poolMode = "max";    // --pool-mode: max or mean
  std::string qkDtype = "f16";     // --qk-dtype: what the streamed forward keeps of q and k
  bool profile = false;            // --profile: stage times and the q/k store size on stderr
  std::string nextTokens = "all";  // --next-tokens: all, last or none (causal models' top 5)
  bool partial() const { return head != 0 || !rows.empty() || pool > 0; }
};

void addModelMapOptions(CLI::App& cmd, ModelMapOptions& m);
/// --next-tokens into the run options (topK, topKEveryPosition).
void applyNextTokens(const ModelMapOptions& m, models::RunOptions& ro);

/// Decides, once the text is encoded, whether the run materializes every map (the request
/// fits the budget and asks for whole maps) or streams (`streamed` set, the run options
/// changed); refuses a request over the budget with its size and the options that shrink it.
Status planModelMaps(const models::ModelInfo& info, const models::Encoding& enc, const CommonOptions& opts,
                     const ModelMapOptions& maps, models::RunOptions& ro, bool& streamed);

/// Writes a streamed run: the maps asked for (weights [L', H', rows, N] or pooled
/// [L', H', ceil(N/B), ceil(N/B)]), every head's measures and per-row entropy, the tokens, ids
/// and next-token predictions.
int writeStreamedModel(const ModelRequest& req, const CommonOptions& opts, const ModelMapOptions& maps,
                       const std::string& out, NpyFloat mapType);

}  // namespace attn::cli
