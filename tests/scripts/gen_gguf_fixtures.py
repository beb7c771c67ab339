#!/usr/bin/python3
"""GGUF fixtures, written from ggml's specification (docs/gguf.md, ggml-common.h,
ggml-quants.c) with numpy alone: there is no Python gguf package here.

  dequant/<TYPE>.blocks, <TYPE>.values   random blocks of each type and the values ggml's
                                         reference dequantizer gives them (gguf_ref.py)

Run with Debian's /usr/bin/python3 (numpy) from the repository root:
  /usr/bin/python3 tests/scripts/gen_gguf_fixtures.py
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gguf_ref as G  # noqa: E402

OUT = os.path.normpath(os.path.join(HERE, "..", "fixtures", "gguf"))

# Offsets of each block's fp16 fields: random bytes elsewhere, finite scales there (a NaN
# or Inf scale is a fault of its own, not a decoding case).
HALF_FIELDS = {"Q4_0": [0], "Q4_1": [0, 2], "Q5_0": [0], "Q5_1": [0, 2], "Q8_0": [0], "Q2_K": [80, 82],
               "Q3_K": [108], "Q4_K": [0, 2], "Q5_K": [0, 2], "Q6_K": [208]}


def random_blocks(rng, name, count):
    _, _, size = G.TYPES[name]
    b = rng.integers(0, 256, size=(count, size), dtype=np.uint8)
    for at in HALF_FIELDS[name]:
        # Magnitudes from subnormal to large, both signs, a few exact zeros.
        v = (rng.standard_normal(count) * np.exp2(rng.integers(-20, 8, count))).astype(np.float16)
        v[:2] = [0.0, -0.0] if count > 2 else v[:2]
        b[:, at:at + 2] = v.astype("<f2").reshape(-1, 1).view(np.uint8)
    return b


def write_dequant():
    folder = os.path.join(OUT, "dequant")
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(3141)
    for name in HALF_FIELDS:
        qk = G.TYPES[name][1]
        count = 40 if qk == 32 else 12
        blocks = random_blocks(rng, name, count)
        values = G.DEQUANT[name](blocks).astype("<f4")
        assert values.shape == (count, qk), (name, values.shape)
        assert np.isfinite(values).all(), name
        blocks.tofile(os.path.join(folder, name + ".blocks"))
        values.tofile(os.path.join(folder, name + ".values"))
    # F16 / BF16: every bit pattern but NaN/Inf of a random sample, checked by value in the test
    raw = rng.integers(0, 65536, 512, dtype=np.uint16)
    for name in ("F16", "BF16"):
        r = raw.copy()
        exp = (r >> 10) & 0x1F if name == "F16" else (r >> 7) & 0xFF
        r = r[exp != (0x1F if name == "F16" else 0xFF)]
        vals = G.dequantize(name, r.astype("<u2").tobytes()).astype("<f4")
        r.astype("<u2").tofile(os.path.join(folder, name + ".blocks"))
        vals.tofile(os.path.join(folder, name + ".values"))
    print("dequant fixtures in", folder)


def main():
    write_dequant()


if __name__ == "__main__":
    main()
