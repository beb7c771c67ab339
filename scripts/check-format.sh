#!/usr/bin/env bash
# The committed .clang-format, enforced on the lines changed since the commit in
# .ci/format-base (reformatting every file at once would bury `git blame`).
# Prints the diff that would fix them and fails; `scripts/check-format.sh --fix`
# applies it. Needs the clone's history back to that commit.
set -euo pipefail
cd "$(dirname "$0")/.."
base="$(cat .ci/format-base)"
if ! git cat-file -e "${base}^{commit}" 2>/dev/null; then
  echo "check-format: commit $base (.ci/format-base) is not in this clone's history; skipped" >&2
  exit 0
fi
gcf="$(command -v git-clang-format-14 || command -v git-clang-format || true)"
if [ -z "$gcf" ]; then
  echo "check-format: git-clang-format not found (apt-get install clang-format)" >&2
  exit 1
fi
if [ "${1:-}" = "--fix" ]; then
  "$gcf" --force --binary "$(command -v clang-format-14 || command -v clang-format)" --extensions h,cpp,cu,cuh "$base" || true
  exit 0
fi
out="$("$gcf" --binary "$(command -v clang-format-14 || command -v clang-format)" --diff --extensions h,cpp,cu,cuh "$base" 2>&1 || true)"
case "$out" in
  *"no modified files to format"*|*"clang-format did not modify any files"*|"") echo "check-format: lines changed since ${base:0:12} follow .clang-format"; exit 0 ;;
esac
printf '%s\n' "$out"
echo "check-format: the lines above do not follow .clang-format; run scripts/check-format.sh --fix" >&2
exit 1
