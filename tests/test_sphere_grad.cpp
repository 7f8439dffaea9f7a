// SPDX-License-Identifier: Apache-2.0 OR MIT
// Tests of posenc_sph_harm_real_grad_* and posenc_sph_harm_real_ex_*: gradients and Hessians of
// real SH (unit sphere and solid) against long-double finite differences of an independent
// long-double evaluation (trigonometric azimuth, Legendre recurrence in long double) and against
// sphericart 2.0.3 (the vendored CPU core, compiled into this test only), orthogonality of the
// unit-sphere gradient to x, values against posenc_sph_harm_real_f64, float32 against float64,
// determinism over thread counts, degree 1000, the zero-vector rule and bad input. Every test
// runs on every ISA path (IsaTest).
#include "tests/test_common.hpp"

#if defined(POSENC_HAVE_SPHERICART)
#include "sphericart.hpp"
#endif

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <vector>

using namespace posenc_test;

namespace {

constexpr long double kPiL = 3.141592653589793238462643383279502884L;

#if defined(__aarch64__) || defined(__SANITIZE_ADDRESS__)
constexpr bool kSlow = true;  // qemu (software quad long double) / ASan: fewer reference points
#else
constexpr bool kSlow = false;
#endif

int64_t nsh(int L) { return int64_t(L + 1) * (L + 1); }

/// Independent reference: real orthonormal SH (posenc.h real form) of x in long double, by the
/// fully normalized Legendre recurrence in cos(theta) = z / r and cos / sin (m phi) from
/// phi = atan2(y, x); solid: times r^l. out[l(l+1)+m].
void ref_sh(int L, const long double* x, bool solid, long double* out) {
  const long double r = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
  const long double ct = x[2] / r, st = std::sqrt(x[0] * x[0] + x[1] * x[1]) / r;
  // near the poles cos theta = s (1 - t), t = rho^2 / (r (r + |z|)) accurate to its own ulps: the
  // rounding of z / r (~1 ulp of 1) would make the zonal values noisy at the l^2 ulp level, which
  // the finite differences of the Hessian amplify by 1 / h^2
  const bool nearp = std::fabs(ct) > 0.5L;
  const long double sg = x[2] < 0 ? -1.0L : 1.0L;
  const long double ch = nearp ? sg : ct;
  const long double cl = nearp ? -sg * (x[0] * x[0] + x[1] * x[1]) / (r * (r + std::fabs(x[2]))) : 0.0L;
  const long double phi = std::atan2(x[1], x[0]);
  std::vector<long double> pmm(size_t(L) + 1), p1(size_t(L) + 1), p2(size_t(L) + 1);
  // Pbar_l^m = sqrt((2l+1)/(4 pi) (l-m)!/(l+m)!) P_l^m (no Condon-Shortley phase).
  pmm[0] = 1.0L / std::sqrt(4.0L * kPiL);
  for (int m = 1; m <= L; ++m) pmm[size_t(m)] = pmm[size_t(m) - 1] * std::sqrt((2.0L * m + 1.0L) / (2.0L * m)) * st;
  std::vector<long double> cph(size_t(L) + 1), sph(size_t(L) + 1);
  for (int m = 0; m <= L; ++m) {
    cph[size_t(m)] = std::sqrt(2.0L) * std::cos(m * phi);
    sph[size_t(m)] = std::sqrt(2.0L) * std::sin(m * phi);
  }
  long double rl = 1.0L;
  for (int l = 0; l <= L; ++l) {
    for (int m = 0; m <= l; ++m) {
      long double v;
      if (m == l) v = pmm[size_t(m)];
      else if (m == l - 1) v = std::sqrt(2.0L * m + 3.0L) * (ch * pmm[size_t(m)] + cl * pmm[size_t(m)]);
      else {
        const long double a = std::sqrt((4.0L * l * l - 1.0L) / ((long double)(l - m) * (l + m)));
        const long double b = std::sqrt(((long double)(l - 1) * (l - 1) - (long double)m * m) / (4.0L * (l - 1) * (l - 1) - 1.0L));
        v = a * (ch * p1[size_t(m)] + (cl * p1[size_t(m)] - b * p2[size_t(m)]));
      }
      p2[size_t(m)] = p1[size_t(m)];
      p1[size_t(m)] = v;
      const long double s = solid ? rl : 1.0L;
      const int64_t c = int64_t(l) * (l + 1);
      if (m == 0) out[c] = v * s;
      else {
        out[c + m] = v * cph[size_t(m)] * s;
        out[c - m] = v * sph[size_t(m)] * s;
      }
    }
    rl *= r;
  }
}

/// 8th-order central finite differences of ref_sh: grad [3, K] (step h) and (hess != nullptr)
/// hess [3, 3, K] (step hh) at x. First derivatives: weights 4/5, -1/5, 4/105, -1/280; second: the
/// 8th-order three-point-family stencil; mixed: the first-derivative stencil in both axes.
void ref_fd(int L, const double* xd, bool solid, long double h, std::vector<long double>& val,
            std::vector<long double>& grad, std::vector<long double>* hess, long double hh = 0) {
  const int64_t K = nsh(L);
  const long double c1[5] = {0.0L, 4.0L / 5.0L, -1.0L / 5.0L, 4.0L / 105.0L, -1.0L / 280.0L};
  const long double c2[5] = {-205.0L / 72.0L, 8.0L / 5.0L, -1.0L / 5.0L, 8.0L / 315.0L, -1.0L / 560.0L};
  const long double x0[3] = {xd[0], xd[1], xd[2]};
  std::vector<long double> f(size_t(K), 0.0L);
  auto eval = [&](long double da, int a, long double db, int b) {
    long double x[3] = {x0[0], x0[1], x0[2]};
    x[a] += da;
    x[b] += db;
    ref_sh(L, x, solid, f.data());
  };
  val.assign(size_t(K), 0.0L);
  eval(0, 0, 0, 0);
  val = f;
  grad.assign(size_t(3 * K), 0.0L);
  for (int a = 0; a < 3; ++a)
    for (int k = 1; k <= 4; ++k)
      for (int sg = -1; sg <= 1; sg += 2) {
        eval(sg * k * h, a, 0, a);
        for (int64_t i = 0; i < K; ++i) grad[size_t(a * K + i)] += sg * c1[k] * f[size_t(i)] / h;
      }
  if (!hess) return;
  h = hh;  // the Hessian's stencils: a shorter step (their 8th-order truncation is the larger error)
  hess->assign(size_t(9 * K), 0.0L);
  for (int a = 0; a < 3; ++a) {
    for (int64_t i = 0; i < K; ++i) (*hess)[size_t((4 * a) * K + i)] += c2[0] * val[size_t(i)] / (h * h);
    for (int k = 1; k <= 4; ++k)
      for (int sg = -1; sg <= 1; sg += 2) {
        eval(sg * k * h, a, 0, a);
        for (int64_t i = 0; i < K; ++i) (*hess)[size_t((4 * a) * K + i)] += c2[k] * f[size_t(i)] / (h * h);
      }
    for (int b = a + 1; b < 3; ++b) {
      for (int ka = 1; ka <= 4; ++ka)
        for (int sa = -1; sa <= 1; sa += 2)
          for (int kb = 1; kb <= 4; ++kb)
            for (int sb = -1; sb <= 1; sb += 2) {
              eval(sa * ka * h, a, sb * kb * h, b);
              const long double w = sa * c1[ka] * sb * c1[kb] / (h * h);
              for (int64_t i = 0; i < K; ++i) (*hess)[size_t((3 * a + b) * K + i)] += w * f[size_t(i)];
            }
      for (int64_t i = 0; i < K; ++i) (*hess)[size_t((3 * b + a) * K + i)] = (*hess)[size_t((3 * a + b) * K + i)];
    }
  }
}

int g_worst_l = -1;  // degree of the last block_err's worst block (diagnostics)

/// Worst block-relative error of `got` against `ref` for one point: planes of K values
/// (values: 1, grad: 3, hess: 9); for each degree l, max |got - ref| over the block's orders and
/// planes divided by the rms of ref over them. Blocks whose reference rms is below `floor`
/// (derivatives of degree 0, solid Hessians of degree 1) count absolute errors.
template <class A, class B>
double block_err(int L, int planes, const A* got, const B* ref, int64_t stride, double floor = 1e-300) {
  double worst = 0;
  for (int l = 0; l <= L; ++l) {
    long double ss = 0, mx = 0;
    for (int p = 0; p < planes; ++p)
      for (int m = -l; m <= l; ++m) {
        const int64_t k = int64_t(p) * stride + int64_t(l) * (l + 1) + m;
        const long double rv = (long double)ref[k];
        ss += rv * rv;
        const long double d = std::fabs((long double)got[k] - rv);
        mx = std::isnan((double)got[k]) ? INFINITY : std::max(mx, d);
      }
    const long double rms = std::sqrt(ss / (planes * (2 * l + 1)));
    const double e = double(rms > floor ? mx / rms : mx);
    if (e > worst) g_worst_l = l;
    worst = std::max(worst, e);
  }
  return worst;
}

/// Test points: random directions at several lengths, the poles, near-pole and equator points.
std::vector<double> test_points(int nrand, unsigned seed) {
  std::vector<double> p = {0, 0, 1, 0, 0, -2.5, 0.3, -0.2, 0.9, 1e-3, 2e-3, 0.999627, -0.02, 0.01, -0.999627,
                           1, 0, 0, 0, -1, 0, 0.6, 0.8, 0};
  std::mt19937_64 g(seed);
  std::normal_distribution<double> nd;
  std::uniform_real_distribution<double> ud(0.2, 5.0);
  for (int i = 0; i < nrand; ++i) {
    double v[3] = {nd(g), nd(g), nd(g)};
    const double s = ud(g) / std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (double c : v) p.push_back(c * s);
  }
  return p;
}

/// Long-double finite-difference reference of every test point, cached across ISA runs.
struct fd_ref {
  std::vector<long double> val, grad, hess;
};
const std::vector<fd_ref>& fd_refs(int L, bool solid, const std::vector<double>& pts) {
  static std::map<std::pair<int, bool>, std::vector<fd_ref>> cache;
  auto key = std::make_pair(L, solid);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  std::vector<fd_ref> v(pts.size() / 3);
  for (size_t i = 0; i < v.size(); ++i) {
    const double* x = pts.data() + 3 * i;
    const double r = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    // step: (h l / r) small enough for the 8th-order truncation, large enough for rounding
    // Steps (h l / r) <= 0.02 keep the 8th-order truncation below 1e-13 of a degree-l block,
    // while the rounding of the long double evaluations (~1e-18 relative) divided by h^2 must
    // stay small against the Hessian of the low degrees (~l^2): the Hessians of lower degrees
    // come from stencils with longer steps (0.02 r / (Lc + 1) for degrees <= Lc = 20, 10, 5).
    const long double h = 0.02L * r / (L + 1);
    ref_fd(L, x, solid, h, v[i].val, v[i].grad, &v[i].hess, h);
    for (int Lc : {20, 10, 5}) {
      if (Lc >= L) continue;
      std::vector<long double> tv, tg, th;
      ref_fd(Lc, x, solid, 0.02L * r / (Lc + 1), tv, tg, &th, 0.02L * r / (Lc + 1));
      const int64_t K = nsh(L), Kc = nsh(Lc);
      for (int ab = 0; ab < 9; ++ab)
        for (int64_t k = 0; k < Kc; ++k) v[i].hess[size_t(ab * K + k)] = th[size_t(ab * Kc + k)];
    }
  }
  return cache.emplace(key, std::move(v)).first->second;
}

class SphGrad : public IsaTest {};

TEST_P(SphGrad, MatchesLongDoubleFiniteDifferencesToDegree40) {
  const int L = 40;
  const std::vector<double> pts = test_points(kSlow ? 2 : 6, 11);
  const int64_t n = int64_t(pts.size() / 3), K = nsh(L);
  for (bool solid : {false, true}) {
    const auto& ref = fd_refs(L, solid, pts);
    std::vector<double> v(size_t(n * K)), g(size_t(3 * n * K)), h(size_t(9 * n * K));
    poison(v), poison(g), poison(h);
    ASSERT_EQ(posenc_sph_harm_real_grad_f64(L, pts.data(), n, solid ? POSENC_SPH_SOLID : 0u, v.data(), g.data(), h.data()),
              POSENC_OK);
    EXPECT_EQ(count_poison(v) + count_poison(g) + count_poison(h), 0u);
    double ev = 0, eg = 0, eh = 0;
    for (int64_t i = 0; i < n; ++i) {
      ev = std::max(ev, block_err(L, 1, v.data() + i * K, ref[size_t(i)].val.data(), K));
      eg = std::max(eg, block_err(L, 3, g.data() + i * 3 * K, ref[size_t(i)].grad.data(), K, 1e-6));
      eh = std::max(eh, block_err(L, 9, h.data() + i * 9 * K, ref[size_t(i)].hess.data(), K, 1e-6));
    }
    EXPECT_LE(ev, 2e-13) << "solid " << solid;
    EXPECT_LE(eg, 1e-12) << "solid " << solid;
    // the reference's own error: rounding of the long double evaluations / h^2 (1.5e-12 measured
    // at l = 21 on the pole); sphericart's Hessians agree to 2.2e-13 (MatchesSphericart...)
    EXPECT_LE(eh, 3e-12) << "solid " << solid;
    RecordProperty(solid ? "fd_solid_grad_hess" : "fd_unit_grad_hess", std::to_string(eg) + " " + std::to_string(eh));
    printf("solid %d: values %.3g grad %.3g hess %.3g\n", int(solid), ev, eg, eh);
    // Lower lmax: the same values, a prefix of each plane.
    for (int Ls : {0, 1, 2, 3, 10}) {
      const int64_t Ks = nsh(Ls);
      std::vector<double> vs(size_t(n * Ks)), gs(size_t(3 * n * Ks)), hs(size_t(9 * n * Ks));
      ASSERT_EQ(posenc_sph_harm_real_grad_f64(Ls, pts.data(), n, solid ? POSENC_SPH_SOLID : 0u, vs.data(), gs.data(), hs.data()),
                POSENC_OK);
      for (int64_t i = 0; i < n; ++i)
        for (int p = 0; p < 9; ++p)
          for (int64_t k = 0; k < Ks; ++k) {
            if (p == 0) {
              ASSERT_EQ(vs[size_t(i * Ks + k)], v[size_t(i * K + k)]) << Ls;
            }
            if (p < 3) {
              ASSERT_EQ(gs[size_t((i * 3 + p) * Ks + k)], g[size_t((i * 3 + p) * K + k)]) << Ls;
            }
            ASSERT_EQ(hs[size_t((i * 9 + p) * Ks + k)], h[size_t((i * 9 + p) * K + k)]) << Ls;
          }
    }
  }
}

TEST_P(SphGrad, UnitGradientOrthogonalToXAndValuesMatchSphHarmReal) {
  const int L = 40;
  const std::vector<double> pts = test_points(200, 5);
  const int64_t n = int64_t(pts.size() / 3), K = nsh(L);
  std::vector<double> v(size_t(n * K)), g(size_t(3 * n * K)), y(size_t(n * K));
  ASSERT_EQ(posenc_sph_harm_real_grad_f64(L, pts.data(), n, 0u, v.data(), g.data(), nullptr), POSENC_OK);
  ASSERT_EQ(posenc_sph_harm_real_f64(L, pts.data(), n, y.data()), POSENC_OK);
  double ev = 0, eo = 0;
  for (int64_t i = 0; i < n; ++i) {
    ev = std::max(ev, block_err(L, 1, v.data() + i * K, y.data() + i * K, K));
    const double* x = pts.data() + 3 * i;
    const double r = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    std::vector<double> dot(static_cast<size_t>(K));
    for (int64_t k = 0; k < K; ++k)
      dot[size_t(k)] = (x[0] * g[size_t((i * 3) * K + k)] + x[1] * g[size_t((i * 3 + 1) * K + k)] +
                        x[2] * g[size_t((i * 3 + 2) * K + k)]) / r;
    // |u . grad Y| relative to the rms of the gradient block (sqrt(l (l+1) / 3) / r times the values')
    for (int l = 1; l <= L; ++l) {
      double mx = 0, ss = 0;
      for (int m = -l; m <= l; ++m) {
        const int64_t k = int64_t(l) * (l + 1) + m;
        mx = std::max(mx, std::fabs(dot[size_t(k)]));
        for (int a = 0; a < 3; ++a) ss += g[size_t((i * 3 + a) * K + k)] * g[size_t((i * 3 + a) * K + k)];
      }
      eo = std::max(eo, mx / std::sqrt(ss / (3 * (2 * l + 1))));
    }
  }
  // posenc_sph_harm_real_f64 forms cos theta as z / r, whose rounding its zonal column turns
  // into ~l^2 ulp near the poles (8.8e-13 here); this kernel carries 1 - |cos theta| (1.2e-13)
  EXPECT_LE(ev, 1.5e-12);
  EXPECT_LE(eo, 1e-13);
  printf("values vs posenc_sph_harm_real_f64 %.3g, |u.grad| %.3g (block-relative)\n", ev, eo);
}

#if defined(POSENC_HAVE_SPHERICART)
TEST_P(SphGrad, MatchesSphericartGradientsAndHessians) {
  const std::vector<double> pts = test_points(300, 7);
  const int64_t n = int64_t(pts.size() / 3);
  for (int L : {1, 2, 3, 6, 7, 10, 20, 40}) {
    const int64_t K = nsh(L);
    for (bool solid : {false, true}) {
      std::vector<double> sv(size_t(n * K)), sg(size_t(3 * n * K)), shh(size_t(9 * n * K));
      if (solid) {
        sphericart::SolidHarmonics<double> sc{static_cast<size_t>(L)};
        sc.compute_array_with_hessians(pts.data(), pts.size(), sv.data(), sv.size(), sg.data(), sg.size(), shh.data(), shh.size());
      } else {
        sphericart::SphericalHarmonics<double> sc{static_cast<size_t>(L)};
        sc.compute_array_with_hessians(pts.data(), pts.size(), sv.data(), sv.size(), sg.data(), sg.size(), shh.data(), shh.size());
      }
      std::vector<double> v(sv.size()), g(sg.size()), h(shh.size());
      ASSERT_EQ(posenc_sph_harm_real_grad_f64(L, pts.data(), n, solid ? POSENC_SPH_SOLID : 0u, v.data(), g.data(), h.data()),
                POSENC_OK);
      double ev = 0, eg = 0, eh = 0;
      for (int64_t i = 0; i < n; ++i) {
        ev = std::max(ev, block_err(L, 1, v.data() + i * K, sv.data() + i * K, K));
        eg = std::max(eg, block_err(L, 3, g.data() + i * 3 * K, sg.data() + i * 3 * K, K, 1e-6));
        eh = std::max(eh, block_err(L, 9, h.data() + i * 9 * K, shh.data() + i * 9 * K, K, 1e-6));
      }
      EXPECT_LE(ev, 2e-13) << "L " << L << " solid " << solid;
      EXPECT_LE(eg, 1e-12) << "L " << L << " solid " << solid;
      EXPECT_LE(eh, 1e-12) << "L " << L << " solid " << solid;
      if (L == 40) printf("vs sphericart L 40 solid %d: values %.3g grad %.3g hess %.3g\n", int(solid), ev, eg, eh);
    }
  }
}
#endif

TEST_P(SphGrad, FiniteAndAccurateAtDegree1000) {
  const int L = kSlow ? 200 : 1000;
  // near the pole (sectoral seeds far below the double range), a generic point, the equator
  const std::vector<double> pts = {1e-4, -2e-4, 1.0, 0.3, -0.5, 0.7, 0.8, 0.6, 0.0};
  const int64_t n = 3, K = nsh(L);
  std::vector<double> v(size_t(n * K)), g(size_t(3 * n * K));
  ASSERT_EQ(posenc_sph_harm_real_grad_f64(L, pts.data(), n, 0u, v.data(), g.data(), nullptr), POSENC_OK);
  for (double a : v) ASSERT_TRUE(std::isfinite(a));
  for (double a : g) ASSERT_TRUE(std::isfinite(a));
  static std::map<int, std::vector<fd_ref>> cache;  // long double reference, shared by the ISA runs
  auto& ref = cache[L];
  if (ref.empty()) {
    ref.resize(size_t(n));
    for (int64_t i = 0; i < n; ++i) ref_fd(L, pts.data() + 3 * i, false, 0.02L / (L + 1), ref[size_t(i)].val, ref[size_t(i)].grad, nullptr);
  }
  double ev = 0, eg = 0;
  for (int64_t i = 0; i < n; ++i) {
    ev = std::max(ev, block_err(L, 1, v.data() + i * K, ref[size_t(i)].val.data(), K));
    eg = std::max(eg, block_err(L, 3, g.data() + i * 3 * K, ref[size_t(i)].grad.data(), K, 1e-6));
  }
  EXPECT_LE(ev, 2e-9);
  EXPECT_LE(eg, 2e-9);
  printf("L %d vs long double: values %.3g grad %.3g\n", L, ev, eg);
  // Hessians stay finite as well (fewer degrees: 9 (L+1)^2 values a point)
  const int LH = kSlow ? 100 : 300;
  std::vector<double> h(size_t(9 * n * nsh(LH))), g2(size_t(3 * n * nsh(LH)));
  ASSERT_EQ(posenc_sph_harm_real_grad_f64(LH, pts.data(), n, 0u, nullptr, g2.data(), h.data()), POSENC_OK);
  for (double a : h) ASSERT_TRUE(std::isfinite(a));
}

TEST_P(SphGrad, Float32WithinOneEMinus6OfFloat64) {
  const std::vector<double> pd = test_points(500, 3);
  std::vector<float> pf(pd.begin(), pd.end());
  std::vector<double> pw(pf.begin(), pf.end());  // the float points, widened
  const int64_t n = int64_t(pd.size() / 3);
  for (int L : {1, 3, 10, 40, 150}) {
    const int64_t K = nsh(L);
    const bool wh = L <= 40;
    std::vector<float> vf(size_t(n * K)), gf(size_t(3 * n * K)), hf(wh ? size_t(9 * n * K) : 0);
    std::vector<double> vd(vf.size()), gd(gf.size()), hd(hf.size());
    for (uint32_t fl : {0u, POSENC_SPH_SOLID}) {
      if (fl && L > 40) continue;  // |x|^150 leaves the float range for |x| = 5
      ASSERT_EQ(posenc_sph_harm_real_grad_f32(L, pf.data(), n, fl, vf.data(), gf.data(), wh ? hf.data() : nullptr), POSENC_OK);
      ASSERT_EQ(posenc_sph_harm_real_grad_f64(L, pw.data(), n, fl, vd.data(), gd.data(), wh ? hd.data() : nullptr), POSENC_OK);
      double e = 0;
      for (int64_t i = 0; i < n; ++i) {
        e = std::max(e, block_err(L, 1, vf.data() + i * K, vd.data() + i * K, K));
        e = std::max(e, block_err(L, 3, gf.data() + i * 3 * K, gd.data() + i * 3 * K, K, 1e-30));
        if (wh) e = std::max(e, block_err(L, 9, hf.data() + i * 9 * K, hd.data() + i * 9 * K, K, 1e-30));
      }
      // one float rounding: 6e-8 of the largest element; unit-sphere gradients without Hessians
      // on AVX-512 / AVX2 are computed in float32 lanes: the contract (test_sphere_grad_f32.cpp)
      const bool lanes = (GetParam() == POSENC_ISA_AVX2 || GetParam() == POSENC_ISA_AVX512) && fl == 0 && !wh && L > 3 && L <= 63;
      EXPECT_LE(e, lanes ? 1e-5 : 1e-6) << "L " << L << " flags " << fl;
    }
  }
}

TEST_P(SphGrad, BitwiseIdenticalForOneAndTwoThreadsAndSplitCalls) {
  const int L = 10;
  const std::vector<double> pts = test_points(1500, 9);
  const int64_t n = int64_t(pts.size() / 3), K = nsh(L);
  std::vector<double> v[2], g[2], h[2];
  for (int t = 0; t < 2; ++t) {
    ThreadScope ts(t + 1);
    v[t].resize(size_t(n * K)), g[t].resize(size_t(3 * n * K)), h[t].resize(size_t(9 * n * K));
    ASSERT_EQ(posenc_sph_harm_real_grad_f64(L, pts.data(), n, 0u, v[t].data(), g[t].data(), h[t].data()), POSENC_OK);
  }
  EXPECT_TRUE(same_bits(v[0], v[1]));
  EXPECT_TRUE(same_bits(g[0], g[1]));
  EXPECT_TRUE(same_bits(h[0], h[1]));
  // one point at a time: the same bits (blocks of points are independent)
  std::vector<double> v1(static_cast<size_t>(K)), g1(static_cast<size_t>(3 * K)), h1(static_cast<size_t>(9 * K));
  for (int64_t i = 0; i < n; i += 97) {
    ASSERT_EQ(posenc_sph_harm_real_grad_f64(L, pts.data() + 3 * i, 1, 0u, v1.data(), g1.data(), h1.data()), POSENC_OK);
    EXPECT_TRUE(std::equal(v1.begin(), v1.end(), v[0].begin() + i * K));
    EXPECT_TRUE(std::equal(g1.begin(), g1.end(), g[0].begin() + i * 3 * K));
    EXPECT_TRUE(std::equal(h1.begin(), h1.end(), h[0].begin() + i * 9 * K));
  }
  // values / hess optional: the gradient does not change
  std::vector<double> g2(size_t(3 * n * K));
  ASSERT_EQ(posenc_sph_harm_real_grad_f64(L, pts.data(), n, 0u, nullptr, g2.data(), nullptr), POSENC_OK);
  EXPECT_TRUE(same_bits(g2, g[0]));
}

/// Large calls (>= 16 MB of output) stage each block's rows and write them in whole lines,
/// non-temporally (at L = 10 copied a share per degree while the next block computes; at L = 1
/// and 3 the low-degree kernel's rows, vx::vec_stream): the same bits as calls small enough to
/// store their tiles straight into the rows, into outputs that start `off` elements past the
/// vector's start (mid-line for off = 1), nothing written outside them.
template <class T, class Fn>
void check_streamed_matches_resident(int L, int64_t n, bool with_hess, Fn fn, int off = 1) {
  const std::vector<double> pd = test_points(int(n), 21);
  const int64_t m = int64_t(pd.size() / 3), K = nsh(L);
  std::vector<T> x(pd.begin(), pd.end());
  const int64_t nv = m * K, ng = 3 * m * K, nh = with_hess ? 9 * m * K : 0;
  const size_t pad = size_t(off) + 1;
  std::vector<T> v(size_t(nv) + pad), g(size_t(ng) + pad), h(size_t(nh) + pad);
  poison(v), poison(g), poison(h);
  ASSERT_EQ(fn(L, x.data(), m, v.data() + off, g.data() + off, with_hess ? h.data() + off : nullptr), POSENC_OK);
  for (const std::vector<T>* b : {&v, &g, &h}) {  // the off elements before and the one after
    EXPECT_TRUE(std::all_of(b->begin(), b->begin() + off, [](T a) { return is_poison(a); }) && is_poison(b->back()));
  }
  EXPECT_EQ(count_poison(v), pad);
  EXPECT_EQ(count_poison(g), pad);
  EXPECT_EQ(count_poison(h), pad);
  const int64_t chunk = 61;  // well below the streaming threshold
  std::vector<T> v1(size_t(chunk * K)), g1(size_t(3 * chunk * K)), h1(size_t(9 * chunk * K));
  for (int64_t p = 0; p < m; p += chunk) {
    const int64_t c = std::min(chunk, m - p);
    ASSERT_EQ(fn(L, x.data() + 3 * p, c, v1.data(), g1.data(), with_hess ? h1.data() : nullptr), POSENC_OK);
    EXPECT_TRUE(std::equal(v1.begin(), v1.begin() + c * K, v.begin() + off + p * K)) << "values, point " << p;
    EXPECT_TRUE(std::equal(g1.begin(), g1.begin() + 3 * c * K, g.begin() + off + 3 * p * K)) << "grad, point " << p;
    if (with_hess)
      EXPECT_TRUE(std::equal(h1.begin(), h1.begin() + 9 * c * K, h.begin() + off + 9 * p * K)) << "hess, point " << p;
  }
}

TEST_P(SphGrad, StreamedLargeCallsMatchResidentCallsBitwise) {
  auto f64 = [](int L, const double* x, int64_t n, double* v, double* g, double* h) {
    return posenc_sph_harm_real_grad_f64(L, x, n, 0u, v, g, h);
  };
  auto f32 = [](int L, const float* x, int64_t n, float* v, float* g, float* h) {
    return posenc_sph_harm_real_grad_f32(L, x, n, 0u, v, g, h);
  };
  check_streamed_matches_resident<double>(40, 320, false, f64);  // 17 MB; AVX-512: one stage per output
  if (kSlow) return;  // qemu (no streaming on aarch64) / ASan: the case above only
  check_streamed_matches_resident<float>(40, 640, false, f32);  // 17 MB; AVX-512 float32 lanes, one stage
  // 4500 points: 17 MB of float64 values + gradients at L = 10; 1400 points: 17 MB with Hessians
  check_streamed_matches_resident<double>(10, 4500, false, f64);
  check_streamed_matches_resident<double>(10, 1400, true, f64);
  check_streamed_matches_resident<float>(10, 9000, false, f32);
  check_streamed_matches_resident<float>(6, 7000, true, f32);  // 17.8 MB with Hessians at L = 6
}

// The low-degree kernel's streamed rows (lmax 1 and 3, float64; vx::vec_stream: on AVX-512 whole
// lines, each joined from two vectors by a permute where the output starts mid-line, ordinary
// masked stores for the partial lines at both ends): every start within a line, point counts that
// end mid-block and mid-line.
TEST_P(SphGrad, StreamedLowDegreeMatchesResidentCallsBitwise) {
  if (kSlow) return;  // qemu (no streaming on aarch64) / ASan: covered by the resident tests
  auto f64 = [](int L, const double* x, int64_t n, double* v, double* g, double* h) {
    return posenc_sph_harm_real_grad_f64(L, x, n, 0u, v, g, h);
  };
  for (int off = 0; off < 8; ++off) check_streamed_matches_resident<double>(3, 33003 + off, false, f64, off);  // 17 MB
  check_streamed_matches_resident<double>(1, 131205, false, f64, 5);  // 16.8 MB
  // gradients alone (16.9 MB): the rows of the call with values
  const std::vector<double> x = test_points(44001, 22);
  const int64_t n = int64_t(x.size() / 3), K = nsh(3);
  std::vector<double> v(size_t(n * K)), g(size_t(3 * n * K)), g2(size_t(3 * n * K) + 1);
  ASSERT_EQ(posenc_sph_harm_real_grad_f64(3, x.data(), n, 0u, v.data(), g.data(), nullptr), POSENC_OK);
  ASSERT_EQ(posenc_sph_harm_real_grad_f64(3, x.data(), n, 0u, nullptr, g2.data() + 1, nullptr), POSENC_OK);
  EXPECT_TRUE(std::equal(g.begin(), g.end(), g2.begin() + 1));
  {  // two threads: tiles that share a line at their boundary (each writes its part of it)
    ThreadScope ts(2);
    std::vector<double> g3(size_t(3 * n * K) + 1);
    ASSERT_EQ(posenc_sph_harm_real_grad_f64(3, x.data(), n, 0u, nullptr, g3.data() + 1, nullptr), POSENC_OK);
    EXPECT_TRUE(same_bits(g2, g3));
  }
  // values alone (posenc_sph_harm_real_f64, 17.9 MB from 3 elements into a line): the values of
  // calls of 61 points
  const std::vector<double> xv = test_points(140001, 23);
  const int64_t nvp = int64_t(xv.size() / 3);
  std::vector<double> big(size_t(nvp * K) + 4), small(size_t(61 * K));
  poison(big);
  ASSERT_EQ(posenc_sph_harm_real_f64(3, xv.data(), nvp, big.data() + 3), POSENC_OK);
  EXPECT_EQ(count_poison(big), 4u);
  bool same = true;
  for (int64_t p = 0; p < nvp; p += 61) {
    const int64_t c = std::min<int64_t>(61, nvp - p);
    ASSERT_EQ(posenc_sph_harm_real_f64(3, xv.data() + 3 * p, c, small.data()), POSENC_OK);
    same = same && std::equal(small.begin(), small.begin() + c * K, big.begin() + 3 + p * K);
  }
  EXPECT_TRUE(same);
}

// lmax 0 with Hessians in a streamed call (13 planes of one feature, over 16 MB): Y_00 and zero
// derivatives (the staged lines' per-degree share once divided by lmax).
TEST_P(SphGrad, StreamedLmaxZeroWithHessians) {
  const int64_t n = kSlow ? 1000 : 170000;  // 170000 x 13 x 8 bytes = 17.7 MB
  std::vector<double> x(static_cast<size_t>(3 * n)), v(static_cast<size_t>(n)), g(static_cast<size_t>(3 * n)),
      h(static_cast<size_t>(9 * n));
  for (int64_t i = 0; i < 3 * n; ++i) x[size_t(i)] = std::cos(0.37 * double(i)) + 0.1;
  poison(v), poison(g), poison(h);
  ASSERT_EQ(posenc_sph_harm_real_grad_f64(0, x.data(), n, 0u, v.data(), g.data(), h.data()), POSENC_OK);
  const double y00 = 0.5 / std::sqrt(3.14159265358979323846L);
  EXPECT_TRUE(std::all_of(v.begin(), v.end(), [&](double a) { return a == y00; }));
  EXPECT_TRUE(std::all_of(g.begin(), g.end(), [](double a) { return a == 0.0; }));
  EXPECT_TRUE(std::all_of(h.begin(), h.end(), [](double a) { return a == 0.0; }));
}

TEST_P(SphGrad, ZeroVectorRuleAndExVariants) {
  const int L = 4;
  const int64_t K = nsh(L);
  const double pts[9] = {0.3, -0.2, 0.5, 0, 0, 0, -0.0, 0.0, -0.0};
  for (uint32_t solid : {0u, POSENC_SPH_SOLID}) {
    std::vector<double> v(size_t(3 * K)), g(size_t(9 * K)), h(size_t(27 * K));
    ASSERT_EQ(posenc_sph_harm_real_grad_f64(L, pts, 3, solid | POSENC_SPH_ZERO_AS_ZERO, v.data(), g.data(), h.data()),
              POSENC_OK);
    for (int i = 1; i <= 2; ++i)
      for (int64_t k = 0; k < K; ++k) {
        const int l = int(std::sqrt(double(k)));
        EXPECT_EQ(v[size_t(i * K + k)], k == 0 ? 0.28209479177387814347 : 0.0);
        for (int a = 0; a < 3; ++a) {
          // solid: the polynomial's gradient at 0 (degree 1: constant, as at any other point)
          const double want = solid && l == 1 ? g[size_t(a * K + k)] : 0.0;
          EXPECT_NEAR(g[size_t((3 * i + a) * K + k)], want, 1e-15) << solid << " " << k;
        }
        for (int ab = 0; ab < 9; ++ab) {
          const double want = solid && l == 2 ? h[size_t(ab * K + k)] : 0.0;
          EXPECT_NEAR(h[size_t((9 * i + ab) * K + k)], want, 1e-14) << solid << " " << k;
        }
      }
    std::vector<double> e(size_t(3 * K));
    ASSERT_EQ(posenc_sph_harm_real_ex_f64(L, pts, 3, solid | POSENC_SPH_ZERO_AS_ZERO, e.data()), POSENC_OK);
    EXPECT_TRUE(same_bits(e, v));
  }
  // ex with flags 0 is posenc_sph_harm_real_f64, bit for bit; SOLID scales degree l by r^l
  const std::vector<double> p = test_points(50, 2);
  const int64_t n = int64_t(p.size() / 3);
  std::vector<double> a(size_t(n * K)), b(a.size()), s(a.size());
  ASSERT_EQ(posenc_sph_harm_real_ex_f64(L, p.data(), n, 0u, a.data()), POSENC_OK);
  ASSERT_EQ(posenc_sph_harm_real_f64(L, p.data(), n, b.data()), POSENC_OK);
  EXPECT_TRUE(same_bits(a, b));
  ASSERT_EQ(posenc_sph_harm_real_ex_f64(L, p.data(), n, POSENC_SPH_SOLID, s.data()), POSENC_OK);
  for (int64_t i = 0; i < n; ++i) {
    const double* x = p.data() + 3 * i;
    const double r = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    for (int64_t k = 0; k < K; ++k) {
      const int l = int(std::sqrt(double(k)));
      EXPECT_NEAR(s[size_t(i * K + k)], std::pow(r, l) * b[size_t(i * K + k)], 1e-13 * std::pow(r, l));
    }
  }
  std::vector<float> pf(p.begin(), p.end()), af(a.size()), bf(a.size());
  ASSERT_EQ(posenc_sph_harm_real_ex_f32(L, pf.data(), n, 0u, af.data()), POSENC_OK);
  ASSERT_EQ(posenc_sph_harm_real_f32(L, pf.data(), n, bf.data()), POSENC_OK);
  EXPECT_TRUE(same_bits(af, bf));
}

TEST_P(SphGrad, BadInputIsAClearErrorAndWritesNothing) {
  const int L = 3;
  const int64_t K = nsh(L);
  std::vector<double> p = test_points(20, 4);
  const int64_t n = int64_t(p.size() / 3);
  std::vector<double> v(size_t(n * K)), g(size_t(3 * n * K)), h(size_t(9 * n * K));
  poison(v), poison(g), poison(h);
  auto untouched = [&] { return count_poison(v) == v.size() && count_poison(g) == g.size() && count_poison(h) == h.size(); };
  EXPECT_POSENC_ERROR(posenc_sph_harm_real_grad_f64(-1, p.data(), n, 0u, v.data(), g.data(), h.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "lmax");
  EXPECT_POSENC_ERROR(posenc_sph_harm_real_grad_f64(L, p.data(), -1, 0u, v.data(), g.data(), h.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "n");
  EXPECT_POSENC_ERROR(posenc_sph_harm_real_grad_f64(L, p.data(), n, 4u, v.data(), g.data(), h.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "flags");
  EXPECT_POSENC_ERROR(posenc_sph_harm_real_grad_f64(L, p.data(), n, 0u, v.data(), nullptr, h.data()),
                      POSENC_ERR_NULL_POINTER, "grad");
  EXPECT_POSENC_ERROR(posenc_sph_harm_real_grad_f64(L, nullptr, n, 0u, v.data(), g.data(), h.data()),
                      POSENC_ERR_NULL_POINTER, "xyz");
  EXPECT_POSENC_ERROR(posenc_sph_harm_real_grad_f64(1 << 21, p.data(), n, 0u, v.data(), g.data(), h.data()),
                      POSENC_ERR_SIZE_OVERFLOW, "lmax");
  EXPECT_POSENC_ERROR(posenc_sph_harm_real_grad_f64(1 << 20, p.data(), int64_t(1) << 40, 0u, v.data(), g.data(), h.data()),
                      POSENC_ERR_SIZE_OVERFLOW, "values");
  p[3 * 17 + 1] = NAN;
  EXPECT_POSENC_ERROR(posenc_sph_harm_real_grad_f64(L, p.data(), n, 0u, v.data(), g.data(), h.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "xyz[17]");
  p[3 * 17 + 1] = INFINITY;
  EXPECT_POSENC_ERROR(posenc_sph_harm_real_grad_f64(L, p.data(), n, POSENC_SPH_ZERO_AS_ZERO, v.data(), g.data(), h.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "xyz[17]");
  p[3 * 17] = p[3 * 17 + 1] = p[3 * 17 + 2] = 0.0;
  EXPECT_POSENC_ERROR(posenc_sph_harm_real_grad_f64(L, p.data(), n, POSENC_SPH_SOLID, v.data(), g.data(), h.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "xyz[17]");
  EXPECT_POSENC_ERROR(posenc_sph_harm_real_ex_f64(L, p.data(), n, POSENC_SPH_SOLID, v.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "xyz[17]");
  EXPECT_POSENC_ERROR(posenc_sph_harm_real_ex_f64(L, p.data(), n, 8u, v.data()), POSENC_ERR_INVALID_ARGUMENT, "flags");
  EXPECT_POSENC_ERROR(posenc_sph_harm_real_ex_f64(L, p.data(), n, POSENC_SPH_SOLID, nullptr), POSENC_ERR_NULL_POINTER, "out");
  std::vector<float> pf(p.begin(), p.end()), vf(v.size()), gf(g.size());
  poison(vf), poison(gf);
  EXPECT_POSENC_ERROR(posenc_sph_harm_real_grad_f32(L, pf.data(), n, 0u, vf.data(), gf.data(), nullptr),
                      POSENC_ERR_INVALID_ARGUMENT, "xyz[17]");
  EXPECT_EQ(count_poison(vf) + count_poison(gf), vf.size() + gf.size());
  EXPECT_TRUE(untouched());
  EXPECT_EQ(posenc_sph_harm_real_grad_f64(L, nullptr, 0, 0u, nullptr, nullptr, nullptr), POSENC_OK);
}

// The low-degree kernel (lmax <= 3 without Hessians: posenc_sph_harm_real_f64 / _f32,
// posenc_sph_harm_real_ex_*, posenc_sph_harm_real_grad_* with hess = NULL) against the long
// double reference (values) and its finite differences (gradients), unit sphere and solid, every
// tail size, extreme magnitudes, 1 and 3 threads, float32 against float64; lmax 4 (the general
// kernels) alongside with the same bounds.
TEST_P(SphGrad, LowDegreeKernelMatchesLongDoubleValuesAndGradients) {
  std::vector<double> pts = test_points(kSlow ? 20 : 120, 17);
  const double big[] = {3e300, -1e300, 2e299, 1e-300, 2e-301, -3e-300, 1e-170, 0, 0, 0, 0, -1e-320};
  pts.insert(pts.end(), std::begin(big), std::end(big));
  const int64_t n = int64_t(pts.size() / 3);
  for (int L = 0; L <= 4; ++L) {
    const int64_t K = nsh(L);
    for (bool solid : {false, true}) {
      const uint32_t fl = solid ? POSENC_SPH_SOLID : 0u;
      std::vector<double> v(size_t(n * K)), g(size_t(3 * n * K)), v2(size_t(n * K)), g2(size_t(3 * n * K));
      poison(v), poison(g), poison(g2);
      ASSERT_EQ(posenc_sph_harm_real_grad_f64(L, pts.data(), n, fl, v.data(), g.data(), nullptr), POSENC_OK);
      EXPECT_EQ(count_poison(v) + count_poison(g), 0u);
      double ev = 0, eg = 0;
      for (int64_t i = 0; i < n; ++i) {
        const double* x = pts.data() + 3 * i;
        const double r = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        if (!(r > 1e-100 && r < 1e100)) continue;  // extreme points: checked against scaled copies below
        std::vector<long double> rv, rg;
        ref_fd(L, x, solid, 0.02L * r / (L + 1), rv, rg, nullptr);
        ev = std::max(ev, block_err(L, 1, v.data() + i * K, rv.data(), K));
        eg = std::max(eg, block_err(L, 3, g.data() + i * 3 * K, rg.data(), K, 1e-6));
      }
      EXPECT_LE(ev, 1e-14) << "L " << L << " solid " << solid;
      EXPECT_LE(eg, 1e-13) << "L " << L << " solid " << solid;
      printf("L %d solid %d: values %.3g grad %.3g\n", L, int(solid), ev, eg);
      // Extreme magnitudes: unit-sphere values and r * gradients are those of the scaled point.
      if (!solid) {
        for (int64_t i = n - 4; i < n - 1; ++i) {
          const double* x = pts.data() + 3 * i;
          const double s = 1.0 / std::max({std::fabs(x[0]), std::fabs(x[1]), std::fabs(x[2])});
          const double xs[3] = {x[0] * s, x[1] * s, x[2] * s};
          std::vector<double> vs(static_cast<size_t>(K)), gs(static_cast<size_t>(3 * K));
          ASSERT_EQ(posenc_sph_harm_real_grad_f64(L, xs, 1, 0u, vs.data(), gs.data(), nullptr), POSENC_OK);
          for (int64_t k = 0; k < K; ++k) EXPECT_NEAR(v[size_t(i * K + k)], vs[size_t(k)], 1e-15) << i;
          for (int64_t k = 0; k < 3 * K; ++k)
            EXPECT_NEAR(g[size_t(i * 3 * K + k)] / s, gs[size_t(k)], 1e-14 * (1 + std::fabs(gs[size_t(k)]))) << i;
        }
      }
      // values-only entry points and values = NULL: the same bits
      if (solid) ASSERT_EQ(posenc_sph_harm_real_ex_f64(L, pts.data(), n, fl, v2.data()), POSENC_OK);
      else ASSERT_EQ(posenc_sph_harm_real_f64(L, pts.data(), n, v2.data()), POSENC_OK);
      if (L <= 3) {  // the same kernel (above, the values-only entry points run the recurrence of sh_real)
        EXPECT_TRUE(same_bits(v, v2)) << "L " << L;
      }
      ASSERT_EQ(posenc_sph_harm_real_grad_f64(L, pts.data(), n, fl, nullptr, g2.data(), nullptr), POSENC_OK);
      EXPECT_TRUE(same_bits(g, g2)) << "L " << L;
      // every tail size and split point, and 3 threads: the same bits
      for (int64_t m = 1; m <= 17; ++m) {
        std::vector<double> vm(size_t(m * K)), gm(size_t(3 * m * K));
        ASSERT_EQ(posenc_sph_harm_real_grad_f64(L, pts.data() + 3 * (n - m), m, fl, vm.data(), gm.data(), nullptr), POSENC_OK);
        EXPECT_TRUE(std::equal(vm.begin(), vm.end(), v.begin() + (n - m) * K)) << "L " << L << " m " << m;
        for (int64_t j = 0; j < 3 * m * K; ++j)
          ASSERT_TRUE(same_bits(std::vector<double>{gm[size_t(j)]}, std::vector<double>{g[size_t((n - m) * 3 * K + j)]}))
              << "L " << L << " m " << m << " j " << j << " " << gm[size_t(j)] << " " << g[size_t((n - m) * 3 * K + j)];
      }
      {
        ThreadScope ts(3);
        ASSERT_EQ(posenc_sph_harm_real_grad_f64(L, pts.data(), n, fl, v2.data(), g2.data(), nullptr), POSENC_OK);
        EXPECT_TRUE(same_bits(v, v2) && same_bits(g, g2)) << "L " << L;
      }
      // float32: computed in float64 and rounded once, or in float32 lanes (below)
      const int64_t nf = n - 4;  // without the points outside the float range
      std::vector<float> pf(pts.begin(), pts.begin() + 3 * nf), vf(size_t(nf * K)), gf(size_t(3 * nf * K));
      ASSERT_EQ(posenc_sph_harm_real_grad_f32(L, pf.data(), nf, fl, vf.data(), gf.data(), nullptr), POSENC_OK);
      std::vector<double> vd(size_t(nf * K)), gd(size_t(3 * nf * K));
      std::vector<double> pd(pf.begin(), pf.end());
      ASSERT_EQ(posenc_sph_harm_real_grad_f64(L, pd.data(), nf, fl, vd.data(), gd.data(), nullptr), POSENC_OK);
      double ef = 0, egf = 0;
      for (int64_t i = 0; i < nf; ++i) {
        const double* x = pd.data() + 3 * i;
        const double r = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        if (!(r > 1e-30 && r < 1e30)) continue;
        ef = std::max(ef, block_err(L, 1, vf.data() + i * K, vd.data() + i * K, K));
        egf = std::max(egf, block_err(L, 3, gf.data() + i * 3 * K, gd.data() + i * 3 * K, K, 1e-6));
      }
      // one float rounding of each element: up to sqrt(planes (2l + 1)) / 2^24 of the block rms;
      // float32 lanes on the unit sphere, AVX-512 / AVX2 (sh_low_f32.hpp at L <= 3, sh_grad_f32.hpp
      // above): a few roundings, values 3.9e-7 and gradients 6.8e-7 measured
      const bool lanes = (GetParam() == POSENC_ISA_AVX2 || GetParam() == POSENC_ISA_AVX512) && fl == 0 && L > 0;
      EXPECT_LE(ef, lanes ? 1e-6 : 3e-7) << "L " << L;
      EXPECT_LE(egf, lanes ? 2e-6 : 3e-7) << "L " << L;
    }
  }
}

// Values of posenc_sph_harm_real_f64 near the poles (the low orders depend on cos theta to
// ~l^2 ulp in the ordinary recurrence; the fast path's near-pole difference form keeps ~l eps)
// against the long double reference: block-relative <= 1e-13 to lmax 40, from 1 - |z| = 4e-4
// (the z = 0.999627) down to sin theta = 1e-8 (sectoral seeds below 2^-900 at lmax 40),
// and the per-degree bound of posenc.h above degree 20 (4e-17 l^2 to lmax 360, where the
// points at sin theta 0.1 - 0.25 take the ordinary recurrence in orders >= 8).
TEST_P(SphGrad, ValuesNearThePolesWithinOneEMinus13ToDegree40) {
  std::vector<double> pts;
  for (double s : {0.2, 0.12, 0.0272, 1e-2, 3e-3, 1e-4, 1e-5, 1e-7, 1e-8})
    for (double sg : {1.0, -1.0})
      for (double ph : {0.3, 2.1, -1.2}) {
        const double z = sg * std::sqrt(1 - s * s);
        pts.insert(pts.end(), {s * std::cos(ph), s * std::sin(ph), z});
        pts.insert(pts.end(), {0.7 * s * std::cos(ph), 0.7 * s * std::sin(ph), 0.7 * z});
      }
  const int64_t n = int64_t(pts.size() / 3);
  for (int L : {20, 40, 100, 360}) {
    if (kSlow && L >= 100) continue;
    const int64_t K = nsh(L);
    std::vector<double> v(size_t(n * K));
    ASSERT_EQ(posenc_sph_harm_real_f64(L, pts.data(), n, v.data()), POSENC_OK);
    std::vector<long double> ref(static_cast<size_t>(K));
    std::vector<double> worst(size_t(L) + 1, 0.0);
    for (int64_t i = 0; i < n; ++i) {
      const long double x[3] = {pts[size_t(3 * i)], pts[size_t(3 * i + 1)], pts[size_t(3 * i + 2)]};
      ref_sh(L, x, false, ref.data());
      for (int l = 0; l <= L; ++l) {
        const double e = block_err(l, 1, v.data() + i * K, ref.data(), K);  // degrees <= l
        worst[size_t(l)] = std::max(worst[size_t(l)], e);
      }
    }
    if (L <= 40) {
      EXPECT_LE(worst[size_t(L)], 1e-13) << "L " << L;
    }
    // posenc.h: block-relative <= 1e-13 to degree 40 and 4e-17 l^2 above degree 20
    double wl = 0;
    for (int l = 21; l <= L; ++l) wl = std::max(wl, worst[size_t(l)] / (double(l) * l));
    EXPECT_LE(wl, 4e-17) << "L " << L;
    printf("L %d: worst block-relative %.3g (l 20: %.3g, l min(L, 40): %.3g; above degree 20 %.3g l^2)\n", L, worst[size_t(L)],
           worst[20], worst[size_t(std::min(L, 40))], wl);
  }
  // Random near-pole directions (sin theta from 1e-8 to 0.25, random azimuth and hemisphere):
  // the same bounds.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> U(0, 1);
  std::vector<double> rp;
  for (int i = 0; i < (kSlow ? 40 : 200); ++i) {
    const double s = std::pow(10.0, -8 + 7.4 * U(rng)), ph = 6.283185307179586 * U(rng), sg = U(rng) < 0.5 ? -1 : 1;
    rp.insert(rp.end(), {s * std::cos(ph), s * std::sin(ph), sg * std::sqrt(1 - s * s)});
  }
  const int64_t nr = int64_t(rp.size() / 3);
  for (int L : {40, 100}) {
    if (kSlow && L == 100) continue;
    const int64_t K = nsh(L);
    std::vector<double> v(size_t(nr * K));
    std::vector<long double> ref(static_cast<size_t>(K));
    ASSERT_EQ(posenc_sph_harm_real_f64(L, rp.data(), nr, v.data()), POSENC_OK);
    double w40 = 0, wl2 = 0;
    for (int64_t i = 0; i < nr; ++i) {
      const long double x[3] = {rp[size_t(3 * i)], rp[size_t(3 * i + 1)], rp[size_t(3 * i + 2)]};
      ref_sh(L, x, false, ref.data());
      for (int l = 0; l <= L; ++l) {
        const double e = block_err(l, 1, v.data() + i * K, ref.data(), K);
        if (l <= 40) w40 = std::max(w40, e);
        if (l > 20) wl2 = std::max(wl2, e / (double(l) * l));
      }
    }
    EXPECT_LE(w40, 1e-13) << "L " << L;
    EXPECT_LE(wl2, 4e-17) << "L " << L;
    printf("random near-pole, L %d: worst block-relative to l 40 %.3g, above degree 20 %.3g l^2\n", L, w40, wl2);
  }
}

// Values of posenc_sph_harm_real_f64 near the poles above the fast path (lmax > 360: the
// extended-range recurrence, whose near-pole lanes run the orders m < 8 in the difference form
// of core_pole): per degree block against the long double reference, including the issue's
// lmax 1000 at 1 - z = 5e-9, with 1 - |z| from 2e-2 down to 1e-12 at both poles. Bounds of
// posenc.h: 1e-13 for the blocks of degree <= 40 and 5e-18 l^2.5 for the block of degree l above
// 20 (measured 9.1e-15 and 2.3e-18 l^2.5; with the ordinary recurrence alone 1.5e-13 and
// 1.7e-17 l^2.5, 5.3e-10 at l = 1000).
TEST_P(SphGrad, ValuesNearThePolesAboveTheFastPathPerDegree) {
  if (kSlow) return;  // qemu / ASan: a long double reference of 1e6 values per point
  std::vector<double> pts;
  for (double omz : {5e-9, 1e-12, 4e-4, 2e-2})
    for (double sg : {1.0, -1.0})
      for (double ph : {0.3, 2.1}) {
        const double s = std::sqrt(omz * (2 - omz)), z = sg * (1 - omz);
        pts.insert(pts.end(), {s * std::cos(ph), s * std::sin(ph), z});
      }
  const int64_t n = int64_t(pts.size() / 3);
  for (int L : {400, 1000}) {
    const int64_t K = nsh(L);
    std::vector<double> v(size_t(n * K));
    ASSERT_EQ(posenc_sph_harm_real_f64(L, pts.data(), n, v.data()), POSENC_OK);
    std::vector<long double> ref(static_cast<size_t>(K));
    double wl2 = 0, w40 = 0, wL = 0;
    for (int64_t i = 0; i < n; ++i) {
      const long double x[3] = {pts[size_t(3 * i)], pts[size_t(3 * i + 1)], pts[size_t(3 * i + 2)]};
      ref_sh(L, x, false, ref.data());
      const double* g = v.data() + i * K;
      for (int l = 0; l <= L; ++l) {  // degree l's block alone: max |error| / rms
        long double ss = 0, mx = 0;
        for (int64_t k = int64_t(l) * l; k < int64_t(l + 1) * (l + 1); ++k) {
          const long double rv = ref[size_t(k)];
          ss += rv * rv;
          mx = std::isnan(g[k]) ? INFINITY : std::max(mx, std::fabs((long double)g[k] - rv));
        }
        const double e = double(mx / std::sqrt(ss / (2 * l + 1)));
        if (l <= 40) w40 = std::max(w40, e);
        if (l == L) wL = std::max(wL, e);
        if (l > 20) wl2 = std::max(wl2, e / (double(l) * l * std::sqrt(double(l))));
      }
    }
    EXPECT_LE(w40, 1e-13) << "L " << L;
    EXPECT_LE(wl2, 5e-18) << "L " << L;
    printf("near-pole, L %d: degrees <= 40 %.3g, degree L %.3g, above degree 20 %.3g l^2.5\n", L, w40, wL, wl2);
  }
}

POSENC_INSTANTIATE_ISA(SphGrad);

}  // namespace
