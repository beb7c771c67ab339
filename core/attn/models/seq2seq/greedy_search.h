#pragma once
// The next token of greedy decoding as transformers' generate picks it: the logits
// processors BART's and Marian's generation configs turn on (NoRepeatNGramLogitsProcessor,
// NoBadWordsLogitsProcessor, ForcedBOSTokenLogitsProcessor, ForcedEOSTokenLogitsProcessor),
// then the argmax.
#include <vector>

#include "attn/models/seq2seq/seq2seq_config.h"

namespace attn::models {

/// Tokens that would repeat an n-gram already in `ids` (n = g.noRepeatNgramSize; none when 0).
std::vector<int> bannedNgramTokens(const std::vector<int>& ids, int n);

/// The processors on one row of scores [vocab] in place, for a decoder holding `ids`: banned
/// tokens -inf; a forced token 0 and every other -inf (what beam search ranks).
void processScores(float* scores, int vocab, const std::vector<int>& ids, const GenerationSettings& g,
                   int maxLength);

/// The one token ForcedBOS (at length 1) or ForcedEOS (at maxLength - 1) leaves possible, the
/// smallest of an EOS list (torch.argmax over several 0 scores); -1 when nothing is forced.
int forcedGreedyToken(int vocab, const std::vector<int>& ids, const GenerationSettings& g, int maxLength);

/// The tokens the no-repeat-n-gram and bad-words processors ban after `ids`, ascending.
std::vector<int> greedyBannedTokens(const std::vector<int>& ids, const GenerationSettings& g);

/// The argmax of `logits` [vocab] after the processors, for a decoder holding `ids`
/// (decoder start first) that may grow to `maxLength`; ties go to the smaller id.
int greedyNextToken(const float* logits, int vocab, const std::vector<int>& ids, const GenerationSettings& g,
                    int maxLength);

}  // namespace attn::models
