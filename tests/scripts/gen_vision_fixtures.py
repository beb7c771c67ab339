#!/usr/bin/python3
"""Writes the vision-transformer reference fixtures: a small test image, small random
ViT (ViTForImageClassification) and DeiT (DeiTForImageClassificationWithTeacher, with the
distillation token) models as Hugging Face folders (config.json with id2label,
model.safetensors with Hugging Face's tensor names, preprocessor_config.json), and what a
plain-PyTorch port of the Hugging Face code computes on the image.

Run (from the repository root; Debian's python3-torch 1.13 + numpy, no transformers, no PIL):

    /usr/bin/python3 tests/scripts/gen_vision_fixtures.py

Writes
  tests/fixtures/vision/scene.ppm        a 44 x 36 RGB test picture (binary PPM, 8 bit);
  tests/fixtures/models/<vit|deit>/      the model folders, and in each reference.npz:
      pixel_values [3, S, S]   the image preprocessed as preprocessor_config.json says
                               (ViTImageProcessor / DeiTImageProcessor): PIL's resize with the
                               named resampling (ported below to numpy, 8-bit fixed point as
                               Pillow's Resample.c computes it), centre crop, rescale, normalise;
      attn [L, H, N, N]        every layer's attention weights (N = [CLS] (+ distillation) + patches);
      hidden [L + 1, N, d]     HF output_hidden_states (embeddings, then each layer's output);
      last [N, d]              after the final layernorm;
      logits [labels]          the classifier's logits;  top5 [5] int64 label ids by probability,
      top5_probs [5]           their softmax probabilities.

The forward (transformers/models/vit/modeling_vit.py, deit/modeling_deit.py, eager attention)
is checked against an independent float64 numpy forward that embeds the patches as a GEMM on
unfolded pixels (torch uses nn.Conv2d) and loops over heads.
"""
import json
import math
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hf_folder  # noqa: E402

FIXTURES = os.path.normpath(os.path.join(HERE, "..", "fixtures"))
IMAGE = os.path.join(FIXTURES, "vision", "scene.ppm")

LABELS = ["tabby cat", "golden retriever", "红狐狸", "café au lait", "tree frog",
          "sports car", "лодка", "mountain bike", "teapot", "über-hat"]

BASE_CFG = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
                hidden_act="gelu", layer_norm_eps=1e-12, image_size=32, patch_size=8, num_channels=3,
                qkv_bias=True)

VIT_PRE = {"do_normalize": True, "do_rescale": True, "do_resize": True, "image_mean": [0.5, 0.5, 0.5],
           "image_processor_type": "ViTImageProcessor", "image_std": [0.5, 0.5, 0.5], "resample": 2,
           "rescale_factor": 0.00392156862745098, "size": {"height": 32, "width": 32}}
DEIT_PRE = {"crop_size": {"height": 32, "width": 32}, "do_center_crop": True, "do_normalize": True,
            "do_rescale": True, "do_resize": True, "image_mean": [0.485, 0.456, 0.406],
            "image_processor_type": "DeiTImageProcessor", "image_std": [0.229, 0.224, 0.225], "resample": 3,
            "rescale_factor": 0.00392156862745098, "size": {"height": 40, "width": 40}}


# ---------------------------------------------------------------------------
# The test image: smooth gradients, a hard-edged disc and stripes (bicubic overshoots at
# the edges, so the 8-bit clipping is exercised), a little seeded noise.

def make_image():
    h, w = 36, 44
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    img = np.zeros((h, w, 3))
    img[..., 0] = 40 + 180 * x / (w - 1)
    img[..., 1] = 30 + 150 * y / (h - 1)
    img[..., 2] = 90 + 60 * np.sin(x / 5.0) * np.cos(y / 7.0)
    disc = (x - 27) ** 2 + (y - 15) ** 2 < 9 ** 2
    img[disc] = [250, 240, 20]
    stripes = (x < 12) & (y > 20) & ((x.astype(int) // 2) % 2 == 0)
    img[stripes] = [0, 0, 0]
    img += np.random.default_rng(38).normal(0, 6, img.shape)
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


def write_ppm(path, img):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(b"P6\n# AttnScope vision test image\n%d %d\n255\n" % (img.shape[1], img.shape[0]))
        f.write(img.tobytes())


# ---------------------------------------------------------------------------
# Pillow's resize for 8-bit images (src/libImaging/Resample.c: precompute_coeffs,
# normalize_coeffs_8bpc, ImagingResampleHorizontal_8bpc then ImagingResampleVertical_8bpc),
# which Hugging Face's image processors call through PIL.Image.resize.

PRECISION_BITS = 32 - 8 - 2


def box_filter(x):
    return 1.0 if -0.5 < x <= 0.5 else 0.0


def bilinear_filter(x):
    x = abs(x)
    return 1.0 - x if x < 1.0 else 0.0


def hamming_filter(x):
    x = abs(x)
    if x == 0.0:
        return 1.0
    if x >= 1.0:
        return 0.0
    x = x * math.pi
    return math.sin(x) / x * (0.54 + 0.46 * math.cos(x))


def bicubic_filter(x):
    a = -0.5
    x = abs(x)
    if x < 1.0:
        return ((a + 2.0) * x - (a + 3.0)) * x * x + 1
    if x < 2.0:
        return (((x - 5) * x + 8) * x - 4) * a
    return 0.0


def sinc(x):
    if x == 0.0:
        return 1.0
    x = x * math.pi
    return math.sin(x) / x


def lanczos_filter(x):
    return sinc(x) * sinc(x / 3) if -3.0 <= x < 3.0 else 0.0


# PIL.Image.Resampling: NEAREST 0, LANCZOS 1, BILINEAR 2, BICUBIC 3, BOX 4, HAMMING 5
FILTERS = {1: (lanczos_filter, 3.0), 2: (bilinear_filter, 1.0), 3: (bicubic_filter, 2.0),
           4: (box_filter, 0.5), 5: (hamming_filter, 1.0)}


def coeffs(in_size, out_size, resample):
    filt, support0 = FILTERS[resample]
    scale = in_size / out_size
    filterscale = max(scale, 1.0)
    support = support0 * filterscale
    rows = []
    for xx in range(out_size):
        center = (xx + 0.5) * scale
        ss = 1.0 / filterscale
        xmin = max(int(center - support + 0.5), 0)
        xmax = min(int(center + support + 0.5), in_size) - xmin
        k = [filt((x + xmin - center + 0.5) * ss) for x in range(xmax)]
        ww = sum(k)  # summed left to right, as the C loop does
        if ww != 0.0:
            k = [v / ww for v in k]
        kk = [int(-0.5 + v * (1 << PRECISION_BITS)) if v < 0 else int(0.5 + v * (1 << PRECISION_BITS)) for v in k]
        rows.append((xmin, np.array(kk, np.int64)))
    return rows


def resample_axis(img, out_size, resample, axis):
    """One pass along `axis` (1: horizontal, 0: vertical) of an [H, W, C] uint8 image."""
    src = np.moveaxis(img.astype(np.int64), axis, 0)
    out = np.empty((out_size,) + src.shape[1:], np.int64)
    for xx, (xmin, k) in enumerate(coeffs(src.shape[0], out_size, resample)):
        ss = (1 << (PRECISION_BITS - 1)) + np.tensordot(k, src[xmin:xmin + len(k)], axes=(0, 0))
        out[xx] = np.clip(ss >> PRECISION_BITS, 0, 255)
    return np.moveaxis(out, 0, axis).astype(np.uint8)


def pil_resize(img, out_h, out_w, resample):
    h, w = img.shape[:2]
    if (h, w) == (out_h, out_w):
        return img.copy()
    if w != out_w:
        img = resample_axis(img, out_w, resample, 1)
    if h != out_h:
        img = resample_axis(img, out_h, resample, 0)
    return img


def preprocess(img, pre):
    """ViTImageProcessor / DeiTImageProcessor.preprocess on an [H, W, 3] uint8 image -> [3, H', W'] float32."""
    if pre.get("do_resize", True):
        img = pil_resize(img, pre["size"]["height"], pre["size"]["width"], pre["resample"])
    if pre.get("do_center_crop", False):  # image_transforms.center_crop
        ch, cw = pre["crop_size"]["height"], pre["crop_size"]["width"]
        top, left = (img.shape[0] - ch) // 2, (img.shape[1] - cw) // 2
        img = img[top:top + ch, left:left + cw]
    x = img
    if pre.get("do_rescale", True):  # image_transforms.rescale: float64 product, then float32
        x = (img.astype(np.float64) * pre["rescale_factor"]).astype(np.float32)
    if pre.get("do_normalize", True):  # image_transforms.normalize, in the image's float32
        mean = np.array(pre["image_mean"], dtype=np.float32)
        std = np.array(pre["image_std"], dtype=np.float32)
        x = (x - mean) / std
    return np.ascontiguousarray(x.transpose(2, 0, 1)).astype(np.float32)


# ---------------------------------------------------------------------------
# The models (plain PyTorch ports of ViTModel / DeiTModel and their heads)

def build(cfg, seed, distill, teacher):
    g = torch.Generator().manual_seed(seed)

    def rnd(*shape, std=0.2, mean=0.0):
        return torch.randn(*shape, generator=g) * std + mean
    d, inter, p, c = cfg["hidden_size"], cfg["intermediate_size"], cfg["patch_size"], cfg["num_channels"]
    n = (cfg["image_size"] // p) ** 2 + 1 + distill
    w = {"embeddings.cls_token": rnd(1, 1, d, std=1.0),
         "embeddings.position_embeddings": rnd(1, n, d, std=0.5),
         "embeddings.patch_embeddings.projection.weight": rnd(d, c, p, p, std=0.1),
         "embeddings.patch_embeddings.projection.bias": rnd(d, std=0.1)}
    if distill:
        w["embeddings.distillation_token"] = rnd(1, 1, d, std=1.0)
    for i in range(cfg["num_hidden_layers"]):
        q = f"encoder.layer.{i}."
        for name, (o, k) in {"attention.attention.query": (d, d), "attention.attention.key": (d, d),
                             "attention.attention.value": (d, d), "attention.output.dense": (d, d),
                             "intermediate.dense": (inter, d), "output.dense": (d, inter)}.items():
            w[q + name + ".weight"] = rnd(o, k, std=0.6 / math.sqrt(k) * (2.5 if "query" in name or "key" in name else 1))
            w[q + name + ".bias"] = rnd(o, std=0.1)
        for ln in ("layernorm_before", "layernorm_after"):
            w[q + ln + ".weight"] = rnd(d, std=0.1, mean=1.0)
            w[q + ln + ".bias"] = rnd(d, std=0.1)
    w["layernorm.weight"] = rnd(d, std=0.1, mean=1.0)
    w["layernorm.bias"] = rnd(d, std=0.1)
    heads = ["cls_classifier", "distillation_classifier"] if teacher else ["classifier"]
    head = {}
    for h in heads:
        head[h + ".weight"] = rnd(len(LABELS), d, std=1.0)
        head[h + ".bias"] = rnd(len(LABELS), std=0.1)
    return w, head


def layer_norm(x, w, prefix, eps):
    return F.layer_norm(x, (x.shape[-1],), w[prefix + ".weight"], w[prefix + ".bias"], eps)


def lin(x, w, prefix):
    return F.linear(x, w[prefix + ".weight"], w[prefix + ".bias"])


def forward(w, head, cfg, pixels, distill, teacher):
    """ViTModel / DeiTModel (eager) + the classification head on one image [3, S, S]."""
    H, eps = cfg["num_attention_heads"], cfg["layer_norm_eps"]
    d = cfg["hidden_size"]
    hd = d // H
    x = torch.from_numpy(pixels)[None]
    emb = F.conv2d(x, w["embeddings.patch_embeddings.projection.weight"],
                   w["embeddings.patch_embeddings.projection.bias"], stride=cfg["patch_size"])
    emb = emb.flatten(2).transpose(1, 2)  # ViTPatchEmbeddings: [1, patches, d], row-major over the grid
    toks = [w["embeddings.cls_token"]] + ([w["embeddings.distillation_token"]] if distill else [])
    h = torch.cat(toks + [emb], dim=1) + w["embeddings.position_embeddings"]
    hidden, attn = [h[0]], []
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        a = layer_norm(h, w, p + "layernorm_before", eps)
        n = a.shape[1]

        def heads(t):
            return t.view(1, n, H, hd).transpose(1, 2)
        q = heads(lin(a, w, p + "attention.attention.query"))
        k = heads(lin(a, w, p + "attention.attention.key"))
        v = heads(lin(a, w, p + "attention.attention.value"))
        probs = torch.softmax(q @ k.transpose(-1, -2) * hd ** -0.5, dim=-1, dtype=torch.float32)
        attn.append(probs[0])
        ctx = (probs @ v).transpose(1, 2).reshape(1, n, d)
        h = lin(ctx, w, p + "attention.output.dense") + h
        m = F.gelu(lin(layer_norm(h, w, p + "layernorm_after", eps), w, p + "intermediate.dense"))
        h = lin(m, w, p + "output.dense") + h
        hidden.append(h[0])
    last = layer_norm(h, w, "layernorm", eps)[0]
    if teacher:  # DeiTForImageClassificationWithTeacher: the mean of the two heads
        logits = (lin(last[0], head, "cls_classifier") + lin(last[1], head, "distillation_classifier")) / 2
    else:  # ViTForImageClassification / DeiTForImageClassification: [CLS] only
        logits = lin(last[0], head, "classifier")
    return torch.stack(attn), torch.stack(hidden), last, logits


def np_forward(w, head, cfg, pixels, distill, teacher):
    """Independent float64 check: patches unfolded and multiplied by the flattened kernel,
    per-head loops, erf GELU through math.erf."""
    w = {k: v.double().numpy() for k, v in w.items()}
    head = {k: v.double().numpy() for k, v in head.items()}
    H, eps, d, P = cfg["num_attention_heads"], cfg["layer_norm_eps"], cfg["hidden_size"], cfg["patch_size"]
    hd = d // H
    px = pixels.astype(np.float64)
    g = px.shape[1] // P
    patches = np.stack([px[:, r * P:(r + 1) * P, c * P:(c + 1) * P].reshape(-1) for r in range(g) for c in range(g)])
    emb = patches @ w["embeddings.patch_embeddings.projection.weight"].reshape(d, -1).T
    emb += w["embeddings.patch_embeddings.projection.bias"]
    toks = [w["embeddings.cls_token"][0]] + ([w["embeddings.distillation_token"][0]] if distill else [])
    h = np.concatenate(toks + [emb]) + w["embeddings.position_embeddings"][0]

    def ln(x, pre):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + eps) * w[pre + ".weight"] + w[pre + ".bias"]

    def dense(x, pre, src=w):
        return x @ src[pre + ".weight"].T + src[pre + ".bias"]
    gelu = np.vectorize(lambda t: 0.5 * t * (1 + math.erf(t / math.sqrt(2))))
    attn = []
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        a = ln(h, p + "layernorm_before")
        q, k, v = (dense(a, p + "attention.attention." + t) for t in ("query", "key", "value"))
        ctx, maps = np.zeros_like(q), []
        for j in range(H):
            s = slice(j * hd, (j + 1) * hd)
            z = q[:, s] @ k[:, s].T / math.sqrt(hd)
            e = np.exp(z - z.max(-1, keepdims=True))
            pr = e / e.sum(-1, keepdims=True)
            maps.append(pr)
            ctx[:, s] = pr @ v[:, s]
        attn.append(np.stack(maps))
        h = dense(ctx, p + "attention.output.dense") + h
        h = dense(gelu(dense(ln(h, p + "layernorm_after"), p + "intermediate.dense")), p + "output.dense") + h
    last = ln(h, "layernorm")
    if teacher:
        logits = (dense(last[0], "cls_classifier", head) + dense(last[1], "distillation_classifier", head)) / 2
    else:
        logits = dense(last[0], "classifier", head)
    return np.stack(attn), logits


def check_close(name, got, want, tol):
    err = float(np.max(np.abs(np.asarray(got, np.float64) - np.asarray(want, np.float64))))
    print(f"    {name:12s} max |diff| {err:.2e}")
    if err > tol:
        raise SystemExit(f"{name}: the reference and the independent check differ by {err}")


def write_model(name, model_type, arch, pre, seed, distill, teacher, img):
    folder = os.path.join(FIXTURES, "models", name)
    os.makedirs(folder, exist_ok=True)
    for f in os.listdir(folder):
        os.remove(os.path.join(folder, f))
    cfg = dict(BASE_CFG)
    w, head = build(cfg, seed, distill, teacher)
    prefix = model_type + "."  # ViTForImageClassification "vit.", DeiT... "deit."; heads are bare
    tensors = {prefix + k: (v, "F32") for k, v in w.items()}
    tensors.update({k: (v, "F32") for k, v in head.items()})
    hf_folder.write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    config = dict(cfg, architectures=[arch], model_type=model_type,
                  id2label={str(i): l for i, l in enumerate(LABELS)},
                  label2id={l: i for i, l in enumerate(LABELS)})
    hf_folder.write_json(os.path.join(folder, "config.json"), config)
    hf_folder.write_json(os.path.join(folder, "preprocessor_config.json"), pre)

    pixels = preprocess(img, pre)
    attn, hidden, last, logits = forward(w, head, cfg, pixels, distill, teacher)
    print(f"{name}: pixel_values {list(pixels.shape)}, attn {list(attn.shape)}")
    a64, l64 = np_forward(w, head, cfg, pixels, distill, teacher)
    check_close("attn", attn.numpy(), a64, 1e-5)
    check_close("logits", logits.numpy(), l64, 1e-4)
    a = attn.numpy()
    assert np.allclose(a.sum(-1), 1.0, atol=1e-5)
    ent = -(a * np.log(a)).sum(-1)
    print(f"    attention: mean entropy {ent.mean():.2f} nats (uniform {np.log(a.shape[-1]):.2f}), "
          f"max weight {a.max():.3f}")
    probs = torch.softmax(logits.double(), -1).numpy()
    top = np.argsort(-probs, kind="stable")[:5]
    print(f"    top 5: {[LABELS[i] for i in top]} {np.round(probs[top], 3).tolist()}")
    np.savez(os.path.join(folder, "reference.npz"), pixel_values=pixels, attn=attn.numpy(),
             hidden=hidden.numpy(), last=last.numpy(), logits=logits.numpy(),
             top5=top.astype(np.int64), top5_probs=probs[top].astype(np.float32))


def self_check_resize():
    """The Resample.c port on cases worked by hand: an identity-size pass, and a 2:1 box
    reduction that must be the pairwise mean rounded half up."""
    row = np.array([[[0], [10], [20], [31]]], np.uint8)
    assert (pil_resize(row, 1, 4, 3) == row).all()
    half = pil_resize(row, 1, 2, 4)[0, :, 0].tolist()
    assert half == [5, 26], half  # (0+10)/2 = 5, (20+31)/2 = 25.5 -> 26


def check_against_pillow(img):
    """Where Debian's python3-pil is installed, the port must equal Pillow bit for bit
    (checked with Pillow 9.4: every filter, down- and up-sizing, odd sizes)."""
    try:
        from PIL import Image
    except ImportError:
        print("    python3-pil not installed: the resampling port is not compared with Pillow")
        return
    pim = Image.fromarray(img)
    for rs in sorted(FILTERS):
        for h, w in [(32, 32), (40, 40), (17, 23), (80, 60), (36, 44), (5, 7), (36, 20)]:
            want = np.asarray(pim.resize((w, h), resample=rs))
            assert (pil_resize(img, h, w, rs) == want).all(), (rs, h, w)
    print("    resampling port equals Pillow", Image.__version__ if hasattr(Image, "__version__") else "")


def main():
    torch.set_grad_enabled(False)
    torch.set_num_threads(1)
    self_check_resize()
    img = make_image()
    check_against_pillow(img)
    write_ppm(IMAGE, img)
    write_model("vit", "vit", "ViTForImageClassification", VIT_PRE, 38, 0, False, img)
    write_model("deit", "deit", "DeiTForImageClassificationWithTeacher", DEIT_PRE, 39, 1, True, img)


if __name__ == "__main__":
    main()
