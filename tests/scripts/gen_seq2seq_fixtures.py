#!/usr/bin/python3
"""Writes the encoder-decoder reference fixtures the C++ seq2seq models are checked against:
a small random BART (BartForConditionalGeneration) as a Hugging Face folder with a byte-level
BPE tokenizer.json (RobertaProcessing: <s> ... </s>), the token ids Hugging Face's own
`tokenizers` gives, and the encoder self-attention, decoder self-attention and
cross-attention maps, the logits and the greedy output ids that a plain-PyTorch port of
transformers/models/bart/modeling_bart.py (eager attention) and of the greedy branch of
GenerationMixin.generate compute on them.

Run (from the repository root; Debian's python3-torch 1.13 + numpy, and node):

    (cd tests/scripts/hf_tokenizers && npm install)      # once: the `tokenizers` npm package
    /usr/bin/python3 tests/scripts/gen_seq2seq_fixtures.py

Steps (--step folders|tokens|reference, default all):
  1. folders:   tests/fixtures/models/bart/ (config.json, generation_config.json,
                model.safetensors with HF's tensor names, tokenizer.json, tokenizer_config.json);
  2. tokens:    node tests/scripts/hf_tokenizers/encode_seq2seq_fixtures.js writes
                reference_tokens.json (source and target ids per case);
  3. reference: the forward below, checked against an independent float64 numpy port
                (per-head loops), written to reference.npz;
  4. interventions: bart, marian, t5 with one head ablated per stack (Hugging Face's head
                masks), written to interventions.npz (see interventions()).

reference.npz, per case c (float32 except the ids):
  source_ids_c [Ns], decoder_ids_c [Nt] = [decoder_start_token_id] + the target's ids
  (its <s> ... </s>), the sequence the decoder reads in forced decoding;
  enc_attn_c [L, H, Ns, Ns], dec_attn_c [L, H, Nt, Nt], cross_attn_c [L, H, Nt, Ns];
  logits_c [Nt, V] (lm_head + final_logits_bias);
  greedy_c [T] the greedy output ids (decoder start first) with generation_config.json's
  settings; greedy_short_c the same with max_new_tokens = 4.
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hf_folder  # noqa: E402
import seq2seq_t5  # noqa: E402

ROOT = os.path.normpath(os.path.join(HERE, "..", "fixtures", "models"))
NODE_DIR = os.path.join(HERE, "hf_tokenizers")

CORPUS = """The animal didn't cross the street because it was too tired. The animal was tired,
so it stayed on the other side of the street. The cat sat on the mat, and it was very happy!
Hello, world! Hello there, how are you? Attention is all you need: every head attends to the
tokens it finds useful. Translation models look at the source word they are writing.
"""

BART_CFG = dict(d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128,
                max_position_embeddings=64, activation_function="gelu", scale_embedding=True)
BART_SPECIALS = ["<s>", "<pad>", "</s>", "<unk>"]  # ids 0..3, <mask> last (facebook/bart-base)
BART_GEN = dict(decoder_start_token_id=2, bos_token_id=0, eos_token_id=2, pad_token_id=1,
                forced_bos_token_id=0, forced_eos_token_id=2, max_length=12, no_repeat_ngram_size=3,
                num_beams=1)


def gen(seed):
    g = torch.Generator().manual_seed(seed)

    def rnd(*shape, std=1.0, mean=0.0):
        return torch.randn(*shape, generator=g) * std + mean
    return rnd


def write_bart_tokenizer(folder):
    """tokenizer.json as facebook/bart-base ships it (RobertaTokenizerFast): byte-level BPE,
    <s> <pad> </s> <unk> first, <mask> (lstrip) last, RobertaProcessing. Returns the vocab."""
    bytes_vocab, merges = hf_folder.byte_level_bpe(CORPUS, 200)
    vocab = {t: i for i, t in enumerate(BART_SPECIALS)}
    for t in sorted(bytes_vocab, key=bytes_vocab.get):
        vocab[t] = len(vocab)
    vocab["<mask>"] = len(vocab)
    added = [{"id": vocab[t], "content": t, "single_word": False, "lstrip": t == "<mask>", "rstrip": False,
              "normalized": t == "<mask>", "special": True} for t in BART_SPECIALS + ["<mask>"]]
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    tok = {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": None,
        "pre_tokenizer": dict(byte_level),
        "post_processor": {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0],
                           "trim_offsets": True, "add_prefix_space": False},
        "decoder": dict(byte_level),
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False,
                  "vocab": vocab, "merges": [f"{a} {b}" for a, b in merges]},
    }
    hf_folder.write_json(os.path.join(folder, "tokenizer.json"), tok)
    hf_folder.write_json(os.path.join(folder, "tokenizer_config.json"), {
        "bos_token": "<s>", "eos_token": "</s>", "pad_token": "<pad>", "unk_token": "<unk>",
        "mask_token": "<mask>", "model_max_length": BART_CFG["max_position_embeddings"],
        "tokenizer_class": "BartTokenizer"})
    return vocab


def bart_build(V, cfg, seed=2020, marian=False):
    """BartForConditionalGeneration's state dict (what save_pretrained keeps: model.shared,
    the tied embed_tokens and lm_head left out, final_logits_bias kept). MarianMTModel's is
    the same without layernorm_embedding and without the sinusoidal position tables (not saved)."""
    d, P = cfg["d_model"], cfg["max_position_embeddings"] + 2  # BartLearnedPositionalEmbedding offset 2
    r = gen(seed)
    w = {"model.shared.weight": r(V, d, std=0.3), "final_logits_bias": r(1, V, std=0.5)}

    def linear(name, n_in, n_out, std):
        w[name + ".weight"] = r(n_out, n_in, std=std)  # nn.Linear [out, in]
        w[name + ".bias"] = r(n_out, std=0.05)

    def norm(name):
        w[name + ".weight"] = r(d, std=0.1, mean=1.0)
        w[name + ".bias"] = r(d, std=0.1)

    def attention(p):
        linear(p + "q_proj", d, d, 0.25)
        linear(p + "k_proj", d, d, 0.25)
        linear(p + "v_proj", d, d, 0.15)
        linear(p + "out_proj", d, d, 0.12)

    for stack in ("encoder", "decoder"):
        p = f"model.{stack}."
        if not marian:
            w[p + "embed_positions.weight"] = r(P, d, std=0.3)
            norm(p + "layernorm_embedding")
        ffn = cfg[f"{stack}_ffn_dim"]
        for i in range(cfg[f"{stack}_layers"]):
            q = f"{p}layers.{i}."
            attention(q + "self_attn.")
            norm(q + "self_attn_layer_norm")
            if stack == "decoder":
                attention(q + "encoder_attn.")
                norm(q + "encoder_attn_layer_norm")
            linear(q + "fc1", d, ffn, 0.15)
            linear(q + "fc2", ffn, d, 0.08)
            norm(q + "final_layer_norm")
    return w


def bart_config(V, cfg):
    c = dict(model_type="bart", architectures=["BartForConditionalGeneration"], vocab_size=V,
             is_encoder_decoder=True, tie_word_embeddings=True, normalize_before=False,
             add_final_layer_norm=False, init_std=0.02, dropout=0.0, attention_dropout=0.0,
             activation_dropout=0.0, torch_dtype="float32")
    c.update(cfg)
    c.update(BART_GEN)
    return c


# ---------------------------------------------------------------------------
# The forward (transformers/models/bart/modeling_bart.py, eager attention, post-LN)

def bart_attention(w, p, x, kv, H, keep, layer_head_mask=None):
    """BartAttention: q_proj(x) * head_dim^-0.5, k/v from kv (x itself, or the encoder output
    for cross-attention); masked logits get finfo.min as the 4D masks do; layer_head_mask [H]
    multiplies each head's probabilities (head_mask, decoder_head_mask, cross_attn_head_mask:
    0 ablates the head, and the returned weights are the multiplied ones). Returns
    (out_proj output, weights [H, Nq, Nk])."""
    Nq, d = x.shape
    Nk, dh = kv.shape[0], d // H
    q = F.linear(x, w[p + "q_proj.weight"], w[p + "q_proj.bias"]) * dh ** -0.5
    k = F.linear(kv, w[p + "k_proj.weight"], w[p + "k_proj.bias"])
    v = F.linear(kv, w[p + "v_proj.weight"], w[p + "v_proj.bias"])
    q, k, v = (t.view(-1, H, dh).transpose(0, 1) for t in (q, k, v))
    s = q @ k.transpose(1, 2)
    if keep is not None:
        s = torch.where(keep, s, torch.tensor(torch.finfo(s.dtype).min))
    pw = torch.softmax(s, dim=-1)
    if layer_head_mask is not None:
        pw = layer_head_mask.view(-1, 1, 1) * pw
    o = (pw @ v).transpose(0, 1).reshape(Nq, d)
    return F.linear(o, w[p + "out_proj.weight"], w[p + "out_proj.bias"]), pw


def marian_positions(n_pos, dim):
    """MarianSinusoidalPositionalEmbedding._init_weight: float64 numpy, then float32; sines in
    the first half of the columns, cosines in the second, column j of each half at frequency
    10000^(-2j/dim)."""
    enc = np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for pos in range(n_pos)])
    out = torch.zeros(n_pos, dim)
    sentinel = dim // 2 if dim % 2 == 0 else dim // 2 + 1
    out[:, 0:sentinel] = torch.FloatTensor(np.sin(enc[:, 0::2]))
    out[:, sentinel:] = torch.FloatTensor(np.cos(enc[:, 1::2]))
    return out


def positions_of(w, cfg, stack):
    if cfg["model_type"] == "marian":  # computed, not stored (_keys_to_ignore_on_save)
        return marian_positions(cfg["max_position_embeddings"], cfg["d_model"]), 0
    return w[f"model.{stack}.embed_positions.weight"], 2  # BartLearnedPositionalEmbedding offset 2


def bart_embed(w, cfg, stack, ids):
    d = cfg["d_model"]
    scale = math.sqrt(d) if cfg["scale_embedding"] else 1.0  # BartScaledWordEmbedding / Marian embed_scale
    ids_t = torch.tensor(ids)
    table, offset = positions_of(w, cfg, stack)
    h = w["model.shared.weight"][ids_t] * scale
    h = h + table[torch.arange(len(ids)) + offset]
    if cfg["model_type"] == "marian":  # no layernorm_embedding
        return h
    p = f"model.{stack}.layernorm_embedding."
    return F.layer_norm(h, (d,), w[p + "weight"], w[p + "bias"], 1e-5)


def act(cfg, x):  # ACT2FN: "gelu" is erf GELU, "swish" SiLU
    return F.silu(x) if cfg["activation_function"] == "swish" else F.gelu(x)


def bart_ffn(w, cfg, p, h, d):
    m = act(cfg, F.linear(h, w[p + "fc1.weight"], w[p + "fc1.bias"]))
    m = F.linear(m, w[p + "fc2.weight"], w[p + "fc2.bias"])
    return F.layer_norm(h + m, (d,), w[p + "final_layer_norm.weight"], w[p + "final_layer_norm.bias"], 1e-5)


def layer_mask(mask, i):
    """Row i of a head mask [L, H] (None: every head kept)."""
    return None if mask is None else mask[i]


def bart_encode(w, cfg, src, head_mask=None):
    d, H = cfg["d_model"], cfg["encoder_attention_heads"]
    h = bart_embed(w, cfg, "encoder", src)
    attns = []
    for i in range(cfg["encoder_layers"]):
        p = f"model.encoder.layers.{i}."
        a, pw = bart_attention(w, p + "self_attn.", h, h, H, None, layer_mask(head_mask, i))
        attns.append(pw)
        h = F.layer_norm(h + a, (d,), w[p + "self_attn_layer_norm.weight"], w[p + "self_attn_layer_norm.bias"], 1e-5)
        h = bart_ffn(w, cfg, p, h, d)
    return h, torch.stack(attns)


def bart_decode(w, cfg, enc, dec_ids, decoder_head_mask=None, cross_attn_head_mask=None):
    d, H = cfg["d_model"], cfg["decoder_attention_heads"]
    N = len(dec_ids)
    causal = torch.tril(torch.ones(N, N, dtype=torch.bool))
    h = bart_embed(w, cfg, "decoder", dec_ids)
    self_attns, cross_attns = [], []
    for i in range(cfg["decoder_layers"]):
        p = f"model.decoder.layers.{i}."
        a, pw = bart_attention(w, p + "self_attn.", h, h, H, causal, layer_mask(decoder_head_mask, i))
        self_attns.append(pw)
        h = F.layer_norm(h + a, (d,), w[p + "self_attn_layer_norm.weight"], w[p + "self_attn_layer_norm.bias"], 1e-5)
        a, pw = bart_attention(w, p + "encoder_attn.", h, enc, H, None, layer_mask(cross_attn_head_mask, i))
        cross_attns.append(pw)
        h = F.layer_norm(h + a, (d,), w[p + "encoder_attn_layer_norm.weight"],
                         w[p + "encoder_attn_layer_norm.bias"], 1e-5)
        h = bart_ffn(w, cfg, p, h, d)
    logits = h @ w["model.shared.weight"].T + w["final_logits_bias"]  # tied lm_head
    return torch.stack(self_attns), torch.stack(cross_attns), logits


# mBART (transformers/models/mbart/modeling_mbart.py): BART's embeddings (learned positions at
# p + 2, layernorm_embedding), pre-LN blocks (each sublayer reads LayerNorm(h) and adds to h)
# and a final layer_norm on each stack's output.

def ln_of(w, name, x, d):
    return F.layer_norm(x, (d,), w[name + ".weight"], w[name + ".bias"], 1e-5)


def mbart_ffn(w, cfg, p, h, d):
    x = ln_of(w, p + "final_layer_norm", h, d)
    m = act(cfg, F.linear(x, w[p + "fc1.weight"], w[p + "fc1.bias"]))
    return h + F.linear(m, w[p + "fc2.weight"], w[p + "fc2.bias"])


def mbart_encode(w, cfg, src):
    d, H = cfg["d_model"], cfg["encoder_attention_heads"]
    h = bart_embed(w, cfg, "encoder", src)
    attns = []
    for i in range(cfg["encoder_layers"]):
        p = f"model.encoder.layers.{i}."
        x = ln_of(w, p + "self_attn_layer_norm", h, d)
        a, pw = bart_attention(w, p + "self_attn.", x, x, H, None)
        attns.append(pw)
        h = mbart_ffn(w, cfg, p, h + a, d)
    return ln_of(w, "model.encoder.layer_norm", h, d), torch.stack(attns)


def mbart_decode(w, cfg, enc, dec_ids):
    d, H, N = cfg["d_model"], cfg["decoder_attention_heads"], len(dec_ids)
    causal = torch.tril(torch.ones(N, N, dtype=torch.bool))
    h = bart_embed(w, cfg, "decoder", dec_ids)
    self_attns, cross_attns = [], []
    for i in range(cfg["decoder_layers"]):
        p = f"model.decoder.layers.{i}."
        x = ln_of(w, p + "self_attn_layer_norm", h, d)
        a, pw = bart_attention(w, p + "self_attn.", x, x, H, causal)
        self_attns.append(pw)
        h = h + a
        x = ln_of(w, p + "encoder_attn_layer_norm", h, d)
        a, pw = bart_attention(w, p + "encoder_attn.", x, enc, H, None)
        cross_attns.append(pw)
        h = mbart_ffn(w, cfg, p, h + a, d)
    h = ln_of(w, "model.decoder.layer_norm", h, d)
    logits = h @ w["model.shared.weight"].T + w["final_logits_bias"]  # tied lm_head
    return torch.stack(self_attns), torch.stack(cross_attns), logits


def np_mbart(w, cfg, src, dec):
    """mBART in float64 numpy, one head at a time."""
    w = {k: v.double().numpy() for k, v in w.items()}
    d = cfg["d_model"]

    def norm(x, name):
        return np_ln(x, w[name + ".weight"], w[name + ".bias"])

    def embed(stack, ids):
        h = w["model.shared.weight"][ids] * (math.sqrt(d) if cfg["scale_embedding"] else 1.0)
        h = h + w[f"model.{stack}.embed_positions.weight"][np.arange(len(ids)) + 2]
        return norm(h, f"model.{stack}.layernorm_embedding")

    def lin(x, name):
        return x @ w[name + ".weight"].T + w[name + ".bias"]

    def attend(p, x, kv, H, causal):
        dh = d // H
        q, k, v = lin(x, p + "q_proj"), lin(kv, p + "k_proj"), lin(kv, p + "v_proj")
        out, maps = np.zeros_like(q), []
        for h in range(H):
            sl = slice(h * dh, (h + 1) * dh)
            sc = q[:, sl] @ k[:, sl].T / math.sqrt(dh)
            if causal:
                sc = np.where(np.tril(np.ones_like(sc)) > 0, sc, -np.inf)
            e = np.exp(sc - sc.max(-1, keepdims=True))
            a = e / e.sum(-1, keepdims=True)
            maps.append(a)
            out[:, sl] = a @ v[:, sl]
        return lin(out, p + "out_proj"), np.stack(maps)

    def ffn(p, h):
        return h + lin(np_gelu(lin(norm(h, p + "final_layer_norm"), p + "fc1")), p + "fc2")

    h, enc_maps = embed("encoder", src), []
    for i in range(cfg["encoder_layers"]):
        p = f"model.encoder.layers.{i}."
        x = norm(h, p + "self_attn_layer_norm")
        a, m = attend(p + "self_attn.", x, x, cfg["encoder_attention_heads"], False)
        enc_maps.append(m)
        h = ffn(p, h + a)
    enc = norm(h, "model.encoder.layer_norm")
    h, dec_maps, cross_maps = embed("decoder", dec), [], []
    for i in range(cfg["decoder_layers"]):
        p = f"model.decoder.layers.{i}."
        x = norm(h, p + "self_attn_layer_norm")
        a, m = attend(p + "self_attn.", x, x, cfg["decoder_attention_heads"], True)
        dec_maps.append(m)
        h = h + a
        a, m = attend(p + "encoder_attn.", norm(h, p + "encoder_attn_layer_norm"), enc,
                      cfg["decoder_attention_heads"], False)
        cross_maps.append(m)
        h = ffn(p, h + a)
    logits = norm(h, "model.decoder.layer_norm") @ w["model.shared.weight"].T + w["final_logits_bias"]
    return np.stack(enc_maps), np.stack(dec_maps), np.stack(cross_maps), logits


def banned_ngram_tokens(ids, n):
    """NoRepeatNGramLogitsProcessor: the tokens that would complete an n-gram already in `ids`."""
    if n <= 0 or len(ids) + 1 < n:
        return []
    seen = {}
    for i in range(len(ids) - n + 1):
        seen.setdefault(tuple(ids[i:i + n - 1]), []).append(ids[i + n - 1])
    return seen.get(tuple(ids[len(ids) - n + 1:]), [])


def forward_of(cfg):
    """(encode, decode) of the family config.json names."""
    if cfg["model_type"] in ("t5", "mt5"):
        return seq2seq_t5.t5_encode, seq2seq_t5.t5_decode
    if cfg["model_type"] == "mbart":
        return mbart_encode, mbart_decode
    return bart_encode, bart_decode


def process_scores(s, ids, cfg, max_length):
    """The logits processors the config turns on, in place on one row `s` [V] for a decoder
    holding `ids`: NoRepeatNGram, NoBadWords, ForcedBOS at length 1, ForcedEOS at max_length - 1.
    T5's config turns none of them on."""
    for t in banned_ngram_tokens(ids, cfg.get("no_repeat_ngram_size", 0)):
        s[t] = -math.inf
    for bad in cfg.get("bad_words_ids", []):  # NoBadWordsLogitsProcessor
        if len(bad) == 1 or ids[len(ids) - len(bad) + 1:] == bad[:-1]:
            s[bad[-1]] = -math.inf
    if len(ids) == 1 and cfg.get("forced_bos_token_id") is not None:
        s[:] = -math.inf
        s[cfg["forced_bos_token_id"]] = 0
    if len(ids) == max_length - 1 and cfg.get("forced_eos_token_id") is not None:
        s[:] = -math.inf
        s[cfg["forced_eos_token_id"]] = 0
    return s


def bart_greedy(w, cfg, src, max_length, masks=None):
    """GenerationMixin.greedy_search with the logits processors; stops at eos or max_length.
    masks: {"encoder", "decoder", "cross": [L, H]} as generate's head_mask, decoder_head_mask and
    cross_attn_head_mask (applied at every step)."""
    encode, decode = forward_of(cfg)
    m = masks or {}
    enc, _ = encode(w, cfg, src, m.get("encoder")) if masks else encode(w, cfg, src)
    ids = [cfg["decoder_start_token_id"]]
    while len(ids) < max_length:
        if masks:
            _, _, logits = decode(w, cfg, enc, ids, m.get("decoder"), m.get("cross"))
        else:
            _, _, logits = decode(w, cfg, enc, ids)
        s = process_scores(logits[-1].clone(), ids, cfg, max_length)
        ids.append(int(torch.argmax(s)))
        if ids[-1] == cfg["eos_token_id"]:
            break
    return ids


class BeamHypotheses:
    """transformers' BeamHypotheses: the num_beams best finished hypotheses, each scored
    sum_logprobs / generated_len ** length_penalty (generated_len: the tokens after the decoder
    start, eos included)."""

    def __init__(self, num_beams, length_penalty, early_stopping):
        self.num_beams, self.length_penalty, self.early_stopping = num_beams, length_penalty, early_stopping
        self.beams, self.worst_score = [], 1e9

    def add(self, hyp, sum_logprobs, generated_len):
        score = sum_logprobs / (generated_len ** self.length_penalty)
        if len(self.beams) < self.num_beams or score > self.worst_score:
            self.beams.append((score, hyp))
            if len(self.beams) > self.num_beams:
                ranked = sorted([(s, i) for i, (s, _) in enumerate(self.beams)])
                del self.beams[ranked[0][1]]
                self.worst_score = ranked[1][0]
            else:
                self.worst_score = min(score, self.worst_score)

    def is_done(self, best_sum_logprobs, generated_len):
        if len(self.beams) < self.num_beams:
            return False
        if self.early_stopping:
            return True
        return self.worst_score >= best_sum_logprobs / generated_len ** self.length_penalty


def beam_search(w, cfg, src, max_length, num_beams, length_penalty, early_stopping):
    """GenerationMixin's beam search with BeamSearchScorer (one sentence, one returned sequence):
    log-softmax scores through the processors plus each beam's running score, the 2 * num_beams
    best (beam, token) pairs, an eos among the first num_beams closing a hypothesis, the others
    continuing; done when num_beams hypotheses are in and (early_stopping) or none could beat the
    worst; at the end the open beams are added too. Returns every kept hypothesis as
    (score, ids), best first as num_return_sequences takes them (sorted by score, popped from the
    end), eos appended to each shorter than max_length."""
    encode, decode = forward_of(cfg)
    enc, _ = encode(w, cfg, src)
    eos = cfg["eos_token_id"]
    beams = [[cfg["decoder_start_token_id"]] for _ in range(num_beams)]
    beam_scores = torch.zeros(num_beams)
    beam_scores[1:] = -1e9  # the first step picks from one beam only
    hyps, done = BeamHypotheses(num_beams, length_penalty, early_stopping), False
    while len(beams[0]) < max_length:
        rows = []
        for b in beams:
            _, _, logits = decode(w, cfg, enc, b)
            rows.append(process_scores(torch.log_softmax(logits[-1], dim=-1), b, cfg, max_length))
        scores = torch.stack(rows) + beam_scores[:, None]
        V = scores.shape[1]
        top, idx = torch.topk(scores.view(-1), 2 * num_beams, largest=True, sorted=True)
        generated = len(beams[0])  # cur_len - decoder_prompt_len: the tokens after the start, eos included
        nxt = []
        for rank, (sc, ix) in enumerate(zip(top.tolist(), idx.tolist())):
            b, tok = ix // V, ix % V
            if tok == eos:
                if rank < num_beams:
                    hyps.add(list(beams[b]), sc, generated)
            else:
                nxt.append((sc, beams[b] + [tok]))
            if len(nxt) == num_beams:
                break
        done = done or hyps.is_done(float(top.max()), generated)
        beams = [b for _, b in nxt]
        beam_scores = torch.tensor([sc for sc, _ in nxt], dtype=torch.float32)
        if done:
            break
    if not done:
        for b, sc in zip(beams, beam_scores.tolist()):
            hyps.add(list(b), sc, len(b) - 1)
    ranked, out = sorted(hyps.beams, key=lambda h: h[0]), []
    while ranked:
        score, hyp = ranked.pop()
        out.append((score, hyp + [eos] if len(hyp) < max_length else hyp))
    return out


# ---------------------------------------------------------------------------
# The independent check: float64 numpy, one head at a time.

def np_ln(x, g, b):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * g + b


def np_gelu(x):
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


def np_bart(w, cfg, src, dec, masks=None):
    """BART / Marian in float64 numpy, one head at a time; masks: {"encoder" | "decoder" | "cross":
    [L, H]} head masks (each head's probabilities times its entry)."""
    w = {k: v.double().numpy() for k, v in w.items()}
    masks = masks or {}

    def hm(stack, i, H):
        return np.asarray(masks[stack][i], np.float64) if stack in masks else np.ones(H)
    d = cfg["d_model"]

    def embed(stack, ids):
        h = w["model.shared.weight"][ids] * (math.sqrt(d) if cfg["scale_embedding"] else 1.0)
        if cfg["model_type"] == "marian":  # the sinusoid written out again, in float64
            pos = np.arange(len(ids))[:, None]
            freq = 10000.0 ** (-2 * np.arange(d // 2) / d)
            return h + np.concatenate([np.sin(pos * freq), np.cos(pos * freq)], axis=1)
        h = h + w[f"model.{stack}.embed_positions.weight"][np.arange(len(ids)) + 2]
        return np_ln(h, w[f"model.{stack}.layernorm_embedding.weight"], w[f"model.{stack}.layernorm_embedding.bias"])

    def np_act(x):
        return x / (1 + np.exp(-x)) if cfg["activation_function"] == "swish" else np_gelu(x)

    def lin(x, name):
        return x @ w[name + ".weight"].T + w[name + ".bias"]

    def attend(p, x, kv, H, causal, mask):
        dh = d // H
        q, k, v = lin(x, p + "q_proj"), lin(kv, p + "k_proj"), lin(kv, p + "v_proj")
        out, maps = np.zeros_like(q), []
        for h in range(H):
            sl = slice(h * dh, (h + 1) * dh)
            s = q[:, sl] @ k[:, sl].T / math.sqrt(dh)
            if causal:
                s = np.where(np.tril(np.ones_like(s)) > 0, s, -np.inf)
            e = np.exp(s - s.max(-1, keepdims=True))
            a = e / e.sum(-1, keepdims=True) * mask[h]
            maps.append(a)
            out[:, sl] = a @ v[:, sl]
        return lin(out, p + "out_proj"), np.stack(maps)

    def block_end(p, h):
        m = lin(np_act(lin(h, p + "fc1")), p + "fc2")
        return np_ln(h + m, w[p + "final_layer_norm.weight"], w[p + "final_layer_norm.bias"])

    h, enc_maps = embed("encoder", src), []
    for i in range(cfg["encoder_layers"]):
        p = f"model.encoder.layers.{i}."
        a, m = attend(p + "self_attn.", h, h, cfg["encoder_attention_heads"], False,
                      hm("encoder", i, cfg["encoder_attention_heads"]))
        enc_maps.append(m)
        h = block_end(p, np_ln(h + a, w[p + "self_attn_layer_norm.weight"], w[p + "self_attn_layer_norm.bias"]))
    enc = h
    h, dec_maps, cross_maps = embed("decoder", dec), [], []
    for i in range(cfg["decoder_layers"]):
        p = f"model.decoder.layers.{i}."
        a, m = attend(p + "self_attn.", h, h, cfg["decoder_attention_heads"], True,
                      hm("decoder", i, cfg["decoder_attention_heads"]))
        dec_maps.append(m)
        h = np_ln(h + a, w[p + "self_attn_layer_norm.weight"], w[p + "self_attn_layer_norm.bias"])
        a, m = attend(p + "encoder_attn.", h, enc, cfg["decoder_attention_heads"], False,
                      hm("cross", i, cfg["decoder_attention_heads"]))
        cross_maps.append(m)
        h = np_ln(h + a, w[p + "encoder_attn_layer_norm.weight"], w[p + "encoder_attn_layer_norm.bias"])
        h = block_end(p, h)
    logits = h @ w["model.shared.weight"].T + w["final_logits_bias"]
    return np.stack(enc_maps), np.stack(dec_maps), np.stack(cross_maps), logits


# ---------------------------------------------------------------------------
# Marian (MarianMTModel, the opus-mt layout): source.spm / target.spm trained here by
# python3-sentencepiece, vocab.json the union of their pieces (</s> 0, <unk> 1, <pad> last).

MARIAN_TARGET_CORPUS = """Das Tier überquerte die Straße nicht, weil es zu müde war. Die Katze saß auf der
Matte und war sehr glücklich! Hallo Welt! Hallo, wie geht es dir? Aufmerksamkeit ist alles, was
man braucht: jeder Kopf achtet auf die Wörter, die er nützlich findet. Übersetzungsmodelle schauen
auf das Quellwort, das sie gerade schreiben. Größe, Mädchen, Bücher über Straßen.
"""


def train_spm(corpus, path, vocab_size):
    import sentencepiece as spm
    import tempfile
    tmp = tempfile.mkdtemp()
    try:
        src = os.path.join(tmp, "corpus.txt")
        with open(src, "w", encoding="utf-8") as f:
            f.write(corpus)
        spm.SentencePieceTrainer.train(input=src, model_prefix=os.path.join(tmp, "m"), model_type="unigram",
                                       vocab_size=vocab_size, hard_vocab_limit=False, character_coverage=1.0,
                                       eos_id=0, unk_id=1, bos_id=-1, pad_id=-1, num_threads=1, minloglevel=2)
        shutil.copyfile(os.path.join(tmp, "m.model"), path)
    finally:
        shutil.rmtree(tmp)
    return spm.SentencePieceProcessor(model_file=path)


def write_marian_vocab(folder, spms, source_lang, target_lang, max_length):
    """vocab.json shared by the source and target SentencePiece models (</s> 0, <unk> 1, their
    pieces in order, <pad> last) and MarianTokenizer's tokenizer_config.json."""
    vocab = {"</s>": 0, "<unk>": 1}
    for sp in spms:
        for i in range(sp.get_piece_size()):
            if not (sp.is_control(i) or sp.is_unknown(i)):
                vocab.setdefault(sp.id_to_piece(i), len(vocab))
    vocab["<pad>"] = len(vocab)
    hf_folder.write_json(os.path.join(folder, "vocab.json"), vocab)
    hf_folder.write_json(os.path.join(folder, "tokenizer_config.json"), {
        "source_lang": source_lang, "target_lang": target_lang, "eos_token": "</s>", "unk_token": "<unk>",
        "pad_token": "<pad>", "model_max_length": max_length, "tokenizer_class": "MarianTokenizer"})
    return vocab


def write_marian_tokenizer(folder):
    src = train_spm(CORPUS, os.path.join(folder, "source.spm"), 160)
    tgt = train_spm(MARIAN_TARGET_CORPUS, os.path.join(folder, "target.spm"), 160)
    return write_marian_vocab(folder, (src, tgt), "en", "de", BART_CFG["max_position_embeddings"])


def marian_encode(folder, text, spm_file):
    """MarianTokenizer: the spm's pieces, their vocab.json ids (unknown: <unk>), then </s>."""
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_file=os.path.join(folder, spm_file))
    with open(os.path.join(folder, "vocab.json"), encoding="utf-8") as f:
        vocab = json.load(f)
    pieces = sp.encode(text, out_type=str)
    return [vocab.get(p, vocab["<unk>"]) for p in pieces] + [vocab["</s>"]], pieces + ["</s>"]


MARIAN_CASES = [
    ("The animal didn't cross the street because it was too tired.", "Die Katze saß auf der Matte."),
    ("Hello, world! Attention is all you need.", "Hallo Welt, wie geht es dir?"),
]


def marian_config(V):
    c = dict(model_type="marian", architectures=["MarianMTModel"], vocab_size=V, decoder_vocab_size=V,
             is_encoder_decoder=True, tie_word_embeddings=True, share_encoder_decoder_embeddings=True,
             static_position_embeddings=True, normalize_embedding=False, normalize_before=False,
             add_final_layer_norm=False, dropout=0.0, torch_dtype="float32")
    c.update(BART_CFG)
    c.update(activation_function="swish", scale_embedding=True)
    c.update(marian_generation(V))
    return c


def marian_generation(V):
    return dict(decoder_start_token_id=V - 1, pad_token_id=V - 1, eos_token_id=0, bos_token_id=0,
                forced_eos_token_id=0, bad_words_ids=[[V - 1]], max_length=12, num_beams=1)


def write_marian():
    folder = os.path.join(ROOT, "marian")
    os.makedirs(folder, exist_ok=True)
    vocab = write_marian_tokenizer(folder)
    V = len(vocab)
    w = bart_build(V, BART_CFG, seed=2017, marian=True)
    hf_folder.write_safetensors(os.path.join(folder, "model.safetensors"), {k: (v, "F32") for k, v in w.items()})
    hf_folder.write_json(os.path.join(folder, "config.json"), marian_config(V))
    hf_folder.write_json(os.path.join(folder, "generation_config.json"), marian_generation(V))


def tokens_marian():
    """reference_tokens.json from python3-sentencepiece, as MarianTokenizer (slow only) encodes."""
    folder = os.path.join(ROOT, "marian")
    out = []
    for source, target in MARIAN_CASES:
        sids, spieces = marian_encode(folder, source, "source.spm")
        tids, tpieces = marian_encode(folder, target, "target.spm")
        out.append(dict(source=source, target=target, source_ids=sids, source_tokens=spieces,
                        target_ids=tids, target_tokens=tpieces))
    import sentencepiece as spm
    hf_folder.write_json(os.path.join(folder, "reference_tokens.json"), {
        "library": f"python3-sentencepiece {spm.__version__} + vocab.json, as MarianTokenizer",
        "tokenizer": "source.spm / target.spm + vocab.json", "cases": out})


def check_close(name, got, want, tol):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    err = float(np.max(np.abs(got - want)))
    print(f"    {name:24s} max |diff| {err:.2e}")
    if err > tol * max(1.0, float(np.max(np.abs(want)))):
        raise SystemExit(f"{name}: the reference and the independent check differ by {err}")


# ---------------------------------------------------------------------------

def write_bart():
    folder = os.path.join(ROOT, "bart")
    os.makedirs(folder, exist_ok=True)
    vocab = write_bart_tokenizer(folder)
    V = len(vocab)
    w = bart_build(V, BART_CFG)
    hf_folder.write_safetensors(os.path.join(folder, "model.safetensors"), {k: (v, "F32") for k, v in w.items()})
    hf_folder.write_json(os.path.join(folder, "config.json"), bart_config(V, BART_CFG))
    gen_cfg = dict(BART_GEN)
    gen_cfg["_from_model_config"] = True
    hf_folder.write_json(os.path.join(folder, "generation_config.json"), gen_cfg)


def load_weights(folder):
    with open(os.path.join(folder, "model.safetensors"), "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(n))
        data = f.read()
    w = {}
    for k, e in header.items():
        if k == "__metadata__":
            continue
        b0, b1 = e["data_offsets"]
        w[k] = torch.from_numpy(np.frombuffer(data[b0:b1], "<f4").reshape(e["shape"]).copy())
    return w


# Beam search per folder: (num_beams, length_penalty, early_stopping); bart as bart-large-cnn's.
BEAM = {"bart": (4, 2.0, True), "marian": (4, 1.0, False), "t5": (3, 1.0, False), "flan_t5": (4, 0.6, False),
        "mbart": (5, 1.0, True)}


def reference(model):
    name = model
    folder = os.path.join(ROOT, name)
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    with open(os.path.join(folder, "reference_tokens.json")) as f:
        cases = json.load(f)["cases"]
    w = load_weights(folder)
    out = {}
    print(f"{name}:")
    for c, case in enumerate(cases):
        src = case["source_ids"]
        dec = [cfg["decoder_start_token_id"]] + case["target_ids"]
        encode, decode = forward_of(cfg)
        enc, enc_attn = encode(w, cfg, src)
        dec_attn, cross_attn, logits = decode(w, cfg, enc, dec)
        check = {seq2seq_t5.t5_encode: seq2seq_t5.np_t5, mbart_encode: np_mbart}.get(encode, np_bart)
        want = check(w, cfg, src, dec)
        for name, got, ref in zip(("encoder attention", "decoder attention", "cross-attention", "logits"),
                                  (enc_attn, dec_attn, cross_attn, logits), want):
            check_close(name, got.numpy(), ref, 1e-5)
        greedy = bart_greedy(w, cfg, src, cfg["max_length"])
        assert len(greedy) > 3, "the random model should write a few tokens before its eos"
        short = bart_greedy(w, cfg, src, 1 + 4)
        ranked = beam_search(w, cfg, src, cfg["max_length"], *BEAM[model])
        beam = ranked[0][1]
        print(f"    case {c}: {len(src)} source, {len(dec)} decoder tokens; greedy {greedy}, short {short}, "
              f"beam {beam}")
        out[f"beam_{c}"] = np.array(beam, np.int64)
        # Every returned sequence (num_return_sequences = num_beams), -1 after its end, and scores.
        ranked_ids = np.full((len(ranked), max(len(h) for _, h in ranked)), -1, np.int64)
        for r, (_, h) in enumerate(ranked):
            ranked_ids[r, :len(h)] = h
        out[f"beam_ranked_{c}"] = ranked_ids
        out[f"beam_scores_{c}"] = np.array([sc for sc, _ in ranked], np.float64)
        out.update({f"source_ids_{c}": np.array(src, np.int64), f"decoder_ids_{c}": np.array(dec, np.int64),
                    f"enc_attn_{c}": enc_attn.numpy(), f"dec_attn_{c}": dec_attn.numpy(),
                    f"cross_attn_{c}": cross_attn.numpy(), f"logits_{c}": logits.numpy(),
                    f"greedy_{c}": np.array(greedy, np.int64), f"greedy_short_{c}": np.array(short, np.int64)})
    if cfg["model_type"] == "mbart":  # the other direction: ro_RO source code, en_XX forced first
        with open(os.path.join(folder, "tokenizer.json")) as f:
            lang = {a["content"]: a["id"] for a in json.load(f)["added_tokens"] if "_" in a["content"]}
        swapped = dict(cfg, forced_bos_token_id=lang["en_XX"])
        for c, case in enumerate(cases):
            src = [lang["ro_RO"] if t == lang["en_XX"] else t for t in case["source_ids"]]
            out[f"source_ro_{c}"] = np.array(src, np.int64)
            out[f"greedy_en_{c}"] = np.array(bart_greedy(w, swapped, src, cfg["max_length"]), np.int64)
            print(f"    case {c} ro_RO -> en_XX: greedy {out[f'greedy_en_{c}'].tolist()}")
    if cfg["model_type"] in ("t5", "mt5"):
        out["buckets_encoder"], out["buckets_decoder"] = seq2seq_t5.bucket_tables(cfg)
    np.savez_compressed(os.path.join(folder, "reference.npz"), **out)


# ---------------------------------------------------------------------------
# Head masks (interventions.npz): one head ablated per stack, as Hugging Face's head_mask,
# decoder_head_mask and cross_attn_head_mask = 0 on it, for the C++ interventions.

# (layer, head), 0-based, ablated in each stack; the cross head changes the greedy output.
ABLATED = {"bart": {"encoder": (1, 2), "decoder": (0, 1), "cross": (1, 3)},
           "marian": {"encoder": (0, 1), "decoder": (1, 2), "cross": (1, 0)},
           "t5": {"encoder": (1, 0), "decoder": (2, 3), "cross": (1, 2)}}


def head_masks(cfg, stack, layer, head):
    """{stack: [L, H] ones with a 0 at (layer, head)} in the shapes the config gives the stack."""
    t5 = cfg["model_type"] in ("t5", "mt5")
    layers = (cfg["num_layers"] if stack == "encoder" else cfg.get("num_decoder_layers", cfg["num_layers"])) if t5 \
        else cfg[f"{'encoder' if stack == 'encoder' else 'decoder'}_layers"]
    heads = cfg["num_heads"] if t5 else cfg[f"{'encoder' if stack == 'encoder' else 'decoder'}_attention_heads"]
    m = torch.ones(layers, heads)
    m[layer, head] = 0
    return {stack: m}


def interventions(model):
    """interventions.npz: per stack s (encoder, decoder, cross) of case 0, ablated_s [2] (layer,
    head 0-based), s_enc_attn, s_dec_attn, s_cross_attn, s_logits (forced decoding with that head
    ablated), and cross_greedy (greedy ids with the cross head ablated). The forward without
    masks is first checked to give reference.npz's arrays exactly (np.array_equal)."""
    folder = os.path.join(ROOT, model)
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    with open(os.path.join(folder, "reference_tokens.json")) as f:
        case = json.load(f)["cases"][0]
    ref = np.load(os.path.join(folder, "reference.npz"))
    w = load_weights(folder)
    src, dec = case["source_ids"], [cfg["decoder_start_token_id"]] + case["target_ids"]
    encode, decode = forward_of(cfg)
    check = seq2seq_t5.np_t5 if encode is seq2seq_t5.t5_encode else np_bart
    enc, enc_attn = encode(w, cfg, src)
    plain = (enc_attn,) + tuple(decode(w, cfg, enc, dec))
    for name, got in zip(("enc_attn", "dec_attn", "cross_attn", "logits"), plain):
        if not np.array_equal(got.numpy(), ref[f"{name}_0"]):
            raise SystemExit(f"{model}: {name}_0 without head masks differs from reference.npz")
    print(f"{model}: the unmasked forward equals reference.npz exactly")
    out = {}
    for stack, (layer, head) in ABLATED[model].items():
        m = head_masks(cfg, stack, layer, head)
        enc, enc_attn = encode(w, cfg, src, m.get("encoder"))
        dec_attn, cross_attn, logits = decode(w, cfg, enc, dec, m.get("decoder"), m.get("cross"))
        want = check(w, cfg, src, dec, {k: v.numpy() for k, v in m.items()})
        for name, got, r in zip(("encoder attention", "decoder attention", "cross-attention", "logits"),
                                (enc_attn, dec_attn, cross_attn, logits), want):
            check_close(f"{stack}: {name}", got.numpy(), r, 1e-5)
        got = {"enc_attn": enc_attn, "dec_attn": dec_attn, "cross_attn": cross_attn, "logits": logits}
        assert float(np.max(np.abs(logits.numpy() - ref["logits_0"]))) > 1e-3, f"{stack}: no effect on the logits"
        out[f"ablated_{stack}"] = np.array([layer, head], np.int64)
        out.update({f"{stack}_{k}": v.numpy() for k, v in got.items()})
    layer, head = ABLATED[model]["cross"]
    greedy = bart_greedy(w, cfg, src, cfg["max_length"], head_masks(cfg, "cross", layer, head))
    print(f"    greedy with cross {layer}.{head} ablated: {greedy} (without: {ref['greedy_0'].tolist()})")
    assert greedy != ref["greedy_0"].tolist(), "the ablated cross head should change the greedy output"
    out["cross_greedy"] = np.array(greedy, np.int64)
    np.savez_compressed(os.path.join(folder, "interventions.npz"), **out)


# ---------------------------------------------------------------------------
# T5 (t5: relu, tied lm_head, spiece.model) and Flan-T5 (gated-gelu, untied lm_head,
# tokenizer.json): SentencePiece pieces with T5's ids (<pad> 0, </s> 1, <unk> 2), the model
# tests/scripts/spm/gen_spm_fixtures.py trained and its T5Converter tokenizer.json from
# tests/scripts/hf_tokenizers/gen_unigram_fixtures.js.

FIXTURES = os.path.normpath(os.path.join(ROOT, ".."))
T5_CFG = dict(d_model=64, d_kv=8, d_ff=128, num_layers=2, num_decoder_layers=3, num_heads=4,
              relative_attention_num_buckets=8, relative_attention_max_distance=20, layer_norm_epsilon=1e-6,
              feed_forward_proj="relu", tie_word_embeddings=True)
FLAN_CFG = dict(d_model=64, d_kv=16, d_ff=96, num_layers=2, num_decoder_layers=2, num_heads=4,
                relative_attention_num_buckets=32, relative_attention_max_distance=128,
                layer_norm_epsilon=1e-6, feed_forward_proj="gated-gelu", tie_word_embeddings=False,
                dense_act_fn="gelu_new", is_gated_act=True)
T5_GEN = dict(decoder_start_token_id=0, eos_token_id=1, pad_token_id=0, max_length=12)
T5_CASES = [
    ("translate English to German: The cat sat on the mat.", "Die Katze saß auf der Matte."),
    ("summarize: Attention is all you need, and every head looks at the words it finds useful.",
     "Every head looks at words."),
]
# name: (config, seed, o/wo std, tokenizer file)
T5_FOLDERS = {"t5": (T5_CFG, 1022, 1.0, "spiece.model"), "flan_t5": (FLAN_CFG, 1021, 0.12, "tokenizer.json")}


def write_t5(name):
    cfg, seed, out_std, tokenizer = T5_FOLDERS[name]
    folder = os.path.join(ROOT, name)
    os.makedirs(folder, exist_ok=True)
    if tokenizer == "spiece.model":
        shutil.copyfile(os.path.join(FIXTURES, "spm", "unigram", "spiece.model"), os.path.join(folder, tokenizer))
    else:
        shutil.copyfile(os.path.join(FIXTURES, "hf_tokenizers", "t5_unigram", "tokenizer.json"),
                        os.path.join(folder, tokenizer))
    import sentencepiece as spm
    V = spm.SentencePieceProcessor(model_file=os.path.join(FIXTURES, "spm", "unigram", "spiece.model")).get_piece_size()
    hf_folder.write_json(os.path.join(folder, "tokenizer_config.json"), {
        "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>", "extra_ids": 0,
        "model_max_length": 512, "tokenizer_class": "T5Tokenizer"})
    w = seq2seq_t5.t5_build(V, cfg, seed, out_std)
    hf_folder.write_safetensors(os.path.join(folder, "model.safetensors"), {k: (v, "F32") for k, v in w.items()})
    config = seq2seq_t5.t5_config(V, cfg)
    config.update(T5_GEN)
    hf_folder.write_json(os.path.join(folder, "config.json"), config)
    hf_folder.write_json(os.path.join(folder, "generation_config.json"), dict(T5_GEN))


def tokens_t5():
    """t5: python3-sentencepiece's pieces then </s>, as T5Tokenizer (slow) encodes; flan_t5 is
    encoded by the npm `tokenizers` (encode_seq2seq_fixtures.js)."""
    import sentencepiece as spm
    folder = os.path.join(ROOT, "t5")
    sp = spm.SentencePieceProcessor(model_file=os.path.join(folder, "spiece.model"))
    out = []
    for source, target in T5_CASES:
        ids = {}
        for key, text in (("source", source), ("target", target)):
            pieces = sp.encode(text, out_type=str)
            ids[key + "_ids"] = [sp.piece_to_id(p) for p in pieces] + [sp.eos_id()]
            ids[key + "_tokens"] = pieces + ["</s>"]
        out.append(dict(source=source, target=target, **ids))
    hf_folder.write_json(os.path.join(folder, "reference_tokens.json"), {
        "library": f"python3-sentencepiece {spm.__version__}, as T5Tokenizer", "tokenizer": "spiece.model",
        "cases": out})


# ---------------------------------------------------------------------------
# mBART (the mBART-50 layout: MBart50TokenizerFast's tokenizer.json puts the source language code
# first and </s> last; generation starts at </s> and forces the target language code first).
# The pieces are those of the T5 Unigram tokenizer.json above, after <s> <pad> </s> <unk> as
# fairseq orders them, the language codes and <mask> last.

MBART_CFG = dict(BART_CFG, normalize_before=True, add_final_layer_norm=True)
MBART_LANGS = ["en_XX", "ro_RO"]
MBART_CASES = [
    ("The animal didn't cross the street because it was too tired.", "Animalul nu a traversat strada."),
    ("Hello, world! Attention is all you need.", "Salut, lume!"),
]


def write_mbart_tokenizer(folder):
    with open(os.path.join(FIXTURES, "hf_tokenizers", "t5_unigram", "tokenizer.json"), encoding="utf-8") as f:
        tok = json.load(f)
    specials = ["<s>", "<pad>", "</s>", "<unk>"]
    pieces = [p for p in tok["model"]["vocab"] if p[0] not in ("<pad>", "</s>", "<unk>")]
    vocab = [[t, 0.0] for t in specials] + pieces + [[t, 0.0] for t in MBART_LANGS + ["<mask>"]]
    ids = {p[0]: i for i, p in enumerate(vocab)}
    tok["added_tokens"] = [{"id": ids[t], "content": t, "single_word": False, "lstrip": t == "<mask>",
                            "rstrip": False, "normalized": False, "special": True}
                           for t in specials + MBART_LANGS + ["<mask>"]]
    tok["model"] = {"type": "Unigram", "unk_id": 3, "vocab": vocab, "byte_fallback": False}
    seq = lambda n: {"Sequence": {"id": n, "type_id": 0}}  # noqa: E731
    special = lambda t: {"SpecialToken": {"id": t, "type_id": 0}}  # noqa: E731
    tok["post_processor"] = {
        "type": "TemplateProcessing", "single": [special("en_XX"), seq("A"), special("</s>")],
        "pair": [special("en_XX"), seq("A"), seq("B"), special("</s>")],
        "special_tokens": {t: {"id": t, "ids": [ids[t]], "tokens": [t]} for t in ("en_XX", "</s>")}}
    hf_folder.write_json(os.path.join(folder, "tokenizer.json"), tok, indent=1)
    hf_folder.write_json(os.path.join(folder, "tokenizer_config.json"), {
        "bos_token": "<s>", "eos_token": "</s>", "pad_token": "<pad>", "unk_token": "<unk>", "mask_token": "<mask>",
        "src_lang": "en_XX", "tgt_lang": "ro_RO", "model_max_length": MBART_CFG["max_position_embeddings"],
        "tokenizer_class": "MBart50Tokenizer"})
    return ids


def write_mbart():
    folder = os.path.join(ROOT, "mbart")
    os.makedirs(folder, exist_ok=True)
    ids = write_mbart_tokenizer(folder)
    V = len(ids)
    w = bart_build(V, MBART_CFG, seed=2002)
    for k in w:  # sublayers that outweigh the residual: a random pre-LN stack otherwise echoes its input token
        if k.endswith(("fc2.weight", "out_proj.weight")):
            w[k] = w[k] * 6
    r = gen(2002)
    for stack in ("encoder", "decoder"):  # the final layer_norm of each stack
        w[f"model.{stack}.layer_norm.weight"] = r(MBART_CFG["d_model"], std=0.1, mean=1.0)
        w[f"model.{stack}.layer_norm.bias"] = r(MBART_CFG["d_model"], std=0.1)
    hf_folder.write_safetensors(os.path.join(folder, "model.safetensors"), {k: (v, "F32") for k, v in w.items()})
    config = bart_config(V, MBART_CFG)
    config.update(model_type="mbart", architectures=["MBartForConditionalGeneration"])
    gen_cfg = dict(BART_GEN, forced_bos_token_id=ids["ro_RO"], no_repeat_ngram_size=0)
    config.update(gen_cfg)
    hf_folder.write_json(os.path.join(folder, "config.json"), config)
    hf_folder.write_json(os.path.join(folder, "generation_config.json"), gen_cfg)


MODELS = ["bart", "marian", "t5", "flan_t5", "mbart"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--step", choices=["all", "folders", "tokens", "reference", "interventions"], default="all")
    ap.add_argument("--models", default=",".join(MODELS), help="comma-separated, of " + ", ".join(MODELS))
    args = ap.parse_args()
    models = [m for m in args.models.split(",") if m]
    if any(m not in MODELS for m in models):
        raise SystemExit(f"--models: choose from {', '.join(MODELS)}")
    torch.set_grad_enabled(False)
    torch.set_num_threads(1)
    if args.step in ("all", "folders"):
        for m in models:
            {"bart": write_bart, "marian": write_marian, "mbart": write_mbart}.get(m, lambda: write_t5(m))()
    if args.step in ("all", "tokens"):
        node = shutil.which("node") or "node"
        by_node = [m for m in models if m in ("bart", "flan_t5", "mbart")]
        if by_node:
            subprocess.run([node, os.path.join(NODE_DIR, "encode_seq2seq_fixtures.js"), ROOT] + by_node, check=True)
        if "marian" in models:
            tokens_marian()
        if "t5" in models:
            tokens_t5()
    if args.step in ("all", "reference"):
        for m in models:
            reference(m)
    if args.step in ("all", "interventions"):
        for m in models:
            if m in ABLATED:
                interventions(m)


if __name__ == "__main__":
    main()
