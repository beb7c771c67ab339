#!/usr/bin/python3
"""Writes the activation-patching references the C++ patching is checked against:
for the causal fixture models of gen_model_fixtures.py (gpt2, llama, qwen2), a clean
token sequence (the first reference case), a corrupt one (two of its tokens replaced),
a target token (the clean run's top prediction at the last position) and a foil (the
corrupt run's, or the clean run's second), and the fraction of the clean - corrupt
logit difference (target - foil at the last position) that patching each activation
from the clean run into the corrupt run recovers (Meng et al. 2022; Wang et al. 2023,
section 3):

  residual [L, N]  the residual stream entering layer l, position p;
  heads    [L, H]  head h's output (every position) before the output projection;
  mlp      [L, N]  layer l's MLP output at position p.

The forwards are gen_model_fixtures.py's plain-PyTorch ports of the Hugging Face
modeling code with its `patch` hook. Run from the repository root, after
gen_model_fixtures.py (it reads the folders and reference_tokens.json):

    /usr/bin/python3 tests/scripts/gen_patch_fixtures.py

Writes tests/fixtures/models/<name>/reference_patch.npz: clean_ids, corrupt_ids [N]
int64, target, foil (int64 scalars), clean_diff, corrupt_diff, residual, heads, mlp
(float64).
"""
import json
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_model_fixtures as g  # noqa: E402

MODELS = ("gpt2", "llama", "qwen2")


def forward(w, cfg, ids, patch=None):
    if cfg["model_type"] == "gpt2":
        return g.gpt2_forward(w, cfg, ids, patch=patch)[2]
    return g.llama_forward(w, cfg, ids, patch=patch)[2]


def record(w, cfg, ids):
    """Every activation the patches take, from the run on `ids`."""
    acts = {}

    def hook(site, layer, x):
        acts[(site, layer)] = x.clone()
        return x

    logits = forward(w, cfg, ids, hook)
    return acts, logits


def patched_diff(w, cfg, ids, site, layer, take, target, foil):
    """The logit difference of the run on `ids` with take(x) replacing (site, layer)'s activation."""
    def hook(s, l, x):
        return take(x) if (s, l) == (site, layer) else x

    logits = forward(w, cfg, ids, hook)
    return float(logits[-1, target] - logits[-1, foil])


def reference_patch(name):
    folder = os.path.join(g.ROOT, name)
    cfg = json.load(open(os.path.join(folder, "config.json")))
    toks = json.load(open(os.path.join(folder, "reference_tokens.json")))
    w = g.load_weights(folder)
    clean = list(toks["cases"][0]["ids"])
    V = int(cfg["vocab_size"])
    N, L = len(clean), cfg.get("n_layer") or cfg["num_hidden_layers"]
    H = cfg.get("n_head") or cfg["num_attention_heads"]
    corrupt = list(clean)
    for p in (1, 2):  # a different subject: two tokens replaced by seeded others
        corrupt[p] = (clean[p] * 7 + 13) % min(V, 200)
    acts, clean_logits = record(w, cfg, clean)
    _, corrupt_logits = record(w, cfg, corrupt)
    target = int(torch.argmax(clean_logits[-1]))
    foil = int(torch.argmax(corrupt_logits[-1]))
    if foil == target:
        foil = int(torch.topk(clean_logits[-1], 2).indices[1])
    clean_diff = float(clean_logits[-1, target] - clean_logits[-1, foil])
    corrupt_diff = float(corrupt_logits[-1, target] - corrupt_logits[-1, foil])
    assert abs(clean_diff - corrupt_diff) > 1e-3, f"{name}: the pair gives nothing to recover"
    frac = lambda d: (d - corrupt_diff) / (clean_diff - corrupt_diff)  # noqa: E731
    dh = acts[("heads", 0)].shape[1] // H
    residual, heads, mlp = np.zeros((L, N)), np.zeros((L, H)), np.zeros((L, N))
    for layer in range(L):
        for p in range(N):
            def row(site):
                def take(x):
                    y = x.clone()
                    y[p] = acts[(site, layer)][p]
                    return y
                return take
            residual[layer, p] = frac(patched_diff(w, cfg, corrupt, "resid", layer, row("resid"), target, foil))
            mlp[layer, p] = frac(patched_diff(w, cfg, corrupt, "mlp", layer, row("mlp"), target, foil))
        for h in range(H):
            def cols(x, h=h):
                y = x.clone()
                y[:, h * dh:(h + 1) * dh] = acts[("heads", layer)][:, h * dh:(h + 1) * dh]
                return y
            heads[layer, h] = frac(patched_diff(w, cfg, corrupt, "heads", layer, cols, target, foil))
    # Patching every position of layer 0's input is the clean run itself: all of it recovered.
    assert abs(frac(patched_diff(w, cfg, corrupt, "resid", 0, lambda x: acts[("resid", 0)], target, foil)) - 1) < 1e-4
    np.savez_compressed(os.path.join(folder, "reference_patch.npz"), clean_ids=np.array(clean, dtype=np.int64),
                        corrupt_ids=np.array(corrupt, dtype=np.int64), target=np.int64(target),
                        foil=np.int64(foil), clean_diff=np.float64(clean_diff),
                        corrupt_diff=np.float64(corrupt_diff), residual=residual, heads=heads, mlp=mlp)
    print(f"{name}: reference_patch.npz (N {N}, target {target}, foil {foil}, "
          f"clean {clean_diff:.4f}, corrupt {corrupt_diff:.4f})")


def main():
    torch.set_grad_enabled(False)
    torch.set_num_threads(1)
    for m in sys.argv[1:] or MODELS:
        reference_patch(m)


if __name__ == "__main__":
    main()
