#!/usr/bin/env bash
# ctest package.deb: builds the .deb from this build tree with CPack (into a
# temporary folder) and runs package_test.sh on it.
# Usage: cpack_test.sh BUILD_DIR [LEVELS] (LEVELS: the engine copies the tree builds,
# e.g. "baseline, avx2"; empty for one static engine)
set -euo pipefail
build="$(realpath "$1")"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$out" >/dev/null
"$(dirname "$0")/package_test.sh" "$out"/attnscope_*_amd64.deb "${2-baseline, avx2, avx512}"
