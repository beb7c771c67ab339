#!/bin/sh
# The explorer's speed targets in a real (virtual) window: runs gui_timing.py under
# xvfb-run at 1920x1080. Usage: tests/bench/gui_timing.sh [build dir] [gui_timing.py options]
# Needs: apt-get install -y xvfb xauth xdotool imagemagick x11-utils
set -eu
here=$(dirname "$0")
for tool in xvfb-run xdotool xdpyinfo; do
  command -v "$tool" >/dev/null || { echo "gui_timing.sh: $tool not found (apt-get install -y xvfb xauth xdotool imagemagick x11-utils)" >&2; exit 2; }
done
exec xvfb-run -a -s "-screen 0 1920x1080x24" /usr/bin/python3 "$here/gui_timing.py" "$@"
