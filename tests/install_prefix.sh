#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# usage: install_prefix.sh BUILD_DIR WORK_DIR VERSION
# A newcomer's install: `cmake --install` into a fresh prefix, which is then moved elsewhere; with
# no LD_LIBRARY_PATH, POSENC_DATA or POSENC_LIBRARY the installed tool runs (RUNPATH
# $ORIGIN/../lib), `posenc report` reads the prefix's share/posenc/data, and /usr/bin/python3
# imports the package from the prefix and loads the prefix's library.
set -euo pipefail
build=$1; work=$2; version=$3
fail() { echo "install_prefix: FAIL: $*" >&2; exit 1; }
rm -rf "$work"; mkdir -p "$work"
cmake --install "$build" --prefix "$work/staging" >/dev/null
mv "$work/staging" "$work/prefix"          # relocated: nothing may point into the old path
P=$(cd "$work/prefix" && pwd -P)
run() { (cd / && env -u LD_LIBRARY_PATH -u POSENC_DATA -u POSENC_LIBRARY -u PYTHONPATH "$@"); }

out=$(run "$P/bin/posenc" --version) || fail "posenc --version exited $?"
[ "$out" = "posenc $version" ] || fail "posenc --version printed '$out', expected 'posenc $version'"
run "$P/bin/posenc" info >"$work/info.txt" || fail "posenc info exited $?: $(cat "$work/info.txt")"
grep -q "^posenc $version" "$work/info.txt" || fail "posenc info: $(cat "$work/info.txt")"
lib=$(run ldd "$P/bin/posenc" | awk '/libposenc/ {print $3}')
[ -n "$lib" ] && [ "$(readlink -f "$lib")" = "$(readlink -f "$P"/lib*/libposenc.so.*.*.*)" ] ||
  fail "the installed posenc loads '$lib', not the prefix's library"

run "$P/bin/posenc" report --quick --only graph --out "$work/report" >"$work/report.log" 2>&1 ||
  fail "posenc report: $(cat "$work/report.log")"
grep -qF "Data: \`$P/share/posenc/data\`" "$work/report/report.md" ||
  fail "posenc report did not read $P/share/posenc/data: $(grep -m1 'Data:' "$work/report/report.md")"

init=$(ls "$P"/lib*/python3*/*-packages/posenc/__init__.py 2>/dev/null | head -n1)
[ -n "$init" ] || fail "no Python package under $P/lib*/python3*/*-packages"
pydir=${init#"$P/"}; pydir=${pydir%/posenc/__init__.py}
run PYTHONPATH="$P/$pydir" PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 - "$P" "$version" <<'PY' || fail "python import from the prefix"
import os, sys
import numpy as np, posenc
prefix, version = sys.argv[1], sys.argv[2]
assert posenc.__file__.startswith(prefix + "/"), posenc.__file__
assert os.path.realpath(posenc.library_path()).startswith(prefix + "/"), posenc.library_path()
assert posenc.__version__ == version and posenc.version_string() == version
t = posenc.sinusoidal(4, 8)
assert t.shape == (4, 8) and np.isfinite(t).all()
PY
# With the default prefix (/usr/local) the package lands where /usr/bin/python3 looks.
/usr/bin/python3 -c "import sys; sys.exit(0 if '/usr/local/$pydir' in sys.path or '/usr/$pydir' in sys.path else 1)" ||
  fail "/usr/bin/python3 does not search /usr/local/$pydir"
echo "install_prefix: ok ($P: posenc --version, info, report data, python import)"
