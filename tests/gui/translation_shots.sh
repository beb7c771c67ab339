#!/usr/bin/env bash
# Screenshots of the Translation dock: opens an encoder-decoder folder (default: the random
# Marian fixture) under Xvfb, waits for the translation and shoots the window; with SOURCE and
# REFERENCE it first types the sentence into the dock's Source field and the Pharaoh links into
# its Reference alignment field (clicked at their places in the default layout).
# The learned picture in the README: scripts/models/train_toy_translation.py --out DIR, then
#   translation_shots.sh attnscope OUT 1920 1080 DIR "the small flower follows the black car ." \
#     "0-0 1-1 2-2 3-3 4-4 5-6 6-5 7-7"
#   and the dock cut out of the shot: convert OUT/translation-1920.png -crop 1920x676+0+378 +repage
# Usage: translation_shots.sh PATH/TO/attnscope OUTDIR [WIDTH HEIGHT [MODEL_DIR [SOURCE REFERENCE]]]
set -euo pipefail
app=$1
out=$2
W=${3:-1920}
H=${4:-1080}
here=$(cd "$(dirname "$0")" && pwd)
model=${5:-$here/../fixtures/models/marian}
source=${6:-}
reference=${7:-}
if [[ -z "${TRANSLATION_SHOTS_INNER:-}" ]]; then
  mkdir -p "$out"
  export TRANSLATION_SHOTS_INNER=1
  xvfb-run -a -s "-screen 0 ${W}x${H}x24" "$0" "$app" "$out" "$W" "$H" "$model" "$source" "$reference"
  exit
fi
cfg=$(mktemp -d)
export XDG_CONFIG_HOME=$cfg XDG_DATA_HOME=$cfg XDG_RUNTIME_DIR=$cfg ATTNSCOPE_AUTOSAVE_DIR=$cfg
"$app" "$model" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$cfg"' EXIT
win=$(timeout 30 xdotool search --sync --onlyvisible --name '^AttnScope' | head -1)
xdotool windowmove --sync "$win" 0 0 || true
xdotool windowsize --sync "$win" "$W" "$H" || true
sleep "${TRANSLATION_SHOTS_WAIT:-8}"
if [[ -n "$source" ]]; then
  # The dock fills the lower 64% of the window: Source is its first row, the view row its fourth.
  xdotool mousemove $((W / 2)) $((H * 379 / 1000)) click --repeat 3 1
  xdotool key ctrl+a type --delay 20 "$source"
  xdotool key Return
  sleep 4
  xdotool mousemove $((W * 62 / 100)) $((H * 449 / 1000)) click 1
  xdotool type --delay 20 "$reference"
  sleep 2
fi
import -window root "$out/translation-${W}.png"
