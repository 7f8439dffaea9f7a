#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# README command 2 (and what .ci/run calls): install what is missing, then build and run the
# whole test suite on every path this machine can run:
#   release  — all ISA paths the CPU can execute (auto), then again with POSENC_ISA=scalar,
#              including the Python binding's pytest suite and the examples; then
#              `posenc report --quick` (the main job, small sizes);
#   asan     — ASan + UBSan build of the suite;
#   aarch64  — cross build, NEON and scalar paths under qemu-aarch64;
#   bench    — every benchmark once in smoke mode (part of the release ctest run).
# Stages can be chosen: bash scripts/test-all.sh release asan aarch64
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
    *) cmake --build --preset "$st" >/dev/null; ctest --preset "$st" -j"$jobs" ;;
  esac
  echo "=== [$st] done in $(( $(date +%s) - s0 )) s" >&2
done
echo "=== all stages passed in $(( $(date +%s) - t0 )) s" >&2
