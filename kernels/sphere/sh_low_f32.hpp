// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere/sh_low_f32.hpp — float32 unit-sphere values + gradients of low degree
// (posenc_sph_harm_real_grad_f32 and posenc_sph_harm_real_ex_f32 with gradients, lmax <=
// kSphLowLmax, flags without POSENC_SPH_SOLID) in float32 lanes on the paths whose float vector
// holds two double vectors (kF32Native: AVX-512 16 points a vector, AVX2 8).
//
// The low-degree kernel of kernels/sphere/sh_low.hpp with the work after the set-up in float32:
//   float64 (each half of W points): the coordinates, the norm (low_normalize, the same
//     operations as sh_low_body), 1 / |x|, the polynomials q_l^m(u_z); each rounded to
//     float32 once (1 / |x| as a product of two float factors where it leaves [2^-60, 2^60]);
//   float32 (WF points a vector): (u_x + i u_y)^m, Y = q c_m, q s_m, the ladder relations of
//     sph_grad_coef (rounded to float32), the chain rule (G - l Y u) / |x|, and the rows packed
//     by vx::fpack4n (rows of 4 NG features) or WF x WF transposes.
// Per lane the operations do not depend on the other lanes of the block: a point's bits do not
// depend on the call's split or thread count. Error: a few float32 roundings of each element
// (docs/ACCURACY.md); the float32 contract is 1e-5 of the degree block.
#pragma once

#include "kernels/sphere/policy.hpp"
#include "kernels/sphere/sh_low.hpp"

namespace posenc {
namespace POSENC_NS {
namespace sph {

/// Writes the NF float feature vectors F[0..NF) of a block (feature k of point p = lane p of
/// F[k]) as np rows of NF consecutive floats at dst + p NF: a full block with NF a multiple of 4
/// but not of WF by vx::fpack4n and NF whole-vector stores (with 48 features, 144 two-source
/// permutes were 1.65x the time of the float64 kernel at lmax 3); otherwise groups of WF features by WF x WF
/// transposes, row p's group g one vector store where it stays inside the block's np NF
/// elements (what runs into row p + 1 is overwritten by that row's later stores), else the
/// group's first features.
template <int NF>
__attribute__((always_inline)) inline void low_put_frows(const vec<float>* F, float* dst, std::size_t np) {
  using VF = vec<float>;
  constexpr int WFi = static_cast<int>(width<float>);
  if constexpr (NF % 4 == 0 && NF % WFi != 0) {
    if (np == width<float>) {
      VF o[NF];
      vx::fpack4n<NF / 4>(F, o);
#pragma GCC unroll 48
      for (int j = 0; j < NF; ++j) stu(dst + j * WFi, o[j]);
      return;
    }
  }
  constexpr int G = (NF + WFi - 1) / WFi;
  alignas(64) float t[WFi * WFi];
  VF r[G][width<float>];
  for (int g = 0; g < G; ++g) {
    for (int i = 0; i < WFi; ++i) stu(t + i * WFi, g * WFi + i < NF ? F[g * WFi + i] : VF(0.0f));
    vx::ftile_rows(t, r[g]);
  }
  const int64_t end = static_cast<int64_t>(np) * NF;
  for (std::size_t p = 0; p < np; ++p) {
    for (int g = 0; g < G; ++g) {
      const int64_t o = static_cast<int64_t>(p) * NF + static_cast<int64_t>(g) * WFi;
      if (o + WFi <= end) stu(dst + o, r[g][p]);
      else vx::store_first(dst + o, r[g][p], static_cast<std::size_t>(std::min(NF - g * WFi, WFi)));
    }
  }
}

/// The body for one lmax: unit-sphere values (val, or nullptr) and gradients of float32 points.
template <int L>
inline void sh_low_f32_body(const sph_grad_plan* P, const float* xyz, int64_t n, float* val, float* grad) {
  using VF = vec<float>;
  constexpr std::size_t WF = width<float>, H = vx::kHalves;
  constexpr int K = (L + 1) * (L + 1);
  constexpr int NQ = (L + 1) * (L + 2) / 2;
  const double* const coef = P->coef;  // sph_grad_coef of (l, m) at coef + 5 (l (l+1) / 2 + m)
  auto cfd = [&](int l, int m, int i) { return coef[5 * (l * (l + 1) / 2 + m) + i]; };
  double seed[L + 1];  // the sectoral seeds q_m^m (float64 products, rounded once)
  seed[0] = 0.28209479177387814347;  // 1 / sqrt(4 pi)
  for (int m = 1; m <= L; ++m) seed[m] = seed[m - 1] * coef[5 * (m * (m + 1) / 2 + m)];
  const xyz_source<float> src{xyz};
  const V one(1.0), zero(0.0), big(0x1p60), small(0x1p-60);
  // Software-pipelined by one block as sh_low_body: the next block's loads, norms and 1 / |x|
  // (float64 halves) before the current block's float32 work.
  struct front_t {
    V uh[3][H], irh[H], ir2h[H], nzh[H];
    bool split_ir, any_zero;
  };
  // The loads of a block (fetch) one iteration before its norm (front), as in sh_low_body:
  // in-cache 0.93x at lmax 1 on AVX-512, the same at lmax 3 and on AVX2.
  struct raw_t {
    V X[H], Y[H], Z[H];
  };
  auto fetch = [&](int64_t q0, raw_t& r) POSENC_HOT_LAMBDA {
    const std::size_t nq = static_cast<std::size_t>(n - q0 < static_cast<int64_t>(WF) ? n - q0 : static_cast<int64_t>(WF));
    src.prefetch(q0);
#pragma GCC unroll 2
    for (std::size_t h = 0; h < H; ++h) {
      const std::size_t hw = h * W;
      const std::size_t nh = nq > hw ? std::min(nq - hw, W) : 0;
      src.get(q0 + static_cast<int64_t>(hw), nh, r.X[h], r.Y[h], r.Z[h]);
    }
  };
  auto front = [&](const raw_t& r, front_t& f) POSENC_HOT_LAMBDA {
    f.split_ir = false;
    f.any_zero = false;
#pragma GCC unroll 2
    for (std::size_t h = 0; h < H; ++h) {  // unrolled: the halves stay in registers
      const V X = r.X[h], Y = r.Y[h], Z = r.Z[h];
      auto zl = one != one;  // (0, 0, 0): validated to occur only with kSphZeroAsZero
      V sc = one, r2 = one, ir = one, ux = X, uy = Y, uz = Z;
      bool scaled = false;
      low_normalize<false>(X, Y, Z, ux, uy, uz, ir, sc, r2, zl, scaled);
      f.uh[0][h] = ux;
      f.uh[1][h] = uy;
      f.uh[2][h] = uz;
      // 1 / |x| = irh ir2h, ir2h = 1 inside [2^-60, 2^60], else 2^+-64 (an exact scaling): the
      // float32 factors neither overflow nor lose bits to subnormals
      const V irx = scaled ? ir / sc : ir;  // sc = 1 but in the scaled lanes: the same bits
      const auto hi = irx > big, lo = (irx < small) & (irx > zero);
      const bool split = any(hi | lo);
      f.ir2h[h] = split ? select(hi, V(0x1p64), select(lo, V(0x1p-64), one)) : one;
      f.irh[h] = split ? irx / f.ir2h[h] : irx;  // irx / 1 = irx: no division in ordinary blocks
      f.split_ir = f.split_ir || split;
      f.nzh[h] = select(zl, zero, one);
      f.any_zero = f.any_zero || any(zl);
    }
  };
  front_t nx;
  raw_t rw;
  if (n > 0) {
    fetch(0, rw);
    front(rw, nx);
  }
  if (n > static_cast<int64_t>(WF)) fetch(static_cast<int64_t>(WF), rw);
  for (int64_t p0 = 0; p0 < n; p0 += static_cast<int64_t>(WF)) {
    const std::size_t np = static_cast<std::size_t>(n - p0 < static_cast<int64_t>(WF) ? n - p0 : static_cast<int64_t>(WF));
    const front_t cur = nx;
    if (p0 + static_cast<int64_t>(WF) < n) {
      front(rw, nx);
      if (p0 + 2 * static_cast<int64_t>(WF) < n) fetch(p0 + 2 * static_cast<int64_t>(WF), rw);
    }
    const auto& uh = cur.uh;
    const auto& irh = cur.irh;
    const auto& ir2h = cur.ir2h;
    const auto& nzh = cur.nzh;
    const bool split_ir = cur.split_ir, any_zero = cur.any_zero;
    const VF ux = vx::narrow(uh[0]), uy = vx::narrow(uh[1]), uz = vx::narrow(uh[2]);
    const VF irf = vx::narrow(irh), ir2f = vx::narrow(ir2h);
    // q_l^m(z), index l (l+1) / 2 + m, in float64 and rounded once (from a float32 u_z the zonal
    // q_l^0 near the poles carried ~l^2 ulp: 1.1e-6 of the block at lmax 3, z = 0.9927)
    VF qv[NQ];
#pragma GCC unroll 8
    for (int m = 0; m <= L; ++m) {
      const int im = m * (m + 1) / 2 + m;
      qv[im] = VF(static_cast<float>(seed[m]));
      V qh[L + 1][H];  // q_l^m of each half, index l
#pragma GCC unroll 2
      for (std::size_t h = 0; h < H; ++h) qh[m][h] = V(seed[m]);
#pragma GCC unroll 8
      for (int l = m + 1; l <= L; ++l) {
#pragma GCC unroll 2
        for (std::size_t h = 0; h < H; ++h) {
          const V az = V(cfd(l, m, 0)) * uh[2][h];
          if (l == m + 1) qh[l][h] = az * qh[l - 1][h];
          else qh[l][h] = madd(az, qh[l - 1][h], V(cfd(l, m, 1)) * qh[l - 2][h]);
        }
        qv[l * (l + 1) / 2 + m] = vx::narrow(qh[l]);
      }
    }
    VF y[K];  // Y_l,m at l (l+1) + m
    low_values<L>(qv, ux, uy, y);
    if (any_zero) {  // a zero vector: Y_00 and 0 above (the polynomials at u = 0 are not)
      const VF nz = vx::narrow(nzh);
      for (int k = 1; k < K; ++k) y[k] = y[k] * nz;
    }
    if (val) low_put_frows<K>(y, val + p0 * K, np);
    // g[a K + k]: d/dx_a of feature k; (G - l Y u) / |x| (0 for a zero vector: 1 / |x| is 0)
    VF g[3 * K];
    const VF u[3] = {ux, uy, uz};
    low_ladder<L>(y, coef, g, [&](int l, int k, int a, const VF& d) POSENC_HOT_LAMBDA {
      const VF t = (d - (VF(static_cast<float>(l)) * y[k]) * u[a]) * irf;
      return split_ir ? VF(t * ir2f) : t;
    });
    low_put_frows<3 * K>(g, grad + p0 * 3 * K, np);
  }
}

/// posenc_sph_harm_real_grad_f32's low-degree kernel (lmax <= kSphLowLmax, no Hessians):
/// sh_low_f32_body for unit-sphere gradients where kF32Native, else sh_low_impl (float64
/// compute, every output rounded once). P->coef is required.
inline void sh_low_f32_impl(const sph_grad_plan* P, const float* xyz, int64_t n, float* val, float* grad) {
  if constexpr (kF32Native) {
    if (grad != nullptr && (P->flags & kSphSolid) == 0) {
      static_assert(kSphLowLmax == 3, "one case per degree below");
      switch (P->lmax) {
        case 0: sh_low_f32_body<0>(P, xyz, n, val, grad); break;
        case 1: sh_low_f32_body<1>(P, xyz, n, val, grad); break;
        case 2: sh_low_f32_body<2>(P, xyz, n, val, grad); break;
        default: sh_low_f32_body<3>(P, xyz, n, val, grad); break;
      }
      return;
    }
  }
  sh_low_impl(P, xyz, n, val, grad);
}

}  // namespace sph
}  // namespace POSENC_NS
}  // namespace posenc
