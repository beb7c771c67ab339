#!/usr/bin/python3
"""Writes tests/fixtures/train/*.npz: the tiny attention model of core/attn/train
built independently in PyTorch (autograd, float64), with fixed weights and a
fixed batch, and the loss and every parameter's gradient.

Run with Debian's Python (python3-torch 1.13): /usr/bin/python3 tests/scripts/gen_train_fixtures.py

The model (see core/attn/train/tiny_model.h):
  h0 = E[x] + P;  Translate (cross): queries from Pq, keys/values from h0
  per layer, head: Q = Xq W_Q, K = Xkv W_K, V = Xkv W_V
    dot: Q K^T; scaled_dot: Q K^T / sqrt(dk); general: Q W_b K^T / sqrt(dk);
    additive: v^T tanh(Q W_aq + K W_ak)
    S /= temperature; causal mask (self-attention only); A = softmax(S); O = A V
  a_l = concat(O) W_O;  without residual: h_l = a_l
  residual (Elhage et al. 2021): u = h_{l-1} + a_l;  h_l = u + relu(u W_in + b_in) W_out + b_out
  with an MLP (mlp_hidden > 0), else h_l = u
  logits = h_L W_out + b_out
  loss = mean cross-entropy over targets != -1 + entropy_weight * mean row entropy of every map
Cases named *_residual* also ignore some targets (-1), as the induction task does.
Every array: weights as float32 values (used as float64 here), gradients float64.
"""
import os

import numpy as np
import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "train")
MECHANISMS = ["dot", "scaled_dot", "general", "additive"]


def build_params(rng, cfg):
    def mat(r, c, scale=0.6):
        return (rng.standard_normal((r, c)) * scale).astype(np.float32)

    n, d, dk, hid, v = cfg["seq_len"], cfg["d_model"], cfg["d_k"], cfg["hidden"], cfg["vocab"]
    p = {"token_embedding": mat(v, d, 1.0), "pos_embedding": mat(n, d, 1.0)}
    if cfg["cross"]:
        p["query_pos_embedding"] = mat(n, d, 1.0)
    for l in range(cfg["layers"]):
        for h in range(cfg["heads"]):
            pre = f"layer{l}.head{h}."
            p[pre + "w_q"] = mat(d, dk)
            p[pre + "w_k"] = mat(d, dk)
            p[pre + "w_v"] = mat(d, dk)
            if cfg["mechanism"] == "general":
                p[pre + "w_bilinear"] = mat(dk, dk)
            if cfg["mechanism"] == "additive":
                p[pre + "w_add_q"] = mat(dk, hid)
                p[pre + "w_add_k"] = mat(dk, hid)
                p[pre + "v_add"] = mat(1, hid)
        p[f"layer{l}.w_o"] = mat(cfg["heads"] * dk, d)
        if cfg.get("mlp_hidden", 0) > 0:
            m = cfg["mlp_hidden"]
            p[f"layer{l}.mlp.w_in"] = mat(d, m)
            p[f"layer{l}.mlp.b_in"] = mat(1, m, 0.3)
            p[f"layer{l}.mlp.w_out"] = mat(m, d)
            p[f"layer{l}.mlp.b_out"] = mat(1, d, 0.3)
    p["w_out"] = mat(d, v)
    p["b_out"] = mat(1, v, 0.3)
    return p


def loss_of(cfg, P, x, y):
    n, heads, dk = cfg["seq_len"], cfg["heads"], cfg["d_k"]
    B = x.shape[0]
    h0 = P["token_embedding"][x] + P["pos_embedding"][None, :, :]
    xq = P["query_pos_embedding"][None].expand(B, n, -1) if cfg["cross"] else h0
    keep = torch.ones(n, n, dtype=torch.bool)
    if cfg["causal"] and not cfg["cross"]:
        keep = torch.tril(keep)
    entropies = []
    for l in range(cfg["layers"]):
        xkv = h0 if cfg["cross"] else xq
        outs = []
        for h in range(heads):
            pre = f"layer{l}.head{h}."
            q, k, v = xq @ P[pre + "w_q"], xkv @ P[pre + "w_k"], xkv @ P[pre + "w_v"]
            m = cfg["mechanism"]
            if m == "dot":
                s = q @ k.transpose(1, 2)
            elif m == "scaled_dot":
                s = q @ k.transpose(1, 2) / np.sqrt(dk)
            elif m == "general":
                s = q @ P[pre + "w_bilinear"] @ k.transpose(1, 2) / np.sqrt(dk)
            else:
                aq, ak = q @ P[pre + "w_add_q"], k @ P[pre + "w_add_k"]
                t = torch.tanh(aq[:, :, None, :] + ak[:, None, :, :])
                s = (t * P[pre + "v_add"][0]).sum(-1)
            s = s / cfg["temperature"]
            s = s.masked_fill(~keep, float("-inf"))
            a = torch.softmax(s, dim=-1)
            a_safe = torch.where(keep, a, torch.ones_like(a))
            entropies.append(-(torch.where(keep, a * torch.log(a_safe), torch.zeros_like(a))).sum(-1))
            outs.append(a @ v)
        attn = torch.cat(outs, dim=-1) @ P[f"layer{l}.w_o"]
        if cfg.get("residual", 0):
            xq = xq + attn
            if cfg.get("mlp_hidden", 0) > 0:
                pre = f"layer{l}.mlp."
                hidden = torch.relu(xq @ P[pre + "w_in"] + P[pre + "b_in"][0])
                xq = xq + hidden @ P[pre + "w_out"] + P[pre + "b_out"][0]
        else:
            xq = attn
    logits = xq @ P["w_out"] + P["b_out"][0]
    ce = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1), ignore_index=-1)
    mean_entropy = torch.stack(entropies).mean()
    return ce + cfg["entropy_weight"] * mean_entropy


def write_case(name, cfg, seed):
    rng = np.random.default_rng(seed)
    params = build_params(rng, cfg)
    x = rng.integers(0, cfg["vocab"], size=(cfg["batch"], cfg["seq_len"]))
    y = rng.integers(0, cfg["vocab"], size=(cfg["batch"], cfg["seq_len"]))
    if cfg.get("residual", 0):
        y[rng.random(y.shape) < 0.3] = -1
        y[0, 0] = -1
    P = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True) for k, v in params.items()}
    loss = loss_of(cfg, P, torch.tensor(x), torch.tensor(y))
    loss.backward()
    arrays = {k: v for k, v in params.items()}
    for k, t in P.items():
        arrays["grad." + k] = t.grad.numpy()
    arrays["loss"] = np.array([loss.item()])
    arrays["inputs"] = x.astype(np.float32)
    arrays["targets"] = y.astype(np.float32)
    conf = dict(cfg)
    conf["mechanism"] = MECHANISMS.index(cfg["mechanism"])
    for k, v in conf.items():
        arrays["config." + k] = np.array([float(v)])
    np.savez(os.path.join(OUT, name + ".npz"), **arrays)


def main():
    torch.set_grad_enabled(True)
    os.makedirs(OUT, exist_ok=True)
    base = dict(seq_len=5, vocab=7, d_model=6, d_k=4, hidden=5, heads=2, layers=2, batch=3,
                temperature=1.7, entropy_weight=0.3, causal=0, cross=0, residual=0, mlp_hidden=0)
    seed = 100
    for mech in MECHANISMS:
        for causal in (0, 1):
            cfg = dict(base, mechanism=mech, causal=causal)
            write_case(f"{mech}_{'causal' if causal else 'full'}", cfg, seed)
            seed += 1
        # One layer, one head, temperature 1, no regulariser: the plain model.
        write_case(f"{mech}_plain", dict(base, mechanism=mech, layers=1, heads=1, temperature=1.0,
                                         entropy_weight=0.0), seed)
        seed += 1
        write_case(f"{mech}_cross", dict(base, mechanism=mech, cross=1), seed)
        seed += 1
    # The residual stream (attention only, and with an MLP), causal as the induction task.
    seed = 200
    for mech in MECHANISMS:
        write_case(f"{mech}_residual", dict(base, mechanism=mech, causal=1, residual=1), seed)
        seed += 1
        write_case(f"{mech}_residual_mlp", dict(base, mechanism=mech, causal=1, residual=1, mlp_hidden=3), seed)
        seed += 1
        write_case(f"{mech}_residual_cross", dict(base, mechanism=mech, cross=1, residual=1, mlp_hidden=3), seed)
        seed += 1


if __name__ == "__main__":
    main()
