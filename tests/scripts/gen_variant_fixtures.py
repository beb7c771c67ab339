#!/usr/bin/python3
"""Reference results for the attention variants, computed with
PyTorch along the papers' own code paths, so core/attn/variants is checked
against an independent implementation.
Run: /usr/bin/python3 tests/scripts/gen_variant_fixtures.py   (torch 1.13)

Files (tests/fixtures/variants/), all arrays float32, row-major:
  xl.npz        Transformer-XL (Dai et al. 2019) one layer, the authors'
                RelPartialLearnableMultiHeadAttn arithmetic: AC = (q + u) k,
                BD = (q + v) r with r over pos_seq = klen-1..0, _rel_shift,
                scale 1/sqrt(d_head), causal mask triu(1 + mlen), memory = the
                previous tokens' inputs (mems[0] are the word embeddings).
                x [N, D], w_q w_k w_v w_r [H, D, Dh], u v [H, Dh],
                segment, memory; seg{s}_weights [H, L, M'+L], seg{s}_output [H, L, Dh].
  span.npz      adaptive span (Sukhbaatar et al. 2019), AdaptiveMask's ramp on
                the distance, applied to softmax weights and renormalised.
                weights [H, N, N], v [H, N, Dv], z [H], ramp; spanned [H, N, N], output.
  dynconv_{causal,centred}.npz  DynamicConv (Wu et al. 2019): kernels from x W,
                softmax over k, applied with torch's unfold over the zero-padded
                input. x [N, D], w [D, H*k], heads, kernel; kernel_weights [H, N, k],
                output [N, D] (head h's channels are its D/H columns).
  hops_{add,linear}.npz  multi-hop (Sukhbaatar et al. 2015): q0 k v [N, d], h [d, d],
                hops, scale, keep [N, N]; weights [K, N, N], output [K, N, d].
  precision.npz q k v [H, N, dk] (some large), scale; weights_fp32, and per format
                weights_{fp16,bf16,fp16_low,int8_tensor,int8_channel} [H, N, N];
                overflow [H, N, N] (2: e^s is inf in fp16, 1: the row's fp16 sum is).
"""
import os

import numpy as np
import torch

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "..", "fixtures", "variants")
os.makedirs(out, exist_ok=True)
torch.set_default_dtype(torch.float64)  # references in double, written as float32


def save(name, **arrays):
    np.savez(os.path.join(out, name), **{k: np.asarray(v, dtype=np.float32) for k, v in arrays.items()})


def rel_shift(x):
    """Transformer-XL's _rel_shift for one [qlen, klen] map."""
    zero_pad = torch.zeros((x.size(0), 1))
    x_padded = torch.cat([zero_pad, x], dim=1)
    x_padded = x_padded.view(x.size(1) + 1, x.size(0))
    return x_padded[1:].view_as(x)


def xl():
    g = torch.Generator().manual_seed(19)
    N, D, H, Dh, L, M = 7, 8, 2, 4, 3, 2
    x = torch.randn(N, D, generator=g)
    wq, wk, wv, wr = (torch.randn(H, D, Dh, generator=g) * 0.5 for _ in range(4))
    u, v = torch.randn(H, Dh, generator=g), torch.randn(H, Dh, generator=g)
    arrays = dict(x=x, w_q=wq, w_k=wk, w_v=wv, w_r=wr, u=u, v=v, segment=[L], memory=[M])
    full = torch.zeros(H, N, N)
    for s, start in enumerate(range(0, N, L)):
        qlen = min(L, N - start)
        mlen = min(M, start)
        cat = x[start - mlen:start + qlen]  # [mems; current]
        klen = mlen + qlen
        pos_seq = torch.arange(klen - 1, -1, -1.0)
        inv_freq = 1 / (10000 ** (torch.arange(0.0, D, 2.0) / D))
        sinusoid = torch.outer(pos_seq, inv_freq)
        pos_emb = torch.cat([sinusoid.sin(), sinusoid.cos()], dim=-1)  # [klen, D]
        mask = torch.triu(torch.ones(qlen, klen), diagonal=1 + mlen).bool()
        ws, outs = [], []
        for h in range(H):
            q = x[start:start + qlen] @ wq[h]
            k = cat @ wk[h]
            val = cat @ wv[h]
            r = pos_emb @ wr[h]
            ac = (q + u[h]) @ k.T
            bd = rel_shift((q + v[h]) @ r.T)
            score = (ac + bd) / Dh ** 0.5
            score = score.masked_fill(mask, float("-inf"))
            p = torch.softmax(score, dim=-1)
            ws.append(p)
            outs.append(p @ val)
            full[h, start:start + qlen, start - mlen:start + qlen] = p
        arrays[f"seg{s}_weights"] = torch.stack(ws)
        arrays[f"seg{s}_output"] = torch.stack(outs)
    arrays["full_weights"] = full
    save("xl.npz", **arrays)


def span():
    g = torch.Generator().manual_seed(7)
    H, N, Dv, R = 3, 6, 2, 2.0
    logits = torch.randn(H, N, N, generator=g)
    logits = logits.masked_fill(torch.triu(torch.ones(N, N), 1).bool(), float("-inf"))
    weights = torch.softmax(logits, -1)
    v = torch.randn(H, N, Dv, generator=g)
    z = torch.tensor([0.5, 1.0, 3.0])
    dist = (torch.arange(N)[:, None] - torch.arange(N)[None, :]).abs().double()
    spanned = []
    for h in range(H):
        # AdaptiveMask: template 1 - max..0 shifted by z * max, / R + 1, clamped.
        m = ((R + z[h] - dist) / R).clamp(0, 1)
        a = weights[h] * m
        spanned.append(a / a.sum(-1, keepdim=True))
    spanned = torch.stack(spanned)
    save("span.npz", weights=weights, v=v, z=z, ramp=[R], spanned=spanned, output=spanned @ v)


def dynconv(causal):
    g = torch.Generator().manual_seed(3 if causal else 4)
    N, D, H, K = 6, 4, 2, 3
    x = torch.randn(N, D, generator=g)
    w = torch.randn(D, H * K, generator=g)
    padding_l = K - 1 if causal else K // 2
    kernel = torch.softmax((x @ w).view(N, H, K), dim=-1)  # [N, H, K]
    # fairseq's unfold path: pad the time axis, take k-wide windows, weight them.
    xp = torch.nn.functional.pad(x.T[None], (padding_l, K - 1 - padding_l))  # [1, D, N + K - 1]
    windows = xp.unfold(2, K, 1)[0]  # [D, N, K]
    heads_of = torch.arange(D) // (D // H)
    output = torch.einsum("dnk,ndk->nd", windows, kernel[:, heads_of, :])
    save(f"dynconv_{'causal' if causal else 'centred'}.npz", x=x, w=w, heads=[H], kernel=[K], causal=[1 if causal else 0],
         kernel_weights=kernel.permute(1, 0, 2), output=output)


def hops(linear):
    g = torch.Generator().manual_seed(11 if linear else 12)
    N, d, K = 5, 4, 3
    q0, k, v = (torch.randn(N, d, generator=g) for _ in range(3))
    hm = torch.randn(d, d, generator=g) * 0.5
    keep = torch.tril(torch.ones(N, N))
    scale = 1 / d ** 0.5
    q, ws, outs = q0, [], []
    for _ in range(K):
        s = (scale * q @ k.T).masked_fill(keep == 0, float("-inf"))
        a = torch.softmax(s, -1)
        o = a @ v
        ws.append(a)
        outs.append(o)
        q = (q @ hm if linear else q) + o
    save(f"hops_{'linear' if linear else 'add'}.npz", q0=q0, k=k, v=v, h=hm, hops=[K], scale=[scale], keep=keep,
         weights=torch.stack(ws), output=torch.stack(outs))


def precision():
    g = torch.Generator().manual_seed(5)
    H, N, dk = 2, 6, 8
    q = torch.randn(H, N, dk, generator=g).float()
    k = torch.randn(H, N, dk, generator=g).float()
    v = torch.randn(H, N, dk, generator=g).float()
    q[1] *= 6.0  # head 2: logits past ln(65504) = 11.09, so fp16 e^s overflows
    k[1, :, 0] *= 4.0  # one large channel: per-channel quantization helps
    scale = 1 / dk ** 0.5
    causal = torch.triu(torch.ones(N, N), 1).bool()

    def attend(qq, kk, round_logits=None):
        s = qq.double() @ kk.double().transpose(-1, -2)
        if round_logits is not None:
            s = round_logits(round_logits(s.float()).float() * scale).double()
        else:
            s = s * scale
        return torch.softmax(s.masked_fill(causal, float("-inf")), -1)

    arrays = dict(q=q, k=k, v=v, scale=[scale])
    arrays["weights_fp32"] = attend(q, k)
    for name, dt in (("fp16", torch.float16), ("bf16", torch.bfloat16)):
        rnd = lambda t, dt=dt: t.to(dt).float()
        # fp32 accumulation of the rounded inputs, the product rounded once, then the scale.
        s = rnd(rnd(q) @ rnd(k).transpose(-1, -2))
        s = rnd(s * torch.tensor(scale, dtype=torch.float32))
        arrays[f"weights_{name}"] = torch.softmax(s.double().masked_fill(causal, float("-inf")), -1)
    # fp16 with fp16 accumulation: every product and partial sum rounded (an explicit loop).
    qh, kh = q.half(), k.half()
    s = torch.zeros(H, N, N, dtype=torch.float16)
    for d in range(dk):
        s = (s + (qh[..., d:d + 1] * kh[..., d:d + 1].transpose(-1, -2)))
    s = (s.float() * scale).half()
    arrays["weights_fp16_low"] = torch.softmax(s.double().masked_fill(causal, float("-inf")), -1)
    for name, per_channel in (("int8_tensor", False), ("int8_channel", True)):
        def deq(t):
            heads = []
            for h in range(H):
                x = t[h]
                if per_channel:
                    sc = (x.abs().amax(0) / 127).double()
                    heads.append(torch.quantize_per_channel(x, sc, torch.zeros(dk, dtype=torch.long), 1,
                                                            torch.qint8).dequantize())
                else:
                    heads.append(torch.quantize_per_tensor(x, float(x.abs().max() / 127), 0, torch.qint8).dequantize())
            return torch.stack(heads)
        arrays[f"weights_{name}"] = attend(deq(q), deq(k))
    # fp16 softmax without the max subtraction, on the fp32 logits.
    s32 = ((q.double() @ k.double().transpose(-1, -2)) * scale).float()
    e = torch.exp(s32).half().masked_fill(causal, 0)
    overflow = torch.zeros(H, N, N)
    overflow[torch.isinf(e)] = 2
    row_sum = e.float().sum(-1)  # exact enough: the rows here are far from the edge
    lost = (row_sum > 65504) | torch.isinf(e).any(-1)
    for h in range(H):
        for i in range(N):
            if lost[h, i]:
                for j in range(i + 1):
                    if overflow[h, i, j] == 0:
                        overflow[h, i, j] = 1
    arrays["overflow"] = overflow
    save("precision.npz", **arrays)


if __name__ == "__main__":
    xl()
    span()
    dynconv(True)
    dynconv(False)
    hops(False)
    hops(True)
    precision()
    print("wrote", sorted(os.listdir(out)))
