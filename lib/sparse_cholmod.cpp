// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/sparse_cholmod.cpp — CHOLMOD supernodal Cholesky (see lib/sparse_cholmod.hpp).
#include "lib/sparse_cholmod.hpp"

#include <cholmod.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <new>
#include <stdexcept>
#include <vector>

namespace posenc {
namespace graph_detail {
namespace {

/// OpenBLAS's thread count held at 1 while any posenc CHOLMOD call runs (a process-wide count,
/// restored when the last one leaves). Without OpenBLAS (reference BLAS) nothing to do.
class BlasSingleThread {
 public:
  BlasSingleThread() {
    const Api& a = api();
    if (a.set == nullptr) return;
    std::lock_guard<std::mutex> lk(mu());
    if (depth()++ == 0) {
      saved() = a.get();
      if (saved() != 1) a.set(1);
    }
  }
  ~BlasSingleThread() {
    const Api& a = api();
    if (a.set == nullptr) return;
    std::lock_guard<std::mutex> lk(mu());
    if (--depth() == 0 && saved() != 1) a.set(saved());
  }

 private:
  struct Api {
    void (*set)(int) = nullptr;
    int (*get)() = nullptr;
  };
  static const Api& api() {
    static const Api a = [] {
      Api r;
      // Loaded with libposenc as a dependency of libblas.so.3 when the BLAS alternative is OpenBLAS.
      void* h = dlopen("libopenblas.so.0", RTLD_LAZY | RTLD_NOLOAD);
      if (h == nullptr) return r;
      r.set = reinterpret_cast<void (*)(int)>(dlsym(h, "openblas_set_num_threads"));
      r.get = reinterpret_cast<int (*)()>(dlsym(h, "openblas_get_num_threads"));
      if (r.set == nullptr || r.get == nullptr) r = Api{};
      return r;
    }();
    return a;
  }
  static std::mutex& mu() {
    static std::mutex m;
    return m;
  }
  static int& depth() {
    static int d = 0;
    return d;
  }
  static int& saved() {
    static int s = 1;
    return s;
  }
};

}  // namespace

struct SupernodalCholesky::Impl {
  cholmod_common c;
  cholmod_sparse a;  // header over the caller's arrays
  cholmod_factor* f = nullptr;
  // Solve workspaces (the permuted right-hand side and CHOLMOD's E of size maxesize), allocated
  // here so that a failed allocation is a std::bad_alloc before any solve.
  mutable std::vector<double> w, e;
  int n = 0;
  Impl() {
    cholmod_start(&c);
    c.print = 0;                 // no messages on stderr
    c.nmethods = 1;              // AMD only: deterministic, and no METIS time
    c.method[0].ordering = CHOLMOD_AMD;
    c.postorder = 1;
    c.supernodal = CHOLMOD_SUPERNODAL;
    c.final_ll = 1;
    c.quick_return_if_not_posdef = 1;
    std::memset(&a, 0, sizeof a);
  }
  ~Impl() {
    cholmod_free_factor(&f, &c);
    cholmod_finish(&c);
  }
  void check_memory() const {
    if (c.status == CHOLMOD_OUT_OF_MEMORY) throw std::bad_alloc();
  }
};

SupernodalCholesky::SupernodalCholesky() : p_(new Impl) {}
SupernodalCholesky::~SupernodalCholesky() = default;

bool SupernodalCholesky::analyze(int n, const int* colptr, const int* rowidx, const double* val) {
  Impl& s = *p_;
  cholmod_free_factor(&s.f, &s.c);
  s.n = n;
  s.a.nrow = s.a.ncol = static_cast<size_t>(n);
  s.a.nzmax = static_cast<size_t>(colptr[n]);
  s.a.p = const_cast<int*>(colptr);
  s.a.i = const_cast<int*>(rowidx);
  s.a.x = const_cast<double*>(val);
  s.a.stype = -1;  // lower triangle
  s.a.itype = CHOLMOD_INT;
  s.a.xtype = CHOLMOD_REAL;
  s.a.dtype = CHOLMOD_DOUBLE;
  s.a.sorted = 1;
  s.a.packed = 1;
  s.f = cholmod_analyze(&s.a, &s.c);
  s.check_memory();
  return s.f != nullptr && s.c.status == CHOLMOD_OK;
}

double SupernodalCholesky::factor_nnz() const { return p_->c.lnz; }
double SupernodalCholesky::factor_flops() const { return p_->c.fl; }

bool SupernodalCholesky::factorize() {
  Impl& s = *p_;
  if (s.f == nullptr) return false;
  s.w.assign(static_cast<size_t>(s.n), 0.0);
  BlasSingleThread pin;
  const int ok = cholmod_factorize(&s.a, s.f, &s.c);
  s.check_memory();
  if (ok == 0 || s.c.status != CHOLMOD_OK || s.f->minor != s.f->n || !s.f->is_super) return false;
  s.e.assign(std::max<size_t>(1, s.f->maxesize), 0.0);
  return true;
}

void SupernodalCholesky::solve(const double* x, double* y) const {
  // P A P^T = L L^T: w = P x, L z = w, L^T u = z, y = P^T u (cholmod_super_lsolve / _ltsolve on
  // caller-held workspaces; cholmod_solve2 would allocate its own).
  Impl& s = *p_;
  const int* perm = static_cast<const int*>(s.f->Perm);
  for (int k = 0; k < s.n; ++k) s.w[static_cast<size_t>(k)] = x[perm[k]];
  cholmod_dense X, E;
  std::memset(&X, 0, sizeof X);
  X.nrow = X.nzmax = X.d = static_cast<size_t>(s.n);
  X.ncol = 1;
  X.x = s.w.data();
  X.xtype = CHOLMOD_REAL;
  X.dtype = CHOLMOD_DOUBLE;
  E = X;
  E.nrow = E.nzmax = E.d = s.e.size();
  E.x = s.e.data();
  BlasSingleThread pin;
  if (!cholmod_super_lsolve(s.f, &X, &E, &s.c) || !cholmod_super_ltsolve(s.f, &X, &E, &s.c))
    throw std::runtime_error("CHOLMOD supernodal solve failed");  // Spectra's caller: not converged
  for (int k = 0; k < s.n; ++k) y[perm[k]] = s.w[static_cast<size_t>(k)];
}

}  // namespace graph_detail
}  // namespace posenc
