#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Installs posenc's build, test and cross-test dependencies from Debian packages (bookworm).
# Usage: sudo bash scripts/deps.sh [--no-cross]   (as root; skips what is already installed)
set -euo pipefail
cross=1
[ "${1:-}" = "--no-cross" ] && cross=0
export DEBIAN_FRONTEND=noninteractive
pkgs=(build-essential cmake pkg-config git
      libxsimd-dev libtbb-dev libgtest-dev libbenchmark-dev libeigen3-dev libspectra-dev
      libboost-dev libgsl-dev libsuitesparse-dev libcli11-dev nlohmann-json3-dev zlib1g-dev tzdata
      python3-numpy python3-scipy python3-matplotlib python3-networkx python3-pytest python3-distributed
      python3-torch python3-sympy python3-venv python3-pip python3-setuptools
      clang libclang-rt-dev)  # the fuzz (libFuzzer) and tsan (ThreadSanitizer) stages
cross_pkgs=(qemu-user g++-aarch64-linux-gnu
      libtbb-dev:arm64 libgtest-dev:arm64 libbenchmark-dev:arm64 libboost-dev:arm64
      libgsl27:arm64 libgslcblas0:arm64 libcholmod3:arm64 zlib1g:arm64)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ $cross = 1 ]; then
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    dpkg --add-architecture arm64
    missing+=(force-update)
  fi
  for p in "${cross_pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}" >&2
  # apt shows its own progress: a bar on a terminal, one line per step otherwise (CI logs).
  echo "deps: apt-get update" >&2
  apt-get update
  real=()
  for p in "${missing[@]}"; do [ "$p" = force-update ] || real+=("$p"); done
  # libgsl-dev and libsuitesparse-dev are not co-installable across architectures: the arm64
  # cross build links the arm64 runtimes libgsl.so.27 and libcholmod.so.3 (libcholmod3:arm64
  # brings AMD, COLAMD, METIS, BLAS and LAPACK) with the (identical) amd64 headers.
  if [ ${#real[@]} -gt 0 ]; then
    echo "deps: apt-get install (${#real[@]} packages)" >&2
    if [ -t 1 ]; then
      apt-get install -y --no-install-recommends -o Dpkg::Progress-Fancy=1 "${real[@]}"
    else
      apt-get install -y --no-install-recommends -o Dpkg::Use-Pty=0 "${real[@]}"
    fi
  fi
fi
echo "deps: ok" >&2
