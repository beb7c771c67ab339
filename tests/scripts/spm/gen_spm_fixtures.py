#!/usr/bin/python3
"""Trains two tiny SentencePiece models with Debian's python3-sentencepiece and
writes what the library makes of a varied multilingual list of texts.

  tests/fixtures/spm/unigram/spiece.model    T5-style: Unigram, nmt_nfkc (a
      precompiled charsmap), pad 0 / eos 1 / unk 2, no BOS
  tests/fixtures/spm/bpe/tokenizer.model     Llama-2-style: BPE, identity
      normalization, whitespace kept, digits split, byte fallback, unk 0 / bos 1 / eos 2
  tests/fixtures/spm/<name>/expected.json    per text: ids, pieces, byte offsets
      [begin, end) into the UTF-8 text (the library's SentencePieceText spans)

Training text: austen.txt (the opening of Pride and Prejudice from Debian's
r-cran-janeaustenr: Rscript -e 'library(janeaustenr); x <- prideprejudice[1:400];
writeLines(x[nchar(x) > 0], "austen.txt")') and ../hf_tokenizers/corpus.txt
(multilingual lines). Run: /usr/bin/python3 gen_spm_fixtures.py (outputs are committed).
"""
import json
import os
import shutil
import tempfile

import sentencepiece as spm

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "fixtures", "spm")
INPUTS = [os.path.join(HERE, "austen.txt"), os.path.join(HERE, "..", "hf_tokenizers", "corpus.txt")]

TEXTS = [
    "Hello world",
    "It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife.",
    "I'm sure they've read it; we'll see, you'd agree, she's HERE and THEY'RE Re-reading.",
    "In 2024 the model had 1234567 parameters and scored 3.14159 (or 98.6%).",
    "Café naïve résumé façade jalapeño crème brûlée Ångström",
    "Die Straße ist lang; die Mädchen lesen Bücher über Größe.",
    "我们今天学习注意力机制。",
    "北京是中国的首都，上海很大！",
    "こんにちは、世界。カタカナとひらがな",
    "한국어 텍스트는 한글로 쓰여 있습니다.",
    "Emoji: 😀👍🏽 and ❤️ in text 🚀!",
    "Prices: $5, €10, £3.50, ¥100, ₹20 and 50% off — a deal.",
    "Punctuation: (a) [b] {c} \"d\" 'e' … ¿qué? ¡sí! «guillemets» – dash",
    "tabs\tand\nnewlines\r\nand   multiple    spaces  ",
    "   leading and trailing spaces   ",
    "\n\nblank lines\n\n\nhere\n",
    "<s> bos and </s> eos <unk> <pad> in text",
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "x" * 120,
    "MiXeD CaSe WoRdS ΑΒΓ αβγ Ωμέγα Привет мир",
    "İstanbul ǅemal ß ﬁ ligature Ⅻ ① ² ＡＢＣ ｶﾀｶﾅ",
    "Zero\u200bwidth\u00a0nbsp\u3000ideographic space\u2028line sep",
    "control\u0001chars\u007fand\ufffdreplacement",
    "def f(x):\n    return x ** 2  # square\n",
    "a",
    "",
    " ",
    "▁ <0x41> tokens-looking text",
]

MODELS = {
    "unigram": dict(
        file="spiece.model", model_type="unigram", vocab_size=400, character_coverage=0.9995,
        pad_id=0, eos_id=1, unk_id=2, bos_id=-1),
    "bpe": dict(
        file="tokenizer.model", model_type="bpe", vocab_size=600, character_coverage=1.0,
        normalization_rule_name="identity", remove_extra_whitespaces=False, split_digits=True,
        byte_fallback=True, unk_id=0, bos_id=1, eos_id=2, pad_id=-1),
}


def train(name, options):
    options = dict(options)
    file = options.pop("file")
    tmp = tempfile.mkdtemp()
    try:
        prefix = os.path.join(tmp, "m")
        spm.SentencePieceTrainer.train(
            input=",".join(INPUTS), model_prefix=prefix, hard_vocab_limit=False,
            num_threads=1, minloglevel=2, **options)
        folder = os.path.join(OUT, name)
        os.makedirs(folder, exist_ok=True)
        shutil.copyfile(prefix + ".model", os.path.join(folder, file))
        return os.path.join(folder, file)
    finally:
        shutil.rmtree(tmp)


def byte_offsets(text, spt):
    # The binding converts the library's byte spans to code point spans for str
    # input; the C++ API keeps bytes, so convert back.
    starts = [0]
    for ch in text:
        starts.append(starts[-1] + len(ch.encode("utf-8")))
    return [[starts[p.begin], starts[p.end]] for p in spt.pieces]


def main():
    for name, options in MODELS.items():
        path = train(name, options)
        sp = spm.SentencePieceProcessor(model_file=path)
        cases = []
        for text in TEXTS:
            spt = sp.encode(text, out_type="immutable_proto")
            cases.append({
                "text": text,
                "ids": [p.id for p in spt.pieces],
                "pieces": [p.piece for p in spt.pieces],
                "offsets": byte_offsets(text, spt),
            })
        out = {
            "generator": "tests/scripts/spm/gen_spm_fixtures.py",
            "library": "sentencepiece (Debian python3-sentencepiece) " + spm.__version__,
            "model_file": os.path.basename(path),
            "piece_size": sp.get_piece_size(),
            "unk_id": sp.unk_id(), "bos_id": sp.bos_id(), "eos_id": sp.eos_id(), "pad_id": sp.pad_id(),
            "pieces": [sp.id_to_piece(i) for i in range(sp.get_piece_size())],
            "cases": cases,
        }
        with open(os.path.join(OUT, name, "expected.json"), "w", encoding="utf-8") as f:
            json.dump(out, f, ensure_ascii=False, indent=1)
            f.write("\n")
        print(name, sp.get_piece_size(), "pieces,", len(cases), "cases")


if __name__ == "__main__":
    main()
