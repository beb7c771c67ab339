#!/usr/bin/env bash
# Builds everything and runs the whole test suite (all labels but bench), then
# the same suite again with the engine forced to baseline x86-64 (ATTNSCOPE_CPU:
# the copy a CPU without AVX runs), then the unit, e2e and fuzz-replay suites
# under ASan + UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh ci
ctest --preset ci
# The package test installs and runs the .deb; once (above) is enough.
ATTNSCOPE_CPU=baseline ctest --preset ci -LE "bench|package"
scripts/test-asan.sh
