#!/usr/bin/env bash
# Builds the libFuzzer targets (preset "fuzz", clang + ASan + UBSan) and runs one.
# Usage: scripts/fuzz.sh TARGET [SECONDS] [extra libFuzzer flags...]
#   TARGET: a tests/fuzz/<TARGET>_fuzz.cpp (npy, npz, mask, cli_options, ...)
# New interesting inputs go to build/fuzz/corpus/TARGET (not committed); the
# committed seeds in tests/fuzz/corpus/TARGET are read only. A crash is written
# to build/fuzz/artifacts/; copy it into tests/fuzz/corpus/TARGET/ as
# crash-<what> once fixed, so the ctest replay (label fuzz) keeps it fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:?usage: scripts/fuzz.sh TARGET [SECONDS] [flags...]}"
seconds="${2:-600}"
shift $(( $# >= 2 ? 2 : 1 ))
if command -v ccache >/dev/null 2>&1; then export ATTNSCOPE_LAUNCHER=ccache; fi
cmake --preset fuzz >/dev/null
cmake --build build/fuzz --target "fuzz_${target}" -j2
mkdir -p "build/fuzz/corpus/${target}" build/fuzz/artifacts
dict=()
if [[ -f "tests/fuzz/dict/${target}.dict" ]]; then dict=(-dict="tests/fuzz/dict/${target}.dict"); fi
exec "build/fuzz/tests/fuzz/fuzz_${target}" -max_total_time="${seconds}" \
  -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 -print_final_stats=1 \
  -artifact_prefix=build/fuzz/artifacts/"${target}"- "${dict[@]}" "$@" \
  "build/fuzz/corpus/${target}" "tests/fuzz/corpus/${target}"
