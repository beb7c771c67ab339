#!/usr/bin/env bash
# Renders resources/icons/attnscope.svg to the PNG sizes that are installed
# (hicolor theme) and committed. Needs rsvg-convert (apt-get install librsvg2-bin);
# run it after editing the SVG.
set -euo pipefail
cd "$(dirname "$0")/../resources/icons"
for s in 16 24 32 48 64 128 256 512; do
  rsvg-convert -w "$s" -h "$s" attnscope.svg -o "attnscope-$s.png"
done
