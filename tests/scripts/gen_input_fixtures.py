#!/usr/bin/python3
"""Fixtures for the input loader, the tokenizers and the bad-input tests.

Arrays are written by numpy (and bfloat16 by torch) so the C++ readers are
checked against the real writers; safetensors files follow the published
layout (8-byte little-endian header length, JSON header, data). Expected BPE
splits come from the reference algorithm of GPT-2's encoder.py, run below, and
are printed so they can be written into tests/core/tokenizers/tokenizer_test.cpp.
Run: /usr/bin/python3 tests/scripts/gen_input_fixtures.py
"""
import json
import os
import re
import struct

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
fx = os.path.join(here, "..", "fixtures")
io_dir = os.path.join(fx, "io")
bad = os.path.join(io_dir, "bad")
tok_dir = os.path.join(fx, "tokenizers")
for d in (io_dir, bad, tok_dir):
    os.makedirs(d, exist_ok=True)


def write_safetensors(path, tensors, raw_header=None):
    """tensors: list of (name, dtype, shape, bytes)."""
    header, off, blob = {}, 0, b""
    for name, dtype, shape, data in tensors:
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [off, off + len(data)]}
        off += len(data)
        blob += data
    h = raw_header if raw_header is not None else json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + blob)


# --- safetensors: F32, F16, BF16 of the same values --------------------------
vals = np.array([[0.0, 0.25, -1.5], [3.0, 1e-3, 65504.0]], dtype=np.float32)
bf16 = (vals.view(np.uint32) >> 16).astype(np.uint16)  # exact: every value is a bf16 value but 1e-3
try:
    import torch
    bf16 = torch.from_numpy(vals).to(torch.bfloat16).view(torch.int16).numpy().astype(np.uint16)
except ImportError:
    pass
write_safetensors(os.path.join(io_dir, "dtypes.safetensors"), [
    ("f32", "F32", vals.shape, vals.tobytes()),
    ("f16", "F16", vals.shape, vals.astype(np.float16).tobytes()),
    ("bf16", "BF16", vals.shape, bf16.tobytes()),
])
# The reference values the test compares against, after each dtype's rounding.
print("f16 values:", vals.astype(np.float16).astype(np.float32).tolist())
print("bf16 values:", (bf16.astype(np.uint32) << 16).view(np.float32).tolist())

# --- contract files -----------------------------------------------------------
rng = np.random.default_rng(7)
H, N, dk = 2, 4, 3
q = rng.standard_normal((H, N, dk)).astype(np.float32)
k = rng.standard_normal((H, N, dk)).astype(np.float32)
v = rng.standard_normal((H, N, dk)).astype(np.float32)
tokens = np.array(["the", "cat", "sat", "."])
mask = np.tril(np.ones((N, N), dtype=bool))
np.savez_compressed(os.path.join(io_dir, "contract_qkv.npz"), q=q, k=k, v=v, tokens=tokens, mask=mask)
# Reference weights for the test: softmax(q k^T / sqrt(dk)) per head, no mask.
s = q @ k.transpose(0, 2, 1) / np.sqrt(dk)
w = np.exp(s - s.max(-1, keepdims=True))
w /= w.sum(-1, keepdims=True)
print("contract_qkv head 0 row 0 weights:", w[0, 0].tolist())

attn = rng.random((3, 2, N, 5)).astype(np.float32)
attn /= attn.sum(-1, keepdims=True)
np.savez(os.path.join(io_dir, "contract_attn.npz"), attn=attn, tokens=tokens,
         key_tokens=np.array(["le", "chat", "est", "assis", "."]), extra=np.zeros(3))

x = rng.standard_normal((N, 8)).astype(np.float32)
np.savez(os.path.join(io_dir, "contract_x.npz"), x=x, w_q=rng.standard_normal((8, 8)).astype(np.float32),
         w_k=rng.standard_normal((8, 8)).astype(np.float32), w_v=rng.standard_normal((8, 8)).astype(np.float32),
         w_o=rng.standard_normal((8, 8)).astype(np.float32), tokens=tokens)
write_safetensors(os.path.join(io_dir, "contract_qkv.safetensors"), [
    ("q", "F32", q.shape, q.tobytes()), ("k", "F16", k.shape, k.astype(np.float16).tobytes()),
    ("v", "F32", v.shape, v.tobytes())])

with open(os.path.join(io_dir, "attn_tokens.csv"), "w", encoding="utf-8", newline="") as f:
    f.write('query\\key,the,"a,b",猫\n')
    f.write("the,0.5,0.25,0.25\n")
    f.write('"a,b",1,0,0\r\n')
    f.write("猫,0.125,0.375,0.5\n")
with open(os.path.join(io_dir, "plain.csv"), "w") as f:
    f.write("1.5,-2\n3,4e-1\n")

# --- bad inputs -----------------------------------------------------------------
good = open(os.path.join(io_dir, "f4_c.npy"), "rb").read()
open(os.path.join(bad, "truncated.npy"), "wb").write(good[:-5])
open(os.path.join(bad, "wrong_magic.npy"), "wb").write(b"\x93NUMPZ" + good[6:])
open(os.path.join(bad, "empty.npz"), "wb").close()
np.save(os.path.join(bad, "complex.npy"), np.zeros((2, 2), dtype=np.complex64))


def npy_with_header(shape, descr="<f4", payload=b"\0" * 16):
    hdr = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    hdr = hdr.ljust(118) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode() + payload


open(os.path.join(bad, "lying_header.npy"), "wb").write(npy_with_header("(100, 100)"))
open(os.path.join(bad, "huge_elements.npy"), "wb").write(npy_with_header("(1000000, 1000000)"))
with open(os.path.join(bad, "huge_header.safetensors"), "wb") as f:
    f.write(struct.pack("<Q", 10 * 1024 ** 3) + b'{"q": {}}')
full = open(os.path.join(io_dir, "dtypes.safetensors"), "rb").read()
open(os.path.join(bad, "truncated.safetensors"), "wb").write(full[:-7])
write_safetensors(os.path.join(bad, "f8e4m3.safetensors"), [("q", "F8_E4M3", (2,), b"\0\0")])
zfull = open(os.path.join(io_dir, "deflated.npz"), "rb").read()
open(os.path.join(bad, "truncated.npz"), "wb").write(zfull[: len(zfull) // 2])
np.savez(os.path.join(bad, "qk_mismatch.npz"), q=q, k=rng.standard_normal((H, N, 5)).astype(np.float32), v=v)
np.savez(os.path.join(bad, "tokens_length.npz"), q=q, k=k, v=v, tokens=np.array(["a", "b", "c"]))
np.savez(os.path.join(bad, "mask_shape.npz"), attn=attn, mask=np.ones((N, N), dtype=bool))
np.savez(os.path.join(bad, "nan.npz"), x=np.array([[1.0, np.nan]], dtype=np.float32))
open(os.path.join(bad, "latin1.txt"), "wb").write("Caf\xe9 au lait".encode("latin-1"))
open(os.path.join(bad, "ragged.csv"), "w").write("1,2,3\n4,5\n")

# --- tokenizers -----------------------------------------------------------------
bert = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cat", "sat", "un", "##aff", "##able", "play", "##ing",
        "cafe", ",", ".", "!", "我", "爱", "猫", "on", "mat", "##s"]
open(os.path.join(tok_dir, "bert_vocab.txt"), "w", encoding="utf-8").write("\n".join(bert) + "\n")
json.dump({"version": "1.0", "normalizer": {"type": "BertNormalizer", "lowercase": True},
           "pre_tokenizer": {"type": "BertPreTokenizer"},
           "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                     "max_input_chars_per_word": 100, "vocab": {t: i for i, t in enumerate(bert)}}},
          open(os.path.join(tok_dir, "wordpiece_tokenizer.json"), "w", encoding="utf-8"), ensure_ascii=False)


def bytes_to_unicode():  # GPT-2 encoder.py
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs]))


merges = [("Ġ", "t"), ("Ġt", "h"), ("Ġth", "e"), ("h", "e"), ("l", "l"), ("e", "ll"), ("h", "ell"), ("hell", "o"),
          ("Ġ", "w"), ("o", "r"), ("Ġw", "or"), ("Ġwor", "l"), ("Ġworl", "d"), ("ç", "Į"), ("çĮ", "«"), ("'", "s")]
b2u = bytes_to_unicode()
vocab = {c: i for i, c in enumerate(sorted(set(b2u.values())))}
for a, b in merges:
    vocab.setdefault(a + b, len(vocab))
json.dump(vocab, open(os.path.join(tok_dir, "gpt2_vocab.json"), "w", encoding="utf-8"), ensure_ascii=False)
with open(os.path.join(tok_dir, "gpt2_merges.txt"), "w", encoding="utf-8") as f:
    f.write("#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in merges))
json.dump({"version": "1.0", "normalizer": None,
           "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True},
           "model": {"type": "BPE", "vocab": vocab, "merges": [[a, b] for a, b in merges]}},
          open(os.path.join(tok_dir, "bpe_tokenizer.json"), "w", encoding="utf-8"), ensure_ascii=False)

# GPT-2's pattern with Python's re: [^\W\d_] is \p{L}, \d is \p{N} for these inputs.
pat = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[^\W\d_]+| ?\d+| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+""")
ranks = {m: i for i, m in enumerate(merges)}


def bpe(word):
    word = list(word)
    while len(word) > 1:
        pairs = [(ranks.get((word[i], word[i + 1]), 1 << 30), i) for i in range(len(word) - 1)]
        best = min(pairs)[0]
        if best == 1 << 30:
            break
        a, b = merges[best]
        out, i = [], 0
        while i < len(word):
            if i + 1 < len(word) and word[i] == a and word[i + 1] == b:
                out.append(a + b)
                i += 2
            else:
                out.append(word[i])
                i += 1
        word = out
    return word


for text in ["hello the world!", "the cat's  world\n猫 42x", "hello\n\n  world "]:
    pieces = pat.findall(text)
    toks = [t for p in pieces for t in bpe("".join(b2u[b] for b in p.encode("utf-8")))]
    print(json.dumps(text, ensure_ascii=False), "->", json.dumps(pieces, ensure_ascii=False), "->",
          json.dumps(toks, ensure_ascii=False))
