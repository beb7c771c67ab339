#!/usr/bin/python3
"""Precomputed attention files for `attnscope-cli metrics --attn`, with the
expected measures computed here by plain numpy (and a textbook Edmonds-Karp
max-flow for attention flow), independently of the C++ code.
Run: /usr/bin/python3 tests/scripts/gen_metrics_fixtures.py"""
import collections
import json
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "..", "fixtures", "metrics")
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(7)

L, H, N = 3, 2, 4
tokens = np.array(["[CLS]", "the", "cat", "."])
logits = rng.normal(0, 2, size=(L, H, N, N))
causal = np.tril(np.ones((N, N), dtype=bool))
logits[:, 1][:, ~causal] = -np.inf  # head 2 of every layer is causal
w = np.exp(logits - logits.max(-1, keepdims=True))
attn = (w / w.sum(-1, keepdims=True)).astype(np.float32)
np.savez(os.path.join(out, "layers.npz"), attn=attn, tokens=tokens)

# Rows that do not sum to 1: [2, 3, 3], head 2 row 1 sums to 0.7, row 2 to 1.3.
bad = np.full((2, 3, 3), 1 / 3, dtype=np.float32)
bad[1, 1] = [0.3, 0.2, 0.2]
bad[1, 2] = [0.5, 0.5, 0.3]
np.save(os.path.join(out, "bad_rows.npy"), bad)
np.save(os.path.join(out, "rank1.npy"), np.full(3, 1 / 3, dtype=np.float32))  # not a weight matrix

a = attn.astype(np.float64)


def entropy(p):
    q = np.where(p > 0, p, 1.0)
    return -(p * np.log(q)).sum(-1)


def js(p, q):
    m = (p + q) / 2
    return 0.5 * (entropy(m) - entropy(p)) + 0.5 * (entropy(m) - entropy(q))


def residual(layer):  # 0.5 * mean_h A + 0.5 I, rows renormalized
    r = 0.5 * layer.mean(0) + 0.5 * np.eye(N)
    return r / r.sum(-1, keepdims=True)


def max_flow(cap, s, t):  # Edmonds-Karp on a dense capacity matrix
    cap = cap.copy()
    flow = 0.0
    while True:
        parent = {s: None}
        q = collections.deque([s])
        while q and t not in parent:
            u = q.popleft()
            for v in np.nonzero(cap[u] > 1e-12)[0]:
                if v not in parent:
                    parent[v] = u
                    q.append(v)
        if t not in parent:
            return flow
        path, v = [], t
        while parent[v] is not None:
            path.append((parent[v], v))
            v = parent[v]
        f = min(cap[u, v] for u, v in path)
        for u, v in path:
            cap[u, v] -= f
            cap[v, u] += f
        flow += f


rollout = np.eye(N)
cap = np.zeros(((L + 1) * N, (L + 1) * N))
for l in range(L):
    r = residual(a[l])
    rollout = r @ rollout
    for i in range(N):
        for j in range(N):
            cap[l * N + j, (l + 1) * N + i] = r[i, j]
flow = np.array([[max_flow(cap, j, L * N + i) for j in range(N)] for i in range(N)])
flow /= flow.sum(-1, keepdims=True)

expected = {"layers": []}
for l in range(L):
    heads = []
    for h in range(H):
        p = a[l, h]
        n = (p > 0).sum(-1)
        e = entropy(p)
        heads.append({
            "entropy_mean": e.mean(),
            "entropy_max": e.max(),
            "normalized_entropy_mean": np.mean(np.where(n > 1, e / np.log(np.maximum(n, 2)), 0)),
            "confidence": p.max(-1).mean(),
            "mean_distance": (p * np.abs(np.arange(N)[:, None] - np.arange(N)[None, :])).sum(-1).mean(),
            "first_share": p[:, 0].mean(),
            "separator_share": p[:, 3].mean(),  # "." is the only separator; [CLS] is the first token
        })
    div = [[float(np.mean(js(a[l, g], a[l, h]))) for h in range(H)] for g in range(H)]
    expected["layers"].append({"heads": heads, "head_divergence": div})
expected["rollout"] = rollout.tolist()
expected["flow"] = flow.tolist()
with open(os.path.join(out, "layers_expected.json"), "w") as f:
    json.dump(expected, f, indent=1, default=float)
