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



LLAMA3_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                  r"|\s*[\r\n]+|\s+(?!\S)|\s+")
LLAMA3_SPLIT = re.compile(r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\w]?[^\W\d_]+|\d{1,3}| ?[^\s\w]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""")


def write_llama3_tokenizer(folder, corpus, num_merges, whole_words=(), model_max_length=131072):
    """tokenizer.json as Llama 3 / 3.1 / 3.2 ship it: no normalizer, Split(Llama 3 regex, Isolated) +
    ByteLevel(use_regex false), BPE with ignore_merges true (a pre-token found whole in the vocabulary
    is one token, merges or not), post-processor ByteLevel + TemplateProcessing adding
    <|begin_of_text|>, special tokens after the vocabulary. `whole_words` (byte-level strings such as
    "Ġbecause") join the vocabulary without merges, so ignore_merges shows. Returns the vocab."""
    vocab, merges = byte_level_bpe(corpus, num_merges, split=LLAMA3_SPLIT)
    for w in whole_words:
        vocab.setdefault(w, len(vocab))
    bpe_vocab = dict(vocab)
    added = []
    for t in ("<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"):
        vocab[t] = len(vocab)
        added.append({"id": vocab[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                      "normalized": False, "special": True})
    bos = "<|begin_of_text|>"
    tok = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": LLAMA3_PATTERN}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]},
        "post_processor": {"type": "Sequence", "processors": [
            {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
            {"type": "TemplateProcessing",
             "single": [{"SpecialToken": {"id": bos, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
             "pair": [{"SpecialToken": {"id": bos, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                      {"SpecialToken": {"id": bos, "type_id": 1}}, {"Sequence": {"id": "B", "type_id": 1}}],
             "special_tokens": {bos: {"id": bos, "ids": [vocab[bos]], "tokens": [bos]}}}]},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": True,
                  "vocab": bpe_vocab, "merges": [f"{a} {b}" for a, b in merges]},
    }
    write_json(os.path.join(folder, "tokenizer.json"), tok)
    write_json(os.path.join(folder, "tokenizer_config.json"), {
        "bos_token": bos, "eos_token": "<|eot_id|>", "clean_up_tokenization_spaces": True,
        "model_input_names": ["input_ids", "attention_mask"], "model_max_length": model_max_length,
        "tokenizer_class": "PreTrainedTokenizerFast"})
    return vocab

# ---------------------------------------------------------------------------
# Benchmark-sized random models, written tensor by tensor (a 1B model never sits in memory
# whole). Shapes and names as the real checkpoints (gpt2's model.safetensors, Llama 3.2 1B).

def write_safetensors_streamed(path, specs, make, metadata=None):
    """specs: {name: (shape, dtype)}; make(name) -> torch tensor of that shape, called once per
    tensor in file order. Same layout as write_safetensors. Returns the file size."""
    order = sorted(specs, key=lambda n: (-DTYPE_SIZE[specs[n][1]], n))
    header, offset = {"__metadata__": metadata or {"format": "pt"}}, 0
    for name in order:
        shape, dtype = specs[name]
        size = int(np.prod(shape, dtype=np.int64)) * DTYPE_SIZE[dtype]
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for name in order:
            shape, dtype = specs[name]
            data = tensor_bytes(make(name), dtype)
            assert len(data) == header[name]["data_offsets"][1] - header[name]["data_offsets"][0], name
            f.write(data)
    return 8 + len(text) + offset


BENCH_CORPUS = ("The quick brown fox jumps over the lazy dog. Attention heads look back at earlier tokens, "
                "and some of them find the previous word, the first token or the end of a clause. ") * 4

GPT2_SMALL = dict(n_layer=12, n_head=12, n_embd=768, n_positions=1024, vocab_size=50257)
LLAMA_1B = dict(num_hidden_layers=16, num_attention_heads=32, num_key_value_heads=8, hidden_size=2048,
                intermediate_size=8192, vocab_size=128256, max_position_embeddings=131072,
                rope_theta=500000.0, rms_norm_eps=1e-5, tie_word_embeddings=True)


def gpt2_specs(c):
    d, inner = c["n_embd"], c.get("n_inner") or 4 * c["n_embd"]
    s = {"wte.weight": [c["vocab_size"], d], "wpe.weight": [c["n_positions"], d],
         "ln_f.weight": [d], "ln_f.bias": [d]}
    for i in range(c["n_layer"]):
        p = f"h.{i}."
        s.update({p + "ln_1.weight": [d], p + "ln_1.bias": [d], p + "ln_2.weight": [d], p + "ln_2.bias": [d],
                  p + "attn.c_attn.weight": [d, 3 * d], p + "attn.c_attn.bias": [3 * d],
                  p + "attn.c_proj.weight": [d, d], p + "attn.c_proj.bias": [d],
                  p + "mlp.c_fc.weight": [d, inner], p + "mlp.c_fc.bias": [inner],
                  p + "mlp.c_proj.weight": [inner, d], p + "mlp.c_proj.bias": [d]})
    return s


def llama_specs(c):
    d, I, H, KV = c["hidden_size"], c["intermediate_size"], c["num_attention_heads"], c["num_key_value_heads"]
    dh = c.get("head_dim") or d // H
    s = {"model.embed_tokens.weight": [c["vocab_size"], d], "model.norm.weight": [d]}
    if not c["tie_word_embeddings"]:
        s["lm_head.weight"] = [c["vocab_size"], d]
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}."
        s.update({p + "input_layernorm.weight": [d], p + "post_attention_layernorm.weight": [d],
                  p + "self_attn.q_proj.weight": [H * dh, d], p + "self_attn.k_proj.weight": [KV * dh, d],
                  p + "self_attn.v_proj.weight": [KV * dh, d], p + "self_attn.o_proj.weight": [d, H * dh],
                  p + "mlp.gate_proj.weight": [I, d], p + "mlp.up_proj.weight": [I, d],
                  p + "mlp.down_proj.weight": [d, I]})
    return s


def random_maker(specs, seed, keep=None):
    """make(name) for write_safetensors_streamed: seeded normal weights (std 0.02 as HF initializes,
    larger for q/k, ~1.5 / sqrt(d_model), so attention is not uniform), norm weights near 1. `keep` (a dict) collects the
    tensors when the caller needs them (the PyTorch baseline)."""
    g = torch.Generator().manual_seed(seed)

    def make(name):
        shape = specs[name]
        if len(shape) == 1:
            t = (1.0 + 0.05 * torch.randn(shape, generator=g)) if ("ln" in name or "norm" in name) and name.endswith(
                "weight") else 0.02 * torch.randn(shape, generator=g)
        else:
            std = 0.03 if any(k in name for k in ("q_proj", "k_proj")) else 0.02
            t = torch.empty(shape).normal_(0.0, std, generator=g)
            if name.endswith("c_attn.weight"):  # q | k columns larger, as above
                t[:, : 2 * shape[1] // 3] *= 3.0
        if keep is not None:
            keep[name] = t
        return t
    return make


def write_bench_gpt2(folder, c=GPT2_SMALL, seed=1, keep=None):
    """GPT-2-small-sized random model (F32, tied lm_head, gpt2 names). Returns the weight file size."""
    os.makedirs(folder, exist_ok=True)
    specs = gpt2_specs(c)
    size = write_safetensors_streamed(os.path.join(folder, "model.safetensors"),
                                      {k: (v, "F32") for k, v in specs.items()}, random_maker(specs, seed, keep))
    write_gpt2_tokenizer(folder, BENCH_CORPUS, num_merges=60, model_max_length=c["n_positions"])
    write_json(os.path.join(folder, "config.json"), {
        "activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"], "layer_norm_epsilon": 1e-5,
        "model_type": "gpt2", "n_ctx": c["n_positions"], "n_embd": c["n_embd"], "n_head": c["n_head"],
        "n_inner": None, "n_layer": c["n_layer"], "n_positions": c["n_positions"], "scale_attn_weights": True,
        "torch_dtype": "float32", "vocab_size": c["vocab_size"], "bos_token_id": 50256, "eos_token_id": 50256})
    return size


def write_bench_llama(folder, c=LLAMA_1B, seed=2, keep=None):
    """Llama-3.2-1B-sized random model (BF16, tied embeddings, GQA 32/8). rope_scaling is left out
    (the real 3.2 config has rope_type "llama3"; it changes no cost). Returns the weight file size."""
    os.makedirs(folder, exist_ok=True)
    specs = llama_specs(c)
    size = write_safetensors_streamed(os.path.join(folder, "model.safetensors"),
                                      {k: (v, "BF16") for k, v in specs.items()}, random_maker(specs, seed, keep))
    write_llama_tokenizer(folder, BENCH_CORPUS, num_merges=60, model_max_length=c["max_position_embeddings"])
    write_json(os.path.join(folder, "config.json"), {
        "architectures": ["LlamaForCausalLM"], "attention_bias": False, "bos_token_id": 1, "eos_token_id": 2,
        "head_dim": c["hidden_size"] // c["num_attention_heads"], "hidden_act": "silu",
        "hidden_size": c["hidden_size"], "intermediate_size": c["intermediate_size"],
        "max_position_embeddings": c["max_position_embeddings"], "mlp_bias": False, "model_type": "llama",
        "num_attention_heads": c["num_attention_heads"], "num_hidden_layers": c["num_hidden_layers"],
        "num_key_value_heads": c["num_key_value_heads"], "pretraining_tp": 1, "rms_norm_eps": c["rms_norm_eps"],
        "rope_scaling": None, "rope_theta": c["rope_theta"], "tie_word_embeddings": c["tie_word_embeddings"],
        "torch_dtype": "bfloat16", "vocab_size": c["vocab_size"]})
    return size


if __name__ == "__main__":
    import sys
    usage = "usage: hf_folder.py gpt2-small|llama-1b DIR   (writes a random benchmark model folder)"
    if len(sys.argv) != 3 or sys.argv[1] not in ("gpt2-small", "llama-1b"):
        raise SystemExit(usage)
    writer = write_bench_gpt2 if sys.argv[1] == "gpt2-small" else write_bench_llama
    print(f"{sys.argv[2]}: {writer(sys.argv[2]) / 1e6:.1f} MB of weights")
