#!/usr/bin/python3
"""Trains `induction-2l`: a two-layer attention-only GPT-2 (residual stream, no MLP) that forms
induction heads (Olsson et al. 2022, "In-context Learning and Induction Heads", section 2).

Data: uniform random words in which one stretch is copied later on; the copy's length and its
distance to the original vary from sequence to sequence: with a fixed offset a two-layer model
can pass an induction score through a positional shortcut (attend to i - period + 1 by position
alone) without any previous-token head; varying both forces the composition of a layer-1
previous-token head with a layer-2 induction head (K-composition, section 3).  The loss counts
only the predictable words (inside the copy), and the unembedding is untied from the token
embedding: with a tied lm_head, or with every position in the loss, the model stays on the
"predict some earlier word" plateau for thousands of steps; as here it forms in about 400.

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
    """Random words in which one stretch is copied later in the sequence; also the loss mask.

    The recipe of AttnScope's training view (core/attn/train/tasks.cpp): copy length uniform in
    [length/8, length/2], source start random, copy start random after the source ends, so
    neither the offset nor the length is fixed and no positional head can pass for induction.
    mask[b, i] marks the predictable targets: logits at i predict word i + 1 for every i inside
    the copy but its last (the copy's first word cannot be predicted, nor can any random word).
    Counting only these is what makes the head form in a few hundred steps: averaged over all
    positions, the unpredictable words' loss (ln V each) drowns the induction signal."""
    x = torch.randint(FIRST_WORD, len(VOCAB), (n, length), generator=gen)
    mask = torch.zeros(n, length - 1, dtype=torch.bool)
    lo, hi = max(2, length // 8), length // 2
    for b in range(n):
        ln = lo + int(torch.randint(0, hi - lo + 1, (1,), generator=gen))
        src = int(torch.randint(0, length - 2 * ln + 1, (1,), generator=gen))
        dst = src + ln + int(torch.randint(0, length - ln - (src + ln) + 1, (1,), generator=gen))
        x[b, dst:dst + ln] = x[b, src:src + ln]
        mask[b, dst:dst + ln - 1] = True
    return x, mask


def masked_loss(model, x, mask):
    logits = model(x)[:, :-1]
    return F.cross_entropy(logits[mask], x[:, 1:][mask])


def repeated(gen, n, half):
    """The probe of TransformerLens' detect_head: `half` random words, then the same words again."""
    first = torch.randint(FIRST_WORD, len(VOCAB), (n, half), generator=gen)
    return torch.cat([first, first], dim=1)


HEADS, BATCH, LR, WARMUP = 1, 32, 2e-3, 50


def probe_scores(model, seed, n=128, half=12):
    with torch.no_grad():
        _, maps = model(repeated(torch.Generator().manual_seed(seed), n, half), want_attn=True)
    return hc.head_scores(maps, period=half)


def main():
    ap = hc.common_args(argparse.ArgumentParser(description=__doc__), 2000, "resources/models/induction-2l")
    ap.add_argument("--heads", type=int, default=HEADS, help="heads per layer (d_model 64 is split among them)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    hc.set_seed(args.seed)
    model = hc.Gpt2(vocab=len(VOCAB), positions=T, d=64, layers=2, heads=args.heads, inner=0, tie=False)
    opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=LR, betas=(0.9, 0.98))
    gen = torch.Generator().manual_seed(args.seed)
    t0 = time.time()
    log = []
    for step in range(args.steps):
        for g in opt.param_groups:
            g["lr"] = hc.lr_at(step, args.steps, LR, WARMUP)
        loss = masked_loss(model, *batch(gen, BATCH))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 50 == 0 or step == args.steps - 1:
            log.append((step, loss.item()))
            # The phase change shows in the heads: layer 1 turns to the previous word, then layer 2
            # to the word after the earlier occurrence.
            sc = probe_scores(model, 7, 32)
            best = [f"L{l + 1} prev {max(s['previous']):.2f} ind {max(s['induction']):.2f}" for l, s in enumerate(sc)]
            print(f"step {step} loss {loss.item():.4f} ({time.time() - t0:.0f} s) " + "; ".join(best), flush=True)
    seconds = time.time() - t0
    hc.round_to_f16_(model)
    model.eval()
    with torch.no_grad():
        held_loss = masked_loss(model, *batch(torch.Generator().manual_seed(args.seed + 1), 512)).item()
        train_loss = masked_loss(model, *batch(torch.Generator().manual_seed(args.seed + 2), 512)).item()
        rand_scores = probe_scores(model, args.seed + 3)
        phrase = "the red fox saw a big owl on the hill . " * 2
        ids = [VOCAB.index(w) if w in VOCAB else 0 for w in phrase.split()]
        _, tmaps = model(torch.tensor([ids]), want_attn=True)
        text_scores = hc.head_scores(tmaps, period=len(ids) // 2)
        ref_ids = repeated(torch.Generator().manual_seed(args.seed + 4), 1, 12)[0].tolist()
        ref_logits = model(torch.tensor([ref_ids]))[0]
    print(f"final train loss {train_loss:.4f} held-out loss {held_loss:.4f} ({seconds:.0f} s)")
    print("repeated random words:\n" + hc.score_table(rand_scores))
    print("clear heads:", "; ".join(hc.describe_heads(rand_scores)))
    print("typed phrase:", "; ".join(hc.describe_heads(text_scores)))
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
    curve = "\n".join(f"| {s} | {l:.3f} |" for s, l in log[::4] + ([log[-1]] if (len(log) - 1) % 4 else []))
    heads = "1 head" if args.heads == 1 else f"{args.heads} heads"
    return f"""# induction-2l

A two-layer, attention-only transformer (a residual stream, no MLP) trained by AttnScope's
`scripts/models/train_induction.py` to form an **induction head** (Olsson et al. 2022, "In-context
Learning and Induction Heads"): type a phrase twice and layer 2 looks from each word of the copy
to the word that followed it the first time, reading what layer 1's previous-token head wrote
into the residual stream (K-composition).

## Architecture
GPT-2 layout (`model_type` gpt2): {len(VOCAB)} whole-word tokens, {T} learned positions, d_model 64,
2 layers x {heads} (head size {64 // args.heads}), pre-LayerNorm. `n_inner: 0` makes the MLP empty:
Hugging Face's GPT2MLP with an intermediate size of 0 returns its `c_proj` bias alone, which is
zero here, so each block is `x + attn(ln_1(x))`. The unembedding is **not tied** to the token
embedding (`tie_word_embeddings: false`, its own `lm_head.weight`; the tensors carry
GPT2LMHeadModel's `transformer.` prefix): with the tied head the model stayed on the plateau
below for the 3000 steps tried. Weights in F16.

## Vocabulary
WordPiece holding whole words only (lower-cased, split on whitespace and punctuation); any other
word becomes `[UNK]`. The words: {" ".join(WORDS)}

## Data and licence
Generated, no corpus; the recipe of AttnScope's training view (Training > Demonstrations >
"Watch an induction head form"): {T} uniform random words per sequence, in which a stretch of
length uniform in {T // 8}-{T // 2} words, starting at a random place, is copied to a random place
after it ends. The copy's offset and length both vary, so no positional shortcut passes for
induction. The loss counts only the predictable words: those inside the copy after its first
(every other word is random and would add ln {len(VOCAB) - FIRST_WORD} nats that no head can lower).
Seed {args.seed}. The weights are released under the project's licence (GPL-3.0-or-later).

## Training
Adam (lr {LR}, warm-up {WARMUP} steps, cosine to {LR / 10:g}), batch {BATCH}, {args.steps} steps, one CPU
thread, {seconds:.0f} s. Loss over the predictable words: train {train_loss:.3f}, held-out {held_loss:.3f}
nats/word (fresh sequences; without the induction head it can be no better than "some word seen
earlier", about ln 25 = 3.2). The loss sits on that plateau for ~250 steps, then drops within ~150
steps as both heads form (the "phase change"):

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

Limit: layer 1's previous-token head is sharp (about 0.9) up to position ~26 and fades over the
last five of the {T} positions: a word there can only be a key for the induction head when a copy
of it would fit in the remaining positions, which the data almost never holds, so those positions
are barely trained. Phrases of up to 13 words typed twice stay within the sharp part.
"""


if __name__ == "__main__":
    main()
