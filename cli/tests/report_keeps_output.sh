#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# usage: report_keeps_output.sh POSENC WORK_DIR
# `posenc report` validates --only and --data before it touches the output folder (an existing
# report.md keeps its bytes, a missing folder is not created) and replaces report.md atomically
# (written to a temporary file in the folder, renamed; no temporary file is left).
set -u
posenc=$1; work=$2
fail() { echo "report_keeps_output: FAIL: $*" >&2; exit 1; }
rm -rf "$work"; mkdir -p "$work/r"
printf 'previous report\n' >"$work/r/report.md"
"$posenc" report --quick --only bogus --out "$work/r" 2>/dev/null && fail "--only bogus exited 0"
[ "$(cat "$work/r/report.md")" = "previous report" ] || fail "--only bogus changed report.md"
"$posenc" report --quick --data "$work/no-such-data" --out "$work/r" 2>/dev/null && fail "a bad --data exited 0"
[ "$(cat "$work/r/report.md")" = "previous report" ] || fail "a bad --data changed report.md"
"$posenc" report --quick --only bogus --out "$work/new" 2>/dev/null && fail "--only bogus exited 0"
[ ! -e "$work/new" ] || fail "--only bogus created the output folder"
"$posenc" report --quick --only graph --out "$work/r" >/dev/null 2>&1 || fail "report --only graph failed"
head -n1 "$work/r/report.md" | grep -qx '# posenc report' || fail "report.md was not replaced"
grep -q '^## 4. Graph' "$work/r/report.md" || fail "report.md lacks the graph section"
[ -z "$(ls -A "$work/r" | grep -i tmp)" ] || fail "a temporary file was left: $(ls -A "$work/r")"
echo "report_keeps_output: ok"
