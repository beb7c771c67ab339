#!/usr/bin/env bash
# Screenshots of a long prompt in the window: writes a random Llama-shaped model
# (4 layers x 8 heads, 2 KV heads, context 8,192; q/k weights scaled up so the
# heads are not uniform) and a session with an Austen paragraph repeated to
# 3,302 tokens, opens it under Xvfb (the run streams: its maps would take 1.4 GB),
# shoots the run in progress, clicks a cell (the Row and column dock), shoots the
# overview, zooms the heatmap with the mouse wheel and shoots again.
# Usage: long_prompt_shots.sh PATH/TO/attnscope OUTDIR [WIDTH HEIGHT]
set -euo pipefail
app=$1
out=$2
W=${3:-1920}
H=${4:-1080}
if [[ -z "${LONG_SHOTS_INNER:-}" ]]; then
  mkdir -p "$out"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  here=$(cd "$(dirname "$0")" && pwd)
  (cd "$here/../scripts" && /usr/bin/python3 - "$work" <<'PY'
import json, sys
import hf_folder as h
make_random = h.random_maker
def sharper(specs, seed, keep=None):
    make = make_random(specs, seed, keep)
    return lambda name: make(name) * (5.0 if "q_proj" in name or "k_proj" in name else 1.0)
h.random_maker = sharper
work = sys.argv[1]
h.write_bench_llama(work + "/model", dict(num_hidden_layers=4, num_attention_heads=8, num_key_value_heads=2,
    hidden_size=256, intermediate_size=512, vocab_size=32000, max_position_embeddings=8192,
    rope_theta=10000.0, rms_norm_eps=1e-5, tie_word_embeddings=True))
para = ("It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want "
        "of a wife. However little known the feelings or views of such a man may be on his first entering a "
        "neighbourhood, this truth is so well fixed in the minds of the surrounding families, that he is considered "
        "the rightful property of some one or other of their daughters. ")
json.dump({"format": "attnscope-session", "version": 1,
           "input": {"text": para * 11, "key_text": "", "tokenizer": "words", "file": "", "model": work + "/model"},
           "view": {"head": 2, "pinned_row": -1, "quantity": "weights", "colormap": "viridis", "layer": 1}},
          open(work + "/long.json", "w"))
PY
  )
  export LONG_SHOTS_INNER=1 LONG_SHOTS_SESSION=$work/long.json
  xvfb-run -a -s "-screen 0 ${W}x${H}x24" "$0" "$app" "$out" "$W" "$H"
  exit
fi
cfg=$(mktemp -d)
export XDG_CONFIG_HOME=$cfg XDG_DATA_HOME=$cfg XDG_RUNTIME_DIR=$cfg ATTNSCOPE_AUTOSAVE_DIR=$cfg
"$app" "$LONG_SHOTS_SESSION" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$cfg"' EXIT
win=$(timeout 30 xdotool search --sync --onlyvisible --name '^AttnScope' | head -1)
xdotool windowmove --sync "$win" 0 0 || true
xdotool windowsize --sync "$win" "$W" "$H" || true
sleep 3  # the model run in progress: its layer, bar and Cancel in the status bar
import -window root "$out/long-${W}-running.png"
sleep "${LONG_SHOTS_WAIT:-45}"  # the streamed run, the overview, the head grid's thumbnails
# A click on a cell pins its query row; the Row and column dock comes forward with the
# row, the column and the query's top keys, recomputed from the kept q/k.
xdotool mousemove $((W * 36 / 100)) $((H * 37 / 100))
xdotool click 1
sleep 8
import -window root "$out/long-${W}-overview.png"
for _ in $(seq 22); do xdotool click 4; sleep 0.2; done
sleep 20
import -window root "$out/long-${W}-zoom.png"
