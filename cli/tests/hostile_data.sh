#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# usage: hostile_data.sh POSENC DATA_DIR WORK_DIR
# `posenc report --data` on hostile copies of the Debian graph: each must fail fast with a message
# naming the file and the rule (non-zero exit, no signal), never run until it is killed.
set -u
posenc=$1 data=$2 work=$3
x=$(dirname "$0")/expect_fail.sh
rm -rf "$work" && mkdir -p "$work/d" || exit 1
cp "$data/zone1970.tab" "$data/karate.edges" "$work/d/" || exit 1
gz=$work/d/debian-bookworm-depends.txt.gz
run() { timeout 120 bash "$x" "$1" "$posenc" report --quick --only graph --data "$work/d" --out "$work/out"; }
fail=0
# 1. a gzip bomb: 80 MiB of zeros in ~80 KB
head -c $((80 << 20)) /dev/zero | gzip -1 > "$gz"
run "debian-bookworm-depends.txt.gz: decompresses to more than 64 MiB" || fail=1
# 2. one line of 1 MB
{ echo "# header"; head -c $((1 << 20)) /dev/zero | tr '\0' 'a'; echo; } | gzip -1 > "$gz"
run "debian-bookworm-depends.txt.gz:2: line longer than 4096 bytes" || fail=1
# 3. a node count no file of this size can hold
printf 'nodes 999999999999\na\nedges 0\n' | gzip > "$gz"
run "'nodes 999999999999' is more than" || fail=1
# 4. an edge count no file of this size can hold
printf 'nodes 2\na\nb\nedges 99999999999\n0 1\n' | gzip > "$gz"
run "'edges 99999999999' is more than" || fail=1
# 5. not gzip at all
printf "\037\213\010\000garbage" > "$gz"
run "debian-bookworm-depends.txt.gz: gzip decompression failed" || fail=1
exit $fail
