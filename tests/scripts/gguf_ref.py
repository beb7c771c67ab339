"""ggml's GGUF format and block dequantizers in numpy, written from ggml's docs/gguf.md,
ggml-common.h (block layouts) and ggml-quants.c (dequantize_row_*), for the fixtures of
gen_gguf_fixtures.py. Arithmetic is float32 step by step in the reference's order, so the
values are the C code's bit for bit (no fused multiply-add)."""
import struct

import numpy as np

F32 = np.float32

# ggml_type: (number, values per block, bytes per block)
TYPES = {
    "F32": (0, 1, 4), "F16": (1, 1, 2), "Q4_0": (2, 32, 18), "Q4_1": (3, 32, 20), "Q5_0": (6, 32, 22),
    "Q5_1": (7, 32, 24), "Q8_0": (8, 32, 34), "Q2_K": (10, 256, 84), "Q3_K": (11, 256, 110),
    "Q4_K": (12, 256, 144), "Q5_K": (13, 256, 176), "Q6_K": (14, 256, 210), "BF16": (30, 1, 2),
}


def half(b, at):
    """The fp16 at byte `at` of every block, as float32 [nb, 1]."""
    return b[:, at:at + 2].copy().view("<f2").astype(F32)


def deq_q4_0(b):
    d, qs = half(b, 0), b[:, 2:18].astype(np.int32)
    return np.concatenate([((qs & 0xF) - 8).astype(F32) * d, ((qs >> 4) - 8).astype(F32) * d], axis=1)


def deq_q4_1(b):
    d, m, qs = half(b, 0), half(b, 2), b[:, 4:20].astype(np.int32)
    return np.concatenate([(qs & 0xF).astype(F32) * d + m, (qs >> 4).astype(F32) * d + m], axis=1)


def q5_values(qh_bytes, qs):
    qh = qh_bytes.copy().view("<u4").astype(np.int64)  # [nb, 1]
    j = np.arange(16)
    xh0 = ((qh >> j) << 4) & 0x10
    xh1 = (qh >> (j + 12)) & 0x10
    return (qs & 0xF) | xh0, (qs >> 4) | xh1


def deq_q5_0(b):
    d = half(b, 0)
    x0, x1 = q5_values(b[:, 2:6], b[:, 6:22].astype(np.int64))
    return np.concatenate([(x0 - 16).astype(F32) * d, (x1 - 16).astype(F32) * d], axis=1)


def deq_q5_1(b):
    d, m = half(b, 0), half(b, 2)
    x0, x1 = q5_values(b[:, 4:8], b[:, 8:24].astype(np.int64))
    return np.concatenate([x0.astype(F32) * d + m, x1.astype(F32) * d + m], axis=1)


def deq_q8_0(b):
    return b[:, 2:34].copy().view(np.int8).astype(F32) * half(b, 0)


def deq_q2_K(b):
    sc, q = b[:, 0:16].astype(np.int32), b[:, 16:80].astype(np.int32)
    d, mn = half(b, 80), half(b, 82)
    out, is_ = [], 0
    for n in range(2):
        qq = q[:, 32 * n:32 * n + 32]
        for shift in (0, 2, 4, 6):
            for h in range(2):
                s = sc[:, is_:is_ + 1]
                is_ += 1
                dl, ml = d * (s & 0xF).astype(F32), mn * (s >> 4).astype(F32)
                out.append(dl * ((qq[:, 16 * h:16 * h + 16] >> shift) & 3).astype(F32) - ml)
    return np.concatenate(out, axis=1)


def deq_q3_K(b):
    hm, q = b[:, 0:32].astype(np.int32), b[:, 32:96].astype(np.int32)
    raw, d = b[:, 96:108].astype(np.int32), half(b, 108)
    # 16 6-bit scales: scale i's low nibble is nibble (i % 8) of bytes 0..7 (low nibbles for i < 8),
    # its top 2 bits bits 2*(i // 4) of byte 8 + i % 4 (ggml's kmask shuffle, written out).
    scales = []
    for i in range(16):
        low = (raw[:, i % 8] >> (4 * (i // 8))) & 0xF
        high = (raw[:, 8 + i % 4] >> (2 * (i // 4))) & 3
        scales.append(((low | (high << 4)) - 32)[:, None])
    out, is_, m = [], 0, 1
    for n in range(2):
        qq = q[:, 32 * n:32 * n + 32]
        for shift in (0, 2, 4, 6):
            for h in range(2):
                dl = d * scales[is_].astype(F32)
                is_ += 1
                sl = slice(16 * h, 16 * h + 16)
                v = ((qq[:, sl] >> shift) & 3) - np.where(hm[:, sl] & m, 0, 4)
                out.append(dl * v.astype(F32))
            m <<= 1
    return np.concatenate(out, axis=1)


def scale_min_k4(j, s):
    if j < 4:
        return s[:, j:j + 1] & 63, s[:, j + 4:j + 5] & 63
    return ((s[:, j + 4:j + 5] & 0xF) | ((s[:, j - 4:j - 3] >> 6) << 4),
            (s[:, j + 4:j + 5] >> 4) | ((s[:, j:j + 1] >> 6) << 4))


def deq_qk45(b, five):
    d, mn, s = half(b, 0), half(b, 2), b[:, 4:16].astype(np.int32)
    qh = b[:, 16:48].astype(np.int32) if five else None
    ql = b[:, 48:176].astype(np.int32) if five else b[:, 16:144].astype(np.int32)
    out, u1, u2 = [], 1, 2
    for k in range(4):
        q = ql[:, 32 * k:32 * k + 32]
        sc, m = scale_min_k4(2 * k, s)
        d1, m1 = d * sc.astype(F32), mn * m.astype(F32)
        sc, m = scale_min_k4(2 * k + 1, s)
        d2, m2 = d * sc.astype(F32), mn * m.astype(F32)
        lo, hi = q & 0xF, q >> 4
        if five:
            lo = lo + np.where(qh & u1, 16, 0)
            hi = hi + np.where(qh & u2, 16, 0)
        out += [d1 * lo.astype(F32) - m1, d2 * hi.astype(F32) - m2]
        u1 <<= 2
        u2 <<= 2
    return np.concatenate(out, axis=1)


def deq_q6_K(b):
    ql, qh = b[:, 0:128].astype(np.int32), b[:, 128:192].astype(np.int32)
    sc, d = b[:, 192:208].copy().view(np.int8).astype(np.int32), half(b, 208)
    y = np.zeros((b.shape[0], 256), F32)
    for n in range(2):
        L, H, S = ql[:, 64 * n:64 * n + 64], qh[:, 32 * n:32 * n + 32], sc[:, 8 * n:8 * n + 8]
        for l in range(32):
            is_ = l // 16
            q1 = ((L[:, l] & 0xF) | (((H[:, l] >> 0) & 3) << 4)) - 32
            q2 = ((L[:, l + 32] & 0xF) | (((H[:, l] >> 2) & 3) << 4)) - 32
            q3 = ((L[:, l] >> 4) | (((H[:, l] >> 4) & 3) << 4)) - 32
            q4 = ((L[:, l + 32] >> 4) | (((H[:, l] >> 6) & 3) << 4)) - 32
            for off, qv, k in ((0, q1, 0), (32, q2, 2), (64, q3, 4), (96, q4, 6)):
                y[:, 128 * n + l + off] = d[:, 0] * S[:, is_ + k].astype(F32) * qv.astype(F32)
    return y


DEQUANT = {"Q4_0": deq_q4_0, "Q4_1": deq_q4_1, "Q5_0": deq_q5_0, "Q5_1": deq_q5_1, "Q8_0": deq_q8_0,
           "Q2_K": deq_q2_K, "Q3_K": deq_q3_K, "Q4_K": lambda b: deq_qk45(b, False),
           "Q5_K": lambda b: deq_qk45(b, True), "Q6_K": deq_q6_K}


def dequantize(type_name, raw):
    """Values of a whole tensor's bytes (F32 / F16 / BF16 or blocks)."""
    raw = np.frombuffer(raw, np.uint8)
    if type_name == "F32":
        return raw.view("<f4").astype(F32)
    if type_name == "F16":
        return raw.view("<f2").astype(F32)
    if type_name == "BF16":
        return (raw.view("<u2").astype(np.uint32) << 16).view(F32)
    _, qk, size = TYPES[type_name]
    return DEQUANT[type_name](raw.reshape(-1, size)).reshape(-1)


# --- quantizers (simple round-to-nearest; any valid block decodes the same way) ---------------

def to_f16_bytes(x):
    return np.asarray(x, F32).astype("<f2").reshape(-1, 1).view(np.uint8)


def quantize_q8_0(x):  # ggml quantize_row_q8_0_ref: d = amax / 127, q = round(x / d)
    x = x.reshape(-1, 32).astype(F32)
    amax = np.abs(x).max(axis=1, keepdims=True)
    d = amax / F32(127)
    inv = np.where(d != 0, F32(1) / np.where(d != 0, d, 1), 0).astype(F32)
    q = np.round(x * inv).astype(np.int8)
    return np.concatenate([to_f16_bytes(d), q.view(np.uint8)], axis=1).tobytes()


def quantize_q4_0(x):  # quantize_row_q4_0_ref: d = max / -8 (signed max), q = min(15, x / d + 8.5)
    x = x.reshape(-1, 32).astype(F32)
    idx = np.abs(x).argmax(axis=1)
    mx = x[np.arange(x.shape[0]), idx][:, None]
    d = mx / F32(-8)
    inv = np.where(d != 0, F32(1) / np.where(d != 0, d, 1), 0).astype(F32)
    q = np.minimum(15, (x * inv + F32(8.5)).astype(np.int8)).astype(np.uint8)
    qs = q[:, :16] | (q[:, 16:] << 4)
    return np.concatenate([to_f16_bytes(d), qs], axis=1).tobytes()



def quantize_q4_K(x):
    """block_q4_K (ggml-common.h): 8 sub-blocks of 32 with 6-bit scales and mins under fp16 d and
    dmin, 4-bit values; x ~ d * sc * q - dmin * m. Plain rounding (not ggml's optimal search):
    any valid block decodes by deq_qk45 the same way."""
    x = x.reshape(-1, 8, 32).astype(F32)
    nb = x.shape[0]
    mn = np.minimum(x.min(axis=2), 0).astype(F32)
    scale = ((x.max(axis=2) - mn) / F32(15)).astype(F32)
    d = (scale.max(axis=1) / F32(63)).astype(np.float16).astype(F32)
    dmin = ((-mn).max(axis=1) / F32(63)).astype(np.float16).astype(F32)
    safe = lambda v: np.where(v != 0, v, 1)  # noqa: E731
    sc = np.clip(np.round(scale / safe(d)[:, None]), 0, 63).astype(np.int32)
    m = np.clip(np.round(-mn / safe(dmin)[:, None]), 0, 63).astype(np.int32)
    D, M = d[:, None] * sc.astype(F32), dmin[:, None] * m.astype(F32)
    q = np.clip(np.round((x + M[:, :, None]) / safe(D)[:, :, None]), 0, 15).astype(np.int32)
    q = np.where(D[:, :, None] != 0, q, 0)
    s = np.zeros((nb, 12), np.int32)
    for j in range(8):
        if j < 4:
            s[:, j] |= sc[:, j]
            s[:, j + 4] |= m[:, j]
        else:
            s[:, j + 4] |= (sc[:, j] & 0xF) | ((m[:, j] & 0xF) << 4)
            s[:, j - 4] |= (sc[:, j] >> 4) << 6
            s[:, j] |= (m[:, j] >> 4) << 6
    qs = np.concatenate([q[:, 2 * k] | (q[:, 2 * k + 1] << 4) for k in range(4)], axis=1)
    return np.concatenate([to_f16_bytes(d), to_f16_bytes(dmin), s.astype(np.uint8), qs.astype(np.uint8)],
                          axis=1).tobytes()


def quantize_q6_K(x):
    """block_q6_K: 16 sub-blocks of 16 with int8 scales under fp16 d, 6-bit values stored as
    4 low bits (ql) and 2 high bits (qh); x ~ d * sc * (q - 32). Plain rounding."""
    x = x.reshape(-1, 16, 16).astype(F32)
    nb = x.shape[0]
    scale = (np.abs(x).max(axis=2) / F32(31)).astype(F32)
    d = (scale.max(axis=1) / F32(127)).astype(np.float16).astype(F32)
    safe = lambda v: np.where(v != 0, v, 1)  # noqa: E731
    sc = np.clip(np.round(scale / safe(d)[:, None]), 0, 127).astype(np.int32)
    D = d[:, None] * sc.astype(F32)
    q = np.clip(np.round(x / safe(D)[:, :, None]), -32, 31).astype(np.int32) + 32
    q = np.where(D[:, :, None] != 0, q, 32).reshape(nb, 256)
    ql, qh = np.zeros((nb, 128), np.int32), np.zeros((nb, 64), np.int32)
    for n in range(2):
        for l in range(32):
            q1, q2, q3, q4 = (q[:, 128 * n + l + off] for off in (0, 32, 64, 96))
            ql[:, 64 * n + l] = (q1 & 0xF) | ((q3 & 0xF) << 4)
            ql[:, 64 * n + l + 32] = (q2 & 0xF) | ((q4 & 0xF) << 4)
            qh[:, 32 * n + l] = (q1 >> 4) | ((q2 >> 4) << 2) | ((q3 >> 4) << 4) | ((q4 >> 4) << 6)
    return np.concatenate([ql.astype(np.uint8), qh.astype(np.uint8), sc.astype(np.int8).view(np.uint8),
                           to_f16_bytes(d)], axis=1).tobytes()

# --- the file format ------------------------------------------------------------------------

VT = {"u8": 0, "i8": 1, "u16": 2, "i16": 3, "u32": 4, "i32": 5, "f32": 6, "bool": 7, "str": 8, "arr": 9,
      "u64": 10, "i64": 11, "f64": 12}
PACK = {"u8": "<B", "i8": "<b", "u16": "<H", "i16": "<h", "u32": "<I", "i32": "<i", "f32": "<f", "bool": "<?",
        "u64": "<Q", "i64": "<q", "f64": "<d"}


def gstr(s):
    b = s.encode("utf-8") if isinstance(s, str) else s
    return struct.pack("<Q", len(b)) + b


def gvalue(kind, v):
    if kind == "str":
        return gstr(v)
    if kind.startswith("arr:"):
        et = kind[4:]
        return struct.pack("<IQ", VT[et], len(v)) + b"".join(gvalue(et, e) for e in v)
    return struct.pack(PACK[kind], v)


def write_gguf(path, metadata, tensors, alignment=32, version=3):
    """metadata: [(key, kind, value)] with kind 'u32', 'f32', 'str', 'arr:str', ...;
    tensors: [(name, dims in ggml order (fastest first), type name, raw bytes)]. Written
    piece by piece, so a file of several GB needs no second copy of it in memory."""
    head = bytearray(b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(metadata)))
    for key, kind, v in metadata:
        head += gstr(key) + struct.pack("<I", VT["arr"] if kind.startswith("arr:") else VT[kind]) + gvalue(kind, v)
    offset, placed = 0, []
    for name, dims, tname, raw in tensors:
        head += gstr(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
        head += struct.pack("<IQ", TYPES[tname][0], offset)
        placed.append((offset, raw))
        offset += (len(raw) + alignment - 1) // alignment * alignment
    head += b"\0" * ((alignment - len(head) % alignment) % alignment)
    with open(path, "wb") as f:
        f.write(head)
        at = 0
        for off, raw in placed:
            f.write(b"\0" * (off - at))
            f.write(raw)
            at = off + len(raw)
