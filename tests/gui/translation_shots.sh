#!/usr/bin/env bash
# Screenshots of the Translation dock: opens an encoder-decoder folder (default: the random
# Marian fixture) under Xvfb, waits for the translation and shoots the window; with SOURCE and
# REFERENCE it first types the sentence into the dock's Source field and the Pharaoh links into
# its Reference alignment field (clicked at their places in the default layout).
# The learned picture in the README: scripts/models/train_toy_translation.py --out DIR, then
#   translation_shots.sh attnscope OUT 1920 1080 DIR "the small flower follows the black car ." \
#     "0-0 1-1 2-2 3-3 4-4 5-6 6-5 7-7"
#   and the dock cut out of the shot: convert OUT/translation-1920.png -crop 1920x587+0+467 +repage
# The main views picture in docs/translation.md: the same with TRANSLATION_SHOTS_MAIN_VIEWS=1 and
#   the reference "", which then clicks Show in Main Views.
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
# The whole screen from the first show (X11's -geometry), so the dock opens at its share of it.
"$app" -geometry "${W}x${H}+0+0" "$model" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$cfg"' EXIT
timeout 30 xdotool search --sync --onlyvisible --name '^AttnScope' >/dev/null
sleep "${TRANSLATION_SHOTS_WAIT:-8}"
if [[ -n "$source" ]]; then
  # The dock fills the lower 11/20 of the window: Source is its first row, the view row its fourth.
  xdotool mousemove $((W / 2)) $((H * 455 / 1000)) click --repeat 3 1
  xdotool key ctrl+a type --delay 20 "$source"
  xdotool key Return
  sleep 4
  if [[ -n "$reference" ]]; then
    xdotool mousemove $((W * 69 / 100)) $((H * 526 / 1000)) click 1
    xdotool type --delay 20 "$reference"
    sleep 2
  fi
fi
if [[ -n "${TRANSLATION_SHOTS_MAIN_VIEWS:-}" ]]; then
  # Show in Main Views, on the view row.
  xdotool mousemove $((W * 293 / 1000)) $((H * 526 / 1000)) click 1
  sleep 3
fi
import -window root "$out/translation-${W}.png"
