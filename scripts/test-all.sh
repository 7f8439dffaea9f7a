#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# README command 2 (and what .ci/run calls): install what is missing, then build and run the
# whole test suite on every path this machine can run:
#   release  — all ISA paths the CPU can execute (auto), then again with POSENC_ISA=scalar,
#              including the Python binding's pytest suite and the examples; then
#              `posenc report --quick` (the main job, small sizes);
#   asan     — ASan + UBSan build of the suite;
#   aarch64  — cross build, NEON and scalar paths under qemu-aarch64;
#   bench    — every benchmark once in smoke mode (part of the release ctest run);
#   fuzz     — clang libFuzzer targets (tests/fuzz, one per family), each on its seed corpus and
#              then for POSENC_FUZZ_SECONDS (default 20) s; prints the inputs executed per target;
#   tsan     — clang ThreadSanitizer build of the library and the concurrency test.
# fuzz and tsan build scalar + the best ISA path of this machine only (POSENC_KERNEL_ISAS=host).
# Stages can be chosen: bash scripts/test-all.sh release asan aarch64 fuzz tsan
set -euo pipefail
cd "$(dirname "$0")/.."
stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(release asan aarch64)
bash scripts/deps.sh
jobs=$(nproc)
t0=$(date +%s)
for st in "${stages[@]}"; do
  s0=$(date +%s)
  echo "=== [$st] configure + build" >&2
  cmake --preset "$st" >/dev/null
  cmake --build --preset "$st" -j"$jobs"
  case $st in
    release)
      echo "=== [release] ctest (auto ISA: $(./build/release/cli/posenc info | grep 'ISA active'))" >&2
      ctest --preset release -j"$jobs"
      # Again with the dispatcher forced to scalar, for everything that runs on the active ISA
      # (C API, Python, CLI, examples). Not again: the kernel unit tests (label unit: each already
      # ran every path above, scalar included), the install/packaging and documentation checks
      # (labels install, docs: they do not depend on the ISA) and the benchmarks.
      echo "=== [release] ctest with POSENC_ISA=scalar" >&2
      POSENC_ISA=scalar ctest --preset release -j"$jobs" -LE 'bench|unit|install|docs'
      # The ctest runs above include the Python binding tests (label python: pytest against
      # SciPy/NumPy), the examples and cli_report_quick; here the main job once more, visibly.
      echo "=== [release] posenc report --quick" >&2
      ./build/release/cli/posenc report --quick --out build/release/report-quick
      ;;
    asan)
      echo "=== [asan] ctest" >&2
      ctest --preset asan -j"$jobs"
      ;;
    aarch64)
      echo "=== [aarch64] ctest under qemu-aarch64" >&2
      ctest --preset aarch64 -j"$jobs" -LE bench
      ;;
    fuzz)
      secs=${POSENC_FUZZ_SECONDS:-20}
      echo "=== [fuzz] seed corpora, then ${secs} s per target ($jobs at a time)" >&2
      ctest --preset fuzz -j"$jobs"
      rm -rf build/fuzz/run && mkdir -p build/fuzz/run
      # New inputs go to a scratch corpus (build/fuzz/run/<family>); the tree's seeds stay as they are.
      printf '%s\n' rope sphere features graph learned | xargs -P "$jobs" -I{} sh -c \
        'mkdir -p build/fuzz/run/{}; ./build/fuzz/tests/fuzz/posenc_fuzz_{} -max_total_time='"$secs"' -timeout=10 \
           -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=build/fuzz/run/{}- build/fuzz/run/{} \
           tests/fuzz/corpus/{} >build/fuzz/run/{}.log 2>&1; echo $? >build/fuzz/run/{}.rc'
      fuzz_failed=0
      for fam in rope sphere features graph learned; do
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "build/fuzz/run/$fam.log" | tail -1)
        rc=$(cat "build/fuzz/run/$fam.rc")
        echo "=== [fuzz] posenc_fuzz_$fam: ${runs:-?} inputs executed in ${secs} s, exit $rc" >&2
        if [ "$rc" != 0 ]; then
          fuzz_failed=1
          tail -n 60 "build/fuzz/run/$fam.log" >&2
          ls build/fuzz/run/"$fam"-* 2>/dev/null >&2 || true
        fi
      done
      # The seed replay above (ctest) always fails the stage. A NEW finding of the timed random
      # runs is printed with its reproducer but fails the stage only with POSENC_FUZZ_STRICT=1:
      # random exploration finds a different input each run, and an open finding (listed in
      # tests/fuzz/findings/README.md) must not turn every unrelated CI run red. Triage it: fix,
      # add a regression test, move the input into the corpus (then the replay guards it).
      if [ $fuzz_failed != 0 ]; then
        echo "=== [fuzz] NEW FINDING(S) above (reproducers in build/fuzz/run/)" >&2
        [ "${POSENC_FUZZ_STRICT:-0}" = 1 ] && exit 1
      fi
      ;;
    tsan)
      echo "=== [tsan] concurrency test under ThreadSanitizer" >&2
      ctest --preset tsan
      ;;
    *) cmake --build --preset "$st" >/dev/null; ctest --preset "$st" -j"$jobs" ;;
  esac
  echo "=== [$st] done in $(( $(date +%s) - s0 )) s" >&2
done
echo "=== all stages passed in $(( $(date +%s) - t0 )) s" >&2
