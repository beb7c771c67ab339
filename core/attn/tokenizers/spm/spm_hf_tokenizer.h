#pragma once
// An HfTokenizer over a SentencePiece .model file, for model folders that ship
// one without a tokenizer.json, as transformers' slow tokenizers read them:
// LlamaTokenizer / GemmaTokenizer (BOS, then the pieces; add_bos_token and
// add_eos_token from tokenizer_config.json), T5Tokenizer (the pieces, then EOS)
// and MarianTokenizer (source.spm for the pieces, vocab.json for their ids,
// then EOS). The model's unknown, BOS, EOS and pad pieces written in the text
// are matched as special tokens, as the converted fast tokenizers do.
#include <string>
#include <vector>

#include "attn/status.h"
#include "attn/tokenizers/hf/hf_tokenizer.h"
#include "attn/tokenizers/spm/sentencepiece_model.h"

namespace attn::models {

/// The .model files a folder is searched for, in order.
inline constexpr const char* kSentencePieceFileNames[] = {"tokenizer.model", "spiece.model", "source.spm"};

/// `modelPath` is one of kSentencePieceFileNames inside `dir`; `modelType` is
/// config.json's model_type. Errors name the file and the fault.
Result<HfTokenizer> sentencePieceTokenizer(const std::string& dir, const std::string& modelPath,
                                           const std::string& modelType);

/// A model built in memory (a GGUF file's vocabulary): the pieces `specials` names stay whole
/// when written in the text; `bosId` / `eosId` >= 0 are added before / after the pieces.
/// `label` is kindName()'s text; `source` names the model in errors.
Result<HfTokenizer> sentencePieceTokenizerFromModel(SentencePieceModel model,
                                                    const std::vector<int>& specials, int bosId, int eosId,
                                                    const std::string& label, const std::string& source);

}  // namespace attn::models
