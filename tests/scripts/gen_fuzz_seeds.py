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


SEP = "\n=====\n"  # tests/fuzz/fuzz_check.h kPartSeparator: several files in one input
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")


def fixture(*parts):
    with open(os.path.join(FIXTURES, *parts), "rb") as f:
        return f.read()


def safetensors(tensors, metadata=None, header_override=None):
    """tensors: list of (name, dtype, shape, raw bytes), laid out in order."""
    import json
    header, data = {}, b""
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    h = (header_override if header_override is not None else json.dumps(header)).encode()
    return struct.pack("<Q", len(h)) + h + data


def safetensors_seeds():
    f4 = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
    put("safetensors", "f32.safetensors", safetensors([("q", "F32", [2, 3], f4.tobytes())], {"format": "pt"}))
    put("safetensors", "dtypes.safetensors", safetensors([
        ("a", "F16", [2], np.array([1.5, -2], np.float16).tobytes()),
        ("b", "BF16", [1], b"\x80\x3f"),
        ("c", "F64", [1, 1], np.array([3.25]).tobytes()),
        ("d", "I64", [2], np.array([-7, 9], np.int64).tobytes()),
        ("e", "U8", [3], b"\x00\x7f\xff"),
        ("f", "BOOL", [2], b"\x00\x01"),
        ("g", "I32", [0, 4], b"")]))
    put("safetensors", "fixture_qkv.safetensors", fixture("io", "contract_qkv.safetensors"))
    put("safetensors", "edge_empty_header.safetensors", safetensors([]))
    put("safetensors", "edge_huge_header_len.safetensors", struct.pack("<Q", 10 << 30) + b"{}")
    put("safetensors", "edge_short.safetensors", b"\x02\x00\x00")
    put("safetensors", "edge_not_json.safetensors", safetensors([], header_override="nope"))
    put("safetensors", "edge_offsets_past_end.safetensors", safetensors(
        [], header_override='{"x": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}'))
    put("safetensors", "edge_shape_mismatch.safetensors", safetensors([("x", "F32", [3], b"\0" * 8)]))
    put("safetensors", "edge_huge_shape.safetensors", safetensors(
        [], header_override='{"x": {"dtype": "F32", "shape": [1000000, 1000000], "data_offsets": [0, 0]}}'))
    put("safetensors", "edge_zero_then_huge_dims.safetensors", safetensors(
        [], header_override='{"x": {"dtype": "F32", "shape": [0, 18446744073709551615], "data_offsets": [0, 0]}}'))
    put("safetensors", "edge_negative_dim.safetensors", safetensors(
        [], header_override='{"x": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 0]}}'))
    put("safetensors", "edge_bad_dtype.safetensors", safetensors([("x", "F8_E4M3", [2], b"\0\0")]))
    put("safetensors", "edge_dtype_number.safetensors", safetensors(
        [], header_override='{"x": {"dtype": 4, "shape": [1], "data_offsets": [0, 4]}}'))
    put("safetensors", "edge_overlap.safetensors", safetensors([], header_override=(
        '{"a": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]},'
        ' "b": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]}}')) + b"\1\2\3\4")
    put("safetensors", "edge_name_newline.safetensors", safetensors(
        [], header_override='{"a\\nb": {"dtype": "F99", "shape": [1], "data_offsets": [0, 0]}}'))
    put("safetensors", "edge_offsets_reversed.safetensors", safetensors(
        [], header_override='{"x": {"dtype": "U8", "shape": [0], "data_offsets": [4, 0]}}') + b"\0" * 4)


def csv_seeds():
    put("csv", "plain.csv", "0.5,0.5\n0.25,0.75\n")
    put("csv", "tokens.csv", "query\\key,The,cat\nThe,0.9,0.1\ncat,0.4,0.6\n")
    put("csv", "header_only_cols.csv", "a,b,c\n1,2,3\n")
    put("csv", "crlf_bom.csv", "\ufeff1e-3,+2\r\n-3.5,4E2\r\n")
    put("csv", "quoted.csv", '"x, y","say ""hi"""\n"multi\nline",1\n')
    put("csv", "fixture_attn_tokens.csv", fixture("io", "attn_tokens.csv"))
    put("csv", "edge_ragged.csv", "1,2\n3\n")
    put("csv", "edge_nan.csv", "1,nan\n2,3\n")
    put("csv", "edge_inf_overflow.csv", "1e39,1\n")
    put("csv", "edge_unclosed_quote.csv", '1,"2\n')
    put("csv", "edge_header_no_data.csv", "a,b\n")
    put("csv", "edge_quoted_newline_cell.csv", '1,2\n3,"x\ny"\n')
    put("csv", "edge_latin1.csv", b"1,\xe9\n")
    put("csv", "edge_wide_then_tall.csv", ",".join(["1"] * 64) + "\n" + "1\n" * 64)
    put("csv", "edge_blank_lines.csv", "\n\n1\n\n2\n")
    put("csv", "edge_labels_only.csv", "a\nb\n")


def vocab_txt_seeds():
    bert = fixture("tokenizers", "bert_vocab.txt").decode()
    put("vocab_txt", "bert.txt", bert + SEP + "The cat sat on the mat, unaffable! 我爱猫 Café [CLS]")
    put("vocab_txt", "crlf.txt", "[UNK]\r\nhello \r\n##s\r\n" + SEP + "hellos HELLO")
    put("vocab_txt", "cased.txt", "[UNK]\nHello\n##World\n" + SEP + "HelloWorld hello")
    put("vocab_txt", "edge_no_unk.txt", "the\ncat\n" + SEP + "the cat")
    put("vocab_txt", "edge_empty.txt", "")
    put("vocab_txt", "edge_blank_lines.txt", "\n\n[UNK]\n\n" + SEP + "x")
    put("vocab_txt", "edge_long_word.txt", "[UNK]\na\n##a\n" + SEP + "a" * 150 + " " + "a" * 99)
    put("vocab_txt", "edge_accents.txt", "[UNK]\ne\n##e\n" + SEP + "ÉÈ e\u0301 Ёж Ωμέγα")
    put("vocab_txt", "edge_bad_utf8.txt", b"[UNK]\n\xff\xfe\n" + SEP.encode() + b"\xff \xc3")


def gpt2_bpe_seeds():
    vocab = fixture("tokenizers", "gpt2_vocab.json").decode()
    merges = fixture("tokenizers", "gpt2_merges.txt").decode()
    put("gpt2_bpe", "fixture.txt", vocab + SEP + merges + SEP + "the theme: Hello world's 123 ok!\n\n  tabs\t")
    put("gpt2_bpe", "unicode.txt", '{"a": 0}' + SEP + "#version: 0.2\nĠ ä\nĠä n\n" + SEP + " än 猫 🙂 é")
    put("gpt2_bpe", "array_merges_no_vocab.txt", "{}" + SEP + "a b\nab c\n" + SEP + "abc abcabc")
    put("gpt2_bpe", "edge_vocab_array.txt", "[1, 2]" + SEP + "a b\n" + SEP + "ab")
    put("gpt2_bpe", "edge_vocab_float_id.txt", '{"a": 1.5}' + SEP + "a b\n" + SEP + "ab")
    put("gpt2_bpe", "edge_vocab_huge_id.txt", '{"a": 99999999999999999999}' + SEP + "a b\n" + SEP + "ab")
    put("gpt2_bpe", "edge_merge_three.txt", '{"a": 0}' + SEP + "a b c\n" + SEP + "abc")
    put("gpt2_bpe", "edge_merge_leading_space.txt", '{"a": 0}' + SEP + " a\n" + SEP + "a")
    put("gpt2_bpe", "edge_empty_both.txt", "{}" + SEP + "#version: 0.2\n" + SEP + "x")
    put("gpt2_bpe", "edge_crlf.txt", '{"a": 0}' + SEP + "#version: 0.2\r\na b\r\n" + SEP + "ab\r\n")
    put("gpt2_bpe", "edge_bad_utf8_text.txt", '{"a": 0}' + SEP + "a b\n" + SEP + "ab \xff")
    put("gpt2_bpe", "edge_contractions.txt", '{"a": 0}' + SEP + "' s\n" + SEP + "it's we'll I'M '  '")


def tokenizer_json_seeds():
    wp = fixture("tokenizers", "wordpiece_tokenizer.json").decode()
    bpe = fixture("tokenizers", "bpe_tokenizer.json").decode()
    put("tokenizer_json", "wordpiece.txt", wp + SEP + "The cat sat on the mat, unaffable! 我爱猫")
    put("tokenizer_json", "bpe.txt", bpe + SEP + "Hello world, the theme 123!")
    put("tokenizer_json", "bpe_sequence_pretok.txt",
        '{"pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "Split"}, {"type": "ByteLevel"}]},'
        ' "model": {"type": "BPE", "vocab": {"a": 0}, "merges": [["a", "b"], "ab c"]}}' + SEP + "abc")
    put("tokenizer_json", "edge_no_model.txt", '{"version": "1.0"}' + SEP + "x")
    put("tokenizer_json", "edge_model_no_vocab.txt", '{"model": {"type": "WordPiece"}}' + SEP + "x")
    put("tokenizer_json", "edge_unigram.txt", '{"model": {"type": "Unigram", "vocab": {}}}' + SEP + "x")
    put("tokenizer_json", "edge_lowercase_string.txt",
        '{"normalizer": {"lowercase": "yes"}, "model": {"type": "WordPiece", "vocab": {"[UNK]": 0}}}' + SEP + "x")
    put("tokenizer_json", "edge_unk_number.txt",
        '{"model": {"type": "WordPiece", "unk_token": 5, "vocab": {"[UNK]": 0}}}' + SEP + "x")
    put("tokenizer_json", "edge_unk_empty.txt",
        '{"model": {"type": "WordPiece", "unk_token": "", "vocab": {"[UNK]": 0, "a": 1}}}' + SEP + "a b")
    put("tokenizer_json", "edge_id_negative.txt",
        '{"model": {"type": "WordPiece", "vocab": {"[UNK]": -1}}}' + SEP + "x")
    put("tokenizer_json", "edge_id_sparse.txt",
        '{"model": {"type": "WordPiece", "vocab": {"[UNK]": 0, "a": 9000000}}}' + SEP + "a")
    put("tokenizer_json", "edge_bpe_not_bytelevel.txt",
        '{"pre_tokenizer": {"type": "Whitespace"}, "model": {"type": "BPE", "vocab": {}, "merges": []}}' + SEP + "x")
    put("tokenizer_json", "edge_bpe_merge_no_space.txt",
        '{"pre_tokenizer": {"type": "ByteLevel"}, "model": {"type": "BPE", "vocab": {}, "merges": ["ab"]}}' + SEP + "x")
    put("tokenizer_json", "edge_bpe_empty.txt",
        '{"pre_tokenizer": {"type": "ByteLevel"}, "model": {"type": "BPE", "vocab": {}, "merges": []}}' + SEP + "x")
    put("tokenizer_json", "edge_deep.txt", '{"model": ' + "[" * 300 + "]" * 300 + "}")


def image_seeds():
    """A binary PPM/PGM, then a preprocessor_config.json (the vision fixtures' own and edge cases)."""
    sep = SEP.encode("utf-8")
    scene = fixture("vision", "scene.ppm")
    vit = fixture("models", "vit", "preprocessor_config.json")
    deit = fixture("models", "deit", "preprocessor_config.json")
    pgm = b"P5\n# grey\n3 2\n255\n" + bytes([0, 128, 255, 10, 20, 30])
    pgm16 = b"P5 2 2 65535\n" + bytes([0, 1, 255, 255, 128, 0, 0, 0])
    put("image", "scene_vit.seed", scene + sep + vit)
    put("image", "scene_deit.seed", scene + sep + deit)
    put("image", "pgm_shortest_edge.seed", pgm + sep + b'{"size": {"shortest_edge": 5}, "do_center_crop": true, '
        b'"crop_size": {"height": 4, "width": 4}, "resample": 3}')
    put("image", "pgm16_nearest.seed", pgm16 + sep + b'{"size": {"height": 7, "width": 3}, "resample": 0, '
        b'"image_mean": [0.1, 0.2, 0.3], "image_std": [1, 2, 3]}')
    put("image", "edge_huge_header.seed", b"P6\n60000 60000\n255\n" + b"\x00" * 12 + sep + vit)
    put("image", "edge_truncated_data.seed", b"P6\n4 4\n255\n" + b"\x01" * 20 + sep + vit)
    put("image", "edge_bad_maxval.seed", b"P6\n1 1\n0\n\x00\x00\x00" + sep + b'{"resample": 9}')
    put("image", "edge_crop_larger.seed", pgm + sep + b'{"size": {"height": 4, "width": 4}, "do_center_crop": true, '
        b'"crop_size": {"height": 9, "width": 9}}')
    put("image", "edge_deep_json.seed", pgm + sep + b"[" * 5000)


if __name__ == "__main__":
    npy_seeds()
    npz_seeds()
    mask_seeds()
    cli_seeds()
    session_seeds()
    safetensors_seeds()
    csv_seeds()
    vocab_txt_seeds()
    gpt2_bpe_seeds()
    tokenizer_json_seeds()
    image_seeds()
