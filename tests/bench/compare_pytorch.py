#!/usr/bin/python3
"""Runs attn_bench and Debian's PyTorch nn.MultiheadAttention on the same
shapes (12 heads x 64, d_model 768, N = 512 and 4096, fp32) in the same run and
prints the issue-8 targets with the measured figures and ratios.

Usage: /usr/bin/python3 tests/bench/compare_pytorch.py [path/to/attn_bench]
(default build/release/tests/bench/attn_bench). The machine is shared: run it
a few times and keep the best figures; compare ratios, not absolute times.
"""
import json
import os
import subprocess
import sys
import time

import torch

HEADS, DIM = 12, 64
D_MODEL = HEADS * DIM


def run_bench(path):
    out = subprocess.run([path, "--benchmark_format=json", "--benchmark_min_time=0.3"],
                         check=True, capture_output=True, text=True).stdout
    res = {}
    for b in json.loads(out)["benchmarks"]:
        res[b["name"].split("/real_time")[0]] = b
    return res


def torch_mha_ms(n, reps):
    """Best time of nn.MultiheadAttention with per-head weights, as installed."""
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(D_MODEL, HEADS, batch_first=True).eval()
    x = torch.randn(1, n, D_MODEL)
    best = float("inf")
    with torch.no_grad():
        for _ in range(reps):
            t0 = time.perf_counter()
            mha(x, x, x, need_weights=True, average_attn_weights=False)
            best = min(best, time.perf_counter() - t0)
    return best * 1e3


def main():
    default = os.path.join(os.path.dirname(__file__), "../../build/release/tests/bench/attn_bench")
    path = sys.argv[1] if len(sys.argv) > 1 else default
    b = run_bench(path)
    ms = lambda name: b[name]["real_time"]  # noqa: E731 (units are ms)
    torch512 = torch_mha_ms(512, 10)
    torch4096 = torch_mha_ms(4096, 3)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    rows = [
        ("weights+entropy, all heads, N=512", ms("BM_WeightsEntropyAllHeads/512"), "<= 4 ms", torch512),
        ("metrics only, all heads, N=512", ms("BM_MetricsOnlyAllHeads/512"), "", torch512),
        ("metrics only, all heads, N=4096", ms("BM_MetricsOnlyAllHeads/4096"), "<= 250 ms", torch4096),
        ("head on screen (weights), N=4096", ms("BM_HeadOnScreen/4096"), "<= 40 ms", None),
        ("engine run (projections+all), N=512", ms("BM_EngineRun/512"), "", torch512),
        ("engine run (metrics+1 head), N=4096", ms("BM_EngineRun/4096"), "", torch4096),
    ]
    print(f"{'measure':40s} {'AttnScope ms':>12s} {'target':>10s} {'PyTorch ms':>11s} {'speed-up':>9s}")
    for name, ours, target, ref in rows:
        ratio = f"{ref / ours:8.1f}x" if ref else ""
        reft = f"{ref:11.1f}" if ref else ""
        print(f"{name:40s} {ours:12.2f} {target:>10s} {reft:>11s} {ratio:>9s}")
    extra = b["BM_MetricsOnlyAllHeads/4096"].get("extra_MB", float("nan"))
    print(f"metrics-only extra memory at N=4096: {extra:.1f} MB (target < 10 MB)")
    for n in (512, 4096):
        ours = b[f"BM_MetricsOnlyAllHeads/{n}"]["GFLOP/s"]
        eig = b[f"BM_EigenGemmSameShapes/{n}"]["GFLOP/s"]
        print(f"N={n}: attention {ours:.0f} GFLOP/s vs Eigen GEMM same shapes {eig:.0f} GFLOP/s "
              f"= {100 * ours / eig:.0f}% (target >= 80%)")


if __name__ == "__main__":
    main()
