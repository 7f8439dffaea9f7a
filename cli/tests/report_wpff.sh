#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# usage: report_wpff.sh POSENC WORK_DIR — the learned-WPFF experiment (`posenc report --only wpff`,
# cli/exp_features_wpff.cpp): gradient descent on λ lowers the TRAINING loss at every m on both
# data sets, every number is finite, and two runs (1 and 2 library threads) write the same bytes.
# The plots are not drawn (a stand-in matplotlib that fails to import): this test is about the numbers.
set -u
posenc=("${@:1:$#-1}"); work=${!#}
fail() { echo "report_wpff: FAIL: $*" >&2; exit 1; }
rm -rf "$work"; mkdir -p "$work/nompl/matplotlib"
echo 'raise ImportError("matplotlib hidden by the posenc test")' >"$work/nompl/matplotlib/__init__.py"
for t in 1 2; do
  PYTHONPATH="$work/nompl" POSENC_NUM_THREADS=$t "${posenc[@]}" report --quick --only wpff --out "$work/t$t" \
    >/dev/null 2>"$work/t$t.stderr" || { cat "$work/t$t.stderr" >&2; fail "report --only wpff (threads $t) failed"; }
done
for f in wpff_mse.csv wpff_curve.csv; do
  [ -s "$work/t1/$f" ] || fail "$f missing"
  cmp -s "$work/t1/$f" "$work/t2/$f" || fail "$f differs between 1 and 2 threads"
done
grep -q '^## 6b\. Learned WPFF' "$work/t1/report.md" || fail "report.md lacks the wpff section"
# every value finite; in the curve, each *_train column's last value below its first
awk -F, 'FNR == 1 { next }
  { for (i = 1; i <= NF; ++i) if ($i !~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/) { print FILENAME ": not finite: " $i; bad = 1 } }
  END { exit bad }' "$work/t1/wpff_mse.csv" "$work/t1/wpff_curve.csv" || fail "a non-finite value"
awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) name[i] = $i; next }
  NR == 2 { for (i = 1; i <= NF; ++i) first[i] = $i }
  { for (i = 1; i <= NF; ++i) last[i] = $i }
  END { n = 0
        for (i = 2; i in name; ++i) if (name[i] ~ /_train$/) {
          ++n; if (!(last[i] < first[i])) { print name[i] ": train loss " first[i] " -> " last[i]; bad = 1 } }
        if (n != 6) { print "expected 6 train columns, got " n; bad = 1 }
        exit bad }' "$work/t1/wpff_curve.csv" || fail "the training loss did not decrease"
echo "report_wpff: ok"
