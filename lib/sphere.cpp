// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/sphere.cpp — sphere family (S²): argument validation, recurrence plans, tiling, the real
// Wigner-D recurrence (Ivanic & Ruedenberg) and the complex / geographic front ends.
#include "kernels/sphere_table.hpp"
#include "lib/internal.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <vector>

POSENC_USE_KERNELS(sphere_kernels_t, sphere_kernels)

using namespace posenc;
using namespace posenc::detail;

namespace {

constexpr int32_t kMaxLmax = 1 << 20;
constexpr double kPi = 3.14159265358979323846;

posenc_status check_lmax(int32_t lmax) {
  if (lmax < 0) return set_error(POSENC_ERR_INVALID_ARGUMENT, "lmax must be >= 0 (got %d)", lmax);
  if (lmax > kMaxLmax)
    return set_error(POSENC_ERR_SIZE_OVERFLOW, "lmax must be <= %d (got %d): the output size overflows", kMaxLmax, lmax);
  return POSENC_OK;
}

int64_t legendre_count(int32_t lmax) { return (int64_t(lmax) + 1) * (int64_t(lmax) + 2) / 2; }
int64_t sh_count(int32_t lmax) { return (int64_t(lmax) + 1) * (int64_t(lmax) + 1); }

/// The recurrence plan (see sph_plan) and its storage.
struct plan_store {
  std::vector<double> diag, sub, lscale, ab, fab, fdiag, fpole;
  std::vector<float> fab32;
  sph_plan plan{};
};

/// sph_plan::fpole for lmax: the fast path's columns in difference form near the poles.
/// Each column m, scaled by its value at cos theta = 1 (w_l = y_l / r_l, r_m = 1), obeys
/// w_l = alpha |x| w_{l-1} + beta w_{l-2} with alpha + beta = 1, so with t = 1 - |x| the step
/// d_l = w_l - w_{l-1} = -beta d_{l-1} - alpha t w_{l-1} carries the small differences itself
/// (rounding ~l eps instead of the ~l^2 eps the forward recurrence reaches near x = 1, where its
/// two roots meet). Closed forms in long double: q_l^m(1) / q_{l-1}^m(1) = rho_l =
/// sqrt((2l+1)(l+m) / ((2l-1)(l-m))) for the orthonormal columns (Pbar_l^m / sin^m theta at
/// cos theta = 1, from P_l^m(x) / (1-x^2)^(m/2) -> (l+m)! / ((l-m)! 2^m m!)), so that
/// alpha = fab_a / rho_l = (2l-1) / (l+m) and beta = 1 - alpha = -(l-m-1) / (l+m) exactly.
void fill_pole_table(std::vector<double>& t, int32_t lmax) {
  const int32_t M = kSphPoleOrders;
  t.assign(3 * size_t(lmax + 1) * size_t(M), 0.0);
  for (int32_t m = 0; m < std::min(lmax, M); ++m) {
    long double r = 1.0L;
    for (int32_t l = m + 1; l <= lmax; ++l) {
      const long double ld = l, lm = l - m, lp = l + m;
      r *= std::sqrt((2.0L * ld + 1.0L) * lp / ((2.0L * ld - 1.0L) * lm));
      double* e = t.data() + 3 * (size_t(l) * size_t(M) + size_t(m));
      e[0] = -static_cast<double>(2 * l - 1) / static_cast<double>(l + m);  // -alpha
      e[1] = static_cast<double>(l - m - 1) / static_cast<double>(l + m);   // -beta
      e[2] = static_cast<double>(r);
    }
  }
}

/// norm: posenc_legendre_norm, or -1 for the real SH basis (orthonormal, sqrt(2) for m > 0).
/// Every norm but NONE runs the Schmidt-type recurrence (kind 1) with its own seeds; SPHARM,
/// FULL and the real basis scale degree l by lscale[l] on output (as GSL does).
void make_plan(plan_store& ps, int norm, int32_t lmax, double cs, const sphere_kernels_t* k) {
  const size_t N = size_t(lmax) + 1;
  ps.diag.assign(N + 1, 0.0);
  ps.sub.assign(N + 1, 0.0);
  ps.lscale.clear();
  sph_plan& p = ps.plan;
  p.lmax = lmax;
  p.stream = 0;
  for (size_t m = 0; m <= N; ++m) {
    const double md = double(m);
    if (norm == POSENC_LEGENDRE_NONE) {
      ps.diag[m] = cs * (2.0 * md - 1.0);
      ps.sub[m] = 2.0 * md + 1.0;
    } else {
      // Schmidt: S_1^1 = u, S_m^m = S_{m-1}^{m-1} sqrt((2m-1)/(2m)) u; SPHARM / FULL lack the
      // sqrt(2) of m > 0, so their diag[1] is sqrt(1/2).
      ps.diag[m] = m == 1 ? (norm == POSENC_LEGENDRE_SCHMIDT || norm == -1 ? cs : cs * 0.70710678118654752440)
                          : cs * std::sqrt((2.0 * md - 1.0) / (2.0 * md));
      ps.sub[m] = std::sqrt(2.0 * md + 1.0);
    }
  }
  p.kind = norm == POSENC_LEGENDRE_NONE ? 0 : 1;
  p.extended = norm == POSENC_LEGENDRE_NONE ? 0 : 1;
  p.y00 = 1.0;
  p.diag = ps.diag.data();
  p.sub = ps.sub.data();
  p.lscale = nullptr;
  if (norm == POSENC_LEGENDRE_SPHARM || norm == POSENC_LEGENDRE_FULL || norm == -1) {
    ps.lscale.resize(N);
    for (size_t l = 0; l < N; ++l)
      ps.lscale[l] = norm == POSENC_LEGENDRE_FULL ? std::sqrt(double(l) + 0.5) : std::sqrt((2.0 * double(l) + 1.0) / (4.0 * kPi));
    p.lscale = ps.lscale.data();
  }
  p.ab = nullptr;
  // Coefficient table for moderate degrees (<= 1 MiB); larger degrees compute rows on the fly
  // (the kernel's coef_row fills both, so they agree bit for bit).
  if (lmax >= 2 && lmax <= 360) {
    ps.ab.assign(size_t(k->coef_table_doubles(lmax)), 0.0);
    k->coef_table(p.kind, lmax, ps.ab.data());
    p.ab = ps.ab.data();
  }
  p.fab = nullptr;
  p.fdiag = nullptr;
  p.fy00 = 0.0;
  p.fab32 = nullptr;
  p.fpole = nullptr;
  if (norm == -1 && lmax <= kSphFastLmax) {
    // The real basis' orthonormal recurrence for the column-wise fast path (sph_plan::fab).
    ps.fdiag.assign(N, 0.0);
    for (size_t m = 1; m < N; ++m) ps.fdiag[m] = m == 1 ? std::sqrt(3.0) : std::sqrt((2.0 * double(m) + 1.0) / (2.0 * double(m)));
    ps.fab.assign(size_t(lmax) * size_t(lmax + 1) + 2, 0.0);
    for (int32_t l = 1; l <= lmax; ++l) {
      double* ab = ps.fab.data() + size_t(l) * size_t(l - 1);
      for (int32_t m = 0; m < l; ++m, ab += 2) {
        const double ld = l, lm = double(l - m), lp = double(l + m);
        ab[0] = std::sqrt((4.0 * ld * ld - 1.0) / (lm * lp));
        ab[1] = m == l - 1 ? 0.0 : -std::sqrt((2.0 * ld + 1.0) * (lm - 1.0) * (lp - 1.0) / ((2.0 * ld - 3.0) * lm * lp));
      }
    }
    p.fab = ps.fab.data();
    p.fdiag = ps.fdiag.data();
    if (lmax >= kSphPoleMinLmax) {
      fill_pole_table(ps.fpole, lmax);
      p.fpole = ps.fpole.data();
    }
    p.fy00 = 1.0 / std::sqrt(4.0 * kPi);
    if (lmax <= kSphF32NativeLmax) {  // the float32-native fast path: the same table, rounded
      ps.fab32.assign(ps.fab.begin(), ps.fab.end());
      p.fab32 = ps.fab32.data();
    }
  }
}

/// The plan for (norm, lmax, csphase), built once per thread and reused while the arguments
/// repeat: building the coefficient tables costs ~20 us at lmax 40, as much as the kernel for
/// ~100 points. The caller keeps its own reference for the whole call, so a later call that
/// replaces the cached plan (even from a task this thread runs meanwhile) cannot free it.
std::shared_ptr<const plan_store> cached_plan(int norm, int32_t lmax, double cs, const sphere_kernels_t* k) {
  struct entry {
    int norm;
    int32_t lmax;
    double cs;
    std::shared_ptr<const plan_store> plan;
  };
  thread_local entry last{0, -1, 0.0, nullptr};
  if (last.plan && last.norm == norm && last.lmax == lmax && last.cs == cs) return last.plan;
  auto ps = std::make_shared<plan_store>();
  make_plan(*ps, norm, lmax, cs, k);
  last = entry{norm, lmax, cs, ps};
  return ps;
}

/// The plan of one call: the cached plan (shared, not modified) with sph_plan::stream set for an
/// output of out_bytes by the kernel table's store policy (non-temporal stores for outputs far
/// beyond the caches). Same values either way.
sph_plan call_plan(const plan_store& ps, int64_t out_bytes, const sphere_kernels_t* k) {
  sph_plan plan = ps.plan;
  plan.stream = out_bytes >= k->stream_min_bytes ? 1 : 0;
  return plan;
}

/// Scratch of a block kernel for the calling thread: kept between tiles and calls (a fresh
/// zeroed vector per tile cost ~15 % at L = 40 in memset and page faults). The kernels write
/// every scratch value before reading it, so the contents left by a previous tile do not matter.
double* tile_scratch(int64_t sd) {
  thread_local std::vector<double> buf;
  if (buf.size() < static_cast<size_t>(sd)) buf.resize(static_cast<size_t>(sd));
  return buf.data();
}

/// The front ends' per-tile coordinates (and the complex front end's real values): kept per
/// thread between tiles and calls like tile_scratch (no allocation per tile).
double* tile_front(int64_t doubles) {
  thread_local std::vector<double> buf;
  if (buf.size() < static_cast<size_t>(doubles)) buf.resize(static_cast<size_t>(doubles));
  return buf.data();
}

/// Points per tile: about 16K outputs, a multiple of `multiple` (a block size of the kernel
/// table: tile_points or sh_tile_points), independent of the thread count.
int64_t points_per_tile(int64_t per_point, int64_t multiple) {
  int64_t r = 16384 / (per_point > 0 ? per_point : 1);
  r = (r + multiple - 1) / multiple * multiple;
  return r < multiple ? multiple : r;
}

template <class T>
posenc_status check_unit_interval(const T* x, int64_t n, const char* name) {
  for (int64_t i = 0; i < n; ++i) {
    const double v = double(x[i]);
    if (!(v >= -1.0 && v <= 1.0))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "%s[%lld] must be in [-1, 1] (got %g)", name, (long long)i, v);
  }
  return POSENC_OK;
}

template <class T>
posenc_status check_xyz(const T* xyz, int64_t n, const sphere_kernels_t* k, bool allow_zero = false) {
  // Vectorized branch-free first pass (the kernel table's xyz_bad; a scalar pass was 7 % of a
  // 64k-point call at lmax 10); the loop below names the first bad point only when there is one.
  int bad = 0;
  if constexpr (std::is_same<T, double>::value) bad = k->xyz_bad_f64(xyz, n);
  else bad = k->xyz_bad_f32(xyz, n);
  if (!bad) return POSENC_OK;
  for (int64_t i = 0; i < n; ++i) {
    const double a = double(xyz[3 * i]), b = double(xyz[3 * i + 1]), c = double(xyz[3 * i + 2]);
    if (!(std::isfinite(a) && std::isfinite(b) && std::isfinite(c)))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "xyz[%lld] must be finite (got %g, %g, %g)", (long long)i, a, b, c);
    if (a == 0.0 && b == 0.0 && c == 0.0 && !allow_zero)
      return set_error(POSENC_ERR_INVALID_ARGUMENT,
                       "xyz[%lld] must have nonzero length (got 0, 0, 0; POSENC_SPH_ZERO_AS_ZERO accepts it)",
                       (long long)i);
  }
  return POSENC_OK;
}

template <class TI, class TO, class Fn>
posenc_status legendre_common(int norm, int32_t lmax, int32_t csphase, const TI* x, int64_t n,
                              TO* out, Fn pick) {
  if (norm != POSENC_LEGENDRE_NONE && norm != POSENC_LEGENDRE_SCHMIDT && norm != POSENC_LEGENDRE_SPHARM &&
      norm != POSENC_LEGENDRE_FULL)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "norm must be a posenc_legendre_norm (0..3) (got %d)", norm);
  POSENC_CHECK(check_lmax(lmax));
  if (csphase != 1 && csphase != -1)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "csphase must be +1 or -1 (got %d)", csphase);
  POSENC_CHECK(check_nonneg(n, "n"));
  int64_t total = 0;
  POSENC_CHECK(checked_mul(n, legendre_count(lmax), &total, "out [n, (lmax+1)(lmax+2)/2]", sizeof(TO)));
  POSENC_CHECK(check_not_null_if(x, n, "x"));
  POSENC_CHECK(check_not_null_if(out, total, "out"));
  POSENC_CHECK(check_unit_interval(x, n, "x"));
  if (n == 0) return POSENC_OK;
  const sphere_kernels_t* k = nullptr;
  POSENC_CHECK(sphere_kernels_active(&k));
  return guarded([&] {
    const auto hold = cached_plan(norm, lmax, double(csphase), k);
    const plan_store& ps = *hold;
    const int64_t K = legendre_count(lmax), grain = points_per_tile(K, k->tile_points), sd = k->scratch_doubles(lmax);
    const sph_plan plan = call_plan(ps, total * int64_t(sizeof(TO)), k);
    path(plan.stream ? "legendre.stream_nt" : "legendre.resident");
    work(double(sizeof(TI)) * n + double(sizeof(TO)) * total, 3.0 * total);  // ~3 flops a value (model)
    POSENC_SHAPE("n=%lld lmax=%d norm=%d", (long long)n, lmax, norm);
    auto fn = pick(k);
    parallel_tiles(tiles_of(n, grain), [&](int64_t t) {
      double* scr = tile_scratch(sd);
      const int64_t p0 = t * grain, p1 = std::min(n, p0 + grain);
      fn(&plan, x + p0, p1 - p0, out + p0 * K, scr);
    });
    return POSENC_OK;
  });
}

/// Path, roofline model (~5 flops an output value: the recurrence's multiply and FMA, the
/// azimuthal factor) and shape of a real-SH call. The fast path (lmax <= kSphFastLmax) runs the
/// orthonormal recurrence column-wise; float32 up to kSphF32NativeLmax computes in float32 on
/// AVX2 / AVX-512; outputs >= 16 MB are written with non-temporal stores.
void sh_real_profile(const sph_plan& plan, int64_t n, int32_t lmax, size_t in_bytes, size_t out_bytes) {
  if (prof_flags() == 0) return;
  const posenc_isa isa = posenc_isa_active();
  const bool native32 = out_bytes == 4 && plan.fab32 && (isa == POSENC_ISA_AVX2 || isa == POSENC_ISA_AVX512);
  path(!plan.fab ? (plan.stream ? "sh_real.general.stream_nt" : "sh_real.general")
       : native32 ? (plan.stream ? "sh_real.fast_f32.stream_nt" : "sh_real.fast_f32")
                  : (plan.stream ? "sh_real.fast.stream_nt" : "sh_real.fast"));
  const double K = double(sh_count(lmax));
  work(double(n) * (3.0 * double(in_bytes) + K * double(out_bytes)), 5.0 * double(n) * K, native32);
  POSENC_SHAPE("n=%lld lmax=%d", (long long)n, lmax);
}

template <class T>
posenc_status sh_low_run(int32_t lmax, const T* xyz, int64_t n, uint32_t flags, T* values, T* grad,
                         const sphere_kernels_t* k);

/// A pointer argument of an SH entry point and the name its messages give it.
struct sh_arg {
  const void* p;
  const char* name;
};

/// The validation every spherical-harmonic entry point shares (real, flagged, gradient, lon/lat,
/// complex), in one order: lmax; n >= 0; the size of the point input [n, in_width] (in_shape) and
/// of the output [n, planes * (lmax+1)^2] (out_shape) against int64 and address-space overflow;
/// then, when n > 0, no NULL among `inputs` and `out`. Sets *total = n * planes * (lmax+1)^2.
/// The values of the points (finite, in range) are each front end's own check.
posenc_status check_sh_args(int32_t lmax, int64_t n, int64_t in_width, int64_t in_elem, const char* in_shape,
                            int64_t planes, int64_t out_elem, const char* out_shape,
                            std::initializer_list<sh_arg> inputs, sh_arg out, int64_t* total) {
  POSENC_CHECK(check_lmax(lmax));
  POSENC_CHECK(check_nonneg(n, "n"));
  int64_t in_count = 0;
  POSENC_CHECK(checked_mul(n, in_width, &in_count, in_shape, in_elem));
  POSENC_CHECK(checked_mul(n, planes * sh_count(lmax), total, out_shape, out_elem));
  for (const sh_arg& a : inputs) POSENC_CHECK(check_not_null_if(a.p, n, a.name));
  return check_not_null_if(out.p, n, out.name);
}

template <class TI, class TO, class Fn>
posenc_status sh_real_common(int32_t lmax, const TI* xyz, int64_t n, TO* out, Fn pick) {
  int64_t total = 0;
  POSENC_CHECK(check_sh_args(lmax, n, 3, sizeof(TI), "xyz [n, 3]", 1, sizeof(TO), "out [n, (lmax+1)^2]",
                             {{xyz, "xyz"}}, {out, "out"}, &total));
  const sphere_kernels_t* k = nullptr;
  POSENC_CHECK(sphere_kernels_active(&k));
  POSENC_CHECK(check_xyz(xyz, n, k));
  if (n == 0) return POSENC_OK;
  if constexpr (std::is_same<TI, TO>::value)
    if (lmax <= kSphLowLmax) return sh_low_run<TI>(lmax, xyz, n, 0u, out, nullptr, k);
  return guarded([&] {
    const auto hold = cached_plan(-1, lmax, 1.0, k);
    const plan_store& ps = *hold;
    const int64_t K = sh_count(lmax), grain = points_per_tile(K, k->sh_tile_points), sd = k->scratch_doubles(lmax);
    const sph_plan plan = call_plan(ps, total * int64_t(sizeof(TO)), k);
    sh_real_profile(plan, n, lmax, sizeof(TI), sizeof(TO));
    auto fn = pick(k);
    parallel_tiles(tiles_of(n, grain), [&](int64_t t) {
      double* scr = tile_scratch(sd);
      const int64_t p0 = t * grain, p1 = std::min(n, p0 + grain);
      fn(&plan, xyz + 3 * p0, p1 - p0, out + p0 * K, scr);
    });
    return POSENC_OK;
  });
}

/// The table of sph_grad_coef for lmax <= kSphGradTableLmax (built once per thread and reused
/// while lmax repeats, as cached_plan), or nullptr above (the kernel computes each degree).
std::shared_ptr<const std::vector<double>> cached_grad_coef(int32_t lmax) {
  if (lmax > kSphGradTableLmax) return nullptr;
  thread_local int32_t last_lmax = -1;
  thread_local std::shared_ptr<const std::vector<double>> last;
  if (last && last_lmax == lmax) return last;
  auto t = std::make_shared<std::vector<double>>(size_t(5) * size_t(legendre_count(lmax)), 0.0);
  for (int32_t l = 1; l <= lmax; ++l)
    for (int32_t m = 0; m <= l; ++m) sph_grad_coef(l, m, t->data() + 5 * (size_t(l) * size_t(l + 1) / 2 + size_t(m)));
  last = t;
  last_lmax = lmax;
  return t;
}

/// The low-degree kernel (lmax <= kSphLowLmax, no Hessians; arguments validated): values
/// [n, K] (or nullptr) and gradients [n, 3, K] (or nullptr), tiles of about 16K outputs. Every
/// point's values depend on that point only, so any tiling gives the same bits.
template <class T>
posenc_status sh_low_run(int32_t lmax, const T* xyz, int64_t n, uint32_t flags, T* values, T* grad,
                         const sphere_kernels_t* k) {
  return guarded([&] {
    const auto coef = cached_grad_coef(lmax);
    const int64_t K = sh_count(lmax), planes = (values ? 1 : 0) + (grad ? 3 : 0);
    sph_grad_plan plan{lmax, flags, coef->data()};
    plan.stream = double(n) * double(planes * K) * double(sizeof(T)) >= double(k->stream_min_bytes) ? 1 : 0;
    // streamed: tiles 4x (a store fence ends each call; 1x: 1.03-1.1x the time at lmax 3, 16x: as 4x)
    const int64_t grain = points_per_tile(planes * K, k->sh_tile_points) * (plan.stream ? 4 : 1);
    if (prof_flags() != 0) {
      // float32 unit-sphere gradients on the paths with float32 lanes (kernels/sphere/sh_low_f32.hpp)
      const bool lanes = sizeof(T) == 4 && grad && (flags & kSphSolid) == 0 && k->grad_f32_lanes_lmax >= 0;
      // .stream_nt: float64 rows of whole vectors (lmax 1, 3) streamed (vx::vec_stream)
      const bool nt = plan.stream && sizeof(T) == 8 && (lmax == 1 || lmax == 3);
      path(lanes ? "sh_low.grad.f32_lanes" : grad ? (nt ? "sh_low.grad.stream_nt" : "sh_low.grad")
                                                  : (nt ? "sh_low.values.stream_nt" : "sh_low.values"));
      // ~4 flops an output value (polynomial, ladder, chain rule)
      work(double(n) * (3.0 * double(sizeof(T)) + double(planes * K) * double(sizeof(T))), 4.0 * double(n) * double(planes * K));
      POSENC_SHAPE("n=%lld lmax=%d flags=%u", (long long)n, lmax, flags);
    }
    parallel_tiles(tiles_of(n, grain), [&](int64_t t) {
      const int64_t p0 = t * grain, p1 = std::min(n, p0 + grain);
      if constexpr (std::is_same<T, double>::value)
        k->sh_low_f64(&plan, xyz + 3 * p0, p1 - p0, values ? values + p0 * K : nullptr, grad ? grad + p0 * 3 * K : nullptr);
      else
        k->sh_low_f32(&plan, xyz + 3 * p0, p1 - p0, values ? values + p0 * K : nullptr, grad ? grad + p0 * 3 * K : nullptr);
    });
    return POSENC_OK;
  });
}

/// Validation, tiling and profiling of posenc_sph_harm_real_grad_* and (grad == hess == nullptr,
/// values required) the flagged posenc_sph_harm_real_ex_*.
template <class T, class Fn>
posenc_status sh_grad_common(int32_t lmax, const T* xyz, int64_t n, uint32_t flags, T* values, T* grad, T* hess,
                             bool grad_required, Fn pick) {
  int64_t total = 0, tg = 0, th = 0;
  POSENC_CHECK(check_sh_args(lmax, n, 3, sizeof(T), "xyz [n, 3]", 1, sizeof(T),
                             grad_required ? "values [n, (lmax+1)^2]" : "out [n, (lmax+1)^2]", {{xyz, "xyz"}},
                             grad_required ? sh_arg{grad, "grad"} : sh_arg{values, "out"}, &total));
  const int64_t K = sh_count(lmax);
  POSENC_CHECK(checked_mul(3 * n, K, &tg, "grad [n, 3, (lmax+1)^2]", sizeof(T)));  // 3n: xyz's size, checked
  if (hess) POSENC_CHECK(checked_mul(3 * n, 3 * K, &th, "hess [n, 3, 3, (lmax+1)^2]", sizeof(T)));
  if ((flags & ~(kSphSolid | kSphZeroAsZero)) != 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "flags must combine POSENC_SPH_SOLID (1) and POSENC_SPH_ZERO_AS_ZERO (2) only (got %u)", flags);
  const sphere_kernels_t* k = nullptr;
  POSENC_CHECK(sphere_kernels_active(&k));
  POSENC_CHECK(check_xyz(xyz, n, k, (flags & kSphZeroAsZero) != 0));
  if (n == 0) return POSENC_OK;
  if (lmax <= kSphLowLmax && !hess) return sh_low_run(lmax, xyz, n, flags, values, grad, k);
  return guarded([&] {
    const auto coef = cached_grad_coef(lmax);
    sph_grad_plan plan{lmax, flags, coef ? coef->data() : nullptr};
    const int64_t planes = (values ? 1 : 0) + (grad ? 3 : 0) + (hess ? 9 : 0);
    plan.stream = double(n) * double(planes * K) * double(sizeof(T)) >= double(k->stream_min_bytes) ? 1 : 0;
    const int64_t grain = points_per_tile(planes * K, k->sh_tile_points), sd = k->grad_scratch_doubles(lmax);
    if (prof_flags() != 0) {
      const bool lanes = sizeof(T) == 4 && grad && (flags & kSphSolid) == 0 && lmax <= k->grad_f32_lanes_lmax;
      path(hess    ? (plan.stream ? "sh_grad.hess.stream_nt" : "sh_grad.hess")
           : lanes ? (plan.stream ? "sh_grad.grad.f32_lanes.stream_nt" : "sh_grad.grad.f32_lanes")
           : grad  ? (plan.stream ? "sh_grad.grad.stream_nt" : "sh_grad.grad")
                   : (plan.stream ? "sh_grad.values.stream_nt" : "sh_grad.values"));
      // ~6 flops an output value (recurrence, ladder, chain rule), per plane
      work(double(n) * (3.0 * double(sizeof(T)) + double(planes * K) * double(sizeof(T))), 6.0 * double(n) * double(planes * K));
      POSENC_SHAPE("n=%lld lmax=%d flags=%u", (long long)n, lmax, flags);
    }
    auto fn = pick(k);
    parallel_tiles(tiles_of(n, grain), [&](int64_t t) {
      double* scr = tile_scratch(sd);
      const int64_t p0 = t * grain, p1 = std::min(n, p0 + grain);
      fn(&plan, xyz + 3 * p0, p1 - p0, values ? values + p0 * K : nullptr, grad ? grad + p0 * 3 * K : nullptr,
         hess ? hess + p0 * 9 * K : nullptr, scr);
    });
    return POSENC_OK;
  });
}

// ---------------------------------------------------------------- real Wigner-D (Ivanic & Ruedenberg)
/// Blocks D^0..D^lmax, each (2l+1)^2 row-major, concatenated, for the real basis of this family.
/// Ivanic & Ruedenberg, J. Phys. Chem. 100, 6342 (1996); 102, 9099 (1998) (corrections);
/// the l = 1 block is the rotation in the (y, z, x) order of Y_1,-1, Y_1,0, Y_1,1.
void wigner_blocks(int32_t lmax, const double* R, double* out) {
  out[0] = 1.0;
  if (lmax < 1) return;
  double r1[3][3];
  const int idx[3] = {1, 2, 0};  // m = -1, 0, 1 -> y, z, x
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r1[i][j] = R[3 * idx[i] + idx[j]];
  double* d1 = out + 1;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) d1[3 * i + j] = r1[i][j];
  auto R1 = [&](int i, int j) { return r1[i + 1][j + 1]; };
  const double* prevb = d1;
  double* cur = d1 + 9;
  for (int32_t l = 2; l <= lmax; ++l) {
    const int dp = 2 * l - 1, dl = 2 * l + 1;
    auto Rp = [&](int a, int b) { return prevb[(a + l - 1) * dp + (b + l - 1)]; };
    auto P = [&](int i, int a, int b) {
      if (b == l) return R1(i, 1) * Rp(a, l - 1) - R1(i, -1) * Rp(a, -l + 1);
      if (b == -l) return R1(i, 1) * Rp(a, -l + 1) + R1(i, -1) * Rp(a, l - 1);
      return R1(i, 0) * Rp(a, b);
    };
    for (int m = -l; m <= l; ++m) {
      for (int n = -l; n <= l; ++n) {
        const int am = m < 0 ? -m : m, an = n < 0 ? -n : n;
        const double d0 = m == 0 ? 1.0 : 0.0;
        const double denom = an == l ? double(2 * l) * double(2 * l - 1) : double(l + n) * double(l - n);
        const double u = std::sqrt(double(l + m) * double(l - m) / denom);
        const double v = 0.5 * std::sqrt((1.0 + d0) * double(l + am - 1) * double(l + am) / denom) * (1.0 - 2.0 * d0);
        const double w = -0.5 * std::sqrt(double(l - am - 1) * double(l - am) / denom) * (1.0 - d0);
        double val = 0.0;
        if (u != 0.0) val += u * P(0, m, n);
        if (v != 0.0) {
          double V;
          if (m == 0) V = P(1, 1, n) + P(-1, -1, n);
          else if (m > 0) V = m == 1 ? P(1, 0, n) * std::sqrt(2.0) : P(1, m - 1, n) - P(-1, -m + 1, n);
          else V = m == -1 ? P(-1, 0, n) * std::sqrt(2.0) : P(1, m + 1, n) + P(-1, -m - 1, n);
          val += v * V;
        }
        if (w != 0.0) {
          const double Wv = m > 0 ? P(1, m + 1, n) + P(-1, -m - 1, n) : P(1, m - 1, n) - P(-1, -m + 1, n);
          val += w * Wv;
        }
        cur[(m + l) * dl + (n + l)] = val;
      }
    }
    prevb = cur;
    cur += dl * dl;
  }
}

posenc_status check_rotation(const double* R) {
  POSENC_CHECK(check_not_null(R, "rotation"));
  for (int i = 0; i < 9; ++i)
    if (!std::isfinite(R[i]))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "rotation[%d] must be finite (got %g)", i, R[i]);
  double dev = 0.0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = 0.0;
      for (int k = 0; k < 3; ++k) s += R[3 * k + i] * R[3 * k + j];
      dev = std::max(dev, std::fabs(s - (i == j ? 1.0 : 0.0)));
    }
  if (!(dev <= 1e-9))
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "rotation must be orthogonal: max |R^T R - I| = %g exceeds 1e-9", dev);
  const double det = R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) +
                     R[2] * (R[3] * R[7] - R[4] * R[6]);
  if (!(det > 0.0))
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "rotation must be proper (det = +1), got det = %g", det);
  return POSENC_OK;
}

int64_t wigner_count(int32_t lmax) {
  const int64_t L = lmax;
  return (L + 1) * (2 * L + 1) * (2 * L + 3) / 3;
}

}  // namespace

extern "C" POSENC_API posenc_status posenc_legendre_f64(posenc_legendre_norm norm, int32_t lmax, int32_t csphase,
                                                        const double* x, int64_t n, double* out) {
  api_guard g("posenc_legendre_f64");
  return legendre_common(enum_bits(norm), lmax, csphase, x, n, out, [](const sphere_kernels_t* k) { return k->legendre_f64; });
}

extern "C" POSENC_API posenc_status posenc_legendre_f32(posenc_legendre_norm norm, int32_t lmax, int32_t csphase,
                                                        const float* x, int64_t n, float* out) {
  api_guard g("posenc_legendre_f32");
  return legendre_common(enum_bits(norm), lmax, csphase, x, n, out, [](const sphere_kernels_t* k) { return k->legendre_f32; });
}

extern "C" POSENC_API posenc_status posenc_legendre_poly_f64(int32_t lmax, const double* x, int64_t n, double* out) {
  api_guard g("posenc_legendre_poly_f64");
  POSENC_CHECK(check_lmax(lmax));
  POSENC_CHECK(check_nonneg(n, "n"));
  int64_t total = 0;
  POSENC_CHECK(checked_mul(n, int64_t(lmax) + 1, &total, "out [n, lmax+1]", sizeof(double)));
  POSENC_CHECK(check_not_null_if(x, n, "x"));
  POSENC_CHECK(check_not_null_if(out, total, "out"));
  POSENC_CHECK(check_unit_interval(x, n, "x"));
  if (n == 0) return POSENC_OK;
  const sphere_kernels_t* k = nullptr;
  POSENC_CHECK(sphere_kernels_active(&k));
  return guarded([&] {
    const int64_t K = int64_t(lmax) + 1, grain = points_per_tile(K, k->tile_points), sd = k->scratch_doubles(0);
    work(8.0 * double(n) * double(K + 1), 3.0 * double(n) * double(K));  // ~3 flops a value (model)
    POSENC_SHAPE("n=%lld lmax=%d", (long long)n, lmax);
    parallel_tiles(tiles_of(n, grain), [&](int64_t t) {
      const int64_t p0 = t * grain, p1 = std::min(n, p0 + grain);
      k->legendre_poly_f64(lmax, x + p0, p1 - p0, out + p0 * K, tile_scratch(sd));  // emitter stage: rows of one feature
    });
    return POSENC_OK;
  });
}

extern "C" POSENC_API posenc_status posenc_sph_kernel_f64(int32_t lmax, const double* weights, const double* cos_gamma,
                                                          int64_t n, double* out) {
  api_guard g("posenc_sph_kernel_f64");
  POSENC_CHECK(check_lmax(lmax));
  POSENC_CHECK(check_nonneg(n, "n"));
  int64_t total = 0;  // n float64 values: n = 2^62 would be read and written past any array
  POSENC_CHECK(checked_mul(n, 1, &total, "cos_gamma / out [n]", sizeof(double)));
  POSENC_CHECK(check_not_null_if(cos_gamma, n, "cos_gamma"));
  POSENC_CHECK(check_not_null_if(out, n, "out"));
  if (weights)
    for (int32_t l = 0; l <= lmax; ++l)
      if (!std::isfinite(weights[l]))
        return set_error(POSENC_ERR_INVALID_ARGUMENT, "weights[%d] must be finite (got %g)", l, weights[l]);
  POSENC_CHECK(check_unit_interval(cos_gamma, n, "cos_gamma"));
  if (n == 0) return POSENC_OK;
  const sphere_kernels_t* k = nullptr;
  POSENC_CHECK(sphere_kernels_active(&k));
  return guarded([&] {
    const size_t N = size_t(lmax) + 1;
    std::vector<double> c(N), alpha(N + 1), beta(N + 1);
    for (size_t l = 0; l < N; ++l) c[l] = (weights ? weights[l] : 1.0) * (2.0 * double(l) + 1.0) / (4.0 * kPi);
    for (size_t kk = 0; kk <= N; ++kk) {
      alpha[kk] = (2.0 * double(kk) + 1.0) / (double(kk) + 1.0);
      beta[kk] = -double(kk) / (double(kk) + 1.0);
    }
    const int64_t grain = 4096;
    work(16.0 * double(n), 4.0 * double(n) * double(N));  // Clenshaw: 4 flops a degree
    POSENC_SHAPE("n=%lld lmax=%d", (long long)n, lmax);
    parallel_tiles(tiles_of(n, grain), [&](int64_t t) {
      const int64_t p0 = t * grain, p1 = std::min(n, p0 + grain);
      k->legendre_sum_f64(lmax, c.data(), alpha.data(), beta.data(), cos_gamma + p0, p1 - p0, out + p0);
    });
    return POSENC_OK;
  });
}

extern "C" POSENC_API posenc_status posenc_sph_harm_real_f64(int32_t lmax, const double* xyz, int64_t n, double* out) {
  api_guard g("posenc_sph_harm_real_f64");
  return sh_real_common(lmax, xyz, n, out, [](const sphere_kernels_t* k) { return k->sh_real_f64; });
}

extern "C" POSENC_API posenc_status posenc_sph_harm_real_f32(int32_t lmax, const float* xyz, int64_t n, float* out) {
  api_guard g("posenc_sph_harm_real_f32");
  return sh_real_common(lmax, xyz, n, out, [](const sphere_kernels_t* k) { return k->sh_real_f32; });
}

extern "C" POSENC_API posenc_status posenc_sph_harm_real_ex_f64(int32_t lmax, const double* xyz, int64_t n,
                                                                uint32_t flags, double* out) {
  api_guard g("posenc_sph_harm_real_ex_f64");
  if (flags == 0) return sh_real_common(lmax, xyz, n, out, [](const sphere_kernels_t* k) { return k->sh_real_f64; });
  return sh_grad_common<double>(lmax, xyz, n, flags, out, nullptr, nullptr, false,
                                [](const sphere_kernels_t* k) { return k->sh_grad_f64; });
}

extern "C" POSENC_API posenc_status posenc_sph_harm_real_ex_f32(int32_t lmax, const float* xyz, int64_t n,
                                                                uint32_t flags, float* out) {
  api_guard g("posenc_sph_harm_real_ex_f32");
  if (flags == 0) return sh_real_common(lmax, xyz, n, out, [](const sphere_kernels_t* k) { return k->sh_real_f32; });
  return sh_grad_common<float>(lmax, xyz, n, flags, out, nullptr, nullptr, false,
                               [](const sphere_kernels_t* k) { return k->sh_grad_f32; });
}

extern "C" POSENC_API posenc_status posenc_sph_harm_real_grad_f64(int32_t lmax, const double* xyz, int64_t n,
                                                                  uint32_t flags, double* values, double* grad,
                                                                  double* hess) {
  api_guard g("posenc_sph_harm_real_grad_f64");
  return sh_grad_common<double>(lmax, xyz, n, flags, values, grad, hess, true,
                                [](const sphere_kernels_t* k) { return k->sh_grad_f64; });
}

extern "C" POSENC_API posenc_status posenc_sph_harm_real_grad_f32(int32_t lmax, const float* xyz, int64_t n,
                                                                  uint32_t flags, float* values, float* grad,
                                                                  float* hess) {
  api_guard g("posenc_sph_harm_real_grad_f32");
  return sh_grad_common<float>(lmax, xyz, n, flags, values, grad, hess, true,
                               [](const sphere_kernels_t* k) { return k->sh_grad_f32; });
}

extern "C" POSENC_API posenc_status posenc_sph_harm_real_lonlat_f64(int32_t lmax, const double* lonlat, int64_t n,
                                                                    double* out) {
  api_guard g("posenc_sph_harm_real_lonlat_f64");
  int64_t total = 0;
  POSENC_CHECK(check_sh_args(lmax, n, 2, sizeof(double), "lonlat [n, 2]", 1, sizeof(double), "out [n, (lmax+1)^2]",
                             {{lonlat, "lonlat"}}, {out, "out"}, &total));
  const sphere_kernels_t* k = nullptr;
  POSENC_CHECK(sphere_kernels_active(&k));
  // The kernel table's vectorized first pass (lonlat_bad_f64); the loop below names the first
  // bad point only when there is one.
  const int bad = n > 0 ? k->lonlat_bad_f64(lonlat, n) : 0;
  for (int64_t i = 0; bad && i < n; ++i) {
    const double lon = lonlat[2 * i], lat = lonlat[2 * i + 1];
    if (!std::isfinite(lon))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "lonlat[%lld] longitude must be finite (got %g)", (long long)i, lon);
    if (!(lat >= -90.0 && lat <= 90.0))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "lonlat[%lld] latitude must be in [-90, 90] degrees (got %g)",
                       (long long)i, lat);
  }
  if (n == 0) return POSENC_OK;
  return guarded([&] {
    // The xyz path's kernels and plans on the points' unit vectors (vectorized sin / cos in
    // degrees): the low-degree kernel converts each block in registers (sh_low_lonlat_f64);
    // above kSphLowLmax each tile is converted first (lonlat_xyz_f64) and the same writers
    // (whole lines, non-temporal stores for large outputs) apply.
    const int64_t K = sh_count(lmax);
    const bool low = lmax <= kSphLowLmax;
    std::shared_ptr<const plan_store> hold;
    std::shared_ptr<const std::vector<double>> coef;
    sph_plan plan{};
    if (low) {
      coef = cached_grad_coef(lmax);
    } else {
      hold = cached_plan(-1, lmax, 1.0, k);
      plan = call_plan(*hold, total * int64_t(sizeof(double)), k);
    }
    const sph_grad_plan gp{lmax, 0u, low ? coef->data() : nullptr};
    const int64_t grain = points_per_tile(K, k->sh_tile_points), sd = low ? 0 : k->scratch_doubles(lmax);
    path(low ? "sh_lonlat.low" : !plan.fab ? "sh_lonlat.general" : plan.stream ? "sh_lonlat.fast.stream_nt" : "sh_lonlat.fast");
    work(double(n) * 8.0 * double(2 + K), 5.0 * double(n) * double(K));
    POSENC_SHAPE("n=%lld lmax=%d", (long long)n, lmax);
    parallel_tiles(tiles_of(n, grain), [&](int64_t t) {
      const int64_t p0 = t * grain, np = std::min(n, p0 + grain) - p0;
      if (low) {
        k->sh_low_lonlat_f64(&gp, lonlat + 2 * p0, np, out + p0 * K);
        return;
      }
      double* xyz = tile_front(3 * np);
      k->lonlat_xyz_f64(lonlat + 2 * p0, np, xyz);
      k->sh_real_f64(&plan, xyz, np, out + p0 * K, tile_scratch(sd));
    });
    return POSENC_OK;
  });
}

extern "C" POSENC_API posenc_status posenc_sph_harm_complex_f64(int32_t lmax, const double* theta, const double* phi,
                                                                int64_t n, double* out) {
  api_guard g("posenc_sph_harm_complex_f64");
  int64_t total = 0;
  POSENC_CHECK(check_sh_args(lmax, n, 1, sizeof(double), "theta, phi [n]", 2, sizeof(double),
                             "out [n, (lmax+1)^2, 2]", {{theta, "theta"}, {phi, "phi"}}, {out, "out"}, &total));
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(theta[i]))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "theta[%lld] must be finite (got %g)", (long long)i, theta[i]);
    if (!std::isfinite(phi[i]))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "phi[%lld] must be finite (got %g)", (long long)i, phi[i]);
  }
  if (n == 0) return POSENC_OK;
  const sphere_kernels_t* k = nullptr;
  POSENC_CHECK(sphere_kernels_active(&k));
  return guarded([&] {
    const int64_t K = sh_count(lmax);
    const bool stream = double(total) * 8.0 >= double(k->stream_min_bytes);
    work(double(n) * 8.0 * double(2 + 2 * K), 5.0 * double(n) * double(K));
    POSENC_SHAPE("n=%lld lmax=%d", (long long)n, lmax);
    if (lmax <= kSphLowLmax) {
      // one pass: the complex rows from the kernel's registers; large outputs (lmax 1, 3) in
      // non-temporal lines, as the real entry point's (no read for ownership of the output)
      const auto coef = cached_grad_coef(lmax);
      sph_grad_plan gp{lmax, 0u, coef->data()};
      gp.stream = stream ? 1 : 0;
      // streamed: tiles 4x, as sh_low_run (a store fence ends each call)
      const int64_t grain = points_per_tile(2 * K, k->sh_tile_points) * (stream ? 4 : 1);
      path(stream && (lmax == 1 || lmax == 3) ? "sh_complex.low.stream_nt" : "sh_complex.low");
      parallel_tiles(tiles_of(n, grain), [&](int64_t t) {
        // SciPy: P_l^m(cos theta) carries |sin theta|^m, the azimuth e^{i m phi}: the direction
        // (|sin theta| cos phi, |sin theta| sin phi, cos theta), converted in the kernel
        const int64_t p0 = t * grain, np = std::min(n, p0 + grain) - p0;
        k->sh_low_complex_f64(&gp, theta + p0, phi + p0, np, out + 2 * p0 * K);
      });
      return POSENC_OK;
    }
    const auto hold = cached_plan(-1, lmax, 1.0, k);
    const plan_store& ps = *hold;
    const int64_t grain = points_per_tile(2 * K, k->sh_tile_points), sd = k->scratch_doubles(lmax);
    path(ps.plan.fab ? "sh_complex.fast" : "sh_complex.general");
    parallel_tiles(tiles_of(n, grain), [&](int64_t t) {
      const int64_t p0 = t * grain, p1 = std::min(n, p0 + grain), np = p1 - p0;
      double* const xyz = tile_front(3 * np + np * K);
      double* const re = xyz + 3 * np;
      k->thetaphi_xyz_f64(theta + p0, phi + p0, np, xyz);
      k->sh_real_f64(&ps.plan, xyz, np, re, tile_scratch(sd));
      // Y_l^m = (-1)^m (a + i b) / sqrt 2, Y_l^{-m} = (-1)^m conj(Y_l^m) (a = re[c+m], b = re[c-m])
      k->complex_from_real_f64(lmax, re, np, out + 2 * p0 * K);
    });
    return POSENC_OK;
  });
}

extern "C" POSENC_API posenc_status posenc_wigner_d_real_f64(int32_t lmax, const double* rotation, double* out) {
  api_guard g("posenc_wigner_d_real_f64");
  POSENC_CHECK(check_lmax(lmax));
  if (lmax > 65535)
    return set_error(POSENC_ERR_SIZE_OVERFLOW, "lmax must be <= 65535 for the Wigner-D blocks (got %d)", lmax);
  POSENC_CHECK(check_not_null(out, "out"));
  POSENC_CHECK(check_rotation(rotation));
  return guarded([&] {
    std::vector<double> tmp(size_t(wigner_count(lmax)));
    wigner_blocks(lmax, rotation, tmp.data());
    std::copy(tmp.begin(), tmp.end(), out);
    return POSENC_OK;
  });
}

extern "C" POSENC_API posenc_status posenc_sph_rotate_real_f64(int32_t lmax, const double* rotation,
                                                               const double* coeffs, int64_t n, double* out) {
  api_guard g("posenc_sph_rotate_real_f64");
  POSENC_CHECK(check_lmax(lmax));
  if (lmax > 65535)
    return set_error(POSENC_ERR_SIZE_OVERFLOW, "lmax must be <= 65535 for the Wigner-D blocks (got %d)", lmax);
  POSENC_CHECK(check_nonneg(n, "n"));
  int64_t total = 0;
  POSENC_CHECK(checked_mul(n, sh_count(lmax), &total, "coeffs/out [n, (lmax+1)^2]", sizeof(double)));
  POSENC_CHECK(check_rotation(rotation));
  POSENC_CHECK(check_not_null_if(coeffs, total, "coeffs"));
  POSENC_CHECK(check_not_null_if(out, total, "out"));
  if (n == 0) return POSENC_OK;
  const sphere_kernels_t* k = nullptr;
  POSENC_CHECK(sphere_kernels_active(&k));
  return guarded([&] {
    std::vector<double> d(size_t(wigner_count(lmax))), dt(d.size());
    wigner_blocks(lmax, rotation, d.data());
    size_t off = 0;
    for (int32_t l = 0; l <= lmax; ++l) {
      const size_t dl = size_t(2 * l + 1);
      for (size_t a = 0; a < dl; ++a)
        for (size_t b = 0; b < dl; ++b) dt[off + b * dl + a] = d[off + a * dl + b];
      off += dl * dl;
    }
    const int64_t K = sh_count(lmax), grain = points_per_tile(K, k->tile_points);
    // In place (out == coeffs) or overlapping: each tile reads a private copy of its rows.
    const bool overlap = out < coeffs + total && coeffs < out + total;
    path(overlap ? "sph_rotate.overlap_copy" : "sph_rotate.direct");
    work(16.0 * double(total), 2.0 * double(n) * double(d.size()));  // a matrix-vector product per block
    POSENC_SHAPE("n=%lld lmax=%d", (long long)n, lmax);
    parallel_tiles(tiles_of(n, grain), [&](int64_t t) {
      const int64_t p0 = t * grain, p1 = std::min(n, p0 + grain);
      const double* src = coeffs + p0 * K;
      std::vector<double> copy;
      if (overlap) {
        copy.assign(src, src + (p1 - p0) * K);
        src = copy.data();
      }
      k->rotate_f64(lmax, dt.data(), src, p1 - p0, out + p0 * K);
    });
    return POSENC_OK;
  });
}
