#!/usr/bin/env bash
# Installs the Debian package into a throwaway root with dpkg's own database
# (dpkg --root: the machine's packages are untouched, no root needed), runs the
# installed programs (--version, one export), checks the desktop files, man
# pages and completion, removes the package and checks nothing is left.
# Usage: package_test.sh attnscope_<version>_amd64.deb [LEVELS]
# LEVELS: the engine copies it must carry (default "baseline, avx2, avx512", what
# scripts/package.sh builds; empty: one static engine, no engine library).
set -euo pipefail
deb="$(realpath "$1")"
levels="${2-baseline, avx2, avx512}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
root="$tmp/root"
fail() { echo "package test: $*" >&2; exit 1; }

version="$(dpkg-deb -f "$deb" Version)"
depends="$(dpkg-deb -f "$deb" Depends)"
echo "package: attnscope $version; Depends: $depends"
# Depends come from dpkg-shlibdeps: versioned libc6 and the Qt/ICU libraries.
[[ "$depends" == *"libc6 (>="* ]] || fail "Depends has no versioned libc6 (dpkg-shlibdeps not run?): $depends"

# Debian's own checker: no error (its info tags are advice). Root is how CI runs it.
if command -v lintian >/dev/null; then
  lintian --fail-on error --allow-root "$deb" || fail "lintian reports errors"
fi

mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
dpkg_root=(dpkg --root="$root" --force-not-root --force-depends --force-script-chrootless
           --log=/dev/null --instdir="$root" --admindir="$root/var/lib/dpkg")
"${dpkg_root[@]}" -i "$deb" >/dev/null
grep -q '^Status: install ok installed' <<<"$("${dpkg_root[@]}" -s attnscope)" || fail "dpkg does not list it as installed"

bin="$root/usr/bin"
[ "$("$bin/attnscope-cli" --version)" = "$version" ] || fail "attnscope-cli --version is not $version"
gui_version="$(QT_QPA_PLATFORM=offscreen "$bin/attnscope" --version)"
[[ "$gui_version" == *"AttnScope $version"* ]] || fail "attnscope --version: $gui_version"
"$bin/attnscope-cli" export --text "$(cat "$root/usr/share/attnscope/examples/english.txt")" --head 1 \
  --size 320x240 --out "$tmp/head1.png"
[ "$(head -c 8 "$tmp/head1.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "export wrote no PNG"

# The bundled models: every one the registry names is installed under /usr/share/attnscope/models,
# and the installed CLI runs the default one by name alone.
bundled="$("$bin/attnscope-cli" info --bundled)"
! grep -q 'not installed' <<<"$bundled" || fail "a bundled model is missing: $bundled"
grep -q "^austen-gpt2 .*/usr/share/attnscope/models/austen-gpt2\$" <<<"$bundled" || fail "info --bundled: $bundled"
"$bin/attnscope-cli" heads --model austen-gpt2 >"$tmp/heads.txt" || fail "heads --model austen-gpt2 failed"
[ -s "$tmp/heads.txt" ] || fail "heads --model austen-gpt2 printed nothing"

# attnscope-cli loads no Qt; the figure it just wrote was drawn by the private
# attnscope-cli-figures, which it runs in its place (app/cli/figures_program.h).
figures="$(find "$root/usr/lib" -name attnscope-cli-figures -path '*/attnscope/*' | head -1)"
[ -n "$figures" ] && [ -x "$figures" ] || fail "no attnscope-cli-figures in a private directory under /usr/lib"
if command -v readelf >/dev/null; then
  ! readelf -d "$bin/attnscope-cli" | grep -q 'NEEDED.*libQt6' || fail "attnscope-cli links Qt"
  readelf -d "$figures" | grep -q 'NEEDED.*libQt6Widgets' || fail "attnscope-cli-figures does not link Qt Widgets"
fi

# The engine: one library per x86-64 level in a private directory, found through
# the programs' $ORIGIN RUNPATH; the loader runs the highest copy this CPU has,
# and ATTNSCOPE_CPU=baseline makes the installed program restart on the baseline one.
engine="$(find "$root/usr/lib" -name libattnscope_core.so -path '*/attnscope/libattnscope_core.so' | head -1)"
[ -n "$engine" ] || [ -z "$levels" ] || fail "no engine library (want $levels)"
[ -z "$engine" ] || [ -n "$levels" ] || fail "an engine library ($engine) where one static engine was built"
if [ -n "$engine" ]; then
  info_field() { sed -n "s/^$1: *//p" <<<"$2"; }
  for pair in avx2:x86-64-v3 avx512:x86-64-v4; do
    copy="$(dirname "$engine")/glibc-hwcaps/${pair#*:}/libattnscope_core.so"
    if [[ ", $levels, " == *", ${pair%%:*}, "* ]]; then
      [ -f "$copy" ] || fail "no ${pair%%:*} copy of the engine next to $engine"
    else
      [ ! -e "$copy" ] || fail "a ${pair%%:*} copy ($copy) this build did not make"
    fi
  done
  info="$("$bin/attnscope-cli" info --system)"
  [ "$(info_field "Kernel levels" "$info")" = "$levels" ] || fail "installed levels (want $levels): $info"
  base="$(ATTNSCOPE_CPU=baseline "$bin/attnscope-cli" info --system)"
  [ "$(info_field "Kernel level" "$base")" = "baseline (forced by ATTNSCOPE_CPU)" ] || fail "ATTNSCOPE_CPU=baseline: $base"
  [[ "$(info_field "Eigen" "$base")" != *AVX* ]] || fail "the baseline engine uses AVX: $base"
  echo "package: engine levels $(info_field "Kernel levels" "$info"); running $(info_field "Kernel level" "$info")"
fi

share="$root/usr/share"
# (Text is read whole before grep: grep -q on a pipe can cut the writer off under pipefail.)
for page in attnscope attnscope-cli; do
  text="$(zcat "$share/man/man1/$page.1.gz")"
  grep -q "^\.TH ${page^^} 1" <<<"$text" || fail "man page $page(1) missing or bad"
done
# Every command the CLI lists has its own section in the man page.
cli_help="$("$bin/attnscope-cli" --help)"
cli_man="$(zcat "$share/man/man1/attnscope-cli.1.gz")"
for sub in $(sed -n '/^Subcommands:/,/^$/p' <<<"$cli_help" | awk 'NR > 1 && /^  [a-z]/ { print $1 }'); do
  grep -q "^\.SS attnscope\\\\-cli $sub\$" <<<"$cli_man" || fail "man page lacks '$sub'"
done
id=org.attnscope.AttnScope
for f in "applications/$id.desktop" "metainfo/$id.metainfo.xml" "icons/hicolor/scalable/apps/$id.svg" \
         "icons/hicolor/48x48/apps/$id.png" "icons/hicolor/256x256/apps/$id.png" "mime/packages/attnscope.xml" \
         "bash-completion/completions/attnscope-cli" "zsh/vendor-completions/_attnscope-cli" \
         "doc/attnscope/copyright" "doc/attnscope/changelog.gz"; do
  [ -s "$share/$f" ] || fail "missing /usr/share/$f"
done
# The licence: GPL-3.0-or-later in the metainfo (SPDX) and in a machine-readable
# (DEP-5) copyright file that also names the licences of the libraries it links.
metainfo="$(cat "$share/metainfo/$id.metainfo.xml")"
grep -q '<project_license>GPL-3.0-or-later</project_license>' <<<"$metainfo" || fail "metainfo project_license is not GPL-3.0-or-later"
grep -q '<metadata_license>CC0-1.0</metadata_license>' <<<"$metainfo" || fail "metainfo metadata_license is not CC0-1.0"
copyright="$(cat "$share/doc/attnscope/copyright")"
[ "$(head -1 <<<"$copyright")" = "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" ] \
  || fail "copyright is not a DEP-5 file: $(head -1 <<<"$copyright")"
! grep -qi 'proprietary\|all rights reserved' <<<"$copyright" || fail "copyright still reserves all rights"
# The Files: * paragraph is AttnScope's own and says GPL-3.0+.
[ "$(awk '/^Files: \*$/ { f = 1; next } f && /^License:/ { print; exit }' <<<"$copyright")" = "License: GPL-3.0+" ] \
  || fail "copyright's 'Files: *' paragraph is not License: GPL-3.0+"
grep -q 'GNU General Public License as published by the Free Software' <<<"$copyright" || fail "copyright lacks the GPL notice"
grep -q '/usr/share/common-licenses/GPL-3' <<<"$copyright" || fail "copyright does not point to the GPL-3 text"
for dep in 'Qt 6 (.*): LGPL-3 or GPL-2' 'QCustomPlot (.*): GPL-3+' 'Eigen 3 (.*): MPL-2.0' 'fmt (.*): Expat' \
           'nlohmann-json (.*): Expat' 'CLI11 (.*): BSD-3-clause' 'zlib (.*): Zlib' 'ICU (.*): .*Unicode'; do
  grep -q "^  $dep" <<<"$copyright" || fail "copyright does not list '$dep'"
done
# Every licence a Files paragraph names has its own License paragraph with the text or a pointer to it.
for name in $(awk '/^Files:/ { f = 1 } /^$/ { f = 0 } f && /^License:/ { sub(/^License: /, ""); gsub(/ and /, "\n"); print }' <<<"$copyright" | sort -u); do
  awk -v n="$name" '/^$/ { p = 0 } p && /^ / { body = 1 } /^License: / && !/^Files/ { p = ($0 == "License: " n) } END { exit !body }' \
    <<<"$(awk 'BEGIN { RS = ""; ORS = "\n\n" } !/^Files:/ && !/^Format:/' <<<"$copyright")" || fail "copyright has no License paragraph for $name"
done
echo "package: licence GPL-3.0-or-later (metainfo), GPL-3.0+ (DEP-5 copyright)"
if command -v desktop-file-validate >/dev/null; then desktop-file-validate "$share/applications/$id.desktop"; fi
if command -v appstreamcli >/dev/null; then appstreamcli validate --no-net --pedantic "$share/metainfo/$id.metainfo.xml" >/dev/null \
  || { appstreamcli validate --no-net --pedantic "$share/metainfo/$id.metainfo.xml"; fail "metainfo does not validate"; }; fi
# bash completion, with the installed program: commands, then a command's options.
words() { bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _attnscope_cli; printf "%s\n" "${COMPREPLY[@]}"' \
  _ "$share/bash-completion/completions/attnscope-cli" "$@"; }
[ "$(words "$bin/attnscope-cli" ex)" = "export" ] || fail "bash completion of 'ex'"
grep -qx -- "--head" <<<"$(words "$bin/attnscope-cli" export --he)" || fail "bash completion of 'export --he'"

"${dpkg_root[@]}" --purge attnscope >/dev/null
left="$(cd "$root" && find . -path ./var/lib/dpkg -prune -o -not -type d -print)"
[ -z "$left" ] || fail "left behind after removal: $left"
echo "package test: installed, ran, removed cleanly"
