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
for f in "$out"/*.svg; do [ -e "$f" ] || continue; grep -q '<svg' "$f" || { echo "$f: not an SVG" >&2; exit 1; }; done
test "$n" -gt 0 || { echo "no PNG drawn (matplotlib is a dependency: scripts/deps.sh)" >&2; exit 1; }
test "$(ls "$out"/*.svg | wc -l)" = "$n" || { echo "PNG and SVG counts differ" >&2; exit 1; }
for f in "$out"/*.csv; do [ -e "$f" ] || continue; test -s "$f"; done
# every PNG and CSV the report links to exists
grep -o '([a-z0-9_]*\.\(png\|csv\))' "$out/report.md" | tr -d '()' | while read -r f; do test -e "$out/$f" || { echo "missing $f" >&2; exit 1; }; done
echo "report_quick: ok ($n PNGs and SVGs)"
# matplotlib missing: a package that fails to import shadows it. One message, no image, the CSVs
# and report.md complete, and report.md names the reason where the plot would be.
mkdir -p "$out.nompl/matplotlib"
echo 'raise ImportError("matplotlib hidden by the posenc test")' > "$out.nompl/matplotlib/__init__.py"
rm -rf "$out.2"
PYTHONPATH="$out.nompl" "$bin" report --quick --only decay --out "$out.2" > /dev/null 2> "$out.2.stderr"
n2=$(grep -c "matplotlib is not installed" "$out.2.stderr" || true)
test "$n2" = 1 || { cat "$out.2.stderr"; echo "expected one matplotlib message, got $n2" >&2; exit 1; }
! ls "$out.2"/*.png > /dev/null 2>&1 || { echo "a PNG was drawn without matplotlib" >&2; exit 1; }
ls "$out.2"/*.csv > /dev/null && grep -q "not drawn: matplotlib is not installed" "$out.2/report.md"
echo "report_quick: ok without matplotlib"
