#pragma once
// Row helpers the attention variants share: a masked softmax whose hidden
// cells are exactly 0, row entropy in nats, and a readable list parser for
// per-head values ("2,4,8"). Plain loops in double: these are teaching-sized
// maps, and a test can follow every number.
#include <string>
#include <string_view>
#include <vector>

#include "attn/status.h"
#include "attn/tensor.h"

namespace attn::variants {

/// Softmax of each row of `logits`; -inf cells are hidden and get exactly 0;
/// a row with every cell hidden stays all 0 (and is listed in `emptyRows`).
Mat maskedSoftmaxRows(const Mat& logits, std::vector<int>* emptyRows = nullptr);

/// -sum p log p over each row's positive entries, in nats.
Vec rowEntropy(const Mat& weights);

/// Mean over rows of KL(p || q) in nats, over cells where p > 0; cells where
/// q is 0 but p is not count as log(p / 1e-12) (a finite, large penalty).
double meanRowKl(const Mat& p, const Mat& q);

/// Fraction of rows whose largest entry is at the same column in both maps
/// (rows that are all 0 in `p` are skipped).
double topOneAgreement(const Mat& p, const Mat& q);

/// Parses "a,b,c" into numbers; one number stands for every head. Errors name
/// `option` and the bad item.
Result<std::vector<double>> parsePerHeadList(std::string_view text, int heads, std::string_view option);

}  // namespace attn::variants
