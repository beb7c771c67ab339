#!/usr/bin/python3
"""AttnScope's whole `attnscope-cli run --model DIR --image FILE --out X.npz` process on a
ViT-B/16-shaped model against the plain-PyTorch reference forward of the same model, in one run.

Usage (from the repository root; not run by CI):

    /usr/bin/python3 scripts/bench/vit_vs_torch.py [--cli build/lean/bin/attnscope-cli]
        [--dtypes F32,BF16] [--reps 5] [--threads 2] [--cache build/bench] [--image-size 640x480]
        [--page-cache read|written]

  1. writes once into --cache (kept and reused; not in git) random ViTForImageClassification
     folders with google/vit-base-patch16-224's shapes (12 layers x 12 heads, d 768, MLP 3072,
     patch 16, image 224: 197 tokens, 1000 labels) and preprocessor_config.json (bilinear resize
     to 224 x 224, rescale, normalise by 0.5 / 0.5), one per --dtypes entry (model.safetensors in
     F32, and BF16 with the weights rounded), and a --image-size test picture (binary PPM);
  2. per dtype: with --page-cache read (the default), the model file's cached pages are dropped
     (posix_fadvise DONTNEED) and one untimed CLI run reads it back from disk, so the timed runs
     find it in the page cache as any model read from disk leaves it (in 2 MB folios on a kernel
     with large folios, which the CLI maps 2 MB at a time); --page-cache written keeps the cache
     as writing the file left it (4 KB pages: the first touch of the mapping then faults 84 K
     times for the F32 model, ~0.1 s on two idle cores here);
     per rep: the whole CLI process under /usr/bin/time -v (wall, user + sys CPU,
     peak RSS), with --profile for its own stage times (open, image read + preprocessing, forward,
     .npz written); the last rep's maps and pixels are checked against the reference;
  3. the reference in this process: tests/scripts/gen_vision_fixtures.py's port of the Hugging
     Face code (eager attention returning every map), torch.set_num_threads(--threads) and
     OPENBLAS_NUM_THREADS = --threads; the forward alone, best and median of --reps after one
     warm-up (its numpy port of Pillow's resize is a slow Python loop, timed apart);
  4. prints the table and the ratios: PyTorch forward / AttnScope whole process (target >= 3,
     and the process <= 0.5 s) and PyTorch forward / AttnScope forward; with the CPU, the
     engine copy, which BLAS torch and numpy loaded, an sgemm ceiling of that BLAS measured in
     the same run and the load average before and after.
The machine is shared: run it when `uptime` shows a low load and say the load.
"""
import argparse
import contextlib
import io
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


def threads_from_argv(default=2):
    """--threads before numpy / torch load: Debian's torch multiplies in OpenBLAS, whose pool
    takes one thread per core whatever torch.set_num_threads says."""
    for i, a in enumerate(sys.argv):
        if a == "--threads" and i + 1 < len(sys.argv):
            return sys.argv[i + 1]
        if a.startswith("--threads="):
            return a.split("=", 1)[1]
    return str(default)


os.environ["OPENBLAS_NUM_THREADS"] = threads_from_argv()
os.environ["OMP_NUM_THREADS"] = threads_from_argv()

import numpy as np  # noqa: E402
import torch  # noqa: E402

import gen_vision_fixtures as V  # noqa: E402
import hf_folder  # noqa: E402

CFG = dict(V.BASE_CFG, hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072,
           image_size=224, patch_size=16)
PRE = dict(V.VIT_PRE, size={"height": 224, "width": 224})
LABELS = 1000


def build_model(seed=38):
    """The reference's random ViT body (gen_vision_fixtures.build) and a 1000-label classifier."""
    w, _ = V.build(CFG, seed, 0, False)
    g = torch.Generator().manual_seed(seed + 1)
    head = {"classifier.weight": torch.randn(LABELS, CFG["hidden_size"], generator=g) * 0.05,
            "classifier.bias": torch.randn(LABELS, generator=g) * 0.1}
    return w, head


def rounded(tensors, dtype):
    return {k: hf_folder.round_to_dtype(v, dtype) for k, v in tensors.items()}


def write_folder(folder, w, head, dtype):
    if os.path.exists(os.path.join(folder, "config.json")):
        return
    os.makedirs(folder, exist_ok=True)
    tensors = {"vit." + k: (v, dtype) for k, v in w.items()}
    tensors.update({k: (v, dtype) for k, v in head.items()})
    hf_folder.write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    names = [f"class {i}" for i in range(LABELS)]
    config = dict(CFG, architectures=["ViTForImageClassification"], model_type="vit",
                  id2label={str(i): n for i, n in enumerate(names)}, label2id={n: i for i, n in enumerate(names)})
    hf_folder.write_json(os.path.join(folder, "preprocessor_config.json"), PRE)
    hf_folder.write_json(os.path.join(folder, "config.json"), config)  # last: marks the folder complete


def make_image(width, height):
    """A photo-sized picture: gradients, a hard-edged disc, stripes and seeded noise."""
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    img = np.zeros((height, width, 3))
    img[..., 0] = 40 + 180 * x / (width - 1)
    img[..., 1] = 30 + 150 * y / (height - 1)
    img[..., 2] = 90 + 60 * np.sin(x / 40.0) * np.cos(y / 55.0)
    img[(x - 0.6 * width) ** 2 + (y - 0.4 * height) ** 2 < (0.2 * height) ** 2] = [250, 240, 20]
    img[(x < 0.25 * width) & (y > 0.6 * height) & ((x.astype(int) // 12) % 2 == 0)] = [0, 0, 0]
    img += np.random.default_rng(38).normal(0, 6, img.shape)
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


def timed(cmd):
    """(wall s, peak RSS bytes, user + sys CPU s, stdout, stderr) of cmd under /usr/bin/time -v."""
    t0 = time.perf_counter()
    r = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stderr[-2000:]}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr).group(1)) * 1024
    cpu = sum(float(re.search(rf"{k} time \(seconds\): ([\d.]+)", r.stderr).group(1)) for k in ("User", "System"))
    return wall, rss, cpu, r.stdout, r.stderr


def stage_times(stderr):
    """--profile's `stage: S s` lines."""
    return {m.group(1): float(m.group(2)) for m in re.finditer(r"^profile (.+?): ([\d.]+) s", stderr, re.M)}


def blas_lines():
    """torch's BLAS_INFO build setting, numpy's BLAS libraries, and the BLAS shared objects this
    process has mapped (Debian's generic libblas.so.3 resolves to OpenBLAS when installed)."""
    torch_blas = re.findall(r"BLAS_INFO=\w+", torch.__config__.show())
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        np.show_config()
    numpy_blas = "OpenBLAS" if "openblas" in buf.getvalue().lower() else "no OpenBLAS in np.show_config()"
    maps = open("/proc/self/maps").read()
    loaded = sorted({os.path.basename(p) for p in re.findall(r"\S*(?:openblas|libblas|mkl)\S*", maps)})
    return torch_blas + [f"numpy: {numpy_blas}"], loaded


def flops():
    """Multiply-adds x 2 of one forward: patch embedding, per layer q/k/v/o, scores, weights x v,
    the MLP; the classifier."""
    d, f, L = CFG["hidden_size"], CFG["intermediate_size"], CFG["num_hidden_layers"]
    p = (CFG["image_size"] // CFG["patch_size"]) ** 2
    n = p + 1
    per_layer = 4 * n * d * d + 2 * n * n * d + 2 * n * d * f
    return 2 * (p * 3 * CFG["patch_size"] ** 2 * d + L * per_layer + d * LABELS)


def sgemm_rate(m, k, n, reps=5):
    a, b = torch.randn(m, k), torch.randn(k, n)
    torch.mm(a, b)
    best = min(timeit(lambda: torch.mm(a, b)) for _ in range(reps))
    return 2.0 * m * k * n / best / 1e9


def timeit(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def reference(w, head, pixels, reps):
    """(forward wall seconds per rep, CPU seconds of the process per rep, maps [L, H, N, N]) of the
    plain-PyTorch port."""
    times, cpus = [], []
    with torch.no_grad():
        attn = V.forward(w, head, CFG, pixels, 0, False)[0].numpy()
        for _ in range(reps):
            c0 = time.process_time()
            times.append(timeit(lambda: V.forward(w, head, CFG, pixels, 0, False)))
            cpus.append(time.process_time() - c0)
    return times, cpus, attn


def drop_from_page_cache(path):
    """Evicts path's clean cached pages (only this file's; the next read comes from disk)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def run_cli(a, folder, image, reps):
    walls, cpus, rsss, stages = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.npz")
        env_cmd = ["env", f"OMP_NUM_THREADS={a.threads}"]
        if a.page_cache == "read":
            drop_from_page_cache(os.path.join(folder, "model.safetensors"))
            timed(env_cmd + [a.cli, "run", "--model", folder, "--image", image, "--out", out])
            os.remove(out)
        for _ in range(reps):
            if os.path.exists(out):
                os.remove(out)
            wall, rss, cpu, _, err = timed(env_cmd + [a.cli, "run", "--model", folder, "--image", image, "--out", out,
                                                      "--profile"])
            walls.append(wall)
            cpus.append(cpu)
            rsss.append(rss)
            stages.append(stage_times(err))
        with np.load(out) as z:
            got = {k: z[k] for k in ("weights", "pixel_values")}
    return walls, cpus, rsss, stages, got


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=os.path.join(REPO, "build", "lean", "bin", "attnscope-cli"))
    ap.add_argument("--dtypes", default="F32,BF16")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cache", default=os.path.join(REPO, "build", "bench"))
    ap.add_argument("--image-size", default="640x480", help="WIDTHxHEIGHT of the test picture")
    ap.add_argument("--page-cache", choices=("read", "written"), default="read",
                    help="the model file's page cache for the timed runs: read back from disk by one untimed "
                         "run (default), or as writing it left it")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.set_grad_enabled(False)
    cache = os.path.join(a.cache, "vit")
    os.makedirs(cache, exist_ok=True)
    width, height = (int(v) for v in a.image_size.split("x"))
    image = os.path.join(cache, f"picture-{width}x{height}.ppm")
    img = make_image(width, height)
    if not os.path.exists(image):
        V.write_ppm(image, img)

    model_name = re.search(r"model name\s*:\s*(.*)", open("/proc/cpuinfo").read())
    avx = sorted(set(re.findall(r"\bavx512\w*", open("/proc/cpuinfo").read())))
    print(f"CPU: {model_name.group(1) if model_name else '?'}, {os.cpu_count()} cores, {' '.join(avx) or 'no AVX-512'}")
    info = subprocess.run([a.cli, "info", "--system"], capture_output=True, text=True).stdout
    level = re.search(r"Kernel level:\s*(.*)", info)
    print(f"AttnScope engine copy: {level.group(1) if level else '?'}; {a.threads} threads; model page cache: "
          f"{'read back from disk' if a.page_cache == 'read' else 'as written'}")
    torch_blas, loaded = blas_lines()
    print(f"torch {torch.__version__}: {'; '.join(torch_blas)}; loaded in this process: {', '.join(loaded) or 'none'}")
    gemm = sgemm_rate(2048, 2048, 2048)
    mlp_gemm = sgemm_rate(197, 768, 3072, reps=20)
    print(f"torch.mm ceiling at {a.threads} threads: {gemm:.0f} GFLOP/s at 2048^3, {mlp_gemm:.0f} GFLOP/s at "
          f"197 x 768 x 3072 (the MLP's up-projection)")
    fl = flops()

    w, head = build_model()
    t0 = time.perf_counter()
    pixels = V.preprocess(img, PRE)
    prep = time.perf_counter() - t0
    print(f"model: ViT-B/16 shape, 197 tokens, {fl / 1e9:.1f} GFLOP per forward; picture {width} x {height}; "
          f"reference preprocessing (numpy port of Pillow's resize, Python loops) {prep:.2f} s")

    rows = []
    for dtype in a.dtypes.split(","):
        wd, hd = (w, head) if dtype == "F32" else (rounded(w, dtype), rounded(head, dtype))
        folder = os.path.join(cache, f"vit-base-16-{dtype.lower()}")
        write_folder(folder, wd, hd, dtype)
        load0 = open("/proc/loadavg").read().split()[0]
        walls, cpus, rsss, stages, got = run_cli(a, folder, image, a.reps)
        pt, pt_cpu, attn = reference(wd, hd, pixels, a.reps)
        load1 = open("/proc/loadavg").read().split()[0]
        diff = float(np.abs(got["weights"].astype(np.float64) - attn).max())
        pdiff = float(np.abs(got["pixel_values"] - pixels).max())
        size = os.path.getsize(os.path.join(folder, "model.safetensors"))
        med = statistics.median
        fwd = [s.get("forward", math.nan) for s in stages]
        print(f"\n{dtype} ({size / 1e6:.0f} MB), load average {load0} -> {load1}; AttnScope's maps "
              f"{list(got['weights'].shape)} within {diff:.1e} of the reference's, pixels within {pdiff:.1e}")
        print(f"  AttnScope whole process: median {med(walls):.3f} s, best {min(walls):.3f} s "
              f"(runs {', '.join(f'{t:.3f}' for t in walls)}), CPU {med(cpus):.3f} s, peak RSS {max(rsss) / 1e6:.0f} MB")
        for k in stages[0]:
            vals = [s[k] for s in stages if k in s]
            print(f"    {k}: median {med(vals):.3f} s (best {min(vals):.3f})")
        print(f"  PyTorch reference forward: median {med(pt):.3f} s, best {min(pt):.3f} s "
              f"({fl / min(pt) / 1e9:.0f} GFLOP/s), CPU {med(pt_cpu):.3f} s; AttnScope forward best "
              f"{min(fwd):.3f} s ({fl / min(fwd) / 1e9:.0f} GFLOP/s)")
        print(f"  CPU seconds, PyTorch forward / AttnScope whole process: {med(pt_cpu) / med(cpus):.2f}x "
              f"(what a loaded machine still measures; both include idle threads' spinning)")
        rows.append((dtype, med(walls), min(walls), med(fwd), med(pt), max(rsss)))
    print("\n| weights | AttnScope whole process (median / best) | AttnScope forward | PyTorch forward "
          "| PyTorch fwd / AttnScope process (target >= 3) | PyTorch fwd / AttnScope fwd | peak RSS |")
    print("|---|---|---|---|---|---|---|")
    for dtype, wall, best, fwd, pt, rss in rows:
        print(f"| {dtype} | {wall:.3f} / {best:.3f} s (target <= 0.5) | {fwd:.3f} s | {pt:.3f} s | {pt / wall:.2f}x "
              f"| {pt / fwd:.2f}x | {rss / 1e6:.0f} MB |")


if __name__ == "__main__":
    main()
