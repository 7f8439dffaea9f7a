// SPDX-License-Identifier: Apache-2.0 OR MIT
// rope family tests: sinusoidal tables (the foundation's pilot kernel) against a long-double reference.
#include "tests/test_rope_common.hpp"

#include <map>
#include <random>
#include <tuple>

using namespace posenc_test;

namespace {

/// Independent reference: long double phase (error ~|p w| 2^-64 <= 1e-12 rad for |p| <= 2^24)
/// and libm sinl/cosl. Frequencies in float64 as documented: w_i = base^(-2i/dim).
/// Returns [n, half] sin and cos; cached because long double is slow under qemu (quad precision).
struct SinCosRef { std::vector<double> s, c; };
const SinCosRef& sincos_ref(const std::vector<int64_t>& pos, int dim, double base) {
  static std::map<std::tuple<size_t, int, double, int64_t>, SinCosRef> cache;
  auto key = std::make_tuple(pos.size(), dim, base, pos.empty() ? 0 : pos.back());
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  SinCosRef r;
  const int half = dim / 2;
  r.s.resize(pos.size() * half);
  r.c.resize(pos.size() * half);
  for (int i = 0; i < half; ++i) {
    const long double w = static_cast<long double>(std::pow(base, -2.0 * i / dim));
    for (size_t k = 0; k < pos.size(); ++k) {
      const long double ph = static_cast<long double>(pos[k]) * w;
      r.s[k * half + i] = static_cast<double>(sinl(ph));
      r.c[k * half + i] = static_cast<double>(cosl(ph));
    }
  }
  return cache.emplace(key, std::move(r)).first->second;
}

void sinusoidal_ref(const std::vector<int64_t>& pos, int dim, double base, int layout, std::vector<double>& out) {
  const int half = dim / 2;
  const SinCosRef& r = sincos_ref(pos, dim, base);
  out.assign(pos.size() * dim, 0.0);
  for (size_t k = 0; k < pos.size(); ++k) {
    for (int i = 0; i < half; ++i) {
      const double s = r.s[k * half + i], c = r.c[k * half + i];
      if (layout == POSENC_SINUSOIDAL_INTERLEAVED) {
        out[k * dim + 2 * i] = s;
        out[k * dim + 2 * i + 1] = c;
      } else {
        out[k * dim + i] = s;
        out[k * dim + half + i] = c;
      }
    }
  }
}

class Sinusoidal : public IsaTest {};

TEST_P(Sinusoidal, MatchesLongDoubleReferenceBothLayoutsAndTails) {
  const auto pos = edge_and_random_positions(100, 42);
  for (int layout : {POSENC_SINUSOIDAL_INTERLEAVED, POSENC_SINUSOIDAL_HALVES}) {
    for (int dim : {2, 6, 10, 18, 34, 64, 130, 1026}) {
      for (double base : {10000.0, 500000.0, 10.0}) {
        std::vector<double> ref;
        sinusoidal_ref(pos, dim, base, layout, ref);
        // Unaligned output: one float past a 64-byte boundary.
        std::vector<float> buf(pos.size() * dim + 1);
        poison(buf);
        float* out = buf.data() + 1;
        ASSERT_EQ(posenc_sinusoidal_f32(pos.data(), static_cast<int64_t>(pos.size()), dim, base,
                                        static_cast<posenc_sinusoidal_layout>(layout), out),
                  POSENC_OK)
            << posenc_last_error_message();
        EXPECT_TRUE(is_poison(buf[0])) << "wrote before out";
        double max_err = 0;
        for (size_t i = 0; i < ref.size(); ++i) {
          ASSERT_FALSE(is_poison(out[i])) << "element " << i << " not written (dim " << dim << ")";
          max_err = std::max(max_err, std::fabs(static_cast<double>(out[i]) - ref[i]));
        }
        EXPECT_LE(max_err, 2e-7) << "dim " << dim << " base " << base << " layout " << layout;
        // Float32 rounding alone is <= 2^-25 ~ 3e-8 for |v| <= 1; allow two such units.
        EXPECT_LE(max_err, 6.0e-8) << "dim " << dim << " base " << base << " layout " << layout;
      }
    }
  }
}

TEST_P(Sinusoidal, HugeDim) {
  // dim 16384: 8192 frequencies spanning 1 .. 1e-4 rad/position, a few extreme positions.
  const std::vector<int64_t> pos = {0, 1, -7, 1 << 24, -(1 << 24), 9999991};
  const int dim = 16384;
  for (int layout : {POSENC_SINUSOIDAL_INTERLEAVED, POSENC_SINUSOIDAL_HALVES}) {
    std::vector<double> ref;
    sinusoidal_ref(pos, dim, 10000.0, layout, ref);
    std::vector<float> out(pos.size() * dim);
    poison(out);
    ASSERT_EQ(posenc_sinusoidal_f32(pos.data(), static_cast<int64_t>(pos.size()), dim, 10000.0,
                                    static_cast<posenc_sinusoidal_layout>(layout), out.data()),
              POSENC_OK);
    double max_err = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
      ASSERT_FALSE(is_poison(out[i])) << i;
      max_err = std::max(max_err, std::fabs(static_cast<double>(out[i]) - ref[i]));
    }
    EXPECT_LE(max_err, 6.0e-8) << "layout " << layout;
  }
}

TEST_P(Sinusoidal, NullPositionsMeansZeroToNMinusOne) {
  const int64_t n = 1000;
  const int dim = 96;
  std::vector<int64_t> pos(n);
  for (int64_t i = 0; i < n; ++i) pos[i] = i;
  for (int layout : {0, 1}) {
    std::vector<float> a(n * dim), b(n * dim);
    poison(a);
    poison(b);
    ASSERT_EQ(posenc_sinusoidal_f32(nullptr, n, dim, 1e4, static_cast<posenc_sinusoidal_layout>(layout), a.data()), POSENC_OK);
    ASSERT_EQ(posenc_sinusoidal_f32(pos.data(), n, dim, 1e4, static_cast<posenc_sinusoidal_layout>(layout), b.data()), POSENC_OK);
    EXPECT_TRUE(same_bits(a, b));
    EXPECT_EQ(count_poison(a), 0u);
    // Vaswani: row 0 is sin 0 = 0 / cos 0 = 1.
    EXPECT_EQ(a[0], 0.0f);
    EXPECT_EQ(layout == 0 ? a[1] : a[dim / 2], 1.0f);
  }
}

TEST_P(Sinusoidal, ZeroRowsIsANoOp) {
  EXPECT_EQ(posenc_sinusoidal_f32(nullptr, 0, 64, 1e4, POSENC_SINUSOIDAL_HALVES, nullptr), POSENC_OK);
  float sentinel = 3.0f;
  EXPECT_EQ(posenc_sinusoidal_f32(nullptr, 0, 64, 1e4, POSENC_SINUSOIDAL_HALVES, &sentinel), POSENC_OK);
  EXPECT_EQ(sentinel, 3.0f);
}

TEST_P(Sinusoidal, BitwiseIdenticalForOneTwoThreeThreads) {
  const int64_t n = 6000;  // 47 tiles of 128 rows
  const int dim = 128;
  std::vector<int64_t> pos = edge_and_random_positions(static_cast<size_t>(n), 7);
  pos.resize(static_cast<size_t>(n));
  std::vector<float> ref;
  for (int threads : {1, 2, 3}) {
    ThreadScope ts(threads);
    for (int layout : {0, 1}) {
      std::vector<float> out(n * dim);
      poison(out);
      ASSERT_EQ(posenc_sinusoidal_f32(pos.data(), n, dim, 1e4, static_cast<posenc_sinusoidal_layout>(layout), out.data()), POSENC_OK);
      if (layout == 0) {
        if (threads == 1) ref = out;
        else EXPECT_TRUE(same_bits(ref, out)) << threads << " threads";
      }
    }
  }
}

TEST_P(Sinusoidal, BadInputWritesNothingAndNamesTheArgument) {
  std::vector<float> out(64, 5.0f);
  const std::vector<float> before = out;
  const int64_t pos[4] = {0, 1, 2, 3};
  auto call = [&](const int64_t* p, int64_t n, int32_t dim, double base, int layout, float* o) {
    return posenc_sinusoidal_f32(p, n, dim, base, static_cast<posenc_sinusoidal_layout>(layout), o);
  };
  EXPECT_POSENC_ERROR(call(pos, 4, 16, 1e4, 0, nullptr), POSENC_ERR_NULL_POINTER, "out");
  EXPECT_POSENC_ERROR(call(pos, -1, 16, 1e4, 0, out.data()), POSENC_ERR_INVALID_ARGUMENT, "n must be >= 0");
  EXPECT_POSENC_ERROR(call(pos, 4, 7, 1e4, 0, out.data()), POSENC_ERR_INVALID_ARGUMENT, "dim");
  EXPECT_POSENC_ERROR(call(pos, 4, 0, 1e4, 0, out.data()), POSENC_ERR_INVALID_ARGUMENT, "dim");
  EXPECT_POSENC_ERROR(call(pos, 4, -2, 1e4, 0, out.data()), POSENC_ERR_INVALID_ARGUMENT, "dim");
  EXPECT_POSENC_ERROR(call(pos, 4, 16, 0.0, 0, out.data()), POSENC_ERR_INVALID_ARGUMENT, "base");
  EXPECT_POSENC_ERROR(call(pos, 4, 16, -3.0, 0, out.data()), POSENC_ERR_INVALID_ARGUMENT, "base");
  EXPECT_POSENC_ERROR(call(pos, 4, 16, std::nan(""), 0, out.data()), POSENC_ERR_INVALID_ARGUMENT, "base");
  EXPECT_POSENC_ERROR(call(pos, 4, 16, INFINITY, 0, out.data()), POSENC_ERR_INVALID_ARGUMENT, "base");
  EXPECT_POSENC_ERROR(call(pos, 4, 16, 1e4, 2, out.data()), POSENC_ERR_INVALID_ARGUMENT, "layout");
  // n * dim overflows int64_t; n * dim * sizeof(float) overflows the address space.
  EXPECT_POSENC_ERROR(call(nullptr, INT64_MAX / 8, 16, 1e4, 0, out.data()), POSENC_ERR_SIZE_OVERFLOW, "out");
  EXPECT_POSENC_ERROR(call(nullptr, INT64_MAX / 32, 16, 1e4, 0, out.data()), POSENC_ERR_SIZE_OVERFLOW, "out");
  EXPECT_TRUE(same_bits(out, before)) << "a failing call wrote to out";
  // The message names the function too.
  EXPECT_NE(std::string(posenc_last_error_message()).find("posenc_sinusoidal_f32"), std::string::npos);
}

}  // namespace

POSENC_INSTANTIATE_ISA(Sinusoidal);
