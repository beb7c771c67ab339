#!/usr/bin/env bash
# The CUDA backend on a GPU: the CPU/CUDA agreement suite, the
# compute-sanitizer checks and the CPU-vs-CUDA table (tests/bench/gpu_bench.cpp).
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
  cp "$build_dir/tests/attn_core_tests" "$build_dir/tests/bench/gpu_bench" "$bundle/"
  strip "$bundle/attn_core_tests" "$bundle/gpu_bench"
  # Every shared library but the C runtime's own, which the GPU machine has.
  ldd "$bundle/attn_core_tests" "$bundle/gpu_bench" | awk '/=> \// {print $3}' | sort -u |
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
}

case "$mode" in
  bundle) if [[ -z "${ATTNSCOPE_GPU_BUILD:-}" ]]; then build; fi && make_bundle ;;
  run) run_checks "$bundle" ;;
  all) build && make_bundle && run_checks "$bundle" ;;
  *) echo "usage: $0 [bundle | run [DIR]]" >&2; exit 2 ;;
esac
