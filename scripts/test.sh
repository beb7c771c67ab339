#!/usr/bin/env bash
# Builds everything and runs the whole test suite (all labels but bench), then
# the unit, e2e and fuzz-replay suites again under ASan + UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh ci
ctest --preset ci
scripts/test-asan.sh
