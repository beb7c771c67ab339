#!/usr/bin/env bash
# Builds the engine per x86-64 level (preset release) and one -march=native engine
# (preset native), the benchmark programs of each, and prints them side by side
# (tests/bench/bench_levels.py; extra arguments go to it, e.g. --lower-levels).
set -euo pipefail
cd "$(dirname "$0")/.."
"$(dirname "$0")/install-deps.sh"
if command -v ccache >/dev/null 2>&1; then export ATTNSCOPE_LAUNCHER=ccache; fi
for preset in native release; do
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" --target attn_bench model_bench train_bench attnscope-cli
done
/usr/bin/python3 tests/bench/bench_levels.py --native build/native --dispatched build/release "$@"
