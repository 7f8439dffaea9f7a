# SPDX-License-Identifier: Apache-2.0 OR MIT
# Cross-compile for aarch64 with Debian's g++-aarch64-linux-gnu and run binaries (tests,
# benchmarks) through qemu-aarch64. arm64 libraries come from Debian multiarch
# (libtbb-dev:arm64, libgtest-dev:arm64, libbenchmark-dev:arm64, libgsl27:arm64, libcholmod3:arm64).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# No -L sysroot: the cross libc in /usr/aarch64-linux-gnu (libc6-arm64-cross) can differ from
# the multiarch libc6:arm64 that TBB/GTest link against, and mixing them hangs std::thread.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
# Headers are shared between architectures; libraries and CMake packages come from the
# aarch64 multiarch directories.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /usr)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(CMAKE_PREFIX_PATH /usr/lib/aarch64-linux-gnu/cmake)
