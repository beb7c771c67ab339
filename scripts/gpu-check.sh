#!/usr/bin/env bash
# The CUDA backend on a GPU: the CPU/CUDA agreement suite, the
# compute-sanitizer checks, the CPU-vs-CUDA table (tests/bench/gpu_bench.cpp),
# the model agreement suite (every model fixture through `run --model` on the CPU
# and on CUDA in f32 arithmetic: maps within 1e-3 for BF16/F16 weights / 1e-5 for
# F32, tokens and top-5 identical; BF16/F16 fixtures once more with --gpu-inputs
# bf16, the tensor cores' BF16 activations: maps within 3e-2, entropies within 0.1
# nats, tokens and the top next token identical; docs/cuda.md says why) and the
# model benchmark lines; each part that cannot run says why (no device, no numpy,
# or the CLI's own fallback line) instead of passing.
#
#   scripts/gpu-check.sh               build (preset gpu) and run, on a machine with
#                                      this project's build dependencies and a GPU
#   scripts/gpu-check.sh bundle        build here and copy the two programs with the
#                                      shared libraries they need to build/gpu-bundle
#   scripts/gpu-check.sh run [DIR]     run from a bundle (default build/gpu-bundle):
#                                      for a GPU machine that has the NVIDIA driver
#                                      (and compute-sanitizer) but not our libraries.
# The lent GPU machines (tool `device`) are such machines: bundle here, then
#   run: bash scripts/gpu-check.sh run   with carry ["build/gpu-bundle"]
# Takes about 3 minutes there: the suite ~10 s, sanitizers ~1 min, table ~1 min.
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-all}"
bundle="${2:-build/gpu-bundle}"
build_dir="${ATTNSCOPE_GPU_BUILD:-build/gpu}"  # another build with both programs, e.g. a release tree

build() {
  if command -v ccache >/dev/null 2>&1; then export ATTNSCOPE_LAUNCHER=ccache; fi
  cmake --preset gpu >/dev/null
  cmake --build --preset gpu
}

make_bundle() {
  rm -rf "$bundle" && mkdir -p "$bundle/lib"
  cp "$build_dir/tests/attn_core_tests" "$build_dir/tests/bench/gpu_bench" "$build_dir/bin/attnscope-cli" "$bundle/"
  strip "$bundle/attn_core_tests" "$bundle/gpu_bench" "$bundle/attnscope-cli"
  # Every shared library but the C runtime's own, which the GPU machine has.
  ldd "$bundle/attn_core_tests" "$bundle/gpu_bench" "$bundle/attnscope-cli" | awk '/=> \// {print $3}' | sort -u |
    grep -vE '/(libc|libm|libdl|librt|libpthread|ld-linux[^/]*|libstdc\+\+|libgcc_s)\.so' |
    while read -r lib; do cp -L "$lib" "$bundle/lib/"; done
  du -sh "$bundle"
}

run_checks() {
  local dir="$1"
  export LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  echo "== CPU/CUDA agreement suite"
  "$dir/attn_core_tests" --gtest_filter='*CudaAgreement*:*CudaBackend*:*Gpu*' --gtest_brief=1
  if command -v compute-sanitizer >/dev/null 2>&1; then
    for tool in memcheck racecheck synccheck initcheck; do
      echo "== compute-sanitizer --tool $tool"
      compute-sanitizer --tool "$tool" --error-exitcode 9 --print-limit 20 "$dir/attn_core_tests" \
        --gtest_filter='*CudaAgreement*scaled_dot_causal_window_9_*:*CudaAgreement*general_random*' --gtest_brief=1
    done
  else
    echo "compute-sanitizer not found: skipped"
  fi
  echo "== CPU vs CUDA"
  "$dir/gpu_bench" --sizes 512,4096,16384,65536 --cpu-max 16384 --runs 3
  model_checks "$dir"
}

# `run --model` on the CPU and on CUDA; prints why when the CUDA run fell back.
model_agreement() {
  local cli="$1" fixture="$2" work="$3" name
  name="$(basename "$fixture")"
  local text="the cat sat on the mat and the dog ran far away"
  if ! "$cli" run --model "$fixture" --text "$text" --backend cpu --out "$work/$name.cpu.npz" --force \
      >/dev/null 2>"$work/$name.cpu.err"; then
    # Translation and vision folders take --target-text or --image: their own suites.
    if grep -qE "encoder-decoder model|vision model" "$work/$name.cpu.err"; then
      echo "$name: skipped: $(tail -1 "$work/$name.cpu.err")"
      return 0
    fi
    echo "$name: CPU run failed: $(tail -1 "$work/$name.cpu.err")"
    return 1
  fi
  "$cli" run --model "$fixture" --text "$text" --backend cuda --out "$work/$name.cuda.npz" --force \
    >/dev/null 2>"$work/$name.cuda.err" || { echo "$name: CUDA run failed: $(tail -1 "$work/$name.cuda.err")"; return 1; }
  if grep -q "runs on the CPU" "$work/$name.cuda.err"; then
    echo "$name: skipped: $(grep -m1 "runs on the CPU" "$work/$name.cuda.err")"
    return 0
  fi
  local status=0
  if grep -q '"torch_dtype": *"\(bfloat16\|float16\)"' "$fixture/config.json"; then
    compare_runs "$name (f32 arithmetic)" "$work/$name.cpu.npz" "$work/$name.cuda.npz" 1e-3 1e-2 5 || status=1
    "$cli" run --model "$fixture" --text "$text" --backend cuda --gpu-inputs bf16 --out "$work/$name.bf16.npz" \
      --force >/dev/null 2>"$work/$name.bf16.err" || { echo "$name: BF16 run failed: $(tail -1 "$work/$name.bf16.err")"; return 1; }
    compare_runs "$name (BF16 activations)" "$work/$name.cpu.npz" "$work/$name.bf16.npz" 3e-2 1e-1 1 || status=1
  else
    compare_runs "$name" "$work/$name.cpu.npz" "$work/$name.cuda.npz" 1e-5 1e-4 5 || status=1
  fi
  return "$status"
}

# Two `run --model` archives: maps and entropies within the tolerances, the tokens identical
# and the first `ranks` of the top-5 next tokens identical at every position.
compare_runs() {
  "$py" - "$@" <<'PY'
import sys
import numpy as np
name, a, b = sys.argv[1], np.load(sys.argv[2]), np.load(sys.argv[3])
map_tol, ent_tol, ranks = float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
maps = float(np.max(np.abs(a["weights"] - b["weights"])))
ent = float(np.max(np.abs(a["entropy"] - b["entropy"])))
same = np.array_equal(a["tokens"], b["tokens"])
if "next_tokens" in a.files:
    same = same and np.array_equal(a["next_tokens"][:, :ranks], b["next_tokens"][:, :ranks])
what = "top-5" if ranks == 5 else f"top-{ranks}"
print(f"{name}: maps within {maps:.2e} (tolerance {map_tol:g}), entropies within {ent:.2e} "
      f"(tolerance {ent_tol:g}); tokens and {what} {'identical' if same else 'DIFFER'}")
sys.exit(0 if maps <= map_tol and ent <= ent_tol and same else 1)
PY
}

model_checks() {
  local dir="$1" cli="$1/attnscope-cli" work status=0 py
  echo "== model agreement (run --model, CPU vs CUDA)"
  if [[ ! -x "$cli" ]]; then echo "skipped: no attnscope-cli in $dir"; return 0; fi
  py="$(command -v /usr/bin/python3 || command -v python3 || true)"  # Debian's has numpy
  if [[ -z "$py" ]] || ! "$py" -c 'import numpy' 2>/dev/null; then
    echo "skipped: python3 with numpy not found"
    return 0
  fi
  work="$(mktemp -d)"
  for fixture in tests/fixtures/models/*/; do
    [[ -f "$fixture/config.json" ]] || continue
    model_agreement "$cli" "${fixture%/}" "$work" || status=1
  done
  echo "== model benchmarks (targets on an H100/H200; ratios against the same run's GEMMs)"
  if grep -q "runs on the CPU" "$work/gpt2.cuda.err" 2>/dev/null; then
    echo "not measured: $(grep -m1 "runs on the CPU" "$work/gpt2.cuda.err")"
    echo "  Llama-1B shape, 8192 tokens, BF16: forward + every head's measures <= 1.5x its GEMMs, GEMMs >= 50% of BF16 peak"
    echo "  8B shape (32 layers, d 4096, 32 heads, 8 KV heads), 32768 tokens: completes within device memory"
    echo "  GPT-2 small, 1024 tokens, all maps: < 20 ms"
  else
    echo "the model forward ran on the device: time the shapes with tests/bench/compare_models.py's folders and"
    echo "  $cli metrics --model DIR --backend cuda --max-tokens N  (not automated yet)"
  fi
  rm -rf "$work"
  return "$status"
}

case "$mode" in
  bundle) if [[ -z "${ATTNSCOPE_GPU_BUILD:-}" ]]; then build; fi && make_bundle ;;
  run) run_checks "$bundle" ;;
  all) build && make_bundle && run_checks "$bundle" ;;
  *) echo "usage: $0 [bundle | run [DIR]]" >&2; exit 2 ;;
esac
