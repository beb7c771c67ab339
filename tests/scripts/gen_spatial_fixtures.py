#!/usr/bin/python3
"""Reference results for the spatial systems, computed with PyTorch
(and numpy) independently of AttnScope's code, so the C++ tests compare the
engine against another implementation.
Run: /usr/bin/python3 tests/scripts/gen_spatial_fixtures.py

image_attention.npz — 2-D attention over an image:
  image [12, 16, 3] uint8, patch P = 4 -> a 3 x 4 grid of 12 patches, 48 values each;
  x [12, 48]: patch vectors (pixel order y, x, c) standardized per channel
  ((v - mean) / std over the image, population std), plus the 2-D sinusoidal
  table (first 24 columns: the row's 1-D sin/cos table of width 24, interleaved
  sin, cos; last 24: the column's);
  keep [12, 12]: window2d:1 (|row_i - row_j| <= 1 and |col_i - col_j| <= 1);
  w_q, w_k, w_v, w_o [48, 48] as used in x @ W; weights [2, 12, 12] per head
  from torch.nn.MultiheadAttention (2 heads, no bias) with that mask.

gat.npz — one graph attention layer (Velickovic et al. 2018), written here
  from the paper's equations in PyTorch (dense, masked):
  x [7, 5] node features; edges [8, 2] (source, target), undirected;
  gat_w [3, 5, 4], gat_a [3, 8]; weights [3, 7, 7] (alpha, 0 off the
  neighbourhood incl. self-loops); out_concat [7, 12] (ELU of each head,
  concatenated); out_mean [7, 4] (mean of the heads, no nonlinearity).

qk_geometry.npz — AttentionViz's query/key PCA (Yeh et al. 2023) with numpy's SVD:
  q [6, 5], k [9, 5]; keys translated so their mean is the queries' mean,
  queries times c and keys over c with c = sqrt(mean |k'| / mean |q|); the
  stacked rows centered and projected on the first two right singular vectors
  (each signed so its largest |entry| is positive): points [15, 2], scale [1],
  explained [2] (squared singular values over their sum).
"""
import math
import os

import numpy as np
import torch

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "..", "fixtures", "spatial")
os.makedirs(out, exist_ok=True)


def sincos_1d(n, d):
    """Vaswani et al.'s table, interleaved: PE(p, 2i) = sin(p / 10000^(2i/d)), PE(p, 2i+1) = cos(same)."""
    pe = np.zeros((n, d), dtype=np.float64)
    for p in range(n):
        for c in range(d):
            i2 = c - c % 2
            a = p / math.pow(10000.0, i2 / d)
            pe[p, c] = math.sin(a) if c % 2 == 0 else math.cos(a)
    return pe


def image_attention():
    H, W, C, P, heads = 12, 16, 3, 4, 2
    g = torch.Generator().manual_seed(7)
    # A smooth gradient plus noise, so neighbouring patches are alike.
    yy, xx = torch.meshgrid(torch.arange(H), torch.arange(W), indexing="ij")
    base = torch.stack([yy * 16, xx * 12, (yy + xx) * 8], dim=-1).float()
    img = (base + torch.randint(0, 60, (H, W, C), generator=g)).clamp(0, 255).to(torch.uint8)

    rows, cols = H // P, W // P
    v = img.float() / 255.0
    patches = v.reshape(rows, P, cols, P, C).permute(0, 2, 1, 3, 4).reshape(rows * cols, P * P * C)
    mean = v.reshape(-1, C).mean(0)
    std = v.reshape(-1, C).std(0, unbiased=False)
    std = torch.where(std > 1e-12, std, torch.ones_like(std))
    chan = torch.arange(P * P * C) % C
    x = (patches - mean[chan]) / std[chan]

    d = P * P * C
    r = np.arange(rows * cols) // cols
    c = np.arange(rows * cols) % cols
    pos = np.concatenate([sincos_1d(rows, d // 2)[r], sincos_1d(cols, d - d // 2)[c]], axis=1)
    x = x + torch.tensor(pos, dtype=torch.float32)

    keep = (np.abs(r[:, None] - r[None, :]) <= 1) & (np.abs(c[:, None] - c[None, :]) <= 1)

    torch.manual_seed(3)
    m = torch.nn.MultiheadAttention(d, heads, bias=False, batch_first=True).eval()
    with torch.no_grad():
        _, weights = m(x[None], x[None], x[None], attn_mask=torch.tensor(~keep), need_weights=True,
                       average_attn_weights=False)
    w = m.in_proj_weight.detach()
    arrays = dict(image=img.numpy(), x=x.numpy(), keep=keep.astype(np.uint8),
                  w_q=w[:d].T.numpy().copy(), w_k=w[d:2 * d].T.numpy().copy(), w_v=w[2 * d:].T.numpy().copy(),
                  w_o=m.out_proj.weight.detach().T.numpy().copy(), weights=weights[0].numpy())
    assert np.isfinite(arrays["weights"]).all()
    np.savez(os.path.join(out, "image_attention.npz"),
             **{k: np.ascontiguousarray(a) for k, a in arrays.items()})


def gat():
    torch.manual_seed(11)
    n, f, fo, heads = 7, 5, 4, 3
    x = torch.randn(n, f)
    edges = torch.tensor([[0, 1], [1, 2], [2, 3], [3, 0], [3, 4], [4, 5], [5, 6], [1, 5]])
    adj = torch.eye(n, dtype=torch.bool)
    adj[edges[:, 1], edges[:, 0]] = True  # target gathers from source
    adj[edges[:, 0], edges[:, 1]] = True  # undirected
    W = torch.randn(heads, f, fo) * 0.7
    a = torch.randn(heads, 2 * fo) * 0.7
    alphas, outs = [], []
    for h in range(heads):
        z = x @ W[h]
        e = torch.nn.functional.leaky_relu((z @ a[h, :fo])[:, None] + (z @ a[h, fo:])[None, :], 0.2)
        e = e.masked_fill(~adj, float("-inf"))
        alpha = torch.softmax(e, dim=1)
        alphas.append(alpha)
        outs.append(alpha @ z)
    np.savez(os.path.join(out, "gat.npz"), x=x.numpy(), edges=edges.numpy().astype(np.int64),
             gat_w=W.numpy(), gat_a=a.numpy(), weights=torch.stack(alphas).numpy(),
             out_concat=torch.cat([torch.nn.functional.elu(o) for o in outs], dim=1).numpy(),
             out_mean=torch.stack(outs).mean(0).numpy())


def qk_geometry():
    rng = np.random.default_rng(5)
    q = rng.normal(size=(6, 5)) + np.array([2.0, 0, 0, 0, 0])
    k = 3.0 * rng.normal(size=(9, 5)) - np.array([0, 4.0, 0, 1.0, 0])
    k2 = k - k.mean(0) + q.mean(0)
    c = math.sqrt(np.linalg.norm(k2, axis=1).mean() / np.linalg.norm(q, axis=1).mean())
    allv = np.vstack([q * c, k2 / c])
    allv = allv - allv.mean(0)
    _, s, vt = np.linalg.svd(allv, full_matrices=False)
    comps = vt[:2].T.copy()
    for j in range(2):
        if comps[np.argmax(np.abs(comps[:, j])), j] < 0:
            comps[:, j] *= -1
    np.savez(os.path.join(out, "qk_geometry.npz"), q=q.astype(np.float32), k=k.astype(np.float32),
             points=(allv @ comps).astype(np.float32), scale=np.array([c], dtype=np.float32),
             explained=(s[:2] ** 2 / (s ** 2).sum()).astype(np.float32))


image_attention()
gat()
qk_geometry()
print("wrote", out)
