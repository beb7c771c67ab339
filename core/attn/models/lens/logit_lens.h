#pragma once
// The logit lens (nostalgebraist 2020, "interpreting GPT: the logit lens"): every
// layer's residual stream read out through the model's own final norm and
// unembedding, as if the network stopped there. Row 0 is the embeddings' output,
// row l the output of layer l, row L the last layer (the model's own prediction).
// Causal models go through the final norm (GPT-2 ln_f, Llama RMSNorm) and the
// lm_head; BERT-style models through the masked-LM head at every position.
#include <cstddef>
#include <vector>

namespace attn::models {

struct LogitLens {
  int rows = 0;                  // layers + 1
  int positions = 0;             // N
  int k = 0;                     // tokens kept per cell (5, or the vocabulary when smaller)
  std::vector<int> topIds;       // [rows, positions, k], most probable first (ties: smaller id)
  std::vector<float> topProbs;   // [rows, positions, k]
  std::vector<int> finalIds;     // [positions]: the model's own top-1, row L's first id
  std::vector<int> finalRank;    // [rows, positions]: rank of finalIds[i] in that row (0 = top)
  std::vector<float> finalProb;  // [rows, positions]: its probability there

  size_t cell(int row, int position) const {
    return static_cast<size_t>(row) * static_cast<size_t>(positions) + static_cast<size_t>(position);
  }
  int topId(int row, int position, int j) const { return topIds[cell(row, position) * k + j]; }
  float topProb(int row, int position, int j) const { return topProbs[cell(row, position) * k + j]; }
  int rank(int row, int position) const { return finalRank[cell(row, position)]; }
  float prob(int row, int position) const { return finalProb[cell(row, position)]; }
};

/// One cell of the lens from a logits row [vocab]: the softmax (in double, the max
/// subtracted) of its k most probable ids, and the probability and rank of `finalId`
/// (ids with a larger logit, or an equal one and a smaller id, rank before it).
/// `finalId` < 0 (or past the vocabulary) stands for the row's own top-1.
struct LensCell {
  std::vector<int> ids;
  std::vector<float> probs;
  int finalId = 0;
  int finalRank = 0;
  float finalProb = 0;
};
LensCell lensCell(const float* logits, int vocab, int k, int finalId);

}  // namespace attn::models
