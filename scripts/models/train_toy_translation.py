#!/usr/bin/python3
"""Trains `toy-translation-marian`: a tiny MarianMTModel (2 + 2 layers, d 64, 4 heads) that
translates a small English grammar into French, so the window's Translation dock shows a learned
cross-attention alignment instead of a random one.

The grammar: "the [ADJ] NOUN VERB the [ADJ] NOUN ." with colour adjectives, which French puts
after the noun (and inflects by gender: "the red ball" -> "la balle rouge", "the black cat" ->
"le chat noir"), so a good alignment crosses: the adjective looks one word further on than the
noun. Every pair also has its gold word alignment (Pharaoh, word positions), written to
alignments.txt beside the folder for the Reference alignment field.

The model is the plain-PyTorch port of transformers' MarianMTModel in
tests/scripts/gen_seq2seq_fixtures.py (post-LN, swish, sinusoidal positions, tied embeddings),
trained with Adam on teacher-forced cross-entropy; the tokenizers are SentencePiece unigram
models trained by python3-sentencepiece on the generated text, as MarianTokenizer reads them.

The test fixture tests/fixtures/models/toy_translation is this script's output with the
defaults (F16 weights; identity normalisation keeps the .spm files small).

Usage: /usr/bin/python3 scripts/models/train_toy_translation.py [--steps N] [--out DIR] [--threads N]
"""
import argparse
import json
import os
import random
import sys
import time

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "scripts"))
import gen_seq2seq_fixtures as s2s  # noqa: E402
import hf_folder  # noqa: E402

NOUNS = {"dog": ("chien", "m"), "cat": ("chat", "m"), "horse": ("cheval", "m"), "boy": ("garçon", "m"),
         "book": ("livre", "m"), "ball": ("balle", "f"), "house": ("maison", "f"), "car": ("voiture", "f"),
         "flower": ("fleur", "f"), "girl": ("fille", "f")}
ADJS = {"red": ("rouge", "rouge"), "black": ("noir", "noire"), "green": ("vert", "verte"),
        "blue": ("bleu", "bleue"), "white": ("blanc", "blanche"), "small": ("petit", "petite")}
VERBS = {"sees": "voit", "likes": "aime", "follows": "suit", "finds": "trouve", "takes": "prend"}
CFG = dict(d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4,
           encoder_ffn_dim=128, decoder_ffn_dim=128, max_position_embeddings=64, activation_function="swish",
           scale_embedding=True)


def noun_phrase(rng):
    """English and French words of "the [ADJ] NOUN" and the alignment inside it."""
    noun = rng.choice(sorted(NOUNS))
    fr, gender = NOUNS[noun]
    det = "le" if gender == "m" else "la"
    if rng.random() < 0.6:
        adj = rng.choice(sorted(ADJS))
        fa = ADJS[adj][0 if gender == "m" else 1]
        if adj == "small":  # petit goes before the noun, as in French
            return ["the", adj, noun], [det, fa, fr], [(0, 0), (1, 1), (2, 2)]
        return ["the", adj, noun], [det, fr, fa], [(0, 0), (1, 2), (2, 1)]
    return ["the", noun], [det, fr], [(0, 0), (1, 1)]


def sentence(rng):
    e1, f1, a1 = noun_phrase(rng)
    verb = rng.choice(sorted(VERBS))
    e2, f2, a2 = noun_phrase(rng)
    en = e1 + [verb] + e2 + ["."]
    fr = f1 + [VERBS[verb]] + f2 + ["."]
    links = list(a1) + [(len(e1), len(f1))]
    links += [(len(e1) + 1 + s, len(f1) + 1 + t) for s, t in a2] + [(len(en) - 1, len(fr) - 1)]
    return " ".join(en), " ".join(fr), links


def train_word_spm(corpus, path):
    """A SentencePiece word model (every whitespace-separated word one piece): with a vocabulary
    this small the unigram trainer keeps splitting words into letters."""
    import shutil
    import tempfile
    import sentencepiece as spm
    tmp = tempfile.mkdtemp()
    try:
        src = os.path.join(tmp, "corpus.txt")
        with open(src, "w", encoding="utf-8") as f:
            f.write(corpus)
        words = {w for line in corpus.split("\n") for w in line.split()}
        spm.SentencePieceTrainer.train(input=src, model_prefix=os.path.join(tmp, "m"), model_type="word",
                                       vocab_size=len(words) + 2, character_coverage=1.0, eos_id=0, unk_id=1,
                                       normalization_rule_name="identity",
                                       bos_id=-1, pad_id=-1, num_threads=1, minloglevel=2)
        shutil.copyfile(os.path.join(tmp, "m.model"), path)
    finally:
        shutil.rmtree(tmp)
    return spm.SentencePieceProcessor(model_file=path)


def write_tokenizers(folder, pairs):
    en = "\n".join(p[0] for p in pairs) + "\n"
    fr = "\n".join(p[1] for p in pairs) + "\n"
    src = train_word_spm(en, os.path.join(folder, "source.spm"))
    tgt = train_word_spm(fr, os.path.join(folder, "target.spm"))
    vocab = s2s.write_marian_vocab(folder, (src, tgt), "en", "fr", CFG["max_position_embeddings"])
    return src, tgt, vocab


def encode(sp, vocab, text):
    return [vocab.get(p, vocab["<unk>"]) for p in sp.encode(text, out_type=str)] + [vocab["</s>"]]


def config(V):
    gen = dict(decoder_start_token_id=V - 1, pad_token_id=V - 1, eos_token_id=0, bos_token_id=0,
               forced_eos_token_id=0, bad_words_ids=[[V - 1]], max_length=32, num_beams=1)
    c = dict(model_type="marian", architectures=["MarianMTModel"], vocab_size=V, decoder_vocab_size=V,
             is_encoder_decoder=True, tie_word_embeddings=True, share_encoder_decoder_embeddings=True,
             static_position_embeddings=True, normalize_embedding=False, normalize_before=False,
             add_final_layer_norm=False, dropout=0.0, torch_dtype="float32", **CFG, **gen)
    return c, gen


def loss_of(w, cfg, batch, V):
    total = 0.0
    for src, tgt in batch:
        enc, _ = s2s.bart_encode(w, cfg, src)
        _, _, logits = s2s.bart_decode(w, cfg, enc, [V - 1] + tgt[:-1])
        total = total + F.cross_entropy(logits, torch.tensor(tgt))
    return total / len(batch)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--out", default=os.path.join(HERE, "..", "..", "build", "models", "toy-translation-marian"))
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    rng = random.Random(7)
    torch.manual_seed(7)
    pairs = [sentence(rng) for _ in range(4000)]
    held = [sentence(random.Random(99)) for _ in range(1)] + [sentence(rng) for _ in range(199)]
    os.makedirs(a.out, exist_ok=True)
    src_sp, tgt_sp, vocab = write_tokenizers(a.out, pairs)
    V = len(vocab)
    cfg, gen = config(V)
    w = {k: v.clone().mul_(0.5 if k.endswith("weight") and v.dim() == 2 else 1.0).requires_grad_()
         for k, v in s2s.bart_build(V, CFG, seed=7, marian=True).items()}
    data = [(encode(src_sp, vocab, e), encode(tgt_sp, vocab, f)) for e, f, _ in pairs]
    held_data = [(encode(src_sp, vocab, e), encode(tgt_sp, vocab, f)) for e, f, _ in held]
    opt = torch.optim.Adam(w.values(), lr=3e-3)
    start = time.time()
    for step in range(1, a.steps + 1):
        batch = rng.sample(data, 16)
        loss = loss_of(w, cfg, batch, V)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 100 == 0 or step == a.steps:
            with torch.no_grad():
                hl = loss_of(w, cfg, held_data[:50], V)
            print(f"step {step}: train {loss.item():.3f}, held-out {hl.item():.3f} ({time.time() - start:.0f} s)",
                  flush=True)
    with torch.no_grad():
        tensors = {k: (v.detach(), "F16") for k, v in w.items()}  # as the bundled models ship
    hf_folder.write_safetensors(os.path.join(a.out, "model.safetensors"), tensors)
    hf_folder.write_json(os.path.join(a.out, "config.json"), cfg)
    hf_folder.write_json(os.path.join(a.out, "generation_config.json"), gen)
    with open(os.path.join(a.out, "alignments.txt"), "w", encoding="utf-8") as f:
        for e, fr, links in held[:20]:
            f.write(f"{e}\t{fr}\t{' '.join(f'{s}-{t}' for s, t in links)}\n")
    print(f"wrote {a.out} (vocabulary {V}); held-out pairs with their word alignments in alignments.txt")


if __name__ == "__main__":
    main()
