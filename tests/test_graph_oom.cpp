// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/test_graph_oom.cpp — graph family under allocation failure.
//
// This binary replaces the global operator new (every form) and, outside sanitizer builds,
// malloc / calloc / realloc: libposenc.so resolves them to these definitions (ELF interposition),
// so every allocation the library makes — its own vectors, Eigen's and Spectra's buffers, TBB's
// thread-local scratch — passes through a counter. For each graph function the sweep first counts
// the allocations of one call, then fails each of them in turn (the i-th allocation returns NULL /
// throws std::bad_alloc) and checks the promise of posenc.h: the call returns OK or
// POSENC_ERR_OUT_OF_MEMORY, and after OUT_OF_MEMORY every output still holds its poison pattern.
// One thread: the allocation order is then deterministic.
//
// Under AddressSanitizer only operator new is replaced (ASan owns malloc); Eigen's malloc calls
// are then not failed, every operator-new site still is.
#include "tests/test_common.hpp"
#include "tests/graph_gen.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <new>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
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
extern "C" void* malloc(size_t n) { return fail_now() ? nullptr : __libc_malloc(n); }
extern "C" void* calloc(size_t a, size_t b) { return fail_now() ? nullptr : __libc_calloc(a, b); }
extern "C" void* realloc(void* p, size_t n) { return fail_now() ? nullptr : __libc_realloc(p, n); }
#endif

namespace {

using namespace posenc_test;
using posenc_graph_gen::EdgeList;

struct SweepResult {
  long sites = 0;        // allocations made by one successful call
  long oom = 0;          // failed allocations that made the call return OUT_OF_MEMORY
  long modified = 0;     // ... of which left an output modified (must stay 0)
  long first_modified = 0;
};

/// Fails every allocation of `call` in turn; `outs` are the output buffers (poisoned before each
/// call). Byte-sized outputs (int64 / int32 arrays) are compared with a saved poisoned copy.
SweepResult sweep(const std::function<posenc_status()>& call, const std::vector<std::vector<double>*>& outs,
                  const std::vector<std::vector<int64_t>*>& iouts = {}) {
  SweepResult r;
  ThreadScope ts(1);
  auto poison_all = [&] {
    for (auto* o : outs) poison(*o);
    for (auto* o : iouts)
      for (auto& x : *o) x = INT64_C(0x5a5a5a5a5a5a5a5a);
  };
  auto intact = [&] {
    for (auto* o : outs)
      if (count_poison(*o) != o->size()) return false;
    for (auto* o : iouts)
      for (auto x : *o)
        if (x != INT64_C(0x5a5a5a5a5a5a5a5a)) return false;
    return true;
  };
  poison_all();
  g_count = 0;
  g_fail_at = -1;
  g_armed = true;
  const posenc_status s0 = call();
  g_armed = false;
  EXPECT_EQ(s0, POSENC_OK) << posenc_last_error_message();
  r.sites = g_count.load();
  std::vector<std::vector<double>> ref;
  for (auto* o : outs) ref.push_back(*o);
  for (long i = 1; i <= r.sites; ++i) {
    poison_all();
    g_count = 0;
    g_fail_at = i;
    g_armed = true;
    const posenc_status s = call();
    g_armed = false;
    EXPECT_TRUE(s == POSENC_OK || s == POSENC_ERR_OUT_OF_MEMORY)
        << "allocation " << i << ": " << posenc_status_string(s) << " " << posenc_last_error_message();
    if (s == POSENC_OK) {  // a failure the library absorbed must not change the result
      for (size_t j = 0; j < outs.size(); ++j) EXPECT_TRUE(same_bits(*outs[j], ref[j])) << "allocation " << i;
    }
    if (s == POSENC_ERR_OUT_OF_MEMORY) {
      ++r.oom;
      if (!intact()) {
        ++r.modified;
        if (r.first_modified == 0) r.first_modified = i;
      }
    }
  }
  std::printf("[ info     ] %ld allocation sites, %ld gave OUT_OF_MEMORY, %ld left an output modified\n", r.sites,
              r.oom, r.modified);
  return r;
}

EdgeList small_graph() {
  // Two components (a 5x6 grid and a 9-cycle) and an isolated node.
  EdgeList g = posenc_graph_gen::grid(5, 6);
  const int64_t base = g.n;
  for (int i = 0; i < 9; ++i) {
    g.src.push_back(base + i);
    g.dst.push_back(base + (i + 1) % 9);
  }
  g.n = base + 10;
  return g;
}

TEST(GraphOom, RwseKeepsOutputsOnFailure) {
  const EdgeList g = small_graph();
  const int32_t steps = 9;
  std::vector<double> out(static_cast<size_t>(g.n * steps));
  const SweepResult r = sweep(
      [&] { return posenc_rwse_f64(g.n, g.src.data(), g.dst.data(), nullptr, g.m(), steps, out.data()); }, {&out});
  EXPECT_GT(r.sites, 5);
  EXPECT_GT(r.oom, 0);
  EXPECT_EQ(r.modified, 0) << "first at allocation " << r.first_modified;
}

TEST(GraphOom, LaplacianPeKeepsOutputsOnFailure) {
  // The dense path on small components, then every sparse solver forced on a 12 x 12 grid.
  const EdgeList small = small_graph(), grid = posenc_graph_gen::grid(12, 12);
  struct Case {
    const EdgeList* g;
    posenc_lappe_method solver;
  };
  for (const Case& c : {Case{&small, POSENC_LAPPE_AUTO}, Case{&grid, POSENC_LAPPE_LANCZOS},
                        Case{&grid, POSENC_LAPPE_SHIFT_INVERT}}) {
    SCOPED_TRACE(testing::Message() << "solver " << c.solver);
    const EdgeList& g = *c.g;
    const int32_t k = 5;
    std::vector<double> val(k), vec(static_cast<size_t>(g.n * k));
    posenc_laplacian_pe_info info;
    const SweepResult r = sweep(
        [&] {
          posenc_laplacian_pe_info_init(&info);
          info.solver = c.solver;
          return posenc_laplacian_pe_ex_f64(g.n, g.src.data(), g.dst.data(), nullptr, g.m(), POSENC_LAPLACIAN_SYM, k,
                                            val.data(), vec.data(), &info);
        },
        {&val, &vec});
    EXPECT_GT(r.oom, 0);
    EXPECT_EQ(r.modified, 0) << "first at allocation " << r.first_modified;
  }
}

}  // namespace
