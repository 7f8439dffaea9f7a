// SPDX-License-Identifier: Apache-2.0 OR MIT
// Tests of posenc_sph_harm_real_grad_f32's float32-lane kernels (unit-sphere values + gradients
// without Hessians: lmax 0..3 kernels/sphere/sh_low_f32.hpp, lmax 4..44 on AVX-512 and 4..63
// on AVX2 kernels/sphere/sh_grad_f32.hpp)
// against the float64 kernel of the same (widened) points: the float32 contract of posenc.h
// (1e-5 per degree block) over random directions, near-pole points down to sin theta = 1e-7, and
// lengths from 1e-30 to 1e38 (1 / |x| outside [2^-60, 2^60] is applied in two exact steps); a
// point's bits do not depend on its neighbours in the block, the call's split, the thread count
// or the path (AVX-512 and AVX2 give the same bits). On the scalar path the same calls run the
// float64 kernel rounded once (the same bounds hold). Every test but the last runs on every ISA
// path (IsaTest).
#include "tests/test_common.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace posenc_test;

namespace {

#if defined(__aarch64__) || defined(__SANITIZE_ADDRESS__)
constexpr bool kSlow = true;  // qemu / ASan: fewer degrees
#else
constexpr bool kSlow = false;
#endif

int64_t nsh(int L) { return int64_t(L + 1) * (L + 1); }

/// Worst block-relative error of `got` against `ref` for one point (planes of `stride` values):
/// per degree l, max |got - ref| over the block's orders and planes over the rms of ref there
/// (absolute below `floor`); NaN in got counts as infinite.
double block_err(int L, int planes, const float* got, const double* ref, int64_t stride, double floor) {
  double worst = 0;
  for (int l = 0; l <= L; ++l) {
    double ss = 0, mx = 0;
    for (int p = 0; p < planes; ++p)
      for (int m = -l; m <= l; ++m) {
        const int64_t k = int64_t(p) * stride + int64_t(l) * (l + 1) + m;
        ss += ref[k] * ref[k];
        mx = std::isnan(got[k]) ? INFINITY : std::max(mx, std::fabs(double(got[k]) - ref[k]));
      }
    const double rms = std::sqrt(ss / (planes * (2 * l + 1)));
    worst = std::max(worst, rms > floor ? mx / rms : mx);
  }
  return worst;
}

/// Float points: random directions (lengths 0.2..5), near-pole points (sin theta 0.3 .. 1e-7,
/// both poles, three azimuths; z = +-0.999627), the axes, and random directions at lengths
/// 1e-30 .. 1e38, interleaved with the others so that they share blocks of points.
std::vector<float> f32_points(int nrand, unsigned seed) {
  std::vector<double> p = {0, 0, 1, 0, 0, -2.5, 1, 0, 0, 0, -1, 0, 1e-3, 2e-3, 0.999627, -0.02, 0.01, -0.999627};
  for (double s : {0.3, 0.1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-7})
    for (double sg : {1.0, -1.0})
      for (double ph : {0.3, 2.1, -1.2}) {
        const double z = sg * std::sqrt(1 - s * s);
        p.insert(p.end(), {s * std::cos(ph), s * std::sin(ph), z});
      }
  std::mt19937_64 g(seed);
  std::normal_distribution<double> nd;
  std::uniform_real_distribution<double> ud(0.2, 5.0);
  const double ext[] = {1e-30, 1e-25, 1e-19, 3e-18, 1e18, 1e19, 1e30, 1e38};
  for (int i = 0; i < nrand; ++i) {
    double v[3] = {nd(g), nd(g), nd(g)};
    const double len = i % 5 == 2 ? ext[(i / 5) % 8] : ud(g);
    const double s = len / std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (double c : v) p.push_back(c * s);
  }
  return std::vector<float>(p.begin(), p.end());
}

class SphGradF32 : public IsaTest {};

TEST_P(SphGradF32, WithinOneEMinus5OfFloat64PerDegreeBlock) {
  const std::vector<float> pf = f32_points(kSlow ? 60 : 400, 5);
  const std::vector<double> pd(pf.begin(), pf.end());
  const int64_t n = int64_t(pf.size() / 3);
  for (int L : {0, 1, 2, 3, 4, 5, 10, 16, 40, 44, 45, 63}) {
    if (kSlow && L > 40) continue;
    const int64_t K = nsh(L);
    std::vector<float> vf(size_t(n * K)), gf(size_t(3 * n * K));
    std::vector<double> vd(vf.size()), gd(gf.size());
    poison(vf), poison(gf);
    ASSERT_EQ(posenc_sph_harm_real_grad_f32(L, pf.data(), n, 0u, vf.data(), gf.data(), nullptr), POSENC_OK);
    ASSERT_EQ(posenc_sph_harm_real_grad_f64(L, pd.data(), n, 0u, vd.data(), gd.data(), nullptr), POSENC_OK);
    EXPECT_EQ(count_poison(vf) + count_poison(gf), 0u);
    double ev = 0, eg = 0, egx = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double* x = pd.data() + 3 * i;
      const double r = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
      ev = std::max(ev, block_err(L, 1, vf.data() + i * K, vd.data() + i * K, K, 1e-300));
      // the gradients scale like 1 / r: blocks below 1e-30 / r count absolute errors there
      const double e = block_err(L, 3, gf.data() + i * 3 * K, gd.data() + i * 3 * K, K, 1e-30 / r);
      if (r > 1e-5 && r < 1e5) eg = std::max(eg, e);
      else egx = std::max(egx, e);
    }
    EXPECT_LE(ev, 1e-5) << "L " << L;
    EXPECT_LE(eg, 1e-5) << "L " << L;
    EXPECT_LE(egx, 1e-5) << "L " << L << " (|x| 1e-30 .. 1e38)";
    printf("L %d float32 vs float64: values %.3g grad %.3g (extreme lengths %.3g)\n", L, ev, eg, egx);
  }
}

TEST_P(SphGradF32, PointBitsDoNotDependOnTheBlockSplitOrThreads) {
  const std::vector<float> pf = f32_points(kSlow ? 40 : 150, 8);
  const int64_t n = int64_t(pf.size() / 3);
  for (int L : {1, 2, 3, 4, 10, 40}) {
    const int64_t K = nsh(L);
    std::vector<float> v(size_t(n * K)), g(size_t(3 * n * K));
    ASSERT_EQ(posenc_sph_harm_real_grad_f32(L, pf.data(), n, 0u, v.data(), g.data(), nullptr), POSENC_OK);
    // every point alone (lanes of a block with a point at an extreme length take the two-step
    // 1 / |x|: the same bits for the others)
    std::vector<float> v1(static_cast<size_t>(K)), g1(static_cast<size_t>(3 * K));
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(posenc_sph_harm_real_grad_f32(L, pf.data() + 3 * i, 1, 0u, v1.data(), g1.data(), nullptr), POSENC_OK);
      ASSERT_TRUE(std::equal(v1.begin(), v1.end(), v.begin() + i * K)) << "L " << L << " point " << i;
      ASSERT_TRUE(std::equal(g1.begin(), g1.end(), g.begin() + i * 3 * K)) << "L " << L << " point " << i;
    }
    // every tail, values NULL, and 3 threads
    for (int64_t m = 1; m <= 33; m += 4) {
      std::vector<float> gm(size_t(3 * m * K));
      ASSERT_EQ(posenc_sph_harm_real_grad_f32(L, pf.data() + 3 * (n - m), m, 0u, nullptr, gm.data(), nullptr), POSENC_OK);
      EXPECT_TRUE(std::equal(gm.begin(), gm.end(), g.begin() + (n - m) * 3 * K)) << "L " << L << " m " << m;
    }
    ThreadScope ts(3);
    std::vector<float> v3(v.size()), g3(g.size());
    ASSERT_EQ(posenc_sph_harm_real_grad_f32(L, pf.data(), n, 0u, v3.data(), g3.data(), nullptr), POSENC_OK);
    EXPECT_TRUE(same_bits(v, v3) && same_bits(g, g3)) << "L " << L;
  }
}

// Calls of 16 MB of output or more (non-temporal): on AVX-512 / AVX2 whole super-blocks of
// points write every row's lines straight from the float32 tiles, the line two rows share
// merged in a buffer first (grad_lemitter / grad_line_edges in kernels/sphere/sh_grad_f32.hpp),
// the other blocks through the line stages. Outputs starting at several offsets within a line
// (the rows then start at other offsets), with and without values, 1 and 3 threads: the same
// bits as resident calls of 61 points, nothing written outside the outputs.
TEST_P(SphGradF32, StreamedCallsGiveTheBitsOfResidentCalls) {
  if (kSlow) GTEST_SKIP() << "qemu / ASan: no float32 lanes on aarch64, too slow under ASan";
  struct Case {
    int L;
    int nrand;
    bool values;
    int64_t offset;  // floats before the outputs
    int threads;
  };
  // 16 MB: L = 10 1936 (values + gradients) / 1452 bytes a point, L = 4 400 / 300
  const Case cases[] = {{10, 11650, true, 0, 1}, {10, 11650, false, 3, 3}, {4, 56000, false, 7, 1}, {4, 42000, true, 13, 3}};
  for (const Case& cs : cases) {
    const std::vector<float> pf = f32_points(cs.nrand, 11);
    const int64_t n = int64_t(pf.size() / 3), K = nsh(cs.L), o = cs.offset;
    std::vector<float> v(size_t(n * K + 2 * o + 1)), g(size_t(3 * n * K + 2 * o + 1));
    poison(v), poison(g);
    {
      ThreadScope ts(cs.threads);
      ASSERT_EQ(posenc_sph_harm_real_grad_f32(cs.L, pf.data(), n, 0u, cs.values ? v.data() + o : nullptr, g.data() + o,
                                              nullptr),
                POSENC_OK);
    }
    EXPECT_EQ(std::count_if(v.begin(), v.end(), [](float x) { return is_poison(x); }), cs.values ? 2 * o + 1 : int64_t(v.size()))
        << "L " << cs.L << " offset " << o;
    EXPECT_EQ(std::count_if(g.begin(), g.end(), [](float x) { return is_poison(x); }), 2 * o + 1) << "L " << cs.L << " offset " << o;
    const int64_t chunk = 61;
    std::vector<float> v1(size_t(chunk * K)), g1(size_t(3 * chunk * K));
    int64_t bad = 0;
    for (int64_t p = 0; p < n; p += chunk) {
      const int64_t c = std::min(chunk, n - p);
      ASSERT_EQ(posenc_sph_harm_real_grad_f32(cs.L, pf.data() + 3 * p, c, 0u, v1.data(), g1.data(), nullptr), POSENC_OK);
      if (cs.values && !std::equal(v1.begin(), v1.begin() + c * K, v.begin() + o + p * K)) ++bad;
      if (!std::equal(g1.begin(), g1.begin() + 3 * c * K, g.begin() + o + 3 * p * K)) ++bad;
    }
    EXPECT_EQ(bad, 0) << "L " << cs.L << " values " << cs.values << " offset " << o << " threads " << cs.threads;
  }
}

// Zero vectors (POSENC_SPH_ZERO_AS_ZERO) among ordinary points in the low-degree lanes: Y_00 and
// zeros above, zero gradients; the other points as in the float64 kernel (1e-5 of the block).
TEST_P(SphGradF32, LowDegreeZeroVectorsAmongOrdinaryPoints) {
  std::vector<float> pf = f32_points(40, 21);
  for (int64_t i = 0; i < int64_t(pf.size() / 3); i += 7) pf[size_t(3 * i)] = pf[size_t(3 * i + 1)] = pf[size_t(3 * i + 2)] = 0.0f;
  const std::vector<double> pd(pf.begin(), pf.end());
  const int64_t n = int64_t(pf.size() / 3);
  const uint32_t fl = POSENC_SPH_ZERO_AS_ZERO;
  for (int L = 0; L <= 3; ++L) {
    const int64_t K = nsh(L);
    std::vector<float> vf(size_t(n * K)), gf(size_t(3 * n * K));
    std::vector<double> vd(vf.size()), gd(gf.size());
    ASSERT_EQ(posenc_sph_harm_real_grad_f32(L, pf.data(), n, fl, vf.data(), gf.data(), nullptr), POSENC_OK);
    ASSERT_EQ(posenc_sph_harm_real_grad_f64(L, pd.data(), n, fl, vd.data(), gd.data(), nullptr), POSENC_OK);
    for (int64_t i = 0; i < n; ++i) {
      if (i % 7 == 0) {
        EXPECT_EQ(vf[size_t(i * K)], 0.28209479177387814347f) << "L " << L << " point " << i;
        for (int64_t k = 1; k < K; ++k) EXPECT_EQ(vf[size_t(i * K + k)], 0.0f) << "L " << L << " point " << i;
        for (int64_t k = 0; k < 3 * K; ++k) EXPECT_EQ(gf[size_t(i * 3 * K + k)], 0.0f) << "L " << L << " point " << i;
      } else {
        const double* x = pd.data() + 3 * i;
        const double r = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        EXPECT_LE(block_err(L, 1, vf.data() + i * K, vd.data() + i * K, K, 1e-300), 1e-5) << "L " << L << " point " << i;
        EXPECT_LE(block_err(L, 3, gf.data() + i * 3 * K, gd.data() + i * 3 * K, K, 1e-30 / r), 1e-5)
            << "L " << L << " point " << i;
      }
    }
  }
}

POSENC_INSTANTIATE_ISA(SphGradF32);

// The lanes run the same operations per lane on AVX-512 and AVX2 (both with FMA): the same bits.
// (Not at lmax <= 3: the low-degree kernel's 1 / |x| is vrsqrt14pd and two Newton steps on
// AVX-512, a square root and a division on AVX2, as in its float64 form.)
TEST(SphGradF32Paths, Avx2AndAvx512GiveTheSameBits) {
  if (posenc_isa_set(POSENC_ISA_AVX2) != POSENC_OK || posenc_isa_set(POSENC_ISA_AVX512) != POSENC_OK)
    GTEST_SKIP() << "needs both AVX2 and AVX-512";
  const std::vector<float> pf = f32_points(200, 12);
  const int64_t n = int64_t(pf.size() / 3);
  for (int L : {4, 10, 40}) {
    const int64_t K = nsh(L);
    std::vector<float> v[2], g[2];
    for (int i = 0; i < 2; ++i) {
      ASSERT_EQ(posenc_isa_set(i == 0 ? POSENC_ISA_AVX2 : POSENC_ISA_AVX512), POSENC_OK);
      v[i].resize(size_t(n * K)), g[i].resize(size_t(3 * n * K));
      ASSERT_EQ(posenc_sph_harm_real_grad_f32(L, pf.data(), n, 0u, v[i].data(), g[i].data(), nullptr), POSENC_OK);
    }
    EXPECT_TRUE(same_bits(v[0], v[1]) && same_bits(g[0], g[1])) << "L " << L;
  }
  posenc_isa_set(POSENC_ISA_AUTO);
}

}  // namespace
