#!/usr/bin/python3
"""Writes the gradient-attribution references of the encoder-decoder fixtures (marian, bart,
mbart, t5, flan_t5 of gen_seq2seq_fixtures.py; their folders are read, never rewritten): PyTorch
autograd in float64 through that script's plain-PyTorch ports of transformers' Marian, BART,
mBART and T5 forwards (seq2seq_t5.py), on the first reference case under forced decoding
(decoder ids = [decoder_start_token_id] + the target's ids).

The objective is logits[position, target] with position the last decoder row and target the
token the model predicts there. It is differentiated w.r.t. the source and decoder input
embeddings, Hugging Face's inputs_embeds of each stack: the token embedding rows times the
embedding scale (BART/Marian with scale_embedding: sqrt(d_model); T5: 1), before the
positions and layernorm_embedding. The rows are taken in through an extended embedding table
(ids V.. read the leaf rows divided by the scale); the tied lm_head's extra columns are never
read since the target is a vocabulary token, so the gradient reaches the leaves through the
lookup only. The attention weights are traced by wrapping the ports' attention functions
(T5's with the softmax left in float64 instead of the port's float32 cast).

  source_grad [Ns, d], target_grad [Nt, d]   dLogit / d(inputs_embeds)
  grad_x_input_source [Ns], _target [Nt]     sum over d of grad * inputs_embeds
  integrated_gradients_source / _target      Sundararajan et al. 2017 from the zero embedding of
                                             both stacks together, right Riemann sum, ig_steps 32
  attn_grad_encoder [Le, H, Ns, Ns], attn_grad_decoder [Ld, H, Nt, Nt], attn_grad_cross
  [Ld, H, Nt, Ns]                            attention weights times their gradient (Chefer et
                                             al. 2021 before the head mean and clamp)
  source_ids, decoder_ids, target, position, ig_steps (int64); target_logit, baseline_logit
  (float64); the arrays above computed in float64 and stored as float32.

Run from the repository root (Debian's python3-torch):

    /usr/bin/python3 tests/scripts/gen_seq2seq_gradient_fixtures.py [model ...]

Writes tests/fixtures/models/<name>/reference_gradients.npz.
"""
import json
import math
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_seq2seq_fixtures as gs  # noqa: E402
import seq2seq_t5  # noqa: E402

MODELS = ("marian", "bart", "mbart", "t5", "flan_t5")
IG_STEPS = 32
TRACE = []


def _traced_bart_attention(original):
    def attention(*args, **kwargs):
        out, pw = original(*args, **kwargs)
        if pw.requires_grad:
            pw.retain_grad()
        TRACE.append(pw)
        return out, pw
    return attention


def _t5_attention_f64(w, p, x, kv, H, bias):
    """seq2seq_t5.t5_attention with the softmax in the scores' own dtype (float64 here)."""
    Nq = x.shape[0]
    q, k, v = (F.linear(t, w[p + n + ".weight"]) for t, n in ((x, "q"), (kv, "k"), (kv, "v")))
    dh = q.shape[1] // H
    q, k, v = (t.view(-1, H, dh).transpose(0, 1) for t in (q, k, v))
    pw = torch.softmax(q @ k.transpose(1, 2) + bias, dim=-1)
    if pw.requires_grad:
        pw.retain_grad()
    TRACE.append(pw)
    o = (pw @ v).transpose(0, 1).reshape(Nq, H * dh)
    return F.linear(o, w[p + "o.weight"]), pw


gs.bart_attention = _traced_bart_attention(gs.bart_attention)
seq2seq_t5.t5_attention = _t5_attention_f64


def names_of(cfg):
    """(shared table, embedding scale) of the family."""
    if cfg["model_type"] in ("t5", "mt5"):
        return "shared.weight", 1.0
    return "model.shared.weight", math.sqrt(cfg["d_model"]) if cfg.get("scale_embedding") else 1.0


def logit_and_grads(w, cfg, src_emb, tgt_emb, target, position, attention=False):
    """logits[position, target] on the given inputs_embeds, dLogit/d(each), and (attention) the
    traced weights times their gradient: encoder, decoder self, cross."""
    table, scale = names_of(cfg)
    V, Ns, Nt = w[table].shape[0], src_emb.shape[0], tgt_emb.shape[0]
    xs = src_emb.detach().clone().requires_grad_(True)
    xt = tgt_emb.detach().clone().requires_grad_(True)
    w2 = dict(w)
    w2[table] = torch.cat([w[table], xs / scale, xt / scale])
    if "final_logits_bias" in w:
        w2["final_logits_bias"] = torch.cat([w["final_logits_bias"], torch.zeros(1, Ns + Nt, dtype=torch.float64)], 1)
    encode, decode = gs.forward_of(cfg)
    TRACE.clear()
    enc, _ = encode(w2, cfg, [V + i for i in range(Ns)])
    _, _, logits = decode(w2, cfg, enc, [V + Ns + i for i in range(Nt)])
    logit = logits[position, target]
    logit.backward()
    maps = None
    if attention:
        Le = len(TRACE) - 2 * cfg_layers(cfg, "decoder")
        both = [(t * t.grad).detach() for t in TRACE]
        maps = (torch.stack(both[:Le]), torch.stack(both[Le::2]), torch.stack(both[Le + 1::2]))
    return float(logit), xs.grad.detach(), xt.grad.detach(), maps


def cfg_layers(cfg, stack):
    if cfg["model_type"] in ("t5", "mt5"):
        return cfg["num_decoder_layers"] if stack == "decoder" else cfg["num_layers"]
    return cfg[f"{stack}_layers"]


def reference_gradients(name):
    folder = os.path.join(gs.ROOT, name)
    cfg = json.load(open(os.path.join(folder, "config.json")))
    case = json.load(open(os.path.join(folder, "reference_tokens.json")))["cases"][0]
    w = {k: v.double() for k, v in gs.load_weights(folder).items()}
    src, dec = case["source_ids"], [cfg["decoder_start_token_id"]] + case["target_ids"]
    table, scale = names_of(cfg)
    xs, xt = w[table][torch.tensor(src)] * scale, w[table][torch.tensor(dec)] * scale
    position = len(dec) - 1
    with torch.no_grad():
        encode, decode = gs.forward_of(cfg)
        target = int(torch.argmax(decode(w, cfg, encode(w, cfg, src)[0], dec)[2][position]))
    logit, gs_, gt, maps = logit_and_grads(w, cfg, xs, xt, target, position, attention=True)
    baseline = logit_and_grads(w, cfg, 0 * xs, 0 * xt, target, position)[0]
    ts, tt = torch.zeros_like(xs), torch.zeros_like(xt)
    for k in range(1, IG_STEPS + 1):
        _, a, b, _ = logit_and_grads(w, cfg, xs * (k / IG_STEPS), xt * (k / IG_STEPS), target, position)
        ts += a
        tt += b
    ig_s, ig_t = (xs * ts / IG_STEPS).sum(-1), (xt * tt / IG_STEPS).sum(-1)
    total = float(ig_s.sum() + ig_t.sum())
    print(f"{name}: Ns {len(src)}, Nt {len(dec)}, target {target}, logit {logit:.4f}, baseline {baseline:.4f}, "
          f"sum IG {total:.4f} (logit - baseline {logit - baseline:.4f})")
    arrays = dict(source_grad=gs_, target_grad=gt, grad_x_input_source=(xs * gs_).sum(-1),
                  grad_x_input_target=(xt * gt).sum(-1), integrated_gradients_source=ig_s,
                  integrated_gradients_target=ig_t, attn_grad_encoder=maps[0], attn_grad_decoder=maps[1],
                  attn_grad_cross=maps[2])
    np.savez_compressed(  # float64 computed, float32 stored (the C++ side computes in float32)
        os.path.join(folder, "reference_gradients.npz"), source_ids=np.array(src, np.int64),
        decoder_ids=np.array(dec, np.int64), target=np.int64(target), position=np.int64(position),
        ig_steps=np.int64(IG_STEPS), target_logit=np.float64(logit), baseline_logit=np.float64(baseline),
        **{k: v.numpy().astype(np.float32) for k, v in arrays.items()})


def main():
    torch.set_num_threads(1)
    for m in sys.argv[1:] or MODELS:
        reference_gradients(m)


if __name__ == "__main__":
    main()
