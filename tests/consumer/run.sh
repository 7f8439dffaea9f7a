#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# usage: run.sh BUILD_DIR SOURCE_DIR WORK_DIR
# Installs BUILD_DIR into a fresh prefix, checks that every header of include/posenc is there,
# then builds and runs two consumers against it:
# one with CMake find_package(posenc), one with pkg-config.
set -euo pipefail
build=$1; src=$2; work=$3
rm -rf "$work"; mkdir -p "$work"
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
# The installed package names its license and carries the texts and the changelog.
for f in LICENSE LICENSE-APACHE LICENSE-MIT CHANGELOG.md README.md; do
  test -s "$prefix/share/doc/posenc/$f" || { echo "missing $prefix/share/doc/posenc/$f"; exit 1; }
done
# Every public header is installed as it is in the source tree (posenc.h includes the others).
for h in "$src"/include/posenc/*; do
  cmp -s "$h" "$prefix/include/posenc/${h##*/}" || { echo "not installed as in the source: include/posenc/${h##*/}"; exit 1; }
done
grep -q '^License: Apache-2.0 OR MIT$' "$prefix"/lib*/pkgconfig/posenc.pc || { echo "posenc.pc: no License line"; exit 1; }
cmake -S "$src/tests/consumer" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/cmake-build" >/dev/null
"$work/cmake-build/consumer_cpp"
libdir=$(ls -d "$prefix"/lib*/pkgconfig | head -n1)
export PKG_CONFIG_PATH="$libdir"
cc -std=c99 -Wall -Wextra -Werror -pedantic "$src/tests/consumer/consumer.c" -o "$work/consumer_c" \
   $(pkg-config --cflags --libs posenc) -Wl,-rpath,"$(dirname "$libdir")"
"$work/consumer_c"
