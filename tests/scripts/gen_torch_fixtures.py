#!/usr/bin/python3
"""Writes the PyTorch reference fixtures the engine is checked against
(tests/core/models/torch_fixture_test.cpp). Run with Debian's torch 1.13:

    /usr/bin/python3 tests/scripts/gen_torch_fixtures.py

Each case is one small .npz under tests/fixtures/torch/ holding
  - the configuration: `mechanism` (text), `heads`, `temperature`, `causal`;
  - the inputs in the engine's contract (docs/files.md, "Input arrays"):
    either `x` (+ `x_kv`) with `w_q`, `w_k`, `w_v`, `w_o` in [d_in, d_out]
    layout and optional `b_q`, `b_k`, `b_v`, `b_o`; or per-head `q`, `k`, `v`
    [H, N, d]; plus `w_bilinear` / `w_add_q`, `w_add_k`, `v_add`, `b_add`;
  - what PyTorch computes: `scores` [H, Nq, Nk] (scaled logits before the
    mask), `mask` [Nq, Nk] (1 = keep), `weights` [H, Nq, Nk], `output`
    [H, Nq, dv] (per-head context) and, for the embedding cases, `final`
    [Nq, d_out] (concatenated heads through W_O).
The multi-head scaled-dot cases come from torch.nn.MultiheadAttention itself
(its weights are [out, in]; they are transposed into the contract's layout);
the other mechanisms use explicit torch formulas. Everything is float32, as
the engine computes.
"""
import math
import os

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "fixtures", "torch")

torch.manual_seed(20170612)  # "Attention Is All You Need" on arXiv
torch.set_default_dtype(torch.float32)


def randn(*shape, scale=1.0):
    return torch.randn(*shape) * scale


def causal_keep(nq, nk):
    # Query i sees keys j <= i (PyTorch's tril convention, also for nq != nk).
    return torch.ones(nq, nk, dtype=torch.bool).tril()


def softmax_masked(scores, keep):
    return torch.softmax(scores.masked_fill(~keep, float("-inf")), dim=-1)


def raw_scores(mech, q, k, p):
    """q [H, Nq, dq], k [H, Nk, dk] -> raw logits [H, Nq, Nk]."""
    if mech in ("dot", "scaled_dot"):
        return q @ k.transpose(-1, -2)
    if mech == "general":  # Luong et al. 2015: q^T W k
        return q @ p["w_bilinear"] @ k.transpose(-1, -2)
    if mech == "additive":  # Bahdanau et al. 2015: v^T tanh(W_q^T q + W_k^T k + b)
        qh = q @ p["w_add_q"]  # [H, Nq, h]
        if "b_add" in p:
            qh = qh + p["b_add"][:, None, :]
        kh = k @ p["w_add_k"]  # [H, Nk, h]
        t = torch.tanh(qh[:, :, None, :] + kh[:, None, :, :])  # [H, Nq, Nk, h]
        return (t * p["v_add"][:, None, None, :]).sum(-1)
    if mech == "cosine":  # Liu et al. 2022 (Swin v2): cos(q, k) / tau
        return F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-1, -2)
    raise ValueError(mech)


def score_params(mech, heads, dq, dk, hidden, bias):
    p = {}
    if mech == "general":
        p["w_bilinear"] = randn(heads, dq, dk, scale=1 / math.sqrt(dq))
    elif mech == "additive":
        p["w_add_q"] = randn(heads, dq, hidden, scale=1 / math.sqrt(dq))
        p["w_add_k"] = randn(heads, dk, hidden, scale=1 / math.sqrt(dk))
        p["v_add"] = randn(heads, hidden)
        if bias:
            p["b_add"] = randn(heads, hidden, scale=0.5)
    return p


def attend(mech, q, k, v, p, temperature, keep):
    raw = raw_scores(mech, q, k, p)
    scale = 1.0 / temperature
    if mech == "scaled_dot":
        scale /= math.sqrt(q.shape[-1])
    scores = raw * scale
    weights = softmax_masked(scores, keep)
    return scores, weights, weights @ v


def save(name, arrays):
    os.makedirs(OUT, exist_ok=True)
    out = {}
    for key, val in arrays.items():
        if isinstance(val, torch.Tensor):
            val = val.detach().numpy()
        if isinstance(val, str):
            out[key] = np.array([val])
        elif isinstance(val, (bool, int, float)):
            out[key] = np.array([val], dtype=np.float32)
        else:
            out[key] = np.ascontiguousarray(val, dtype=np.float32)
    np.savez_compressed(os.path.join(OUT, name + ".npz"), **out)


def projected_case(name, mech, heads, nq, nk, dq, dk, dv, causal, temperature=1.0, hidden=5, bias=False):
    """Per-head q, k, v given directly."""
    q, k, v = randn(heads, nq, dq), randn(heads, nk, dk), randn(heads, nk, dv)
    p = score_params(mech, heads, dq, dk, hidden, bias)
    keep = causal_keep(nq, nk) if causal else torch.ones(nq, nk, dtype=torch.bool)
    scores, weights, output = attend(mech, q, k, v, p, temperature, keep)
    save(name, dict(mechanism=mech, heads=heads, temperature=temperature, causal=causal, q=q, k=k, v=v,
                    scores=scores, mask=keep, weights=weights, output=output, **p))


def linear_params(d_in, d_out, bias):
    w = randn(d_in, d_out, scale=1 / math.sqrt(d_in))  # contract layout [d_in, d_out]
    b = randn(d_out, scale=0.3) if bias else None
    return w, b


def embedding_case(name, mech, heads, nq, nk, d_model, d_kv, causal, bias, temperature=1.0, hidden=6, cross=True):
    """x (and x_kv) through explicit W_Q/W_K/W_V, per-head mechanism, W_O."""
    dk = d_model // heads
    x = randn(nq, d_model)
    x_kv = randn(nk, d_kv) if cross else x
    (w_q, b_q), (w_k, b_k), (w_v, b_v), (w_o, b_o) = (linear_params(d_model, d_model, bias),
                                                      linear_params(d_kv, d_model, bias),
                                                      linear_params(d_kv, d_model, bias),
                                                      linear_params(d_model, d_model, bias))

    def proj(inp, w, b):
        y = inp @ w
        return y + b if b is not None else y

    def split(t):  # [N, H*d] -> [H, N, d]
        return t.reshape(t.shape[0], heads, -1).transpose(0, 1)

    q, k, v = split(proj(x, w_q, b_q)), split(proj(x_kv, w_k, b_k)), split(proj(x_kv, w_v, b_v))
    p = score_params(mech, heads, dk, dk, hidden, bias)
    nk = x_kv.shape[0]
    keep = causal_keep(nq, nk) if causal else torch.ones(nq, nk, dtype=torch.bool)
    scores, weights, output = attend(mech, q, k, v, p, temperature, keep)
    concat = output.transpose(0, 1).reshape(nq, -1)
    final = proj(concat, w_o, b_o)
    arrays = dict(mechanism=mech, heads=heads, temperature=temperature, causal=causal, x=x, w_q=w_q, w_k=w_k,
                  w_v=w_v, w_o=w_o, scores=scores, mask=keep, weights=weights, output=output, final=final, **p)
    if cross:
        arrays["x_kv"] = x_kv
    if bias:
        arrays.update(b_q=b_q, b_k=b_k, b_v=b_v, b_o=b_o)
    save(name, arrays)


def mha_case(name, heads, nq, nk, d_model, d_kv, causal, bias, cross):
    """torch.nn.MultiheadAttention, scaled dot product (Vaswani et al. 2017)."""
    kdim = d_kv if cross else d_model
    mha = torch.nn.MultiheadAttention(d_model, heads, bias=bias, kdim=kdim, vdim=kdim)
    if bias:  # PyTorch zero-initializes these; random values check that they are applied
        with torch.no_grad():
            mha.in_proj_bias.copy_(randn(3 * d_model, scale=0.3))
            mha.out_proj.bias.copy_(randn(d_model, scale=0.3))
    mha.eval()
    x = randn(nq, d_model)
    x_kv = randn(nk, kdim) if cross else x
    keep = causal_keep(nq, x_kv.shape[0]) if causal else torch.ones(nq, x_kv.shape[0], dtype=torch.bool)
    with torch.no_grad():
        # [N, batch=1, E]; attn_mask True = not allowed.
        final, weights = mha(x[:, None], x_kv[:, None], x_kv[:, None], attn_mask=~keep if causal else None,
                             need_weights=True, average_attn_weights=False)
        final, weights = final[:, 0], weights[0]  # [Nq, E], [H, Nq, Nk]
        if mha._qkv_same_embed_dim:
            wq_t, wk_t, wv_t = mha.in_proj_weight.chunk(3)
        else:
            wq_t, wk_t, wv_t = mha.q_proj_weight, mha.k_proj_weight, mha.v_proj_weight
        bq, bk, bv = mha.in_proj_bias.chunk(3) if bias else (None, None, None)
        # MHA's own projections, [out, in] -> the contract's [in, out].
        w_q, w_k, w_v, w_o = wq_t.T, wk_t.T, wv_t.T, mha.out_proj.weight.T
        dh = d_model // heads
        lin = lambda inp, w, b: inp @ w + (b if b is not None else 0)
        split = lambda t: t.reshape(t.shape[0], heads, dh).transpose(0, 1)
        q, k, v = split(lin(x, w_q, bq)), split(lin(x_kv, w_k, bk)), split(lin(x_kv, w_v, bv))
        scores = q @ k.transpose(-1, -2) / math.sqrt(dh)
        output = weights @ v  # per-head context from MHA's own weights
    arrays = dict(mechanism="scaled_dot", heads=heads, temperature=1.0, causal=causal, x=x, w_q=w_q, w_k=w_k,
                  w_v=w_v, w_o=w_o, scores=scores, mask=keep, weights=weights, output=output, final=final)
    if cross:
        arrays["x_kv"] = x_kv
    if bias:
        arrays.update(b_q=bq, b_k=bk, b_v=bv, b_o=mha.out_proj.bias)
    save(name, arrays)


def main():
    for f in os.listdir(OUT) if os.path.isdir(OUT) else []:
        if f.endswith(".npz"):
            os.remove(os.path.join(OUT, f))
    # torch.nn.MultiheadAttention: H = 1 and 12, self and cross (other length
    # and key width), with and without bias and causal mask, N = 1.
    mha_case("mha_h1_self", heads=1, nq=5, nk=5, d_model=8, d_kv=8, causal=False, bias=False, cross=False)
    mha_case("mha_h12_self_causal_bias", heads=12, nq=6, nk=6, d_model=24, d_kv=24, causal=True, bias=True,
             cross=False)
    mha_case("mha_h2_cross_kdim", heads=2, nq=3, nk=7, d_model=8, d_kv=6, causal=False, bias=True, cross=True)
    mha_case("mha_h4_cross_causal", heads=4, nq=4, nk=6, d_model=16, d_kv=16, causal=True, bias=False, cross=True)
    mha_case("mha_h4_n1", heads=4, nq=1, nk=1, d_model=8, d_kv=8, causal=True, bias=True, cross=False)

    for mech in ("dot", "scaled_dot", "general", "additive", "cosine"):
        differ = mech in ("general", "additive")
        t = {"cosine": 0.1, "dot": 0.7}.get(mech, 1.0)
        dq, dk = (3, 5) if differ else (4, 4)
        projected_case(f"{mech}_h1", mech, 1, 5, 5, 4, 4, 3, causal=False, temperature=t)
        projected_case(f"{mech}_h12_causal", mech, 12, 4, 4, 2, 2, 2, causal=True, temperature=t)
        projected_case(f"{mech}_h2_cross", mech, 2, 3, 6, dq, dk, 4, causal=False, temperature=t, bias=True)
        projected_case(f"{mech}_h2_cross_causal", mech, 2, 4, 6, dq, dk, 2, causal=True, temperature=t)
        projected_case(f"{mech}_h3_n1", mech, 3, 1, 1, dq, dk, 2, causal=True, temperature=t)
        embedding_case(f"{mech}_x_h2_self_causal_bias", mech, 2, 5, 5, 8, 8, causal=True, bias=True,
                       temperature=t, cross=False)
        embedding_case(f"{mech}_x_h4_cross", mech, 4, 3, 5, 8, 8, causal=False, bias=False, temperature=t)
    total = sum(os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT))
    print(f"wrote {len(os.listdir(OUT))} fixtures, {total} bytes, to {os.path.normpath(OUT)}")


if __name__ == "__main__":
    main()
