#!/usr/bin/python3
"""Trains `austen-gpt2`: a small GPT-2 on Jane Austen's six novels (Debian's r-cran-janeaustenr,
public domain), with a byte-level BPE vocabulary trained on the same text by this script.

The held-out text is the last chapters of Persuasion (never seen in training).
Usage: /usr/bin/python3 scripts/models/train_austen_gpt2.py [--steps N] [--out DIR] [--threads N]
"""
import argparse
import collections
import math
import os
import re
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hf_common as hc  # noqa: E402

BOOKS = ["Sense & Sensibility", "Pride & Prejudice", "Mansfield Park", "Emma", "Northanger Abbey", "Persuasion"]
HELD_OUT_FROM = "Chapter 23"  # Persuasion's last two chapters, 23 and 24 (the R package's chapter headings)

# GPT-2's pre-tokenizer pattern (Radford et al. 2019, encoder.py) in Python's `re`, which lacks \p{L}:
# [^\W\d_] is a letter, \d a digit. Used only to count words while training the merges; the shipped
# tokenizer.json uses the ByteLevel pre-tokenizer itself.
GPT2_SPLIT = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[^\W\d_]+| ?\d+| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+""")


def bytes_to_unicode():
    """GPT-2's byte-to-character table: printable bytes map to themselves, the rest to U+0100..."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


BYTE_CHARS = bytes_to_unicode()


def export_books():
    """Each novel's text from janeaustenr, one paragraph a line (the package gives one printed line a row)."""
    script = ("library(janeaustenr); d <- austen_books(); "
              "for (b in levels(d$book)) { cat('\\x01BOOK ', b, '\\n', sep=''); writeLines(as.character(d$text[d$book==b])) }")
    out = subprocess.run(["Rscript", "-e", script], check=True, capture_output=True, text=True).stdout
    books, cur = {}, None
    for line in out.split("\n"):
        if line.startswith("\x01BOOK "):
            cur = line[6:]
            books[cur] = []
        elif cur is not None:
            books[cur].append(line)
    result = {}
    for b, lines in books.items():
        paras, para = [], []
        for ln in lines + [""]:
            if ln.strip():
                para.append(ln.strip())
            elif para:
                paras.append(" ".join(para))
                para = []
        result[b] = "\n".join(paras) + "\n"
    return result


def split_books(books):
    """(training text, held-out text): Persuasion from HELD_OUT_FROM to its end is held out.

    The other bundled Austen models (train_austen_bert.py) import this, so that all hold out the same text."""
    pers = books["Persuasion"]
    cut = pers.index(HELD_OUT_FROM)
    return "".join(books[b] for b in BOOKS if b != "Persuasion") + pers[:cut], pers[cut:]


def train_bpe(text, vocab_size):
    """Byte-level BPE training (Sennrich et al. 2016) over word counts, with incremental pair counts.

    Ties break towards the lexicographically smallest pair, so the result is deterministic."""
    words = collections.Counter(GPT2_SPLIT.findall(text))
    seqs = [[BYTE_CHARS[b] for b in w.encode("utf-8")] for w in words]
    freq = [words[w] for w in words]
    pairs = collections.Counter()
    where = collections.defaultdict(set)
    for i, s in enumerate(seqs):
        for a, b in zip(s, s[1:]):
            pairs[(a, b)] += freq[i]
            where[(a, b)].add(i)
    vocab = list(BYTE_CHARS.values())
    merges = []
    while len(vocab) < vocab_size and pairs:
        best = max(pairs.items(), key=lambda kv: (kv[1], tuple(-ord(c) for c in kv[0][0] + "\0" + kv[0][1])))[0]
        if pairs[best] < 2:
            break
        merged = best[0] + best[1]
        merges.append(best)
        vocab.append(merged)
        for i in list(where[best]):
            s = seqs[i]
            for a, b in zip(s, s[1:]):
                pairs[(a, b)] -= freq[i]
                if pairs[(a, b)] <= 0:
                    del pairs[(a, b)]
                where[(a, b)].discard(i)
            j, out = 0, []
            while j < len(s):
                if j + 1 < len(s) and s[j] == best[0] and s[j + 1] == best[1]:
                    out.append(merged)
                    j += 2
                else:
                    out.append(s[j])
                    j += 1
            seqs[i] = out
            for a, b in zip(out, out[1:]):
                pairs[(a, b)] += freq[i]
                where[(a, b)].add(i)
        where.pop(best, None)
    return vocab, merges


class BpeEncoder:
    """Encodes with the learned merges (lowest rank first), as the library's BPE model does."""

    def __init__(self, vocab, merges):
        self.ids = {t: i for i, t in enumerate(vocab)}
        self.rank = {m: r for r, m in enumerate(merges)}
        self.cache = {}

    def word(self, w):
        if w in self.cache:
            return self.cache[w]
        s = [BYTE_CHARS[b] for b in w.encode("utf-8")]
        while len(s) > 1:
            cands = [(self.rank.get((a, b), 1 << 30), k) for k, (a, b) in enumerate(zip(s, s[1:]))]
            r, k = min(cands)
            if r == 1 << 30:
                break
            s = s[:k] + [s[k] + s[k + 1]] + s[k + 2:]
        ids = [self.ids[t] for t in s]
        self.cache[w] = ids
        return ids

    def encode(self, text):
        out = []
        for w in GPT2_SPLIT.findall(text):
            out += self.word(w)
        return out


def tokenizer_json(vocab, merges):
    eot = len(vocab)
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": eot, "content": "<|endoftext|>", "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": True, "special": True}],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False,
                  "vocab": {**{t: i for i, t in enumerate(vocab)}, "<|endoftext|>": eot},
                  "merges": [a + " " + b for a, b in merges]},
    }


def main():
    ap = hc.common_args(argparse.ArgumentParser(description=__doc__), 1500, "resources/models/austen-gpt2")
    ap.add_argument("--vocab", type=int, default=int(os.environ.get("ATTN_BPE_VOCAB", "2048")))
    ap.add_argument("--heldout-text", default=None, help="write the held-out text here (the C++ test's fixture)")
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--d", type=int, default=128)
    ap.add_argument("--ctx", type=int, default=128)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--lr", type=float, default=4e-3)
    ap.add_argument("--every", type=int, default=250, help="steps between head-score checkpoints")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    hc.set_seed(args.seed)
    t0 = time.time()
    train_text, held_text = split_books(export_books())
    vocab, merges = train_bpe(train_text, args.vocab - 1)
    enc = BpeEncoder(vocab, merges)
    eot = len(vocab)
    train_ids = torch.tensor(enc.encode(train_text), dtype=torch.long)
    held_ids = torch.tensor(enc.encode(held_text), dtype=torch.long)
    print(f"BPE: {len(vocab) + 1} tokens, {len(train_ids)} train and {len(held_ids)} held-out tokens "
          f"({time.time() - t0:.0f} s)", flush=True)
    ctx, batch_size = args.ctx, args.batch
    model = hc.Gpt2(vocab=eot + 1, positions=ctx, d=args.d, layers=args.layers, heads=args.heads, inner=4 * args.d)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.95), weight_decay=0.05)
    gen = torch.Generator().manual_seed(args.seed)
    t1 = time.time()
    log = []
    for step in range(args.steps):
        for g in opt.param_groups:
            g["lr"] = hc.lr_at(step, args.steps, args.lr, min(100, max(1, args.steps // 20)))
        starts = torch.randint(0, len(train_ids) - ctx - 1, (batch_size,), generator=gen)
        x = torch.stack([train_ids[s:s + ctx + 1] for s in starts.tolist()])
        logits = model(x[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 50 == 0 or step == args.steps - 1:
            log.append((step, loss.item()))
            print(f"step {step} train loss {loss.item():.4f} ({time.time() - t1:.0f} s)", flush=True)
        if args.every and step % args.every == args.every - 1:
            checkpoint(model, held_ids, ctx, eot, args.seed)
    seconds = time.time() - t1
    hc.round_to_f16_(model)
    model.eval()
    train_loss = mean_loss(model, train_ids[-len(held_ids) - 1:], ctx)  # the last training stretch
    held_loss = mean_loss(model, held_ids, ctx)
    counts = torch.bincount(held_ids, minlength=eot + 1).float()
    p = counts[counts > 0] / counts.sum()
    unigram = float(-(p * p.log()).sum())
    print(f"final train loss {train_loss:.4f} held-out loss {held_loss:.4f} unigram entropy {unigram:.4f} "
          f"({seconds:.0f} s)")
    with torch.no_grad():
        probe_gen = torch.Generator().manual_seed(args.seed + 3)
        probe = torch.randint(256, eot, (32, 32), generator=probe_gen)
        _, maps = model(torch.cat([probe, probe], 1), want_attn=True)
        rand_scores = hc.head_scores(maps, period=32)
        text_ids = held_ids[:ctx].unsqueeze(0)
        _, tmaps = model(text_ids, want_attn=True)
        text_scores = hc.head_scores(tmaps)
        ref_ids = held_ids[:48].tolist()
        ref_logits = model(torch.tensor([ref_ids]))[0]
    print("repeated random tokens:\n" + hc.score_table(rand_scores))
    print("clear heads:", "; ".join(hc.describe_heads(rand_scores)))
    print("held-out text:\n" + hc.score_table(text_scores))
    os.makedirs(args.out, exist_ok=True)
    hc.write_safetensors_f16(os.path.join(args.out, "model.safetensors"), model.hf_tensors())
    hc.write_json(os.path.join(args.out, "config.json"), model.hf_config({"bos_token_id": eot, "eos_token_id": eot}))
    hc.write_json(os.path.join(args.out, "tokenizer.json"), tokenizer_json(vocab, merges))
    hc.write_text(os.path.join(args.out, "README.md"),
                  card(args, len(train_ids), len(held_ids), train_loss, held_loss, unigram, seconds, log,
                       rand_scores, text_scores, eot + 1))
    if args.fixture:
        os.makedirs(args.fixture, exist_ok=True)
        hc.write_reference(os.path.join(args.fixture, "austen-gpt2.npz"), ref_ids, ref_logits)
    if args.heldout_text:
        hc.write_text(args.heldout_text, held_text[:12000].rsplit("\n", 1)[0] + "\n")


def probe_and_text_scores(model, held_ids, ctx, eot, seed, n=32):
    """Head scores on `n` sequences of ctx/4 random tokens repeated once, and on held-out text."""
    with torch.no_grad():
        half = ctx // 4
        probe = torch.randint(256, eot, (n, half), generator=torch.Generator().manual_seed(seed + 3))
        _, maps = model(torch.cat([probe, probe], 1), want_attn=True)
        rand_scores = hc.head_scores(maps, period=half)
        _, tmaps = model(held_ids[:ctx].unsqueeze(0), want_attn=True)
        text_scores = hc.head_scores(tmaps)
    return rand_scores, text_scores


def checkpoint(model, held_ids, ctx, eot, seed):
    """Prints when structure appears: held-out loss and the heads scoring >= 0.3."""
    model.eval()
    rand_scores, text_scores = probe_and_text_scores(model, held_ids, ctx, eot, seed, 8)
    held = mean_loss(model, held_ids[:4 * ctx + 1], ctx)
    model.train()
    print(f"  held-out loss {held:.3f}; repeated: {'; '.join(hc.describe_heads(rand_scores, 0.3)) or '-'}; "
          f"text: {'; '.join(hc.describe_heads(text_scores, 0.3)) or '-'}", flush=True)


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


def card(args, n_train, n_held, train_loss, held_loss, unigram, seconds, log, rand_scores, text_scores, vocab):
    curve = "\n".join(f"| {s} | {l:.3f} |" for s, l in log[:: max(1, len(log) // 12)] + [log[-1]])
    sharp = hc.describe_heads(rand_scores, 0.3) + hc.describe_heads(text_scores, 0.3)
    structure = ("; heads reaching 0.3: " + "; ".join(sharp) + "." if sharp else
                 ", but the attention is still near uniform: no head reaches 0.3 on\nany score below. "
                 "Sharp heads need more training than this budget gives.")
    return f"""# austen-gpt2

A small GPT-2 trained by AttnScope's `scripts/models/train_austen_gpt2.py` on Jane Austen's six
novels, so that the first window shows attention a model actually learned.

## Data and licence
Jane Austen's novels as Debian's `r-cran-janeaustenr` packages them (public domain; the package is
MIT-licensed), exported with `Rscript`, one paragraph per line. Training: all six novels except the
last two chapters of *Persuasion* ({n_train} tokens); held out: *Persuasion* from "{HELD_OUT_FROM}" to the
end ({n_held} tokens). The weights are released under the project's licence (GPL-3.0-or-later).

## Tokenizer
Byte-level BPE (GPT-2's pre-tokenizer and byte alphabet), {vocab} tokens including `<|endoftext|>`,
merges learned on the training text by the script (deterministic ties).

## Architecture
GPT-2 (`model_type` gpt2): {args.layers} layers x {args.heads} heads, d_model {args.d} (head size
{args.d // args.heads}), MLP {4 * args.d} (gelu_new), {args.ctx} learned positions, pre-LayerNorm, tied lm_head.
Weights in F16.

Why this size: the budget is about half an hour on one CPU thread while other work shares the
machine (about {seconds / max(1, args.steps):.2f} s a step here). The suggested 4-6 layers x 4-8 heads at
d_model 256-384 and 256 positions would run only a few hundred steps in that time; a narrower
model takes more, cheaper steps. That lowers the held-out loss (4.61 nats/token for the first
3 x 192 model after 400 steps){structure}

## Training
AdamW (lr {args.lr:g}, warm-up {min(100, max(1, args.steps // 20))} steps, cosine to {args.lr / 10:g}, weight decay 0.05,
gradient clip 1), batch {args.batch} x {args.ctx} tokens, {args.steps} steps, one CPU thread, {seconds:.0f} s, seed {args.seed}.
Final train loss {train_loss:.3f}, held-out loss {held_loss:.3f} nats/token; the held-out text's own
unigram entropy is {unigram:.3f} nats/token.

| step | train loss |
|---|---|
{curve}

## What the heads do
On 32 sequences of 32 random tokens repeated once (period 32):

{hc.score_table(rand_scores)}

Clear heads: {"; ".join(hc.describe_heads(rand_scores)) or "none above 0.4"}.

On the first 128 held-out tokens:

{hc.score_table(text_scores)}

Clear heads: {"; ".join(hc.describe_heads(text_scores)) or "none above 0.4"}.
"""


if __name__ == "__main__":
    main()
