#!/usr/bin/env bash
# Starts the GUI under Xvfb, drives it with xdotool, takes screenshots and
# checks that they have real content and that each step changed the window.
# Usage: drive_gui.sh PATH/TO/attnscope OUTDIR
# Registered in ctest (label gui-xvfb) when xvfb-run and xdotool exist.
set -euo pipefail
app=$1
out=${2:-/tmp/attnscope-gui-shots}
if [[ -z "${DRIVE_GUI_INNER:-}" ]]; then
  mkdir -p "$out"
  rm -f "$out"/*.png
  export DRIVE_GUI_INNER=1
  exec xvfb-run -a -s "-screen 0 1600x1000x24" "$0" "$app" "$out"
fi

# A private settings folder: no saved layout or colormap from earlier runs.
cfg=$(mktemp -d)
export XDG_CONFIG_HOME=$cfg XDG_DATA_HOME=$cfg XDG_RUNTIME_DIR=$cfg ATTNSCOPE_AUTOSAVE_DIR=$cfg  # no restore prompt from an earlier crash
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$cfg"' EXIT

fixtures=$(cd "$(dirname "$0")/../fixtures/io" && pwd)
fail() { echo "drive_gui: FAIL: $*" >&2; exit 1; }
shot() { sleep "${2:-1.2}"; import -window root "$out/$1.png"; }
# Shoots until colour $2 covers more than $3 of the screen (a loaded machine
# can take seconds to recompute), at most ~8 s; the checks below judge the last shot.
shot_until() { for _ in $(seq 12); do shot "$1" 0.7; awk -v b="$(share "$out/$1.png" "$2")" -v m="$3" 'BEGIN { exit !(b > m) }' && return 0; done; return 0; }
colours() { identify -format '%k' "$1"; }
# Pixels that differ between two screenshots.
differ() { compare -metric AE "$1" "$2" null: 2>&1 | cut -d' ' -f1 || true; }
# Share of pixels with exactly this colour.
share() { convert "$1" -alpha off -fill black +opaque "$2" -fill white -opaque "$2" -format '%[fx:mean]' info:; }

"$app" &
pid=$!
win=$(timeout 20 xdotool search --sync --onlyvisible --name '^AttnScope' | head -1) || fail "no window"
xdotool windowfocus --sync "$win" || true
xdotool windowsize --sync "$win" 1500 940 || true
shot 01-start 2

xdotool key ctrl+Next ctrl+Next   # next head, twice
shot 02-head3
xdotool key ctrl+l               # focus the query text, select all
xdotool type --delay 15 "The quick brown fox jumps over the lazy dog"
shot 03-typed 1.5
xdotool key ctrl+l BackSpace      # empty sequence: message, view kept
shot_until 04-empty '#fde2e1' 0.002
xdotool key ctrl+z                # undo: the sentence comes back
shot 05-restored 1.5
open_file() {                     # File > Open (Ctrl+O), path typed into the dialog
  xdotool windowfocus --sync "$win" || true  # a closed dialog leaves no X focus behind
  xdotool key ctrl+o
  dlg=$(timeout 20 xdotool search --sync --onlyvisible --name '^Open' | head -1) || fail "Ctrl+O opened no dialog"
  # The dialog's path completer loads folders in the background and, when
  # slow, can swallow typed characters (seen in CI: an empty name field, the
  # dialog still open). Retype the whole path until the dialog closes.
  for attempt in 1 2 3; do
    xdotool windowfocus --sync "$dlg" || true
    sleep 0.5
    xdotool key ctrl+a
    xdotool type --delay $((5 * attempt * attempt)) "$1"; sleep 0.3; xdotool key Return
    for _ in $(seq 50); do xdotool search --onlyvisible --name '^Open' >/dev/null 2>&1 || return 0; sleep 0.1; done
    echo "drive_gui: the Open dialog is still up after typing $1 (attempt $attempt); typing it again" >&2
  done
  fail "the Open dialog did not take the path $1"
}
open_file "$fixtures/bad/truncated.npz"   # a bad file: message, view kept
shot_until 06-bad-file '#fde2e1' 0.002
open_file "$fixtures/contract_attn.npz"   # precomputed attn [3 layers, 2 heads, 4 x 5]
shot 07-layers 2
xdotool windowfocus --sync "$win" || true
xdotool key ctrl+q
for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && fail "Ctrl+Q did not quit"
wait "$pid" || fail "the GUI exited with status $?"

for s in 01-start 02-head3 03-typed 04-empty 05-restored 06-bad-file 07-layers; do
  n=$(colours "$out/$s.png")
  echo "drive_gui: $s.png: $n colours"
  (( n > 200 )) || fail "$s.png looks blank ($n colours)"
done
d=$(differ "$out/01-start.png" "$out/02-head3.png"); echo "drive_gui: next head changed $d pixels"
(( d > 5000 )) || fail "next head did not change the heatmap"
d=$(differ "$out/02-head3.png" "$out/03-typed.png"); echo "drive_gui: typing changed $d pixels"
(( d > 5000 )) || fail "typing a sentence did not change the heatmap"
b=$(share "$out/04-empty.png" '#fde2e1'); echo "drive_gui: error banner covers $b of the screen"
awk -v b="$b" 'BEGIN { exit !(b > 0.002) }' || fail "no error banner for an empty sequence"
d=$(differ "$out/03-typed.png" "$out/04-empty.png"); echo "drive_gui: empty input changed $d pixels (banner only)"
b=$(share "$out/05-restored.png" '#fde2e1')
awk -v b="$b" 'BEGIN { exit !(b < 0.0005) }' || fail "the error banner stayed after the input was fixed"
b=$(share "$out/06-bad-file.png" '#fde2e1'); echo "drive_gui: bad file banner covers $b of the screen"
awk -v b="$b" 'BEGIN { exit !(b > 0.002) }' || fail "no error banner for a truncated file"
d=$(differ "$out/06-bad-file.png" "$out/07-layers.png"); echo "drive_gui: opening a layered file changed $d pixels"
(( d > 20000 )) || fail "opening contract_attn.npz did not change the window"
b=$(share "$out/07-layers.png" '#fde2e1')
awk -v b="$b" 'BEGIN { exit !(b < 0.0005) }' || fail "the error banner stayed after a good file was opened"
echo "drive_gui: OK (screenshots in $out)"
