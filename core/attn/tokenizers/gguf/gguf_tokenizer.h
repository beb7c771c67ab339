#pragma once
// The tokenizer a GGUF file embeds (tokenizer.ggml.*), rebuilt on the project's
// own tokenizers so it splits text as llama.cpp does:
//  - model "llama": SentencePiece BPE over the stored pieces, scores and token
//    types (byte fallback, "▁", a space prefix unless tokenizer.ggml.add_space_prefix
//    is false), as a ModelProto handed to libsentencepiece;
//  - model "gpt2": byte-level BPE from tokenizer.ggml.tokens and .merges, with the
//    pre-tokenizer tokenizer.ggml.pre names (gpt-2, llama-bpe, qwen2, smollm, ...).
// Control tokens (tokenizer.ggml.token_type 3) written in the text stay whole;
// BOS / EOS are added as tokenizer.ggml.add_bos_token / add_eos_token say.
#include "attn/models/gguf/gguf_file.h"
#include "attn/status.h"
#include "attn/tokenizers/hf/hf_tokenizer.h"

namespace attn::models::gguf {

/// Errors name the file and the key at fault.
Result<HfTokenizer> ggufTokenizer(const GgufFile& f);

}  // namespace attn::models::gguf
