#!/usr/bin/python3
"""AttnScope's whole `attnscope-cli translate --model DIR --text ... --out X.npz` process on a
Marian-sized model against a plain-PyTorch greedy generation loop with a key/value cache on the
same model, in one run.

Usage (from the repository root; not run by CI):

    /usr/bin/python3 scripts/bench/translate_vs_torch.py [--cli build/lean/bin/attnscope-cli]
        [--reps 5] [--threads 2] [--cache build/bench] [--source-tokens 30] [--new-tokens 30]

  1. writes once into --cache (kept and reused; not in git) a random MarianMTModel folder with
     Helsinki-NLP/opus-mt's shapes (6 + 6 layers, d_model 512, 8 heads, FFN 2048, swish, shared
     and tied 65,000-entry vocabulary, sinusoidal positions, F32 weights with 1/sqrt(fan_in)
     scales so that greedy choices are not near ties), its SentencePiece models (trained by
     python3-sentencepiece on the reference fixtures' text) and vocab.json (their pieces, then
     filler pieces up to 65,000, <pad> last), as tests/scripts/gen_seq2seq_fixtures.py writes
     the small Marian fixture;
  2. a source sentence of --source-tokens tokens (</s> included) from that text;
  3. the model file's cached pages dropped and read back by one untimed run; then per rep the
     whole CLI process under /usr/bin/time -v (wall, user + sys CPU, peak RSS), greedy
     (`--beam 1`), --new-tokens tokens after the decoder start, every map written; the last
     rep's output ids and cross-attention maps are checked against the reference's;
  4. the reference in this process: the fixtures' PyTorch port of modeling_marian.py (encoder
     once, then one decoder row per step reading the cached self-attention keys/values and the
     encoder's keys/values projected once, as transformers' generate does with use_cache), the
     greedy branch with the model's generation settings (pad banned, </s> forced at max_length),
     every map kept; torch.set_num_threads(--threads) and OPENBLAS_NUM_THREADS = --threads;
     best and median of --reps after one warm-up;
  5. prints the ratios: PyTorch loop / AttnScope whole process (target >= 3, and the process
     <= 0.3 s), with the CPU, the engine copy, which BLAS torch loaded and the load average.
The machine is shared: run it when `uptime` shows a low load and say the load.
"""
import argparse
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "scripts"))
sys.path.insert(0, HERE)

from vit_vs_torch import blas_lines, drop_from_page_cache, threads_from_argv, timed  # noqa: E402  (BLAS threads)

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import gen_seq2seq_fixtures as S  # noqa: E402
import hf_folder  # noqa: E402

VOCAB = 65000
CFG = dict(d_model=512, encoder_layers=6, decoder_layers=6, encoder_attention_heads=8, decoder_attention_heads=8,
           encoder_ffn_dim=2048, decoder_ffn_dim=2048, max_position_embeddings=512, activation_function="swish",
           scale_embedding=True, model_type="marian")


def build_weights(seed=34):
    """MarianMTModel's state dict with the fixture's names (gen_seq2seq_fixtures.bart_build),
    weights N(0, 1/fan_in), biases and LayerNorm shifts N(0, 0.02), gains N(1, 0.02), the shared
    embedding N(0, 1/d) (times sqrt(d) at the input: unit scale)."""
    g = torch.Generator().manual_seed(seed)
    d = CFG["d_model"]
    w = {}

    def rnd(*shape, std, mean=0.0):
        return torch.randn(*shape, generator=g) * std + mean

    w["model.shared.weight"] = rnd(VOCAB, d, std=d ** -0.5)
    w["final_logits_bias"] = torch.zeros(1, VOCAB)

    def linear(name, n_in, n_out):
        w[name + ".weight"] = rnd(n_out, n_in, std=n_in ** -0.5)
        w[name + ".bias"] = rnd(n_out, std=0.02)

    def norm(name):
        w[name + ".weight"] = rnd(d, std=0.02, mean=1.0)
        w[name + ".bias"] = rnd(d, std=0.02)

    for stack in ("encoder", "decoder"):
        for i in range(CFG[f"{stack}_layers"]):
            p = f"model.{stack}.layers.{i}."
            kinds = ("self_attn", "encoder_attn") if stack == "decoder" else ("self_attn",)
            for kind in kinds:
                for proj in ("q_proj", "k_proj", "v_proj", "out_proj"):
                    linear(f"{p}{kind}.{proj}", d, d)
                norm(f"{p}{kind}_layer_norm")
            linear(p + "fc1", d, CFG[f"{stack}_ffn_dim"])
            linear(p + "fc2", CFG[f"{stack}_ffn_dim"], d)
            norm(p + "final_layer_norm")
    return w


def write_folder(folder):
    """The model folder (config.json written last marks it complete) and its weights."""
    if os.path.exists(os.path.join(folder, "config.json")):
        return S.load_weights(folder)
    os.makedirs(folder, exist_ok=True)
    src = S.train_spm(S.CORPUS, os.path.join(folder, "source.spm"), 160)
    tgt = S.train_spm(S.MARIAN_TARGET_CORPUS, os.path.join(folder, "target.spm"), 160)
    vocab = S.write_marian_vocab(folder, (src, tgt), "en", "de", CFG["max_position_embeddings"])
    del vocab["<pad>"]
    for i in range(VOCAB - 1 - len(vocab)):
        vocab[f"\u2581filler{i}"] = len(vocab)
    vocab["<pad>"] = len(vocab)
    assert len(vocab) == VOCAB
    hf_folder.write_json(os.path.join(folder, "vocab.json"), vocab)
    w = build_weights()
    hf_folder.write_safetensors(os.path.join(folder, "model.safetensors"), {k: (v, "F32") for k, v in w.items()})
    config = S.marian_config(VOCAB)
    config.update(CFG)
    hf_folder.write_json(os.path.join(folder, "generation_config.json"), S.marian_generation(VOCAB))
    hf_folder.write_json(os.path.join(folder, "config.json"), config)
    return w


def source_text(folder, n_tokens):
    """The shortest prefix of the fixtures' text that encodes to at least n_tokens (</s> included)."""
    words = S.CORPUS.split()
    for k in range(1, len(words) + 1):
        text = " ".join(words[:k])
        ids, _ = S.marian_encode(folder, text, "source.spm")
        if len(ids) >= n_tokens:
            return text, ids
    raise SystemExit(f"the text has fewer than {n_tokens} tokens")


class Projected:
    """The decoder's per-layer weights as the loop reads them (q/k/v/o, cross k/v of the encoder)."""

    def __init__(self, w, enc):
        self.w, self.cross = w, []
        H = CFG["decoder_attention_heads"]
        for i in range(CFG["decoder_layers"]):
            p = f"model.decoder.layers.{i}.encoder_attn."
            k = F.linear(enc, w[p + "k_proj.weight"], w[p + "k_proj.bias"])
            v = F.linear(enc, w[p + "v_proj.weight"], w[p + "v_proj.bias"])
            self.cross.append(tuple(t.view(-1, H, CFG["d_model"] // H).transpose(0, 1) for t in (k, v)))


def attend_row(w, p, x, k, v):
    """One query row against cached keys/values [H, Nk, dh]: (out_proj output, weights [H, 1, Nk])."""
    H, dh = k.shape[0], k.shape[2]
    q = (F.linear(x, w[p + "q_proj.weight"], w[p + "q_proj.bias"]) * dh ** -0.5).view(1, H, dh).transpose(0, 1)
    pw = torch.softmax(q @ k.transpose(1, 2), dim=-1)
    o = (pw @ v).transpose(0, 1).reshape(1, H * dh)
    return F.linear(o, w[p + "out_proj.weight"], w[p + "out_proj.bias"]), pw


def decoder_step(w, proj, cache, token, pos, positions):
    """One decoder row (modeling_marian.py, post-LN, use_cache): logits [V] and the row's maps."""
    d, H = CFG["d_model"], CFG["decoder_attention_heads"]
    h = w["model.shared.weight"][token].view(1, d) * math.sqrt(d) + positions[pos]
    selfs, crosses = [], []
    for i in range(CFG["decoder_layers"]):
        p = f"model.decoder.layers.{i}."
        k = F.linear(h, w[p + "self_attn.k_proj.weight"], w[p + "self_attn.k_proj.bias"]).view(1, H, -1).transpose(0, 1)
        v = F.linear(h, w[p + "self_attn.v_proj.weight"], w[p + "self_attn.v_proj.bias"]).view(1, H, -1).transpose(0, 1)
        ck, cv = cache[i]
        cache[i] = (torch.cat([ck, k], 1), torch.cat([cv, v], 1)) if ck is not None else (k, v)
        a, pw = attend_row(w, p + "self_attn.", h, *cache[i])
        selfs.append(pw)
        h = S.ln_of(w, p + "self_attn_layer_norm", h + a, d)
        a, pw = attend_row(w, p + "encoder_attn.", h, *proj.cross[i])
        crosses.append(pw)
        h = S.ln_of(w, p + "encoder_attn_layer_norm", h + a, d)
        h = S.bart_ffn(w, CFG, p, h, d)
    logits = (h @ w["model.shared.weight"].T + w["final_logits_bias"])[0]
    return logits, selfs, crosses


def greedy(w, src_ids, new_tokens):
    """The greedy loop with the model's generation settings: (ids with the decoder start, cross
    maps [L, H, T, Ns] of the tokens read, decoder self maps per step)."""
    gen = S.marian_generation(VOCAB)
    positions = S.marian_positions(CFG["max_position_embeddings"], CFG["d_model"])
    enc, _ = S.bart_encode(w, CFG, src_ids)
    proj = Projected(w, enc)
    cache = [(None, None)] * CFG["decoder_layers"]
    ids, cross_rows, self_rows = [gen["decoder_start_token_id"]], [], []
    max_length = 1 + new_tokens
    while len(ids) < max_length:
        logits, selfs, crosses = decoder_step(w, proj, cache, ids[-1], len(ids) - 1, positions)
        cross_rows.append(torch.stack(crosses))
        self_rows.append(selfs)
        logits[gen["pad_token_id"]] = -math.inf  # bad_words_ids
        if len(ids) == max_length - 1:  # ForcedEOSTokenLogitsProcessor
            nxt = gen["forced_eos_token_id"]
        else:
            nxt = int(torch.argmax(logits))
        ids.append(nxt)
        if nxt == gen["eos_token_id"]:
            break
    return ids, torch.cat(cross_rows, dim=2).numpy(), self_rows


def run_cli(a, folder, text, reps):
    walls, cpus, rsss = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "t.npz")
        cmd = ["env", f"OMP_NUM_THREADS={a.threads}", a.cli, "translate", "--model", folder, "--text", text,
               "--beam", "1", "--max-new-tokens", str(a.new_tokens), "--out", out, "--force"]
        # The model file read back from disk by one untimed run, as a model read from disk leaves the
        # page cache (2 MB folios where the kernel has them; see vit_vs_torch.py --page-cache).
        drop_from_page_cache(os.path.join(folder, "model.safetensors"))
        timed(cmd)
        for _ in range(reps):
            wall, rss, cpu, _, _ = timed(cmd)
            walls.append(wall)
            cpus.append(cpu)
            rsss.append(rss)
        with np.load(out) as z:
            got = {k: z[k] for k in ("output_ids", "cross_weights", "source_tokens")}
    return walls, cpus, rsss, got


def reference(w, src_ids, a):
    times, cpus = [], []
    result = greedy(w, src_ids, a.new_tokens)
    for _ in range(a.reps):
        c0 = time.process_time()
        t0 = time.perf_counter()
        greedy(w, src_ids, a.new_tokens)
        times.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return times, cpus, result


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=os.path.join(REPO, "build", "lean", "bin", "attnscope-cli"))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--threads", type=int, default=int(threads_from_argv()))
    ap.add_argument("--cache", default=os.path.join(REPO, "build", "bench"))
    ap.add_argument("--source-tokens", type=int, default=30)
    ap.add_argument("--new-tokens", type=int, default=30)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.set_grad_enabled(False)
    folder = os.path.join(a.cache, "marian-base")
    w = write_folder(folder)
    text, src_ids = source_text(folder, a.source_tokens)

    cpuinfo = open("/proc/cpuinfo").read()
    model_name = re.search(r"model name\s*:\s*(.*)", cpuinfo)
    avx = sorted(set(re.findall(r"\bavx512\w*", cpuinfo)))
    print(f"CPU: {model_name.group(1) if model_name else '?'}, {os.cpu_count()} cores, {' '.join(avx) or 'no AVX-512'}")
    info = subprocess.run([a.cli, "info", "--system"], capture_output=True, text=True).stdout
    level = re.search(r"Kernel level:\s*(.*)", info)
    print(f"AttnScope engine copy: {level.group(1) if level else '?'}; {a.threads} threads")
    torch_blas, loaded = blas_lines()
    print(f"torch {torch.__version__}: {'; '.join(torch_blas)}; loaded in this process: {', '.join(loaded) or 'none'}")
    size = os.path.getsize(os.path.join(folder, "model.safetensors"))
    print(f"model: Marian shape (6 + 6 layers, d 512, 8 heads, FFN 2048, vocabulary {VOCAB}), F32, {size / 1e6:.0f} MB; "
          f"source {len(src_ids)} tokens, greedy, {a.new_tokens} tokens after the decoder start")

    load0 = open("/proc/loadavg").read().split()[0]
    walls, cpus, rsss, got = run_cli(a, folder, text, a.reps)
    pt, pt_cpu, (ref_ids, ref_cross, _) = reference(w, src_ids, a)
    load1 = open("/proc/loadavg").read().split()[0]

    same_ids = list(got["output_ids"]) == ref_ids[1:] or list(got["output_ids"]) == ref_ids
    rows = min(got["cross_weights"].shape[2], ref_cross.shape[2])
    diff = float(np.abs(got["cross_weights"][:, :, :rows].astype(np.float64) - ref_cross[:, :, :rows]).max())
    print(f"load average {load0} -> {load1}; output ids {'identical to' if same_ids else 'DIFFER from'} the "
          f"reference's ({len(ref_ids) - 1} tokens); cross-attention {list(got['cross_weights'].shape)}, first "
          f"{rows} rows within {diff:.1e} of the reference's")
    if not same_ids:
        print(f"  AttnScope {list(got['output_ids'])}\n  reference {ref_ids}")
    med = statistics.median
    print(f"AttnScope whole process: median {med(walls):.3f} s, best {min(walls):.3f} s "
          f"(runs {', '.join(f'{t:.3f}' for t in walls)}), CPU {med(cpus):.3f} s, peak RSS {max(rsss) / 1e6:.0f} MB")
    print(f"PyTorch greedy loop with a KV cache: median {med(pt):.3f} s, best {min(pt):.3f} s, CPU {med(pt_cpu):.3f} s")
    print("\n| AttnScope whole process (median / best) | PyTorch loop (median / best) "
          "| PyTorch loop / AttnScope process (target >= 3) | CPU s ratio |")
    print("|---|---|---|---|")
    print(f"| {med(walls):.3f} / {min(walls):.3f} s (target <= 0.3) | {med(pt):.3f} / {min(pt):.3f} s "
          f"| {med(pt) / med(walls):.2f}x | {med(pt_cpu) / med(cpus):.2f}x |")


if __name__ == "__main__":
    main()
