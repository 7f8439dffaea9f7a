// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/graph_dense.cpp — the flop loops of LapPE's small dense eigensolver (Householder
// tridiagonalization, the lockstep inverse iteration's LU factorizations and solves, Gram-Schmidt,
// the back-transform, Rayleigh quotients and residuals) and of the dense all-sources RWSE, at this
// TU's vector width (compiled once per ISA, like every kernel):
// posenc::POSENC_NS::graph_dense_kernels(). The contract (layout, padding, bitwise the same result
// on every path) is in kernels/graph_dense_table.hpp; the solvers around them are
// lib/graph_small_dense.cpp and lib/graph_rwse.cpp.
#include <cmath>
#include <cstring>

#include "kernels/graph_dense_table.hpp"
#include "kernels/simd.hpp"

namespace posenc {
namespace POSENC_NS {

namespace {

#if defined(POSENC_ISA_SCALAR)
// The scalar path is compiled with baseline flags, whose 16-byte vectors (SSE2, Advanced SIMD) the
// compiler used for these loops before they were kernels: two lanes of a GCC vector, element-wise
// IEEE arithmetic like the one-lane sbatch (the same bits), so that this path is not slower than
// that code was.
struct V {
  typedef double raw __attribute__((vector_size(16)));
  typedef long long mask __attribute__((vector_size(16)));
  raw v;
  V() = default;
  V(double x) : v(raw{x, x}) {}
  explicit V(raw x) : v(x) {}
  friend V operator+(V a, V b) { return V(a.v + b.v); }
  friend V operator-(V a, V b) { return V(a.v - b.v); }
  friend V operator*(V a, V b) { return V(a.v * b.v); }
  friend V operator/(V a, V b) { return V(a.v / b.v); }
  friend V operator-(V a) { return V(-a.v); }
  friend mask operator==(V a, V b) { return a.v == b.v; }
  friend mask operator!=(V a, V b) { return a.v != b.v; }
  friend mask operator>=(V a, V b) { return a.v >= b.v; }
};
inline V select(V::mask m, V a, V b) { return V(m ? a.v : b.v); }
inline V abs(V a) {  // clears the sign bit, as std::fabs
  const V::mask bits = (V::mask)a.v & V::mask{0x7fffffffffffffffLL, 0x7fffffffffffffffLL};  // bit casts
  return V((V::raw)bits);
}
constexpr int64_t W = 2;
inline V ld_(const double* p) {
  V::raw r;
  std::memcpy(&r, p, sizeof r);
  return V(r);
}
inline void st_(double* p, const V& v) { std::memcpy(p, &v.v, sizeof v.v); }
#else
using V = vec<double>;
constexpr int64_t W = static_cast<int64_t>(width<double>);
inline V ld_(const double* p) { return load(p); }
inline void st_(double* p, const V& v) { store_u(p, v); }
#endif
static_assert(W <= kDensePad, "kDensePad must cover the widest vector");

/// sum_i x_i^2 with four partial sums over i mod 4, combined as (a0 + a1) + (a2 + a3).
double sum_sq(const double* x, int64_t n) {
  double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    a0 += x[i] * x[i];
    a1 += x[i + 1] * x[i + 1];
    a2 += x[i + 2] * x[i + 2];
    a3 += x[i + 3] * x[i + 3];
  }
  for (; i < n; ++i) a0 += x[i] * x[i];
  return (a0 + a1) + (a2 + a3);
}

/// p[r0 .. r0 + NB W) = t * sum over c ascending of B[c][r] v[c] (B: rows of stride ld from b0).
template <int NB>
inline void bv_block(const double* b0, int64_t ld, const double* v, int64_t m, int64_t r0, double t, double* p) {
  V acc[NB];
  for (int b = 0; b < NB; ++b) acc[b] = V(0.0);
  for (int64_t c = 0; c < m; ++c) {
    const double* row = b0 + c * ld + r0;
    const V vc(v[c]);
    for (int b = 0; b < NB; ++b) acc[b] = acc[b] + ld_(row + b * W) * vc;
  }
  const V tv(t);
  for (int b = 0; b < NB; ++b) st_(p + r0 + b * W, acc[b] * tv);
}

void householder(int64_t n, int64_t ld, double* A, double* Vr, double* tau, double* d, double* e, double* p,
                 double* w) {
  for (int64_t j = 0; j + 1 < n; ++j) {
    const int64_t m = n - j - 1, o = j + 1;  // trailing block: rows / columns o .. n-1
    double* v = Vr + j * ld;
    const double alpha = A[o * ld + j];
    double sigma = 0.0;
    for (int64_t i = 1; i < m; ++i) sigma += A[(o + i) * ld + j] * A[(o + i) * ld + j];
    d[j] = A[j * ld + j];
    if (!(sigma > 0.0)) {  // nothing below the subdiagonal (or NaN: the residual check rejects it)
      tau[j] = 0.0;
      e[j] = alpha;
      continue;
    }
    const double beta = -std::copysign(std::sqrt(alpha * alpha + sigma), alpha);
    const double t = (beta - alpha) / beta, scale = 1.0 / (alpha - beta);
    tau[j] = t;
    e[j] = beta;
    v[o] = 1.0;
    for (int64_t i = 1; i < m; ++i) v[o + i] = A[(o + i) * ld + j] * scale;
    // B = trailing block: p = t B v (a sum of B's rows: B is symmetric), w = p - (t/2)(p.v) v,
    // B -= v w^T + w v^T. Vectors over the columns; the padding columns stay zero.
    const double* b0 = A + o * ld + o;
    const double* vv = v + o;
    int64_t r0 = 0;
    for (; r0 + 4 * W <= m; r0 += 4 * W) bv_block<4>(b0, ld, vv, m, r0, t, p);
    switch ((m - r0 + W - 1) / W) {  // 0 .. 4 vectors left, the last one partial (padding)
      case 4: bv_block<4>(b0, ld, vv, m, r0, t, p); break;
      case 3: bv_block<3>(b0, ld, vv, m, r0, t, p); break;
      case 2: bv_block<2>(b0, ld, vv, m, r0, t, p); break;
      case 1: bv_block<1>(b0, ld, vv, m, r0, t, p); break;
      default: break;
    }
    double pv = 0.0;
    for (int64_t r = 0; r < m; ++r) pv += p[r] * vv[r];
    const double K = -0.5 * t * pv;
    const V Kv(K);
    for (int64_t r = 0; r < m; r += W) st_(w + r, ld_(p + r) + Kv * ld_(vv + r));
    for (int64_t r = 0; r < m; ++r) {
      double* row = A + (o + r) * ld + o;
      const V vr(vv[r]), wr(w[r]);
      for (int64_t c = 0; c < m; c += W) st_(row + c, ld_(row + c) - (vr * ld_(w + c) + wr * ld_(vv + c)));
    }
  }
  d[n - 1] = A[(n - 1) * ld + (n - 1)];
}

void tridiag_factor(int64_t n, const double* d, const double* e, const double* lambda, int64_t ldk, double tiny,
                    double* u0, double* u1, double* u2, double* mu, double* pv, double* cdv, double* csv) {
  const V e0(n > 1 ? e[0] : 0.0), d0(d[0]);
  for (int64_t j = 0; j < ldk; j += W) {
    st_(cdv + j, d0 - ld_(lambda + j));
    st_(csv + j, e0);
  }
  const V one(1.0), zero(0.0), tinyv(tiny);
  for (int64_t i = 0; i + 1 < n; ++i) {
    const V sub(e[i]), sup(i + 2 < n ? e[i + 1] : 0.0), dn(d[i + 1]);
    const V rsub = one / sub;  // used only where |cd| < |sub|, so sub != 0 there
    for (int64_t j = 0; j < ldk; j += W) {
      const int64_t q = i * ldk + j;
      const V dg = dn - ld_(lambda + j);
      const V cd = ld_(cdv + j), cs = ld_(csv + j);
      const auto keep = abs(cd) >= abs(sub);  // no row swap
      const V cdz = select(cd == zero, tinyv, cd);
      const V m1 = sub / cdz, m2 = cd / sub;
      st_(u0 + q, select(keep, one / cdz, rsub));
      st_(u1 + q, select(keep, cs, dg));
      st_(u2 + q, select(keep, zero, sup));
      st_(cdv + j, select(keep, dg - m1 * cs, cs - m2 * dg));
      st_(csv + j, select(keep, sup, (-m2) * sup));
      st_(mu + q, select(keep, m1, m2));
      st_(pv + q, select(keep, zero, one));
    }
  }
  for (int64_t j = 0; j < ldk; j += W) {
    const V cd = ld_(cdv + j);
    st_(u0 + (n - 1) * ldk + j, one / select(cd == zero, tinyv, cd));
  }
}

void tridiag_solve(int64_t n, int64_t ldk, const double* U0, const double* U1, const double* U2, const double* M,
                   const double* P, double* Z) {
  const V zero(0.0);
  for (int64_t i = 0; i + 1 < n; ++i) {
    double* z0 = Z + i * ldk;
    double* z1 = z0 + ldk;
    const double* mu = M + i * ldk;
    const double* pv = P + i * ldk;
    for (int64_t j = 0; j < ldk; j += W) {
      const auto sw = ld_(pv + j) != zero;
      const V a = ld_(z0 + j), b = ld_(z1 + j);
      const V x = select(sw, b, a), y = select(sw, a, b);
      st_(z0 + j, x);
      st_(z1 + j, y - ld_(mu + j) * x);
    }
  }
  {
    double* z = Z + (n - 1) * ldk;
    const double* u0 = U0 + (n - 1) * ldk;
    for (int64_t j = 0; j < ldk; j += W) st_(z + j, ld_(z + j) * ld_(u0 + j));
  }
  if (n > 1) {
    double* z = Z + (n - 2) * ldk;
    const double* z1 = z + ldk;
    const double* u0 = U0 + (n - 2) * ldk;
    const double* u1 = U1 + (n - 2) * ldk;
    for (int64_t j = 0; j < ldk; j += W) st_(z + j, (ld_(z + j) - ld_(u1 + j) * ld_(z1 + j)) * ld_(u0 + j));
  }
  for (int64_t i = n - 3; i >= 0; --i) {
    double* z = Z + i * ldk;
    const double* z1 = z + ldk;
    const double* z2 = z + 2 * ldk;
    const double* u0 = U0 + i * ldk;
    const double* u1 = U1 + i * ldk;
    const double* u2 = U2 + i * ldk;
    for (int64_t j = 0; j < ldk; j += W)
      st_(z + j, (ld_(z + j) - ld_(u1 + j) * ld_(z1 + j) - ld_(u2 + j) * ld_(z2 + j)) * ld_(u0 + j));
  }
}

int orthonormalize(int64_t n, int64_t nev, int64_t ldk, int passes, double* Z, double* dots, double* Zt) {
  // Zt [nev][ldn]: the columns of Z, contiguous, so that the update of column j runs vectors over
  // the rows (its sums stay serial over q for each row); column j is written back to Z after each
  // change, because the dot products read Z's rows.
  const int64_t ldn = (n + kDensePad - 1) / kDensePad * kDensePad;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < nev; ++j) Zt[j * ldn + i] = Z[i * ldk + j];
  for (int64_t j = 0; j < nev; ++j) {
    double* zj = Zt + j * ldn;
    for (int pass = 0; pass < passes && j > 0; ++pass) {
      // dots[q] = sum over i ascending of Z[i][q] Z[i][j], q < j (lanes q >= j unused).
      for (int64_t q0 = 0; q0 < j; q0 += W) {
        V a(0.0);
        for (int64_t i = 0; i < n; ++i) a = a + ld_(Z + i * ldk + q0) * V(zj[i]);
        st_(dots + q0, a);
      }
      // Row i: Z[i][j] - dots[0] Z[i][0] - dots[1] Z[i][1] - ..., in that order.
      for (int64_t i = 0; i < n; i += W) {
        V y = ld_(zj + i);
        for (int64_t q = 0; q < j; ++q) y = y - V(dots[q]) * ld_(Zt + q * ldn + i);
        st_(zj + i, y);
      }
      for (int64_t i = 0; i < n; ++i) Z[i * ldk + j] = zj[i];
    }
    const double nrm = std::sqrt(sum_sq(zj, n));
    if (!(nrm > 0.0) || !std::isfinite(nrm)) return 0;
    const double inv = 1.0 / nrm;
    const V iv(inv);
    for (int64_t i = 0; i < n; i += W) st_(zj + i, ld_(zj + i) * iv);
    for (int64_t i = 0; i < n; ++i) Z[i * ldk + j] = zj[i];
  }
  return 1;
}

void back_transform(int64_t n, int64_t ld, int64_t ldk, const double* Vr, const double* tau, double* Z) {
  for (int64_t j = n - 2; j >= 0; --j) {
    const double t = tau[j];
    if (t == 0.0) continue;
    const double* v = Vr + j * ld;
    const V tv(t);
    for (int64_t c = 0; c < ldk; c += W) {
      V a(0.0);
      for (int64_t i = j + 1; i < n; ++i) a = a + V(v[i]) * ld_(Z + i * ldk + c);
      const V dc = a * tv;
      for (int64_t i = j + 1; i < n; ++i) st_(Z + i * ldk + c, ld_(Z + i * ldk + c) - dc * V(v[i]));
    }
  }
}

void rayleigh(int64_t n, int64_t ldk, const int64_t* ptr, const int32_t* idx, const double* val, const double* Z,
              double* R, double* lam, double* res2) {
  for (int64_t i = 0; i < n; ++i) {
    double* ri = R + i * ldk;
    for (int64_t c = 0; c < ldk; c += W) {
      V a(0.0);
      for (int64_t p = ptr[i]; p < ptr[i + 1]; ++p) a = a + V(val[p]) * ld_(Z + static_cast<int64_t>(idx[p]) * ldk + c);
      st_(ri + c, a);
    }
  }
  for (int64_t c = 0; c < ldk; c += W) {
    V a(0.0);
    for (int64_t i = 0; i < n; ++i) a = a + ld_(Z + i * ldk + c) * ld_(R + i * ldk + c);
    st_(lam + c, a);
    V a0(0.0), a1(0.0), a2(0.0), a3(0.0);
    auto res = [&](int64_t i) POSENC_HOT_LAMBDA {
      const V r = ld_(R + i * ldk + c) - a * ld_(Z + i * ldk + c);
      st_(R + i * ldk + c, r);
      return r * r;
    };
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
      a0 = a0 + res(i);
      a1 = a1 + res(i + 1);
      a2 = a2 + res(i + 2);
      a3 = a3 + res(i + 3);
    }
    for (; i < n; ++i) a0 = a0 + res(i);
    st_(res2 + c, (a0 + a1) + (a2 + a3));
  }
}

/// One row of r_s (8 lanes from c on): y = sum over the CSR row of x[idx] a, in CSR order.
constexpr int64_t kRwLanes = 8;
constexpr int kRwVecs = static_cast<int>(kRwLanes / W);
static_assert(kRwLanes % W == 0, "8 RWSE lanes must be whole vectors");

/// rwse_dense for ldw = 8 NB lanes: each row's NB blocks of 8 lanes in registers at once (one
/// pass over the CSR row, one over the rows for the sums); every lane's sums in the order of the
/// one-block loop.
template <int NB>
void rwse_dense_nb(int64_t n, int32_t steps, const int64_t* ptr, const int32_t* idx, const double* val,
                   const double* invdeg, const double* deg, double* buf, double* out) {
  constexpr int64_t ldw = NB * kRwLanes;
  constexpr int NV = NB * kRwVecs;  // vectors per row
  double* cur = buf;            // r_s: row u holds (P^s)_{v, u} in lane v
  double* xs = cur + n * ldw;   // r_{s-1} with row u scaled by 1 / d_u
  double* xn = xs + n * ldw;    // r_s with row u scaled by 1 / d_u
  const int32_t H = (steps + 1) / 2;
  for (int32_t s = 1; s <= H; ++s) {
    for (int64_t w = 0; w < n; ++w) {
      V r[NV];
      for (int b = 0; b < NV; ++b) r[b] = V(0.0);
      for (int64_t p = ptr[w]; p < ptr[w + 1]; ++p) {
        const double* x = xs + static_cast<int64_t>(idx[p]) * ldw;
        const V a(val[p]);
        for (int b = 0; b < NV; ++b) r[b] = r[b] + ld_(x + b * W) * a;
      }
      double* y = cur + w * ldw;
      for (int b = 0; b < NV; ++b) st_(y + b * W, r[b]);
    }
    V a1[NV], a2[NV];
    for (int b = 0; b < NV; ++b) a1[b] = a2[b] = V(0.0);
    for (int64_t u = 0; u < n; ++u) {
      const V id(invdeg[u]);
      const double* pc = cur + u * ldw;
      const double* pp = xs + u * ldw;
      double* pn = xn + u * ldw;
      for (int b = 0; b < NV; ++b) {
        const V x = ld_(pc + b * W), xd = x * id;
        a1[b] = a1[b] + x * ld_(pp + b * W);
        a2[b] = a2[b] + x * xd;
        st_(pn + b * W, xd);
      }
    }
    alignas(64) double s1[ldw], s2[ldw];
    for (int b = 0; b < NV; ++b) {
      st_(s1 + b * W, a1[b]);
      st_(s2 + b * W, a2[b]);
    }
    for (int64_t v = 0; v < n; ++v) {
      const double d = deg[v];
      if (!(d > 0.0)) continue;
      out[v * steps + 2 * s - 2] = d * s1[v];
      if (2 * s <= steps) out[v * steps + 2 * s - 1] = d * s2[v];
    }
    double* t = xs;
    xs = xn;
    xn = t;
  }
}

void rwse_dense(int64_t n, int64_t ldw, int32_t steps, const int64_t* ptr, const int32_t* idx, const double* val,
                const double* invdeg, const double* deg, double* buf, double* out) {
  switch (ldw / kRwLanes) {
    case 1: rwse_dense_nb<1>(n, steps, ptr, idx, val, invdeg, deg, buf, out); break;
    case 2: rwse_dense_nb<2>(n, steps, ptr, idx, val, invdeg, deg, buf, out); break;
    case 3: rwse_dense_nb<3>(n, steps, ptr, idx, val, invdeg, deg, buf, out); break;
    case 4: rwse_dense_nb<4>(n, steps, ptr, idx, val, invdeg, deg, buf, out); break;
    case 5: rwse_dense_nb<5>(n, steps, ptr, idx, val, invdeg, deg, buf, out); break;
    case 6: rwse_dense_nb<6>(n, steps, ptr, idx, val, invdeg, deg, buf, out); break;
    case 7: rwse_dense_nb<7>(n, steps, ptr, idx, val, invdeg, deg, buf, out); break;
    case 8: rwse_dense_nb<8>(n, steps, ptr, idx, val, invdeg, deg, buf, out); break;
    default: break;  // lib/ calls it for n <= kDenseRwseMax = 64 only
  }
}

}  // namespace

constexpr graph_dense_kernels_t make_graph_dense_kernels() {
  graph_dense_kernels_t t{};
  t.householder = &householder;
  t.tridiag_factor = &tridiag_factor;
  t.tridiag_solve = &tridiag_solve;
  t.orthonormalize = &orthonormalize;
  t.back_transform = &back_transform;
  t.rayleigh = &rayleigh;
  t.rwse_dense = &rwse_dense;
  return t;
}

const graph_dense_kernels_t* graph_dense_kernels() {
  static constexpr graph_dense_kernels_t table = make_graph_dense_kernels();
  return &table;
}

}  // namespace POSENC_NS
}  // namespace posenc
