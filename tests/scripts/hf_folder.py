"""Writes Hugging Face model folders: safetensors files (one, or shards with
model.safetensors.index.json), config.json and tokenizer files built from a
small corpus. Shared by gen_model_fixtures.py (the reference fixtures) and
tests/bench/compare_models.py (benchmark-sized random models).

Plain Python + numpy (+ torch only to turn tensors into bytes); no
`transformers`, no `safetensors` package. The safetensors layout follows the
reference implementation (huggingface/safetensors, `serialize`): an 8-byte
little-endian header length, a JSON header {name: {dtype, shape, data_offsets}}
plus "__metadata__", padded with spaces to a multiple of 8 bytes, then the
tensors' bytes back to back with no gap, sorted by dtype (wider first)
then name, as the reference orders them.
"""
import collections
import json
import os
import re
import struct

import numpy as np

try:  # torch is only needed to write BF16 (numpy has no bfloat16)
    import torch
except ImportError:  # pragma: no cover
    torch = None

DTYPE_SIZE = {"F64": 8, "I64": 8, "F32": 4, "I32": 4, "F16": 2, "BF16": 2, "I16": 2, "U8": 1, "I8": 1, "BOOL": 1}


def tensor_bytes(value, dtype):
    """`value` (torch tensor or numpy array) as little-endian bytes of safetensors `dtype`."""
    if dtype == "BF16":
        t = value if torch.is_tensor(value) else torch.from_numpy(np.asarray(value, dtype=np.float32))
        return t.detach().to(torch.bfloat16).contiguous().view(torch.int16).numpy().astype("<i2").tobytes()
    arr = value.detach().cpu().numpy() if torch is not None and torch.is_tensor(value) else np.asarray(value)
    np_type = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4", "I16": "<i2",
               "U8": "u1", "I8": "i1", "BOOL": "?"}[dtype]
    return np.ascontiguousarray(arr.astype(np_type)).tobytes()


def round_to_dtype(value, dtype):
    """What a reader gets back as float32 after storing `value` (torch float tensor) as `dtype`."""
    if dtype == "BF16":
        return value.to(torch.bfloat16).to(torch.float32)
    if dtype == "F16":
        return value.to(torch.float16).to(torch.float32)
    return value.to(torch.float32)


def write_safetensors(path, tensors, metadata=None):
    """tensors: ordered {name: (value, dtype)}; value a torch tensor or numpy array.
    Returns the number of data bytes written."""
    order = sorted(tensors, key=lambda n: (-DTYPE_SIZE[tensors[n][1]], n))
    header = {"__metadata__": metadata or {"format": "pt"}}
    blobs, offset = [], 0
    for name in order:
        value, dtype = tensors[name]
        data = tensor_bytes(value, dtype)
        shape = list(value.shape)
        assert len(data) == int(np.prod(shape, dtype=np.int64)) * DTYPE_SIZE[dtype], name
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)  # the reference pads the header with spaces to 8-byte alignment
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)
    return offset


def write_sharded(folder, tensors, shards):
    """Splits `tensors` into len(shards) files model-0000i-of-0000n.safetensors; `shards` is a
    list of name lists (every tensor in exactly one). Writes model.safetensors.index.json."""
    n = len(shards)
    assigned = [name for group in shards for name in group]
    assert sorted(assigned) == sorted(tensors), "every tensor in exactly one shard"
    weight_map, total = {}, 0
    for i, group in enumerate(shards, 1):
        fname = f"model-{i:05d}-of-{n:05d}.safetensors"
        total += write_safetensors(os.path.join(folder, fname), {k: tensors[k] for k in group})
        for k in group:
            weight_map[k] = fname
    index = {"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))}
    write_json(os.path.join(folder, "model.safetensors.index.json"), index)


def write_json(path, obj, indent=2):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=indent, ensure_ascii=False)
        f.write("\n")


# ---------------------------------------------------------------------------
# Tokenizers. The vocabularies are learned here by a plain BPE / word count on
# a small corpus; only their consistency matters (every merge's parts and
# result are in the vocabulary): the token ids the references use come from
# Hugging Face's own library (hf_tokenizers/encode_model_fixtures.js).

def bytes_to_unicode():
    """GPT-2's byte -> printable character table (openai/gpt-2 encoder.py)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


# GPT-2's pre-tokenizer regex with \p{L} / \p{N} approximated by Python's re classes:
# good enough to learn a vocabulary (the encoding itself is done by the library).
GPT2_SPLIT = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[^\W\d_]+| ?\d+| ?[^\s\w]+|\s+(?!\S)|\s+""")
# Qwen2's: single digits, letters with one leading non-letter.
QWEN2_SPLIT = re.compile(r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\w]?[^\W\d_]+|\d| ?[^\s\w]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""")


def learn_bpe(words, num_merges):
    """words: Counter {tuple(symbols): count}. Greedy BPE (Sennrich et al. 2016): merge the most
    frequent adjacent pair (ties: the lexicographically smallest) `num_merges` times.
    Returns the merges in order."""
    words = dict(words)
    merges = []
    for _ in range(num_merges):
        pairs = collections.Counter()
        for w, c in words.items():
            for a, b in zip(w, w[1:]):
                pairs[(a, b)] += c
        if not pairs:
            break
        best = min(pairs.items(), key=lambda kv: (-kv[1], kv[0]))[0]
        merges.append(best)
        merged = {}
        for w, c in words.items():
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and (w[i], w[i + 1]) == best:
                    out.append(w[i] + w[i + 1])
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            merged[tuple(out)] = merged.get(tuple(out), 0) + c
        words = merged
    return merges


def byte_level_bpe(corpus, num_merges, split=GPT2_SPLIT):
    """Byte-level BPE (GPT-2, RoBERTa, Llama 3, Qwen2): vocab = the 256 byte characters in
    byte order then the merge results; returns (vocab dict, merges list)."""
    table = bytes_to_unicode()
    words = collections.Counter()
    for piece in split.findall(corpus):
        words[tuple(table[b] for b in piece.encode("utf-8"))] += 1
    merges = learn_bpe(words, num_merges)
    vocab = {table[b]: i for i, b in enumerate(sorted(table))}
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    return vocab, merges


def write_gpt2_tokenizer(folder, corpus, num_merges, model_max_length=1024):
    """vocab.json + merges.txt as the gpt2 repository ships them (<|endoftext|> last)."""
    vocab, merges = byte_level_bpe(corpus, num_merges)
    vocab["<|endoftext|>"] = len(vocab)
    write_json(os.path.join(folder, "vocab.json"), vocab, indent=None)
    with open(os.path.join(folder, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n")
        for a, b in merges:
            f.write(f"{a} {b}\n")
    write_json(os.path.join(folder, "tokenizer_config.json"), {"model_max_length": model_max_length})
    return vocab


def write_bert_vocab(folder, corpus, extra_chars="", num_words=120, num_pieces=60, lowercase=True):
    """vocab.txt for WordPiece: special tokens, single characters (and their ## forms), the corpus's
    most frequent words and frequent word-internal pieces. Returns the token list."""
    import unicodedata

    def norm(t):
        t = t.lower() if lowercase else t
        return "".join(c for c in unicodedata.normalize("NFD", t) if unicodedata.category(c) != "Mn")

    text = norm(corpus)
    words = re.findall(r"[^\W\d_]+|\d+|[^\s\w]", text)
    counts = collections.Counter(w for w in words if len(w) > 1)
    chars = sorted(set(c for c in text + norm(extra_chars) if not c.isspace()))
    tokens = ["[PAD]", "[unused0]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tokens += chars
    tokens += ["##" + c for c in chars if c.isalnum()]
    tokens += [w for w, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:num_words]]
    pieces = collections.Counter()
    for w in counts:
        for n in (2, 3):
            for i in range(1, len(w) - n + 1):
                pieces["##" + w[i:i + n]] += counts[w]
            pieces[w[:n]] += counts[w]
    seen = set(tokens)
    for p, _ in sorted(pieces.items(), key=lambda kv: (-kv[1], kv[0])):
        if p not in seen:
            tokens.append(p)
            seen.add(p)
            num_pieces -= 1
            if num_pieces == 0:
                break
    with open(os.path.join(folder, "vocab.txt"), "w", encoding="utf-8") as f:
        for t in tokens:
            f.write(t + "\n")
    return tokens


def sentencepiece_bpe(corpus, num_merges):
    """Llama 2 / TinyLlama style: <unk> <s> </s>, <0x00>..<0xFF>, the corpus's characters, then merges
    learned within "▁"-started words. Returns (vocab dict, merges list)."""
    text = corpus.replace(" ", "▁")
    words = collections.Counter()
    for w in re.findall(r"▁?[^▁]+|▁", "▁" + text):
        words[tuple(w)] += 1
    merges = learn_bpe(words, num_merges)
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2}
    for b in range(256):
        vocab[f"<0x{b:02X}>"] = len(vocab)
    for c in sorted(set(text) | {"▁"}):
        vocab.setdefault(c, len(vocab))
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    return vocab, merges


def write_llama_tokenizer(folder, corpus, num_merges, model_max_length=2048):
    """tokenizer.json in the form Llama 2 / TinyLlama ship (SentencePiece BPE converted by
    transformers' LlamaConverter, legacy normalizer), with merges as "a b" strings."""
    vocab, merges = sentencepiece_bpe(corpus, num_merges)
    special = lambda i, t: {"id": i, "content": t, "single_word": False, "lstrip": False,  # noqa: E731
                            "rstrip": False, "normalized": False, "special": True}
    tok = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [special(0, "<unk>"), special(1, "<s>"), special(2, "</s>")],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": "▁"},
            {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
        "pre_tokenizer": None,
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "<s>", "type_id": 1}}, {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
            {"type": "ByteFallback"}, {"type": "Fuse"},
            {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True,
                  "vocab": vocab, "merges": [f"{a} {b}" for a, b in merges]},
    }
    write_json(os.path.join(folder, "tokenizer.json"), tok)
    write_json(os.path.join(folder, "tokenizer_config.json"), {
        "add_bos_token": True, "add_eos_token": False, "bos_token": "<s>", "eos_token": "</s>",
        "unk_token": "<unk>", "pad_token": None, "legacy": True, "model_max_length": model_max_length,
        "tokenizer_class": "LlamaTokenizer"})
    return vocab


QWEN2_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                 r"|\s*[\r\n]+|\s+(?!\S)|\s+")


def write_qwen2_tokenizer(folder, corpus, num_merges, model_max_length=32768):
    """tokenizer.json as Qwen2 / Qwen2.5 ship it: NFC, Split(Qwen2 regex, Isolated) + ByteLevel
    (use_regex false), byte-level BPE without BOS, <|endoftext|> <|im_start|> <|im_end|> added after
    the vocabulary; merges as [a, b] pairs (the newer serialization). Returns the vocab with the
    added tokens."""
    vocab, merges = byte_level_bpe(corpus, num_merges, split=QWEN2_SPLIT)
    added = []
    for t in ("<|endoftext|>", "<|im_start|>", "<|im_end|>"):
        added.append({"id": len(vocab), "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                      "normalized": False, "special": True})
        vocab[t] = len(vocab)
    bpe_vocab = {k: v for k, v in vocab.items() if not k.startswith("<|")}
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
    tok = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": {"type": "NFC"},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": QWEN2_PATTERN}, "behavior": "Isolated", "invert": False},
            byte_level]},
        "post_processor": dict(byte_level),
        "decoder": dict(byte_level),
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": bpe_vocab, "merges": [[a, b] for a, b in merges]},
    }
    write_json(os.path.join(folder, "tokenizer.json"), tok)
    write_json(os.path.join(folder, "tokenizer_config.json"), {
        "add_prefix_space": False, "bos_token": None, "eos_token": "<|endoftext|>", "pad_token": "<|endoftext|>",
        "unk_token": None, "errors": "replace", "model_max_length": model_max_length,
        "tokenizer_class": "Qwen2Tokenizer", "split_special_tokens": False})
    return vocab
