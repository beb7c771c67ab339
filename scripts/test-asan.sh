#!/usr/bin/env bash
# The unit, e2e and fuzz-replay suites under AddressSanitizer + UndefinedBehaviorSanitizer
# (preset asan, clang -O1 -g1). Run by scripts/test.sh after the main suite (so CI
# runs it); on its own for a sanitizer-only check. Builds only what those suites run.
set -euo pipefail
cd "$(dirname "$0")/.."
"$(dirname "$0")/install-deps.sh"
if command -v ccache >/dev/null 2>&1; then export ATTNSCOPE_LAUNCHER=ccache; fi
cmake --preset asan >/dev/null
cmake --build build/asan --target attn_core_tests attn_e2e_tests fuzzers
# Any leak, any out-of-bounds access and any undefined behaviour fails the run.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
ctest --preset asan -L "unit|e2e|fuzz"
