#!/usr/bin/env bash
# Checks that every relative link in README.md, CHANGELOG.md and docs/*.md
# resolves: the file exists, and a #fragment names a heading of that file (as
# GitHub makes anchors: lower case, punctuation dropped, spaces to hyphens).
# Links with a scheme (https:, mailto:) are not fetched. Not part of CI.
# Usage: scripts/check-doc-links.sh [FILE.md ...]
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- README.md CHANGELOG.md docs/*.md
exec /usr/bin/python3 - "$@" <<'PY'
import os, re, sys

def anchors(path):
    out, seen, fence = set(), {}, False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
        if fence or not line.startswith("#"):
            continue
        text = line.lstrip("#").strip()
        text = re.sub(r"`([^`]*)`", r"\1", text)
        a = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
        n = seen.get(a, 0)
        seen[a] = n + 1
        out.add(a if n == 0 else f"{a}-{n}")
    return out

link = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
bad = 0
for md in sys.argv[1:]:
    fence = False
    for no, line in enumerate(open(md, encoding="utf-8"), 1):
        if line.startswith("```"):
            fence = not fence
        if fence:
            continue
        for target in link.findall(re.sub(r"`[^`]*`", "", line)):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue
            path, _, frag = target.partition("#")
            full = os.path.normpath(os.path.join(os.path.dirname(md), path)) if path else md
            if not os.path.exists(full):
                print(f"{md}:{no}: {target}: no such file ({full})")
                bad += 1
            elif frag and full.endswith(".md") and frag not in anchors(full):
                print(f"{md}:{no}: {target}: no heading '#{frag}' in {full}")
                bad += 1
print(f"{len(sys.argv) - 1} files checked, {bad} broken links" if bad else f"{len(sys.argv) - 1} files checked, every relative link resolves")
sys.exit(1 if bad else 0)
PY
