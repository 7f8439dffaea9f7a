#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# usage: report_quick.sh POSENC_BINARY OUT_DIR — runs `posenc report --quick`, checks its files.
set -euo pipefail
bin=$1; out=$2
rm -rf "$out"
start=$(date +%s%N)
"$bin" report --quick --out "$out"
end=$(date +%s%N)
echo "report --quick took $(( (end - start) / 1000000 )) ms"
test -s "$out/report.md"
grep -q '^## Summary' "$out/report.md"
if grep -q 'FAILED' "$out/report.md"; then echo "report has a FAILED experiment" >&2; exit 1; fi
n=0
for f in "$out"/*.png; do
  [ -e "$f" ] || continue
  head -c 8 "$f" | od -An -tx1 | tr -d ' \n' | grep -q '^89504e470d0a1a0a$' || { echo "$f: not a PNG" >&2; exit 1; }
  n=$((n+1))
done
for f in "$out"/*.csv; do [ -e "$f" ] || continue; test -s "$f"; done
# every PNG and CSV the report links to exists
grep -o '([a-z0-9_]*\.\(png\|csv\))' "$out/report.md" | tr -d '()' | while read -r f; do test -e "$out/$f" || { echo "missing $f" >&2; exit 1; }; done
echo "report_quick: ok ($n PNGs)"
