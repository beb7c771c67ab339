#!/usr/bin/python3
"""Trains `induction-2l`: a two-layer attention-only GPT-2 (residual stream, no MLP) that forms
induction heads (Olsson et al. 2022, "In-context Learning and Induction Heads", section 2).

Data: uniform random words whose later part repeats an earlier stretch.  The copy's length
and its distance to the original vary from sequence to sequence: with a fixed offset a two-layer
model can pass an induction score through a positional shortcut (attend to i - period + 1 by
position alone) without any previous-token head; varying both forces the composition of a
layer-1 previous-token head with a layer-2 induction head (K-composition, section 3).

Usage: /usr/bin/python3 scripts/models/train_induction.py [--steps N] [--out DIR] [--threads N]
"""
import argparse
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hf_common as hc  # noqa: E402

# Whole-word vocabulary a user can type: a repeated phrase of these words shows the induction head.
WORDS = """the a an and or but if then so not no yes is was are were be has had have do did will can
cat dog bird fish cow horse mouse fox bear lion frog duck sheep pig owl bee
red blue green black white big small old new hot cold happy sad fast slow good bad
sun moon star tree sea rain snow wind sky hill river road house door book box ball cake apple milk
run sat ran eat saw see go went come sing jump sleep play read walk look
i you he she it we they my your his her our their this that here there on in at to of with
""".split()
SPECIALS = ["[UNK]", ".", ","]
VOCAB = SPECIALS + WORDS
FIRST_WORD = len(SPECIALS)
T = 32  # positions (n_positions); training sequences use all of them


def tokenizer_json():
    """A WordPiece tokenizer.json holding whole words only: an unknown word becomes [UNK]."""
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [
            {"id": 0, "content": "[UNK]", "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True}],
        "normalizer": {"type": "Lowercase"},
        "pre_tokenizer": {"type": "Whitespace"},
        "post_processor": None,
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": {w: i for i, w in enumerate(VOCAB)}},
    }


def batch(gen, n, length=T):
    """Random words; from a random point on, the sequence repeats itself `lag` words back.

    lag is uniform in 3..20 and the copy starts 0..8 words after the first lag words, so both
    the distance to the earlier occurrence and the copy's length vary: no fixed offset exists
    for a positional head to learn."""
    x = torch.randint(FIRST_WORD, len(VOCAB), (n, length), generator=gen)
    for b in range(n):
        lag = int(torch.randint(3, 21, (1,), generator=gen))
        start = lag + int(torch.randint(0, 9, (1,), generator=gen))
        for t in range(start, length):
            x[b, t] = x[b, t - lag]
    return x


def repeated(gen, n, half):
    """The probe of TransformerLens' detect_head: `half` random words, then the same words again."""
    first = torch.randint(FIRST_WORD, len(VOCAB), (n, half), generator=gen)
    return torch.cat([first, first], dim=1)


def main():
    ap = hc.common_args(argparse.ArgumentParser(description=__doc__), 8000, "resources/models/induction-2l")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    hc.set_seed(args.seed)
    model = hc.Gpt2(vocab=len(VOCAB), positions=T, d=64, layers=2, heads=4, inner=0)
    opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=2e-3, betas=(0.9, 0.98))
    gen = torch.Generator().manual_seed(args.seed)
    held = batch(torch.Generator().manual_seed(args.seed + 1), 256)
    t0 = time.time()
    log = []
    for step in range(args.steps):
        for g in opt.param_groups:
            g["lr"] = hc.lr_at(step, args.steps, 2e-3, 100)
        x = batch(gen, 64)
        logits = model(x[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 250 == 0 or step == args.steps - 1:
            log.append((step, loss.item()))
            print(f"step {step} train loss {loss.item():.4f} ({time.time() - t0:.0f} s)", flush=True)
        if step % 1000 == 999:  # the phase change shows in the heads first
            with torch.no_grad():
                _, m = model(repeated(torch.Generator().manual_seed(7), 32, 12), want_attn=True)
            print("  " + "; ".join(hc.describe_heads(hc.head_scores(m, period=12), 0.3)), flush=True)
    seconds = time.time() - t0
    hc.round_to_f16_(model)
    model.eval()
    with torch.no_grad():
        lh = model(held[:, :-1])
        held_loss = F.cross_entropy(lh.reshape(-1, lh.shape[-1]), held[:, 1:].reshape(-1)).item()
        xb = batch(torch.Generator().manual_seed(args.seed + 2), 256)
        lt = model(xb[:, :-1])
        train_loss = F.cross_entropy(lt.reshape(-1, lt.shape[-1]), xb[:, 1:].reshape(-1)).item()
        probe = repeated(torch.Generator().manual_seed(args.seed + 3), 128, 12)
        _, maps = model(probe, want_attn=True)
        rand_scores = hc.head_scores(maps, period=12)
        phrase = "the cat sat on the hill and the dog ran . " * 2
        ids = [VOCAB.index(w) if w in VOCAB else 0 for w in phrase.split()]
        _, tmaps = model(torch.tensor([ids]), want_attn=True)
        text_scores = hc.head_scores(tmaps, period=len(ids) // 2)
        ref_ids = probe[0].tolist()
        ref_logits = model(torch.tensor([ref_ids]))[0]
    print(f"final train loss {train_loss:.4f} held-out loss {held_loss:.4f} ({seconds:.0f} s)")
    print("repeated random words:\n" + hc.score_table(rand_scores))
    print("clear heads:", "; ".join(hc.describe_heads(rand_scores)))
    os.makedirs(args.out, exist_ok=True)
    hc.write_safetensors_f16(os.path.join(args.out, "model.safetensors"), model.hf_tensors())
    hc.write_json(os.path.join(args.out, "config.json"), model.hf_config({"bos_token_id": 0, "eos_token_id": 0}))
    hc.write_json(os.path.join(args.out, "tokenizer.json"), tokenizer_json())
    hc.write_text(os.path.join(args.out, "README.md"),
                  card(args, train_loss, held_loss, seconds, log, rand_scores, text_scores, phrase))
    if args.fixture:
        os.makedirs(args.fixture, exist_ok=True)
        hc.write_reference(os.path.join(args.fixture, "induction-2l.npz"), ref_ids, ref_logits)


def card(args, train_loss, held_loss, seconds, log, rand_scores, text_scores, phrase):
    curve = "\n".join(f"| {s} | {l:.3f} |" for s, l in log)
    return f"""# induction-2l

A two-layer, attention-only transformer (a residual stream, no MLP) trained by AttnScope's
`scripts/models/train_induction.py` to form an **induction head** (Olsson et al. 2022, "In-context
Learning and Induction Heads"): type a phrase twice and layer 2 looks from each word of the copy
to the word that followed it the first time.

## Architecture
GPT-2 layout (`model_type` gpt2): {len(VOCAB)} whole-word tokens, 32 learned positions, d_model 64,
2 layers x 4 heads (head size 16), pre-LayerNorm, tied lm_head. `n_inner: 0` makes the MLP empty:
Hugging Face's GPT2MLP with an intermediate size of 0 returns its `c_proj` bias alone, which is
zero here, so each block is `x + attn(ln_1(x))`. Weights in F16.

## Vocabulary
WordPiece holding whole words only (lower-cased, split on whitespace and punctuation); any other
word becomes `[UNK]`. The words: {" ".join(WORDS)}

## Data and licence
Generated, no corpus: {T} uniform random words per sequence which, from a random point on,
repeat the words `lag` positions back (lag uniform in 3-20, the copy starting 0-8 words after the
first lag words): the copy's offset and length both vary, so no positional shortcut passes for
induction (with a fixed offset a two-layer model passes an induction score by position alone). Seed {args.seed}. The weights are released under the
project's licence (GPL-3.0-or-later).

## Training
Adam (lr 2e-3, warm-up 100 steps, cosine to 2e-4), batch 64, {args.steps} steps, one CPU thread,
{seconds:.0f} s. Final train loss {train_loss:.3f}, held-out loss {held_loss:.3f} nats/token (fresh
sequences; a model that ignored context would score ln {len(VOCAB) - FIRST_WORD} = {__import__('math').log(len(VOCAB) - FIRST_WORD):.3f}).
The loss plateaus near that value, then drops as the induction head forms (the "phase change"):

| step | train loss |
|---|---|
{curve}

## What the heads do
Scores on 128 fresh sequences of 12 random words repeated once (period 12): previous = mean
weight on the previous token, self = on the token itself, sink = on the first token, induction =
on the token after the previous occurrence (i - 12 + 1), duplicate = on the previous occurrence
(i - 12), over the copy.

{hc.score_table(rand_scores)}

Clear heads: {"; ".join(hc.describe_heads(rand_scores))}.

On the typed text "{phrase.strip()}": {"; ".join(hc.describe_heads(text_scores))}.
"""


if __name__ == "__main__":
    main()
