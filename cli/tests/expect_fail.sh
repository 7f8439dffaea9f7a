#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# usage: expect_fail.sh REGEX COMMAND [ARGS...]
# Passes when COMMAND exits non-zero (and not by a signal) and its stderr+stdout match REGEX.
regex=$1; shift
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out"
if [ $rc -eq 0 ]; then echo "expect_fail: '$*' exited 0, expected failure" >&2; exit 1; fi
if [ $rc -ge 128 ]; then echo "expect_fail: '$*' died with signal $((rc-128))" >&2; exit 1; fi
if ! printf '%s' "$out" | grep -Eq -- "$regex"; then echo "expect_fail: output does not match /$regex/" >&2; exit 1; fi
echo "expect_fail: ok (exit $rc)"
