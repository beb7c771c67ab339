#!/usr/bin/env bash
# Configures and builds a CMake preset (default: ci). Usage: scripts/build.sh [PRESET]
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-ci}"
"$(dirname "$0")/install-deps.sh"
if command -v ccache >/dev/null 2>&1; then export ATTNSCOPE_LAUNCHER=ccache; fi
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
