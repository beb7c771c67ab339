"""T5 (Raffel et al. 2020) for gen_seq2seq_fixtures.py: a plain-PyTorch port of
transformers/models/t5/modeling_t5.py (T5ForConditionalGeneration, eager attention),
the random state dicts save_pretrained would write, and an independent float64 numpy
check (one head at a time, the bucket function written out again in float32 numpy).

What the port keeps from modeling_t5.py: T5LayerNorm (RMS, no mean, no bias, eps from
layer_norm_epsilon), no 1/sqrt(d_kv) on the scores, the bucketed relative position bias
(_relative_position_bucket: bidirectional in the encoder, causal in the decoder) computed by
the first block of each stack and added in every block of it, no bias in cross-attention,
T5DenseActDense (relu) or T5DenseGatedActDense (gated-gelu: gelu_new(wi_0 x) * wi_1 x), the
final_layer_norm of each stack, and the lm_head on sequence_output * d_model^-0.5 when tied.
"""
import math

import numpy as np
import torch
import torch.nn.functional as F


def t5_build(V, cfg, seed, out_std=0.12):
    """T5ForConditionalGeneration's state dict as save_pretrained keeps it: shared.weight (the
    tied encoder/decoder embed_tokens left out), lm_head.weight only when untied. `out_std`: of
    the o and wo projections (large enough that a tied model does not echo its input token)."""
    g = torch.Generator().manual_seed(seed)

    def r(*shape, std=1.0, mean=0.0):
        return torch.randn(*shape, generator=g) * std + mean

    d, inner, ff, H = cfg["d_model"], cfg["num_heads"] * cfg["d_kv"], cfg["d_ff"], cfg["num_heads"]
    gated = cfg["feed_forward_proj"].startswith("gated-")
    w = {"shared.weight": r(V, d, std=1.0)}
    if not cfg["tie_word_embeddings"]:
        w["lm_head.weight"] = r(V, d, std=0.2)

    def attention(p, first):
        w[p + "q.weight"] = r(inner, d, std=0.12)
        w[p + "k.weight"] = r(inner, d, std=0.12)
        w[p + "v.weight"] = r(inner, d, std=0.15)
        w[p + "o.weight"] = r(d, inner, std=out_std)
        if first:
            w[p + "relative_attention_bias.weight"] = r(cfg["relative_attention_num_buckets"], H, std=1.0)

    def ffn(p):
        if gated:
            w[p + "DenseReluDense.wi_0.weight"] = r(ff, d, std=0.15)
            w[p + "DenseReluDense.wi_1.weight"] = r(ff, d, std=0.15)
        else:
            w[p + "DenseReluDense.wi.weight"] = r(ff, d, std=0.15)
        w[p + "DenseReluDense.wo.weight"] = r(d, ff, std=out_std)
        w[p + "layer_norm.weight"] = r(d, std=0.1, mean=1.0)

    for stack, layers in (("encoder", cfg["num_layers"]), ("decoder", cfg["num_decoder_layers"])):
        for i in range(layers):
            p = f"{stack}.block.{i}.layer."
            attention(p + "0.SelfAttention.", i == 0)
            w[p + "0.layer_norm.weight"] = r(d, std=0.1, mean=1.0)
            if stack == "decoder":
                attention(p + "1.EncDecAttention.", False)
                w[p + "1.layer_norm.weight"] = r(d, std=0.1, mean=1.0)
            ffn(p + ("2." if stack == "decoder" else "1."))
        w[f"{stack}.final_layer_norm.weight"] = r(d, std=0.1, mean=1.0)
    return w


def t5_config(V, cfg, model_type="t5"):
    c = dict(model_type=model_type, architectures=["T5ForConditionalGeneration"], vocab_size=V,
             is_encoder_decoder=True, dropout_rate=0.0, initializer_factor=1.0, use_cache=True,
             n_positions=512, torch_dtype="float32")
    c.update(cfg)
    return c


# ---------------------------------------------------------------------------
# The forward (modeling_t5.py)

def relative_position_bucket(relative_position, bidirectional, num_buckets, max_distance):
    """T5Attention._relative_position_bucket, as written there (float32 log, truncation)."""
    relative_buckets = 0
    if bidirectional:
        num_buckets //= 2
        relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = torch.abs(relative_position)
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    relative_position_if_large = max_exact + (
        torch.log(relative_position.float() / max_exact)
        / math.log(max_distance / max_exact)
        * (num_buckets - max_exact)
    ).to(torch.long)
    relative_position_if_large = torch.min(
        relative_position_if_large, torch.full_like(relative_position_if_large, num_buckets - 1))
    relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
    return relative_buckets


def compute_bias(w, cfg, p, q_len, k_len, decoder):
    """T5Attention.compute_bias: [H, q_len, k_len]; relative position = key - query."""
    ctx = torch.arange(q_len, dtype=torch.long)[:, None]
    mem = torch.arange(k_len, dtype=torch.long)[None, :]
    bucket = relative_position_bucket(mem - ctx, not decoder, cfg["relative_attention_num_buckets"],
                                      cfg["relative_attention_max_distance"])
    return w[p + "relative_attention_bias.weight"][bucket].permute(2, 0, 1)


def rms(w, name, x, eps):
    """T5LayerNorm: x * rsqrt(mean(x^2) + eps) * weight."""
    var = x.pow(2).mean(-1, keepdim=True)
    return w[name] * (x * torch.rsqrt(var + eps))


def t5_attention(w, p, x, kv, H, bias, layer_head_mask=None):
    """T5Attention: no bias in q/k/v/o, scores q k^T unscaled plus the position bias (which
    carries the causal mask as finfo.min); layer_head_mask [H] multiplies each head's
    probabilities (head_mask, decoder_head_mask, cross_attn_head_mask: 0 ablates the head).
    Returns (o output, weights [H, Nq, Nk])."""
    Nq, Nk = x.shape[0], kv.shape[0]
    q, k, v = (F.linear(t, w[p + n + ".weight"]) for t, n in ((x, "q"), (kv, "k"), (kv, "v")))
    dh = q.shape[1] // H
    q, k, v = (t.view(-1, H, dh).transpose(0, 1) for t in (q, k, v))
    s = q @ k.transpose(1, 2) + bias
    pw = torch.softmax(s.float(), dim=-1)
    if layer_head_mask is not None:
        pw = pw * layer_head_mask.view(-1, 1, 1)
    o = (pw @ v).transpose(0, 1).reshape(Nq, H * dh)
    return F.linear(o, w[p + "o.weight"]), pw


def t5_ffn(w, cfg, p, h):
    x = rms(w, p + "layer_norm.weight", h, cfg["layer_norm_epsilon"])
    q = p + "DenseReluDense."
    if cfg["feed_forward_proj"] == "gated-gelu":  # T5DenseGatedActDense with gelu_new
        m = F.gelu(F.linear(x, w[q + "wi_0.weight"]), approximate="tanh") * F.linear(x, w[q + "wi_1.weight"])
    else:  # T5DenseActDense, relu
        m = F.relu(F.linear(x, w[q + "wi.weight"]))
    return h + F.linear(m, w[q + "wo.weight"])


def layer_mask(mask, i):
    return None if mask is None else mask[i]


def t5_encode(w, cfg, src, head_mask=None):
    H, eps = cfg["num_heads"], cfg["layer_norm_epsilon"]
    h = w["shared.weight"][torch.tensor(src)]
    bias = compute_bias(w, cfg, "encoder.block.0.layer.0.SelfAttention.", len(src), len(src), False)
    attns = []
    for i in range(cfg["num_layers"]):
        p = f"encoder.block.{i}.layer."
        x = rms(w, p + "0.layer_norm.weight", h, eps)
        a, pw = t5_attention(w, p + "0.SelfAttention.", x, x, H, bias, layer_mask(head_mask, i))
        attns.append(pw)
        h = t5_ffn(w, cfg, p + "1.", h + a)
    return rms(w, "encoder.final_layer_norm.weight", h, eps), torch.stack(attns)


def t5_decode(w, cfg, enc, dec_ids, decoder_head_mask=None, cross_attn_head_mask=None):
    H, eps, N = cfg["num_heads"], cfg["layer_norm_epsilon"], len(dec_ids)
    h = w["shared.weight"][torch.tensor(dec_ids)]
    causal = torch.tril(torch.ones(N, N, dtype=torch.bool))
    bias = compute_bias(w, cfg, "decoder.block.0.layer.0.SelfAttention.", N, N, True)
    bias = bias + torch.where(causal, torch.tensor(0.0), torch.tensor(torch.finfo(torch.float32).min))
    self_attns, cross_attns = [], []
    for i in range(cfg["num_decoder_layers"]):
        p = f"decoder.block.{i}.layer."
        x = rms(w, p + "0.layer_norm.weight", h, eps)
        a, pw = t5_attention(w, p + "0.SelfAttention.", x, x, H, bias, layer_mask(decoder_head_mask, i))
        self_attns.append(pw)
        h = h + a
        x = rms(w, p + "1.layer_norm.weight", h, eps)
        a, pw = t5_attention(w, p + "1.EncDecAttention.", x, enc, H, torch.zeros(H, N, enc.shape[0]),
                             layer_mask(cross_attn_head_mask, i))
        cross_attns.append(pw)
        h = t5_ffn(w, cfg, p + "2.", h + a)
    h = rms(w, "decoder.final_layer_norm.weight", h, eps)
    if cfg["tie_word_embeddings"]:  # rescale before the tied lm_head (Mesh TensorFlow's)
        logits = (h * cfg["d_model"] ** -0.5) @ w["shared.weight"].T
    else:
        logits = h @ w["lm_head.weight"].T
    return torch.stack(self_attns), torch.stack(cross_attns), logits


# ---------------------------------------------------------------------------
# The independent check: float64 numpy, one head at a time.

def np_bucket(rel, bidirectional, num_buckets, max_distance):
    """The bucket of one relative position, written out again (float32 log as torch)."""
    b = 0
    if bidirectional:
        num_buckets //= 2
        b = num_buckets if rel > 0 else 0
        n = abs(rel)
    else:
        n = max(-rel, 0)
    exact = num_buckets // 2
    if n < exact:
        return b + n
    f = np.log(np.float32(n) / np.float32(exact)) / np.float32(math.log(max_distance / exact))
    large = exact + int(np.float32(f) * np.float32(num_buckets - exact))
    return b + min(large, num_buckets - 1)


def np_t5(w, cfg, src, dec, masks=None):
    """masks: {"encoder" | "decoder" | "cross": [L, H]} head masks (probabilities times them)."""
    w = {k: v.double().numpy() for k, v in w.items()}
    masks = masks or {}

    def hm(stack, i):
        return np.asarray(masks[stack][i], np.float64) if stack in masks else np.ones(cfg["num_heads"])
    d, H, eps = cfg["d_model"], cfg["num_heads"], cfg["layer_norm_epsilon"]
    nb, md = cfg["relative_attention_num_buckets"], cfg["relative_attention_max_distance"]

    def norm(x, name):
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w[name]

    def bias_of(stack, nq, nk, decoder):
        table = w[f"{stack}.block.0.layer.0.SelfAttention.relative_attention_bias.weight"]
        out = np.zeros((H, nq, nk))
        for i in range(nq):
            for j in range(nk):
                out[:, i, j] = table[np_bucket(j - i, not decoder, nb, md)]
        return out

    def attend(p, x, kv, bias, causal, mask):
        q, k, v = (t @ w[p + n + ".weight"].T for t, n in ((x, "q"), (kv, "k"), (kv, "v")))
        dh = q.shape[1] // H
        out, maps = np.zeros_like(q), []
        for h in range(H):
            sl = slice(h * dh, (h + 1) * dh)
            s = q[:, sl] @ k[:, sl].T + bias[h]
            if causal:
                s = np.where(np.tril(np.ones_like(s)) > 0, s, -np.inf)
            e = np.exp(s - s.max(-1, keepdims=True))
            a = e / e.sum(-1, keepdims=True) * mask[h]
            maps.append(a)
            out[:, sl] = a @ v[:, sl]
        return out @ w[p + "o.weight"].T, np.stack(maps)

    def ffn(p, h):
        x = norm(h, p + "layer_norm.weight")
        q = p + "DenseReluDense."
        if cfg["feed_forward_proj"] == "gated-gelu":
            u = x @ w[q + "wi_0.weight"].T
            g = 0.5 * u * (1 + np.tanh(math.sqrt(2 / math.pi) * (u + 0.044715 * u ** 3)))
            m = g * (x @ w[q + "wi_1.weight"].T)
        else:
            m = np.maximum(x @ w[q + "wi.weight"].T, 0)
        return h + m @ w[q + "wo.weight"].T

    h, enc_maps = w["shared.weight"][src], []
    bias = bias_of("encoder", len(src), len(src), False)
    for i in range(cfg["num_layers"]):
        p = f"encoder.block.{i}.layer."
        x = norm(h, p + "0.layer_norm.weight")
        a, m = attend(p + "0.SelfAttention.", x, x, bias, False, hm("encoder", i))
        enc_maps.append(m)
        h = ffn(p + "1.", h + a)
    enc = norm(h, "encoder.final_layer_norm.weight")
    h, dec_maps, cross_maps = w["shared.weight"][dec], [], []
    bias = bias_of("decoder", len(dec), len(dec), True)
    for i in range(cfg["num_decoder_layers"]):
        p = f"decoder.block.{i}.layer."
        x = norm(h, p + "0.layer_norm.weight")
        a, m = attend(p + "0.SelfAttention.", x, x, bias, True, hm("decoder", i))
        dec_maps.append(m)
        h = h + a
        x = norm(h, p + "1.layer_norm.weight")
        a, m = attend(p + "1.EncDecAttention.", x, enc, np.zeros((H, len(dec), len(src))), False, hm("cross", i))
        cross_maps.append(m)
        h = ffn(p + "2.", h + a)
    h = norm(h, "decoder.final_layer_norm.weight")
    if cfg["tie_word_embeddings"]:
        logits = h * d ** -0.5 @ w["shared.weight"].T
    else:
        logits = h @ w["lm_head.weight"].T
    return np.stack(enc_maps), np.stack(dec_maps), np.stack(cross_maps), logits


def bucket_tables(cfg, span=300):
    """The buckets of relative positions -span..span (encoder, then decoder), for the C++ test
    of the bucket function itself."""
    rel = torch.arange(-span, span + 1)
    nb, md = cfg["relative_attention_num_buckets"], cfg["relative_attention_max_distance"]
    both = relative_position_bucket(rel, True, nb, md)
    causal = relative_position_bucket(rel, False, nb, md)
    for r, b, c in zip(rel.tolist(), both.tolist(), causal.tolist()):
        assert np_bucket(r, True, nb, md) == b and np_bucket(r, False, nb, md) == c, r
    return both.numpy(), causal.numpy()
