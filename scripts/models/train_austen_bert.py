#!/usr/bin/python3
"""Trains `austen-bert`: a small BERT masked-language model (Devlin et al. 2019) on Jane Austen's six
novels (Debian's r-cran-janeaustenr, public domain), with a WordPiece vocabulary trained on the same
text by this script.

The data export and the held-out text (Persuasion's last two chapters) are train_austen_gpt2.py's.
Usage: /usr/bin/python3 scripts/models/train_austen_bert.py [--steps N] [--out DIR] [--threads N]
       [--fixture DIR]
"""
import argparse
import collections
import heapq
import os
import re
import sys
import time
import unicodedata


def _blas_threads(argv):
    """The --threads value, set for OpenBLAS before numpy or torch load it: Debian's torch does its
    matrix products in OpenBLAS, which starts a thread per core whatever torch.set_num_threads says,
    and on a shared CPU those threads wait on each other (a 2-3x slower step)."""
    n = "1"
    for i, a in enumerate(argv):
        if a == "--threads" and i + 1 < len(argv):
            n = argv[i + 1]
        elif a.startswith("--threads="):
            n = a.split("=", 1)[1]
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        os.environ.setdefault(var, n)


_blas_threads(sys.argv)

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hf_common as hc  # noqa: E402
import train_austen_gpt2 as austen  # noqa: E402

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
PAD, UNK, CLS, SEP, MASK = range(len(SPECIALS))
PREFIX = "##"  # WordPiece's continuing-subword prefix
MAX_WORD = 100  # max_input_chars_per_word: a longer word is [UNK]
SEQ = 64  # --seq; max_position_embeddings
# --lr: 3e-3 with 70 warm-up steps left this post-LN model on the unigram plateau (always ",") after
# 700 steps; a lower peak with a longer warm-up lets it leave (Xiong et al. 2020 on post-LN warm-up).
PEAK_LR = 1e-3
# --weight-decay: AdamW's decoupled decay on the matrices. Gu et al. (2025, "When attention sink
# emerges in language models") report that a larger decay promotes attention sinks. On this model
# 0.1 did not: 6000 steps with 8 heads a layer (--dims 4,8,128,512) left the heads of layers 3-4
# spreading their weight almost evenly, at most 0.06 of it on [SEP], while the held-out loss fell to
# 3.70. A near-uniform head is the cheaper no-op here: its average of the values still helps the
# masked LM, and the decay shrinks its query and key maps (layers 3-4: Frobenius norms 8.3-8.6,
# against 11.3 at initialisation and 11.0-11.4 after the shipped run at 0.01).
WEIGHT_DECAY = 0.01

# ----------------------------------------------------------------------------- tokenizer
# Debian has no Python `tokenizers`, so the normalizer, the pre-tokenizer, the WordPiece trainer and
# the encoder are written here, after the library's BertNormalizer, BertPreTokenizer, WordPieceTrainer
# and WordPiece model. The shipped tokenizer.json names the library's own components; the C++ test
# checks that AttnScope's tokenizer gives npm tokenizers' ids on it.


def _is_cjk(cp):
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF or 0x2A700 <= cp <= 0x2B73F
            or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF or 0xF900 <= cp <= 0xFAFF
            or 0x2F800 <= cp <= 0x2FA1F)


def normalize(text):
    """BertNormalizer(clean_text, handle_chinese_chars, strip_accents None -> as lowercase, lowercase)."""
    out = []
    for c in text:
        cp = ord(c)
        if cp == 0 or cp == 0xFFFD or (c not in "\t\n\r" and unicodedata.category(c)[0] == "C"):
            continue
        if c in "\t\n\r" or c.isspace():
            out.append(" ")
        elif _is_cjk(cp):
            out.append(" " + c + " ")
        else:
            out.append(c)
    text = unicodedata.normalize("NFD", "".join(out))
    return "".join(c for c in text if unicodedata.category(c) != "Mn").lower()


def _is_punct(c):
    # BertPreTokenizer's is_bert_punc: ASCII punctuation or a Unicode P* character.
    return (c.isascii() and not c.isalnum() and c.isprintable() and not c.isspace()) or \
        unicodedata.category(c).startswith("P")


def pre_tokenizer(text):
    """A function splitting on whitespace and isolating each punctuation character (BertPreTokenizer),
    built for the characters of `text`."""
    punct = sorted({c for c in set(text) if _is_punct(c)})
    cls = "".join(re.escape(c) for c in punct)
    pattern = re.compile(f"[{cls}]|[^\\s{cls}]+" if cls else r"\S+")
    return pattern.findall


def train_wordpiece(words, vocab_size):
    """WordPiece vocabulary as the library's WordPieceTrainer learns it: BPE merges (Sennrich et al. 2016)
    over word counts where every character but a word's first carries the "##" prefix; a merged token
    keeps its left part's prefix. A heap with lazy deletion picks the most frequent pair; ties go to the
    lexicographically smallest pair, so the result is deterministic."""
    seqs, freq = [], []
    for w, n in sorted(words.items()):
        if len(w) <= MAX_WORD:
            seqs.append([w[0]] + [PREFIX + c for c in w[1:]])
            freq.append(n)
    vocab = SPECIALS + sorted({t for s in seqs for t in s})
    known = set(vocab)
    pairs = collections.Counter()
    where = collections.defaultdict(set)
    for i, s in enumerate(seqs):
        for a, b in zip(s, s[1:]):
            pairs[(a, b)] += freq[i]
            where[(a, b)].add(i)
    heap = [(-n, p) for p, n in pairs.items()]
    heapq.heapify(heap)
    while len(vocab) < vocab_size and heap:
        n, best = heapq.heappop(heap)
        if pairs.get(best, 0) != -n:
            continue  # stale entry
        if -n < 2:
            break
        merged = best[0] + best[1][len(PREFIX):]
        if merged not in known:
            vocab.append(merged)
            known.add(merged)
        touched = set()
        for i in list(where[best]):
            s = seqs[i]
            for a, b in zip(s, s[1:]):
                pairs[(a, b)] -= freq[i]
                where[(a, b)].discard(i)
                touched.add((a, b))
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
                touched.add((a, b))
        for p in touched:
            if pairs[p] > 0:
                heapq.heappush(heap, (-pairs[p], p))
            else:
                del pairs[p]
                where.pop(p, None)
    return vocab


class WordPieceEncoder:
    """Greedy longest-match-first WordPiece (Wu et al. 2016; the library's WordPiece model)."""

    def __init__(self, vocab, split):
        self.ids = {t: i for i, t in enumerate(vocab)}
        self.split = split
        self.cache = {}

    def word(self, w):
        if w in self.cache:
            return self.cache[w]
        out, start = [], 0
        if len(w) > MAX_WORD:
            out = [UNK]
        while start < len(w) and out != [UNK]:
            end, cur = len(w), None
            while start < end:
                piece = (PREFIX if start > 0 else "") + w[start:end]
                if piece in self.ids:
                    cur = self.ids[piece]
                    break
                end -= 1
            if cur is None:
                out = [UNK]
                break
            out.append(cur)
            start = end
        self.cache[w] = out
        return out

    def encode(self, text):
        ids = []
        for w in self.split(normalize(text)):
            ids += self.word(w)
        return ids


def tokenizer_json(vocab):
    added = [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False,
              "special": True} for i, t in enumerate(SPECIALS)]
    cls, sep = {"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}
    single = [cls, {"Sequence": {"id": "A", "type_id": 0}}, sep]
    pair = single + [{"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}]
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {"type": "TemplateProcessing", "single": single, "pair": pair,
                           "special_tokens": {t: {"id": t, "ids": [SPECIALS.index(t)], "tokens": [t]}
                                              for t in ("[CLS]", "[SEP]")}},
        "decoder": {"type": "WordPiece", "prefix": PREFIX, "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": PREFIX,
                  "max_input_chars_per_word": MAX_WORD, "vocab": {t: i for i, t in enumerate(vocab)}},
    }


def tokenizer_config():
    return {"tokenizer_class": "BertTokenizerFast", "do_lower_case": True, "model_max_length": SEQ,
            "unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]", "cls_token": "[CLS]",
            "mask_token": "[MASK]"}


# ----------------------------------------------------------------------------- data
class PairSampler:
    """BERT's pre-training inputs (Devlin et al. 2019, section 3.1 and appendix A.2) without next-sentence
    prediction, which RoBERTa found unneeded (Liu et al. 2019): half the rows are "[CLS] A [SEP] B [SEP]"
    with A and B consecutive text split at a sentence end (token types 0 and 1), half "[CLS] A [SEP]";
    a fifth are shorter than SEQ, padded, so short inputs are in distribution too."""

    def __init__(self, stream, ends, seed, short=0.0):
        # --short-rows: the share of rows cut to at most SHORT tokens at every row length. The [SEP]
        # heads of the runs at lr 3e-3 formed in rows of 16 and faded as the rows grew to 64: a no-op
        # head (Clark et al. 2019, sec. 3.2) parks on [SEP] when its pattern finds no target, which
        # short rows keep frequent.
        self.short = short
        self.stream = stream
        self.ends = ends
        self.rng = np.random.default_rng(seed)
        self.starts = np.array([0] + [i + 1 for i, t in enumerate(stream[:-SEQ]) if t in ends])

    def row(self, limit):
        L = limit if self.rng.random() > 0.2 else int(self.rng.integers(min(12, limit - 1), limit))
        if self.short and self.rng.random() < self.short:
            L = min(L, SHORT)
        pair = self.rng.random() < 0.5
        n = L - (3 if pair else 2)
        s = int(self.starts[self.rng.integers(len(self.starts))])
        body = self.stream[s:s + n]
        if not pair:
            return [CLS] + body + [SEP], [0] * (n + 2)
        cands = [i + 1 for i in range(n // 4, 3 * n // 4) if body[i] in self.ends]
        cut = cands[int(self.rng.integers(len(cands)))] if cands else n // 2
        a, b = body[:cut], body[cut:]
        return [CLS] + a + [SEP] + b + [SEP], [0] * (len(a) + 2) + [1] * (len(b) + 1)

    def batch(self, size, limit=None):
        """`size` rows of at most `limit` tokens (default SEQ)."""
        limit = limit or SEQ
        ids = torch.full((size, limit), PAD, dtype=torch.long)
        types = torch.zeros((size, limit), dtype=torch.long)
        for r in range(size):
            x, t = self.row(limit)
            ids[r, :len(x)] = torch.tensor(x)
            types[r, :len(t)] = torch.tensor(t)
        return ids, types


SHORT = 16  # tokens per row at the start of training


def row_length(step, steps):
    """Sequence-length warm-up (Li et al. 2022, "The stability-efficiency dilemma"): rows of SHORT
    tokens for the first fifth of the steps, growing to SEQ by the half, the same tokens per step.
    In a row of 64 a [MASK] first sees the uniform average of 63 tokens, in which its neighbours are
    lost: this model sat at the unigram loss for 1750 steps; in rows of 16 it leaves it in a few hundred."""
    t = min(1.0, max(0.0, (step / max(1, steps) - 0.2) / 0.3))
    return int(round(SHORT + (SEQ - SHORT) * t)) if SEQ > SHORT else SEQ


def mask_tokens(ids, vocab, gen):
    """BERT's masking: 15% of the real tokens are predicted; of those 80% become [MASK], 10% a random
    token, 10% stay (Devlin et al. 2019, section 3.1). Returns (inputs, chosen positions)."""
    real = (ids != PAD) & (ids != CLS) & (ids != SEP)
    chosen = (torch.rand(ids.shape, generator=gen) < 0.15) & real
    r = torch.rand(ids.shape, generator=gen)
    x = ids.clone()
    x[chosen & (r < 0.8)] = MASK
    rnd = chosen & (r >= 0.8) & (r < 0.9)
    x[rnd] = torch.randint(len(SPECIALS), vocab, (int(rnd.sum()),), generator=gen)
    return x, chosen


def eval_chunks(ids, period=7):
    """Deterministic evaluation: [CLS] chunk [SEP] rows of SEQ, every `period`-th token replaced by [MASK],
    `period` shifted passes, so that each token is predicted once, from a context with 1/period masked.
    tests/core/models/bundled_models_test.cpp does the same in C++."""
    n = SEQ - 2
    for s in range(0, len(ids), n):
        chunk = ids[s:s + n]
        for r in range(period):
            pos = [i for i in range(len(chunk)) if i % period == r]
            if not pos:
                continue
            x = [CLS] + [MASK if i % period == r else t for i, t in enumerate(chunk)] + [SEP]
            yield x, [p + 1 for p in pos], [chunk[p] for p in pos]


def evaluate(model, ids, batch=32):
    """(mean cross-entropy in nats, top-1 accuracy) at the masks of eval_chunks, rows padded to SEQ."""
    loss, right, n = 0.0, 0, 0
    rows = list(eval_chunks(ids))
    with torch.no_grad():
        for b in range(0, len(rows), batch):
            part = rows[b:b + batch]
            x = torch.full((len(part), SEQ), PAD, dtype=torch.long)
            for r, (ids_r, _, _) in enumerate(part):
                x[r, :len(ids_r)] = torch.tensor(ids_r)
            h, _ = model.encode(x, (x != PAD).long())
            at_r = torch.tensor([r for r, (_, pos, _) in enumerate(part) for _ in pos])
            at_p = torch.tensor([p for _, pos, _ in part for p in pos])
            want = torch.tensor([t for _, _, w in part for t in w])
            lg = model.mlm_logits(h[at_r, at_p])
            loss += F.cross_entropy(lg, want, reduction="sum").item()
            right += int((lg.argmax(-1) == want).sum())
            n += len(want)
    return loss / n, right / n


def unigram_baseline(train_ids, held_ids, vocab):
    """The unigram model of the training text (add-one smoothed) on every held-out token: its
    cross-entropy and how often its single guess, the most frequent training token, is right."""
    counts = torch.bincount(torch.tensor(train_ids), minlength=vocab).double()[:vocab] + 1
    counts[:len(SPECIALS)] = 0
    p = counts / counts.sum()
    t = torch.tensor(held_ids)
    top = int(p.argmax())
    return float(-p[t].log().mean()), float((t == top).double().mean()), top


# ----------------------------------------------------------------------------- heads
def head_shares(model, rows, punct_ids):
    """Per layer and head, means over the real query tokens of rows [(ids, types)] of the weight on
    [CLS], on the [SEP] tokens and on "." and "," (Clark et al. 2019, section 3), and the previous-,
    next-token and self scores (weight on key i-1, i+1, i)."""
    sums, count = None, 0
    with torch.no_grad():
        for ids, types in rows:
            x = torch.tensor([ids])
            _, maps = model.encode(x, types=torch.tensor([types]), want_attn=True)
            n = len(ids)
            i = torch.arange(1, n - 1)
            sep = x[0] == SEP
            pun = torch.isin(x[0], torch.tensor(punct_ids))
            per = []
            for w in maps:
                w = w[0]  # [H, n, n]
                per.append(torch.stack([w[:, :, 0].mean(1), w[:, :, sep].sum(-1).mean(1),
                                        w[:, :, pun].sum(-1).mean(1), w[:, i, i - 1].mean(1),
                                        w[:, i, i + 1].mean(1), w[:, i, i].mean(1)]))
            per = torch.stack(per)  # [L, 6, H]
            sums = per if sums is None else sums + per
            count += 1
    mean = sums / count
    keys = ["cls", "sep", "punct", "previous", "next", "self"]
    return [{k: mean[l, j].tolist() for j, k in enumerate(keys)} for l in range(mean.shape[0])]


def largest_sinks(scores):
    """For "sep" and "cls": (the largest share of a head's weight on that token, layer, head), 1-based."""
    out = {}
    for key in ("sep", "cls"):
        out[key] = max((s[key][h], l + 1, h + 1) for l, s in enumerate(scores) for h in range(len(s[key])))
    return out


def held_rows(held_ids, ends, count):
    """Pairs "[CLS] A [SEP] B [SEP]" of consecutive held-out text (A and B ending at sentence ends)."""
    rows, s = [], 0
    while len(rows) < count and s + SEQ < len(held_ids):
        body = held_ids[s:s + SEQ - 3]
        cuts = [i + 1 for i, t in enumerate(body) if t in ends]
        if len(cuts) < 2:
            s += SEQ
            continue
        a, b = body[:cuts[len(cuts) // 2 - 1]], body[cuts[len(cuts) // 2 - 1]:cuts[-1]]
        rows.append(([CLS] + a + [SEP] + b + [SEP], [0] * (len(a) + 2) + [1] * (len(b) + 1)))
        s += cuts[-1]
    return rows


# ----------------------------------------------------------------------------- main
def main():
    global SEQ, PEAK_LR
    ap = hc.common_args(argparse.ArgumentParser(description=__doc__), 3000, "resources/models/austen-bert")
    # The defaults are those of the shipped model (its model card).
    ap.add_argument("--vocab", type=int, default=int(os.environ.get("ATTN_WORDPIECE_VOCAB", "2048")))
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=PEAK_LR)
    ap.add_argument("--seq", type=int, default=SEQ)
    ap.add_argument("--dims", default="4,4,128,512", help="layers,heads,hidden,mlp")
    ap.add_argument("--warmup", type=int, default=None, help="warm-up steps (default: a tenth, at most 400)")
    ap.add_argument("--probe-every", type=int, default=250, help="steps between held-out probes")
    ap.add_argument("--weight-decay", type=float, default=WEIGHT_DECAY)
    ap.add_argument("--qk-decay", type=float, default=None,
                    help="weight decay on the query and key maps (default: --weight-decay)")
    ap.add_argument("--sink-steps", type=int, default=0,
                    help="steps of a first phase at --sink-lr on rows of 16 tokens before the schedule")
    ap.add_argument("--sink-lr", type=float, default=3e-3)
    ap.add_argument("--sink-rows", type=int, default=SHORT, help="tokens per row in the first phase")
    ap.add_argument("--short-rows", type=float, default=0.0,
                    help="share of rows cut to at most 16 tokens at every row length")
    args = ap.parse_args()
    SEQ, PEAK_LR = args.seq, args.lr
    torch.set_num_threads(args.threads)
    hc.set_seed(args.seed)
    t0 = time.time()
    train_text, held_text = austen.split_books(austen.export_books())
    split = pre_tokenizer(normalize(train_text + held_text))
    words = collections.Counter(split(normalize(train_text)))
    vocab = train_wordpiece(words, args.vocab)
    enc = WordPieceEncoder(vocab, split)
    train_ids = [t for para in train_text.split("\n") for t in enc.encode(para)]
    held_ids = [t for para in held_text.split("\n") for t in enc.encode(para)]
    V = len(vocab)
    ends = {enc.ids[c] for c in ".!?" if c in enc.ids}
    print(f"WordPiece: {V} tokens, {len(train_ids)} train and {len(held_ids)} held-out tokens, "
          f"{sum(t == UNK for t in train_ids)} [UNK] ({time.time() - t0:.0f} s)", flush=True)

    layers, heads, d, inner = (int(v) for v in args.dims.split(","))
    model = hc.Bert(vocab=V, positions=SEQ, d=d, layers=layers, heads=heads, inner=inner, fan_in_init=True,
                    sinusoid_init=True)
    # The decoder's bias starts at the training text's log unigram (Karpathy 2019, "A recipe for training
    # neural networks": initialise the last layer's bias to the prior). From zero, Adam moves each entry
    # by about lr a step, so at lr 1e-3 the 10-nat spread of word frequencies alone takes thousands of
    # steps, spent before the model can use any context.
    with torch.no_grad():
        counts = torch.bincount(torch.tensor(train_ids), minlength=V)[:V].double() + 1
        model.head_bias.copy_((counts / counts.sum()).log().float())
    # --qk-decay: a head that rests on [SEP] needs a large gap between the [SEP] logit q.k_sep and the
    # others, that is large query and key maps, which the decoupled decay shrinks (Loshchilov & Hutter
    # 2019, Algorithm 2 line 12: theta -= lr * lambda * theta on every matrix, whatever its gradient).
    qk = (lambda n: re.search(r"\.(q|k)\.weight$", n) is not None) if args.qk_decay is not None else (lambda n: False)
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2 and not qk(n)]
    qk_maps = [p for n, p in model.named_parameters() if p.dim() >= 2 and qk(n)]
    rest = [p for n, p in model.named_parameters() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": args.weight_decay}]
    if qk_maps:
        groups.append({"params": qk_maps, "weight_decay": args.qk_decay})
    opt = torch.optim.AdamW(groups + [{"params": rest, "weight_decay": 0.0}],
                            lr=1e-3, betas=(0.9, 0.98), eps=1e-6)
    sampler = PairSampler(train_ids, ends, args.seed, args.short_rows)
    punct_ids = [enc.ids[c] for c in ".," if c in enc.ids]
    probe_rows = held_rows(held_ids, ends, 12)
    gen = torch.Generator().manual_seed(args.seed + 1)
    warmup = args.warmup if args.warmup is not None else max(1, min(400, args.steps // 10))
    args.warmup = warmup
    log, t1 = [], time.time()
    # --sink-steps: on the unigram plateau at lr 3e-3 in rows of 16, a head put half its weight on [SEP]
    # (a no-op, Clark et al. 2019 sec. 3.2) and lost it as the rows grew. A first phase of short rows
    # at --sink-lr, then the whole schedule (warm-up, cosine, rows growing) over the remaining steps.
    # Measured (1250 or 750 steps, 8 heads a layer, --qk-decay 0, --short-rows 0.25): the [SEP] head
    # held (0.72 and 0.50 at step 3250) but the model never left the plateau at lr 1e-3 afterwards
    # (top-1 0.066, always ","), though the same run without this phase leaves it by step 1500. By
    # step 500 at lr 3e-3 its held-out loss had risen above the unigram's (6.67, top-1 0.01).
    first = args.sink_steps
    for step in range(args.steps):
        if step < first:
            lr, limit = args.sink_lr * min(1.0, (step + 1) / warmup), min(args.sink_rows, SEQ)
        else:
            lr = hc.lr_at(step - first, args.steps - first, PEAK_LR, warmup)
            limit = row_length(step - first, args.steps - first)
        for g in opt.param_groups:
            g["lr"] = lr
        ids, types = sampler.batch(args.batch * SEQ // limit, limit)
        x, chosen = mask_tokens(ids, V, gen)
        h, _ = model.encode(x, (ids != PAD).long(), types)
        logits = model.mlm_logits(h[chosen])
        loss = F.cross_entropy(logits, ids[chosen])
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % args.probe_every == 0 or step == args.steps - 1:
            model.eval()
            probe = evaluate(model, held_ids[:10 * (SEQ - 2)])  # the held-out start, as the C++ test
            sinks = largest_sinks(head_shares(model, probe_rows, punct_ids))
            model.train()
            log.append((step, loss.item(), probe[0], probe[1], sinks["sep"][0], sinks["cls"][0]))
            print(f"step {step} train loss {loss.item():.4f}, held-out start loss {probe[0]:.4f} top-1 "
                  f"{probe[1]:.3f}; largest share on [SEP] {sinks['sep'][0]:.2f} (L{sinks['sep'][1]}H"
                  f"{sinks['sep'][2]}), on [CLS] {sinks['cls'][0]:.2f} (L{sinks['cls'][1]}H{sinks['cls'][2]}) "
                  f"({time.time() - t1:.0f} s)", flush=True)
    seconds = time.time() - t1

    hc.round_to_f16_(model)
    model.eval()
    train_loss, train_acc = evaluate(model, train_ids[-len(held_ids):])  # the last training stretch
    held_loss, held_acc = evaluate(model, held_ids)
    uni_loss, uni_acc, uni_top = unigram_baseline(train_ids, held_ids, V)
    print(f"final train MLM loss {train_loss:.4f} top-1 {train_acc:.3f}; held-out loss {held_loss:.4f} "
          f"top-1 {held_acc:.3f}; unigram loss {uni_loss:.4f} top-1 {uni_acc:.3f} ({vocab[uni_top]!r}) "
          f"({seconds:.0f} s)", flush=True)
    rows = held_rows(held_ids, ends, 48)
    scores = head_shares(model, rows, punct_ids)
    print("held-out pairs:\n" + hc.score_table(scores))
    print("clear heads:", "; ".join(hc.describe_heads(scores)))

    os.makedirs(args.out, exist_ok=True)
    hc.write_safetensors_f16(os.path.join(args.out, "model.safetensors"), model.hf_tensors())
    hc.write_json(os.path.join(args.out, "config.json"), model.hf_config({"initializer_range": 0.02}))
    hc.write_json(os.path.join(args.out, "tokenizer.json"), tokenizer_json(vocab))
    hc.write_json(os.path.join(args.out, "tokenizer_config.json"), tokenizer_config())
    examples = mask_examples(model, enc, vocab)
    print(examples)
    stats = dict(examples=examples, V=V, n_train=len(train_ids), n_held=len(held_ids), train=(train_loss, train_acc),
                 held=(held_loss, held_acc), uni=(uni_loss, uni_acc, vocab[uni_top]), seconds=seconds,
                 log=log, rows=len(rows), dims=(layers, heads, d, inner))
    hc.write_text(os.path.join(args.out, "README.md"), card(args, stats, scores))
    if args.fixture:
        os.makedirs(args.fixture, exist_ok=True)
        write_fixture(model, held_ids, ends, os.path.join(args.fixture, "austen-bert.npz"))


EXAMPLES = ["She was the [MASK] of a very clever man.",
            "It is a truth universally acknowledged, that a single man in possession of a good fortune, "
            "must be in want of a [MASK].",
            "Emma could not [MASK] her; but as neither provocation nor anger was meant, she said nothing."]


def mask_examples(model, enc, vocab):
    """A Markdown list: each example sentence with the model's top 5 (and probabilities) at its [MASK]."""
    lines = []
    with torch.no_grad():
        for text in EXAMPLES:
            ids = [CLS]
            for i, part in enumerate(text.split("[MASK]")):
                ids += ([MASK] if i else []) + enc.encode(part)
            ids.append(SEP)
            at = ids.index(MASK)
            p = torch.softmax(model(torch.tensor([ids]))[0, at], -1)
            top = torch.topk(p, 5)
            guesses = ", ".join(f"{vocab[int(i)]} {float(v):.2f}" for v, i in zip(top.values, top.indices))
            lines.append(f"- {text.replace('[MASK]', '`[MASK]`')} → {guesses}")
    return "\n".join(lines)


def write_fixture(model, held_ids, ends, path):
    """The C++ test's reference: a held-out pair with three masks, its token types, the last hidden
    states [N, d] and the masked-LM logits at the masks [3, vocab] of the F16 weights in plain torch."""
    ids, types = held_rows(held_ids, ends, 1)[0]
    ids, types = ids[:40], types[:40]
    for p in (3, 9, len(ids) - 5):
        ids[p] = MASK
    pos = [i for i, t in enumerate(ids) if t == MASK]
    with torch.no_grad():
        h, _ = model.encode(torch.tensor([ids]), types=torch.tensor([types]))
        lg = model.mlm_logits(h[0, pos])
    tmp = path + ".tmp.npz"
    np.savez(tmp, ids=np.asarray(ids, dtype=np.int64), type_ids=np.asarray(types, dtype=np.int64),
             hidden=h[0].numpy().astype(np.float32), mask_logits=lg.numpy().astype(np.float32))
    os.replace(tmp, path)


PLATEAU = """
**This model has not learned to predict words**: its held-out top-1 at the masks is the unigram
guess's. This run left the post-LN BERT on the unigram plateau; a longer one is needed for `[MASK]`
predictions worth reading. The heads below still show where it parks attention (Clark et al. 2019).
"""
NO_SEP_HEAD = """
No head of this model rests on `[SEP]` the way Clark et al. (2019) found in BERT-base (over half of
its weight there, section 3.2), nor on `[CLS]`. Two longer runs did not form one either. 6000 steps
with 8 heads a layer and weight decay 0.1 (which Gu et al. 2025 find promotes sinks) predicted
better (held-out loss 3.70, top-1 0.27) but put at most 0.06 of a head's weight on `[SEP]`: the
heads of layers 3 and 4 spread theirs almost evenly. At lr 3e-3 the model formed a `[SEP]` head
(0.50 by step 750) and a `[CLS]` head (0.56 by step 1500) while it sat on the unigram plateau, its
heads having nothing else to do, and lost them (0.13 and 0.14 by step 3750) as its rows grew to 64
tokens, still on the plateau. Three runs with 8 heads a layer, no decay on the query and key maps
and a quarter of the rows cut to 16 tokens throughout: without a first phase the model learned
(held-out loss 3.91, top-1 0.24) and put at most 0.13 on `[SEP]`; with 1250 or 750 steps at lr 3e-3
on rows of 16 first, a layer 2 head put 0.55 or 0.37 on `[SEP]` and kept it (0.72, 0.50 by step
3250) while the rows grew, but the model never left the plateau at lr 1e-3 afterwards (top-1
0.066, always ","). A first phase of 1000 steps at lr 1e-3 on rows of 64 also left it there
(top-1 0.066 at step 3250), its largest `[SEP]` share 0.48 once (step 2000) and 0.09 after.
Six more runs formed none in a model that predicts. Training the shipped model on for 2500 or 4000
more steps (the second at weight decay 0.1 with none on the query and key maps) took the held-out
loss to 3.90 and 3.61 (top-1 0.27, 0.28) with at most 0.08 on `[SEP]`; BERT's own pairs, half of
the B segments random text, gave 0.08; the query and key maps of layers 2-4 at 3 times the learning
rate formed a `[SEP]` head on the plateau (0.46 at step 1000) that was gone (0.08) by step 1500 as
the model left it; 6 layers x 8 heads never left the plateau in 4000 steps (a layer 1 head at 0.38
on `[SEP]` there); the shipped model stacked to 8 layers (Gong et al. 2019) and trained 2000 steps
more reached 4.22 with at most 0.08. Clark et al. (2019, section 3.2) found BERT-base's `[SEP]`
heads in its layers 6-10, not in the first layers, whose depth this model has.
"""


def thin(log, rows=12):
    """About `rows` entries of the training log, the last always included once."""
    kept = log[:: max(1, len(log) // rows)]
    return kept if kept[-1] is log[-1] else kept + [log[-1]]


def card(args, s, scores):
    curve = "\n".join(f"| {st} | {l:.3f} | {hl:.3f} | {ha:.3f} | {sep:.2f} | {cls:.2f} |"
                      for st, l, hl, ha, sep, cls in thin(s["log"]))
    layers, heads, d, inner = s["dims"]
    wd = f"weight decay {args.weight_decay:g}"
    if args.qk_decay is not None:
        wd += f" ({args.qk_decay:g} on the query and key maps, which a sink needs large)"
    short = (f"; {args.short_rows:.0%} of the rows cut to at most {SHORT} tokens at every row length, "
             f"in which `[SEP]` is a larger share of the keys" if args.short_rows else "")
    phases = "" if not args.sink_steps else f"""
Before that schedule, a first phase of {args.sink_steps} steps on rows of {min(args.sink_rows, SEQ)} tokens at lr
{args.sink_lr:g} ({args.warmup} warm-up steps, then constant), on the unigram plateau, where heads
with nothing else to do can come to rest on `[SEP]` or `[CLS]`; the schedule above (warm-up,
cosine, rows growing from {SHORT}) then runs over the remaining {args.steps - args.sink_steps} steps.
"""
    sep_heads = sorted(((scores[l]["sep"][h], l, h) for l in range(layers) for h in range(heads)), reverse=True)
    cls_heads = sorted(((scores[l]["cls"][h], l, h) for l in range(layers) for h in range(heads)), reverse=True)
    top_sep = ", ".join(f"layer {l + 1} head {h + 1} ({v:.2f})" for v, l, h in sep_heads[:3])
    top_cls = ", ".join(f"layer {l + 1} head {h + 1} ({v:.2f})" for v, l, h in cls_heads[:3])
    return f"""# austen-bert

A small BERT masked-language model trained by AttnScope's `scripts/models/train_austen_bert.py` on
Jane Austen's six novels: bidirectional attention maps, predictions at each `[MASK]`, and heads that
attend to the previous and to the next token, as Clark et al. (2019, section 4.1) found in BERT.

    attnscope-cli run --model austen-bert --text "She was the [MASK] of a very clever man." --out run.npz

prints the top 5 tokens at each `[MASK]`; `--key-text "..."` adds a second segment (token type 1).

## Data and licence
Jane Austen's novels as Debian's `r-cran-janeaustenr` packages them (public domain; the package is
MIT-licensed), exported with `Rscript`, one paragraph per line, by `train_austen_gpt2.py`'s
`export_books()`. Training: all six novels except the last two chapters of *Persuasion*
({s["n_train"]} tokens); held out: *Persuasion* from "{austen.HELD_OUT_FROM}" to the end ({s["n_held"]} tokens),
the same split as austen-gpt2. The weights are released under the project's licence (GPL-3.0-or-later).

## Tokenizer
WordPiece, {s["V"]} tokens: `[PAD]` `[UNK]` `[CLS]` `[SEP]` `[MASK]` (ids 0-4), then the characters,
then the merges learned on the training text (BERT's WordPiece trainer: BPE with `##` continuation,
deterministic ties), by the script itself. BERT's lowercasing normalizer (accents stripped) and
pre-tokenizer; the post-processor adds `[CLS] A [SEP]` and `[CLS] A [SEP] B [SEP]` (B: token type 1).

## Architecture
BERT (`model_type` bert, `BertForMaskedLM`): {layers} layers x {heads} heads, hidden {d}, MLP {inner}
(gelu), {SEQ} learned positions, 2 token types, post-LayerNorm, masked-LM head tied to the word
embeddings. Weights in F16. No pooler and no next-sentence head.

## Training
Masked LM only (no next-sentence prediction, as RoBERTa): 15% of the tokens predicted, of those 80%
`[MASK]`, 10% random, 10% kept. Rows of {SEQ} tokens: half `[CLS] A [SEP] B [SEP]` with A and B
consecutive text split at a sentence end, half `[CLS] A [SEP]`; a fifth shorter and padded{short}. AdamW
(lr {PEAK_LR:g}, warm-up {args.warmup} steps, cosine to {PEAK_LR / 10:g}, betas 0.9/0.98, {wd},
gradient clip 1), batch {args.batch} rows of {SEQ} tokens, {args.steps} steps, one CPU thread, {s["seconds"]:.0f} s,
seed {args.seed}.
Against the unigram plateau (always ","), on which runs of this model with BERT's initialisation
and rows of {SEQ} from the start sat for all of their 700-1750 steps: rows of {SHORT} tokens for the
first fifth of the steps, growing to {SEQ} by the half, the same tokens per step (sequence-length
warm-up, Li et al. 2022), so that a `[MASK]`'s neighbours are not lost in a uniform average of 63
tokens; the decoder bias starts at the training text's log unigram; the dense layers N(0, 1/fan_in)
rather than N(0, 0.02); the learned positions start as sinusoids (Vaswani et al. 2017) scaled to the
word embeddings' 0.02.
{phases}
The last two columns: the largest mean weight a head puts on `[SEP]`, and on `[CLS]`, over the tokens of
12 held-out pairs `[CLS] A [SEP] B [SEP]`.

| step | train loss (batch) | held-out start: MLM loss | top-1 at masks | most on `[SEP]` | most on `[CLS]` |
|---|---|---|---|---|---|
{curve}

## Results
Measured with every 7th token replaced by `[MASK]` in `[CLS] ... [SEP]` rows of {SEQ} tokens, 7 shifted
passes so that each token is predicted once (the weights as shipped, F16):

| text | MLM loss (nats) | top-1 at masks |
|---|---|---|
| last training stretch | {s["train"][0]:.3f} | {s["train"][1]:.3f} |
| held out | {s["held"][0]:.3f} | {s["held"][1]:.3f} |
| unigram of the training text, on the held-out text | {s["uni"][0]:.3f} | {s["uni"][1]:.3f} (always {s["uni"][2]!r}) |

{PLATEAU if s["held"][1] <= s["uni"][1] + 0.02 else ""}
The example sentences, top 5 at each `[MASK]` (probabilities of the F16 weights):

{s["examples"]}

## What the heads do
Mean over the tokens of {s["rows"]} held-out pairs `[CLS] A [SEP] B [SEP]` (consecutive sentences) of the
weight on `[CLS]`, on the two `[SEP]`, on "." and ",", on the previous, the next and the same token:

{hc.score_table(scores)}

Most weight on `[SEP]`: {top_sep}. On `[CLS]`: {top_cls}.
Clear heads (a score of 0.4 or more): {"; ".join(hc.describe_heads(scores)) or "none"}.
{NO_SEP_HEAD if sep_heads[0][0] < 0.4 else ""}"""


if __name__ == "__main__":
    main()
