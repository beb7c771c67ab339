#!/usr/bin/env bash
# Checks the formatting of changed lines (scripts/check-format.sh), builds
# everything and runs the whole test suite (all labels but bench), then
# the engine's unit suite again with the engine forced to baseline x86-64
# (ATTNSCOPE_CPU: the copy a CPU without AVX runs), then the unit, e2e and
# fuzz-replay suites under ASan + UBSan (an -march=native build: on an AVX-512
# machine, the AVX-512 code the ci build's two engines, baseline and avx2, lack).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/check-format.sh
scripts/build.sh ci
ctest --preset ci
# (The e2e suite has already run one command at every level, and the package
# test the installed baseline copy. Not --preset: its label filter would win.)
ATTNSCOPE_CPU=baseline ctest --test-dir build/ci -L unit -j 2 --timeout 300 --output-on-failure
scripts/test-asan.sh
