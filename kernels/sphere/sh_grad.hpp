// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere/sh_grad.hpp — real spherical harmonics with their Cartesian gradients and
// Hessians (posenc_sph_harm_real_grad_*, posenc_sph_harm_real_ex_*).
//
// Everything is evaluated at the unit vector u = x / r, degree by degree, W points a vector:
//   ybar_l^m   the orthonormal Legendre part (sph_grad_coef a, nb; sectoral seeds from sin theta),
//   Y_l,+-m    ybar_l^m cos / sin (m phi), cos / sin (m phi) by complex multiplication,
//   G_a        d/dx_a of the solid harmonic R_lm = r^l Y_lm at u: the ladder relations of
//              sph_grad_coef applied to the row of degree l-1 (Y),
//   H_ab       the same relations applied to the rows G_a of degree l-1 (d/dx_b of G_a).
// Every quantity of the recurrence is a bounded orthonormal function at a unit vector (no r^l,
// no factorial, no (2l-1)!!): finite at any degree; sectoral seeds below the double range
// underflow gradually (their values are then below 1e-300 of the degree block's rms).
// Output, per degree:
//   solid (kSphSolid):  R = r^l Y,  grad R = r^(l-1) G,  hess R = r^(l-2) H  (homogeneity);
//   unit sphere:        Y(x) = R(x) / r^l at u, so by Euler's relations u.G = l Y, H u = (l-1) G:
//     grad Y = (G - l Y u) / r,
//     hess Y = (H - l (u G^T + G u^T) + l (l+2) Y u u^T - l Y I) / r^2
//   (the chain rule through x / |x|: grad Y is orthogonal to x).
// Rows are written through one emitter per output plane (kernels/sphere/writers.hpp): values,
// three gradient planes, nine Hessian planes (the symmetric pairs get the same vectors). Large
// outputs (sph_grad_plan::stream) get the emitters' tiles in a point-major stage per output
// (line_stream), written in whole lines with non-temporal stores: no read-for-ownership of the
// output lines (L = 10 float64 values + gradients: 73 -> 47 ms CPU per 100000 points on the
// loaded AVX-512 dev VM, the same bits). Where two stages per output fit kSphGradStageMaxBytes
// (AVX-512: to L = 16 with Hessians, 31 without; AVX2: 24 and 44; grad_stage_pool), a block's
// lines are copied a share per degree while the next block computes (line_stream::end_deferred):
// a few percent at L = 3 and 10 on the loaded VM.
#pragma once

#include "kernels/sphere/writers.hpp"

namespace posenc {
namespace POSENC_NS {
namespace sph {

/// Vectors of one padded degree row: orders -(lmax+2)..lmax+2 (the ladder reads m +- 1 one
/// order past the previous degree, whose entries there are kept zero).
inline int64_t grad_row_vecs(int32_t lmax) { return 2 * static_cast<int64_t>(lmax) + 5; }

/// Doubles of the recurrence's own scratch (grad_scratch without the line stages).
inline int64_t grad_core_scratch(int32_t lmax) {
  const int64_t N = static_cast<int64_t>(lmax) + 1, Wd = static_cast<int64_t>(W), R = grad_row_vecs(lmax);
  const int64_t crow = (5 * N + 7) / 8 * 8;
  return 4 * N * Wd + 8 * R * Wd + crow + 13 * stage_doubles(lmax) + 8;
}

/// Doubles of one output's line stage: a block's rows of `planes` K values (float64 at most) and
/// line_stream's 128 bytes, a whole number of lines.
inline int64_t grad_line_stage_doubles(int32_t lmax, int planes) {
  const int64_t K = (static_cast<int64_t>(lmax) + 1) * (static_cast<int64_t>(lmax) + 1);
  return (static_cast<int64_t>(W) * planes * K + 16 + 7) / 8 * 8;
}

/// Planes (values + gradients: 4, + Hessians: 13) whose block of W points a large output stages
/// in point-major lines (line_stream, non-temporal): those whose staged block fits
/// kSphGradStageMaxBytes (L2); 0 where even values + gradients do not (or the ISA has no
/// non-temporal stores), which then store their tiles straight into the output rows.
inline int grad_stage_planes(int32_t lmax) {
  if constexpr (!kHasStream) {
    (void)lmax;
    return 0;
  } else {
    const int64_t K = (static_cast<int64_t>(lmax) + 1) * (static_cast<int64_t>(lmax) + 1);
    const int64_t blk = static_cast<int64_t>(W) * K * static_cast<int64_t>(sizeof(double));
    return 13 * blk <= kSphGradStageMaxBytes ? 13 : 4 * blk <= kSphGradStageMaxBytes ? 4 : 0;
  }
}

/// Doubles of the line stages of the outputs of `planes` (1, 4 or 13) planes: one buffer each.
inline int64_t grad_stage_set(int32_t lmax, int planes) {
  int64_t d = 0;
  if (planes >= 1) d += grad_line_stage_doubles(lmax, 1);
  if (planes >= 4) d += grad_line_stage_doubles(lmax, 3);
  if (planes >= 13) d += grad_line_stage_doubles(lmax, 9);
  return d;
}

/// Doubles of the line-stage pool: the stages of grad_stage_planes, twice where that still fits
/// kSphGradStageMaxBytes (then a block's lines are copied while the next block computes).
inline int64_t grad_stage_pool(int32_t lmax) {
  const int sp = grad_stage_planes(lmax);
  if (sp == 0) return 0;
  const int64_t one = grad_stage_set(lmax, sp);
  return 2 * one * static_cast<int64_t>(sizeof(double)) <= kSphGradStageMaxBytes ? 2 * one : one;
}

/// Scratch doubles of sh_grad_impl: two Legendre rows, cos / sin (m phi), two Y rows, two
/// triples of G rows, a coefficient row, 13 emitter stages, 64-byte alignment slack, and the
/// line-stage pool (grad_stage_pool).
inline int64_t grad_scratch(int32_t lmax) {
  const int64_t pool = grad_stage_pool(lmax);
  return grad_core_scratch(lmax) + (pool > 0 ? 8 + pool : 0);  // 8: align64 of the pool
}

/// The emitter of this kernel (kernels/sphere/writers.hpp's emitter, put / commit / finish):
/// full tiles of a full block go from the stage through vx::load_transpose straight from
/// registers into the rows (emitter's store_tile goes through a tile on the stack and a loop
/// over the points; the row stores were ~20 % of the kernel at L = 10).
template <class TO>
struct grad_emitter {
  double* st;  // stage: capacity >= max row + W vectors, 64-byte aligned
  std::size_t cnt = 0;
  int64_t base = 0;
  TO* out;
  int64_t stride;
  std::size_t npts;
  grad_emitter(double* stage, TO* o, int64_t s, std::size_t np) : st(stage), out(o), stride(s), npts(np) {}
  void put(std::size_t j, const V& v) { stu(st + (cnt + j) * W, v); }
  void tile(const double* src, std::size_t c) {
    if (c == W && npts == W) {
      V r[W];
      vx::load_transpose(src, r);
      TO* const d = out + base;
      for (std::size_t p = 0; p < W; ++p) store_row(d + static_cast<int64_t>(p) * stride, r[p]);
    } else {
      store_tile(src, c, out + base, stride, npts);
    }
    base += static_cast<int64_t>(c);
  }
  void commit(std::size_t count) {
    cnt += count;
    std::size_t t = 0;
    for (; t + W <= cnt; t += W) tile(st + t * W, W);
    if (t > 0) {
      for (std::size_t i = t; i < cnt; ++i) stu(st + (i - t) * W, load(st + i * W));
      cnt -= t;
    }
  }
  void finish() {
    if (cnt > 0) tile(st, cnt);
    cnt = 0;
  }
};

/// The kernel body for one combination of the flags that change its inner loop (solid or unit
/// sphere; Hessians or not): compiled per combination, so that no test of them runs per order.
template <bool kSolid, bool kHess, class TI, class TO>
inline void sh_grad_body(const sph_grad_plan* P, const TI* xyz, int64_t n, TO* val, TO* grad, TO* hess,
                         double* scr_in) {
  double* s = align64(scr_in);
  const int32_t L = P->lmax;
  const int64_t N = static_cast<int64_t>(L) + 1, Wd = static_cast<int64_t>(W), K = N * N, R = grad_row_vecs(L);
  const int64_t c0 = static_cast<int64_t>(L) + 2;  // order 0 of a padded row
  constexpr bool solid = kSolid;
  const bool needG = grad != nullptr || kHess;
  double* yb[2] = {s, s + N * Wd};
  double* const cm = s + 2 * N * Wd;
  double* const sm = s + 3 * N * Wd;
  double* Yr[2] = {s + 4 * N * Wd, s + 4 * N * Wd + R * Wd};
  double* Gr[2][3];
  for (int b = 0; b < 2; ++b)
    for (int a = 0; a < 3; ++a) Gr[b][a] = s + 4 * N * Wd + (2 + 3 * b + a) * R * Wd;
  double* const crow = s + 4 * N * Wd + 8 * R * Wd;
  double* const stages = crow + (5 * N + 7) / 8 * 8;
  const int64_t sd = stage_doubles(L);
  // Large outputs (P->stream): each block's rows are staged point-major in line_stream buffers
  // (the tiles of the emitters land there) and written in whole lines, non-temporally, when the
  // block is done; a block's rows of one output are contiguous, so are consecutive blocks'.
  const int planes_used = (val ? 1 : 0) + (grad ? 3 : 0) + (hess ? 9 : 0);
  // Where the pool holds two stages per output, a block's lines are copied a share per degree
  // while the next block computes (line_stream::end_deferred): the non-temporal stores then
  // drain under the recurrence instead of filling the store buffer at the end of each block.
  TO* const outs[3] = {val, grad, hess};
  const int64_t ostride[3] = {K, 3 * K, 9 * K};
  const int stage_planes[3] = {1, 3, 9};
  int64_t need = 0;
  for (int a = 0; a < 3; ++a)
    if (outs[a]) need += grad_line_stage_doubles(L, stage_planes[a]);
  const int64_t pool = grad_stage_pool(L);
  const bool staged = P->stream != 0 && planes_used <= grad_stage_planes(L) && need <= pool;
  const bool deferred = staged && 2 * need <= pool;
  line_stream ls[3];
  int64_t share[3] = {0, 0, 0};  // lines copied after each degree (deferred)
  if (staged) {
    double* b = stages + 13 * sd;  // grad_core_scratch ends here (its alignment slack is unused)
    b = align64(b);
    for (int a = 0; a < 3; ++a) {
      if (!outs[a]) continue;
      const int64_t d = grad_line_stage_doubles(L, stage_planes[a]);
      ls[a] = line_stream(b, true, deferred ? b + d : nullptr);
      b += deferred ? 2 * d : d;
      share[a] = grad_stage_share(Wd * ostride[a] * static_cast<int64_t>(sizeof(TO)), L);
    }
  }
  const V one(1.0), zero(0.0);
  const double fy00 = 0.28209479177387814347;  // 1 / sqrt(4 pi)

  for (int64_t p0 = 0; p0 < n; p0 += Wd) {
    const std::size_t np = block_points(n, p0);
    V X, Y, Z;
    {
      alignas(64) double xb[W], ybb[W], zb[W];
      for (std::size_t i = 0; i < W; ++i) {
        if (i < np) {
          const TI* q = xyz + 3 * (p0 + static_cast<int64_t>(i));
          xb[i] = static_cast<double>(q[0]);
          ybb[i] = static_cast<double>(q[1]);
          zb[i] = static_cast<double>(q[2]);
        } else {
          xb[i] = 0.0;
          ybb[i] = 0.0;
          zb[i] = 1.0;
        }
      }
      X = load(xb);
      Y = load(ybb);
      Z = load(zb);
    }
    // Scale by the largest component (no square overflows or underflows), then normalize.
    const V mx = max(max(abs(X), abs(Y)), abs(Z));
    const auto zl = mx == zero;  // (0, 0, 0): validated to occur only with kSphZeroAsZero
    const V mxs = select(zl, one, mx);
    const V Xs = X / mxs, Ys = Y / mxs, Zs = select(zl, one, Z / mxs);
    const V rxy2 = Xs * Xs + Ys * Ys;
    const V rs = sqrt(rxy2 + Zs * Zs);
    const V irs = one / rs;
    const V ux = Xs * irs, uy = Ys * irs, uz = Zs * irs;
    // cos theta as xh + xl: within 60 degrees of a pole xh = +-1 and xl = -+(1 - |cos theta|)
    // = -+rho^2 / (r (r + |z|)), accurate to a few ulp of itself (z / r alone carries ~1 ulp of
    // 1, which the zonal column turns into l^2 ulp near the poles: 7e-13 of the block at l = 40,
    // z = 0.999627); elsewhere xh = cos theta, xl = 0.
    const V ct = min(max(uz, V(-1.0)), one);
    const V tpol = rxy2 / (rs * (rs + abs(Zs)));
    const auto nearp = abs(ct) > V(0.5);
    const V sgn = select(Zs < zero, V(-1.0), one);
    const V xh = select(nearp, sgn, ct), xl = select(nearp, zero - sgn * tpol, zero);
    const auto pos = rxy2 > zero;
    const V rxy = sqrt(rxy2);
    const V st = rxy * irs;
    const V irxy = one / select(pos, rxy, one);
    const V c1 = select(pos, Xs * irxy, one), s1 = select(pos, Ys * irxy, zero);
    const V r = select(zl, zero, mx * rs);           // |x| (solid: r^l, r^(l-1), r^(l-2))
    const V ir = select(zl, zero, one / (mx * rs));  // 1 / |x|; 0 for a zero vector (all derivatives 0)
    const V nz = select(zl, zero, one);              // unit sphere: 0 for degrees >= 1 of a zero vector
    cos_sin_m_phi(c1, s1, N, Wd, cm, sm, zero);  // cos / sin (m phi)
    // The block's rows of each output: in the output, or in its line stage (staged).
    TO* bo[3];
    for (int a = 0; a < 3; ++a) {
      TO* const d = outs[a] ? outs[a] + p0 * ostride[a] : nullptr;
      bo[a] = d && staged ? reinterpret_cast<TO*>(ls[a].begin(d)) : d;
    }
    // The 13 output planes: 0 values, 1 + a gradient a, 4 + 3a + b Hessian (a, b).
    grad_emitter<TO> em[13] = {
        grad_emitter<TO>(stages, bo[0], K, np),
        grad_emitter<TO>(stages + 1 * sd, bo[1], 3 * K, np),
        grad_emitter<TO>(stages + 2 * sd, bo[1] ? bo[1] + K : nullptr, 3 * K, np),
        grad_emitter<TO>(stages + 3 * sd, bo[1] ? bo[1] + 2 * K : nullptr, 3 * K, np),
        grad_emitter<TO>(stages + 4 * sd, bo[2], 9 * K, np),
        grad_emitter<TO>(stages + 5 * sd, bo[2] ? bo[2] + 1 * K : nullptr, 9 * K, np),
        grad_emitter<TO>(stages + 6 * sd, bo[2] ? bo[2] + 2 * K : nullptr, 9 * K, np),
        grad_emitter<TO>(stages + 7 * sd, bo[2] ? bo[2] + 3 * K : nullptr, 9 * K, np),
        grad_emitter<TO>(stages + 8 * sd, bo[2] ? bo[2] + 4 * K : nullptr, 9 * K, np),
        grad_emitter<TO>(stages + 9 * sd, bo[2] ? bo[2] + 5 * K : nullptr, 9 * K, np),
        grad_emitter<TO>(stages + 10 * sd, bo[2] ? bo[2] + 6 * K : nullptr, 9 * K, np),
        grad_emitter<TO>(stages + 11 * sd, bo[2] ? bo[2] + 7 * K : nullptr, 9 * K, np),
        grad_emitter<TO>(stages + 12 * sd, bo[2] ? bo[2] + 8 * K : nullptr, 9 * K, np),
    };
    const V u[3] = {ux, uy, uz};

    // Degree 0.
    stu(yb[0], V(fy00));
    stu(yb[1], zero);
    {
      double* Y0 = Yr[0] + c0 * Wd;
      for (int64_t j = -2; j <= 2; ++j) stu(Y0 + j * Wd, j == 0 ? V(fy00) : zero);
      if constexpr (kHess)
        for (int a = 0; a < 3; ++a)
          for (int64_t j = -2; j <= 2; ++j) stu(Gr[0][a] + (c0 + j) * Wd, zero);
      if (val) em[0].put(0, V(fy00));
      for (int a = 0; a < 3 && grad; ++a) em[1 + a].put(0, zero);
      for (int a = 0; a < 9 && hess; ++a) em[4 + a].put(0, zero);
      for (int e = 0; e < 13; ++e)
        if (em[e].out) em[e].commit(1);
    }
    V rl = one, rl1 = zero, rl2 = zero;  // r^l, r^(l-1), r^(l-2) (solid)

    // One ladder step: the derivatives d/dx, d/dy, d/dz at orders +m and -m of degree l from the
    // padded row `src` of degree l-1 (centre at order 0), coefficients c (sph_grad_coef).
    auto ladder = [&](const double* src, int64_t m, const double* c, V* dp, V* dn) POSENC_HOT_LAMBDA {
      auto at = [&](int64_t q) POSENC_HOT_LAMBDA { return load(src + q * Wd); };
      ladder_step(at, m, V(c[2]), V(c[3]), V(c[4]), dp, dn);
    };

    for (int32_t l = 1; l <= L; ++l) {
      const int64_t lw = l;
      const double* cr = P->coef ? P->coef + 5 * (lw * (lw + 1) / 2) : crow;
      if (!P->coef)
        for (int32_t m = 0; m <= l; ++m) sph_grad_coef(l, m, crow + 5 * m);
      // Legendre row l (over row l-2, kept in cur).
      double* cur = yb[l & 1];
      double* prv = yb[(l - 1) & 1];
      for (int64_t m = 0; m < lw; ++m) {
        const double* c = cr + 5 * m;
        const V a(c[0]), p = load(prv + m * Wd);
        const V y = madd(a * xh, p, madd(a * xl, p, V(c[1]) * load(cur + m * Wd)));
        stu(cur + m * Wd, y);
      }
      stu(cur + lw * Wd, load(prv + (lw - 1) * Wd) * (V(cr[5 * lw]) * st));
      stu(prv + lw * Wd, zero);  // ybar_{l-1}^l = 0 for degree l + 1
      // Y row l, zero past |m| = l.
      double* Yc = Yr[l & 1] + c0 * Wd;
      stu(Yc, load(cur));
      for (int64_t m = 1; m <= lw; ++m) {
        const V y = load(cur + m * Wd);
        stu(Yc + m * Wd, y * load(cm + m * Wd));
        stu(Yc - m * Wd, y * load(sm + m * Wd));
      }
      for (int64_t j = lw + 1; j <= lw + 2; ++j) {
        stu(Yc + j * Wd, zero);
        stu(Yc - j * Wd, zero);
      }
      const double* Yp = Yr[(l - 1) & 1] + c0 * Wd;
      double* Gc[3] = {Gr[l & 1][0] + c0 * Wd, Gr[l & 1][1] + c0 * Wd, Gr[l & 1][2] + c0 * Wd};
      const double* Gp[3] = {Gr[(l - 1) & 1][0] + c0 * Wd, Gr[(l - 1) & 1][1] + c0 * Wd, Gr[(l - 1) & 1][2] + c0 * Wd};
      if constexpr (solid) {
        rl2 = rl1;
        rl1 = rl;
        rl = rl * r;
      }
      const double ld = l;
      const V lv(ld), l2v(ld * (ld + 2.0));
      // Order m (both signs), output position j = l + m within the degree's row.
      for (int64_t m = 0; m <= lw; ++m) {
        const double* c = cr + 5 * m;
        const int nsg = m == 0 ? 1 : 2;
        V g[2][3] = {{zero, zero, zero}, {zero, zero, zero}}, h[2][6];
        if (needG) {
          ladder(Yp, m, c, g[0], g[1]);
          if constexpr (kHess)  // the rows of degree l feed the Hessian of degree l + 1 only
            for (int sg = 0; sg < nsg; ++sg)
              for (int a = 0; a < 3; ++a) stu(Gc[a] + (sg ? -m : m) * Wd, g[sg][a]);
        }
        if constexpr (kHess) {
          V t[2][3] = {{zero, zero, zero}, {zero, zero, zero}};
          ladder(Gp[0], m, c, t[0], t[1]);  // d/dx_b G_x: xx, xy, xz
          for (int sg = 0; sg < nsg; ++sg) {
            h[sg][0] = t[sg][0];
            h[sg][1] = t[sg][1];
            h[sg][2] = t[sg][2];
          }
          ladder(Gp[1], m, c, t[0], t[1]);  // yy, yz
          for (int sg = 0; sg < nsg; ++sg) {
            h[sg][3] = t[sg][1];
            h[sg][4] = t[sg][2];
          }
          ladder(Gp[2], m, c, t[0], t[1]);  // zz
          for (int sg = 0; sg < nsg; ++sg) h[sg][5] = t[sg][2];
        }
        for (int sg = 0; sg < nsg; ++sg) {
          const int64_t q = sg ? -m : m;
          const std::size_t j = static_cast<std::size_t>(lw + q);
          const V y = load(Yc + q * Wd);
          if (val) em[0].put(j, solid ? rl * y : nz * y);
          if (grad) {
            for (int a = 0; a < 3; ++a) {
              const V ga = solid ? rl1 * g[sg][a] : (g[sg][a] - (lv * y) * u[a]) * ir;
              em[1 + a].put(j, ga);
            }
          }
          if constexpr (kHess) {
            static constexpr int hi[3][3] = {{0, 1, 2}, {1, 3, 4}, {2, 4, 5}};
            for (int a = 0; a < 3; ++a) {
              for (int b = a; b < 3; ++b) {
                const V hab = h[sg][hi[a][b]];
                V o;
                if constexpr (solid) {
                  o = l >= 2 ? rl2 * hab : zero;
                } else {
                  V w = hab - lv * (u[a] * g[sg][b] + g[sg][a] * u[b]) + (l2v * y) * (u[a] * u[b]);
                  if (a == b) w = w - lv * y;
                  o = (w * ir) * ir;
                }
                em[4 + 3 * a + b].put(j, o);
                if (b != a) em[4 + 3 * b + a].put(j, o);
              }
            }
          }
        }
      }
      if constexpr (kHess)
        for (int a = 0; a < 3; ++a)
          for (int64_t jj = lw + 1; jj <= lw + 2; ++jj) {
            stu(Gc[a] + jj * Wd, zero);
            stu(Gc[a] - jj * Wd, zero);
          }
      grad_degree_done(em, 13, static_cast<std::size_t>(2 * lw + 1), outs, 3, ls, share, deferred);
    }
    grad_block_done(em, 13, outs, ostride, 3, ls, staged, deferred, np);
  }
  grad_streams_done(outs, 3, ls, staged);
}

template <class TI, class TO>
inline void sh_grad_impl(const sph_grad_plan* P, const TI* xyz, int64_t n, TO* val, TO* grad, TO* hess,
                         double* scr) {
  const bool solid = (P->flags & kSphSolid) != 0;
  if (solid) {
    if (hess) sh_grad_body<true, true>(P, xyz, n, val, grad, hess, scr);
    else sh_grad_body<true, false>(P, xyz, n, val, grad, hess, scr);
  } else {
    if (hess) sh_grad_body<false, true>(P, xyz, n, val, grad, hess, scr);
    else sh_grad_body<false, false>(P, xyz, n, val, grad, hess, scr);
  }
}

}  // namespace sph
}  // namespace POSENC_NS
}  // namespace posenc
