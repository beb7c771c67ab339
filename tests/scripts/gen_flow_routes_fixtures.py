#!/usr/bin/python3
"""Writes reference_routes.npz for the causal model fixtures (gpt2, llama: GQA and BF16,
qwen2: q/k/v biases): the information flow routes of Ferrando & Voita 2024 ("Information
Flow Routes: Automatically Interpreting Language Models at Scale", section 2), in float64
from the plain-PyTorch forward of gen_model_fixtures.py (its traced layer inputs, attention
weights, values, W_O / b_O, MLP outputs and layer outputs).

Run from the repository root after gen_model_fixtures.py (it reads reference_tokens.json):

    /usr/bin/python3 tests/scripts/gen_flow_routes_fixtures.py

Per case c of reference_tokens.json (float32 unless said):
  flow_attn_c [L, H, N, N]        alpha^h_ij f^h(x_j)'s importance for x_mid_i (row i, column j);
  flow_attn_residual_c [L, N]     x_i's importance for x_mid_i;
  flow_mlp_c [L, N]               the MLP output's importance for the layer's output at i;
  flow_mlp_residual_c [L, N]      x_mid_i's importance for it;
  route_c [E, 6] float64          Algorithm 1's edges from the last token, threshold ROUTE_TAU:
                                  layer, kind (0 head, 1 attention residual, 2 MLP, 3 MLP
                                  residual), head (-1 none), from, to, importance.
Importance: imp(z, y) = max(0, ||y||_1 - ||y - z||_1), normalised over the
block's parts. The attention block's whole is x_mid_i = x_i + sum_h sum_j alpha^h_ij f^h(x_j)
+ b_O, checked against the forward's own x_mid; b_O is in the whole and in no part.
"""
import json
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_model_fixtures as g  # noqa: E402

ROUTE_MODELS = ("gpt2", "llama", "qwen2")
ROUTE_TAU = 0.04


def proximity(y, z):
    """max(0, ||y||_1 - ||y - z||_1) over the last axis of z."""
    return torch.clamp(y.abs().sum() - (y - z).abs().sum(-1), min=0.0)


def importances(trace):
    attn, attn_res, mlp, mlp_res = [], [], [], []
    for t in trace:
        x = t["x"].double()
        pw, v, wo = t["pw"].double(), t["v"].double(), t["wo"].double()
        H, N, dh = v.shape
        d = x.shape[1]
        bo = t["bo"].double() if t["bo"] is not None else torch.zeros(d, dtype=torch.float64)
        fx = torch.stack([v[h] @ wo[h * dh:(h + 1) * dh] for h in range(H)])  # [H, N, d]
        mid = x + bo + sum(pw[h] @ fx[h] for h in range(H))
        assert float((mid - t["out"].double()).abs().max()) < 1e-4, "x_mid must be the attention block's output"
        a = torch.zeros(H, N, N, dtype=torch.float64)
        r = torch.zeros(N, dtype=torch.float64)
        for i in range(N):
            parts = pw[:, i, :, None] * fx  # [H, N, d]: alpha^h_ij f^h(x_j)
            ph, pr = proximity(mid[i], parts), proximity(mid[i], x[i])
            total = ph.sum() + pr
            assert float(total) > 0
            a[:, i, :], r[i] = ph / total, pr / total
        y, m = t["y"].double(), t["mlp"].double()
        assert float((mid + m - y).abs().max()) < 1e-4, "the layer's output must be x_mid + the MLP's"
        pm = torch.stack([proximity(y[i], m[i]) for i in range(N)])
        pr2 = torch.stack([proximity(y[i], mid[i]) for i in range(N)])
        attn.append(a)
        attn_res.append(r)
        mlp.append(pm / (pm + pr2))
        mlp_res.append(pr2 / (pm + pr2))
    return torch.stack(attn), torch.stack(attn_res), torch.stack(mlp), torch.stack(mlp_res)


def route(attn, attn_res, mlp, mlp_res, position, tau):
    """Algorithm 1 (Ferrando & Voita 2024): from the top node of `position`, every edge into a
    reached node with importance >= tau, down through the layers. Nodes: ("out", l, i) after
    layer l (("out", -1, i) the embeddings) and ("mid", l, i) between its two blocks."""
    L, H, N, _ = attn.shape
    reached, edges = {("out", L - 1, position)}, []
    for l in range(L - 1, -1, -1):
        for i in range(N):
            if ("out", l, i) not in reached:
                continue
            for kind, imp in ((2, mlp[l, i]), (3, mlp_res[l, i])):
                if imp >= tau:
                    edges.append((l, kind, -1, i, i, float(imp)))
                    reached.add(("mid", l, i))
        for i in range(N):
            if ("mid", l, i) not in reached:
                continue
            for h in range(H):
                for j in range(N):
                    if attn[l, h, i, j] >= tau:
                        edges.append((l, 0, h, j, i, float(attn[l, h, i, j])))
                        reached.add(("out", l - 1, j))
            if attn_res[l, i] >= tau:
                edges.append((l, 1, -1, i, i, float(attn_res[l, i])))
                reached.add(("out", l - 1, i))
    return np.array(edges, np.float64).reshape(-1, 6)


def reference_routes(name):
    folder = os.path.join(g.ROOT, name)
    cfg = json.load(open(os.path.join(folder, "config.json")))
    toks = json.load(open(os.path.join(folder, "reference_tokens.json")))
    w = g.load_weights(folder)
    arrays = {}
    for c, case in enumerate(toks["cases"]):
        trace = []
        if cfg["model_type"] == "gpt2":
            g.gpt2_forward(w, cfg, case["ids"], trace=trace)
        else:
            g.llama_forward(w, cfg, case["ids"], trace=trace)
        a, ar, m, mr = importances(trace)
        for blk in (a.sum((1, 3)) + ar, m + mr):  # each block's importances sum to 1
            assert float((blk - 1).abs().max()) < 1e-9
        N = a.shape[-1]
        for key, val in (("flow_attn", a), ("flow_attn_residual", ar), ("flow_mlp", m), ("flow_mlp_residual", mr)):
            arrays[f"{key}_{c}"] = val.numpy().astype(np.float32)
        arrays[f"route_{c}"] = route(a.numpy(), ar.numpy(), m.numpy(), mr.numpy(), N - 1, ROUTE_TAU)
        print(f"  {name} case {c}: N {N}, route of {len(arrays[f'route_{c}'])} edges")
    np.savez_compressed(os.path.join(folder, "reference_routes.npz"), **arrays)
    print(f"{name}: reference_routes.npz ({len(toks['cases'])} cases)")


def main():
    torch.set_grad_enabled(False)
    torch.set_num_threads(1)
    for m in sys.argv[1:] or ROUTE_MODELS:
        reference_routes(m)


if __name__ == "__main__":
    main()
