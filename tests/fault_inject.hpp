// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/fault_inject.hpp — allocation-failure injection for the *_oom tests.
//
// tests/fault_inject.cpp replaces the global operator new (every form) and, outside sanitizer
// builds, malloc / calloc / realloc: libposenc.so resolves them to these definitions (ELF
// interposition), so every allocation the library makes — its own vectors, Eigen's and Spectra's
// buffers, TBB's thread-local scratch — passes through a counter. tests/CMakeLists.txt links
// fault_inject.cpp into every test binary whose name ends in _oom (and only those).
//
// sweep() first counts the allocations of one successful call, then fails each of them in turn
// (the i-th allocation returns NULL / throws std::bad_alloc) and checks the promise of posenc.h:
// the call returns OK or POSENC_ERR_OUT_OF_MEMORY; after OUT_OF_MEMORY every output still holds
// the bytes it had before the call; after OK (a failure the library absorbed) the outputs equal
// those of the unfailed call. One thread (the sweep sets it): the allocation order is then
// deterministic. Under AddressSanitizer only operator new is replaced (ASan owns malloc).
#pragma once

#include "posenc/posenc.h"

#include <functional>
#include <vector>

namespace posenc_fault {

/// Starts counting allocations; the fail_at-th one (1-based) fails; fail_at <= 0: none fails.
void arm(long fail_at);
/// Stops counting; returns the number of allocations counted since arm().
long disarm();
/// True when malloc / calloc / realloc are failed too (not under a sanitizer).
bool fails_malloc();

struct SweepResult {
  long sites = 0;           // allocations made by one successful call
  long oom = 0;             // failed allocations that made the call return OUT_OF_MEMORY
  long modified = 0;        // ... of which left an output modified (must stay 0)
  long first_modified = 0;  // the first such allocation (1-based)
  long bad_status = 0;      // statuses other than OK / OUT_OF_MEMORY (must stay 0)
  long ok_changed = 0;      // OK after a failed allocation, with outputs unlike the unfailed call's
};

using Bytes = std::vector<std::vector<unsigned char>>;

/// reset: puts the outputs (and in-place operands) into their pre-call state; call: the call;
/// snapshot: the bytes of every output. Reports failures with EXPECT_* and returns the counts
/// (printed as one "[ info ]" line naming `what`).
SweepResult sweep(const char* what, const std::function<void()>& reset, const std::function<posenc_status()>& call,
                  const std::function<Bytes()>& snapshot);

}  // namespace posenc_fault
