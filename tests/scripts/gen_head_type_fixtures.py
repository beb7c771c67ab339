#!/usr/bin/python3
"""Constructed attention maps of a repeated sequence [BOS] r_0..r_{n-1} r_0..r_{n-1}
and their head-type scores computed here by plain numpy (diagonals of the map),
independently of the C++ code (core/attn/analysis/head_types.cpp).
Writes tests/fixtures/metrics/head_types.npz:
  maps      [M, N, N] float32, N = 1 + 2 n (causal, rows sum to 1)
  period    [1] int32 (n)
  expected  [M, 6] float64: previous_token, induction, duplicate, sink, self, local
            (each a mean over the second copy's rows N-n .. N-1; local: |i-j| <= 3)
  labels    [M] int32: index into LABELS below, thresholds as in head_types.h
Run: /usr/bin/python3 tests/scripts/gen_head_type_fixtures.py"""
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "..", "fixtures", "metrics")
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(31)

n = 12
N = 1 + 2 * n
WINDOW = 3
LABELS = ["previous-token", "induction", "duplicate", "sink", "self", "local", "broad"]
causal = np.tril(np.ones((N, N), dtype=bool))


def softmax_causal(logits):
    z = np.where(causal, logits, -np.inf)
    w = np.exp(z - z.max(-1, keepdims=True))
    return w / w.sum(-1, keepdims=True)


def boost(offset=None, key=None, strength=4.0, noise=1.0):
    """Causal softmax of noise plus `strength` at A[i, i+offset] (or column `key`)."""
    logits = rng.normal(0, noise, size=(N, N))
    for i in range(N):
        j = key if key is not None else i + offset
        if 0 <= j <= i:
            logits[i, j] += strength
    return softmax_causal(logits)


maps = [
    softmax_causal(rng.normal(0, 1, size=(N, N))),  # broad
    boost(offset=1 - n),                             # induction
    boost(offset=-n),                                # duplicate
    boost(offset=-1),                                # previous-token
    boost(key=0),                                    # sink
    boost(offset=0),                                 # self
    softmax_causal(np.where(np.abs(np.arange(N)[:, None] - np.arange(N)[None, :]) <= WINDOW, 2.5, 0.0)
                   + rng.normal(0, 0.3, size=(N, N))),  # local
    boost(offset=1 - n, strength=2.0),               # a weak induction head
    boost(offset=-1, strength=2.5, noise=2.0),       # noisy previous-token
]
maps = np.stack(maps).astype(np.float32)
a = maps.astype(np.float64)
rows = np.arange(N - n, N)


def stripe(p, offset):  # A[i, i + offset] for the second copy's rows
    return np.diagonal(p, offset=offset)[-n:] if offset <= 0 else None


def scores(p):
    local = np.array([p[i, max(0, i - WINDOW):i + WINDOW + 1].sum() for i in rows])
    return [stripe(p, -1).mean(), stripe(p, -(n - 1)).mean(), stripe(p, -n).mean(),
            p[rows, 0].mean(), np.diagonal(p)[-n:].mean(), local.mean()]


def label(s):
    prev, ind, dup, sink, self_, local = s
    for name, value, bar in [("induction", ind, 0.4), ("duplicate", dup, 0.4), ("previous-token", prev, 0.4),
                             ("sink", sink, 0.4), ("self", self_, 0.4), ("local", local, 0.6)]:
        if value >= bar:
            return LABELS.index(name)
    return LABELS.index("broad")


expected = np.array([scores(p) for p in a])
labels = np.array([label(s) for s in expected], dtype=np.int32)
np.savez(os.path.join(out, "head_types.npz"), maps=maps, period=np.array([n], dtype=np.int32),
         expected=expected, labels=labels)
for s, l in zip(expected, labels):
    print(LABELS[l], np.round(s, 3))
