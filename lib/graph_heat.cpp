// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/graph_heat.cpp — graph family: the heat kernel exp(-tL) applied to a block of vectors
// (Chebyshev expansion with a stated error bound).
#include "lib/graph_common.hpp"

#include <cmath>
#include <numeric>

using namespace posenc;
using namespace posenc::detail;

namespace posenc {
namespace graph_detail {

/// Chebyshev coefficients of exp(-z (1 + s)) on s in [-1, 1]: exp(-z (1 + s)) = sum_j eps_j a_j
/// (-1)^j T_j(s), a_j = e^-z I_j(z) (eps_0 = 1, eps_j = 2). Miller's backward recurrence
/// I_{j-1} = I_{j+1} + (2j / z) I_j from N = z + 12 sqrt(z) + 60, normalized by the identity
/// e^z = I_0(z) + 2 sum_{j>=1} I_j(z). Returns a_0..a_m with m the first index whose tail
/// 2 sum_{j>m} a_j <= tol; *tail receives that tail.
std::vector<double> heat_chebyshev(double z, double tol, double* tail) {
  // Below tol / 2 the series is the constant 1 within tol (|exp(-z(1+s)) - 1| <= 2z on [-1, 1]).
  // Such z occur with L = 0 (no edge but self-loops: the spectral bound is then 1e-300), where the
  // backward recurrence's factor 2j / z would overflow to inf and give NaN.
  if (z < 0.5 * tol) {
    *tail = 2.0 * z;
    return {1.0};
  }
  const int64_t N = static_cast<int64_t>(std::ceil(z + 12.0 * std::sqrt(z) + 60.0));
  std::vector<double> b(static_cast<size_t>(N) + 2, 0.0);
  b[static_cast<size_t>(N)] = 1e-300;
  for (int64_t j = N; j >= 1; --j) {
    b[static_cast<size_t>(j) - 1] = b[static_cast<size_t>(j) + 1] + (2.0 * static_cast<double>(j) / z) * b[static_cast<size_t>(j)];
    if (b[static_cast<size_t>(j) - 1] > 1e250)  // rescale everything computed so far
      for (int64_t i = j - 1; i <= N; ++i) b[static_cast<size_t>(i)] *= 1e-250;
  }
  double norm = b[0];
  for (int64_t j = 1; j <= N; ++j) norm += 2.0 * b[static_cast<size_t>(j)];
  for (double& x : b) x /= norm;
  // tails from the end: tail_m = 2 sum_{j>m} a_j
  int64_t m = N;
  double acc = 0.0;
  for (int64_t j = N; j >= 1; --j) {
    const double next = acc + 2.0 * b[static_cast<size_t>(j)];
    if (next > tol) break;
    acc = next;
    m = j - 1;
  }
  *tail = acc;
  b.resize(static_cast<size_t>(m) + 1);
  return b;
}


posenc_status check_heat_range(const Lap& L, double t_max, const char* t_name) {
  bool finite = std::isfinite(L.bound);
  for (double v : L.val) finite = finite && std::isfinite(v);
  if (!finite)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "weights: a weighted degree or Laplacian entry overflows float64 (scale the weights down)");
  const double z = 0.5 * t_max * L.bound;
  if (!(z <= kHeatMaxZ))
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "%s * lambda_max(L) / 2 must be <= %g (got %g with the spectral bound %g of L): the series "
                     "would need more than that many terms",
                     t_name, kHeatMaxZ, z, L.bound);
  return POSENC_OK;
}

/// y = exp(-tL) x for the block x [L.n, nv] (row-major; y may be x), Chebyshev series; *error_bound
/// receives the documented bound. Returns the number of terms m.
int64_t heat_apply(const Lap& L, double t, const double* x, int64_t nv, double* y, double* error_bound) {
  const int64_t n = L.n;
  const int64_t total = n * nv;
  const double c = L.bound;  // spectrum of L in [0, c]
  const double z = 0.5 * t * c;
  double tail = 0.0;
  const std::vector<double> a = heat_chebyshev(z, 1e-17, &tail);
  const int64_t m = static_cast<int64_t>(a.size()) - 1;
  // A = (2/c) L - I has its spectrum in [-1, 1]; exp(-tL) = sum_j eps_j a_j (-1)^j T_j(A).
  // Three blocks rotate: U = T_{j-1}(A) X, V = T_j(A) X, W = T_{j+1}(A) X = 2 A V - U.
  std::vector<double> res(x, x + total), U, V, W;
  for (double& r : res) r *= a[0];
  if (m >= 1) {
    U.assign(x, x + total);
    V.assign(static_cast<size_t>(total), 0.0);
    W.assign(static_cast<size_t>(total), 0.0);
    const double s2c = 2.0 / c;
    const int64_t grain = std::max<int64_t>(1, 4096 / nv);
    // T_1 X = A X, and res += 2 a_1 (-1) T_1 X; then T_{j+1} = 2 A T_j - T_{j-1}.
    for (int64_t j = 1; j <= m; ++j) {
      const double coef = (j % 2 == 0 ? 2.0 : -2.0) * a[static_cast<size_t>(j)];
      const bool first = j == 1;
      const double* Vp = first ? U.data() : V.data();  // T_{j-1} for the product
      const double* Up = U.data();
      double* Wp = W.data();
      double* Rp = res.data();
      parallel_tiles(tiles_of(n, grain), [&](int64_t tt) {
        const int64_t r0 = tt * grain, r1 = std::min(n, r0 + grain);
        std::vector<double> s(static_cast<size_t>(nv));
        for (int64_t i = r0; i < r1; ++i) {
          std::fill(s.begin(), s.end(), 0.0);
          for (int64_t p = L.ptr[static_cast<size_t>(i)]; p < L.ptr[static_cast<size_t>(i) + 1]; ++p) {
            const double w = L.val[static_cast<size_t>(p)];
            const double* row = Vp + static_cast<int64_t>(L.idx[static_cast<size_t>(p)]) * nv;
            for (int64_t b = 0; b < nv; ++b) s[static_cast<size_t>(b)] += w * row[b];
          }
          for (int64_t b = 0; b < nv; ++b) {
            const int64_t q = i * nv + b;
            const double av = s2c * s[static_cast<size_t>(b)] - Vp[q];  // (A T_{j-1}) X
            const double wv = first ? av : 2.0 * av - Up[q];
            Wp[q] = wv;
            Rp[q] += coef * wv;
          }
        }
      });
      // rotate: U <- T_{j-1}... for j = 1, U keeps T_0 = X and V becomes T_1.
      if (first) {
        std::swap(V, W);
      } else {
        std::swap(U, V);
        std::swap(V, W);
      }
    }
  }
  std::copy(res.begin(), res.end(), y);
  {
    int64_t r = 0;
    for (int64_t i = 0; i < n; ++i)
      r = std::max<int64_t>(r, L.ptr[static_cast<size_t>(i) + 1] - L.ptr[static_cast<size_t>(i)]);
    const double mm = static_cast<double>(m) + 1.0;
    *error_bound = tail + 4.0 * mm * mm * (static_cast<double>(r) + 1.0) * 0x1.0p-53;
  }
  return m;
}

}  // namespace graph_detail
}  // namespace posenc

using namespace posenc::graph_detail;

extern "C" POSENC_API posenc_status posenc_heat_kernel_apply_f64(int64_t num_nodes, const int64_t* src,
                                                                const int64_t* dst, const double* weights,
                                                                int64_t num_edges, posenc_laplacian laplacian,
                                                                double t, const double* x, int64_t num_vectors,
                                                                double* y, double* error_bound) {
  api_guard g("posenc_heat_kernel_apply_f64");
  POSENC_CHECK(check_graph(num_nodes, src, dst, weights, num_edges));
  const long long lap_raw = enum_bits(laplacian);
  if (lap_raw != POSENC_LAPLACIAN_SYM && lap_raw != POSENC_LAPLACIAN_COMBINATORIAL)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "laplacian must be POSENC_LAPLACIAN_SYM (0) or POSENC_LAPLACIAN_COMBINATORIAL (1) (got %lld)",
                     lap_raw);
  if (!(std::isfinite(t) && t >= 0.0))
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "t must be finite and >= 0 (got %g)", t);
  if (num_vectors <= 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "num_vectors must be > 0 (got %lld)",
                     static_cast<long long>(num_vectors));
  int64_t total = 0;
  POSENC_CHECK(checked_mul(num_nodes, num_vectors, &total, "x [num_nodes, num_vectors]", sizeof(double)));
  POSENC_CHECK(check_not_null(x, "x"));
  POSENC_CHECK(check_not_null(y, "y"));
  for (int64_t i = 0; i < total; ++i)
    if (!std::isfinite(x[i]))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "x[%lld] must be finite (got %g)", static_cast<long long>(i), x[i]);
  const posenc_laplacian kind = static_cast<posenc_laplacian>(lap_raw);
  return guarded([&]() -> posenc_status {
    const Graph gr = build_graph(num_nodes, src, dst, weights, num_edges);
    const int64_t n = num_nodes, nv = num_vectors;
    std::vector<int32_t> all(static_cast<size_t>(n));
    std::iota(all.begin(), all.end(), 0);
    const Lap L = component_laplacian(gr, all, all, kind);
    POSENC_CHECK(check_heat_range(L, t, "t"));
    double bound = 0.0;
    const int64_t m = heat_apply(L, t, x, nv, y, &bound);
    path("heat_kernel.chebyshev");
    work(8.0 * double(m) * (double(L.nnz()) * (1.5 + double(nv)) + 4.0 * double(total)),
         double(m) * (2.0 * double(L.nnz()) * double(nv) + 6.0 * double(total)));
    POSENC_SHAPE("nodes=%lld edges=%lld vectors=%lld terms=%lld", (long long)n, (long long)num_edges,
                 (long long)nv, (long long)m);
    if (error_bound != nullptr) *error_bound = bound;
    return POSENC_OK;
  });
}
