#!/usr/bin/python3
"""Trains `tang-poems-gpt2`: a character-level GPT-2 on the classical Chinese poems of Debian's
fortunes-zh (唐诗三百首 in /usr/share/games/fortunes/tang300, 宋诗一百首 in song100), so that a
classroom sees heads that line up the parallel positions of a couplet's two lines (对仗) and
heads that follow the punctuation which ends each line.

Titles, authors and the prose prefaces some poems carry are dropped: the model sees verse only,
one poem after another, each opened by [BOS].  Every 16th poem is held out (never trained on).
Usage: /usr/bin/python3 scripts/models/train_tang_poems.py [--steps N] [--out DIR] [--threads N]
       [--fixture DIR]   (also writes DIR/tang_heldout.txt, the held-out poems the C++ test reads)
"""
import argparse
import collections
import copy
import math
import os
import re
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hf_common as hc  # noqa: E402

SOURCES = ["/usr/share/games/fortunes/tang300", "/usr/share/games/fortunes/song100"]
SPECIALS = ["[UNK]", "[BOS]"]
BOS = 1
UNK_RATE = 0.1
# Peak learning rate: at 3e-3 the model memorised the training poems (held-out loss rose past the
# training poems' unigram cross-entropy within 750 steps); 1.5e-3 with checkpoints keeps it general.
PEAK_LR = 1.5e-3
POS_SCALE = 0.1  # sinusoid amplitude: position vectors some three times as long as the token embeddings
HOLD_EVERY = 16  # poem k is held out when k % 16 == 7
# Line-ending and clause punctuation (full-width, as the corpus writes it); BertPreTokenizer makes
# each one a token of its own, so the line structure is visible in every map.
PUNCT = "，。？！；：、"
# Half-width forms a user may type: mapped to the corpus' full-width ones by the normalizer.
ASCII_PUNCT = {",": "，", ".": "。", "?": "？", "!": "！", ";": "；", ":": "："}
ESCAPE = re.compile(r"\x1b\[[0-9;]*m")
PART = re.compile(r"^其[一二三四五六七八九十]+$")


def read_poems(path):
    """The poems of one fortune file as lists of verse lines (title, author and preface dropped).

    Fortunes are separated by lines "%" (one in song100 carries trailing blanks); the title and
    the author lines are wrapped in ANSI colour escapes.  A poem in several parts (其一, 其二)
    becomes several poems.  In tang300 a prose preface is the block before the poem's blank line."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    poems = []
    for entry in re.split(r"\n%[ \t]*\n", text):
        lines = [ESCAPE.sub("", ln).strip().replace("\u3000", "") for ln in entry.split("\n") if "\x1b" not in ln]
        blocks, cur = [], []
        for s in lines + [""]:
            if not s or PART.match(s):
                if cur:
                    blocks.append(cur)
                cur = []
                continue
            cur.append(s)
        if not any(PART.match(s) for s in lines) and len(blocks) > 1:
            blocks = [sum(blocks[1:], [])]  # drop the preface
        poems += blocks
    return poems


def load_corpus():
    poems = []
    for p in SOURCES:
        poems += read_poems(p)
    train = [p for k, p in enumerate(poems) if k % HOLD_EVERY != 7]
    held = [p for k, p in enumerate(poems) if k % HOLD_EVERY == 7]
    return train, held


def chars_of(poem):
    return [c for line in poem for c in line if not c.isspace()]


def build_vocab(poems):
    """Every character of the corpus (held-out poems included, so that they encode without
    [UNK]), most frequent first, ties by code point."""
    counts = collections.Counter(c for p in poems for c in chars_of(p))
    return SPECIALS + sorted(counts, key=lambda c: (-counts[c], ord(c)))


def tokenizer_json(vocab):
    """WordPiece over single characters: BertNormalizer puts blanks around every CJK ideograph and
    BertPreTokenizer splits on blanks and punctuation, so every character is a word of its own.
    The template opens each text with [BOS], as every training poem is opened."""
    tok = lambda i, c: {"id": i, "content": c, "single_word": False, "lstrip": False, "rstrip": False,
                        "normalized": False, "special": True}
    replaces = [{"type": "Replace", "pattern": {"String": a}, "content": b} for a, b in ASCII_PUNCT.items()]
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [tok(0, "[UNK]"), tok(BOS, "[BOS]")],
        "normalizer": {"type": "Sequence", "normalizers": replaces + [
            {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "strip_accents": False,
             "lowercase": False}]},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[BOS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "[BOS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "[BOS]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 0}}],
            "special_tokens": {"[BOS]": {"id": "[BOS]", "ids": [BOS], "tokens": ["[BOS]"]}}},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": False},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": {c: i for i, c in enumerate(vocab)}},
    }


def encode(poem, ids):
    return [BOS] + [ids.get(c, 0) for c in chars_of(poem)]


def regular_verses(poem):
    """The verse length L (5 or 7) when every clause of the poem is L characters followed by one
    punctuation mark, else None: the poems on which "same position in the previous line" is defined."""
    clauses = [c for c in re.split(f"[{PUNCT}]", "".join(poem)) if c]
    if not clauses or "".join(poem)[-1] not in PUNCT:
        return None
    n = len(clauses[0])
    return n if n in (5, 7) and all(len(c) == n for c in clauses) and len(clauses) >= 2 else None


def poem_scores(model, poems, ids, punct_ids):
    """Per layer and head, on the regular held-out poems, averaged over the queries i from the second
    line on (L = 5 or 7 characters a line):
      parallel: weight on key i-(L+1), the same position of the previous line;
      parallel_next: on key i-L, the previous line's character at the position i+1 will take;
      last_punct: on the latest punctuation mark (or [BOS]) before i;
      punct_mass: total weight on punctuation marks; previous: on i-1; sink: on [BOS].
    Also `uniform` (what a head that spread its weight evenly would score for one key) and
    `offsets` [layer][head][d-1], the mean weight on key i-d for d = 1..16 (queries i >= 17)."""
    keys = ["parallel", "parallel_next", "last_punct", "punct_mass", "previous", "sink"]
    sums, offs, n, n_off, uniform = None, None, 0, 0, 0.0
    with torch.no_grad():
        for p in poems:
            L = regular_verses(p)
            if L is None:
                continue
            x = encode(p, ids)[:model.cfg["positions"]]
            _, maps = model(torch.tensor([x]), want_attn=True)
            T = len(x)
            qs = list(range(L + 2, T))  # [BOS] at 0, line 1 at 1..L+1
            is_p = torch.tensor([t in punct_ids for t in x])
            last = [max(k for k in range(i) if k == 0 or is_p[k]) for i in qs]
            qi, ki = torch.tensor(qs), torch.tensor(last)
            per, off = [], []
            for w in maps:
                w = w[0]
                per.append(torch.stack([w[:, qi, qi - L - 1].mean(1), w[:, qi, qi - L].mean(1), w[:, qi, ki].mean(1),
                                        w[:, qi][:, :, is_p].sum(-1).mean(1), w[:, qi, qi - 1].mean(1),
                                        w[:, qi, 0].mean(1)]))
                if T > 17:
                    q = torch.arange(17, T)
                    off.append(torch.stack([w[:, q, q - d].mean(1) for d in range(1, 17)], dim=1))
            per = torch.stack(per)  # [layers, keys, heads]
            sums = per if sums is None else sums + per
            if off:
                off = torch.stack(off)
                offs = off if offs is None else offs + off
                n_off += 1
            uniform += float(torch.mean(1.0 / (qi.float() + 1)))
            n += 1
    sums = sums / n
    scores = [{k: sums[l, a].tolist() for a, k in enumerate(keys)} for l in range(sums.shape[0])]
    return scores, uniform / n, n, (offs / n_off).tolist()


def offset_lines(offsets):
    """Each head's strongest look-back distance d (1..16) and its weight."""
    out = []
    for l, layer in enumerate(offsets):
        for h, prof in enumerate(layer):
            d = max(range(16), key=lambda k: prof[k])
            out.append(f"| {l + 1} | {h + 1} | {d + 1} | {prof[d]:.2f} | " + " ".join(f"{v:.2f}" for v in prof[:9]) + " |")
    return "| layer | head | peak d | weight | d = 1 ... 9 |\n|---|---|---|---|---|\n" + "\n".join(out)


def main():
    ap = hc.common_args(argparse.ArgumentParser(description=__doc__), 400, "resources/models/tang-poems-gpt2")
    ap.add_argument("--eval-every", type=int, default=50,
                    help="steps between held-out checkpoints (loss and head scores); the weights kept are the "
                         "checkpoint's with the lowest held-out loss")
    ap.add_argument("--unk-rate", type=float, default=UNK_RATE, help="share of input characters read as [UNK]")
    ap.add_argument("--max-seconds", type=float, default=0,
                    help="stop training after this many seconds (0: no limit), with a last checkpoint")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    hc.set_seed(args.seed)
    train, held = load_corpus()
    vocab = build_vocab(train + held)
    ids = {c: i for i, c in enumerate(vocab)}
    punct_ids = {ids[c] for c in PUNCT if c in ids}
    stream = [t for p in train for t in encode(p, ids)]
    starts = [i for i, t in enumerate(stream) if t == BOS]
    train_ids = torch.tensor(stream, dtype=torch.long)
    held_ids = torch.tensor([t for p in held for t in encode(p, ids)], dtype=torch.long)
    print(f"{len(train)} train and {len(held)} held-out poems, {len(train_ids)} and {len(held_ids)} tokens, "
          f"{len(vocab)} tokens in the vocabulary", flush=True)
    ctx, batch_size = 128, 12
    model = hc.Gpt2(vocab=len(vocab), positions=ctx, d=128, layers=4, heads=4, inner=512)
    sinusoidal_positions_(model.wpe.weight)
    char_mask = torch.tensor([i >= len(SPECIALS) and c not in PUNCT for i, c in enumerate(vocab)])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.95), weight_decay=0.1)
    gen = torch.Generator().manual_seed(args.seed)
    t0 = time.time()
    log, checkpoints, best = [], [], None
    for step in range(args.steps):
        for g in opt.param_groups:
            g["lr"] = hc.lr_at(step, args.steps, PEAK_LR, 50)
        x = sample_batch(train_ids, starts, batch_size, ctx, gen)
        inp = x[:, :-1].clone()
        # Token dropout (a share of the characters read as [UNK]; punctuation and [BOS] kept): with
        # some 30 000 training characters the model would otherwise memorise the poems, not the form.
        drop = (torch.rand(inp.shape, generator=gen) < args.unk_rate) & char_mask[inp]
        inp[drop] = 0
        logits = model(inp)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 50 == 0 or step == args.steps - 1:
            log.append((step, loss.item()))
            print(f"step {step} train loss {loss.item():.4f} ({time.time() - t0:.0f} s)", flush=True)
        out_of_time = args.max_seconds > 0 and time.time() - t0 > args.max_seconds
        if (step + 1) % args.eval_every == 0 or step == args.steps - 1 or out_of_time:
            checkpoints.append(checkpoint(model, step + 1, held_ids, held, ids, punct_ids, ctx))
            if best is None or checkpoints[-1][1] < best[1]:
                best = (step + 1, checkpoints[-1][1], copy.deepcopy(model.state_dict()))
        if out_of_time:
            print(f"stopped by --max-seconds after {step + 1} of {args.steps} steps", flush=True)
            break
    ran = step + 1
    seconds = time.time() - t0
    model.load_state_dict(best[2])
    kept = best[0]
    hc.round_to_f16_(model)
    model.eval()
    train_loss = mean_loss(model, train_ids[:len(held_ids) + 1], ctx)  # a training stretch as long as held-out
    held_loss = mean_loss(model, held_ids, ctx)
    counts = torch.bincount(held_ids, minlength=len(vocab)).float()
    p = counts[counts > 0] / counts.sum()
    unigram = float(-(p * p.log()).sum())
    # The fair baseline: the training poems' character frequencies (add-half smoothed) predicting the
    # held-out ones. The held-out text's own entropy above knows the held-out counts in advance.
    train_counts = torch.bincount(train_ids, minlength=len(vocab)).float() + 0.5
    train_unigram = float(-(train_counts / train_counts.sum()).log()[held_ids].mean())
    scores, uniform, n_regular, offsets = poem_scores(model, held, ids, punct_ids)
    print(f"final train loss {train_loss:.4f} held-out loss {held_loss:.4f} unigram entropy {unigram:.4f} "
          f"training-unigram cross-entropy {train_unigram:.4f} ({seconds:.0f} s)")
    print(f"held-out regular poems: {n_regular}, uniform parallel weight {uniform:.3f}\n" + hc.score_table(scores))
    print(offset_lines(offsets))
    with torch.no_grad():
        ref_ids = encode(held[0], ids)[:48]
        ref_logits = model(torch.tensor([ref_ids]))[0]
    os.makedirs(args.out, exist_ok=True)
    hc.write_safetensors_f16(os.path.join(args.out, "model.safetensors"), model.hf_tensors())
    hc.write_json(os.path.join(args.out, "config.json"), model.hf_config({"bos_token_id": BOS, "eos_token_id": BOS}))
    hc.write_json(os.path.join(args.out, "tokenizer.json"), tokenizer_json(vocab))
    hc.write_text(os.path.join(args.out, "README.md"),
                  card(args, train, held, len(train_ids), len(held_ids), len(vocab), train_loss, held_loss,
                       (unigram, train_unigram), seconds, log, scores, uniform, n_regular, offsets, checkpoints, kept,
                       ran))
    if args.fixture:
        os.makedirs(args.fixture, exist_ok=True)
        hc.write_reference(os.path.join(args.fixture, "tang-poems-gpt2.npz"), ref_ids, ref_logits)
        hc.write_text(os.path.join(args.fixture, "tang_heldout.txt"), "".join("".join(p) + "\n" for p in held))


def sinusoidal_positions_(w):
    """Initialises the learned position table with Vaswani et al.'s (2017, section 3.5) sinusoids,
    scaled to the token embeddings' size: a shift by k positions is then a linear map, so heads that
    look a fixed distance back (one line, 6 or 8 tokens) are in easy reach from the first step."""
    T, d = w.shape
    pos = torch.arange(T, dtype=torch.float32)[:, None]
    freq = torch.exp(torch.arange(0, d, 2, dtype=torch.float32) * (-math.log(10000.0) / d))
    with torch.no_grad():
        w[:, 0::2] = torch.sin(pos * freq) * POS_SCALE
        w[:, 1::2] = torch.cos(pos * freq) * POS_SCALE


def sample_batch(ids, starts, n, ctx, gen):
    """Three windows in four open at a poem's [BOS] (as every typed text does), the rest anywhere."""
    rows = []
    for b in range(n):
        if b % 4 != 3:
            s = starts[int(torch.randint(0, len(starts), (1,), generator=gen))]
        else:
            s = int(torch.randint(0, len(ids) - ctx - 1, (1,), generator=gen))
        s = min(s, len(ids) - ctx - 1)
        rows.append(ids[s:s + ctx + 1])
    return torch.stack(rows)


def checkpoint(model, step, held_ids, held, ids, punct_ids, ctx):
    """(step, held-out loss, best parallel, best parallel_next, best punct_mass), printed."""
    loss = mean_loss(model, held_ids, ctx)
    scores, uniform, _, _ = poem_scores(model, held, ids, punct_ids)
    top = lambda k: max(v for s in scores for v in s[k])
    row = (step, loss, top("parallel"), top("parallel_next"), top("punct_mass"))
    print(f"checkpoint {step}: held-out loss {loss:.4f}, best head parallel {row[2]:.3f} parallel_next {row[3]:.3f} "
          f"(uniform {uniform:.3f}) punct_mass {row[4]:.2f}", flush=True)
    return row


def mean_loss(model, ids, ctx):
    total, n = 0.0, 0
    with torch.no_grad():
        for s in range(0, len(ids) - 1, ctx):
            x = ids[s:s + ctx + 1]
            if len(x) < 2:
                break
            lg = model(x[:-1].unsqueeze(0))[0]
            total += F.cross_entropy(lg, x[1:], reduction="sum").item()
            n += len(x) - 1
    return total / n


def clear_heads(scores, keys, bar):
    out = []
    for l, s in enumerate(scores):
        for h in range(len(s[keys[0]])):
            for k in keys:
                if s[k][h] >= bar:
                    out.append(f"layer {l + 1} head {h + 1}: {k} {s[k][h]:.2f}")
    return out


def card(args, train, held, n_train, n_held, vocab, train_loss, held_loss, unigrams, seconds, log, scores,
         uniform, n_regular, offsets, checkpoints, kept, ran):
    unigram, train_unigram = unigrams
    stopped = f" (stopped by the time limit; the schedule was for {args.steps})" if ran < args.steps else ""
    curve = "\n".join(f"| {s} | {l:.3f} |" for s, l in log[:: max(1, len(log) // 12)] + [log[-1]])
    best = max(((s["parallel"][h], l, h) for l, s in enumerate(scores) for h in range(len(s["parallel"]))))
    bestn = max(((s["parallel_next"][h], l, h) for l, s in enumerate(scores) for h in range(len(s["parallel"]))))
    bestp = max(((s["last_punct"][h], l, h) for l, s in enumerate(scores) for h in range(len(s["last_punct"]))))
    return f"""# tang-poems-gpt2

A character-level GPT-2 trained by AttnScope's `scripts/models/train_tang_poems.py` on classical
Chinese poems (唐诗三百首 and 宋诗一百首), for classrooms: regular verse (every line 5 or 7
characters, closed by a punctuation mark) shows heads that follow the punctuation ending each line
and heads that look back one line; "What the heads do" says what was measured.

## Data and licence
The poems of Debian's `fortunes-zh` (`/usr/share/games/fortunes/tang300` and `song100`). The package
is GPL-3.0-or-later (Copyright 2001-2009 Yu Guanghui, 2015-2019 Mo Zhou, 2020-2021 xiao sheng wen;
`/usr/share/doc/fortunes-zh/copyright`); the poems themselves are centuries old. Titles, authors
(the lines in colour escapes) and prose prefaces are dropped; a poem in parts (其一, 其二) is several
poems. Every {HOLD_EVERY}th poem is held out: {len(train)} poems ({n_train} tokens) train,
{len(held)} ({n_held} tokens) are held out. The weights are released under GPL-3.0-or-later.

## Tokenizer
One token per character: WordPiece whose vocabulary is the corpus' {vocab - len(SPECIALS)} characters plus
`[UNK]` and `[BOS]`; BertNormalizer (handle_chinese_chars) and BertPreTokenizer make every
character and every punctuation mark (，。？！；：) a word. Half-width `, . ? ! ; :` are mapped to the
full-width marks first. Line breaks are whitespace and vanish: the punctuation marks the lines.
Every text is opened by `[BOS]` (a TemplateProcessing post-processor), as every training poem is.

## Architecture
GPT-2 (`model_type` gpt2): 4 layers x 4 heads, d_model 128 (head size 32), MLP 512 (gelu_new),
128 learned positions, pre-LayerNorm, tied lm_head. Weights in F16.

## Training
AdamW (lr {PEAK_LR:g}, warm-up 50 steps, cosine to {PEAK_LR / 10:g}, weight decay 0.1, gradient clip 1), batch 12 x 128
tokens (three windows in four opening at a poem's `[BOS]`), {ran} steps{stopped}, one CPU thread, {seconds:.0f} s,
seed {args.seed}. The position table starts as sinusoids (Vaswani et al. 2017, section 3.5; amplitude
{POS_SCALE}), so that fixed look-back distances are in easy reach, and is trained from there; a share
of the input characters ({args.unk_rate:g}; never punctuation or `[BOS]`) are read as `[UNK]` (token dropout), because
some 27 000 training characters are easily memorised. Final train loss {train_loss:.3f}, held-out loss
{held_loss:.3f} nats/token. Predicting the held-out poems from the training poems' character
frequencies alone (add-half smoothing) costs {train_unigram:.3f} nats/token; the held-out text's own
unigram entropy, which knows the held-out counts in advance, is {unigram:.3f} nats/token. The
corpus is far too small to learn the words of classical Chinese: the held-out loss says how much
of it is predicted, the heads below what of the form was learned.

| step | train loss |
|---|---|
{curve}

Every {args.eval_every} steps the held-out loss and the best head scores were measured; the weights
shipped are the checkpoint's with the lowest held-out loss (step {kept}), so the held-out loss above is
slightly optimistic (the held-out poems chose the step, though never a gradient):

| step | held-out loss | best parallel | best parallel_next | best punct_mass |
|---|---|---|---|---|
{chr(10).join(f"| {c[0]} | {c[1]:.3f} | {c[2]:.3f} | {c[3]:.3f} | {c[4]:.2f} |" for c in checkpoints)}

## What the heads do
Measured on the {n_regular} held-out poems whose every line has 5 (or every line 7) characters, over the
queries from the second line on (L = 5 or 7): parallel = mean weight on key i-(L+1), the same
position of the previous line; parallel_next = on key i-L, the previous line's character at the
position the next character takes (what a next-character predictor can copy); last_punct = on the latest punctuation mark (or `[BOS]`) before i;
punct_mass = total weight on punctuation marks; previous = on i-1; sink = on `[BOS]`. A head that
spread its weight evenly over the keys would score {uniform:.3f} for parallel (and about 1/(L+1),
0.13-0.17, for punct_mass).

{hc.score_table(scores)}

Each head's look-back profile: mean weight on key i-d (queries i >= 17), its peak distance and
the weights for d = 1 to 9 (a line back is d = 6 or 8 for 5- or 7-character verse):

{offset_lines(offsets)}

Best parallel head: layer {best[1] + 1} head {best[2] + 1} ({best[0]:.2f}, {best[0] / uniform:.1f} x uniform); best
parallel_next head: layer {bestn[1] + 1} head {bestn[2] + 1} ({bestn[0]:.2f}, {bestn[0] / uniform:.1f} x uniform). Best
last-punctuation head: layer {bestp[1] + 1} head {bestp[2] + 1} ({bestp[0]:.2f}).
Clear heads (score >= 0.3): {"; ".join(clear_heads(scores, ["parallel", "parallel_next", "last_punct", "previous", "sink"], 0.3)) or "none"}.
"""


if __name__ == "__main__":
    main()
