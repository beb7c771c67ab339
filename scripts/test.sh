#!/usr/bin/env bash
# Builds everything and runs the whole test suite (all labels but bench), then
# the same suite again with the engine forced to baseline x86-64 (ATTNSCOPE_CPU:
# the copy a CPU without AVX runs), then the unit, e2e and fuzz-replay suites
# under ASan + UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh ci
ctest --preset ci
# (Everything again, the package test too: its installed programs then restart
# on the baseline copy. A -LE here would be ignored: the preset's filter wins.)
ATTNSCOPE_CPU=baseline ctest --preset ci
scripts/test-asan.sh
