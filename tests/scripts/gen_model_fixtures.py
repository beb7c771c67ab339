#!/usr/bin/python3
"""Writes the model reference fixtures the C++ loader, tokenizer and forward pass are
checked against: small random GPT-2, BERT (two checkpoint forms), Llama 2
(GQA, BF16, SentencePiece BPE), Llama 3.2 (byte-level BPE, rope_scaling "llama3", tied)
and Qwen2 (q/k/v biases, tied, padded vocabulary, sharded) models as Hugging Face folders,
with the token ids Hugging Face's own tokenizer gives and the attentions, hidden
states and logits a plain-PyTorch re-implementation of the Hugging Face modeling code
computes on them.

Run (from the repository root; needs Debian's python3-torch 1.13 + numpy, and node):

    (cd tests/scripts/hf_tokenizers && npm install)      # once: the `tokenizers` npm package
    /usr/bin/python3 tests/scripts/gen_model_fixtures.py

It does these steps (each can be run alone: --step folders|tokens|reference|ablate|mlm|contrib|lens):
  1. folders:   tests/fixtures/models/<name>/ with config.json, *.safetensors and the
                tokenizer files (hf_folder.py writes them; seeded, deterministic);
  2. tokens:    node tests/scripts/hf_tokenizers/encode_model_fixtures.js encodes each
                folder's cases (texts defined there) with the `tokenizers` library into
                <name>/reference_tokens.json;
  3. reference: runs the forward below on those ids and writes <name>/reference.npz,
                after checking it against an independent float64 numpy implementation
                (per-head loops, RoPE as a complex rotation, GQA with explicitly repeated
                K/V weights) and PyTorch's own nn.MultiheadAttention (GPT-2, BERT layer 0).

reference.npz, per case c = 0, 1, ... (all float32 except the ids):
  ids_c [N] int64, type_ids_c [N] int64, mask_c [N] int64 (HF attention_mask),
  attn_c [L, H, N, N]      every layer's weights for every query head (GQA: each query head),
  hidden_c [L+1, N, d]     HF output_hidden_states: embeddings output, then each layer's output;
                           for GPT-2 / Llama / Qwen2 the last entry is after the final norm (ln_f /
                           model.norm) as HF returns it; for BERT the last layer's output;
  logits_c [N, V]          causal models: lm_head logits (V = config vocab_size, padded for Qwen2);
  mlm_logits_c [N, V]      BERT: the BertForMaskedLM head (cls.predictions).
--step contrib writes reference_contrib.npz (attention norms, their residual + LayerNorm
variant and ALTI with its rollout, for gpt2, bert, llama and qwen2); --step lens writes
reference_lens.npz (the logit lens: every hidden state through the final norm and the
unembedding, or BERT's masked-LM head; gpt2, bert, llama, llama3, qwen2); --step ablate writes reference_ablate.npz (one head zeroed as head_mask does), --step mlm
bert/reference_mlm.{json,npz} (texts with [MASK]: the masked-LM logits and top 5 at each
[MASK], with and without a head zeroed, and the KL between them).
Weights are rounded to their storage dtype (F16, BF16) and the forward then runs in
float32, i.e. as transformers does after from_pretrained(..., torch_dtype=torch.float32).
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hf_folder  # noqa: E402

ROOT = os.path.normpath(os.path.join(HERE, "..", "fixtures", "models"))
NODE_DIR = os.path.join(HERE, "hf_tokenizers")

# The text the small vocabularies are learned from (only their consistency matters: the
# ids come from the tokenizers library). It holds the fixtures' words so they tokenize
# into a few pieces, some digits and punctuation, accents and a little Chinese.
CORPUS = """The animal didn't cross the street because it was too tired. The animal was tired,
so it stayed on the other side of the street. The cat sat on the mat, and it was very happy!
It was a sunny day; the cat and the dog were happy. Hello, world! Hello there, how are you?
I'm fine, thanks. We'll see what they've done. She said it's the best model in the world.
On 12/03/2024 the team scored 3.14 points, then 42 more -- wow!! Apples cost $3.50 each,
and 7 apples cost $24.50. In 2024, 3 + 4 = 7; isn't it? Call 555-0123 at 10:30, OK?
Attention is all you need: every head attends to the tokens it finds useful, and the
previous token head looks one step back. Transformers read the whole sentence at once.
The café served a naïve résumé of déjà vu. Café, naïve, résumé.
你好，世界！中文的世界很大。东京和北京都是城市。你好吗？我很好。
"""
BERT_EXTRA_CHARS = "中文東"  # no emoji: BERT maps 🙂 to [UNK]


def gen(seed):
    g = torch.Generator().manual_seed(seed)

    def rnd(*shape, std=1.0, mean=0.0):
        return torch.randn(*shape, generator=g) * std + mean
    return rnd


# ---------------------------------------------------------------------------
# GPT-2 (transformers/models/gpt2/modeling_gpt2.py, eager attention)

GPT2_CFG = dict(n_layer=2, n_head=4, n_embd=64, n_positions=64, n_inner=None, layer_norm_epsilon=1e-5)


def gpt2_build(vocab_size, seed=2019):
    c = GPT2_CFG
    d, L = c["n_embd"], c["n_layer"]
    inner = c["n_inner"] or 4 * d
    r = gen(seed)
    w = {"wte.weight": r(vocab_size, d, std=0.5), "wpe.weight": r(c["n_positions"], d, std=0.3)}
    for i in range(L):
        p = f"h.{i}."
        w[p + "ln_1.weight"] = r(d, std=0.1, mean=1.0)
        w[p + "ln_1.bias"] = r(d, std=0.1)
        # Conv1D: weight [in, out]; c_attn's out is q | k | v. q and k large enough that
        # attention is far from uniform, v and the rest ~ 1/sqrt(fan_in).
        w[p + "attn.c_attn.weight"] = torch.cat([r(d, d, std=0.2), r(d, d, std=0.2), r(d, d, std=0.15)], 1)
        w[p + "attn.c_attn.bias"] = r(3 * d, std=0.1)
        w[p + "attn.c_proj.weight"] = r(d, d, std=0.12)
        w[p + "attn.c_proj.bias"] = r(d, std=0.05)
        w[p + "ln_2.weight"] = r(d, std=0.1, mean=1.0)
        w[p + "ln_2.bias"] = r(d, std=0.1)
        w[p + "mlp.c_fc.weight"] = r(d, inner, std=0.15)
        w[p + "mlp.c_fc.bias"] = r(inner, std=0.1)
        w[p + "mlp.c_proj.weight"] = r(inner, d, std=0.06)
        w[p + "mlp.c_proj.bias"] = r(d, std=0.05)
    w["ln_f.weight"] = r(d, std=0.1, mean=1.0)
    w["ln_f.bias"] = r(d, std=0.1)
    return w


def gpt2_config(vocab_size):
    c = GPT2_CFG
    return {
        "activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"], "attn_pdrop": 0.1,
        "bos_token_id": vocab_size - 1, "embd_pdrop": 0.1, "eos_token_id": vocab_size - 1,
        "initializer_range": 0.02, "layer_norm_epsilon": c["layer_norm_epsilon"], "model_type": "gpt2",
        "n_ctx": c["n_positions"], "n_embd": c["n_embd"], "n_head": c["n_head"], "n_inner": c["n_inner"],
        "n_layer": c["n_layer"], "n_positions": c["n_positions"], "reorder_and_upcast_attn": False,
        "resid_pdrop": 0.1, "scale_attn_by_inverse_layer_idx": False, "scale_attn_weights": True,
        "summary_activation": None, "summary_first_dropout": 0.1, "summary_proj_to_labels": True,
        "summary_type": "cls_index", "summary_use_proj": True, "torch_dtype": "float32",
        "use_cache": True, "vocab_size": vocab_size}


def gelu_new(x):  # transformers.activations.NewGELUActivation
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def gpt2_forward(w, cfg, ids, head_mask=None, trace=None, patch=None):
    d, H, L = cfg["n_embd"], cfg["n_head"], cfg["n_layer"]
    eps = cfg["layer_norm_epsilon"]
    dh = d // H
    N = len(ids)
    ids_t = torch.tensor(ids)
    h = w["wte.weight"][ids_t] + w["wpe.weight"][torch.arange(N)]
    causal = torch.tril(torch.ones(N, N, dtype=torch.bool))
    hidden, attns = [], []
    for i in range(L):
        p = f"h.{i}."
        hidden.append(h)
        if patch is not None:  # activation patching: patch(site, layer, activation) -> activation
            h = patch("resid", i, h)
        a = F.layer_norm(h, (d,), w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps)
        qkv = torch.addmm(w[p + "attn.c_attn.bias"], a, w[p + "attn.c_attn.weight"])  # Conv1D
        q, k, v = qkv.split(d, dim=1)
        q, k, v = (t.view(N, H, dh).transpose(0, 1) for t in (q, k, v))  # _split_heads
        s = q @ k.transpose(-1, -2) / torch.full([], v.size(-1) ** 0.5)
        s = torch.where(causal, s, torch.tensor(torch.finfo(s.dtype).min))
        pw = torch.softmax(s, dim=-1)
        if head_mask is not None:  # HF head_mask: attn_weights * head_mask[layer] per head
            pw = pw * head_mask[i][:, None, None]
        attns.append(pw)
        o = (pw @ v).transpose(0, 1).reshape(N, d)  # _merge_heads
        if patch is not None:  # the heads' outputs [N, H * dh], before c_proj
            o = patch("heads", i, o)
        if trace is not None:  # Conv1D c_proj: x W, W [in, out]
            trace.append(dict(x=h, pw=pw, v=v, wo=w[p + "attn.c_proj.weight"], bo=w[p + "attn.c_proj.bias"],
                              out=torch.addmm(w[p + "attn.c_proj.bias"], o, w[p + "attn.c_proj.weight"]) + h))
        o = torch.addmm(w[p + "attn.c_proj.bias"], o, w[p + "attn.c_proj.weight"])
        h = h + o
        m = F.layer_norm(h, (d,), w[p + "ln_2.weight"], w[p + "ln_2.bias"], eps)
        m = gelu_new(torch.addmm(w[p + "mlp.c_fc.bias"], m, w[p + "mlp.c_fc.weight"]))
        m = torch.addmm(w[p + "mlp.c_proj.bias"], m, w[p + "mlp.c_proj.weight"])
        h = h + (patch("mlp", i, m) if patch is not None else m)
        if trace is not None:  # the MLP block: its output and the layer's (before any final norm)
            trace[-1].update(mlp=m, y=h)
    h = F.layer_norm(h, (d,), w["ln_f.weight"], w["ln_f.bias"], eps)
    hidden.append(h)
    logits = h @ w["wte.weight"].T  # tied lm_head
    return torch.stack(attns), torch.stack(hidden), logits


# ---------------------------------------------------------------------------
# BERT (transformers/models/bert/modeling_bert.py, BertForMaskedLM, eager attention)

BERT_CFG = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
                max_position_embeddings=64, type_vocab_size=2, layer_norm_eps=1e-12)


def bert_build(vocab_size, cfg, seed):
    """Canonical BertForMaskedLM state dict (names with the `bert.` prefix, LayerNorm weight/bias)."""
    d, L, I = cfg["hidden_size"], cfg["num_hidden_layers"], cfg["intermediate_size"]
    r = gen(seed)
    w = {}
    e = "bert.embeddings."
    w[e + "word_embeddings.weight"] = r(vocab_size, d, std=0.5)
    w[e + "position_embeddings.weight"] = r(cfg["max_position_embeddings"], d, std=0.3)
    w[e + "token_type_embeddings.weight"] = r(cfg["type_vocab_size"], d, std=0.3)
    w[e + "LayerNorm.weight"] = r(d, std=0.1, mean=1.0)
    w[e + "LayerNorm.bias"] = r(d, std=0.1)
    for i in range(L):
        p = f"bert.encoder.layer.{i}."
        for name, std in (("query", 0.2), ("key", 0.2), ("value", 0.15)):  # nn.Linear [out, in]
            w[p + f"attention.self.{name}.weight"] = r(d, d, std=std)
            w[p + f"attention.self.{name}.bias"] = r(d, std=0.1)
        w[p + "attention.output.dense.weight"] = r(d, d, std=0.12)
        w[p + "attention.output.dense.bias"] = r(d, std=0.05)
        w[p + "attention.output.LayerNorm.weight"] = r(d, std=0.1, mean=1.0)
        w[p + "attention.output.LayerNorm.bias"] = r(d, std=0.1)
        w[p + "intermediate.dense.weight"] = r(I, d, std=0.15)
        w[p + "intermediate.dense.bias"] = r(I, std=0.1)
        w[p + "output.dense.weight"] = r(d, I, std=0.09)
        w[p + "output.dense.bias"] = r(d, std=0.05)
        w[p + "output.LayerNorm.weight"] = r(d, std=0.1, mean=1.0)
        w[p + "output.LayerNorm.bias"] = r(d, std=0.1)
    w["bert.pooler.dense.weight"] = r(d, d, std=0.12)
    w["bert.pooler.dense.bias"] = r(d, std=0.05)
    t = "cls.predictions."
    w[t + "transform.dense.weight"] = r(d, d, std=0.12)
    w[t + "transform.dense.bias"] = r(d, std=0.05)
    w[t + "transform.LayerNorm.weight"] = r(d, std=0.1, mean=1.0)
    w[t + "transform.LayerNorm.bias"] = r(d, std=0.1)
    w[t + "bias"] = r(vocab_size, std=0.1)
    return w


def bert_checkpoint(w, legacy):
    """Names as stored. Modern BertForMaskedLM (bert-base-uncased's model.safetensors): `bert.` prefix,
    cls.predictions.decoder.weight (tied to the word embeddings) and decoder.bias (= bias),
    cls.seq_relationship from pre-training. Legacy (older BertModel checkpoints): no prefix,
    LayerNorm.gamma / LayerNorm.beta, and the embeddings.position_ids buffer (I64)."""
    out = {}
    if not legacy:
        out.update(w)
        out["cls.predictions.decoder.weight"] = w["bert.embeddings.word_embeddings.weight"]
        out["cls.predictions.decoder.bias"] = w["cls.predictions.bias"]
        return out
    for k, v in w.items():
        if not k.startswith("bert."):
            continue  # a BertModel checkpoint has no heads
        k = k[len("bert."):].replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias", "LayerNorm.beta")
        out[k] = v
    return out


def bert_config(vocab_size, cfg, arch):
    return {
        "architectures": [arch], "attention_probs_dropout_prob": 0.1, "classifier_dropout": None,
        "gradient_checkpointing": False, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
        "hidden_size": cfg["hidden_size"], "initializer_range": 0.02, "intermediate_size": cfg["intermediate_size"],
        "layer_norm_eps": cfg["layer_norm_eps"], "max_position_embeddings": cfg["max_position_embeddings"],
        "model_type": "bert", "num_attention_heads": cfg["num_attention_heads"],
        "num_hidden_layers": cfg["num_hidden_layers"], "pad_token_id": 0, "position_embedding_type": "absolute",
        "torch_dtype": "float32", "transformers_version": "4.44.2", "type_vocab_size": cfg["type_vocab_size"],
        "use_cache": True, "vocab_size": vocab_size}


def bert_forward(w, cfg, ids, type_ids, mask, head_mask=None, trace=None):
    d, H, L = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"]
    eps = cfg["layer_norm_eps"]
    dh = d // H
    N = len(ids)
    e = "bert.embeddings."
    x = (w[e + "word_embeddings.weight"][torch.tensor(ids)] + w[e + "token_type_embeddings.weight"][torch.tensor(type_ids)]
         + w[e + "position_embeddings.weight"][torch.arange(N)])
    x = F.layer_norm(x, (d,), w[e + "LayerNorm.weight"], w[e + "LayerNorm.bias"], eps)
    # get_extended_attention_mask: (1 - mask) * finfo(dtype).min, added to the scores
    ext = (1.0 - torch.tensor(mask, dtype=torch.float32))[None, None, :] * torch.finfo(torch.float32).min
    hidden, attns = [x], []
    for i in range(L):
        p = f"bert.encoder.layer.{i}."
        lin = lambda t, n: F.linear(t, w[p + n + ".weight"], w[p + n + ".bias"])  # noqa: E731
        q, k, v = (lin(x, f"attention.self.{n}").view(N, H, dh).transpose(0, 1) for n in ("query", "key", "value"))
        s = q @ k.transpose(-1, -2) / math.sqrt(dh) + ext
        pw = torch.softmax(s, dim=-1)
        if head_mask is not None:  # HF head_mask: attn_weights * head_mask[layer] per head
            pw = pw * head_mask[i][:, None, None]
        attns.append(pw)
        ctx = (pw @ v).transpose(0, 1).reshape(N, d)
        a = F.layer_norm(lin(ctx, "attention.output.dense") + x, (d,), w[p + "attention.output.LayerNorm.weight"],
                         w[p + "attention.output.LayerNorm.bias"], eps)
        if trace is not None:  # nn.Linear dense: x W^T, W [out, in]
            trace.append(dict(x=x, pw=pw, v=v, wo=w[p + "attention.output.dense.weight"].T,
                              bo=w[p + "attention.output.dense.bias"], out=a,
                              ln=(w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"], eps)))
        m = F.gelu(lin(a, "intermediate.dense"))  # erf GELU ("gelu")
        x = F.layer_norm(lin(m, "output.dense") + a, (d,), w[p + "output.LayerNorm.weight"],
                         w[p + "output.LayerNorm.bias"], eps)
        hidden.append(x)
    t = "cls.predictions."
    if t + "bias" not in w:
        return torch.stack(attns), torch.stack(hidden), None
    y = F.gelu(F.linear(x, w[t + "transform.dense.weight"], w[t + "transform.dense.bias"]))
    y = F.layer_norm(y, (d,), w[t + "transform.LayerNorm.weight"], w[t + "transform.LayerNorm.bias"], eps)
    mlm = y @ w[e + "word_embeddings.weight"].T + w[t + "bias"]
    return torch.stack(attns), torch.stack(hidden), mlm


# ---------------------------------------------------------------------------
# Llama / Qwen2 (transformers/models/llama/modeling_llama.py, qwen2/modeling_qwen2.py, eager)

LLAMA_CFG = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                 intermediate_size=160, max_position_embeddings=128, rms_norm_eps=1e-5, rope_theta=10000.0,
                 tie_word_embeddings=False, attention_bias=False)
QWEN2_CFG = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=1,
                 intermediate_size=192, max_position_embeddings=256, rms_norm_eps=1e-6, rope_theta=1000000.0,
                 tie_word_embeddings=True, attention_bias=True)
# Llama 3.1 / 3.2 form: explicit head_dim, tied embeddings, rope_scaling of rope_type "llama3"
# (rescales inv_freq by wavelength, at every position). original_max_position_embeddings is
# small here so that all three wavelength bands occur with head_dim 16 and theta 10000.
LLAMA3_CFG = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                  intermediate_size=128, max_position_embeddings=128, rms_norm_eps=1e-5, rope_theta=10000.0,
                  tie_word_embeddings=True, attention_bias=False,
                  rope_scaling={"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                                "original_max_position_embeddings": 32, "rope_type": "llama3"})


def llama_build(vocab_size, cfg, seed):
    d, L, I = cfg["hidden_size"], cfg["num_hidden_layers"], cfg["intermediate_size"]
    H, KV = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    dh = cfg.get("head_dim") or d // H
    r = gen(seed)
    w = {"model.embed_tokens.weight": r(vocab_size, d, std=0.5)}
    for i in range(L):
        p = f"model.layers.{i}."
        w[p + "input_layernorm.weight"] = r(d, std=0.1, mean=1.0)
        w[p + "self_attn.q_proj.weight"] = r(H * dh, d, std=0.2)  # nn.Linear [out, in]
        w[p + "self_attn.k_proj.weight"] = r(KV * dh, d, std=0.2)
        w[p + "self_attn.v_proj.weight"] = r(KV * dh, d, std=0.15)
        if cfg["attention_bias"]:  # Qwen2: q/k/v biases, o_proj without
            w[p + "self_attn.q_proj.bias"] = r(H * dh, std=0.3)
            w[p + "self_attn.k_proj.bias"] = r(KV * dh, std=0.3)
            w[p + "self_attn.v_proj.bias"] = r(KV * dh, std=0.1)
        w[p + "self_attn.o_proj.weight"] = r(d, H * dh, std=0.12)
        w[p + "post_attention_layernorm.weight"] = r(d, std=0.1, mean=1.0)
        w[p + "mlp.gate_proj.weight"] = r(I, d, std=0.15)
        w[p + "mlp.up_proj.weight"] = r(I, d, std=0.15)
        w[p + "mlp.down_proj.weight"] = r(d, I, std=0.08)
    w["model.norm.weight"] = r(d, std=0.1, mean=1.0)
    if not cfg["tie_word_embeddings"]:
        w["lm_head.weight"] = r(vocab_size, d, std=0.3)
    return w


def llama_config(vocab_size, cfg, model_type, bos, eos):
    c = {
        "architectures": ["LlamaForCausalLM" if model_type == "llama" else "Qwen2ForCausalLM"],
        "attention_dropout": 0.0, "bos_token_id": bos, "eos_token_id": eos, "hidden_act": "silu",
        "hidden_size": cfg["hidden_size"], "initializer_range": 0.02, "intermediate_size": cfg["intermediate_size"],
        "max_position_embeddings": cfg["max_position_embeddings"], "model_type": model_type,
        "num_attention_heads": cfg["num_attention_heads"], "num_hidden_layers": cfg["num_hidden_layers"],
        "num_key_value_heads": cfg["num_key_value_heads"], "rms_norm_eps": cfg["rms_norm_eps"],
        "rope_scaling": cfg.get("rope_scaling"), "rope_theta": cfg["rope_theta"], "tie_word_embeddings": cfg["tie_word_embeddings"],
        "torch_dtype": "bfloat16", "transformers_version": "4.44.2", "use_cache": True, "vocab_size": vocab_size}
    if model_type == "llama":
        c.update({"attention_bias": False, "mlp_bias": False, "pretraining_tp": 1})
        if "head_dim" in cfg:
            c["head_dim"] = cfg["head_dim"]
    else:
        c.update({"max_window_layers": cfg["num_hidden_layers"], "sliding_window": cfg["max_position_embeddings"],
                  "use_sliding_window": False})
    return dict(sorted(c.items()))


def rms_norm(x, weight, eps):  # LlamaRMSNorm / Qwen2RMSNorm (variance in float32)
    xf = x.to(torch.float32)
    var = xf.pow(2).mean(-1, keepdim=True)
    return weight * (xf * torch.rsqrt(var + eps)).to(x.dtype)


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def rope_inv_freq(dh, theta, scaling):
    """modeling_rope_utils: _compute_default_rope_parameters, and _compute_llama3_parameters when
    rope_scaling's rope_type (older configs: type) is "llama3" (attention_factor 1)."""
    inv_freq = 1.0 / (theta ** (torch.arange(0, dh, 2, dtype=torch.int64).float() / dh))
    kind = (scaling or {}).get("rope_type", (scaling or {}).get("type"))
    if kind in (None, "default"):
        return inv_freq
    assert kind == "llama3", kind
    factor, low, high = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"]
    old = scaling["original_max_position_embeddings"]
    low_wavelen, high_wavelen = old / low, old / high
    wavelen = 2 * math.pi / inv_freq
    inv_llama = torch.where(wavelen > low_wavelen, inv_freq / factor, inv_freq)
    smooth = (old / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * inv_llama / factor + smooth * inv_llama
    medium = ~(wavelen < high_wavelen) * ~(wavelen > low_wavelen)
    return torch.where(medium, smoothed, inv_llama)


def rope_cos_sin(dh, theta, N, scaling=None):  # LlamaRotaryEmbedding
    inv_freq = rope_inv_freq(dh, theta, scaling)
    pos = torch.arange(N, dtype=torch.float32)
    freqs = pos[:, None] * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def repeat_kv(x, n_rep):  # [KV, N, dh] -> [KV * n_rep, N, dh]; query head h uses kv head h // n_rep
    kv, n, dh = x.shape
    return x[:, None].expand(kv, n_rep, n, dh).reshape(kv * n_rep, n, dh)


def llama_forward(w, cfg, ids, head_mask=None, trace=None, patch=None):
    d, L = cfg["hidden_size"], cfg["num_hidden_layers"]
    H, KV = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    dh = cfg.get("head_dim") or d // H
    eps = cfg["rms_norm_eps"]
    N = len(ids)
    h = w["model.embed_tokens.weight"][torch.tensor(ids)]
    cos, sin = rope_cos_sin(dh, cfg["rope_theta"], N, cfg.get("rope_scaling"))
    causal = torch.triu(torch.full((N, N), torch.finfo(torch.float32).min), diagonal=1)
    hidden, attns = [], []
    for i in range(L):
        p = f"model.layers.{i}."
        hidden.append(h)
        if patch is not None:
            h = patch("resid", i, h)
        a = rms_norm(h, w[p + "input_layernorm.weight"], eps)
        proj = lambda n: F.linear(a, w[p + f"self_attn.{n}.weight"], w.get(p + f"self_attn.{n}.bias"))  # noqa: E731
        q = proj("q_proj").view(N, H, dh).transpose(0, 1)
        k = proj("k_proj").view(N, KV, dh).transpose(0, 1)
        v = proj("v_proj").view(N, KV, dh).transpose(0, 1)
        q = q * cos + rotate_half(q) * sin  # apply_rotary_pos_emb
        k = k * cos + rotate_half(k) * sin
        k, v = repeat_kv(k, H // KV), repeat_kv(v, H // KV)
        s = q @ k.transpose(-1, -2) / math.sqrt(dh) + causal
        pw = torch.softmax(s, dim=-1, dtype=torch.float32)
        if head_mask is not None:
            pw = pw * head_mask[i][:, None, None]
        attns.append(pw)
        o = (pw @ v).transpose(0, 1).reshape(N, H * dh)
        if patch is not None:
            o = patch("heads", i, o)
        if trace is not None:  # v repeated per query head (repeat_kv); o_proj has no bias
            trace.append(dict(x=h, pw=pw, v=v, wo=w[p + "self_attn.o_proj.weight"].T, bo=None,
                              out=h + F.linear(o, w[p + "self_attn.o_proj.weight"])))
        h = h + F.linear(o, w[p + "self_attn.o_proj.weight"])
        m = rms_norm(h, w[p + "post_attention_layernorm.weight"], eps)
        m = F.linear(F.silu(F.linear(m, w[p + "mlp.gate_proj.weight"])) * F.linear(m, w[p + "mlp.up_proj.weight"]),
                     w[p + "mlp.down_proj.weight"])
        h = h + (patch("mlp", i, m) if patch is not None else m)
        if trace is not None:
            trace[-1].update(mlp=m, y=h)
    h = rms_norm(h, w["model.norm.weight"], eps)
    hidden.append(h)
    head = w["model.embed_tokens.weight"] if cfg["tie_word_embeddings"] else w["lm_head.weight"]
    return torch.stack(attns), torch.stack(hidden), h @ head.T


# ---------------------------------------------------------------------------
# Independent float64 numpy implementations, written from the papers' formulas rather
# than from the code above: per-head loops, explicit softmax, RoPE as a complex rotation
# (pairs (i, i + dh/2), as the rotate-half convention pairs them), GQA with the K/V weight
# rows explicitly repeated per query head.

def np64(w):
    return {k: v.double().numpy() for k, v in w.items()}


def np_softmax_rows(s, keep):
    out = np.zeros_like(s)
    for i in range(s.shape[0]):
        idx = np.nonzero(keep[i])[0]
        e = np.exp(s[i, idx] - s[i, idx].max())
        out[i, idx] = e / e.sum()
    return out


def np_layer_norm(x, g, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def np_gpt2(w, cfg, ids):
    d, H = cfg["n_embd"], cfg["n_head"]
    dh = d // H
    N = len(ids)
    x = w["wte.weight"][ids] + w["wpe.weight"][:N]
    keep = np.tril(np.ones((N, N), bool))
    attn, hid = [], [x]
    for i in range(cfg["n_layer"]):
        p = f"h.{i}."
        a = np_layer_norm(x, w[p + "ln_1.weight"], w[p + "ln_1.bias"], cfg["layer_norm_epsilon"])
        W, B = w[p + "attn.c_attn.weight"], w[p + "attn.c_attn.bias"]
        heads, ctx = [], np.zeros((N, d))
        for hh in range(H):
            cols = slice(hh * dh, (hh + 1) * dh)
            q = a @ W[:, :d][:, cols] + B[:d][cols]
            k = a @ W[:, d:2 * d][:, cols] + B[d:2 * d][cols]
            v = a @ W[:, 2 * d:][:, cols] + B[2 * d:][cols]
            pw = np_softmax_rows(q @ k.T / math.sqrt(dh), keep)
            heads.append(pw)
            ctx[:, cols] = pw @ v
        attn.append(heads)
        x = x + ctx @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        m = np_layer_norm(x, w[p + "ln_2.weight"], w[p + "ln_2.bias"], cfg["layer_norm_epsilon"])
        u = m @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"]
        u = 0.5 * u * (1 + np.tanh(math.sqrt(2 / math.pi) * (u + 0.044715 * u ** 3)))
        x = x + u @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
        hid.append(x)
    hid[-1] = np_layer_norm(x, w["ln_f.weight"], w["ln_f.bias"], cfg["layer_norm_epsilon"])
    return np.array(attn), np.array(hid), hid[-1] @ w["wte.weight"].T


def np_bert(w, cfg, ids, type_ids, mask):
    from math import erf
    d, H = cfg["hidden_size"], cfg["num_attention_heads"]
    dh = d // H
    N = len(ids)
    eps = cfg["layer_norm_eps"]
    gelu = np.vectorize(lambda t: 0.5 * t * (1 + erf(t / math.sqrt(2))))
    e = "bert.embeddings."
    x = w[e + "word_embeddings.weight"][ids] + w[e + "token_type_embeddings.weight"][type_ids] + w[e + "position_embeddings.weight"][:N]
    x = np_layer_norm(x, w[e + "LayerNorm.weight"], w[e + "LayerNorm.bias"], eps)
    keep = np.tile(np.array(mask, bool)[None, :], (N, 1))
    attn, hid = [], [x]
    for i in range(cfg["num_hidden_layers"]):
        p = f"bert.encoder.layer.{i}.attention."
        heads, ctx = [], np.zeros((N, d))
        for hh in range(H):
            r = slice(hh * dh, (hh + 1) * dh)
            q, k, v = (x @ w[p + f"self.{n}.weight"][r].T + w[p + f"self.{n}.bias"][r] for n in ("query", "key", "value"))
            pw = np_softmax_rows(q @ k.T / math.sqrt(dh), keep)
            heads.append(pw)
            ctx[:, r] = pw @ v
        attn.append(heads)
        a = np_layer_norm(ctx @ w[p + "output.dense.weight"].T + w[p + "output.dense.bias"] + x,
                          w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)
        p = f"bert.encoder.layer.{i}."
        m = gelu(a @ w[p + "intermediate.dense.weight"].T + w[p + "intermediate.dense.bias"])
        x = np_layer_norm(m @ w[p + "output.dense.weight"].T + w[p + "output.dense.bias"] + a,
                          w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)
        hid.append(x)
    return np.array(attn), np.array(hid)


def np_llama(w, cfg, ids):
    d, H, KV = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    dh = cfg.get("head_dim") or d // H
    half = dh // 2
    N = len(ids)
    eps = cfg["rms_norm_eps"]
    rms = lambda t, g: t / np.sqrt((t ** 2).mean(-1, keepdims=True) + eps) * g  # noqa: E731
    omega = [cfg["rope_theta"] ** (-2.0 * j / dh) for j in range(half)]
    sc = cfg.get("rope_scaling")
    if sc:  # Llama 3.1 (meta-llama/llama-models apply_scaling): by wavelength, per frequency
        for j, f in enumerate(omega):
            wl = 2 * math.pi / f
            lo, hi = sc["original_max_position_embeddings"] / sc["low_freq_factor"], \
                sc["original_max_position_embeddings"] / sc["high_freq_factor"]
            if wl > lo:
                omega[j] = f / sc["factor"]
            elif wl >= hi:
                t = (sc["original_max_position_embeddings"] / wl - sc["low_freq_factor"]) / \
                    (sc["high_freq_factor"] - sc["low_freq_factor"])
                omega[j] = (1 - t) * f / sc["factor"] + t * f
    freqs = np.arange(N)[:, None] * np.array(omega)[None, :]
    rot = np.exp(1j * freqs)  # [N, dh/2]

    def rope(t):  # pairs (j, j + dh/2) as one complex number, rotated by pos * theta^(-2j/dh)
        z = (t[:, :half] + 1j * t[:, half:]) * rot
        return np.concatenate([z.real, z.imag], axis=1)

    x = w["model.embed_tokens.weight"][ids]
    keep = np.tril(np.ones((N, N), bool))
    attn, hid = [], [x]
    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}."
        a = rms(x, w[p + "input_layernorm.weight"])
        # GQA by explicit repetition: query head hh gets the K/V rows of kv head hh // (H / KV)
        rep = H // KV
        wk = np.concatenate([w[p + "self_attn.k_proj.weight"][(hh // rep) * dh:(hh // rep + 1) * dh] for hh in range(H)])
        wv = np.concatenate([w[p + "self_attn.v_proj.weight"][(hh // rep) * dh:(hh // rep + 1) * dh] for hh in range(H)])
        bq = w.get(p + "self_attn.q_proj.bias", np.zeros(H * dh))
        bk = w.get(p + "self_attn.k_proj.bias", np.zeros(KV * dh))
        bv = w.get(p + "self_attn.v_proj.bias", np.zeros(KV * dh))
        bk = np.concatenate([bk[(hh // rep) * dh:(hh // rep + 1) * dh] for hh in range(H)])
        bv = np.concatenate([bv[(hh // rep) * dh:(hh // rep + 1) * dh] for hh in range(H)])
        heads, ctx = [], np.zeros((N, H * dh))
        for hh in range(H):
            r = slice(hh * dh, (hh + 1) * dh)
            q = rope(a @ w[p + "self_attn.q_proj.weight"][r].T + bq[r])
            k = rope(a @ wk[r].T + bk[r])
            v = a @ wv[r].T + bv[r]
            pw = np_softmax_rows(q @ k.T / math.sqrt(dh), keep)
            heads.append(pw)
            ctx[:, r] = pw @ v
        attn.append(heads)
        x = x + ctx @ w[p + "self_attn.o_proj.weight"].T
        m = rms(x, w[p + "post_attention_layernorm.weight"])
        g = m @ w[p + "mlp.gate_proj.weight"].T
        x = x + (g / (1 + np.exp(-g)) * (m @ w[p + "mlp.up_proj.weight"].T)) @ w[p + "mlp.down_proj.weight"].T
        hid.append(x)
    hid[-1] = rms(x, w["model.norm.weight"])
    head = w["model.embed_tokens.weight"] if cfg["tie_word_embeddings"] else w["lm_head.weight"]
    return np.array(attn), np.array(hid), hid[-1] @ head.T


def torch_mha_layer0(x_in, wq, bq, wk, bk, wv, bv, H, keep):
    """PyTorch's own nn.MultiheadAttention on layer 0's normalized input (weights [out, in]):
    per-head weights [H, N, N]."""
    d = x_in.shape[1]
    mha = torch.nn.MultiheadAttention(d, H, bias=True, batch_first=True)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([wq, wk, wv]))
        mha.in_proj_bias.copy_(torch.cat([bq, bk, bv]))
        _, pw = mha(x_in[None], x_in[None], x_in[None], attn_mask=~keep, need_weights=True,
                    average_attn_weights=False)
    return pw[0]


# ---------------------------------------------------------------------------

def check_close(name, got, want, tol):
    got, want = (np.asarray(t.numpy() if torch.is_tensor(t) else t, np.float64) for t in (got, want))
    err = float(np.max(np.abs(got - want)))
    scale = float(np.max(np.abs(want))) or 1.0
    print(f"    {name:28s} max |diff| {err:.2e} (max |ref| {scale:.2e})")
    if err > tol * max(1.0, scale):
        raise SystemExit(f"{name}: the reference and the independent check differ by {err}")


def check_attention(attn, keep):
    """Rows sum to 1 over kept keys; masked (causal / padding) weights exactly 0."""
    a = attn.numpy()
    assert np.all(a[..., ~keep] == 0.0), "masked weights must be exactly 0"
    assert np.allclose(a.sum(-1), 1.0, atol=1e-5), "rows must sum to 1"
    # not uniform: the fixtures should exercise real softmax shapes
    ent = -(np.where(a > 0, a * np.log(np.where(a > 0, a, 1)), 0)).sum(-1)
    maxent = np.log(keep.sum(-1).clip(min=1))
    print(f"    attention: rows sum to 1, masked weights 0; mean entropy {ent.mean():.2f} nats"
          f" (uniform {maxent.mean():.2f}), max weight {a.max():.3f}")


def store(w, dtype, skip=()):
    """(value, dtype) pairs for the safetensors writer, and the weights as read back in float32."""
    rounded = {k: hf_folder.round_to_dtype(v, dtype) for k, v in w.items()}
    return {k: (v, dtype) for k, v in w.items() if k not in skip}, rounded


def fresh(name):
    folder = os.path.join(ROOT, name)
    if os.path.isdir(folder):
        keep = {"reference_tokens.json"}
        for f in os.listdir(folder):
            if f not in keep:
                os.remove(os.path.join(folder, f))
    else:
        os.makedirs(folder)
    return folder


def write_gpt2():
    folder = fresh("gpt2")
    vocab = hf_folder.write_gpt2_tokenizer(folder, CORPUS, num_merges=260, model_max_length=GPT2_CFG["n_positions"])
    V = len(vocab)
    w = gpt2_build(V)
    tensors, _ = store(w, "F32")
    n = GPT2_CFG["n_positions"]
    for i in range(GPT2_CFG["n_layer"]):  # the checkpoint's buffers: causal tril and the old masked_bias
        tensors[f"h.{i}.attn.bias"] = (torch.tril(torch.ones(n, n)).view(1, 1, n, n), "F32")
        tensors[f"h.{i}.attn.masked_bias"] = (torch.tensor(-1e4), "F32")
    hf_folder.write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    hf_folder.write_json(os.path.join(folder, "config.json"), gpt2_config(V))


def write_bert(name, legacy):
    folder = fresh(name)
    cfg = dict(BERT_CFG)
    if legacy:  # a different shape: 3 layers, 2 heads of 24
        cfg.update(hidden_size=48, num_hidden_layers=3, num_attention_heads=2, intermediate_size=96,
                   max_position_embeddings=40)
    tokens = hf_folder.write_bert_vocab(folder, CORPUS, extra_chars=BERT_EXTRA_CHARS)
    V = len(tokens)
    w = bert_build(V, cfg, seed=1810 if not legacy else 1811)
    dtype = "F16" if legacy else "F32"
    ck = bert_checkpoint(w, legacy)
    tensors = {k: (v, dtype) for k, v in ck.items()}
    if legacy:
        tensors["embeddings.position_ids"] = (torch.arange(cfg["max_position_embeddings"])[None], "I64")
    hf_folder.write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    cfg_json = bert_config(V, cfg, "BertModel" if legacy else "BertForMaskedLM")
    if legacy:
        cfg_json["torch_dtype"] = "float16"
    hf_folder.write_json(os.path.join(folder, "config.json"), cfg_json)
    if not legacy:  # the legacy folder has none: BertTokenizer's default do_lower_case (true) applies
        hf_folder.write_json(os.path.join(folder, "tokenizer_config.json"),
                             {"do_lower_case": True, "model_max_length": cfg["max_position_embeddings"],
                              "tokenizer_class": "BertTokenizer"})


def write_llama():
    folder = fresh("llama")
    vocab = hf_folder.write_llama_tokenizer(folder, CORPUS, num_merges=150,
                                            model_max_length=LLAMA_CFG["max_position_embeddings"])
    V = len(vocab)
    w = llama_build(V, LLAMA_CFG, seed=2302)
    hf_folder.write_safetensors(os.path.join(folder, "model.safetensors"), {k: (v, "BF16") for k, v in w.items()})
    hf_folder.write_json(os.path.join(folder, "config.json"), llama_config(V, LLAMA_CFG, "llama", 1, 2))
    hf_folder.write_json(os.path.join(folder, "generation_config.json"), {"bos_token_id": 1, "eos_token_id": 2})


def write_llama3():
    folder = fresh("llama3")
    vocab = hf_folder.write_llama3_tokenizer(folder, CORPUS, num_merges=120,
                                             whole_words=("Ġbecause", "Ġstreet", "Ġtired", "Ġapples"),
                                             model_max_length=LLAMA3_CFG["max_position_embeddings"])
    V = len(vocab)
    w = llama_build(V, LLAMA3_CFG, seed=2407 + 3)
    hf_folder.write_safetensors(os.path.join(folder, "model.safetensors"), {k: (v, "BF16") for k, v in w.items()})
    bos, eos = vocab["<|begin_of_text|>"], vocab["<|eot_id|>"]
    hf_folder.write_json(os.path.join(folder, "config.json"), llama_config(V, LLAMA3_CFG, "llama", bos, eos))


def qwen2_vocab_size(tokenizer_size):
    return (tokenizer_size + 63) // 64 * 64 + 64  # padded past the tokenizer, as Qwen2 pads to 151936


def write_qwen2():
    folder = fresh("qwen2")
    vocab = hf_folder.write_qwen2_tokenizer(folder, CORPUS, num_merges=160,
                                            model_max_length=QWEN2_CFG["max_position_embeddings"])
    V = qwen2_vocab_size(len(vocab))
    w = llama_build(V, QWEN2_CFG, seed=2407)
    tensors = {k: (v, "BF16") for k, v in w.items()}
    names = sorted(tensors)
    first = [n for n in names if n.startswith("model.embed_tokens") or n.startswith("model.layers.0.")]
    second = [n for n in names if n not in first]
    hf_folder.write_sharded(folder, tensors, [first, second])
    eot = vocab["<|endoftext|>"]
    hf_folder.write_json(os.path.join(folder, "config.json"), llama_config(V, QWEN2_CFG, "qwen2", eot, eot))


# --- step 3: references -------------------------------------------------------

def load_weights(folder):
    """Reads back what step 1 wrote (safetensors via the header; independent of the writer's
    in-memory tensors, so a writer fault shows up here)."""
    import struct
    files = [f for f in sorted(os.listdir(folder)) if f.endswith(".safetensors")]
    out = {}
    for fname in files:
        with open(os.path.join(folder, fname), "rb") as f:
            blob = f.read()
        n = struct.unpack("<Q", blob[:8])[0]
        header = json.loads(blob[8:8 + n])
        base = 8 + n
        for k, meta in header.items():
            if k == "__metadata__":
                continue
            b, e = meta["data_offsets"]
            raw = blob[base + b:base + e]
            dt = meta["dtype"]
            if dt == "BF16":
                t = torch.from_numpy(np.frombuffer(raw, "<i2").copy()).view(torch.bfloat16).float()
            elif dt == "F16":
                t = torch.from_numpy(np.frombuffer(raw, "<f2").astype(np.float32))
            elif dt == "F32":
                t = torch.from_numpy(np.frombuffer(raw, "<f4").copy())
            elif dt == "I64":
                t = torch.from_numpy(np.frombuffer(raw, "<i8").copy())
            else:
                raise SystemExit(f"{fname}: {k}: unexpected dtype {dt}")
            out[k] = t.reshape(meta["shape"])
    return out


def bert_canonical(ck):
    """Stored names back to the canonical BertForMaskedLM ones (the legacy form has no cls head)."""
    out = {}
    for k, v in ck.items():
        if k == "embeddings.position_ids" or k.startswith("cls.predictions.decoder"):
            continue
        k = k.replace("LayerNorm.gamma", "LayerNorm.weight").replace("LayerNorm.beta", "LayerNorm.bias")
        out[k if k.startswith(("bert.", "cls.")) else "bert." + k] = v
    return out


def reference(name):
    folder = os.path.join(ROOT, name)
    cfg = json.load(open(os.path.join(folder, "config.json")))
    toks = json.load(open(os.path.join(folder, "reference_tokens.json")))
    w = load_weights(folder)
    arrays = {}
    print(f"{name}: {toks['library']}; {toks['tokenizer']}")
    for c, case in enumerate(toks["cases"]):
        ids, N = case["ids"], len(case["ids"])
        print(f"  case {c}: {N} tokens {case['tokens']}")
        arrays[f"ids_{c}"] = np.array(ids, np.int64)
        arrays[f"type_ids_{c}"] = np.array(case["type_ids"], np.int64)
        arrays[f"mask_{c}"] = np.array(case["attention_mask"], np.int64)
        if cfg["model_type"] == "gpt2":
            attn, hid, logits = gpt2_forward(w, cfg, ids)
            keep = np.tril(np.ones((N, N), bool))
            a64, h64, l64 = np_gpt2(np64(w), cfg, ids)
            d = cfg["n_embd"]
            x0 = F.layer_norm(hid[0], (d,), w["h.0.ln_1.weight"], w["h.0.ln_1.bias"], cfg["layer_norm_epsilon"])
            W, B = w["h.0.attn.c_attn.weight"], w["h.0.attn.c_attn.bias"]
            pw = torch_mha_layer0(x0, W[:, :d].T, B[:d], W[:, d:2 * d].T, B[d:2 * d], W[:, 2 * d:].T, B[2 * d:],
                                  cfg["n_head"], torch.from_numpy(keep))
            check_close("layer 0 vs nn.MultiheadAttn", attn[0], pw, 1e-5)
        elif cfg["model_type"] == "bert":
            wc = bert_canonical(w)
            mask = case["attention_mask"]
            attn, hid, mlm = bert_forward(wc, cfg, ids, case["type_ids"], mask)
            keep = np.tile(np.array(mask, bool)[None, :], (N, 1))
            a64, h64 = np_bert(np64(wc), cfg, ids, case["type_ids"], mask)
            p = "bert.encoder.layer.0.attention.self."
            pw = torch_mha_layer0(hid[0], *(wc[p + f"{n}.{t}"] for n in ("query", "key", "value") for t in ("weight", "bias")),
                                  cfg["num_attention_heads"], torch.from_numpy(keep))
            check_close("layer 0 vs nn.MultiheadAttn", attn[0], pw, 1e-5)
            if mlm is not None:
                arrays[f"mlm_logits_{c}"] = mlm.numpy().astype(np.float32)
                # the stored decoder is the tied word embedding, its bias the head's bias
                assert torch.equal(w["cls.predictions.decoder.weight"], w["bert.embeddings.word_embeddings.weight"])
            logits = None
        else:
            attn, hid, logits = llama_forward(w, cfg, ids)
            keep = np.tril(np.ones((N, N), bool))
            a64, h64, l64 = np_llama(np64(w), cfg, ids)
        check_attention(attn, keep)
        check_close("attn vs float64 numpy", attn, a64, 1e-5)
        check_close("hidden vs float64 numpy", hid, h64, 1e-5)
        arrays[f"attn_{c}"] = attn.numpy().astype(np.float32)
        arrays[f"hidden_{c}"] = hid.numpy().astype(np.float32)
        if logits is not None:
            check_close("logits vs float64 numpy", logits, l64, 1e-5)
            arrays[f"logits_{c}"] = logits.numpy().astype(np.float32)
    np.savez_compressed(os.path.join(folder, "reference.npz"), **arrays)


# One head zeroed as Hugging Face's head_mask does (its attention probabilities times 0):
# (layer, head), 0-based; the first ablation changes every later layer, the second only the last.
ABLATIONS = [(0, 1), (1, 2)]


def reference_ablate(name):
    """reference_ablate.npz: the forward with one head zeroed, for each ABLATIONS entry and each
    case: attn_{a}_{c}, hidden_{a}_{c} and (causal) logits_{a}_{c}; ablations [A, 2]."""
    folder = os.path.join(ROOT, name)
    cfg = json.load(open(os.path.join(folder, "config.json")))
    toks = json.load(open(os.path.join(folder, "reference_tokens.json")))
    w = load_weights(folder)
    L = cfg.get("n_layer") or cfg["num_hidden_layers"]
    H = cfg.get("n_head") or cfg["num_attention_heads"]
    arrays = {"ablations": np.array(ABLATIONS, np.int64)}
    for a, (layer, head) in enumerate(ABLATIONS):
        hm = torch.ones(L, H)
        hm[layer, head] = 0
        for c, case in enumerate(toks["cases"]):
            ids = case["ids"]
            if cfg["model_type"] == "gpt2":
                attn, hid, logits = gpt2_forward(w, cfg, ids, hm)
                base = gpt2_forward(w, cfg, ids)
            elif cfg["model_type"] == "bert":
                wc = bert_canonical(w)
                attn, hid, _ = bert_forward(wc, cfg, ids, case["type_ids"], case["attention_mask"], hm)
                base = bert_forward(wc, cfg, ids, case["type_ids"], case["attention_mask"])
                logits = None
            else:
                attn, hid, logits = llama_forward(w, cfg, ids, hm)
                base = llama_forward(w, cfg, ids)
            assert float(attn[layer, head].abs().max()) == 0.0
            assert float((hid[-1] - base[1][-1]).abs().max()) > 1e-4, "the ablation should change the output"
            arrays[f"attn_{a}_{c}"] = attn.numpy().astype(np.float32)
            arrays[f"hidden_{a}_{c}"] = hid.numpy().astype(np.float32)
            if logits is not None:
                arrays[f"logits_{a}_{c}"] = logits.numpy().astype(np.float32)
    np.savez_compressed(os.path.join(folder, "reference_ablate.npz"), **arrays)
    print(f"{name}: reference_ablate.npz ({len(ABLATIONS)} ablations x {len(toks['cases'])} cases)")


ABLATE_MODELS = ("gpt2", "bert", "llama")

# Masked-LM cases for the BERT fixture: texts with the tokenizer's mask token. Every word is
# whole in the fixture's vocab.txt, so BertTokenizer's result is the lowercased words and
# punctuation marks, [MASK] kept whole; mlm_ids() builds it so and checks that assumption.
MLM_CASES = [
    {"text": "The cat sat on the [MASK].", "pair": None},
    {"text": "The [MASK] was very happy!", "pair": "It sat on the [MASK]."},
]


def mlm_ids(vocab, text, pair):
    import re

    def words(t):
        out = []
        for w in re.findall(r"\[MASK\]|\w+|[^\w\s]", t):
            w = w if w == "[MASK]" else w.lower()
            assert w in vocab, f"{w!r} is not a whole word of vocab.txt"
            out.append(w)
        return out
    tokens = ["[CLS]"] + words(text) + ["[SEP]"]
    types = [0] * len(tokens)
    if pair is not None:
        second = words(pair) + ["[SEP]"]
        tokens += second
        types += [1] * len(second)
    return tokens, [vocab[t] for t in tokens], types


def reference_mlm(name="bert"):
    """reference_mlm.json + reference_mlm.npz: for each MLM_CASES text, the ids, the
    BertForMaskedLM logits at every position (mlm_logits_c [N, V]), the top 5 at each
    [MASK] (top5_ids_c / top5_probs_c [M, 5], mask_positions_c [M]), and the same with
    ABLATIONS[0] zeroed (mlm_logits_ablate_c, top5_*_ablate_c) with KL(before || after)
    at each [MASK] (kl_ablate_c [M], in float64 from the log-softmax)."""
    folder = os.path.join(ROOT, name)
    cfg = json.load(open(os.path.join(folder, "config.json")))
    vocab = {t: i for i, t in enumerate(open(os.path.join(folder, "vocab.txt"), encoding="utf-8").read().split("\n")) if t}
    w = bert_canonical(load_weights(folder))
    L, H = cfg["num_hidden_layers"], cfg["num_attention_heads"]
    layer, head = ABLATIONS[0]
    hm = torch.ones(L, H)
    hm[layer, head] = 0
    arrays, cases = {"ablation": np.array(ABLATIONS[0], np.int64)}, []
    for c, case in enumerate(MLM_CASES):
        tokens, ids, types = mlm_ids(vocab, case["text"], case["pair"])
        mask = [1] * len(ids)
        pos = [i for i, t in enumerate(tokens) if t == "[MASK]"]
        _, hid, mlm = bert_forward(w, cfg, ids, types, mask)
        _, _, mlm_ab = bert_forward(w, cfg, ids, types, mask, hm)
        # the head by hand in float64 numpy: dense, erf GELU, LayerNorm, tied decoder + bias
        t = "cls.predictions."
        w64 = np64(w)
        x = hid[-1].double().numpy() @ w64[t + "transform.dense.weight"].T + w64[t + "transform.dense.bias"]
        x = 0.5 * x * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))
        x = np_layer_norm(x, w64[t + "transform.LayerNorm.weight"], w64[t + "transform.LayerNorm.bias"],
                          cfg["layer_norm_eps"])
        check_close("mlm logits vs float64 numpy", mlm, x @ w64["bert.embeddings.word_embeddings.weight"].T + w64[t + "bias"], 1e-5)
        arrays[f"ids_{c}"] = np.array(ids, np.int64)
        arrays[f"type_ids_{c}"] = np.array(types, np.int64)
        arrays[f"mask_positions_{c}"] = np.array(pos, np.int64)
        for suffix, logits in (("", mlm), ("_ablate", mlm_ab)):
            arrays[f"mlm_logits{suffix}_{c}"] = logits.numpy().astype(np.float32)
            p = torch.softmax(logits[pos].double(), -1)
            top = torch.topk(p, 5, dim=-1)
            arrays[f"top5_ids{suffix}_{c}"] = top.indices.numpy().astype(np.int64)
            arrays[f"top5_probs{suffix}_{c}"] = top.values.numpy().astype(np.float32)
        lp, lq = torch.log_softmax(mlm[pos].double(), -1), torch.log_softmax(mlm_ab[pos].double(), -1)
        arrays[f"kl_ablate_{c}"] = (lp.exp() * (lp - lq)).sum(-1).numpy()
        assert float(arrays[f"kl_ablate_{c}"].min()) > 1e-6, "the ablation should change the prediction"
        cases.append({"text": case["text"], "pair": case["pair"], "tokens": tokens, "ids": ids, "type_ids": types,
                      "mask_positions": pos})
        print(f"  mlm case {c}: {tokens}, [MASK] at {pos}")
    hf_folder.write_json(os.path.join(folder, "reference_mlm.json"), {"cases": cases})
    np.savez_compressed(os.path.join(folder, "reference_mlm.npz"), **arrays)
    print(f"{name}: reference_mlm.npz ({len(MLM_CASES)} cases)")


# ---------------------------------------------------------------------------
# Contributions from one forward, in float64 from the traced layer inputs, weights,
# values and W_O: Kobayashi et al. 2020 ("Attention is Not Only a Weight", section 3:
# ||alpha_ij f(x_j)|| with f(x) = (x W_V + b_V) W_O^h, b_O left out), Kobayashi et al.
# 2021 (the attention block with the residual and, for post-LN BERT, the LayerNorm taken
# apart token by token: g_i(z) = (z - mean z) / s_i * gamma, s_i of the whole sum), and
# ALTI (Ferrando et al. 2022: c_ij = max(0, ||y_i||_1 - ||y_i - T_i(x_j)||_1), normalized,
# then rolled out as alti[L-1] ... alti[0]). Each decomposition is checked to add up to
# the layer's real output.

CONTRIB_MODELS = ("gpt2", "bert", "llama", "qwen2")


def contributions_of(trace):
    norms, resln, alti = [], [], []
    for t in trace:
        x = t["x"].double()
        pw, v, wo = t["pw"].double(), t["v"].double(), t["wo"].double()
        H, N, dh = v.shape
        d = x.shape[1]
        bo = t["bo"].double() if t["bo"] is not None else torch.zeros(d, dtype=torch.float64)
        fx = [v[h] @ wo[h * dh:(h + 1) * dh] for h in range(H)]  # f^h(x_j) for every j: [N, d]
        nm = torch.zeros(H, N, N, dtype=torch.float64)
        rl = torch.zeros(N, N, dtype=torch.float64)
        al = torch.zeros(N, N, dtype=torch.float64)
        for i in range(N):
            T = torch.stack([sum(pw[h, i, j] * fx[h][j] for h in range(H)) for j in range(N)])
            for h in range(H):
                for j in range(N):
                    nm[h, i, j] = torch.linalg.norm(pw[h, i, j] * fx[h][j])
            T[i] = T[i] + x[i]  # the residual
            S = T.sum(0) + bo
            if "ln" in t:
                gamma, beta, eps = t["ln"]
                gamma, beta = gamma.double(), beta.double()
                s = torch.sqrt(S.var(unbiased=False) + eps)
                C = (T - T.mean(1, keepdim=True)) / s * gamma
                y = (S - S.mean()) / s * gamma + beta
                rest = (bo - bo.mean()) / s * gamma + beta
            else:
                C, y, rest = T, S, bo
            assert float((C.sum(0) + rest - y).abs().max()) < 1e-9
            assert float((y - t["out"][i].double()).abs().max()) < 1e-4, "the parts must add up to the layer's output"
            for j in range(N):
                rl[i, j] = torch.linalg.norm(C[j])
                al[i, j] = max(0.0, float(y.abs().sum() - (y - C[j]).abs().sum()))
            al[i] = al[i] / al[i].sum() if al[i].sum() > 0 else torch.eye(N, dtype=torch.float64)[i]
        norms.append(nm)
        resln.append(rl)
        alti.append(al)
    roll = alti[0]
    for a in alti[1:]:
        roll = a @ roll
    return torch.stack(norms), torch.stack(resln), torch.stack(alti), roll


def reference_contrib(name):
    """reference_contrib.npz, per case c of reference.npz: attention_norms_c [L, H, N, N],
    attention_norms_resln_c [L, N, N], alti_c [L, N, N], alti_rollout_c [N, N] (float32)."""
    folder = os.path.join(ROOT, name)
    cfg = json.load(open(os.path.join(folder, "config.json")))
    toks = json.load(open(os.path.join(folder, "reference_tokens.json")))
    w = load_weights(folder)
    arrays = {}
    for c, case in enumerate(toks["cases"]):
        ids, trace = case["ids"], []
        if cfg["model_type"] == "gpt2":
            gpt2_forward(w, cfg, ids, trace=trace)
        elif cfg["model_type"] == "bert":
            bert_forward(bert_canonical(w), cfg, ids, case["type_ids"], case["attention_mask"], trace=trace)
        else:
            llama_forward(w, cfg, ids, trace=trace)
        nm, rl, al, roll = contributions_of(trace)
        assert float((al.sum(-1) - 1).abs().max()) < 1e-9 and float((roll.sum(-1) - 1).abs().max()) < 1e-9
        for key, val in (("attention_norms", nm), ("attention_norms_resln", rl), ("alti", al), ("alti_rollout", roll)):
            arrays[f"{key}_{c}"] = val.numpy().astype(np.float32)
    np.savez_compressed(os.path.join(folder, "reference_contrib.npz"), **arrays)
    print(f"{name}: reference_contrib.npz ({len(toks['cases'])} cases)")

# ---------------------------------------------------------------------------
# The logit lens (nostalgebraist 2020): each entry of HF's output_hidden_states read out
# as if it were the last, i.e. lm_head(final_norm(hidden[l])) as one writes it with
# transformers. hidden[L] of the causal models is already after the final norm (HF
# returns it so), and is read out as it is; BERT's rows go through BertForMaskedLM's
# cls.predictions head. Probabilities are the softmax in float64.

LENS_MODELS = ("gpt2", "bert", "llama", "llama3", "qwen2")
LENS_K = 5


def mlm_head(w, cfg, x):
    t = "cls.predictions."
    y = F.gelu(F.linear(x, w[t + "transform.dense.weight"], w[t + "transform.dense.bias"]))
    y = F.layer_norm(y, (cfg["hidden_size"],), w[t + "transform.LayerNorm.weight"], w[t + "transform.LayerNorm.bias"],
                     cfg["layer_norm_eps"])
    return y @ w["bert.embeddings.word_embeddings.weight"].T + w[t + "bias"]


def lens_logits(w, cfg, hid):
    """[L+1, N, V] logits of every hidden state."""
    L = hid.shape[0] - 1
    kind = cfg["model_type"]
    if kind == "bert":
        return torch.stack([mlm_head(w, cfg, hid[l]) for l in range(L + 1)])
    if kind == "gpt2":
        norm = lambda x: F.layer_norm(x, (cfg["n_embd"],), w["ln_f.weight"], w["ln_f.bias"],  # noqa: E731
                                      cfg["layer_norm_epsilon"])
        head = w["wte.weight"]
    else:
        norm = lambda x: rms_norm(x, w["model.norm.weight"], cfg["rms_norm_eps"])  # noqa: E731
        head = w["model.embed_tokens.weight"] if cfg["tie_word_embeddings"] else w["lm_head.weight"]
    return torch.stack([(norm(hid[l]) if l < L else hid[l]) @ head.T for l in range(L + 1)])


def np_lens_logits(w, cfg, case):
    """The same from the independent float64 numpy forward (its own norms and heads)."""
    w64, ids = np64(w), case["ids"]
    kind = cfg["model_type"]
    if kind == "bert":
        from math import erf
        _, hid = np_bert(w64, cfg, ids, case["type_ids"], case["attention_mask"])
        t = "cls.predictions."
        x = hid @ w64[t + "transform.dense.weight"].T + w64[t + "transform.dense.bias"]
        x = 0.5 * x * (1.0 + np.vectorize(erf)(x / math.sqrt(2.0)))
        x = np_layer_norm(x, w64[t + "transform.LayerNorm.weight"], w64[t + "transform.LayerNorm.bias"],
                          cfg["layer_norm_eps"])
        return x @ w64["bert.embeddings.word_embeddings.weight"].T + w64[t + "bias"]
    if kind == "gpt2":
        _, hid, _ = np_gpt2(w64, cfg, ids)
        normed = np_layer_norm(hid[:-1], w64["ln_f.weight"], w64["ln_f.bias"], cfg["layer_norm_epsilon"])
        head = w64["wte.weight"]
    else:
        _, hid, _ = np_llama(w64, cfg, ids)
        x = hid[:-1]
        normed = x / np.sqrt((x ** 2).mean(-1, keepdims=True) + cfg["rms_norm_eps"]) * w64["model.norm.weight"]
        head = w64["model.embed_tokens.weight"] if cfg["tie_word_embeddings"] else w64["lm_head.weight"]
    return np.concatenate([normed, hid[-1:]]) @ head.T


def reference_lens(name):
    """reference_lens.npz, per case c of reference.npz: lens_top_ids_c [L+1, N, 5] (int64),
    lens_top_probs_c [L+1, N, 5], lens_final_rank_c [L+1, N] (int64: the rank, 0 = top, of
    row L's top-1 at each row), lens_final_probs_c [L+1, N] (its probability), and for the
    test to know which ids are well defined: lens_sixth_probs_c [L+1, N] (the 6th
    probability) and lens_rank_margin_c [L+1, N] (min |p_j - p_final| over j != final)."""
    folder = os.path.join(ROOT, name)
    cfg = json.load(open(os.path.join(folder, "config.json")))
    toks = json.load(open(os.path.join(folder, "reference_tokens.json")))
    w = load_weights(folder)
    arrays = {}
    for c, case in enumerate(toks["cases"]):
        ids = case["ids"]
        if cfg["model_type"] == "gpt2":
            _, hid, final = gpt2_forward(w, cfg, ids)
        elif cfg["model_type"] == "bert":
            wc = bert_canonical(w)
            _, hid, final = bert_forward(wc, cfg, ids, case["type_ids"], case["attention_mask"])
            w_use = wc
        else:
            _, hid, final = llama_forward(w, cfg, ids)
        logits = lens_logits(w_use if cfg["model_type"] == "bert" else w, cfg, hid)
        # the last row is the model's own output: lm_head(hidden[L]), or the MLM head's logits
        check_close("lens row L vs the model's", logits[-1], final, 1e-6)
        check_close("lens vs float64 numpy", logits, np_lens_logits(w_use if cfg["model_type"] == "bert" else w,
                                                                    cfg, case), 1e-5)
        p = torch.softmax(logits.double(), -1)
        top = torch.topk(p, LENS_K + 1, dim=-1)
        fid = p[-1].argmax(-1)  # [N]
        pf = p.gather(-1, fid[None, :, None].expand(p.shape[0], -1, 1))[..., 0]
        lf = logits.gather(-1, fid[None, :, None].expand(p.shape[0], -1, 1))
        rank = (logits > lf).sum(-1)
        others = (p - pf[..., None]).abs()
        others.scatter_(-1, fid[None, :, None].expand(p.shape[0], -1, 1), float("inf"))
        assert torch.equal(rank[-1], torch.zeros_like(rank[-1]))
        arrays[f"lens_top_ids_{c}"] = top.indices[..., :LENS_K].numpy().astype(np.int64)
        arrays[f"lens_top_probs_{c}"] = top.values[..., :LENS_K].numpy().astype(np.float32)
        arrays[f"lens_sixth_probs_{c}"] = top.values[..., LENS_K].numpy().astype(np.float32)
        arrays[f"lens_final_rank_{c}"] = rank.numpy().astype(np.int64)
        arrays[f"lens_final_probs_{c}"] = pf.numpy().astype(np.float32)
        arrays[f"lens_rank_margin_{c}"] = others.min(-1).values.numpy().astype(np.float32)
        print(f"  lens case {c}: mean rank of the final top-1 per row {rank.double().mean(-1).tolist()}")
    np.savez_compressed(os.path.join(folder, "reference_lens.npz"), **arrays)
    print(f"{name}: reference_lens.npz ({len(toks['cases'])} cases)")

MODELS = {
    "gpt2": write_gpt2,
    "bert": lambda: write_bert("bert", legacy=False),
    "bert_legacy": lambda: write_bert("bert_legacy", legacy=True),
    "llama": write_llama,
    "llama3": write_llama3,
    "qwen2": write_qwen2,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--step", choices=["all", "folders", "tokens", "reference", "ablate", "mlm", "contrib", "lens"], default="all")
    ap.add_argument("models", nargs="*", default=list(MODELS))
    args = ap.parse_args()
    torch.set_grad_enabled(False)
    torch.set_num_threads(1)
    if args.step in ("all", "folders"):
        for m in args.models:
            MODELS[m]()
    if args.step in ("all", "tokens"):
        node = shutil.which("node") or "node"
        subprocess.run([node, os.path.join(NODE_DIR, "encode_model_fixtures.js"), ROOT], check=True)
    if args.step in ("all", "reference"):
        for m in args.models:
            reference(m)
    if args.step in ("all", "ablate"):
        for m in args.models:
            if m in ABLATE_MODELS:
                reference_ablate(m)
    if args.step in ("all", "contrib"):
        for m in args.models:
            if m in CONTRIB_MODELS:
                reference_contrib(m)
    if args.step in ("all", "lens"):
        for m in args.models:
            if m in LENS_MODELS:
                reference_lens(m)
    if args.step in ("all", "mlm") and "bert" in args.models:
        reference_mlm("bert")
    for m in args.models:
        folder = os.path.join(ROOT, m)
        size = sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder))
        print(f"{m}: {size / 1024:.0f} KiB in {len(os.listdir(folder))} files")


if __name__ == "__main__":
    main()
