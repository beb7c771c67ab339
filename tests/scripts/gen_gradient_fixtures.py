#!/usr/bin/python3
"""Writes the gradient-attribution references the C++ backward pass is checked against:
for the causal fixture models of gen_model_fixtures.py (gpt2, llama, llama3, qwen2), on
the first reference case's ids, PyTorch autograd through that script's plain-PyTorch
ports of the Hugging Face forwards (gpt2_forward, llama_forward) of one target logit
at the last position (the model's own top prediction there) with respect to the input
embeddings (inputs_embeds: the token embedding rows; GPT-2's position embeddings are
added after them), taken in through the forwards' `patch` hook at layer 0's input.

  grad_x_input [N]          sum over d of grad * embedding (Inseq / Captum InputXGradient);
  integrated_gradients [N]  Sundararajan et al. 2017 from the zero embedding, right Riemann
                            sum with ig_steps = 32 steps (alpha = k / 32, k = 1..32);
  attn_grad [L, H, N, N]    each layer's and head's attention weights times their gradient
                            (Chefer et al. 2021 before the head mean and clamp).

Run from the repository root, after gen_model_fixtures.py:

    /usr/bin/python3 tests/scripts/gen_gradient_fixtures.py

Writes tests/fixtures/models/<name>/reference_gradients.npz: ids [N] int64, target, ig_steps
(int64 scalars), target_logit, baseline_logit (float64), input_grad [N, d], grad_x_input,
integrated_gradients, attn_grad (float32).
"""
import json
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_model_fixtures as g  # noqa: E402

MODELS = ("gpt2", "llama", "llama3", "qwen2")
IG_STEPS = 32


def logit_and_grads(w, cfg, ids, emb, target):
    """logits[-1, target] of the forward on inputs_embeds `emb`, its gradient w.r.t. emb and
    every layer's attention weights times their gradient."""
    emb = emb.detach().clone().requires_grad_(True)
    N = len(ids)
    gpt2 = cfg["model_type"] == "gpt2"

    def take_embeddings(site, layer, x):  # layer 0's input rebuilt from emb instead of the ids
        if (site, layer) != ("resid", 0):
            return x
        return emb + w["wpe.weight"][:N] if gpt2 else emb

    trace = []
    forward = g.gpt2_forward if gpt2 else g.llama_forward
    logits = forward(w, cfg, ids, trace=trace, patch=take_embeddings)[2]
    for t in trace:
        t["pw"].retain_grad()
    logit = logits[-1, target]
    logit.backward()
    attn_grad = torch.stack([t["pw"] * t["pw"].grad for t in trace])
    return float(logit), emb.grad.detach(), attn_grad.detach()


def reference_gradients(name):
    folder = os.path.join(g.ROOT, name)
    cfg = json.load(open(os.path.join(folder, "config.json")))
    toks = json.load(open(os.path.join(folder, "reference_tokens.json")))
    w = g.load_weights(folder)
    ids = list(toks["cases"][0]["ids"])
    table = w["wte.weight"] if cfg["model_type"] == "gpt2" else w["model.embed_tokens.weight"]
    emb = table[torch.tensor(ids)].float()
    with torch.no_grad():
        forward = g.gpt2_forward if cfg["model_type"] == "gpt2" else g.llama_forward
        target = int(torch.argmax(forward(w, cfg, ids)[2][-1]))
    logit, grad, attn_grad = logit_and_grads(w, cfg, ids, emb, target)
    baseline, _, _ = logit_and_grads(w, cfg, ids, torch.zeros_like(emb), target)
    total = torch.zeros_like(emb)
    for k in range(1, IG_STEPS + 1):
        total += logit_and_grads(w, cfg, ids, emb * (k / IG_STEPS), target)[1]
    ig = (emb * total / IG_STEPS).sum(-1)
    gxi = (emb * grad).sum(-1)
    # Completeness (Sundararajan et al. 2017, prop. 1) holds to the Riemann sum's error only.
    print(f"{name}: N {len(ids)}, target {target}, logit {logit:.4f}, baseline {baseline:.4f}, "
          f"sum IG {float(ig.sum()):.4f} (logit - baseline {logit - baseline:.4f})")
    np.savez_compressed(os.path.join(folder, "reference_gradients.npz"), ids=np.array(ids, dtype=np.int64),
                        target=np.int64(target), ig_steps=np.int64(IG_STEPS), target_logit=np.float64(logit),
                        baseline_logit=np.float64(baseline), input_grad=grad.numpy().astype(np.float32),
                        grad_x_input=gxi.detach().numpy().astype(np.float32),
                        integrated_gradients=ig.detach().numpy().astype(np.float32),
                        attn_grad=attn_grad.numpy().astype(np.float32))


def main():
    torch.set_num_threads(1)
    for m in sys.argv[1:] or MODELS:
        reference_gradients(m)


if __name__ == "__main__":
    main()
