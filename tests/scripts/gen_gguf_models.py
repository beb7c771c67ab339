#!/usr/bin/python3
"""GGUF model fixtures: the Hugging Face model folders of tests/fixtures/models (random llama,
llama3, qwen2 and gpt2 models, written by gen_model_fixtures.py and checked there against the
plain-PyTorch references) converted to GGUF the way llama.cpp's convert_hf_to_gguf.py does,
written from the GGUF specification (ggml docs/gguf.md) with numpy alone:

  - metadata under llama.cpp's key names ({arch}.block_count, ...attention.head_count_kv, ...);
  - tensors under its names (token_embd, blk.N.attn_q, ...), dims in ggml order;
  - `llama` q/k rows permuted for GPT-J-style RoPE (the converter's `permute`: within each
    head, rows [first half | second half] interleaved); qwen2 (NeoX RoPE) left as stored;
  - GPT-2's Conv1D weights transposed to [out, in], output.weight a copy of token_embd;
  - Llama 3.1 RoPE scaling as the rope_freqs tensor of per-frequency divisors;
  - the tokenizer as tokenizer.ggml.*: `llama` (pieces, scores, token types) for the
    SentencePiece-style folder, `gpt2` (tokens, merges, pre-tokenizer name) for the others.

Files, in tests/fixtures/gguf/models/:
  <model>-F32.gguf                  every tensor F32: must run as the HF folder does (1e-5)
  llama-F16.gguf                    matrices F16
  llama256-F32.gguf, llama256-Q4_K_M.gguf, llama256-Q4_K_M-ref.gguf
                                    a random one-layer llama of width 256 (k-quant blocks are 256
                                    values) with the llama fixture's vocabulary, as F32 and as
                                    llama.cpp's Q4_K_M mix (Q6_K for ffn_down, Q4_K elsewhere)
  <model>-<Q>.gguf, <model>-<Q>-ref.gguf
                                    matrices quantized (gguf_ref.py's quantizers), and the same
                                    file with those tensors replaced by their values dequantized
                                    here in numpy (gguf_ref.py), stored F32: the float reference

Run from the repository root: /usr/bin/python3 tests/scripts/gen_gguf_models.py
"""
import json
import math
import os
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gguf_ref as G  # noqa: E402

ROOT = os.path.normpath(os.path.join(HERE, ".."))
MODELS = os.path.join(ROOT, "fixtures", "models")
OUT = os.path.join(ROOT, "fixtures", "gguf", "models")

FILE_TYPE = {"F32": 0, "F16": 1, "Q4_0": 2, "Q8_0": 7, "Q4_K_M": 15}
QUANTIZE = {"Q8_0": G.quantize_q8_0, "Q4_0": G.quantize_q4_0, "Q4_K": G.quantize_q4_K, "Q6_K": G.quantize_q6_K}
# The quantized variants written per model (the F32 file is written for every model).
VARIANTS = {"llama": ["F16", "Q8_0", "Q4_0"], "llama3": [], "qwen2": ["Q8_0"], "gpt2": ["Q4_0"]}


def read_safetensors(folder):
    """{name: float32 array} of every safetensors file in the folder (BF16 widened exactly)."""
    out = {}
    for fn in sorted(os.listdir(folder)):
        if not fn.endswith(".safetensors"):
            continue
        b = open(os.path.join(folder, fn), "rb").read()
        n = struct.unpack("<Q", b[:8])[0]
        header = json.loads(b[8:8 + n])
        for name, e in header.items():
            if name == "__metadata__":
                continue
            s, t = e["data_offsets"]
            raw = np.frombuffer(b[8 + n + s:8 + n + t], np.uint8)
            if e["dtype"] == "BF16":
                v = (raw.view("<u2").astype(np.uint32) << 16).view(np.float32)
            elif e["dtype"] == "F32":
                v = raw.view("<f4").astype(np.float32)
            else:
                raise SystemExit(f"{fn}: {name} has dtype {e['dtype']}")
            out[name] = v.reshape(e["shape"])
    return out


def permute(w, n_head, n_head_kv=None):
    """llama.cpp convert_hf_to_gguf.py LlamaModel.permute (the facts, not its code): rows of
    each head reshaped (2, head_dim / 2) and transposed, so the two halves interleave."""
    if n_head_kv is not None and n_head != n_head_kv:
        n_head = n_head_kv
    shape = w.shape
    return w.reshape(n_head, 2, shape[0] // n_head // 2, *shape[1:]).swapaxes(1, 2).reshape(shape)


def llama_rope_freqs(cfg, head_dim):
    """Per-frequency divisors of Llama 3.1 RoPE scaling, as llama.cpp's converter computes them."""
    rs = cfg["rope_scaling"]
    factor, low, high = rs["factor"], rs.get("low_freq_factor", 1.0), rs.get("high_freq_factor", 4.0)
    old = rs.get("original_max_position_embeddings", 8192)
    freqs = 1.0 / (cfg["rope_theta"] ** (np.arange(0, head_dim, 2, dtype=np.float32) / head_dim))
    out = []
    for f in freqs:
        wavelen = 2 * math.pi / f
        if wavelen < old / high:
            out.append(1.0)
        elif wavelen > old / low:
            out.append(factor)
        else:
            smooth = (old / wavelen - low) / (high - low)
            out.append(1 / ((1 - smooth) / factor + smooth))
    return np.array(out, np.float32)


def llama_tensors(cfg, st, permute_qk):
    heads, kv = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    t = [("token_embd.weight", st["model.embed_tokens.weight"])]
    for i in range(cfg["num_hidden_layers"]):
        p, q = f"model.layers.{i}.", f"blk.{i}."
        wq, wk = st[p + "self_attn.q_proj.weight"], st[p + "self_attn.k_proj.weight"]
        if permute_qk:
            wq, wk = permute(wq, heads, heads), permute(wk, heads, kv)
        t += [(q + "attn_norm.weight", st[p + "input_layernorm.weight"]), (q + "attn_q.weight", wq),
              (q + "attn_k.weight", wk), (q + "attn_v.weight", st[p + "self_attn.v_proj.weight"]),
              (q + "attn_output.weight", st[p + "self_attn.o_proj.weight"])]
        for b in ("q", "k", "v"):
            if p + f"self_attn.{b}_proj.bias" in st:
                t.append((q + f"attn_{b}.bias", st[p + f"self_attn.{b}_proj.bias"]))
        t += [(q + "ffn_norm.weight", st[p + "post_attention_layernorm.weight"]),
              (q + "ffn_gate.weight", st[p + "mlp.gate_proj.weight"]),
              (q + "ffn_up.weight", st[p + "mlp.up_proj.weight"]),
              (q + "ffn_down.weight", st[p + "mlp.down_proj.weight"])]
    t.append(("output_norm.weight", st["model.norm.weight"]))
    if "lm_head.weight" in st and not cfg.get("tie_word_embeddings", False):
        t.append(("output.weight", st["lm_head.weight"]))
    return t


def llama_meta(arch, cfg):
    heads = cfg["num_attention_heads"]
    head_dim = cfg.get("head_dim") or cfg["hidden_size"] // heads
    m = [(f"{arch}.context_length", "u32", cfg["max_position_embeddings"]),
         (f"{arch}.embedding_length", "u32", cfg["hidden_size"]),
         (f"{arch}.block_count", "u32", cfg["num_hidden_layers"]),
         (f"{arch}.feed_forward_length", "u32", cfg["intermediate_size"]),
         (f"{arch}.attention.head_count", "u32", heads),
         (f"{arch}.attention.head_count_kv", "u32", cfg["num_key_value_heads"]),
         (f"{arch}.rope.freq_base", "f32", float(cfg["rope_theta"])),
         (f"{arch}.attention.layer_norm_rms_epsilon", "f32", float(cfg["rms_norm_eps"])),
         (f"{arch}.rope.dimension_count", "u32", head_dim)]
    return m, head_dim


def gpt2_tensors(cfg, st):
    t = [("token_embd.weight", st["wte.weight"]), ("position_embd.weight", st["wpe.weight"])]
    for i in range(cfg["n_layer"]):
        p, q = f"h.{i}.", f"blk.{i}."
        t += [(q + "attn_norm.weight", st[p + "ln_1.weight"]), (q + "attn_norm.bias", st[p + "ln_1.bias"]),
              (q + "attn_qkv.weight", st[p + "attn.c_attn.weight"].T.copy()),
              (q + "attn_qkv.bias", st[p + "attn.c_attn.bias"]),
              (q + "attn_output.weight", st[p + "attn.c_proj.weight"].T.copy()),
              (q + "attn_output.bias", st[p + "attn.c_proj.bias"]),
              (q + "ffn_norm.weight", st[p + "ln_2.weight"]), (q + "ffn_norm.bias", st[p + "ln_2.bias"]),
              (q + "ffn_up.weight", st[p + "mlp.c_fc.weight"].T.copy()), (q + "ffn_up.bias", st[p + "mlp.c_fc.bias"]),
              (q + "ffn_down.weight", st[p + "mlp.c_proj.weight"].T.copy()),
              (q + "ffn_down.bias", st[p + "mlp.c_proj.bias"])]
    t += [("output_norm.weight", st["ln_f.weight"]), ("output_norm.bias", st["ln_f.bias"]),
          ("output.weight", st["wte.weight"])]  # the converter writes the tied head as its own tensor
    return t


def spm_vocab(folder):
    """tokenizer.ggml.* of model `llama` from a SentencePiece-style tokenizer.json (BPE over "▁"
    words with byte fallback): each merged piece scored by its merge's rank (earlier = higher), as
    SentencePiece's BPE scores its pieces; <unk> unknown, <s> </s> control, <0xNN> byte."""
    tok = json.load(open(os.path.join(folder, "tokenizer.json"), encoding="utf-8"))
    vocab = tok["model"]["vocab"]
    tokens = [None] * len(vocab)
    for t, i in vocab.items():
        tokens[i] = t
    scores = [0.0] * len(tokens)
    for r, m in enumerate(tok["model"]["merges"]):
        a, b = m.split(" ") if isinstance(m, str) else m
        if scores[vocab[a + b]] == 0.0:
            scores[vocab[a + b]] = -float(r + 1)
    types = []
    for t in tokens:
        types.append(2 if t == "<unk>" else 3 if t in ("<s>", "</s>") else
                     6 if t.startswith("<0x") and len(t) == 6 else 1)
    return [("tokenizer.ggml.model", "str", "llama"), ("tokenizer.ggml.tokens", "arr:str", tokens),
            ("tokenizer.ggml.scores", "arr:f32", scores), ("tokenizer.ggml.token_type", "arr:i32", types),
            ("tokenizer.ggml.bos_token_id", "u32", vocab["<s>"]), ("tokenizer.ggml.eos_token_id", "u32", vocab["</s>"]),
            ("tokenizer.ggml.unknown_token_id", "u32", vocab["<unk>"]),
            ("tokenizer.ggml.add_bos_token", "bool", True), ("tokenizer.ggml.add_eos_token", "bool", False)]


def bpe_vocab(folder, pre, bos, eos, add_bos, rows):
    """tokenizer.ggml.* of model `gpt2`: tokenizer.json, or vocab.json + merges.txt; ids without a
    token up to the embedding's `rows` become "[PAD<id>]" of type unused, as the converter pads them
    (llama.cpp requires one token per embedding row)."""
    path = os.path.join(folder, "tokenizer.json")
    if os.path.exists(path):
        tok = json.load(open(path, encoding="utf-8"))
        vocab = dict(tok["model"]["vocab"])
        merges = [m if isinstance(m, str) else " ".join(m) for m in tok["model"]["merges"]]
        special = {a["content"] for a in tok.get("added_tokens", []) if a.get("special")}
        for a in tok.get("added_tokens", []):
            vocab[a["content"]] = a["id"]
    else:
        vocab = json.load(open(os.path.join(folder, "vocab.json"), encoding="utf-8"))
        lines = open(os.path.join(folder, "merges.txt"), encoding="utf-8").read().split("\n")
        merges = [m for m in lines if m and not m.startswith("#version")]
        special = {"<|endoftext|>"} & set(vocab)
    tokens = [None] * max(rows, max(vocab.values()) + 1)
    for t, i in vocab.items():
        tokens[i] = t
    types = [5 if t is None else 3 if t in special else 1 for t in tokens]
    tokens = [f"[PAD{i}]" if t is None else t for i, t in enumerate(tokens)]
    m = [("tokenizer.ggml.model", "str", "gpt2"), ("tokenizer.ggml.pre", "str", pre),
         ("tokenizer.ggml.tokens", "arr:str", tokens), ("tokenizer.ggml.token_type", "arr:i32", types),
         ("tokenizer.ggml.merges", "arr:str", merges), ("tokenizer.ggml.add_bos_token", "bool", add_bos)]
    if bos is not None:
        m.append(("tokenizer.ggml.bos_token_id", "u32", vocab[bos]))
    m.append(("tokenizer.ggml.eos_token_id", "u32", vocab[eos]))
    return m


def convert(name):
    folder = os.path.join(MODELS, name)
    cfg = json.load(open(os.path.join(folder, "config.json")))
    st = read_safetensors(folder)
    arch = {"llama": "llama", "llama3": "llama", "qwen2": "qwen2", "gpt2": "gpt2"}[name]
    if arch == "gpt2":
        meta = [("gpt2.context_length", "u32", cfg["n_positions"]), ("gpt2.embedding_length", "u32", cfg["n_embd"]),
                ("gpt2.feed_forward_length", "u32", cfg.get("n_inner") or 4 * cfg["n_embd"]),
                ("gpt2.block_count", "u32", cfg["n_layer"]), ("gpt2.attention.head_count", "u32", cfg["n_head"]),
                ("gpt2.attention.layer_norm_epsilon", "f32", float(cfg["layer_norm_epsilon"]))]
        tensors = gpt2_tensors(cfg, st)
        vocab = bpe_vocab(folder, "gpt-2", None, "<|endoftext|>", False, st["wte.weight"].shape[0])
    else:
        meta, head_dim = llama_meta(arch, cfg)
        rows = st["model.embed_tokens.weight"].shape[0]
        tensors = llama_tensors(cfg, st, permute_qk=arch == "llama")
        if (cfg.get("rope_scaling") or {}).get("rope_type") == "llama3":
            tensors.append(("rope_freqs.weight", llama_rope_freqs(cfg, head_dim)))
        if name == "llama":
            vocab = spm_vocab(folder)
        elif name == "llama3":
            vocab = bpe_vocab(folder, "llama-bpe", "<|begin_of_text|>", "<|eot_id|>", True, rows)
        else:
            vocab = bpe_vocab(folder, "qwen2", None, "<|endoftext|>", False, rows)
    head = [("general.architecture", "str", arch), ("general.name", "str", f"attnscope-{name}")]
    os.makedirs(OUT, exist_ok=True)
    for variant in ["F32"] + VARIANTS[name]:
        write(name, variant, head, meta, vocab, tensors)


def tensor_type(variant, tname):
    """The type a variant stores a matrix in: llama.cpp's Q4_K_M keeps ffn_down (and the head) at
    Q6_K, the rest at Q4_K; the other variants use one type."""
    if variant == "Q4_K_M":
        return "Q6_K" if "ffn_down" in tname or tname == "output.weight" else "Q4_K"
    return variant


def write(name, variant, head, meta, vocab, tensors):
    """<name>-<variant>.gguf (and, for a quantized variant, <name>-<variant>-ref.gguf)."""
    stored, ref = [], []
    for tname, v in tensors:
        v = np.ascontiguousarray(v, np.float32)
        dims = list(reversed(v.shape))  # ggml order: the fastest-varying axis first
        ttype = tensor_type(variant, tname)
        block = 256 if ttype.endswith("_K") else 32
        matrix = v.ndim == 2 and tname != "position_embd.weight" and v.shape[1] % block == 0
        if variant == "F32" or not matrix:
            stored.append((tname, dims, "F32", v.astype("<f4").tobytes()))
            ref.append(stored[-1])
        elif variant == "F16":
            stored.append((tname, dims, "F16", v.astype("<f2").tobytes()))
        else:
            raw = QUANTIZE[ttype](v.reshape(-1))
            stored.append((tname, dims, ttype, raw))
            values = G.dequantize(ttype, raw).reshape(v.shape)
            ref.append((tname, dims, "F32", values.astype("<f4").tobytes()))
    ft = [("general.file_type", "u32", FILE_TYPE[variant])]
    G.write_gguf(os.path.join(OUT, f"{name}-{variant}.gguf"), head + ft + meta + vocab, stored)
    if variant not in ("F32", "F16"):
        G.write_gguf(os.path.join(OUT, f"{name}-{variant}-ref.gguf"), head + [("general.file_type", "u32", 0)] +
                     meta + vocab, ref)


def wide_llama():
    """llama256: random weights (seeded) of width 256 over the llama fixture's vocabulary."""
    cfg = {"num_attention_heads": 4, "num_key_value_heads": 2, "hidden_size": 256, "intermediate_size": 256,
           "num_hidden_layers": 1, "max_position_embeddings": 128, "rope_theta": 10000.0, "rms_norm_eps": 1e-5,
           "tie_word_embeddings": True}
    vocab = spm_vocab(os.path.join(MODELS, "llama"))
    n = len(vocab[1][2])
    rng = np.random.default_rng(256)
    d, f, kv = 256, 256, 128
    shapes = {"model.embed_tokens.weight": (n, d), "model.norm.weight": (d,)}
    p = "model.layers.0."
    shapes.update({p + "input_layernorm.weight": (d,), p + "post_attention_layernorm.weight": (d,),
                   p + "self_attn.q_proj.weight": (d, d), p + "self_attn.k_proj.weight": (kv, d),
                   p + "self_attn.v_proj.weight": (kv, d), p + "self_attn.o_proj.weight": (d, d),
                   p + "mlp.gate_proj.weight": (f, d), p + "mlp.up_proj.weight": (f, d),
                   p + "mlp.down_proj.weight": (d, f)})
    st = {}
    for k in sorted(shapes):
        if len(shapes[k]) == 1:
            st[k] = (1.0 + 0.1 * rng.standard_normal(shapes[k])).astype(np.float32)
        else:
            st[k] = (rng.standard_normal(shapes[k]) / math.sqrt(shapes[k][1])).astype(np.float32)
    meta, _ = llama_meta("llama", cfg)
    head = [("general.architecture", "str", "llama"), ("general.name", "str", "attnscope-llama256")]
    tensors = llama_tensors(cfg, st, permute_qk=True)
    for variant in ("F32", "Q4_K_M"):
        write("llama256", variant, head, meta, vocab, tensors)


def main():
    for name in VARIANTS:
        convert(name)
    wide_llama()
    print("GGUF models in", OUT)


if __name__ == "__main__":
    main()
