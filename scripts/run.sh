#!/usr/bin/env bash
# Builds AttnScope and opens the GUI on the bundled example. Without a display,
# draws the example's heatmap and metrics with the CLI and says where they are.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh ci >/dev/null
bin=build/ci/bin
text="$(cat resources/examples/english.txt)"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec "$bin/attnscope" "$@"
fi
out="${ATTNSCOPE_OUT:-$PWD/attnscope-example}"
mkdir -p "$out"
echo "No display found (DISPLAY is unset): writing the example with the CLI instead."
"$bin/attnscope-cli" export --text "$text" --head 1 --size 900x800 --out "$out/heatmap.png" --force
"$bin/attnscope-cli" metrics --text "$text" --json > "$out/metrics.json"
"$bin/attnscope-cli" run --text "$text" --out "$out/result.npz" --force
echo "Heatmap: $out/heatmap.png"
echo "Metrics: $out/metrics.json"
echo "Result:  $out/result.npz"
