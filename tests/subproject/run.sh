#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# usage: run.sh POSENC_SOURCE_DIR WORK_DIR BUILD_TYPE [COMPILER_LAUNCHER]
# Configures tests/subproject with posenc through FetchContent (configure only) and through
# add_subdirectory (built: libposenc.a with the scalar kernels, a program, a shared library), with
# GTest, Google Benchmark, nlohmann-json and CLI11 made unfindable. Checks that libposenc.a exposes
# only posenc_* with default visibility (C++ library templates aside) and that the shared library
# exports only its own function and posenc_*. The build folder is kept between runs (incremental).
set -euo pipefail
src=$1; work=$2; type=${3:-Release}; launcher=${4:-}
fail() { echo "subproject: FAIL: $*" >&2; exit 1; }
mkdir -p "$work"
# Fresh configuration each run (objects are kept: an unchanged library is not rebuilt).
rm -f "$work/fetchcontent/CMakeCache.txt" "$work/build/CMakeCache.txt"
args=(-DPOSENC_SOURCE_DIR="$src" -DCMAKE_BUILD_TYPE="$type" -DPOSENC_KERNEL_ISAS=scalar
      -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON
      -DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON)
if [ -n "$launcher" ]; then
  args+=(-DCMAKE_C_COMPILER_LAUNCHER="$launcher" -DCMAKE_CXX_COMPILER_LAUNCHER="$launcher")
fi
cmake -S "$src/tests/subproject" -B "$work/fetchcontent" -DPOSENC_VIA=FetchContent "${args[@]}" >"$work/fetchcontent.log" 2>&1 ||
  { cat "$work/fetchcontent.log"; fail "configure through FetchContent"; }
cmake -S "$src/tests/subproject" -B "$work/build" -DPOSENC_VIA=add_subdirectory "${args[@]}" >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; fail "configure through add_subdirectory"; }
cmake --build "$work/build" -j2 >"$work/build.log" 2>&1 || { tail -50 "$work/build.log"; fail "build"; }
"$work/build/app"
"$work/build/plugin_user"

archive=$(ls "$work"/build/posenc/libposenc.a) || fail "no libposenc.a"
# Symbols that may be visible besides posenc_*: weak / unique instances of templates and type
# information of the C++ standard library and Boost, which their headers declare visible (one
# definition across all modules, by design). Nothing of posenc's own code may be among them.
third_party='^(typeinfo for |typeinfo name for |vtable for |construction vtable for |(void|bool|char|int|long|unsigned|double|float)[a-z ]*[*&]* )?(std::|boost::|__gnu_cxx::)'
leaks=$(readelf -sW "$archive" | awk '$5 != "LOCAL" && $6 == "DEFAULT" && $7 != "UND" && $8 != "" {print $5, $8}' |
  grep -v ' posenc_' | sort -u |
  while read -r bind name; do
    demangled=$(printf '%s\n' "$name" | c++filt)
    if [ "$bind" = GLOBAL ] || ! printf '%s' "$demangled" | grep -Eq "$third_party"; then echo "$bind $demangled"; fi
  done)
[ -z "$leaks" ] || fail "libposenc.a has visible non-posenc symbols: $(echo "$leaks" | head -20)"
exports=$(nm -D --defined-only "$work/build/libplugin.so" | awk '{print $3}' |
  grep -Ev '^(posenc_|plugin_table$|_init$|_fini$|_edata$|_end$|__bss_start$)' | c++filt |
  grep -Ev "$third_party" || true)
[ -z "$exports" ] || fail "libplugin.so exports non-posenc symbols from libposenc.a: $(echo "$exports" | head -20)"
n=$(nm -D --defined-only "$work/build/libplugin.so" | grep -c ' posenc_')
[ "$n" -gt 0 ] || fail "libplugin.so exports no posenc_* function (the check above would be vacuous)"
echo "subproject: ok (add_subdirectory built and linked static; FetchContent configured; no test/tool deps needed)"
