#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# README command 1: install what is missing, build Release, run the main job.
# Usage: bash scripts/run-main.sh [posenc report arguments...]   (default: report --out report)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh --no-cross
cmake --preset release >/dev/null
cmake --build --preset release -j"$(nproc)" --target posenc_cli
./build/release/cli/posenc info
if ./build/release/cli/posenc report --help >/dev/null 2>&1; then
  if [ $# -eq 0 ]; then set -- --out report; fi
  ./build/release/cli/posenc report "$@"
fi
