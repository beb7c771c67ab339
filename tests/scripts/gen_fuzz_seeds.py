#!/usr/bin/python3
"""Writes the seed corpora for tests/fuzz: small valid files plus edge cases.

Run with Debian's Python (numpy): /usr/bin/python3 tests/scripts/gen_fuzz_seeds.py
Crash regressions are added beside the seeds by hand (named crash-*) and are
never regenerated. Existing seed files are overwritten, nothing is deleted.
"""
import io
import os
import struct
import zipfile

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fuzz", "corpus")


def put(target, name, data):
    d = os.path.join(ROOT, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def npy(arr, version=None):
    b = io.BytesIO()
    if version is None:
        np.save(b, arr)
    else:
        np.lib.format.write_array(b, arr, version=version)
    return b.getvalue()


def npz(members, compressed=False):
    b = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(b, **members)
    return b.getvalue()


def npy_seeds():
    base = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
    put("npy", "f4_c.npy", npy(base))
    put("npy", "f8_fortran.npy", npy(np.asfortranarray(base.astype(np.float64))))
    put("npy", "f2.npy", npy(base.astype(np.float16)))
    put("npy", "f4_be.npy", npy(base.astype(">f4")))
    put("npy", "i8.npy", npy(np.array([-3, 0, 7], dtype=np.int64)))
    put("npy", "u1.npy", npy(np.array([0, 255], dtype=np.uint8)))
    put("npy", "bool.npy", npy(np.array([True, False])))
    put("npy", "v2.npy", npy(base, version=(2, 0)))
    put("npy", "v3_unicode.npy", npy(np.array(["The", "猫", "ĠHello"]), version=(3, 0)))
    put("npy", "scalar.npy", npy(np.float32(1.5)))
    put("npy", "empty_dim.npy", npy(np.zeros((0, 4), dtype=np.float32)))
    put("npy", "nonfinite.npy", npy(np.array([np.nan, np.inf, -np.inf], dtype=np.float32)))
    good = npy(np.ones((4, 4), dtype=np.float32))
    put("npy", "edge_truncated.npy", good[:-5])
    put("npy", "edge_header_only.npy", good[:20])
    put("npy", "edge_bad_magic.npy", b"hello world, not numpy")
    put("npy", "edge_lying_shape.npy", good.replace(b"(4, 4)", b"(9, 9)"))
    put("npy", "edge_huge_shape.npy", good.replace(b"(4, 4)", b"(1000000, 1000000)"))
    put("npy", "edge_overflow_shape.npy",
        good.replace(b"(4, 4), }", b"(999999999999999, 999999999999999, 99999, 9)}"))
    put("npy", "edge_negative_shape.npy", good.replace(b"(4, 4)", b"(-4, 4)"))
    put("npy", "edge_complex.npy", good.replace(b"<f4", b"<c8"))
    put("npy", "edge_header_len.npy", good[:8] + struct.pack("<H", 0xFFFF) + good[10:])
    put("npy", "edge_v9.npy", good[:6] + b"\x09\x00" + good[8:])


def npz_seeds():
    q = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10
    toks = np.array(["a", "b", "c"])
    put("npz", "stored.npz", npz({"q": q, "tokens": toks}))
    put("npz", "deflated.npz", npz({"q": q, "tokens": toks}, compressed=True))
    put("npz", "empty.npz", npz({}))
    good = npz({"x": np.ones((2, 2), dtype=np.float32)})
    put("npz", "edge_truncated.npz", good[: len(good) // 2])
    put("npz", "edge_local_only.npz", b"PK\x03\x04 truncated")
    # Central directory claims a gigantic uncompressed size.
    b = bytearray(good)
    cd = b.rfind(b"PK\x01\x02")
    if cd >= 0:
        b[cd + 24:cd + 28] = struct.pack("<I", 0xFFFFFFF0)
    put("npz", "edge_huge_size.npz", bytes(b))
    zb = io.BytesIO()
    with zipfile.ZipFile(zb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("bomb.npy", npy(np.zeros((512, 512), dtype=np.float32)))
    put("npz", "edge_zeros_deflated.npz", zb.getvalue())
    zb = io.BytesIO()
    with zipfile.ZipFile(zb, "w", zipfile.ZIP_STORED) as z:
        z.writestr("notes.txt", "not an array")
    put("npz", "edge_not_npy_member.npz", zb.getvalue())


def mask_seeds():
    for i, spec in enumerate(["none", "causal", "", "causal+causal", "window:4", "causal+window:4",
                              "block:16", "global:0,5+window:2", "dilated:2:3", "random:0.5:7",
                              "padding:3", "window:-1", "window:99999999999", "block:0",
                              "global:", "global:1,,2", "+", "causal+", "窗口:3", "window:4\n"]):
        put("mask", f"spec{i:02d}.txt", spec)


def cli_seeds():
    seeds = {
        "run": "run\n--text\nThe cat sat.\n--out\n/nonexistent/x.npz",
        "metrics": "metrics\n--text\nThe cat sat on the mat\n--heads\n2\n--mask\ncausal\n--json",
        "export": "export\n--text\na b c\n--head\nall\n--size\n800x600\n--dpi\n300\n--out\nf.png",
        "cross": "run\n--text\na b\n--key-text\nc d e\n--mechanism\ndot\n--out\nr.npz",
        "all_options": "metrics\n--text\nx y z\n--heads\n3\n--d-model\n12\n--d-k\n5\n--temperature\n0.5\n"
                       "--seed\n7\n--init\northogonal\n--exec\ntiled\n--backend\nauto\n--mask\nnone",
        "help": "--help",
        "version": "--version",
        "bad_int": "run\n--text\nx\n--heads\ntwo\n--out\na.npz",
        "huge_int": "run\n--text\nx\n--heads\n99999999999999999999\n--out\na.npz",
        "neg": "metrics\n--text\nx\n--d-model\n-5",
        "temp_nan": "metrics\n--text\nx\n--temperature\nnan",
        "empty_text": "metrics\n--text\n",
        "unknown": "frobnicate\n--x",
        "equals": "metrics\n--text=a b\n--mask=causal",
    }
    for name, s in seeds.items():
        put("cli_options", name + ".txt", s)


def session_seeds():
    import json
    full = {"format": "attnscope-session", "version": 1,
            "input": {"text": "The cat sat on the mat.", "key_text": "", "tokenizer": "words", "file": ""},
            "config": {"mechanism": "scaled_dot", "heads": 4, "d_model": 64, "d_k": 0,
                       "temperature": 1.0, "mask": "causal", "positional": "none",
                       "init": "xavier", "seed": 42, "exec": "auto", "backend": "cpu"},
            "view": {"head": 0, "pinned_row": -1, "quantity": "weights", "colormap": "viridis"}}
    put("session", "full.json", json.dumps(full, indent=2, ensure_ascii=False))
    put("session", "minimal.json", '{"format": "attnscope-session", "version": 1}')
    cjk = json.loads(json.dumps(full))
    cjk["input"]["text"] = "猫坐在垫子上。"
    cjk["config"]["mask"] = "causal+window:2"
    put("session", "cjk.json", json.dumps(cjk, ensure_ascii=False))
    edges = {
        "not_json": "attnscope",
        "array": "[1, 2, 3]",
        "wrong_format": '{"format": "other", "version": 1}',
        "future_version": '{"format": "attnscope-session", "version": 99}',
        "version_string": '{"format": "attnscope-session", "version": "1"}',
        "heads_huge": '{"format": "attnscope-session", "version": 1, "config": {"heads": 1e300}}',
        "heads_negative": '{"format": "attnscope-session", "version": 1, "config": {"heads": -3}}',
        "temperature_nan": '{"format": "attnscope-session", "version": 1, "config": {"temperature": "NaN"}}',
        "mask_newline": r'{"format": "attnscope-session", "version": 1, "config": {"mask": "cau\nsal"}}',
        "mech_newline": r'{"format": "attnscope-session", "version": 1, "config": {"mechanism": "a\nb"}}',
        "section_wrong_type": '{"format": "attnscope-session", "version": 1, "input": []}',
        "text_number": '{"format": "attnscope-session", "version": 1, "input": {"text": 5}}',
        "bad_utf8": b'{"format": "attnscope-session", "version": 1, "input": {"text": "\xff\xfe"}}',
        "deep": "[" * 200 + "]" * 200,
        "truncated": json.dumps(full)[:120],
    }
    for name, body in edges.items():
        put("session", f"edge_{name}.json", body)


if __name__ == "__main__":
    npy_seeds()
    npz_seeds()
    mask_seeds()
    cli_seeds()
    session_seeds()
