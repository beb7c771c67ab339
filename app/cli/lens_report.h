#pragma once
// The logit lens of a model run (attn/models/lens/logit_lens.h) as `lens` writes
// it: the .npz of the file contract, JSON, CSV and a text table. Row r of the lens
// is the residual stream after layer r (row 0: the embeddings' output), so rows
// are numbered as the 1-based --layer is.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "attn/io/npy_writer.h"
#include "attn/models/model.h"

namespace attn::cli {

using TokenText = std::function<std::string(int)>;

/// lens_top_ids [L+1, N, k] (int32), lens_top_probs [L+1, N, k], lens_final_rank [L+1, N]
/// (int32, 0 = top), lens_final_probs [L+1, N], lens_top_tokens [L+1, N, k] and
/// lens_final_tokens [N] (strings), lens_final_ids [N], tokens [N], ids [N].
void addLensMembers(NpzWriter& npz, const models::LogitLens& lens, const models::Encoding& enc,
                    const TokenText& text);
/// {"rows", "positions", "k", "tokens", "ids", "final": [{"id", "token"}],
///  "layers": [{"layer", "positions": [{"position", "top": [{"id", "token", "prob"}],
///  "final_rank", "final_prob"}]}]}
nlohmann::json lensJson(const models::LogitLens& lens, const models::Encoding& enc, const TokenText& text);
/// layer,position,token,final_token,final_rank,final_prob,top1_token,top1_prob, ... (one line per cell)
std::string lensCsv(const models::LogitLens& lens, const models::Encoding& enc, const TokenText& text);
/// One position (0-based) down every layer: top tokens and the final token's probability and rank.
std::string lensPositionText(const models::LogitLens& lens, const models::Encoding& enc,
                             const TokenText& text, int position);
/// One row (0..L) across every position.
std::string lensLayerText(const models::LogitLens& lens, const models::Encoding& enc, const TokenText& text,
                          int row);

}  // namespace attn::cli
