#!/usr/bin/python3
"""Reference weights for masked multi-head attention from PyTorch's own
torch.nn.MultiheadAttention (attn_mask, key_padding_mask), so the engine's
masks are checked against an independent implementation.
Run: /usr/bin/python3 tests/scripts/gen_mask_fixtures.py

Layout of each .npz (our conventions, see docs/files.md):
  x [Nq, E], x_kv [Nk, E] (cross only), w_q, w_k, w_v, w_o [E, E] as used in
  x @ W (nn.MultiheadAttention stores [out, in], so these are its transposes),
  weights [H, Nq, Nk] per head (average_attn_weights=False), output [Nq, E],
  keep [Nq, Nk] (1 = attend; PyTorch's boolean masks use True = masked).
"""
import os

import numpy as np
import torch

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "..", "fixtures", "masks")
os.makedirs(out, exist_ok=True)

E, H = 8, 2


def mha(seed):
    torch.manual_seed(seed)
    m = torch.nn.MultiheadAttention(E, H, bias=False, batch_first=True)
    return m.eval()


def write(name, m, x, x_kv, attn_mask, key_padding_mask):
    """Runs m on one sequence and writes the inputs, the masks and the result."""
    nq, nk = x.shape[0], x_kv.shape[0]
    with torch.no_grad():
        output, weights = m(x[None], x_kv[None], x_kv[None], attn_mask=attn_mask,
                            key_padding_mask=None if key_padding_mask is None else key_padding_mask[None],
                            need_weights=True, average_attn_weights=False)
    masked = torch.zeros(nq, nk, dtype=torch.bool)
    if attn_mask is not None:
        masked |= attn_mask
    if key_padding_mask is not None:
        masked |= key_padding_mask[None, :]
    w = m.in_proj_weight.detach()
    arrays = dict(
        x=x.numpy(), w_q=w[:E].T.numpy().copy(), w_k=w[E:2 * E].T.numpy().copy(),
        w_v=w[2 * E:].T.numpy().copy(), w_o=m.out_proj.weight.detach().T.numpy().copy(),
        weights=weights[0].numpy(), output=output[0].numpy(),
        keep=(~masked).numpy().astype(np.uint8))
    if x_kv is not x:
        arrays["x_kv"] = x_kv.numpy()
    assert np.isfinite(arrays["weights"]).all(), name
    np.savez(os.path.join(out, name + ".npz"), **{k: np.ascontiguousarray(v, dtype=v.dtype) for k, v in arrays.items()})


torch.manual_seed(1)
x = torch.randn(6, E)
causal = torch.triu(torch.ones(6, 6, dtype=torch.bool), diagonal=1)  # True above the diagonal
pad = torch.tensor([False, False, False, False, True, True])  # the last two keys are [PAD]

write("causal", mha(2), x, x, causal, None)
write("padding", mha(3), x, x, None, pad)
write("causal_padding", mha(4), x, x, causal, pad)

# Cross-attention: 4 queries over 7 keys, the last three of them padding.
torch.manual_seed(5)
xq, xkv = torch.randn(4, E), torch.randn(7, E)
write("cross_padding", mha(6), xq, xkv, None, torch.tensor([False] * 4 + [True] * 3))

# A custom boolean attn_mask (every row keeps its diagonal, so no row is empty).
g = torch.Generator().manual_seed(7)
custom = torch.rand(6, 6, generator=g) < 0.5
custom.fill_diagonal_(False)
write("custom", mha(8), x, x, custom, None)
print("wrote", sorted(os.listdir(out)))
