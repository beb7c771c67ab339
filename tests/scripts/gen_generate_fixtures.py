#!/usr/bin/python3
"""Writes the generation references of the causal model fixtures (tests/fixtures/models/gpt2,
llama, qwen2): the ids transformers' GenerationMixin.generate returns for greedy search and
beam search (BeamSearchScorer), and the attention of the final sequence, computed with the
plain-PyTorch ports of GPT2LMHeadModel / LlamaForCausalLM / Qwen2ForCausalLM in
gen_model_fixtures.py. Each step re-runs the whole sequence (no KV cache), so the C++
incremental decoder is checked against a computation that shares none of its shortcuts.

Run (from the repository root; Debian's python3-torch 1.13 + numpy), after gen_model_fixtures.py:

    /usr/bin/python3 tests/scripts/gen_generate_fixtures.py

<name>/reference_generate.npz, per case c (the CASES list below):
  prompt_c [P] int64            the prompt ids (case `prompt` of reference_tokens.json)
  settings_c [6] float64        max_new_tokens, num_beams, length_penalty, early_stopping,
                                no_repeat_ngram_size, eos_token_id (the folder's unless the case
                                overrides it: the C++ test then writes a generation_config.json)
  ids_c [N] int64               what generate returns: the prompt, then the generated ids
  attn_c [L, H, N, N] float32   every layer's attention over the final sequence
Beam search follows transformers 4.44: a hypothesis closed by EOS scores sum log p /
(cur_len + 1 - prompt_len)^length_penalty, is_done divides by the same length, the open beams
added at max_length by their length less the prompt.
"""
import json
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_model_fixtures as gm  # noqa: E402
from gen_seq2seq_fixtures import BeamHypotheses, banned_ngram_tokens  # noqa: E402

# (model, prompt case, max_new_tokens, num_beams, length_penalty, early_stopping, no_repeat_ngram_size,
#  eos: None = the folder's, "greedy3" = the 4th token greedy search writes, so that it stops there)
CASES = [
    ("gpt2", 0, 12, 1, 1.0, False, 0, None),
    ("gpt2", 1, 10, 1, 1.0, False, 2, None),
    ("gpt2", 0, 8, 3, 1.0, False, 0, None),
    ("gpt2", 2, 8, 4, 0.6, True, 0, "greedy3"),
    ("gpt2", 0, 10, 2, 1.0, False, 0, "greedy3"),
    ("llama", 0, 12, 1, 1.0, False, 0, None),
    ("llama", 1, 10, 1, 1.0, False, 0, "greedy3"),
    ("llama", 0, 8, 3, 1.0, False, 2, None),
    ("llama", 2, 9, 4, 2.0, False, 0, "greedy3"),
    ("qwen2", 0, 10, 1, 1.0, False, 0, None),
    ("qwen2", 1, 8, 3, 1.0, False, 0, None),
]


def forward_of(cfg):
    return gm.gpt2_forward if cfg["model_type"] == "gpt2" else gm.llama_forward


def process(scores, ids, ngram):
    for t in banned_ngram_tokens(ids, ngram):  # NoRepeatNGramLogitsProcessor over the whole sequence
        scores[t] = -float("inf")
    return scores


def greedy(w, cfg, prompt, max_new, ngram, eos):
    """GenerationMixin greedy search: argmax (the first maximum) of the processed logits of the
    last position, the whole sequence re-run each step; stops after eos or at the budget."""
    fwd, ids = forward_of(cfg), list(prompt)
    while len(ids) < len(prompt) + max_new:
        logits = fwd(w, cfg, ids)[2][-1].clone()
        ids.append(int(torch.argmax(process(logits, ids, ngram))))
        if ids[-1] == eos:
            break
    return ids


def beam_search(w, cfg, prompt, max_new, num_beams, length_penalty, early_stopping, ngram, eos):
    """BeamSearchScorer on one prompt (gen_seq2seq_fixtures.beam_search with the prompt as the
    decoder prompt): log-softmax + processors + running scores, the 2 * num_beams best, eos
    among the first num_beams closing a hypothesis. Returns the best sequence."""
    fwd, P = forward_of(cfg), len(prompt)
    max_length = P + max_new
    beams = [list(prompt) for _ in range(num_beams)]
    beam_scores = torch.zeros(num_beams)
    beam_scores[1:] = -1e9
    hyps, done = BeamHypotheses(num_beams, length_penalty, early_stopping), False
    while len(beams[0]) < max_length:
        rows = [process(torch.log_softmax(fwd(w, cfg, b)[2][-1], dim=-1), b, ngram) for b in beams]
        scores = torch.stack(rows) + beam_scores[:, None]
        V = scores.shape[1]
        top, idx = torch.topk(scores.view(-1), 2 * num_beams, largest=True, sorted=True)
        generated = len(beams[0]) + 1 - P  # cur_len + 1 - decoder_prompt_len
        nxt = []
        for rank, (sc, ix) in enumerate(zip(top.tolist(), idx.tolist())):
            b, tok = ix // V, ix % V
            if tok == eos:
                if rank < num_beams:
                    hyps.add(list(beams[b]), sc, generated)
            else:
                nxt.append((sc, beams[b] + [tok]))
            if len(nxt) == num_beams:
                break
        done = done or hyps.is_done(float(top.max()), generated)
        beams = [b for _, b in nxt]
        beam_scores = torch.tensor([sc for sc, _ in nxt], dtype=torch.float32)
        if done:
            break
    if not done:
        for b, sc in zip(beams, beam_scores.tolist()):
            hyps.add(list(b), sc, len(b) - P)
    score, best = sorted(hyps.beams, key=lambda h: h[0])[-1]
    return best + [eos] if len(best) < max_length and eos is not None and eos >= 0 else best


def main():
    arrays, loaded = {}, {}
    for c, (name, case, max_new, beams, lp, early, ngram, eos_mode) in enumerate(CASES):
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
        if beams == 1:
            ids = greedy(w, cfg, prompt, max_new, ngram, eos)
        else:
            ids = beam_search(w, cfg, prompt, max_new, beams, lp, early, ngram, eos)
        attn = forward_of(cfg)(w, cfg, ids)[0]
        k = len(arrays[name]) // 4
        arrays[name][f"prompt_{k}"] = np.array(prompt, np.int64)
        arrays[name][f"settings_{k}"] = np.array([max_new, beams, lp, float(early), ngram, eos], np.float64)
        arrays[name][f"ids_{k}"] = np.array(ids, np.int64)
        arrays[name][f"attn_{k}"] = attn.numpy().astype(np.float32)
        print(f"{name} case {k}: prompt {len(prompt)}, beams {beams}, eos {eos}: wrote {ids[len(prompt):]}")
    for name, a in arrays.items():
        np.savez_compressed(os.path.join(gm.ROOT, name, "reference_generate.npz"), **a)


if __name__ == "__main__":
    main()
