#!/usr/bin/env bash
# Screenshots of the Translation dock: opens an encoder-decoder folder (default: the random
# Marian fixture) under Xvfb, waits for the translation, types a reference alignment into the
# dock's field and shoots the window.
# Usage: translation_shots.sh PATH/TO/attnscope OUTDIR [WIDTH HEIGHT [MODEL_DIR [REFERENCE]]]
set -euo pipefail
app=$1
out=$2
W=${3:-1920}
H=${4:-1080}
here=$(cd "$(dirname "$0")" && pwd)
model=${5:-$here/../fixtures/models/marian}
reference=${6:-1-1 2-2 3-3}
if [[ -z "${TRANSLATION_SHOTS_INNER:-}" ]]; then
  mkdir -p "$out"
  export TRANSLATION_SHOTS_INNER=1
  xvfb-run -a -s "-screen 0 ${W}x${H}x24" "$0" "$app" "$out" "$W" "$H" "$model" "$reference"
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
import -window root "$out/translation-${W}.png"
