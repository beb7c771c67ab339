#!/usr/bin/python3
"""Writes the DistilBERT and XLM-RoBERTa reference fixtures: small random Hugging Face folders
and what a plain-PyTorch port of the Hugging Face modeling code computes on them.

  distilbert      DistilBertForMaskedLM ("distilbert." prefix, learned positions stored,
                  sinusoidal_pos_embds false, gelu), vocab.txt; a case padded in a batch
  distilbert_sin  DistilBertModel (no prefix, no head), sinusoidal_pos_embds true and no
                  position table in the file (transformers fills it with create_sinusoidal_embeddings
                  when it is missing), relu
  xlmr            XLMRobertaForMaskedLM ("roberta." prefix, lm_head), the Unigram tokenizer.json of
                  tests/fixtures/hf_tokenizers/xlmr_unigram (Precompiled normalizer, Metaspace);
                  positions from padding_idx + 1 (create_position_ids_from_input_ids), a padded case

Run (from the repository root; Debian's python3-torch 1.13 + numpy, and node with the npm
`tokenizers` package installed in tests/scripts/hf_tokenizers):

    /usr/bin/python3 tests/scripts/gen_encoder_fixtures.py

Steps: the folders; node tests/scripts/hf_tokenizers/encode_model_fixtures.js writes each
folder's reference_tokens.json (the library's ids); then reference.npz per folder, in the layout
gen_model_fixtures.py documents (ids_c, type_ids_c, mask_c, attn_c [L, H, N, N], hidden_c [L+1, N, d],
mlm_logits_c [N, V] where the checkpoint has a masked-LM head), each checked against an
independent float64 numpy forward (per-head loops). DistilBERT has no token types: its type_ids_c
are 0 whatever the tokenizer says (DistilBertTokenizer returns no token_type_ids).
distilbert also gets reference_ablate.npz (heads zeroed as head_mask does) and
reference_gradients.npz (autograd of a masked-LM logit; see reference_gradients).
"""
import json
import math
import os
import shutil
import subprocess
import sys
from math import erf

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hf_folder  # noqa: E402
from gen_model_fixtures import (BERT_EXTRA_CHARS, CORPUS, ROOT, NODE_DIR, check_attention, check_close,  # noqa: E402
                                fresh, gen, load_weights, np64, np_layer_norm, np_softmax_rows)

TOKENIZER_FIXTURES = os.path.normpath(os.path.join(HERE, "..", "fixtures", "hf_tokenizers"))

DISTIL_CFG = dict(dim=64, n_layers=2, n_heads=4, hidden_dim=128, max_position_embeddings=64)
XLMR_CFG = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
                max_position_embeddings=66, type_vocab_size=1, layer_norm_eps=1e-5)


# ---------------------------------------------------------------------------
# DistilBERT (transformers/models/distilbert/modeling_distilbert.py)

def create_sinusoidal_embeddings(n_pos, dim):
    """_create_sinusoidal_embeddings: float64 numpy angles, sin on even and cos on odd columns."""
    position_enc = np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for pos in range(n_pos)])
    out = torch.zeros(n_pos, dim)
    out[:, 0::2] = torch.FloatTensor(np.sin(position_enc[:, 0::2]))
    out[:, 1::2] = torch.FloatTensor(np.cos(position_enc[:, 1::2]))
    return out


def distil_build(V, cfg, seed, head):
    """DistilBertForMaskedLM's state dict, canonical names ("distilbert." prefix)."""
    d, I = cfg["dim"], cfg["hidden_dim"]
    r = gen(seed)
    w, e = {}, "distilbert.embeddings."
    w[e + "word_embeddings.weight"] = r(V, d, std=0.5)
    w[e + "position_embeddings.weight"] = r(cfg["max_position_embeddings"], d, std=0.3)
    w[e + "LayerNorm.weight"] = r(d, std=0.1, mean=1.0)
    w[e + "LayerNorm.bias"] = r(d, std=0.1)
    for i in range(cfg["n_layers"]):
        p = f"distilbert.transformer.layer.{i}."
        for name, std in (("q_lin", 0.2), ("k_lin", 0.2), ("v_lin", 0.15), ("out_lin", 0.12)):
            w[p + f"attention.{name}.weight"] = r(d, d, std=std)
            w[p + f"attention.{name}.bias"] = r(d, std=0.1)
        for norm in ("sa_layer_norm", "output_layer_norm"):
            w[p + norm + ".weight"] = r(d, std=0.1, mean=1.0)
            w[p + norm + ".bias"] = r(d, std=0.1)
        w[p + "ffn.lin1.weight"] = r(I, d, std=0.15)
        w[p + "ffn.lin1.bias"] = r(I, std=0.1)
        w[p + "ffn.lin2.weight"] = r(d, I, std=0.09)
        w[p + "ffn.lin2.bias"] = r(d, std=0.05)
    if head:
        w["vocab_transform.weight"] = r(d, d, std=0.12)
        w["vocab_transform.bias"] = r(d, std=0.05)
        w["vocab_layer_norm.weight"] = r(d, std=0.1, mean=1.0)
        w["vocab_layer_norm.bias"] = r(d, std=0.1)
        w["vocab_projector.bias"] = r(V, std=0.1)
    return w


def distil_config(V, cfg, arch, sinusoidal, activation):
    return {"activation": activation, "architectures": [arch], "attention_dropout": 0.1, "dim": cfg["dim"],
            "dropout": 0.1, "hidden_dim": cfg["hidden_dim"], "initializer_range": 0.02,
            "max_position_embeddings": cfg["max_position_embeddings"], "model_type": "distilbert",
            "n_heads": cfg["n_heads"], "n_layers": cfg["n_layers"], "pad_token_id": 0, "qa_dropout": 0.1,
            "seq_classif_dropout": 0.2, "sinusoidal_pos_embds": sinusoidal, "tie_weights_": True,
            "torch_dtype": "float32", "transformers_version": "4.44.2", "vocab_size": V}


def activation_fn(name):  # transformers.activations.get_activation
    return F.gelu if name == "gelu" else F.relu


def distil_forward(w, cfg, ids, mask, head_mask=None):
    """DistilBertForMaskedLM.forward (eval): Embeddings, Transformer of TransformerBlocks
    (MultiHeadSelfAttention, sa_layer_norm, FFN, output_layer_norm), the MLM head.
    Returns attentions [L, H, N, N], hidden states [L+1, N, d] (HF output_hidden_states), MLM logits."""
    d, H, N = cfg["dim"], cfg["n_heads"], len(ids)
    dh = d // H
    act = activation_fn(cfg["activation"])
    e = "distilbert.embeddings."
    position_ids = torch.arange(cfg["max_position_embeddings"])[:N]
    x = w[e + "word_embeddings.weight"][torch.tensor(ids)] + w[e + "position_embeddings.weight"][position_ids]
    x = F.layer_norm(x, (d,), w[e + "LayerNorm.weight"], w[e + "LayerNorm.bias"], 1e-12)
    m = torch.tensor(mask)
    hidden, attns = [x], []
    for i in range(cfg["n_layers"]):
        p = f"distilbert.transformer.layer.{i}."
        lin = lambda t, n: F.linear(t, w[p + n + ".weight"], w[p + n + ".bias"])  # noqa: E731
        shape = lambda t: t.view(1, -1, H, dh).transpose(1, 2)  # noqa: E731
        q, k, v = (shape(lin(x, f"attention.{n}")) for n in ("q_lin", "k_lin", "v_lin"))
        q = q / math.sqrt(dh)
        scores = q @ k.transpose(2, 3)
        masked = (m == 0).view(1, 1, 1, N).expand_as(scores)
        scores = scores.masked_fill(masked, torch.tensor(torch.finfo(scores.dtype).min))
        weights = torch.softmax(scores, dim=-1)
        if head_mask is not None:  # MultiHeadSelfAttention: weights * head_mask
            weights = weights * head_mask[i][None, :, None, None]
        attns.append(weights[0])
        ctx = (weights @ v).transpose(1, 2).contiguous().view(1, -1, d)[0]
        sa = F.layer_norm(lin(ctx, "attention.out_lin") + x, (d,), w[p + "sa_layer_norm.weight"],
                          w[p + "sa_layer_norm.bias"], 1e-12)
        ffn = lin(act(lin(sa, "ffn.lin1")), "ffn.lin2")
        x = F.layer_norm(ffn + sa, (d,), w[p + "output_layer_norm.weight"], w[p + "output_layer_norm.bias"], 1e-12)
        hidden.append(x)
    mlm = None
    if "vocab_transform.weight" in w:
        y = act(F.linear(x, w["vocab_transform.weight"], w["vocab_transform.bias"]))
        y = F.layer_norm(y, (d,), w["vocab_layer_norm.weight"], w["vocab_layer_norm.bias"], 1e-12)
        mlm = F.linear(y, w[e + "word_embeddings.weight"], w["vocab_projector.bias"])  # tied vocab_projector
    return torch.stack(attns), torch.stack(hidden), mlm


def np_encoder(w, x, keep, layers, H, eps, act, names):
    """Post-LayerNorm encoder blocks in float64 numpy, one head at a time: `names(i)` gives layer i's
    (q, k, v, o, attention norm, up, down, output norm) weight prefixes."""
    N, d = x.shape
    dh = d // H
    attn, hid = [], [x]
    for i in range(layers):
        q_, k_, v_, o_, n1, up, down, n2 = names(i)
        heads, ctx = [], np.zeros((N, d))
        for hh in range(H):
            r = slice(hh * dh, (hh + 1) * dh)
            q, k, v = (x @ w[n + ".weight"][r].T + w[n + ".bias"][r] for n in (q_, k_, v_))
            pw = np_softmax_rows(q @ k.T / math.sqrt(dh), keep)
            heads.append(pw)
            ctx[:, r] = pw @ v
        attn.append(heads)
        a = np_layer_norm(ctx @ w[o_ + ".weight"].T + w[o_ + ".bias"] + x, w[n1 + ".weight"], w[n1 + ".bias"], eps)
        u = act(a @ w[up + ".weight"].T + w[up + ".bias"])
        x = np_layer_norm(u @ w[down + ".weight"].T + w[down + ".bias"] + a, w[n2 + ".weight"], w[n2 + ".bias"], eps)
        hid.append(x)
    return np.array(attn), np.array(hid)


def np_act(name):
    if name == "relu":
        return lambda t: np.maximum(t, 0)
    return np.vectorize(lambda t: 0.5 * t * (1 + erf(t / math.sqrt(2))))


def np_distil(w, cfg, ids, mask):
    N = len(ids)
    e = "distilbert.embeddings."
    x = w[e + "word_embeddings.weight"][ids] + w[e + "position_embeddings.weight"][:N]
    x = np_layer_norm(x, w[e + "LayerNorm.weight"], w[e + "LayerNorm.bias"], 1e-12)
    keep = np.tile(np.array(mask, bool)[None, :], (N, 1))

    def names(i):
        p = f"distilbert.transformer.layer.{i}."
        return (p + "attention.q_lin", p + "attention.k_lin", p + "attention.v_lin", p + "attention.out_lin",
                p + "sa_layer_norm", p + "ffn.lin1", p + "ffn.lin2", p + "output_layer_norm")
    return np_encoder(w, x, keep, cfg["n_layers"], cfg["n_heads"], 1e-12, np_act(cfg["activation"]), names)


def write_distil(name, sinusoidal, head, activation, prefix, seed):
    folder = fresh(name)
    tokens = hf_folder.write_bert_vocab(folder, CORPUS, extra_chars=BERT_EXTRA_CHARS)
    V = len(tokens)
    w = distil_build(V, DISTIL_CFG, seed, head)
    stored = {}
    for k, v in w.items():
        if sinusoidal and k.endswith("position_embeddings.weight"):
            continue  # left to transformers' initialisation (the sinusoidal table)
        stored[k if prefix else k.removeprefix("distilbert.")] = (v, "F32")
    if head:
        stored["vocab_projector.weight"] = (w["distilbert.embeddings.word_embeddings.weight"], "F32")
    hf_folder.write_safetensors(os.path.join(folder, "model.safetensors"), stored)
    arch = "DistilBertForMaskedLM" if head else "DistilBertModel"
    hf_folder.write_json(os.path.join(folder, "config.json"), distil_config(V, DISTIL_CFG, arch, sinusoidal, activation))
    hf_folder.write_json(os.path.join(folder, "tokenizer_config.json"),
                         {"do_lower_case": True, "model_max_length": DISTIL_CFG["max_position_embeddings"],
                          "tokenizer_class": "DistilBertTokenizer"})


def distil_canonical(stored, cfg):
    """What from_pretrained holds: prefixed names, the sinusoidal table where the file has none."""
    w = {}
    for k, v in stored.items():
        if k == "vocab_projector.weight":
            continue
        w[k if k.startswith(("distilbert.", "vocab_")) else "distilbert." + k] = v
    pos = "distilbert.embeddings.position_embeddings.weight"
    if pos not in w:
        assert cfg["sinusoidal_pos_embds"]
        w[pos] = create_sinusoidal_embeddings(cfg["max_position_embeddings"], cfg["dim"])
    return w


# ---------------------------------------------------------------------------
# XLM-RoBERTa (transformers/models/xlm_roberta/modeling_xlm_roberta.py: RoBERTa's modules)

def xlmr_build(V, cfg, seed):
    d, I = cfg["hidden_size"], cfg["intermediate_size"]
    r = gen(seed)
    w, e = {}, "roberta.embeddings."
    w[e + "word_embeddings.weight"] = r(V, d, std=0.5)
    w[e + "position_embeddings.weight"] = r(cfg["max_position_embeddings"], d, std=0.3)
    w[e + "token_type_embeddings.weight"] = r(cfg["type_vocab_size"], d, std=0.3)
    w[e + "LayerNorm.weight"] = r(d, std=0.1, mean=1.0)
    w[e + "LayerNorm.bias"] = r(d, std=0.1)
    for i in range(cfg["num_hidden_layers"]):
        p = f"roberta.encoder.layer.{i}."
        for name, std in (("self.query", 0.2), ("self.key", 0.2), ("self.value", 0.15), ("output.dense", 0.12)):
            w[p + f"attention.{name}.weight"] = r(d, d, std=std)
            w[p + f"attention.{name}.bias"] = r(d, std=0.1)
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            w[p + norm + ".weight"] = r(d, std=0.1, mean=1.0)
            w[p + norm + ".bias"] = r(d, std=0.1)
        w[p + "intermediate.dense.weight"] = r(I, d, std=0.15)
        w[p + "intermediate.dense.bias"] = r(I, std=0.1)
        w[p + "output.dense.weight"] = r(d, I, std=0.09)
        w[p + "output.dense.bias"] = r(d, std=0.05)
    w["lm_head.dense.weight"] = r(d, d, std=0.12)
    w["lm_head.dense.bias"] = r(d, std=0.05)
    w["lm_head.layer_norm.weight"] = r(d, std=0.1, mean=1.0)
    w["lm_head.layer_norm.bias"] = r(d, std=0.1)
    w["lm_head.bias"] = r(V, std=0.1)
    return w


def create_position_ids_from_input_ids(ids, padding_idx):
    mask = ids.ne(padding_idx).int()
    return (torch.cumsum(mask, dim=0).type_as(mask) * mask).long() + padding_idx


def xlmr_forward(w, cfg, ids, mask):
    """XLMRobertaForMaskedLM.forward (eval, eager attention): RobertaEmbeddings, BERT-style layers,
    RobertaLMHead (dense, gelu, layer_norm, decoder tied to the word embeddings, + bias)."""
    d, H, eps, pad = cfg["hidden_size"], cfg["num_attention_heads"], cfg["layer_norm_eps"], cfg["pad_token_id"]
    dh, N = d // H, len(ids)
    t = torch.tensor(ids)
    e = "roberta.embeddings."
    pos = create_position_ids_from_input_ids(t, pad)
    x = (w[e + "word_embeddings.weight"][t] + w[e + "token_type_embeddings.weight"][torch.zeros(N, dtype=torch.long)]
         + w[e + "position_embeddings.weight"][pos])
    x = F.layer_norm(x, (d,), w[e + "LayerNorm.weight"], w[e + "LayerNorm.bias"], eps)
    ext = (1.0 - torch.tensor(mask, dtype=torch.float32))[None, None, :] * torch.finfo(torch.float32).min
    hidden, attns = [x], []
    for i in range(cfg["num_hidden_layers"]):
        p = f"roberta.encoder.layer.{i}."
        lin = lambda u, n: F.linear(u, w[p + n + ".weight"], w[p + n + ".bias"])  # noqa: E731
        q, k, v = (lin(x, f"attention.self.{n}").view(N, H, dh).transpose(0, 1) for n in ("query", "key", "value"))
        pw = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(dh) + ext, dim=-1)
        attns.append(pw)
        ctx = (pw @ v).transpose(0, 1).reshape(N, d)
        a = F.layer_norm(lin(ctx, "attention.output.dense") + x, (d,), w[p + "attention.output.LayerNorm.weight"],
                         w[p + "attention.output.LayerNorm.bias"], eps)
        x = F.layer_norm(lin(F.gelu(lin(a, "intermediate.dense")), "output.dense") + a, (d,),
                         w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)
        hidden.append(x)
    y = F.gelu(F.linear(x, w["lm_head.dense.weight"], w["lm_head.dense.bias"]))
    y = F.layer_norm(y, (d,), w["lm_head.layer_norm.weight"], w["lm_head.layer_norm.bias"], eps)
    return torch.stack(attns), torch.stack(hidden), F.linear(y, w[e + "word_embeddings.weight"], w["lm_head.bias"])


def np_xlmr(w, cfg, ids, mask):
    N, pad = len(ids), cfg["pad_token_id"]
    pos, nxt = [], pad + 1
    for t in ids:  # padding_idx + 1 onwards for real tokens, padding_idx for padding
        pos.append(pad if t == pad else nxt)
        nxt += t != pad
    e = "roberta.embeddings."
    x = w[e + "word_embeddings.weight"][ids] + w[e + "token_type_embeddings.weight"][0] + w[e + "position_embeddings.weight"][pos]
    eps = cfg["layer_norm_eps"]
    x = np_layer_norm(x, w[e + "LayerNorm.weight"], w[e + "LayerNorm.bias"], eps)
    keep = np.tile(np.array(mask, bool)[None, :], (N, 1))

    def names(i):
        p = f"roberta.encoder.layer.{i}."
        return (p + "attention.self.query", p + "attention.self.key", p + "attention.self.value",
                p + "attention.output.dense", p + "attention.output.LayerNorm", p + "intermediate.dense",
                p + "output.dense", p + "output.LayerNorm")
    return np_encoder(w, x, keep, cfg["num_hidden_layers"], cfg["num_attention_heads"], eps, np_act("gelu"), names)


def write_xlmr():
    folder = fresh("xlmr")
    src = os.path.join(TOKENIZER_FIXTURES, "xlmr_unigram", "tokenizer.json")
    shutil.copyfile(src, os.path.join(folder, "tokenizer.json"))
    V = len(json.load(open(src, encoding="utf-8"))["model"]["vocab"])
    w = xlmr_build(V, XLMR_CFG, seed=1911)
    stored = {k: (v, "F32") for k, v in w.items()}
    stored["lm_head.decoder.weight"] = (w["roberta.embeddings.word_embeddings.weight"], "F32")
    stored["lm_head.decoder.bias"] = (w["lm_head.bias"], "F32")
    hf_folder.write_safetensors(os.path.join(folder, "model.safetensors"), stored)
    cfg = {"architectures": ["XLMRobertaForMaskedLM"], "attention_probs_dropout_prob": 0.1, "bos_token_id": 0,
           "eos_token_id": 2, "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "initializer_range": 0.02,
           "model_type": "xlm-roberta", "output_past": True, "pad_token_id": 1,
           "position_embedding_type": "absolute", "torch_dtype": "float32", "transformers_version": "4.44.2",
           "use_cache": True, "vocab_size": V}
    cfg.update(XLMR_CFG)
    hf_folder.write_json(os.path.join(folder, "config.json"), cfg)
    hf_folder.write_json(os.path.join(folder, "tokenizer_config.json"),
                         {"model_max_length": XLMR_CFG["max_position_embeddings"] - 2,
                          "tokenizer_class": "XLMRobertaTokenizer"})


# ---------------------------------------------------------------------------

def reference(name):
    folder = os.path.join(ROOT, name)
    cfg = json.load(open(os.path.join(folder, "config.json")))
    toks = json.load(open(os.path.join(folder, "reference_tokens.json")))
    stored = load_weights(folder)
    distil = cfg["model_type"] == "distilbert"
    w = distil_canonical(stored, cfg) if distil else stored
    if distil and "vocab_projector.weight" in stored:
        assert torch.equal(stored["vocab_projector.weight"], w["distilbert.embeddings.word_embeddings.weight"])
    arrays = {}
    print(f"{name}: {toks['library']}; {toks['tokenizer']}")
    for c, case in enumerate(toks["cases"]):
        ids, mask, N = case["ids"], case["attention_mask"], len(case["ids"])
        print(f"  case {c}: {N} tokens {case['tokens']}")
        arrays[f"ids_{c}"] = np.array(ids, np.int64)
        arrays[f"type_ids_{c}"] = np.array([0] * N if distil else case["type_ids"], np.int64)
        arrays[f"mask_{c}"] = np.array(mask, np.int64)
        if distil:
            attn, hid, mlm = distil_forward(w, cfg, ids, mask)
            a64, h64 = np_distil(np64(w), cfg, ids, mask)
        else:
            attn, hid, mlm = xlmr_forward(w, cfg, ids, mask)
            a64, h64 = np_xlmr(np64(w), cfg, ids, mask)
        keep = np.tile(np.array(mask, bool)[None, :], (N, 1))
        check_attention(attn, keep)
        check_close("attn vs float64 numpy", attn, a64, 1e-5)
        check_close("hidden vs float64 numpy", hid, h64, 1e-5)
        arrays[f"attn_{c}"] = attn.numpy().astype(np.float32)
        arrays[f"hidden_{c}"] = hid.numpy().astype(np.float32)
        if mlm is not None:
            arrays[f"mlm_logits_{c}"] = mlm.numpy().astype(np.float32)
    np.savez_compressed(os.path.join(folder, "reference.npz"), **arrays)


# One head zeroed as head_mask does: (layer, head), 0-based.
ABLATIONS = [(0, 1), (1, 2)]


def reference_ablate(name):
    """reference_ablate.npz on case 0: attn_{a}, hidden_{a}, mlm_logits_{a} with ABLATIONS[a] zeroed."""
    folder = os.path.join(ROOT, name)
    cfg = json.load(open(os.path.join(folder, "config.json")))
    case = json.load(open(os.path.join(folder, "reference_tokens.json")))["cases"][0]
    w = distil_canonical(load_weights(folder), cfg)
    arrays = {"ablations": np.array(ABLATIONS, np.int64)}
    for a, (layer, head) in enumerate(ABLATIONS):
        hm = torch.ones(cfg["n_layers"], cfg["n_heads"])
        hm[layer, head] = 0
        attn, hid, mlm = distil_forward(w, cfg, case["ids"], case["attention_mask"], hm)
        assert torch.all(attn[layer, head] == 0)
        arrays[f"attn_{a}"] = attn.numpy().astype(np.float32)
        arrays[f"hidden_{a}"] = hid.numpy().astype(np.float32)
        arrays[f"mlm_logits_{a}"] = mlm.numpy().astype(np.float32)
    np.savez_compressed(os.path.join(folder, "reference_ablate.npz"), **arrays)


def reference_gradients(name):
    """reference_gradients.npz: autograd of the masked-LM logit of the reference's top token at the
    first [MASK] of case 0 with respect to the input (word) embeddings, as
    gen_gradient_fixtures.py takes BERT's: the rows enter through an extended embedding table so
    that the tied decoder keeps the original one. target, position, target_logit, baseline_logit
    (zero input embeddings; positions still added), input_grad [N, d]."""
    folder = os.path.join(ROOT, name)
    cfg = json.load(open(os.path.join(folder, "config.json")))
    case = json.load(open(os.path.join(folder, "reference_tokens.json")))["cases"][0]
    w = distil_canonical(load_weights(folder), cfg)
    ids, mask = case["ids"], case["attention_mask"]
    position = case["tokens"].index("[MASK]")
    word = "distilbert.embeddings.word_embeddings.weight"
    V, N = w[word].shape[0], len(ids)
    target = int(torch.argmax(distil_forward(w, cfg, ids, mask)[2][position]))

    def logit(emb):
        w2 = dict(w)
        w2[word] = torch.cat([w[word], emb])
        w2["vocab_projector.bias"] = torch.cat([w["vocab_projector.bias"], torch.zeros(N)])  # columns cut below
        with torch.enable_grad():
            out = distil_forward(w2, cfg, [V + i for i in range(N)], mask)[2][:, :V]
        return out[position, target]

    emb = w[word][torch.tensor(ids)].clone().requires_grad_(True)
    with torch.enable_grad():
        value = logit(emb)
        (grad,) = torch.autograd.grad(value, emb)
    baseline = float(logit(torch.zeros(N, w[word].shape[1])))
    check_close("logit vs the forward's", value.detach(), distil_forward(w, cfg, ids, mask)[2][position, target], 1e-6)
    print(f"{name}: gradients at position {position}, target {target}, logit {float(value):.4f}, "
          f"baseline {baseline:.4f}")
    np.savez_compressed(os.path.join(folder, "reference_gradients.npz"), target=np.int64(target),
                        position=np.int64(position), target_logit=np.float64(float(value)),
                        baseline_logit=np.float64(baseline), input_grad=grad.numpy().astype(np.float32))


MODELS = {
    "distilbert": lambda: write_distil("distilbert", sinusoidal=False, head=True, activation="gelu", prefix=True,
                                       seed=1910),
    "distilbert_sin": lambda: write_distil("distilbert_sin", sinusoidal=True, head=False, activation="relu",
                                           prefix=False, seed=1912),
    "xlmr": write_xlmr,
}


def main():
    torch.set_grad_enabled(False)
    torch.set_num_threads(1)
    for m in MODELS.values():
        m()
    node = shutil.which("node") or "node"
    subprocess.run([node, os.path.join(NODE_DIR, "encode_model_fixtures.js"), ROOT], check=True)
    for m in MODELS:
        reference(m)
    reference_ablate("distilbert")
    reference_gradients("distilbert")
    # The sinusoidal port against the closed form (Vaswani et al. 2017, section 3.5).
    table = create_sinusoidal_embeddings(8, 6).double()
    p, i = 5, 1  # column 2i + 1 = 3: cos(p / 10000^(2i / d))
    assert abs(table[p, 2 * i + 1] - math.cos(p / 10000 ** (2 * i / 6))) < 1e-6
    for m in MODELS:
        folder = os.path.join(ROOT, m)
        size = sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder))
        print(f"{m}: {size / 1024:.0f} KiB in {len(os.listdir(folder))} files")


if __name__ == "__main__":
    main()
