// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere/legendre.hpp — the Legendre-type recurrences of the sphere family: associated
// Legendre functions of GSL's four normalizations with the extended exponent range (core, also
// the extended-range path of the real SH), Legendre polynomials (Bonnet) and the Clenshaw sum
// of the addition-theorem kernel.
//
// SIMD across points: a block of W points is carried through the recurrence degree by degree
// (l outer, m inner), so the state is two rows of length lmax+1 per lane (cache resident at any
// degree). The outputs of a block appear in the order of their point-major index (l(l+1)/2+m)
// and are written by an emitter (kernels/sphere/writers.hpp), or on the kRowStreams paths for
// large outputs by a row_stream_sink.
#pragma once

#include "kernels/sphere/writers.hpp"

namespace posenc {
namespace POSENC_NS {
namespace sph {

/// Coefficients a_lm, b_lm of row l (m = 0..l-2) into a[], b[] (each at least l-1+W long).
/// Same expressions as lib/sphere.cpp's table (correctly rounded +, *, /, sqrt only).
inline void coef_row(int32_t kind, int32_t l, double* a, double* b) {
  const double ld = l;
  const V io = iota(), one(1.0);
  for (int32_t m0 = 0; m0 <= l - 2; m0 += static_cast<int32_t>(W)) {
    const V mv = io + V(static_cast<double>(m0));
    const V lm = V(ld) - mv, lp = V(ld) + mv;
    V av, bv;
    if (kind == 0) {
      av = V(2.0 * ld - 1.0) / lm;
      bv = (lp - one) / lm;
    } else {
      av = V(2.0 * ld - 1.0) / sqrt(lm * lp);
      bv = sqrt(((lm - one) * (lp - one)) / (lm * lp));
    }
    stu(a + m0, av);
    stu(b + m0, bv);
  }
}

/// The coefficient table sph_plan::ab: a_lm at ab[coef_table_row(l) + m], b_lm at
/// ab[coef_table_size(lmax) / 2 + coef_table_row(l) + m], m = 0..l-2, l = 2..lmax. Each half
/// has W doubles of slack past its last row: coef_row stores whole vectors, and the part of a
/// row's last vector past its end lands in the next row, which is written after it. (The size
/// uses the widest vector of any ISA: lib allocates it for whichever path fills it.)
inline int64_t coef_table_row(int32_t l) { return static_cast<int64_t>(l) * (l + 1) / 2; }
inline int64_t coef_table_size(int32_t lmax) {
  return 2 * (coef_table_row(lmax + 1) + static_cast<int64_t>(kMaxLanesF64));
}

/// Fills the coefficient table ab (coef_table_size(lmax) doubles) for `kind`.
inline void coef_table(int32_t kind, int32_t lmax, double* ab) {
  const int64_t half = coef_table_size(lmax) / 2;
  for (int32_t l = 2; l <= lmax; ++l) coef_row(kind, l, ab + coef_table_row(l), ab + half + coef_table_row(l));
}

/// 1 at s = 0, 2^-600 at s = -1, else 0: the output factor of a lane whose extended exponent is s.
inline V scale_of(const V& s) {
  return select(s == V(0.0), V(1.0), select(s == V(-1.0), V(0x1p-600), V(0.0)));
}

/// Scratch doubles of core for lmax.
inline int64_t core_scratch(int32_t lmax) {
  const int64_t N = static_cast<int64_t>(lmax) + 1;
  // Every region a multiple of W doubles so that all vector slots stay 64-byte aligned.
  const int64_t Wd = static_cast<int64_t>(W), Nr = (N + Wd - 1) / Wd * Wd;
  return 5 * N * Wd + Nr + 2 * (Nr + Wd) + 8 + 2 * kSphPoleOrders * Wd;
}

/// Near-pole lanes of core (sh_real's extended-range path): t = 1 - |cos theta| =
/// sin^2 theta / (1 + |cos theta|), s = sign cos theta, on = 1 in the lanes that take the
/// difference form (|cos theta| > kSphPoleCos and sin theta >= 2^-60), else 0.
struct core_pole {
  V t, s, on;
};

/// The recurrence of sph_plan for one block of W points (x = cos theta, u = sin theta >= 0).
/// Calls row_done(l, row) for l = 0..lmax, where row + m*W (m = 0..l) holds y_l^m of the W lanes.
/// xlo (or nullptr): x's rounding error (cos theta = x + *xlo, sh_real's prep), applied in every
/// step: near the poles the low orders depend on x to ~l^2 ulp.
/// pole (or nullptr): in its lanes the orders m < kSphPoleOrders run the difference form of
/// sph_plan::fpole (see sph::sh_fast_block): w_l = y_l / r_l with r_l the column at x = 1 relative
/// to its seed, d_l = w_l - w_{l-1} = -beta d_{l-1} - alpha t w_{l-1}, alpha = (2l-1)/(l+m),
/// beta = 1 - alpha (the same for every norm: w does not depend on the columns' scaling), r_l =
/// r_{l-1} a_lm (l+m)/(2l-1) in long double (a of P's kind; sub at m = l-1, alpha = 1); the other
/// lanes take the ordinary step bit for bit.
template <class RowFn>
inline void core(const sph_plan& P, const V& x, const V& u, double* scr, RowFn&& row_done, const V* xlo = nullptr,
                 const core_pole* pole = nullptr) {
  const int32_t L = P.lmax;
  const std::size_t N = static_cast<std::size_t>(L) + 1;
  double* bufs[2] = {scr, scr + N * W};
  double* s_ = scr + 2 * N * W;
  double* sc_ = s_ + N * W;
  double* row = sc_ + N * W;
  const std::size_t Nr = (N + W - 1) / W * W;
  double* flag = row + N * W;
  double* ca = flag + Nr;
  double* cb = ca + Nr + W;
  const V T(0x1p600), Ti(0x1p-600), zero(0.0), one(1.0);
  const bool ext = P.extended != 0;
  // Difference-form state of the near-pole lanes (pole): v_l and e_l of the orders m < kSphPoleOrders.
  double* pv = cb + Nr + W + 8;
  double* pe = pv + static_cast<std::size_t>(kSphPoleOrders) * W;
  long double pr[kSphPoleOrders] = {};
  const auto pm = pole != nullptr ? (pole->on != zero) : (zero != zero);
  // Column m's difference step at degree l (alpha, r_l from a): the value y_l of the pole lanes.
  auto pstep = [&](std::size_t m, int32_t l, double a) -> V {
    const long double al = (2.0L * l - 1.0L) / (static_cast<long double>(l) + static_cast<long double>(m));
    pr[m] *= static_cast<long double>(a) / al;
    const double alpha = static_cast<double>(al), beta = 1.0 - alpha;  // exact: alpha in [1, 2)
    const std::size_t o = m * W;
    const V vp = load(pv + o), ep = load(pe + o);
    const V e = pole->s * madd(V(-beta), ep, (V(-alpha) * pole->t) * vp);
    const V v = madd(pole->s, vp, e);
    stu(pv + o, v);
    stu(pe + o, e);
    return v * V(static_cast<double>(pr[m]));
  };

  // Column m whose lanes carry an extended exponent: rescale the lanes that grew past 2^600.
  auto rescale = [&](V y, double* prevp, std::size_t m) -> V {
    const std::size_t o = m * W;
    V s = load(s_ + o);
    const auto mk = (abs(y) > T) & (s < zero);
    if (any(mk)) {
      y = select(mk, y * Ti, y);
      const V pv = load(prevp + o);
      stu(prevp + o, select(mk, pv * Ti, pv));
      s = select(mk, s + one, s);
      stu(s_ + o, s);
      stu(sc_ + o, scale_of(s));
      if (!any(s < zero)) flag[m] = 0.0;
    }
    return y;
  };

  const double* ls = P.lscale;
  V z(P.y00), sz(0.0);
  stu(bufs[0], z);
  if (pole != nullptr) {
    stu(pv, z);
    stu(pe, z);
    pr[0] = 1.0L;
  }
  stu(s_, zero);
  stu(sc_, one);
  flag[0] = 0.0;
  stu(row, ls ? z * V(ls[0]) : z);
  row_done(0, static_cast<const double*>(row));
  for (int32_t l = 1; l <= L; ++l) {
    const V fl(ls ? ls[l] : 1.0);
    double* cur = bufs[l & 1];
    double* prev = bufs[(l - 1) & 1];
    if (l >= 2) {
      const double *a, *b;
      if (P.ab) {
        a = P.ab + coef_table_row(l);
        b = a + coef_table_size(L) / 2;
      } else {
        coef_row(P.kind, l, ca, cb);
        a = ca;
        b = cb;
      }
      for (int32_t m = 0; m <= l - 2; ++m) {
        const std::size_t o = static_cast<std::size_t>(m) * W;
        V y = madd(V(a[m]) * x, load(prev + o), -(V(b[m]) * load(cur + o)));
        if (xlo != nullptr) y = madd(V(a[m]) * x, load(prev + o), madd(V(a[m]) * *xlo, load(prev + o), -(V(b[m]) * load(cur + o))));
        if (pole != nullptr && m < kSphPoleOrders) y = select(pm, pstep(static_cast<std::size_t>(m), l, a[m]), y);
        if (flag[m] == 0.0) {
          stu(cur + o, y);
          stu(row + o, ls ? y * fl : y);
        } else {
          y = rescale(y, prev, static_cast<std::size_t>(m));
          stu(cur + o, y);
          stu(row + o, (y * load(sc_ + o)) * fl);
        }
      }
    }
    {  // m = l - 1: second value of column l-1
      const std::size_t m = static_cast<std::size_t>(l - 1), o = m * W;
      V y = (V(P.sub[l - 1]) * x) * load(prev + o);
      if (xlo != nullptr) y = madd(V(P.sub[l - 1]) * x, load(prev + o), (V(P.sub[l - 1]) * *xlo) * load(prev + o));
      if (pole != nullptr && m < static_cast<std::size_t>(kSphPoleOrders)) y = select(pm, pstep(m, l, P.sub[l - 1]), y);
      if (flag[m] == 0.0) {
        stu(cur + o, y);
        stu(row + o, ls ? y * fl : y);
      } else {
        y = rescale(y, prev, m);
        stu(cur + o, y);
        stu(row + o, (y * load(sc_ + o)) * fl);
      }
    }
    {  // m = l: the sectoral seed, with its own extended exponent sz
      z = (z * V(P.diag[l])) * u;
      if (ext) {
        for (;;) {
          const auto mk = (abs(z) < Ti) & (z != zero);
          if (!any(mk)) break;
          z = select(mk, z * T, z);
          sz = select(mk, sz - one, sz);
        }
      }
      const std::size_t o = static_cast<std::size_t>(l) * W;
      stu(cur + o, z);
      if (pole != nullptr && l < kSphPoleOrders) {  // v_l = e_l = the seed, r_l = 1
        stu(pv + o, z);
        stu(pe + o, z);
        pr[l] = 1.0L;
      }
      stu(s_ + o, sz);
      const V scv = scale_of(sz);
      stu(sc_ + o, scv);
      const bool f = any(sz < zero);
      flag[l] = f ? 1.0 : 0.0;
      const V zr = f ? z * scv : z;
      stu(row + o, ls ? zr * fl : zr);
    }
    row_done(l, static_cast<const double*>(row));
  }
}

template <class TI, class TO>
inline void legendre_impl(const sph_plan* P, const TI* x, int64_t n, TO* out, double* scr_in) {
  double* scr = align64(scr_in);
  const int32_t L = P->lmax;
  const int64_t K = (static_cast<int64_t>(L) + 1) * (static_cast<int64_t>(L) + 2) / 2;
  const V one(1.0);
  double* stage = scr + core_scratch(L);
  for (int64_t p0 = 0; p0 < n; p0 += static_cast<int64_t>(W)) {
    const std::size_t np = block_points(n, p0);
    alignas(64) double xb[W];
    load_block(x, p0, np, xb, 0.0);
    const V xv = load(xb);
    const V uv = sqrt((one - xv) * (one + xv));
    if constexpr (kRowStreams) {
      // Large outputs (P->stream) of full blocks: each row is its own line_stream
      // (row_stream_sink, as sh_real's large blocks), fed a degree at a time straight from the
      // recurrence's row (feature-major already; put_full_tiles reads up to W - 1 features past
      // it, inside the scratch), so the output goes out in whole non-temporal lines instead of
      // tile stores that read every line for ownership first. The row buffers sit after the
      // emitter stage, in the space sh_real's cos / sin buffers take (10 (lmax+1) W doubles,
      // enough for the W buffers of row_stream_sink::buf_bytes from lmax 32; smaller degrees
      // keep the tiles). Measured: docs/PERFORMANCE.md (Sphere, Legendre).
      if (P->stream != 0 && np == W && L >= 32) {
        row_stream_sink<TO> rs(out + p0 * K, K, reinterpret_cast<char*>(align64(stage + stage_doubles(L))), L);
        int64_t k0 = 0;
        core(*P, xv, uv, scr, [&](int32_t l, const double* row) {
          rs.put(row, k0, k0, k0 + l + 1);
          k0 += l + 1;
        });
        rs.finish();
        continue;
      }
    }
    emitter<TO> em(stage, out + p0 * K, K, np);
    core(*P, xv, uv, scr, [&](int32_t l, const double* row) {
      for (int32_t m = 0; m <= l; ++m) em.put(static_cast<std::size_t>(m), load(row + static_cast<std::size_t>(m) * W));
      em.commit(static_cast<std::size_t>(l) + 1);
    });
    em.finish();
  }
  if (kHasStream && P->stream != 0) vx::store_fence();
}

/// P_l(x) by (l) P_l = (2l-1) x P_{l-1} - (l-1) P_{l-2}; out [n, lmax+1].
inline void legendre_poly(int32_t lmax, const double* x, int64_t n, double* out, double* scr_in) {
  double* scr = align64(scr_in);
  const int64_t K = static_cast<int64_t>(lmax) + 1;
  for (int64_t p0 = 0; p0 < n; p0 += static_cast<int64_t>(W)) {
    const std::size_t np = block_points(n, p0);
    alignas(64) double xb[W];
    load_block(x, p0, np, xb, 0.0);
    const V xv = load(xb);
    emitter<double> em(scr, out + p0 * K, K, np);
    V p2(1.0), p1 = xv;
    em.put(0, p2);
    em.commit(1);
    if (lmax >= 1) {
      em.put(0, p1);
      em.commit(1);
    }
    for (int32_t l = 2; l <= lmax; ++l) {
      const double ld = l;
      const V y = madd(V((2.0 * ld - 1.0) / ld) * xv, p1, -(V((ld - 1.0) / ld) * p2));
      em.put(0, y);
      em.commit(1);
      p2 = p1;
      p1 = y;
    }
    em.finish();
  }
}

/// Clenshaw: out[i] = sum_{l<=lmax} c[l] P_l(x[i]); alpha[k] = (2k+1)/(k+1), beta[k] = -k/(k+1)
/// (beta has lmax+2 entries).
inline void legendre_sum(int32_t lmax, const double* c, const double* alpha, const double* beta, const double* x,
                         int64_t n, double* out) {
  for (int64_t p0 = 0; p0 < n; p0 += static_cast<int64_t>(W)) {
    const std::size_t np = block_points(n, p0);
    alignas(64) double xb[W];
    load_block(x, p0, np, xb, 0.0);
    const V xv = load(xb);
    V y1(0.0), y2(0.0);
    for (int32_t k = lmax; k >= 1; --k) {
      const V y = madd(V(alpha[k]) * xv, y1, madd(V(beta[k + 1]), y2, V(c[k])));
      y2 = y1;
      y1 = y;
    }
    const V r = madd(xv, y1, madd(V(beta[1]), y2, V(c[0])));
    if (np == W) stu(out + p0, r);
    else store_partial(out + p0, r, np);
  }
}

}  // namespace sph
}  // namespace POSENC_NS
}  // namespace posenc
