#!/usr/bin/python3
"""Writes the beam-sampling references of the causal model fixtures (tests/fixtures/models/gpt2,
llama, qwen2): the ids transformers' GenerationMixin.generate returns with do_sample and
num_beams > 1 (its _beam_search with do_sample, 4.44), each step a full re-run of the
plain-PyTorch ports in gen_model_fixtures.py (no KV cache), with one change that cannot be
avoided: torch.multinomial's generator is replaced by the generator AttnScope documents
(core/attn/models/generation/token_sampler.h), written here from the C++ standard's
definition of std::mt19937_64, so that the same draws can be compared.

Run (from the repository root; Debian's python3-torch 1.13 + numpy), after gen_model_fixtures.py:

    /usr/bin/python3 tests/scripts/gen_beam_sample_fixtures.py

<name>/reference_beam_sample.npz, per case c (the CASES list below):
  prompt_c [P] int64       the prompt ids (case `prompt` of reference_tokens.json)
  settings_c [10] float64  max_new_tokens, num_beams, length_penalty, early_stopping, eos_token_id,
                           top_k, top_p, temperature, seed, 0
  ids_c [N] int64          what generate returns: the prompt, then the generated ids

What generate does there: per beam, log_softmax of the last logits, the processors, then the
warpers (TemperatureLogitsWarper, TopKLogitsWarper with k >= min_tokens_to_keep, TopPLogitsWarper
keeping min_tokens_to_keep; min_tokens_to_keep = 1 + the EOS ids when num_beams > 1), plus the
beam's running score; softmax over every beam's row; max(2, 1 + the EOS ids) x num_beams cells
drawn without replacement, sorted by score (descending); then BeamSearchScorer as for beam
search. The top-p rule is the one AttnScope documents (a token stays while its betters hold
less than top_p of the mass, in double), equal to transformers' cumulative <= 1 - top_p test
except for rounding at the boundary.
"""
import json
import math
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_model_fixtures as gm  # noqa: E402
from gen_generate_fixtures import forward_of, greedy  # noqa: E402
from gen_seq2seq_fixtures import BeamHypotheses  # noqa: E402

# (model, prompt case, max_new_tokens, num_beams, length_penalty, early_stopping,
#  top_k, top_p, temperature, seed, eos: None = the folder's, "greedy3" = greedy's 4th token)
CASES = [
    ("gpt2", 0, 8, 3, 1.0, False, 50, 1.0, 4.0, 1, None),
    ("gpt2", 2, 8, 4, 0.6, True, 0, 0.9, 3.0, 7, "greedy3"),
    ("gpt2", 1, 10, 2, 1.0, False, 0, 1.0, 6.0, 2024, "greedy3"),
    ("llama", 0, 8, 3, 1.0, False, 20, 0.95, 1.3, 3, None),
    ("llama", 1, 9, 2, 2.0, False, 0, 1.0, 1.0, 11, "greedy3"),
    ("qwen2", 0, 8, 3, 1.0, False, 10, 1.0, 5.0, 5, None),
]

MASK64 = (1 << 64) - 1


class Mt19937_64:
    """std::mt19937_64 as [rand.eng.mers] and [rand.predef] define it."""

    def __init__(self, seed):
        self.mt = [seed & MASK64]
        for i in range(1, 312):
            prev = self.mt[-1]
            self.mt.append((6364136223846793005 * (prev ^ (prev >> 62)) + i) & MASK64)
        self.i = 312

    def next(self):
        if self.i >= 312:
            for k in range(312):
                y = (self.mt[k] & 0xFFFFFFFF80000000) | (self.mt[(k + 1) % 312] & 0x7FFFFFFF)
                v = self.mt[(k + 156) % 312] ^ (y >> 1)
                self.mt[k] = v ^ 0xB5026F5AA96619E9 if y & 1 else v
            self.i = 0
        y = self.mt[self.i]
        self.i += 1
        y ^= (y >> 29) & 0x5555555555555555
        y ^= (y << 17) & 0x71D67FFFEDA60000
        y ^= (y << 37) & 0xFFF7EEE000000000
        y ^= y >> 43
        return y & MASK64

    def uniform(self):
        return (self.next() >> 11) * 2.0 ** -53


def softmax_double(scores):
    """Softmax in double of float32 scores (-inf: 0), summed in index order."""
    xs = [float(v) for v in scores]
    best = max(xs)
    if not math.isfinite(best):
        return [0.0] * len(xs)
    p = [math.exp(v - best) if math.isfinite(v) else 0.0 for v in xs]
    total = 0.0
    for v in p:
        total += v
    return [v / total for v in p]


def draw(probs, u):
    """The first index whose cumulative probability exceeds u * the sum (token_sampler drawToken)."""
    total = 0.0
    for v in probs:
        total += v
    target, cum, last = u * total, 0.0, 0
    for t, v in enumerate(probs):
        if v <= 0:
            continue
        last = t
        cum += v
        if cum > target:
            return t
    return last


def warp(row, top_k, top_p, temperature, keep):
    """Temperature (float32), top-k (k >= keep, ties kept), top-p (keep the first `keep`)."""
    x = (row / np.float32(temperature)).astype(np.float32)
    order = sorted(range(len(x)), key=lambda t: -float(x[t]))  # stable: ties by id
    k = max(top_k, keep) if top_k > 0 else len(x)
    if k < len(x):
        kth = x[order[k - 1]]
        x[x < kth] = -np.inf
    if top_p < 1.0:
        p, above = softmax_double(x), 0.0
        for r, t in enumerate(order):
            if r >= keep and above >= top_p:
                x[t] = -np.inf
            above += p[t]
    return x


def beam_sample(w, cfg, prompt, max_new, B, lp, early, top_k, top_p, temperature, seed, eos):
    fwd, P = forward_of(cfg), len(prompt)
    max_length = P + max_new
    n_eos = 1 if eos is not None and eos >= 0 else 0
    keep, candidates = 1 + n_eos, max(2, 1 + n_eos) * B
    rng = Mt19937_64(seed)
    beams = [list(prompt) for _ in range(B)]
    beam_scores = [np.float32(0.0)] + [np.float32(-1e9)] * (B - 1)
    hyps, done = BeamHypotheses(B, lp, early), False
    while len(beams[0]) < max_length:
        rows = []
        for b, sc in zip(beams, beam_scores):
            logp = torch.log_softmax(fwd(w, cfg, b)[2][-1], dim=-1).numpy().astype(np.float32)
            rows.append((warp(logp, top_k, top_p, temperature, keep) + sc).astype(np.float32))
        scores = np.concatenate(rows)
        V = len(rows[0])
        probs = softmax_double(scores)
        cells = []
        for _ in range(candidates):
            if not any(v > 0 for v in probs):
                break
            c = draw(probs, rng.uniform())
            cells.append(c)
            probs[c] = 0.0
        cells.sort(key=lambda c: -float(scores[c]))  # stable: draw order among ties
        generated = len(beams[0]) + 1 - P
        nxt = []
        for rank, c in enumerate(cells):
            b, tok, sc = c // V, c % V, scores[c]
            if tok == eos:
                if rank < B:
                    hyps.add(list(beams[b]), float(sc), generated)
            else:
                nxt.append((sc, beams[b] + [tok]))
            if len(nxt) == B:
                break
        done = done or hyps.is_done(float(scores[cells[0]]), generated)
        beams = [b for _, b in nxt]
        beam_scores = [sc for sc, _ in nxt]
        if done or len(beams) < B:
            break
    if not done:
        for b, sc in zip(beams, beam_scores):
            hyps.add(list(b), float(sc), len(b) - P)
    _, best = sorted(hyps.beams, key=lambda h: h[0])[-1]
    return best + [eos] if len(best) < max_length and eos is not None and eos >= 0 else best


def main():
    rng = Mt19937_64(5489)  # [rand.predef]: the 10000th value of the default engine
    for _ in range(9999):
        rng.next()
    assert rng.next() == 9981545732273789042
    arrays, loaded = {}, {}
    for name, case, max_new, beams, lp, early, top_k, top_p, temp, seed, eos_mode in CASES:
        folder = os.path.join(gm.ROOT, name)
        if name not in loaded:
            cfg = json.load(open(os.path.join(folder, "config.json")))
            toks = json.load(open(os.path.join(folder, "reference_tokens.json")))
            loaded[name] = (cfg, toks, gm.load_weights(folder))
            arrays.setdefault(name, {})
        cfg, toks, w = loaded[name]
        prompt = toks["cases"][case]["ids"]
        eos = cfg["eos_token_id"]
        if eos_mode == "greedy3":
            eos = greedy(w, cfg, prompt, 4, 0, None)[len(prompt) + 3]
        with torch.no_grad():
            ids = beam_sample(w, cfg, prompt, max_new, beams, lp, early, top_k, top_p, temp, seed, eos)
        k = len(arrays[name]) // 3
        arrays[name][f"prompt_{k}"] = np.array(prompt, np.int64)
        arrays[name][f"settings_{k}"] = np.array(
            [max_new, beams, lp, float(early), eos, top_k, top_p, temp, seed, 0], np.float64)
        arrays[name][f"ids_{k}"] = np.array(ids, np.int64)
        print(f"{name} case {k}: prompt {len(prompt)}, beams {beams}, eos {eos}, seed {seed}: wrote {ids[len(prompt):]}")
    for name, a in arrays.items():
        np.savez_compressed(os.path.join(gm.ROOT, name, "reference_beam_sample.npz"), **a)


if __name__ == "__main__":
    main()
