#!/usr/bin/python3
"""Writes the gradient-attribution references the C++ backward pass is checked against:
for the causal fixture models of gen_model_fixtures.py (gpt2, llama, llama3, qwen2), and
BERT (bert, BertForMaskedLM), on the first reference case's ids (BERT: with a [MASK] put in at
position 2), PyTorch autograd through that script's plain-PyTorch
ports of the Hugging Face forwards (gpt2_forward, llama_forward) of one target logit
at the last position (the model's own top prediction there) with respect to the input
embeddings (inputs_embeds: the token embedding rows; GPT-2's position embeddings are
added after them), taken in through the forwards' `patch` hook at layer 0's input. For BERT
the logit is the masked-LM head's at the [MASK] (bert_forward, the rows taken in through an
extended embedding table, see bert_logit_and_grads).

  grad_x_input [N]          sum over d of grad * embedding (Inseq / Captum InputXGradient);
  integrated_gradients [N]  Sundararajan et al. 2017 from the zero embedding, right Riemann
                            sum with ig_steps = 32 steps (alpha = k / 32, k = 1..32);
  attn_grad [L, H, N, N]    each layer's and head's attention weights times their gradient
                            (Chefer et al. 2021 before the head mean and clamp).

Run from the repository root, after gen_model_fixtures.py:

    /usr/bin/python3 tests/scripts/gen_gradient_fixtures.py

Writes tests/fixtures/models/<name>/reference_gradients.npz: ids [N] int64, target, position,
ig_steps (int64 scalars), target_logit, baseline_logit (float64), input_grad [N, d], grad_x_input,
integrated_gradients, attn_grad (float32); for the causal models also next_token_loss (float64,
the mean cross-entropy of ids[1:] given the prefixes) and head_gate_grad [L, H] (float32): its
gradient w.r.t. Hugging Face's head_mask at ones, Michel et al. 2019's gate gradients.
"""
import json
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_model_fixtures as g  # noqa: E402

MODELS = ("gpt2", "llama", "llama3", "qwen2", "bert")
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


def head_gate_grads(w, cfg, ids):
    """Michel et al. 2019's gate gradients as the Hugging Face bertology example takes them:
    head_mask = ones [L, H] with requires_grad, the mean next-token cross-entropy of the text
    (labels = ids, shifted by one), and head_mask.grad. Returns (loss, grad [L, H])."""
    mask = torch.ones(cfg["n_layer" if "n_layer" in cfg else "num_hidden_layers"],
                      cfg["n_head" if "n_head" in cfg else "num_attention_heads"], requires_grad=True)
    forward = g.gpt2_forward if cfg["model_type"] == "gpt2" else g.llama_forward
    logits = forward(w, cfg, ids, head_mask=mask)[2]
    loss = torch.nn.functional.cross_entropy(logits[:-1].float(), torch.tensor(ids[1:]))
    loss.backward()
    return float(loss), mask.grad.detach()


def bert_logit_and_grads(w, cfg, ids, emb, target, position):
    """BERT (BertForMaskedLM): the masked-LM logit at `position` and its gradient w.r.t. the word
    embedding rows. bert_forward looks the rows up by id and ties the decoder to the same table,
    so the table is extended by the N leaf rows (read through ids V..V+N-1) and the decoder's
    extra columns (and bias entries, 0) are dropped: the gradient reaches emb through the lookup
    only."""
    emb = emb.detach().clone().requires_grad_(True)
    V, N = cfg["vocab_size"], len(ids)
    word, bias = "bert.embeddings.word_embeddings.weight", "cls.predictions.bias"
    w2 = dict(w)
    w2[word] = torch.cat([w[word], emb])
    w2[bias] = torch.cat([w[bias], torch.zeros(N)])
    trace = []
    mlm = g.bert_forward(w2, cfg, [V + i for i in range(N)], [0] * N, [1] * N, trace=trace)[2][:, :V]
    for t in trace:
        t["pw"].retain_grad()
    logit = mlm[position, target]
    logit.backward()
    attn_grad = torch.stack([t["pw"] * t["pw"].grad for t in trace])
    return float(logit), emb.grad.detach(), attn_grad.detach()


def reference_gradients(name):
    folder = os.path.join(g.ROOT, name)
    cfg = json.load(open(os.path.join(folder, "config.json")))
    toks = json.load(open(os.path.join(folder, "reference_tokens.json")))
    w = g.load_weights(folder)
    ids = list(toks["cases"][0]["ids"])
    position = len(ids) - 1
    if cfg["model_type"] == "bert":  # the masked-LM logit at a [MASK] put in at position 2
        vocab = open(os.path.join(folder, "vocab.txt"), encoding="utf-8").read().split("\n")
        position = 2
        ids[position] = vocab.index("[MASK]")
        table = w["bert.embeddings.word_embeddings.weight"]
        with torch.no_grad():
            target = int(torch.argmax(g.bert_forward(w, cfg, ids, [0] * len(ids), [1] * len(ids))[2][position]))
        grads = lambda e: bert_logit_and_grads(w, cfg, ids, e, target, position)  # noqa: E731
    else:
        table = w["wte.weight"] if cfg["model_type"] == "gpt2" else w["model.embed_tokens.weight"]
        with torch.no_grad():
            forward = g.gpt2_forward if cfg["model_type"] == "gpt2" else g.llama_forward
            target = int(torch.argmax(forward(w, cfg, ids)[2][-1]))
        grads = lambda e: logit_and_grads(w, cfg, ids, e, target)  # noqa: E731
    emb = table[torch.tensor(ids)].float()
    logit, grad, attn_grad = grads(emb)
    baseline, _, _ = grads(torch.zeros_like(emb))
    total = torch.zeros_like(emb)
    for k in range(1, IG_STEPS + 1):
        total += grads(emb * (k / IG_STEPS))[1]
    ig = (emb * total / IG_STEPS).sum(-1)
    gxi = (emb * grad).sum(-1)
    # Completeness (Sundararajan et al. 2017, prop. 1) holds to the Riemann sum's error only.
    print(f"{name}: N {len(ids)}, target {target}, logit {logit:.4f}, baseline {baseline:.4f}, "
          f"sum IG {float(ig.sum()):.4f} (logit - baseline {logit - baseline:.4f})")
    extra = {}
    if cfg["model_type"] != "bert":
        loss, gates = head_gate_grads(w, cfg, ids)
        extra = dict(next_token_loss=np.float64(loss), head_gate_grad=gates.numpy().astype(np.float32))
        print(f"{name}: next-token loss {loss:.4f}, |gate gradient| max {float(gates.abs().max()):.4g}")
    np.savez_compressed(os.path.join(folder, "reference_gradients.npz"), **extra, ids=np.array(ids, dtype=np.int64),
                        target=np.int64(target), position=np.int64(position), ig_steps=np.int64(IG_STEPS), target_logit=np.float64(logit),
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
