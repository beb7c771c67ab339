#!/usr/bin/python3
"""Model benchmarks of AttnScope's C++ forward pass against the plain-PyTorch
reference forward on the same random GPT-2-small-sized model, and the Llama-1B-sized
model's time and peak memory.

Usage (from the repository root; Debian's python3-torch with OpenBLAS):

    /usr/bin/python3 tests/bench/compare_models.py [--bench build/release/tests/bench/model_bench]
        [--models gpt2,llama1b] [--tokens 128] [--reps 3] [--workdir DIR] [--threads 2]

  1. checks which BLAS torch and numpy run on (libopenblas mapped into this process after a
     matmul, and the GEMM rate); the PyTorch baseline only counts with OpenBLAS;
  2. writes the models into a temporary folder (or --workdir DIR, kept and reused when its
     config matches): GPT-2 small (12 layers, 12 heads, d_model 768, vocab 50257, n_positions
     1024, F32, ~0.5 GB) and Llama 3.2 1B shapes (16 layers, 32 heads, 8 KV heads, d_model 2048,
     intermediate 8192, vocab 128256, BF16, tied embeddings, ~2.5 GB), with a tiny tokenizer
     (tests/scripts/hf_folder.py writes them; `hf_folder.py gpt2-small|llama-1b DIR` alone too);
  3. times the PyTorch reference forward (tests/scripts/gen_model_fixtures.py: gpt2_forward, every
     layer's attention maps and the lm_head logits of every position) on --tokens seeded random
     ids, --threads threads, the median of --reps runs after one warm-up;
  4. runs `BENCH --model DIR --tokens N` for each model (absent binary: only the PyTorch side is
     printed) and measures its peak RSS itself (VmHWM polled from /proc). The binary's timings are
     read from a JSON line on its stdout, {"open_s": ..., "forward_s": ..., "peak_rss_bytes": ...}
     (forward: the median; *_ms accepted; peak_rss_bytes optional, from its own /proc/self/status
     VmHWM, not getrusage, which inherits this process's high-water mark), or else from lines like
     "open: 0.21 s" / "forward: 412 ms";
  5. prints both times, the ratio, and the targets: GPT-2 small forward <= 0.5 s and >= 3x faster
     than PyTorch, open < 1 s; 1B forward <= 4 s and peak RSS < 2.5x the weight file size.
The machine is shared: run it a few times and compare ratios.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

THREADS_DEFAULT = 2
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):  # before torch / numpy load OpenBLAS
    os.environ.setdefault(var, str(THREADS_DEFAULT))

import numpy as np  # noqa: E402
import torch  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "scripts"))
import hf_folder  # noqa: E402
from gen_model_fixtures import gpt2_forward, load_weights  # noqa: E402


def blas_report():
    """Which BLAS torch and numpy call: the shared objects mapped after a matmul in each, and
    torch's single-GEMM rate (reference BLAS gives ~1-2 GFLOP/s, OpenBLAS tens)."""
    a = np.random.rand(256, 256)
    a @ a
    x = torch.randn(1024, 1024)
    x @ x
    t0 = time.perf_counter()
    for _ in range(3):
        x @ x
    gflops = 3 * 2 * 1024 ** 3 / (time.perf_counter() - t0) / 1e9
    libs = sorted({line.split()[-1] for line in open("/proc/self/maps")
                   if re.search(r"(blas|lapack|mkl)[^/]*\.so", line)})
    openblas = any("openblas" in lib for lib in libs)
    print("BLAS libraries mapped after matmuls in numpy and torch:")
    for lib in libs:
        print(f"  {lib}")
    print(f"torch {torch.__version__}: 1024^3 GEMM {gflops:.1f} GFLOP/s with {torch.get_num_threads()} threads; "
          f"OpenBLAS {'in use' if openblas else 'NOT found: the baseline runs on a slow BLAS'}")
    return openblas


def config_matches(folder, model_type, want):
    try:
        cfg = json.load(open(os.path.join(folder, "config.json")))
    except (OSError, ValueError):
        return False
    return cfg.get("model_type") == model_type and all(cfg.get(k) == v for k, v in want.items()) and \
        os.path.exists(os.path.join(folder, "model.safetensors"))


def ensure_gpt2(folder):
    """Writes (or reuses) the GPT-2 small folder; returns its weights as float32 tensors."""
    if config_matches(folder, "gpt2", {"n_layer": 12, "n_embd": 768, "vocab_size": 50257}):
        return load_weights(folder)
    keep = {}
    t0 = time.perf_counter()
    hf_folder.write_bench_gpt2(folder, keep=keep)
    print(f"wrote {folder} in {time.perf_counter() - t0:.1f} s")
    return keep


def ensure_llama(folder):
    want = {"num_hidden_layers": 16, "hidden_size": 2048, "vocab_size": 128256}
    if config_matches(folder, "llama", want):
        return
    t0 = time.perf_counter()
    hf_folder.write_bench_llama(folder)
    print(f"wrote {folder} in {time.perf_counter() - t0:.1f} s")


def torch_gpt2_seconds(weights, tokens, reps):
    cfg = dict(n_embd=768, n_head=12, n_layer=12, layer_norm_epsilon=1e-5)
    ids = torch.randint(0, 50257, (tokens,), generator=torch.Generator().manual_seed(0)).tolist()
    times, cpu = [], []
    with torch.no_grad():
        gpt2_forward(weights, cfg, ids)  # warm-up
        for _ in range(reps):
            t0, c0 = time.perf_counter(), time.process_time()
            attn, _, logits = gpt2_forward(weights, cfg, ids)
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
    assert attn.shape == (12, 12, tokens, tokens) and logits.shape == (tokens, 50257)
    return statistics.median(times), min(times), statistics.median(cpu)


def parse_bench(text):
    """open / forward seconds from the binary's output (JSON line first, then 'name: x s|ms' lines)."""
    found = {}
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if "peak_rss_bytes" in obj:
                found["peak_rss_bytes"] = float(obj["peak_rss_bytes"])
            for key in ("open", "forward"):
                if f"{key}_s" in obj:
                    found[key] = float(obj[f"{key}_s"])
                elif f"{key}_ms" in obj:
                    found[key] = float(obj[f"{key}_ms"]) / 1e3
    if found:
        return found
    for key in ("open", "forward"):
        for m in re.finditer(rf"\b{key}\w*[^\n0-9]*?([0-9]+(?:\.[0-9]+)?)\s*(ms|s)\b", text, re.IGNORECASE):
            found[key] = float(m.group(1)) / (1e3 if m.group(2).lower() == "ms" else 1.0)
    return found


def vm_hwm(pid):
    """Peak resident set (VmHWM) of a running process in bytes, or 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def run_bench(binary, folder, tokens, extra):
    """Runs the C++ benchmark; returns (parsed timings, peak RSS bytes, wall seconds, output).
    Peak RSS is VmHWM polled every 5 ms (a high-water mark: only a spike in the last few ms
    could be missed), or the binary's own "peak_rss_bytes" if larger. Not wait4's ru_maxrss:
    Linux carries the parent's high-water mark across fork + exec, and this process holds
    the PyTorch model."""
    cmd = [binary, "--model", folder, "--tokens", str(tokens)] + extra
    t0 = time.perf_counter()
    with tempfile.TemporaryFile("w+") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, text=True)
        peak = 0
        while proc.poll() is None:
            peak = max(peak, vm_hwm(proc.pid))
            time.sleep(0.005)
        log.seek(0)
        out = log.read()
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        print(f"  {' '.join(cmd)} failed (exit {proc.returncode}):\n{out}")
        return None, None, wall, out
    got = parse_bench(out)
    peak = max(peak, int(got.pop("peak_rss_bytes", 0)))
    return got, peak or None, wall, out


def fmt(x, unit="s"):
    return "—" if x is None else f"{x:.3f} {unit}"


def main():
    ap = argparse.ArgumentParser(description="AttnScope model benchmarks against PyTorch")
    ap.add_argument("--bench", default=os.path.join(REPO, "build", "release", "tests", "bench", "model_bench"))
    ap.add_argument("--models", default="gpt2,llama1b")
    ap.add_argument("--tokens", type=int, default=128)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", type=int, default=THREADS_DEFAULT)
    ap.add_argument("--workdir", help="write (or reuse) the model folders here and keep them")
    ap.add_argument("bench_args", nargs="*", help="extra arguments for the C++ benchmark (after --)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    have_bench = os.access(args.bench, os.X_OK)

    openblas = blas_report()
    if not have_bench:
        print(f"{args.bench}: not built; printing the PyTorch side only")
    work = args.workdir or tempfile.mkdtemp(prefix="attnscope-models-")
    rows = []
    try:
        if "gpt2" in models:
            folder = os.path.join(work, "gpt2-small")
            weights = ensure_gpt2(folder)
            med, best, cpu = torch_gpt2_seconds(weights, args.tokens, max(3, args.reps))
            del weights
            size = os.path.getsize(os.path.join(folder, "model.safetensors"))
            print(f"PyTorch reference forward, GPT-2 small, {args.tokens} tokens, {torch.get_num_threads()} threads: "
                  f"median {med:.3f} s (best {best:.3f} s, CPU {cpu:.3f} s)"
                  + ("" if openblas else "  [not OpenBLAS: not a valid baseline]"))
            ours, rss = None, None
            if have_bench:
                got, rss, wall, out = run_bench(args.bench, folder, args.tokens, args.bench_args)
                print(out.rstrip())
                ours = got or {}
            fwd = ours.get("forward") if ours else None
            rows.append(("GPT-2 small forward", fwd, "<= 0.5 s", fwd is not None and fwd <= 0.5))
            ratio = med / fwd if fwd else None
            rows.append(("  PyTorch / AttnScope", ratio, ">= 3x", ratio is not None and ratio >= 3.0))
            op = ours.get("open") if ours else None
            rows.append(("GPT-2 small open", op, "< 1 s", op is not None and op < 1.0))
            if rss:
                rows.append(("GPT-2 small peak RSS / file", rss / size, "(info)", True))
            print(f"GPT-2 small: PyTorch {med:.3f} s, AttnScope {fmt(fwd)}, ratio {fmt(ratio, 'x')}, "
                  f"peak RSS {fmt(rss / 1e6 if rss else None, 'MB')} for a {size / 1e6:.0f} MB file")
        if "llama1b" in models:
            folder = os.path.join(work, "llama-1b")
            if have_bench:
                ensure_llama(folder)
                size = os.path.getsize(os.path.join(folder, "model.safetensors"))
                got, rss, wall, out = run_bench(args.bench, folder, args.tokens, args.bench_args)
                print(out.rstrip())
                fwd = (got or {}).get("forward")
                rows.append(("Llama 1B forward", fwd, "<= 4 s", fwd is not None and fwd <= 4.0))
                ratio = rss / size if rss else None
                rows.append(("Llama 1B peak RSS / file size", ratio, "< 2.5x", ratio is not None and ratio < 2.5))
                print(f"Llama 1B: AttnScope {fmt(fwd)}, peak RSS {fmt(rss / 1e6 if rss else None, 'MB')} "
                      f"for a {size / 1e6:.0f} MB file")
            else:
                print("Llama 1B: no C++ benchmark to run (the PyTorch side is not timed for it)")
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)

    if rows:
        print(f"\n{'measure':32s} {'value':>10s} {'target':>10s}  verdict")
        for name, value, target, ok in rows:
            v = "—" if value is None else f"{value:.3f}"
            verdict = "n/a" if value is None else ("ok" if ok else "MISSED")
            print(f"{name:32s} {v:>10s} {target:>10s}  {verdict}")


if __name__ == "__main__":
    main()
