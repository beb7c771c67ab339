#!/usr/bin/env bash
# Builds the two programs (attnscope, attnscope-cli; no tests) in build/app and
# opens the GUI on the bundled example. Later runs reuse build/app and only
# rebuild what changed. Without a display, draws the example's heatmap and
# metrics with the CLI and says where they are. The full suite: scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
if command -v ccache >/dev/null 2>&1; then export ATTNSCOPE_LAUNCHER="${ATTNSCOPE_LAUNCHER-ccache}"; fi
# Configure once; Ninja re-runs CMake by itself when a CMakeLists.txt changes.
if [ ! -f build/app/build.ninja ]; then
  echo "attnscope: first run: building the two programs (a few minutes; later runs take seconds)" >&2
  cmake --preset app >/dev/null
fi
cmake --build --preset app
bin=build/app/bin
text="$(cat resources/examples/english.txt)"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec "$bin/attnscope" "$@"
fi
out="${ATTNSCOPE_OUT:-$PWD/attnscope-example}"
mkdir -p "$out"
echo "No display found (DISPLAY is unset): writing the example with the CLI instead."
# The window's first view: the bundled austen-gpt2 on its first example sentence (a
# bundled model without --text runs it); the seeded random explorer without it.
if "$bin/attnscope-cli" info austen-gpt2 >/dev/null 2>&1; then
  input=(--model austen-gpt2)
  "$bin/attnscope-cli" export "${input[@]}" --layer 1 --head all --size 1200x900 --out "$out/heatmap.png" --force
  "$bin/attnscope-cli" heads --model austen-gpt2 > "$out/heads.txt"
  echo "Heads:   $out/heads.txt"
else
  input=(--text "$text")
  "$bin/attnscope-cli" export "${input[@]}" --head 1 --size 900x800 --out "$out/heatmap.png" --force
fi
"$bin/attnscope-cli" metrics "${input[@]}" --json > "$out/metrics.json"
"$bin/attnscope-cli" run "${input[@]}" --out "$out/result.npz" --force
echo "Heatmap: $out/heatmap.png"
echo "Metrics: $out/metrics.json"
echo "Result:  $out/result.npz"
