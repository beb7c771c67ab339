#pragma once
// An HfTokenizer over a SentencePiece .model file, for model folders that ship
// one without a tokenizer.json, as transformers' slow tokenizers read them:
// LlamaTokenizer / GemmaTokenizer (BOS, then the pieces; add_bos_token and
// add_eos_token from tokenizer_config.json), T5Tokenizer (the pieces, then EOS)
// and MarianTokenizer (source.spm for the pieces, vocab.json for their ids,
// then EOS). The model's unknown, BOS, EOS and pad pieces written in the text
// are matched as special tokens, as the converted fast tokenizers do.
#include <string>

#include "attn/status.h"
#include "attn/tokenizers/hf/hf_tokenizer.h"

namespace attn::models {

/// The .model files a folder is searched for, in order.
inline constexpr const char* kSentencePieceFileNames[] = {"tokenizer.model", "spiece.model", "source.spm"};

/// `modelPath` is one of kSentencePieceFileNames inside `dir`; `modelType` is
/// config.json's model_type. Errors name the file and the fault.
Result<HfTokenizer> sentencePieceTokenizer(const std::string& dir, const std::string& modelPath,
                                           const std::string& modelType);

}  // namespace attn::models
