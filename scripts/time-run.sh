#!/usr/bin/env bash
# Measures scripts/run.sh as a new user meets it: the seconds from start to the
# open AttnScope window, on a virtual display (Xvfb), for a first and a second
# run in a checkout. Usage: scripts/time-run.sh [CHECKOUT]  (default: this one)
# For an honest first run give a fresh clone (git clone . /tmp/x) and set
# CCACHE_DISABLE=1 so no compiler cache is used. Settings and autosave go to a
# temporary XDG home, so the user's are untouched.
set -euo pipefail
src="$(cd "${1:-$(dirname "$0")/..}" && pwd)"
tmp="$(mktemp -d)"
export XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" XDG_CACHE_HOME="$tmp/cache"
display=":$((90 + RANDOM % 400))"
Xvfb "$display" -screen 0 1600x1000x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
trap 'kill "$xvfb" 2>/dev/null || true; rm -rf "$tmp"' EXIT
export DISPLAY="$display"
for _ in $(seq 50); do xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done

time_one() {
  local start end pid
  start=$(date +%s.%N)
  "$src/scripts/run.sh" --restore-autosave no >"$tmp/run.log" 2>&1 &
  pid=$!
  until xdotool search --onlyvisible --name '^AttnScope' >/dev/null 2>&1; do
    if ! kill -0 "$pid" 2>/dev/null; then echo "run.sh exited before a window appeared:" >&2; cat "$tmp/run.log" >&2; exit 1; fi
    sleep 0.1
  done
  end=$(date +%s.%N)
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  # CPU seconds of everything run.sh started (compilers included): divided by
  # the cores, about the wall time on an otherwise idle machine.
  local cpu
  cpu=$(times | tail -1 | awk '{ for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] } } END { printf "%.0f", s }')
  echo "$1: $(echo "$end - $start" | bc) s to the open window (children's CPU so far: $cpu s, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
}
time_one "first run"
time_one "second run"
