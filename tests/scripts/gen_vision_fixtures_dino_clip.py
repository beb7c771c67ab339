#!/usr/bin/python3
"""Writes the DINOv2 and CLIP-vision reference fixtures: small random models as Hugging Face
folders (config.json, model.safetensors with Hugging Face's tensor names,
preprocessor_config.json) and what plain-PyTorch ports of transformers' Dinov2Model,
Dinov2WithRegistersModel and CLIPVisionModel (eager attention) compute on the committed test
image tests/fixtures/vision/scene.ppm (44 x 36), preprocessed here (numpy + the port of
Pillow's resampling in gen_vision_fixtures.py).

Run (from the repository root; Debian's python3-torch 1.13 + numpy, no transformers, no PIL):

    /usr/bin/python3 tests/scripts/gen_vision_fixtures_dino_clip.py

Writes tests/fixtures/models/<name>/ and in each reference.npz
    pixel_values [3, H, W]   the image as BitImageProcessor / CLIPImageProcessor prepares it
                             (shortest edge resize, bicubic; centre crop; rescale; normalise);
    attn [L, H, N, N]        every layer's attention weights;
    hidden [L + 1, N, d]     HF output_hidden_states (embeddings, then each layer's output);
    last [N, d]              last_hidden_state (DINOv2: after the final layernorm; CLIP: the
                             encoder's output, no norm);
    pooled [d]               CLIP: pooler_output, post_layernorm of the last [CLS] state;
    positions [P, d]         DINOv2: the patch position embeddings the model added (interpolated).
The folders:
    dinov2       Dinov2Model, GELU MLP, table for a 4 x 4 grid, image cropped to 40 x 40: the
                 positions are interpolated to 5 x 5 (interpolate(size=...), bicubic, a = -0.75);
    dinov2_reg   Dinov2WithRegistersModel, 2 register tokens, SwiGLU MLP, a 24 x 40 crop: the
                 4 x 4 table shrinks to 3 rows and grows to 5 columns (antialias=True);
    clip_vision  CLIPVisionModel (model_type clip_vision_model), 32 x 32, quick GELU;
    clip         the same weights under a CLIPModel config.json (vision_config; a text tower's
                 tensors present and unused), preprocessor_config.json in the older integer form.
tests/fixtures/vision/center_crop.npz: crops larger than the resized image (zero padded);
and tests/fixtures/vision/position_grid.npz: a random [16, 3] table (a 4 x 4 grid) resized by
torch.nn.functional.interpolate itself, for the resampling kernel's own test.
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
from gen_vision_fixtures import pil_resize  # noqa: E402

FIXTURES = os.path.normpath(os.path.join(HERE, "..", "fixtures"))
IMAGE = os.path.join(FIXTURES, "vision", "scene.ppm")

IMAGENET_MEAN, IMAGENET_STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
CLIP_MEAN, CLIP_STD = [0.48145466, 0.4578275, 0.40821073], [0.26862954, 0.26130258, 0.27577711]

BIT_PRE = {"crop_size": {"height": 40, "width": 40}, "do_center_crop": True, "do_convert_rgb": True,
           "do_normalize": True, "do_rescale": True, "do_resize": True, "image_mean": IMAGENET_MEAN,
           "image_processor_type": "BitImageProcessor", "image_std": IMAGENET_STD, "resample": 3,
           "rescale_factor": 0.00392156862745098, "size": {"shortest_edge": 48}}
BIT_PRE_WIDE = dict(BIT_PRE, crop_size={"height": 24, "width": 40}, size={"shortest_edge": 33})
CLIP_PRE = {"crop_size": {"height": 32, "width": 32}, "do_center_crop": True, "do_convert_rgb": True,
            "do_normalize": True, "do_rescale": True, "do_resize": True, "image_mean": CLIP_MEAN,
            "image_processor_type": "CLIPImageProcessor", "image_std": CLIP_STD, "resample": 3,
            "rescale_factor": 0.00392156862745098, "size": {"shortest_edge": 32}}
CLIP_PRE_OLD = {"crop_size": 32, "do_center_crop": True, "do_normalize": True, "do_resize": True,
                "feature_extractor_type": "CLIPFeatureExtractor", "image_mean": CLIP_MEAN,
                "image_std": CLIP_STD, "resample": 3, "size": 32}

DINO_CFG = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, mlp_ratio=2, hidden_act="gelu",
                layer_norm_eps=1e-6, image_size=32, patch_size=8, num_channels=3, qkv_bias=True,
                layerscale_value=1.0, use_swiglu_ffn=False)
CLIP_CFG = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                hidden_act="quick_gelu", layer_norm_eps=1e-5, image_size=32, patch_size=8, num_channels=3,
                projection_dim=32)


def read_ppm(path):
    with open(path, "rb") as f:
        data = f.read()
    fields, pos = [], 0
    while len(fields) < 4:  # P6, width, height, maxval; '#' comments skipped
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos) + 1
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    w, h = int(fields[1]), int(fields[2])
    return np.frombuffer(data[pos + 1:pos + 1 + w * h * 3], np.uint8).reshape(h, w, 3)


def center_crop(img, ch, cw):
    """transformers' image_transforms.center_crop on [H, W, C]: a crop larger than the image pads
    it with zeros (ceil of half the difference before it), then crops."""
    h, w = img.shape[:2]
    top, left = (h - ch) // 2, (w - cw) // 2
    bottom, right = top + ch, left + cw
    if top >= 0 and bottom <= h and left >= 0 and right <= w:
        return img[top:bottom, left:right]
    new_h, new_w = max(ch, h), max(cw, w)
    padded = np.zeros((new_h, new_w) + img.shape[2:], img.dtype)
    top_pad, left_pad = math.ceil((new_h - h) / 2), math.ceil((new_w - w) / 2)
    padded[top_pad:top_pad + h, left_pad:left_pad + w] = img
    top, bottom, left, right = top + top_pad, bottom + top_pad, left + left_pad, right + left_pad
    return padded[max(0, top):min(new_h, bottom), max(0, left):min(new_w, right)]


def preprocess(img, pre):
    """BitImageProcessor / CLIPImageProcessor.preprocess on [H, W, 3] uint8 -> [3, H', W'] float32."""
    size = pre["size"]
    short = size["shortest_edge"] if isinstance(size, dict) else size  # get_size_dict(default_to_square=False)
    h, w = img.shape[:2]
    # get_resize_output_image_size(default_to_square=False): the short side to `short`,
    # the long side int(short * long / short_side).
    if w <= h:
        out_h, out_w = int(short * h / w), short
    else:
        out_h, out_w = short, int(short * w / h)
    img = pil_resize(img, out_h, out_w, pre["resample"])
    crop = pre["crop_size"]
    ch, cw = (crop["height"], crop["width"]) if isinstance(crop, dict) else (crop, crop)
    img = center_crop(img, ch, cw)
    x = (img.astype(np.float64) * pre.get("rescale_factor", 1 / 255)).astype(np.float32)
    x = (x - np.array(pre["image_mean"], np.float32)) / np.array(pre["image_std"], np.float32)
    return np.ascontiguousarray(x.transpose(2, 0, 1)).astype(np.float32)


def rnd_factory(seed):
    g = torch.Generator().manual_seed(seed)

    def rnd(*shape, std=0.2, mean=0.0):
        return torch.randn(*shape, generator=g) * std + mean
    return rnd


def linear_weights(w, rnd, prefix, out, inp, qk=False):
    w[prefix + ".weight"] = rnd(out, inp, std=0.6 / math.sqrt(inp) * (2.5 if qk else 1))
    w[prefix + ".bias"] = rnd(out, std=0.1)


def norm_weights(w, rnd, prefix, d):
    w[prefix + ".weight"] = rnd(d, std=0.1, mean=1.0)
    w[prefix + ".bias"] = rnd(d, std=0.1)


def swiglu_hidden(cfg):
    hidden = int(cfg["hidden_size"] * cfg["mlp_ratio"])
    return (int(hidden * 2 / 3) + 7) // 8 * 8


def build_dinov2(cfg, seed, registers):
    rnd = rnd_factory(seed)
    d, p = cfg["hidden_size"], cfg["patch_size"]
    n = (cfg["image_size"] // p) ** 2 + 1
    w = {"embeddings.cls_token": rnd(1, 1, d, std=1.0), "embeddings.mask_token": torch.zeros(1, d),
         "embeddings.position_embeddings": rnd(1, n, d, std=0.5),
         "embeddings.patch_embeddings.projection.weight": rnd(d, 3, p, p, std=0.1),
         "embeddings.patch_embeddings.projection.bias": rnd(d, std=0.1)}
    if registers:
        w["embeddings.register_tokens"] = rnd(1, registers, d, std=1.0)
    for i in range(cfg["num_hidden_layers"]):
        q = f"encoder.layer.{i}."
        for t in ("query", "key", "value"):
            linear_weights(w, rnd, q + "attention.attention." + t, d, d, qk=t != "value")
        linear_weights(w, rnd, q + "attention.output.dense", d, d)
        norm_weights(w, rnd, q + "norm1", d)
        norm_weights(w, rnd, q + "norm2", d)
        w[q + "layer_scale1.lambda1"] = rnd(d, std=0.3, mean=0.8)
        w[q + "layer_scale2.lambda1"] = rnd(d, std=0.3, mean=0.8)
        if cfg["use_swiglu_ffn"]:
            hf = swiglu_hidden(cfg)
            linear_weights(w, rnd, q + "mlp.weights_in", 2 * hf, d)
            linear_weights(w, rnd, q + "mlp.weights_out", d, hf)
        else:
            hf = int(d * cfg["mlp_ratio"])
            linear_weights(w, rnd, q + "mlp.fc1", hf, d)
            linear_weights(w, rnd, q + "mlp.fc2", d, hf)
    norm_weights(w, rnd, "layernorm", d)
    return w


def build_clip(cfg, seed):
    rnd = rnd_factory(seed)
    d, p, inter = cfg["hidden_size"], cfg["patch_size"], cfg["intermediate_size"]
    n = (cfg["image_size"] // p) ** 2 + 1
    w = {"embeddings.class_embedding": rnd(d, std=1.0),
         "embeddings.patch_embedding.weight": rnd(d, 3, p, p, std=0.1),
         "embeddings.position_embedding.weight": rnd(n, d, std=0.5)}
    norm_weights(w, rnd, "pre_layrnorm", d)
    for i in range(cfg["num_hidden_layers"]):
        q = f"encoder.layers.{i}."
        for t in ("q_proj", "k_proj", "v_proj"):
            linear_weights(w, rnd, q + "self_attn." + t, d, d, qk=t != "v_proj")
        linear_weights(w, rnd, q + "self_attn.out_proj", d, d)
        norm_weights(w, rnd, q + "layer_norm1", d)
        norm_weights(w, rnd, q + "layer_norm2", d)
        linear_weights(w, rnd, q + "mlp.fc1", inter, d)
        linear_weights(w, rnd, q + "mlp.fc2", d, inter)
    norm_weights(w, rnd, "post_layernorm", d)
    return w


def layer_norm(x, w, prefix, eps):
    return F.layer_norm(x, (x.shape[-1],), w[prefix + ".weight"], w[prefix + ".bias"], eps)


def lin(x, w, prefix):
    return F.linear(x, w[prefix + ".weight"], w[prefix + ".bias"] if prefix + ".bias" in w else None)


def attention(a, w, names, heads):
    """ViTSelfAttention / CLIPAttention, eager: softmax(q k^T / sqrt(hd)) v, heads concatenated."""
    n, d = a.shape[1], a.shape[2]
    hd = d // heads

    def split(t):
        return t.view(1, n, heads, hd).transpose(1, 2)
    q, k, v = (split(lin(a, w, nm)) for nm in names[:3])
    probs = torch.softmax(q @ k.transpose(-1, -2) * hd ** -0.5, dim=-1, dtype=torch.float32)
    ctx = (probs @ v).transpose(1, 2).reshape(1, n, d)
    return lin(ctx, w, names[3]), probs[0]


def dinov2_positions(w, rows, cols, antialias):
    """Dinov2Embeddings.interpolate_pos_encoding (Dinov2WithRegistersEmbeddings: antialias=True)."""
    table = w["embeddings.position_embeddings"]
    num_positions = table.shape[1] - 1
    g = int(num_positions ** 0.5)
    if rows == g and cols == g:
        return table
    patch = table[:, 1:].reshape(1, g, g, -1).permute(0, 3, 1, 2)
    kw = {"antialias": True} if antialias else {}
    patch = F.interpolate(patch.to(torch.float32), size=(rows, cols), mode="bicubic", align_corners=False, **kw)
    patch = patch.permute(0, 2, 3, 1).reshape(1, rows * cols, -1)
    return torch.cat((table[:, :1], patch), dim=1)


def dinov2_forward(w, cfg, pixels, registers):
    H, eps, P = cfg["num_attention_heads"], cfg["layer_norm_eps"], cfg["patch_size"]
    x = torch.from_numpy(pixels)[None]
    rows, cols = x.shape[2] // P, x.shape[3] // P
    emb = F.conv2d(x, w["embeddings.patch_embeddings.projection.weight"],
                   w["embeddings.patch_embeddings.projection.bias"], stride=P).flatten(2).transpose(1, 2)
    h = torch.cat((w["embeddings.cls_token"], emb), dim=1)
    pos = dinov2_positions(w, rows, cols, antialias=registers > 0)
    h = h + pos
    if registers:
        h = torch.cat((h[:, :1], w["embeddings.register_tokens"], h[:, 1:]), dim=1)
    hidden, attn = [h[0]], []
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        a = layer_norm(h, w, p + "norm1", eps)
        o, probs = attention(a, w, [p + "attention.attention." + t for t in ("query", "key", "value")]
                             + [p + "attention.output.dense"], H)
        attn.append(probs)
        h = o * w[p + "layer_scale1.lambda1"] + h
        m = layer_norm(h, w, p + "norm2", eps)
        if cfg["use_swiglu_ffn"]:  # Dinov2SwiGLUFFN
            x1, x2 = lin(m, w, p + "mlp.weights_in").chunk(2, dim=-1)
            m = lin(F.silu(x1) * x2, w, p + "mlp.weights_out")
        else:  # Dinov2MLP, hidden_act gelu
            m = lin(F.gelu(lin(m, w, p + "mlp.fc1")), w, p + "mlp.fc2")
        h = m * w[p + "layer_scale2.lambda1"] + h
        hidden.append(h[0])
    last = layer_norm(h, w, "layernorm", eps)[0]
    return torch.stack(attn), torch.stack(hidden), last, pos[0, 1:]


def clip_forward(w, cfg, pixels):
    H, eps, P = cfg["num_attention_heads"], cfg["layer_norm_eps"], cfg["patch_size"]
    x = torch.from_numpy(pixels)[None]
    emb = F.conv2d(x, w["embeddings.patch_embedding.weight"], None, stride=P).flatten(2).transpose(1, 2)
    h = torch.cat((w["embeddings.class_embedding"].expand(1, 1, -1), emb), dim=1)
    h = h + w["embeddings.position_embedding.weight"][None]
    h = layer_norm(h, w, "pre_layrnorm", eps)
    hidden, attn = [h[0]], []
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layers.{i}."
        a = layer_norm(h, w, p + "layer_norm1", eps)
        o, probs = attention(a, w, [p + "self_attn." + t for t in ("q_proj", "k_proj", "v_proj", "out_proj")], H)
        attn.append(probs)
        h = h + o
        m = lin(layer_norm(h, w, p + "layer_norm2", eps), w, p + "mlp.fc1")
        m = m * torch.sigmoid(1.702 * m)  # QuickGELUActivation
        h = h + lin(m, w, p + "mlp.fc2")
        hidden.append(h[0])
    last = h[0]  # last_hidden_state: CLIPVisionTransformer applies no norm after the encoder
    pooled = layer_norm(last[0], w, "post_layernorm", eps)
    return torch.stack(attn), torch.stack(hidden), last, pooled


def fresh_folder(name):
    folder = os.path.join(FIXTURES, "models", name)
    os.makedirs(folder, exist_ok=True)
    for f in os.listdir(folder):
        os.remove(os.path.join(folder, f))
    return folder


def report(name, pixels, attn):
    a = attn.numpy()
    assert np.allclose(a.sum(-1), 1.0, atol=1e-5)
    ent = -(a * np.log(a)).sum(-1)
    print(f"{name}: pixel_values {list(pixels.shape)}, attn {list(a.shape)}, mean entropy {ent.mean():.2f} "
          f"nats (uniform {np.log(a.shape[-1]):.2f}), max weight {a.max():.3f}")


def write_dinov2(name, img, seed, registers, swiglu, pre):
    cfg = dict(DINO_CFG, use_swiglu_ffn=swiglu)
    model_type = "dinov2_with_registers" if registers else "dinov2"
    if registers:
        cfg["num_register_tokens"] = registers
    folder = fresh_folder(name)
    w = build_dinov2(cfg, seed, registers)
    hf_folder.write_safetensors(os.path.join(folder, "model.safetensors"), {k: (v, "F32") for k, v in w.items()})
    arch = "Dinov2WithRegistersModel" if registers else "Dinov2Model"
    hf_folder.write_json(os.path.join(folder, "config.json"), dict(cfg, architectures=[arch], model_type=model_type))
    hf_folder.write_json(os.path.join(folder, "preprocessor_config.json"), pre)
    pixels = preprocess(img, pre)
    attn, hidden, last, pos = dinov2_forward(w, cfg, pixels, registers)
    report(name, pixels, attn)
    np.savez(os.path.join(folder, "reference.npz"), pixel_values=pixels, attn=attn.numpy(), hidden=hidden.numpy(),
             last=last.numpy(), positions=pos.numpy())


def write_clip(img, seed):
    w = build_clip(CLIP_CFG, seed)
    pixels = preprocess(img, CLIP_PRE)
    assert np.array_equal(pixels, preprocess(img, CLIP_PRE_OLD))
    attn, hidden, last, pooled = clip_forward(w, CLIP_CFG, pixels)
    report("clip_vision", pixels, attn)
    ref = dict(pixel_values=pixels, attn=attn.numpy(), hidden=hidden.numpy(), last=last.numpy(),
               pooled=pooled.numpy())
    # CLIPVisionModel: the tower under "vision_model."
    folder = fresh_folder("clip_vision")
    tensors = {"vision_model." + k: (v, "F32") for k, v in w.items()}
    hf_folder.write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    hf_folder.write_json(os.path.join(folder, "config.json"),
                         dict(CLIP_CFG, architectures=["CLIPVisionModel"], model_type="clip_vision_model"))
    hf_folder.write_json(os.path.join(folder, "preprocessor_config.json"), CLIP_PRE)
    np.savez(os.path.join(folder, "reference.npz"), **ref)
    # CLIPModel: the same tower, a (tiny, unused) text tower and the projections beside it.
    folder = fresh_folder("clip")
    rnd = rnd_factory(seed + 1)
    tensors.update({"text_model.embeddings.token_embedding.weight": (rnd(40, 32), "F32"),
                    "text_model.final_layer_norm.weight": (rnd(32, mean=1.0), "F32"),
                    "visual_projection.weight": (rnd(32, 64), "F32"),
                    "text_projection.weight": (rnd(32, 32), "F32"), "logit_scale": (torch.tensor(2.6592), "F32")})
    hf_folder.write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    text_cfg = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2,
                    vocab_size=40, max_position_embeddings=16, model_type="clip_text_model")
    hf_folder.write_json(os.path.join(folder, "config.json"),
                         {"architectures": ["CLIPModel"], "model_type": "clip", "projection_dim": 32,
                          "text_config": text_cfg, "vision_config": dict(CLIP_CFG, model_type="clip_vision_model")})
    hf_folder.write_json(os.path.join(folder, "preprocessor_config.json"), CLIP_PRE_OLD)
    np.savez(os.path.join(folder, "reference.npz"), **ref)


def write_position_grids():
    """torch's own bicubic resize of a 4 x 4 grid of 3-vectors, for PositionGrid.* in C++."""
    g = torch.Generator().manual_seed(41)
    table = torch.randn(16, 3, generator=g)
    grid = table.reshape(1, 4, 4, 3).permute(0, 3, 1, 2)
    out = {"table": table.numpy()}

    def flat(t):
        return t.permute(0, 2, 3, 1).reshape(-1, 3).numpy()
    for rows, cols in [(5, 5), (3, 5), (7, 2), (4, 4)]:
        out[f"size_{rows}x{cols}"] = flat(F.interpolate(grid, size=(rows, cols), mode="bicubic", align_corners=False))
        out[f"aa_{rows}x{cols}"] = flat(F.interpolate(grid, size=(rows, cols), mode="bicubic", align_corners=False,
                                                       antialias=True))
    # Older Dinov2Embeddings: scale_factor ((rows + 0.1) / 4, (cols + 0.1) / 4), used as given.
    legacy = F.interpolate(grid, scale_factor=(5.1 / 4, 3.1 / 4), mode="bicubic", align_corners=False)
    assert legacy.shape[-2:] == (5, 3)
    out["legacy_5x3"] = flat(legacy)
    np.savez(os.path.join(FIXTURES, "vision", "position_grid.npz"), **out)


def write_center_crops(img):
    """vision/center_crop.npz: BitImageProcessor output where the crop is larger than the resized
    image (zero padding, both axes and one axis with an odd difference), for ImageProcessor.*."""
    out = {}
    cases = {"both": ({"shortest_edge": 20}, {"height": 24, "width": 40}),
             "mixed": ({"shortest_edge": 20}, {"height": 15, "width": 31})}
    for name, (size, crop) in cases.items():
        pre = dict(BIT_PRE, size=size, crop_size=crop)
        out[name] = preprocess(img, pre)
    np.savez(os.path.join(FIXTURES, "vision", "center_crop.npz"), **out)


def main():
    torch.set_grad_enabled(False)
    torch.set_num_threads(1)
    img = read_ppm(IMAGE)
    assert img.shape == (36, 44, 3), img.shape
    write_position_grids()
    write_center_crops(img)
    write_dinov2("dinov2", img, 40, 0, False, BIT_PRE)
    write_dinov2("dinov2_reg", img, 41, 2, True, BIT_PRE_WIDE)
    write_clip(img, 42)


if __name__ == "__main__":
    main()
