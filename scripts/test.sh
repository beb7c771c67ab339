#!/usr/bin/env bash
# Builds everything and runs the whole test suite (all labels but bench).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh ci
ctest --preset ci
