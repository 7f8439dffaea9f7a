#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# usage: profile_args.sh REGEX COMMAND... — a bad `posenc profile` argument is rejected before any
# set-up: non-zero exit, REGEX on stderr, nothing measured or allocated (no "setting up" or
# "round" progress line), within 5 seconds.
regex=$1; shift
start=$(date +%s)
out=$("$@" 2>&1); rc=$?
elapsed=$(( $(date +%s) - start ))
printf '%s\n' "$out"
if [ $rc -eq 0 ] || [ $rc -ge 128 ]; then echo "profile_args: exit $rc, expected a failure" >&2; exit 1; fi
if ! printf '%s' "$out" | grep -Eq -- "$regex"; then echo "profile_args: output does not match /$regex/" >&2; exit 1; fi
if printf '%s' "$out" | grep -Eq 'setting up|round [0-9]'; then echo "profile_args: set-up ran before the check" >&2; exit 1; fi
if [ $elapsed -gt 5 ]; then echo "profile_args: took $elapsed s (> 5 s)" >&2; exit 1; fi
echo "profile_args: ok (exit $rc, ${elapsed} s)"
