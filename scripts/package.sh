#!/usr/bin/env bash
# Builds the Debian package: build/package/attnscope_<version>_amd64.deb.
# Release, no tests; baseline x86-64 programs and one engine library per
# x86-64 level (runs on any x86-64 CPU, at AVX2 or AVX-512 speed where the CPU
# has them: cmake/CpuLevels.cmake); Depends from dpkg-shlibdeps. Check it with: lintian build/package/attnscope_*_amd64.deb
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
if command -v ccache >/dev/null 2>&1; then export ATTNSCOPE_LAUNCHER="${ATTNSCOPE_LAUNCHER-ccache}"; fi
cmake --preset package >/dev/null
cmake --build --preset package
(cd build/package && cpack -G DEB >/dev/null)
ls -1 "$PWD"/build/package/attnscope_*_amd64.deb
