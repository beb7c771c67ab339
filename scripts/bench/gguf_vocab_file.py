#!/usr/bin/python3
"""A tiny Llama-shaped GGUF (1 layer, d_model 64, F32 weights) with a Llama 3-sized byte-level
vocabulary, to time the embedded tokenizer's start-up apart from any forward:

    /usr/bin/python3 scripts/bench/gguf_vocab_file.py OUT.gguf
    /usr/bin/time -v build/lean/bin/attnscope-cli run --model OUT.gguf --text "..." --out R.npz

128,000 tokens grown from GPT-2's 256 byte characters by seeded random merges, more merges from
other splits of the same tokens (146,875 in all: Llama 3 has 280k), Llama 3's BOS / EOS and
reserved control tokens up to 128,256, `llama-bpe` pre-tokenizer. Not run by CI.
"""
import os, sys, random, numpy as np
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "scripts")); sys.path.insert(0, HERE)
import gguf_ref as G
import gguf_vs_llamacpp as B
rng = random.Random(1)
byte_tokens = B.vocabulary()[2][2][:256]
tokens = list(byte_tokens); index = {t: i for i, t in enumerate(tokens)}; merges = []; pairs = set()
while len(tokens) < 128000:
    a = tokens[rng.randrange(len(tokens))] if rng.random() < 0.7 else byte_tokens[rng.randrange(256)]
    b = tokens[rng.randrange(len(tokens))] if rng.random() < 0.3 else byte_tokens[rng.randrange(256)]
    t = a + b
    if (a, b) in pairs or t in index or len(t) > 24: continue
    pairs.add((a, b)); merges.append(f"{a} {b}"); index[t] = len(tokens); tokens.append(t)
extra = [(t[:k], t[k:]) for t in tokens for k in range(1, len(t)) if t[:k] in index and t[k:] in index]
rng.shuffle(extra)
for a, b in extra:
    if len(merges) >= 280000: break
    if (a, b) not in pairs:
        pairs.add((a, b)); merges.append(f"{a} {b}")
types = [1] * len(tokens)
while len(tokens) < 128256:
    i = len(tokens); tokens.append({128000: "<|begin_of_text|>", 128001: "<|end_of_text|>"}.get(i, f"<|reserved_special_token_{i}|>")); types.append(3)
d, f, V = 64, 128, 128256
r = np.random.default_rng(1)
def m(rows, cols): return (r.standard_normal(rows * cols) / np.sqrt(cols)).astype("<f4").tobytes()
ones = np.ones(d, "<f4").tobytes()
tensors = [("token_embd.weight", [d, V], "F32", m(V, d)), ("blk.0.attn_norm.weight", [d], "F32", ones),
           ("blk.0.attn_q.weight", [d, d], "F32", m(d, d)), ("blk.0.attn_k.weight", [d, d], "F32", m(d, d)),
           ("blk.0.attn_v.weight", [d, d], "F32", m(d, d)), ("blk.0.attn_output.weight", [d, d], "F32", m(d, d)),
           ("blk.0.ffn_norm.weight", [d], "F32", ones), ("blk.0.ffn_gate.weight", [d, f], "F32", m(f, d)),
           ("blk.0.ffn_up.weight", [d, f], "F32", m(f, d)), ("blk.0.ffn_down.weight", [f, d], "F32", m(d, f)),
           ("output_norm.weight", [d], "F32", ones)]
a = "llama"
meta = [("general.architecture", "str", a), ("general.name", "str", "tiny-llama3-vocab"), ("general.file_type", "u32", 0),
        (f"{a}.context_length", "u32", 2048), (f"{a}.embedding_length", "u32", d), (f"{a}.block_count", "u32", 1),
        (f"{a}.feed_forward_length", "u32", f), (f"{a}.attention.head_count", "u32", 2), (f"{a}.attention.head_count_kv", "u32", 2),
        (f"{a}.rope.freq_base", "f32", 500000.0), (f"{a}.attention.layer_norm_rms_epsilon", "f32", 1e-5),
        (f"{a}.rope.dimension_count", "u32", 32), (f"{a}.vocab_size", "u32", V),
        ("tokenizer.ggml.model", "str", "gpt2"), ("tokenizer.ggml.pre", "str", "llama-bpe"),
        ("tokenizer.ggml.tokens", "arr:str", tokens), ("tokenizer.ggml.token_type", "arr:i32", types),
        ("tokenizer.ggml.merges", "arr:str", merges), ("tokenizer.ggml.bos_token_id", "u32", 128000),
        ("tokenizer.ggml.eos_token_id", "u32", 128001), ("tokenizer.ggml.add_bos_token", "bool", True)]
G.write_gguf(sys.argv[1], meta, tensors)
print(len(tokens), len(merges))
