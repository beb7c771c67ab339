#!/usr/bin/env bash
# Installs the Debian 12 packages AttnScope builds and tests with, if missing.
# Run as root (or with sudo available); prints what is missing otherwise.
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ pkg-config
  clang clang-format libomp-dev libclang-rt-14-dev
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev qt6-l10n-tools qt6-tools-dev libgl-dev qt6-translations-l10n
  libqcustomplot-dev libeigen3-dev libfmt-dev nlohmann-json3-dev libcli11-dev zlib1g-dev
  libicu-dev libicu72 libsentencepiece-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  xvfb xauth xdotool imagemagick fonts-noto-cjk fonts-dejavu-core
  appstream desktop-file-utils lintian dpkg-dev file
  python3-torch python3-numpy python3-sentencepiece python3-pil r-base-core r-cran-janeaustenr fortunes-zh libopenblas0-pthread
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "attnscope: installing missing Debian packages: ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
else
  echo "attnscope: run as root, or install them yourself: apt-get install ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
