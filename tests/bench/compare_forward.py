#!/usr/bin/python3
"""The forward's own speed at a short prompt, every baseline in one run: AttnScope's whole
`attnscope-cli run --model` process against an in-process plain-PyTorch forward (OpenBLAS) and
llama.cpp's prompt processing (node-llama-cpp), on GPT-2 small and Llama-3.2-1B shapes, with the
forward's rate against the same-run GEMM ceiling.

Usage (from the repository root; Debian's python3-torch with OpenBLAS; not run by CI):

    /usr/bin/python3 tests/bench/compare_forward.py [--cli build/lean/bin/attnscope-cli]
        [--bench build/lean/tests/bench/model_bench] [--models gpt2,llama1b] [--tokens 128]
        [--reps 3] [--threads 2] [--workdir /work/bench/forward] [--llamacpp /work/bench/llamacpp]

  0. with --refresh-page-cache, the weight files' pages read back into the page cache in 2 MB
     folios (otherwise the share of each file so held is printed: it moves the times);
  1. which BLAS torch runs on, and OpenBLAS's single-GEMM rate at 4096^3 and at the Llama MLP's
     128 x 2048 x 8192 (the strongest baseline's own ceiling);
  2. the models, written once into --workdir: GPT-2 small (F32 safetensors folder, and the same
     weights as an F32 GGUF) and the Llama-3.2-1B shape (BF16 safetensors folder; for llama.cpp
     and AttnScope a BF16 GGUF of the same shapes from scripts/bench/gguf_vs_llamacpp.py);
  3. per model, --reps times each, alternating: PyTorch's forward (tests/scripts/gen_model_fixtures.py,
     every layer's maps and the logits at every position), AttnScope's whole process on the folder
     (`run --model DIR --text T --out R.npz --profile`: open, tokenize, forward with the top 5 at
     every position, every map written; its "profile forward" line is the forward stage) and on
     the GGUF with `--next-tokens last` (llama.cpp's prompt figure computes the last position's
     logits only), and llama.cpp's prompt processing of the GGUF (the best of three evaluations in
     one process, as scripts/bench/llamacpp_prompt.mjs times it);
  4. prints the medians and the targets: AttnScope's whole process >= 2x PyTorch's forward and >=
     1.5x llama.cpp's prompt time; the forward stage's rate (the products' FLOP over the stage's
     time: a lower bound of the products' own rate) >= 85% of AttnScope's same-run GEMM ceiling
     (`model_bench --model DIR --ceiling`: its F32 linear on 1024 x d x intermediate); the whole
     process within 1.15x of the forward stage.
The VM is noisy: run it when `uptime` shows a load below 1, and compare the ratios of one run.
"""
import argparse
import json
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
sys.path.insert(0, os.path.join(REPO, "scripts", "bench"))
sys.path.insert(0, HERE)
import compare_models as CM  # noqa: E402  (first: it sets the BLAS thread count before torch loads)
import numpy as np  # noqa: E402
import torch  # noqa: E402
import gguf_ref as G  # noqa: E402
import gguf_vs_llamacpp as GV  # noqa: E402
from gen_gguf_models import bpe_vocab, gpt2_tensors, read_safetensors  # noqa: E402
from gen_model_fixtures import gpt2_forward, llama_forward, load_weights  # noqa: E402

GPT2 = dict(n_embd=768, n_head=12, n_layer=12, layer_norm_epsilon=1e-5)  # what gpt2_forward reads


def torch_rate(m, k, n, reps=3):
    a, b = torch.randn(m, k), torch.randn(k, n)
    a @ b
    t0 = time.perf_counter()
    for _ in range(reps):
        a @ b
    return reps * 2 * m * k * n / (time.perf_counter() - t0) / 1e9


def products_flop(model, n):
    """Multiply-adds x 2 of one causal forward on n tokens: the layers' projections and MLP, Q K^T
    and P V over the causal half (returned first), and the output head's per position (second)."""
    if model == "gpt2":
        d, layers, heads, hd, inner, vocab, mats = 768, 12, 12, 64, 3072, 50257, 2
        qkv = 3 * d
    else:
        d, layers, heads, hd, inner, vocab, mats = 2048, 16, 32, 64, 8192, 128256, 3
        qkv = (32 + 2 * 8) * hd
    per_token = d * qkv + heads * hd * d + mats * d * inner
    cells = 0.5 * n * (n + 1)
    body = 2.0 * layers * (per_token * n + 2.0 * heads * hd * cells)
    return body, 2.0 * d * vocab  # the head's cost per position


def write_gpt2_gguf(folder, path):
    """The folder's own weights as an F32 GGUF (llama.cpp's gpt2 architecture, its converter's names)."""
    st = read_safetensors(folder)
    cfg = json.load(open(os.path.join(folder, "config.json")))
    meta = [("general.architecture", "str", "gpt2"), ("general.name", "str", "random-gpt2-small"),
            ("general.file_type", "u32", 0),
            ("gpt2.context_length", "u32", cfg["n_positions"]), ("gpt2.embedding_length", "u32", cfg["n_embd"]),
            ("gpt2.feed_forward_length", "u32", 4 * cfg["n_embd"]), ("gpt2.block_count", "u32", cfg["n_layer"]),
            ("gpt2.attention.head_count", "u32", cfg["n_head"]),
            ("gpt2.attention.layer_norm_epsilon", "f32", float(cfg["layer_norm_epsilon"]))]
    tensors = []
    for name, v in gpt2_tensors(cfg, st):
        v = np.ascontiguousarray(v, np.float32)
        tensors.append((name, list(reversed(v.shape)), "F32", v.astype("<f4").tobytes()))
    vocab = bpe_vocab(folder, "gpt-2", None, "<|endoftext|>", False, st["wte.weight"].shape[0])
    G.write_gguf(path + ".part", meta + vocab, tensors)
    os.replace(path + ".part", path)


def settle():
    """OpenBLAS's and OpenMP's worker threads in this process spin for a while after a product
    (OpenBLAS: up to 2^28 cycles): a process started at once shares the two cores with them."""
    time.sleep(1.0)


def torch_seconds(model, weights, tokens):
    ids = torch.randint(0, 50257 if model == "gpt2" else 128000, (tokens,),
                        generator=torch.Generator().manual_seed(0)).tolist()
    with torch.no_grad():
        t0 = time.perf_counter()
        if model == "gpt2":
            attn, _, logits = gpt2_forward(weights, GPT2, ids)
        else:
            cfg = dict(CM.hf_folder.LLAMA_1B, rope_scaling=None)
            attn, _, logits = llama_forward(weights, cfg, ids)
        wall = time.perf_counter() - t0
    assert attn.shape[-1] == tokens and logits.shape[0] == tokens
    settle()
    return wall


def attnscope(cli, model, text, tokens, env, last_only):
    """(whole-process wall seconds, forward-stage seconds) of one `run --model` process; None for
    tokens: no check of the count, which is returned instead of the times."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.npz")
        cmd = [cli, "run", "--model", model, "--text", text, "--out", out, "--profile"]
        cmd += ["--next-tokens", "last"] if last_only else []
        t0 = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        wall = time.perf_counter() - t0
        if r.returncode != 0:
            raise SystemExit(f"{' '.join(cmd[:4])} ... failed ({r.returncode}):\n{r.stderr[-2000:]}")
        with np.load(out) as z:
            n = len(z["tokens"])
    if tokens is None:
        return n
    if n != tokens:
        raise SystemExit(f"{model}: AttnScope ran {n} tokens, not {tokens} (the prompt text no longer fits)")
    m = re.search(r"profile forward: ([\d.]+) s", r.stdout + r.stderr)
    return wall, float(m.group(1)) if m else float("nan")


def llamacpp_seconds(dirname, path, tokens, threads):
    script = os.path.join(REPO, "scripts", "bench", "llamacpp_prompt.mjs")
    r = subprocess.run(["node", script, dirname, path, str(tokens), str(threads), "3"], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"llama.cpp on {path} failed ({r.returncode}):\n{r.stderr[-2000:]}")
    return min(json.loads(r.stdout.strip().splitlines()[-1])["prompt_s"])


def prompt(cli, model, tokens, env):
    """Digits, one token each in the bench tokenizers (no merge joins two), as many as make
    `tokens` tokens with what the tokenizer adds (BOS, a leading "▁"): counted by a first run."""
    text = GV.prompt_text(tokens + 1)
    n = attnscope(cli, model, text, None, env, True)
    return GV.prompt_text(tokens + 1 - (n - tokens))


def prepare(model, work):
    if model == "gpt2":
        folder = os.path.join(work, "gpt2-small")
        weights = CM.ensure_gpt2(folder)
        gguf = os.path.join(work, "random-gpt2-small-F32.gguf")
        if not os.path.exists(gguf):
            write_gpt2_gguf(folder, gguf)
        return folder, gguf, lambda: weights
    folder = os.path.join(work, "llama-1b")
    CM.ensure_llama(folder)
    gguf = os.path.join(work, "random-llama-3.2-1b-BF16.gguf")
    if not os.path.exists(gguf):
        GV.write_model(gguf, "BF16")
    return folder, gguf, lambda: load_weights(folder)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=os.path.join(REPO, "build", "lean", "bin", "attnscope-cli"))
    ap.add_argument("--bench", default=os.path.join(REPO, "build", "lean", "tests", "bench", "model_bench"))
    ap.add_argument("--models", default="gpt2,llama1b")
    ap.add_argument("--tokens", type=int, default=128)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", type=int, default=CM.THREADS_DEFAULT)
    ap.add_argument("--workdir", default="/work/bench/forward")
    ap.add_argument("--llamacpp", default="/work/bench/llamacpp", help="where npm i -E node-llama-cpp@3.21.1 ran")
    ap.add_argument("--refresh-page-cache", action="store_true",
                    help="drop the weight files' cached pages and read them back in 2 MB folios first")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    os.makedirs(a.workdir, exist_ok=True)
    env = dict(os.environ, OMP_NUM_THREADS=str(a.threads))
    cpu = sorted(set(re.findall(r"avx512\w*", open("/proc/cpuinfo").read())))
    print(f"CPU: {os.cpu_count()} cores, {' '.join(cpu) or 'no AVX-512'}; load average {GV.load_average()}")
    info = subprocess.run([a.cli, "info", "--system"], capture_output=True, text=True, env=env).stdout
    level = re.search(r"Kernel level:\s*(.*)", info)
    print(f"AttnScope engine: {level.group(1) if level else '?'}; {a.threads} threads; {a.tokens} tokens")
    if not CM.blas_report():
        print("  [PyTorch is not on OpenBLAS: its times are not a valid baseline]")
    print(f"OpenBLAS sgemm: 4096^3 {torch_rate(4096, 4096, 4096):.0f} GFLOP/s, "
          f"128 x 2048 x 8192 {torch_rate(128, 2048, 8192, 10):.0f} GFLOP/s")
    rows = []
    for model in a.models.split(","):
        folder, gguf, load = prepare(model, a.workdir)
        files = [os.path.join(folder, "model.safetensors"), gguf]
        if a.refresh_page_cache:
            for f in files:
                GV.refresh_page_cache(f)
        # A file the page cache holds in 4 KB pages costs ~1 us a page at first touch on a
        # shadow-paging VM, in every process (gguf_vs_llamacpp.py: huge_mapped_share).
        huge = [GV.huge_mapped_share(f) for f in files]
        settle()
        ceiling = json.loads(subprocess.run([a.bench, "--model", folder, "--ceiling"], capture_output=True,
                                            text=True, env=env, check=True).stdout)["gemm_ceiling_gflops"]
        text, text_gguf = prompt(a.cli, folder, a.tokens, env), prompt(a.cli, gguf, a.tokens, env)
        weights = load()
        torch_seconds(model, weights, a.tokens)  # warm-up
        pt, whole, stage, whole_gguf, ll = [], [], [], [], []
        for _ in range(a.reps):
            pt.append(torch_seconds(model, weights, a.tokens))
            w, s = attnscope(a.cli, folder, text, a.tokens, env, False)
            whole.append(w), stage.append(s)
            whole_gguf.append(attnscope(a.cli, gguf, text_gguf, a.tokens, env, True)[0])
            ll.append(llamacpp_seconds(a.llamacpp, gguf, a.tokens, a.threads))
            settle()
        del weights
        med = statistics.median
        body, head = products_flop(model, a.tokens)
        rate = (body + a.tokens * head) / med(stage) / 1e9
        runs = lambda xs: ", ".join(f"{x:.2f}" for x in xs)  # noqa: E731
        print(f"\n{model}: folder {folder}, GGUF {os.path.basename(gguf)}; in 2 MB pages: "
              f"{100 * huge[0]:.0f}% and {100 * huge[1]:.0f}%")
        print(f"  PyTorch forward (every map, logits at every position): {med(pt):.2f} s ({runs(pt)})")
        print(f"  AttnScope whole process on the folder (top 5 at every position): {med(whole):.2f} s "
              f"({runs(whole)}); forward stage {med(stage):.2f} s ({runs(stage)})")
        print(f"  AttnScope whole process on the GGUF, top 5 after the last position: {med(whole_gguf):.2f} s "
              f"({runs(whole_gguf)})")
        print(f"  llama.cpp prompt processing of the GGUF: {med(ll):.2f} s ({runs(ll)})")
        print(f"  forward stage {rate:.0f} GFLOP/s of {(body + a.tokens * head) / 1e9:.0f} GFLOP; "
              f"AttnScope's GEMM ceiling this run {ceiling:.0f} GFLOP/s")
        rows.append((model, med(pt) / med(whole), med(ll) / med(whole_gguf), 100 * rate / ceiling,
                     med(whole) / med(stage)))
    print("\n| model | PyTorch / AttnScope (>= 2x) | llama.cpp / AttnScope (>= 1.5x) | "
          "forward stage / ceiling (>= 85%) | whole / forward stage (<= 1.15x) |")
    print("|---|---|---|---|---|")
    for model, pt, ll, share, over in rows:
        print(f"| {model} | {pt:.2f}x | {ll:.2f}x | {share:.0f}% | {over:.2f}x |")


if __name__ == "__main__":
    main()
