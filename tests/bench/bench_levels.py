#!/usr/bin/python3
"""The engine built once per x86-64 level (glibc-hwcaps) against one -march=native
engine, benchmark by benchmark, in one run: scripts/bench-levels.sh
builds the two trees and calls this.

Every configuration runs the same Google Benchmark filter, in rounds with the
order rotated, and the table prints milliseconds per iteration (the minimum
over rounds) and the ratio dispatched / native. On a shared machine wall time
is not comparable (a two-thread OpenMP region waits for a descheduled thread),
so by default the programs run one thread (OMP_NUM_THREADS=1) and the figure
is CPU time; --wall --threads 2 measures wall time on a quiet machine.
Benchmarks whose timed code is compiled into the benchmark program itself
(BM_EigenGemmSameShapes, BM_MlpGemm/0: the ceiling references) are left out:
they measure the program's flags, not the engine's.
"""
import argparse
import json
import math
import os
import subprocess
import sys

BENCHES = [
    ("attn_bench", "BM_(WeightsEntropyAllHeads|MetricsOnlyAllHeads/(512|2048|4096)|HeadOnScreen|EngineRun|EngineRunAuto|MetricsDockAnalysis)/"),
    ("model_bench", "BM_(Gpt2ShapedForward|MlpGemm/1|LlamaLinear/in:2048/out:2048/bf16:[01])"),
    ("train_bench", "BM_TrainStep"),
]


def level_of(build, env):
    out = subprocess.run([os.path.join(build, "bin", "attnscope-cli"), "info", "--system"], env=env,
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("Kernel level:"):
            return line.split(":", 1)[1].strip()
    return "?"


def run_bench(build, exe, flt, env, min_time, field="cpu_time"):
    path = os.path.join(build, "tests", "bench", exe)
    r = subprocess.run([path, f"--benchmark_filter={flt}", "--benchmark_format=json",
                        f"--benchmark_min_time={min_time}"], env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{path} failed:\n{r.stderr}")
    data = json.loads(r.stdout)
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
    return {b["name"]: b[field] * scale[b["time_unit"]] for b in data["benchmarks"]
            if b.get("run_type", "iteration") == "iteration"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--native", required=True, help="build tree of preset native")
    ap.add_argument("--dispatched", required=True, help="build tree of preset release (engine per level)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--min-time", default="0.3")
    ap.add_argument("--lower-levels", action="store_true", help="also run the dispatched build forced to avx2 and baseline")
    ap.add_argument("--threads", type=int, default=1, help="OMP_NUM_THREADS for the programs")
    ap.add_argument("--wall", action="store_true", help="report wall time (quiet machine) instead of CPU time")
    args = ap.parse_args()

    base_env = {k: v for k, v in os.environ.items() if k not in ("ATTNSCOPE_CPU",)}
    base_env["OMP_NUM_THREADS"] = str(args.threads)
    field = "real_time" if args.wall else "cpu_time"
    configs = [("native", args.native, {}), ("dispatched", args.dispatched, {})]
    if args.lower_levels:
        configs += [("forced avx2", args.dispatched, {"ATTNSCOPE_CPU": "avx2"}),
                    ("forced baseline", args.dispatched, {"ATTNSCOPE_CPU": "baseline"})]
    envs = {name: dict(base_env, **extra) for name, _, extra in configs}
    print(f"load average at start: {os.getloadavg()[0]:.2f}; {args.threads} thread(s); "
          f"{'wall' if args.wall else 'CPU'} time per iteration, minimum of {args.rounds} rounds")
    for name, build, _ in configs:
        print(f"  {name:16} {build}: kernel level {level_of(build, envs[name])}")

    best = {name: {} for name, _, _ in configs}
    for rnd in range(args.rounds):
        order = configs[rnd % len(configs):] + configs[:rnd % len(configs)]
        for name, build, _ in order:
            for exe, flt in BENCHES:
                for bench, ms in run_bench(build, exe, flt, envs[name], args.min_time, field).items():
                    best[name][bench] = min(ms, best[name].get(bench, math.inf))
        print(f"round {rnd + 1}/{args.rounds} done (load average {os.getloadavg()[0]:.2f})", flush=True)

    names = [n for n, _, _ in configs]
    header = "| benchmark | " + " | ".join(f"{n} (ms)" for n in names) + " | dispatched ÷ native |"
    bench_names = list(best["native"])
    print()
    print(header)
    print("|" + "---|" * (len(names) + 2))
    ratios = []
    for bench in bench_names:
        if bench not in best["dispatched"]:
            continue
        ratio = best["dispatched"][bench] / best["native"][bench]
        ratios.append(ratio)
        cells = " | ".join(f"{best[n].get(bench, math.nan):.2f}" for n in names)
        print(f"| {bench} | {cells} | {ratio:.3f} |")
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(f"\ngeometric mean dispatched ÷ native: {geo:.3f} over {len(ratios)} benchmarks; "
          f"worst {max(ratios):.3f}; target ≤ 1.05 per benchmark")


if __name__ == "__main__":
    main()
