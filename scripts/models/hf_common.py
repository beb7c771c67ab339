"""Shared pieces of the bundled-model training scripts.

Debian ships python3-torch but neither the `transformers` nor the `tokenizers`
nor the `safetensors` Python package, and nothing can be downloaded on the
build machines, so this module writes the model math, the safetensors writer
and the tokenizer.json files itself.  The math follows Hugging Face's
modeling_gpt2.py and modeling_bert.py line by line so that the folders these
scripts write load unchanged in transformers and in AttnScope's C++ loader.
"""
import json
import math
import os
import random
import struct

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def gelu_new(x):
    # Hugging Face's NewGELUActivation (the tanh approximation, Hendrycks & Gimpel 2016).
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


# ----------------------------------------------------------------------------- GPT-2
class Gpt2Block(nn.Module):
    """Pre-LN block as GPT2Block: x + attn(ln_1(x)); x + mlp(ln_2(x)). Conv1D weights are [in, out]."""

    def __init__(self, d, heads, inner, eps):
        super().__init__()
        self.heads = heads
        self.ln_1 = nn.LayerNorm(d, eps=eps)
        self.c_attn_w = nn.Parameter(torch.randn(d, 3 * d) * 0.02)
        self.c_attn_b = nn.Parameter(torch.zeros(3 * d))
        self.c_proj_w = nn.Parameter(torch.randn(d, d) * 0.02)
        self.c_proj_b = nn.Parameter(torch.zeros(d))
        self.ln_2 = nn.LayerNorm(d, eps=eps)
        self.inner = inner
        self.fc_w = nn.Parameter(torch.randn(d, inner) * 0.02)
        self.fc_b = nn.Parameter(torch.zeros(inner))
        self.fc_proj_w = nn.Parameter(torch.randn(inner, d) * 0.02)
        # With no MLP (inner 0) GPT2MLP returns c_proj's bias alone: kept at zero and not trained.
        self.fc_proj_b = nn.Parameter(torch.zeros(d), requires_grad=inner > 0)

    def forward(self, x, want_attn=False):
        B, T, D = x.shape
        H = self.heads
        a = self.ln_1(x) @ self.c_attn_w + self.c_attn_b
        q, k, v = a.split(D, dim=2)
        q = q.view(B, T, H, D // H).transpose(1, 2)
        k = k.view(B, T, H, D // H).transpose(1, 2)
        v = v.view(B, T, H, D // H).transpose(1, 2)
        s = (q @ k.transpose(-1, -2)) / math.sqrt(D // H)
        causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        s = s.masked_fill(~causal, torch.finfo(s.dtype).min)
        w = torch.softmax(s, dim=-1)
        o = (w @ v).transpose(1, 2).reshape(B, T, D)
        x = x + o @ self.c_proj_w + self.c_proj_b
        if self.inner > 0:
            h = gelu_new(self.ln_2(x) @ self.fc_w + self.fc_b)
            x = x + h @ self.fc_proj_w + self.fc_proj_b
        else:
            x = x + self.fc_proj_b
        return (x, w) if want_attn else (x, None)


class Gpt2(nn.Module):
    def __init__(self, vocab, positions, d, layers, heads, inner, eps=1e-5, tie=True):
        super().__init__()
        self.cfg = dict(vocab=vocab, positions=positions, d=d, layers=layers, heads=heads, inner=inner, eps=eps,
                        tie=tie)
        self.wte = nn.Embedding(vocab, d)
        # tie=False: GPT2LMHeadModel with tie_word_embeddings false and its own lm_head.weight [vocab, d].
        self.lm_head = None if tie else nn.Parameter(torch.randn(vocab, d) * 0.02)
        self.wpe = nn.Embedding(positions, d)
        nn.init.normal_(self.wte.weight, std=0.02)
        nn.init.normal_(self.wpe.weight, std=0.01)
        self.blocks = nn.ModuleList([Gpt2Block(d, heads, inner, eps) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d, eps=eps)
        # GPT-2's scaled init of the residual projections (Radford et al. 2019, section 2.3).
        for b in self.blocks:
            with torch.no_grad():
                b.c_proj_w.mul_(1 / math.sqrt(2 * layers))
                b.fc_proj_w.mul_(1 / math.sqrt(2 * layers))

    def forward(self, ids, want_attn=False):
        T = ids.shape[1]
        x = self.wte(ids) + self.wpe(torch.arange(T, device=ids.device))[None]
        maps = []
        for b in self.blocks:
            x, w = b(x, want_attn)
            maps.append(w)
        logits = self.ln_f(x) @ (self.wte.weight if self.lm_head is None else self.lm_head).t()
        return (logits, maps) if want_attn else logits

    def hf_tensors(self):
        t = {"wte.weight": self.wte.weight, "wpe.weight": self.wpe.weight,
             "ln_f.weight": self.ln_f.weight, "ln_f.bias": self.ln_f.bias}
        for i, b in enumerate(self.blocks):
            p = f"h.{i}."
            t.update({p + "ln_1.weight": b.ln_1.weight, p + "ln_1.bias": b.ln_1.bias,
                      p + "attn.c_attn.weight": b.c_attn_w, p + "attn.c_attn.bias": b.c_attn_b,
                      p + "attn.c_proj.weight": b.c_proj_w, p + "attn.c_proj.bias": b.c_proj_b,
                      p + "ln_2.weight": b.ln_2.weight, p + "ln_2.bias": b.ln_2.bias,
                      p + "mlp.c_fc.weight": b.fc_w, p + "mlp.c_fc.bias": b.fc_b,
                      p + "mlp.c_proj.weight": b.fc_proj_w, p + "mlp.c_proj.bias": b.fc_proj_b})
        if self.lm_head is not None:
            # GPT2LMHeadModel.save_pretrained's names: transformers loads a prefix-less file into the
            # bare GPT2Model and would drop the head, so the untied layout carries the prefix.
            t = {"transformer." + k: v for k, v in t.items()}
            t["lm_head.weight"] = self.lm_head
        return t

    def hf_config(self, extra=None):
        c = self.cfg
        cfg = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "vocab_size": c["vocab"],
               "n_positions": c["positions"], "n_ctx": c["positions"], "n_embd": c["d"], "n_layer": c["layers"],
               "n_head": c["heads"], "n_inner": c["inner"], "activation_function": "gelu_new",
               "layer_norm_epsilon": c["eps"], "resid_pdrop": 0.0, "embd_pdrop": 0.0, "attn_pdrop": 0.0,
               "tie_word_embeddings": c["tie"], "bos_token_id": 0, "eos_token_id": 0, "torch_dtype": "float16"}
        cfg.update(extra or {})
        return cfg


# ----------------------------------------------------------------------------- BERT
class BertLayer(nn.Module):
    """Post-LN block as BertLayer: LN(x + attn(x)); LN(h + mlp(h)). nn.Linear weights are [out, in]."""

    def __init__(self, d, heads, inner, eps):
        super().__init__()
        self.heads = heads
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.ln_attn = nn.LayerNorm(d, eps=eps)
        self.up = nn.Linear(d, inner)
        self.down = nn.Linear(inner, d)
        self.ln_out = nn.LayerNorm(d, eps=eps)

    def forward(self, x, keep, want_attn=False):
        B, T, D = x.shape
        H = self.heads
        sh = lambda t: t.view(B, T, H, D // H).transpose(1, 2)
        q, k, v = sh(self.q(x)), sh(self.k(x)), sh(self.v(x))
        s = (q @ k.transpose(-1, -2)) / math.sqrt(D // H)
        s = s + (1.0 - keep[:, None, None, :].to(s.dtype)) * torch.finfo(s.dtype).min
        w = torch.softmax(s, dim=-1)
        o = (w @ v).transpose(1, 2).reshape(B, T, D)
        h = self.ln_attn(self.o(o) + x)
        out = self.ln_out(self.down(F.gelu(self.up(h))) + h)  # BERT's "gelu" is the exact erf GELU
        return out, (w if want_attn else None)


class Bert(nn.Module):
    def __init__(self, vocab, positions, d, layers, heads, inner, eps=1e-12, fan_in_init=False, sinusoid_init=False):
        super().__init__()
        self.cfg = dict(vocab=vocab, positions=positions, d=d, layers=layers, heads=heads, inner=inner, eps=eps)
        self.word = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(positions, d)
        self.token_type = nn.Embedding(2, d)  # not `type`: nn.Module.type() would shadow it
        self.ln_emb = nn.LayerNorm(d, eps=eps)
        self.layers = nn.ModuleList([BertLayer(d, heads, inner, eps) for _ in range(layers)])
        # BertOnlyMLMHead: dense, gelu, LayerNorm, decoder tied to the word embeddings plus a bias.
        self.head_dense = nn.Linear(d, d)
        self.head_ln = nn.LayerNorm(d, eps=eps)
        self.head_bias = nn.Parameter(torch.zeros(vocab))
        # BERT's initialisation: N(0, 0.02) everywhere. fan_in_init: the dense layers N(0, 1/fan_in)
        # instead (LeCun's, as T5 initialises its layers, Raffel et al. 2020): at hidden 128, 0.02 is a
        # quarter of that, which leaves the query-key and value-output products, and with them the
        # first attention patterns, near zero.
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Embedding)):
                std = m.weight.shape[1] ** -0.5 if fan_in_init and isinstance(m, nn.Linear) else 0.02
                nn.init.normal_(m.weight, std=std)
            if isinstance(m, nn.Linear):
                nn.init.zeros_(m.bias)
        if sinusoid_init:
            # The learned positions start as Vaswani et al.'s (2017, section 3.5) sinusoids, in which
            # position i-1 is a fixed linear map of position i: a head can find its neighbours with one
            # map instead of first learning that structure for each of the positions. Scaled to
            # the word embeddings' RMS (0.02), so that neither dominates the embedding LayerNorm.
            pos = torch.arange(positions, dtype=torch.float32)[:, None]
            freq = torch.exp(torch.arange(0, d, 2, dtype=torch.float32) * (-math.log(10000.0) / d))
            table = torch.zeros(positions, d)
            table[:, 0::2] = torch.sin(pos * freq)
            table[:, 1::2] = torch.cos(pos * freq)
            with torch.no_grad():
                self.pos.weight.copy_(table * (0.02 * math.sqrt(2.0)))

    def encode(self, ids, keep=None, types=None, want_attn=False):
        """The last layer's hidden states [B, T, d] (BertModel's last_hidden_state) and the maps.

        keep: 1 for real tokens, 0 for padding; types: the token type ids (segment A 0, B 1)."""
        B, T = ids.shape
        if keep is None:
            keep = torch.ones_like(ids)
        if types is None:
            types = torch.zeros_like(ids)
        # BertEmbeddings: word + token type + absolute position, then LayerNorm.
        x = self.word(ids) + self.token_type(types) + self.pos(torch.arange(T, device=ids.device))[None]
        x = self.ln_emb(x)
        maps = []
        for layer in self.layers:
            x, w = layer(x, keep, want_attn)
            maps.append(w)
        return x, maps

    def mlm_logits(self, h):
        """BertOnlyMLMHead on hidden rows h [..., d]: logits [..., vocab]."""
        t = self.head_ln(F.gelu(self.head_dense(h)))
        return t @ self.word.weight.t() + self.head_bias

    def forward(self, ids, keep=None, types=None, want_attn=False):
        h, maps = self.encode(ids, keep, types, want_attn)
        logits = self.mlm_logits(h)
        return (logits, maps) if want_attn else logits

    def hf_tensors(self):
        t = {"bert.embeddings.word_embeddings.weight": self.word.weight,
             "bert.embeddings.position_embeddings.weight": self.pos.weight,
             "bert.embeddings.token_type_embeddings.weight": self.token_type.weight,
             "bert.embeddings.LayerNorm.weight": self.ln_emb.weight,
             "bert.embeddings.LayerNorm.bias": self.ln_emb.bias,
             "cls.predictions.bias": self.head_bias,
             "cls.predictions.transform.dense.weight": self.head_dense.weight,
             "cls.predictions.transform.dense.bias": self.head_dense.bias,
             "cls.predictions.transform.LayerNorm.weight": self.head_ln.weight,
             "cls.predictions.transform.LayerNorm.bias": self.head_ln.bias}
        for i, L in enumerate(self.layers):
            p = f"bert.encoder.layer.{i}."
            for name, m in (("attention.self.query", L.q), ("attention.self.key", L.k),
                            ("attention.self.value", L.v), ("attention.output.dense", L.o),
                            ("intermediate.dense", L.up), ("output.dense", L.down)):
                t[p + name + ".weight"] = m.weight
                t[p + name + ".bias"] = m.bias
            for name, m in (("attention.output.LayerNorm", L.ln_attn), ("output.LayerNorm", L.ln_out)):
                t[p + name + ".weight"] = m.weight
                t[p + name + ".bias"] = m.bias
        return t

    def hf_config(self, extra=None):
        c = self.cfg
        cfg = {"architectures": ["BertForMaskedLM"], "model_type": "bert", "vocab_size": c["vocab"],
               "hidden_size": c["d"], "num_hidden_layers": c["layers"], "num_attention_heads": c["heads"],
               "intermediate_size": c["inner"], "hidden_act": "gelu", "max_position_embeddings": c["positions"],
               "type_vocab_size": 2, "layer_norm_eps": c["eps"], "hidden_dropout_prob": 0.0,
               "attention_probs_dropout_prob": 0.0, "pad_token_id": 0, "position_embedding_type": "absolute",
               "torch_dtype": "float16"}
        cfg.update(extra or {})
        return cfg


# ----------------------------------------------------------------------------- files
def write_safetensors_f16(path, tensors):
    """The safetensors layout (8-byte little-endian header size, JSON header, raw data), F16 little-endian.

    Written to a temporary name and renamed so that an interrupted run leaves no half-written file."""
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        a = tensors[name].detach().cpu().to(torch.float16).numpy().astype("<f2")
        b = a.tobytes()
        header[name] = {"dtype": "F16", "shape": list(a.shape), "data_offsets": [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    header["__metadata__"] = {"format": "pt"}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)
    os.replace(tmp, path)
    check_safetensors(path, tensors)


def check_safetensors(path, tensors):
    """Reads the written file back: every tensor present, with its shape and its F16 values."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    base = 8 + n
    assert set(header) - {"__metadata__"} == set(tensors), f"{path}: tensor names differ"
    for name, t in tensors.items():
        h = header[name]
        a, b = h["data_offsets"]
        got = np.frombuffer(data[base + a:base + b], dtype="<f2").reshape(h["shape"])
        want = t.detach().cpu().to(torch.float16).numpy()
        assert got.shape == want.shape and np.array_equal(got, want), f"{path}: {name} differs"


def round_to_f16_(model):
    """Round every parameter to F16 in place, so references are computed from the shipped weights."""
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(p.to(torch.float16).to(torch.float32))


def write_json(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def write_text(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def write_reference(path, ids, logits):
    """A small .npz the C++ test compares against: input ids and the plain-torch logits."""
    tmp = path + ".tmp.npz"
    np.savez(tmp, ids=np.asarray(ids, dtype=np.int64), logits=logits.detach().cpu().numpy().astype(np.float32))
    os.replace(tmp, path)


# ----------------------------------------------------------------------------- head scores
def head_scores(maps, period=None, first_offset=0):
    """Per-layer, per-head scores of attention maps [L][B, H, T, T] (batch averaged).

    previous: mean weight on key i-1; self: on key i; sink: on key 0 (queries i >= 1).
    With a repeated sequence whose copy starts `period` tokens after the original (TransformerLens'
    detect_head, Olsson et al. 2022): induction: mean weight on key i-period+1 over the copy,
    duplicate: mean weight on key i-period over the copy."""
    out = []
    for w in maps:
        w = w.detach().float()
        T = w.shape[-1]
        i = torch.arange(1, T)
        s = {"previous": w[:, :, i, i - 1].mean(dim=(0, 2)),
             "self": w[:, :, i, i].mean(dim=(0, 2)),
             "sink": w[:, :, i, 0].mean(dim=(0, 2))}
        if period:
            q = torch.arange(first_offset + period, T)
            s["induction"] = w[:, :, q, q - period + 1].mean(dim=(0, 2))
            s["duplicate"] = w[:, :, q, q - period].mean(dim=(0, 2))
        out.append({k: v.tolist() for k, v in s.items()})
    return out


def describe_heads(scores, threshold=0.4):
    """Names the clear heads: a head whose best score is at least `threshold`."""
    lines = []
    for l, s in enumerate(scores):
        for h in range(len(s["previous"])):
            best = max(s, key=lambda k: s[k][h])
            v = s[best][h]
            if v >= threshold:
                lines.append(f"layer {l + 1} head {h + 1}: {best}, score {v:.2f}")
    return lines


def score_table(scores):
    keys = list(scores[0].keys())
    rows = ["| layer | head | " + " | ".join(keys) + " |", "|---|---|" + "---|" * len(keys)]
    for l, s in enumerate(scores):
        for h in range(len(s["previous"])):
            rows.append(f"| {l + 1} | {h + 1} | " + " | ".join(f"{s[k][h]:.2f}" for k in keys) + " |")
    return "\n".join(rows)


def common_args(parser, steps, out):
    parser.add_argument("--steps", type=int, default=steps)
    parser.add_argument("--out", default=out)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--fixture", default=None, help="folder for the reference logits the C++ test checks")
    return parser


def lr_at(step, steps, peak, warmup):
    """Linear warm-up, then cosine decay to a tenth of the peak."""
    if step < warmup:
        return peak * (step + 1) / warmup
    t = (step - warmup) / max(1, steps - warmup)
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * t)))
