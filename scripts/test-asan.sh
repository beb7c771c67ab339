#!/usr/bin/env bash
# Builds the asan preset (ASan + UBSan, RelWithDebInfo) and runs the unit, e2e
# and fuzz-replay suites under it. Not yet part of scripts/test.sh: its CI cost
# on 2 cores has not been measured (issue 10).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh asan
# Leaks are errors except inside Qt's and fontconfig's process-lifetime caches.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
ctest --preset asan -L "unit|e2e|fuzz"
