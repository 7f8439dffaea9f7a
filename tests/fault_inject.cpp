// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/fault_inject.cpp — the replaced allocation functions and the sweep (tests/fault_inject.hpp).
#include "tests/fault_inject.hpp"
#include "tests/test_common.hpp"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <new>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define POSENC_OOM_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(POSENC_OOM_SANITIZER)
#define POSENC_OOM_MALLOC 0
#else
#define POSENC_OOM_MALLOC 1
#endif

extern "C" void* __libc_malloc(size_t);
extern "C" void* __libc_calloc(size_t, size_t);
extern "C" void* __libc_realloc(void*, size_t);
extern "C" void* __libc_memalign(size_t, size_t);
extern "C" void __libc_free(void*);

namespace {

std::atomic<bool> g_armed{false};
std::atomic<long> g_count{0};
std::atomic<long> g_fail_at{-1};

/// True when this allocation is the one to fail (counts every allocation while armed).
bool fail_now() {
  if (!g_armed.load(std::memory_order_relaxed)) return false;
  const long c = g_count.fetch_add(1) + 1;
  return c == g_fail_at.load();
}

void* raw_alloc(size_t n, size_t align) {
  if (n == 0) n = 1;
#if POSENC_OOM_MALLOC
  return align <= alignof(std::max_align_t) ? __libc_malloc(n) : __libc_memalign(align, n);
#else
  void* p = nullptr;
  if (align <= alignof(std::max_align_t)) return std::malloc(n);
  return posix_memalign(&p, align, n) == 0 ? p : nullptr;
#endif
}
void raw_free(void* p) {
#if POSENC_OOM_MALLOC
  __libc_free(p);
#else
  std::free(p);
#endif
}

void* new_impl(size_t n, size_t align) {
  if (fail_now()) throw std::bad_alloc();
  void* p = raw_alloc(n, align);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void* new_nothrow(size_t n, size_t align) noexcept {
  if (fail_now()) return nullptr;
  return raw_alloc(n, align);
}

}  // namespace

void* operator new(size_t n) { return new_impl(n, 0); }
void* operator new[](size_t n) { return new_impl(n, 0); }
void* operator new(size_t n, std::align_val_t a) { return new_impl(n, static_cast<size_t>(a)); }
void* operator new[](size_t n, std::align_val_t a) { return new_impl(n, static_cast<size_t>(a)); }
void* operator new(size_t n, const std::nothrow_t&) noexcept { return new_nothrow(n, 0); }
void* operator new[](size_t n, const std::nothrow_t&) noexcept { return new_nothrow(n, 0); }
void* operator new(size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return new_nothrow(n, static_cast<size_t>(a));
}
void* operator new[](size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return new_nothrow(n, static_cast<size_t>(a));
}
void operator delete(void* p) noexcept { raw_free(p); }
void operator delete[](void* p) noexcept { raw_free(p); }
void operator delete(void* p, size_t) noexcept { raw_free(p); }
void operator delete[](void* p, size_t) noexcept { raw_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { raw_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { raw_free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { raw_free(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { raw_free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { raw_free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { raw_free(p); }

#if POSENC_OOM_MALLOC
// A failed malloc sets errno to ENOMEM, as glibc's does (fopen reports it that way).
extern "C" void* malloc(size_t n) { return fail_now() ? (errno = ENOMEM, nullptr) : __libc_malloc(n); }
extern "C" void* calloc(size_t a, size_t b) { return fail_now() ? (errno = ENOMEM, nullptr) : __libc_calloc(a, b); }
extern "C" void* realloc(void* p, size_t n) { return fail_now() ? (errno = ENOMEM, nullptr) : __libc_realloc(p, n); }
#endif

namespace posenc_fault {

void arm(long fail_at) {
  g_count = 0;
  g_fail_at = fail_at;
  g_armed = true;
}
long disarm() {
  g_armed = false;
  return g_count.load();
}
bool fails_malloc() { return POSENC_OOM_MALLOC != 0; }

SweepResult sweep(const char* what, const std::function<void()>& reset, const std::function<posenc_status()>& call,
                  const std::function<Bytes()>& snapshot) {
  SweepResult r;
  posenc_test::ThreadScope ts(1);
  reset();
  const Bytes before = snapshot();
  arm(0);
  const posenc_status s0 = call();
  r.sites = disarm();
  EXPECT_EQ(s0, POSENC_OK) << what << ": " << posenc_last_error_message();
  const Bytes ref = snapshot();
  for (long i = 1; i <= r.sites; ++i) {
    reset();
    arm(i);
    const posenc_status s = call();
    disarm();
    if (s == POSENC_OK) {
      if (snapshot() != ref) ++r.ok_changed;
      EXPECT_TRUE(snapshot() == ref) << what << ": allocation " << i << " failed, OK returned, outputs differ";
    } else if (s == POSENC_ERR_OUT_OF_MEMORY) {
      ++r.oom;
      if (snapshot() != before) {
        ++r.modified;
        if (r.first_modified == 0) r.first_modified = i;
      }
    } else {
      ++r.bad_status;
      ADD_FAILURE() << what << ": allocation " << i << " failed: " << posenc_status_string(s) << " "
                    << posenc_last_error_message();
    }
  }
  EXPECT_EQ(r.modified, 0) << what << ": outputs modified after OUT_OF_MEMORY, first at allocation "
                           << r.first_modified;
  std::printf("[ info     ] %s: %ld allocation sites, %ld gave OUT_OF_MEMORY, %ld left an output modified\n", what,
              r.sites, r.oom, r.modified);
  return r;
}

}  // namespace posenc_fault
