#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# usage: env_fail.sh VAR=VALUE REGEX COMMAND [ARGS...]
# An environment value the library cannot use (POSENC_ISA, POSENC_NUM_THREADS): COMMAND exits
# non-zero (not by a signal) having printed exactly one line, on stderr, that matches REGEX (it
# names the variable and its value), and nothing on stdout.
set -u
assign=$1; regex=$2; shift 2
errf=$(mktemp); trap 'rm -f "$errf"' EXIT
out=$(env "$assign" "$@" 2>"$errf"); rc=$?
err=$(cat "$errf")
printf 'stdout: %s\nstderr: %s\n' "$out" "$err"
fail() { echo "env_fail: $*" >&2; exit 1; }
[ $rc -ne 0 ] || fail "'$assign $*' exited 0"
[ $rc -lt 128 ] || fail "'$assign $*' died with signal $((rc - 128))"
[ -z "$out" ] || fail "printed on stdout before failing"
[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "expected one message line on stderr"
printf '%s' "$err" | grep -Eq -- "$regex" || fail "stderr does not match /$regex/"
echo "env_fail: ok (exit $rc)"
