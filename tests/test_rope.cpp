// SPDX-License-Identifier: Apache-2.0 OR MIT
// rope family tests: RoPE frequencies (every scaling type), cos/sin tables, the rotation against a
// float64 reference, and the long-range decay curve. Sinusoidal tables: test_rope_sinusoidal.cpp.
#include "tests/test_rope_common.hpp"

#include <map>
#include <random>
#include <tuple>

using namespace posenc_test;

// ============================================================================================
// RoPE
// ============================================================================================
namespace {

constexpr long double kPiL = 3.141592653589793238462643383279502884L;

/// Independent long-double evaluation of docs/REFERENCES.md §1 (HF transformers modeling_rope_utils.py).
struct FreqRef { std::vector<long double> inv; long double af; };
FreqRef freq_ref(const posenc_rope_params& p) {
  const int d = p.rotary_dim, half = d / 2;
  const long double s = p.factor, L = static_cast<long double>(p.original_max_position);
  long double base = p.theta;
  if (p.type == POSENC_ROPE_NTK) base = p.theta * powl(s, (long double)d / (d - 2));
  if (p.type == POSENC_ROPE_DYNAMIC) {
    const long double Lp = std::max<long double>(p.seq_len, L);
    base = p.theta * powl(s * Lp / L - (s - 1), (long double)d / (d - 2));
  }
  FreqRef r;
  r.af = 1;
  for (int j = 0; j < half; ++j) r.inv.push_back(powl(base, -2.0L * j / d));
  if (p.type == POSENC_ROPE_LINEAR)
    for (auto& v : r.inv) v /= s;
  if (p.type == POSENC_ROPE_YARN) {
    auto corr = [&](long double b) { return d * logl(L / (2 * kPiL * b)) / (2 * logl((long double)p.theta)); };
    long double lo = corr(p.beta_fast), hi = corr(p.beta_slow);
    if (p.truncate) { lo = floorl(lo); hi = ceill(hi); }
    lo = std::max<long double>(lo, 0);
    hi = std::min<long double>(hi, d - 1);
    if (lo == hi) hi += 0.001L;
    for (int j = 0; j < half; ++j) {
      const long double ramp = std::min<long double>(1, std::max<long double>(0, (j - lo) / (hi - lo)));
      r.inv[j] = r.inv[j] / s * ramp + r.inv[j] * (1 - ramp);
    }
    auto ms = [&](long double m) { return s <= 1 ? 1.0L : 0.1L * m * logl(s) + 1; };
    r.af = (p.mscale != 0 && p.mscale_all_dim != 0) ? ms(p.mscale) / ms(p.mscale_all_dim) : ms(1);
  }
  if (p.type == POSENC_ROPE_LONGROPE) {
    const double* ext = p.seq_len > p.original_max_position ? p.long_factor : p.short_factor;
    for (int j = 0; j < half; ++j) r.inv[j] /= ext[j];
    r.af = s <= 1 ? 1 : sqrtl(1 + logl(s) / logl(L));
  }
  if (p.type == POSENC_ROPE_LLAMA3) {
    for (int j = 0; j < half; ++j) {
      const long double wl = 2 * kPiL / r.inv[j];
      if (wl < L / p.high_freq_factor) continue;
      if (wl > L / p.low_freq_factor) { r.inv[j] /= s; continue; }
      const long double sm = (L / wl - p.low_freq_factor) / (p.high_freq_factor - p.low_freq_factor);
      r.inv[j] = (1 - sm) * r.inv[j] / s + sm * r.inv[j];
    }
  }
  if (p.attention_factor != 0) r.af = p.attention_factor;
  return r;
}

void expect_freqs_match(const posenc_rope_params& p, const char* what) {
  std::vector<double> inv(p.rotary_dim / 2 + 1);
  poison(inv);
  double af = poison_f64();
  ASSERT_EQ(posenc_rope_inv_freq(&p, inv.data(), &af), POSENC_OK) << what << ": " << posenc_last_error_message();
  const FreqRef r = freq_ref(p);
  EXPECT_TRUE(is_poison(inv.back())) << what << ": wrote past inv_freq";
  for (int j = 0; j < p.rotary_dim / 2; ++j)
    EXPECT_NEAR(inv[j] / static_cast<double>(r.inv[j]), 1.0, 1e-14) << what << " j=" << j;
  EXPECT_NEAR(af, static_cast<double>(r.af), 1e-15) << what;
}

class RopeFreq : public IsaTest {};

TEST_P(RopeFreq, InitFillsDefaults) {
  posenc_rope_params p;
  std::memset(&p, 0xab, sizeof p);
  ASSERT_EQ(posenc_rope_params_init(&p, POSENC_ROPE_YARN, 64, 1e4), POSENC_OK);
  EXPECT_EQ(p.struct_size, sizeof(posenc_rope_params));
  EXPECT_EQ(p.type, POSENC_ROPE_YARN);
  EXPECT_EQ(p.rotary_dim, 64);
  EXPECT_EQ(p.theta, 1e4);
  EXPECT_EQ(p.factor, 1.0);
  EXPECT_EQ(p.original_max_position, 0);
  EXPECT_EQ(p.seq_len, 0);
  EXPECT_EQ(p.low_freq_factor, 1.0);
  EXPECT_EQ(p.high_freq_factor, 4.0);
  EXPECT_EQ(p.beta_fast, 32.0);
  EXPECT_EQ(p.beta_slow, 1.0);
  EXPECT_EQ(p.mscale, 0.0);
  EXPECT_EQ(p.mscale_all_dim, 0.0);
  EXPECT_EQ(p.attention_factor, 0.0);
  EXPECT_EQ(p.truncate, 1);
  EXPECT_EQ(p.short_factor, nullptr);
  EXPECT_EQ(p.long_factor, nullptr);
  posenc_rope_params before = p;
  EXPECT_POSENC_ERROR(posenc_rope_params_init(&p, static_cast<posenc_rope_type>(9), 64, 1e4),
                      POSENC_ERR_INVALID_ARGUMENT, "type");
  EXPECT_POSENC_ERROR(posenc_rope_params_init(&p, POSENC_ROPE_DEFAULT, 63, 1e4), POSENC_ERR_INVALID_ARGUMENT,
                      "rotary_dim");
  EXPECT_POSENC_ERROR(posenc_rope_params_init(&p, POSENC_ROPE_DEFAULT, 0, 1e4), POSENC_ERR_INVALID_ARGUMENT,
                      "rotary_dim");
  EXPECT_POSENC_ERROR(posenc_rope_params_init(&p, POSENC_ROPE_DEFAULT, 64, -1.0), POSENC_ERR_INVALID_ARGUMENT, "theta");
  EXPECT_POSENC_ERROR(posenc_rope_params_init(nullptr, POSENC_ROPE_DEFAULT, 64, 1e4), POSENC_ERR_NULL_POINTER, "p");
  EXPECT_EQ(std::memcmp(&p, &before, sizeof p), 0);
}

TEST_P(RopeFreq, EveryTypeMatchesLongDoubleFormulas) {
  std::vector<double> sf(64), lf(64);
  for (int j = 0; j < 64; ++j) { sf[j] = 1.0 + 0.01 * j; lf[j] = 1.0 + 0.37 * j; }
  for (int dim : {4, 64, 128}) {
    for (double theta : {1e4, 5e5, 1e6}) {
      auto p = make_params(POSENC_ROPE_DEFAULT, dim, theta);
      expect_freqs_match(p, "default");
      p.type = POSENC_ROPE_LINEAR; p.factor = 4;
      expect_freqs_match(p, "linear");
      p.type = POSENC_ROPE_NTK; p.factor = 8;
      expect_freqs_match(p, "ntk");
      p.type = POSENC_ROPE_DYNAMIC; p.factor = 2; p.original_max_position = 4096;
      for (int64_t sl : {0, 1000, 4096, 8192, 100000}) { p.seq_len = sl; expect_freqs_match(p, "dynamic"); }
      p = make_params(POSENC_ROPE_YARN, dim, theta);
      p.original_max_position = 4096;
      for (double s : {1.0, 4.0, 16.0}) {
        p.factor = s;
        for (int tr : {0, 1}) { p.truncate = tr; expect_freqs_match(p, "yarn"); }
        p.mscale = 1.0; p.mscale_all_dim = 0.5;
        expect_freqs_match(p, "yarn mscale");
        p.mscale = p.mscale_all_dim = 0;
      }
      p.beta_fast = 64; p.beta_slow = 2;
      expect_freqs_match(p, "yarn betas");
      p = make_params(POSENC_ROPE_LONGROPE, dim, theta);
      p.original_max_position = 4096; p.factor = 32; p.short_factor = sf.data(); p.long_factor = lf.data();
      for (int64_t sl : {0, 4096, 4097, 131072}) { p.seq_len = sl; expect_freqs_match(p, "longrope"); }
      p = make_params(POSENC_ROPE_LLAMA3, dim, theta);
      p.original_max_position = 8192; p.factor = 8;
      expect_freqs_match(p, "llama3");
      p.attention_factor = 0.75;
      expect_freqs_match(p, "llama3 override");
    }
  }
}

TEST_P(RopeFreq, Llama31BandTable) {
  auto p = make_params(POSENC_ROPE_LLAMA3, 128, 500000.0);
  p.factor = 8; p.low_freq_factor = 1; p.high_freq_factor = 4; p.original_max_position = 8192;
  std::vector<double> inv(64), base(64);
  double af = 0;
  ASSERT_EQ(posenc_rope_inv_freq(&p, inv.data(), &af), POSENC_OK);
  EXPECT_EQ(af, 1.0);
  auto d = make_params(POSENC_ROPE_DEFAULT, 128, 500000.0);
  ASSERT_EQ(posenc_rope_inv_freq(&d, base.data(), nullptr), POSENC_OK);
  for (int j = 0; j <= 28; ++j) EXPECT_EQ(inv[j], base[j]) << j;
  for (int j = 35; j < 64; ++j) EXPECT_NEAR(base[j] / inv[j], 8.0, 1e-13) << j;
  const double div[6] = {1.21, 1.55, 2.03, 2.69, 3.68, 5.26};
  for (int j = 29; j <= 34; ++j) EXPECT_NEAR(base[j] / inv[j], div[j - 29], 0.005) << j;
}

/// Recovers YaRN's ramp from inv_freq: inv' = inv (1 - ramp (1 - 1/s)).
void yarn_ramp_bounds(double theta, int64_t L, int expect_low, int expect_high) {
  auto p = make_params(POSENC_ROPE_YARN, 128, theta);
  p.original_max_position = L; p.factor = 4;
  std::vector<double> inv(64), base(64);
  ASSERT_EQ(posenc_rope_inv_freq(&p, inv.data(), nullptr), POSENC_OK);
  auto d = make_params(POSENC_ROPE_DEFAULT, 128, theta);
  ASSERT_EQ(posenc_rope_inv_freq(&d, base.data(), nullptr), POSENC_OK);
  for (int j = 0; j < 64; ++j) {
    const double ramp = (1.0 - inv[j] / base[j]) / (1.0 - 1.0 / 4);
    const double want = std::min(1.0, std::max(0.0, double(j - expect_low) / (expect_high - expect_low)));
    EXPECT_NEAR(ramp, want, 1e-12) << "theta " << theta << " j " << j;
  }
}

TEST_P(RopeFreq, YarnLowHighMscaleAndNtkBase) {
  yarn_ramp_bounds(1e6, 32768, 23, 40);
  yarn_ramp_bounds(1e4, 4096, 20, 46);
  for (auto [s, want] : {std::pair<double, double>{4, 1.1386}, {8, 1.2079}, {1, 1.0}}) {
    auto p = make_params(POSENC_ROPE_YARN, 128, 1e4);
    p.original_max_position = 4096; p.factor = s;
    std::vector<double> inv(64);
    double af = 0;
    ASSERT_EQ(posenc_rope_inv_freq(&p, inv.data(), &af), POSENC_OK);
    EXPECT_NEAR(af, want, 5e-5) << s;
    p.mscale = 0.707; p.mscale_all_dim = 0.707;  // DeepSeek-V2 style: cancels
    ASSERT_EQ(posenc_rope_inv_freq(&p, inv.data(), &af), POSENC_OK);
    EXPECT_NEAR(af, 1.0, 1e-15);
  }
  auto p = make_params(POSENC_ROPE_NTK, 128, 1e4);
  p.factor = 8;
  std::vector<double> inv(64);
  ASSERT_EQ(posenc_rope_inv_freq(&p, inv.data(), nullptr), POSENC_OK);
  EXPECT_NEAR(std::pow(inv[1], -64.0), 82684.6, 0.05);
  // Dynamic with seq_len <= max_position is the default table.
  auto dy = make_params(POSENC_ROPE_DYNAMIC, 128, 1e4);
  dy.factor = 4; dy.original_max_position = 2048; dy.seq_len = 1000;
  std::vector<double> a(64), b(64);
  ASSERT_EQ(posenc_rope_inv_freq(&dy, a.data(), nullptr), POSENC_OK);
  auto df = make_params(POSENC_ROPE_DEFAULT, 128, 1e4);
  ASSERT_EQ(posenc_rope_inv_freq(&df, b.data(), nullptr), POSENC_OK);
  for (int j = 0; j < 64; ++j) EXPECT_NEAR(a[j] / b[j], 1.0, 1e-15);
}

TEST_P(RopeFreq, NonsenseParametersAreRejectedAndWriteNothing) {
  std::vector<double> sf(32, 1.0), inv(32);
  poison(inv);
  double af = poison_f64();
  auto check = [&](posenc_rope_params p, const char* needle, posenc_status st = POSENC_ERR_INVALID_ARGUMENT) {
    EXPECT_POSENC_ERROR(posenc_rope_inv_freq(&p, inv.data(), &af), st, needle);
    EXPECT_EQ(count_poison(inv), inv.size());
    EXPECT_TRUE(is_poison(af));
  };
  const auto d = make_params(POSENC_ROPE_DEFAULT, 64, 1e4);
  auto p = d; p.struct_size = 8; check(p, "struct_size");
  p = d; p.rotary_dim = 63; check(p, "rotary_dim");
  p = d; p.rotary_dim = -2; check(p, "rotary_dim");
  p = d; p.theta = 0; check(p, "theta");
  p = d; p.theta = NAN; check(p, "theta");
  p = d; p.factor = 0; check(p, "factor");
  p = d; p.factor = -0.5; check(p, "factor");
  p = d; p.factor = INFINITY; check(p, "factor");
  p = d; p.type = static_cast<posenc_rope_type>(9); check(p, "type");
  p = d; p.attention_factor = -1; check(p, "attention_factor");
  p = d; p.seq_len = -1; check(p, "seq_len");
  p = d; p.type = POSENC_ROPE_NTK; p.rotary_dim = 2; check(p, "rotary_dim");
  p = d; p.type = POSENC_ROPE_DYNAMIC; check(p, "original_max_position");
  p = d; p.type = POSENC_ROPE_YARN; check(p, "original_max_position");
  p.original_max_position = 4096; p.theta = 1.0; check(p, "theta");
  p.theta = 1e4; p.beta_fast = 0.5; check(p, "beta_fast");
  p.beta_fast = 32; p.beta_slow = -1; check(p, "beta_slow");
  p.beta_slow = 1; p.mscale = -1; check(p, "mscale");
  p.mscale = 0; p.mscale_all_dim = NAN; check(p, "mscale_all_dim");
  p.mscale_all_dim = 0; p.truncate = 2; check(p, "truncate");
  p = d; p.type = POSENC_ROPE_LONGROPE; p.original_max_position = 4096; check(p, "short_factor");
  p.short_factor = sf.data(); check(p, "long_factor");
  p.long_factor = sf.data(); p.original_max_position = 1; check(p, "original_max_position");
  p.original_max_position = 4096;
  std::vector<double> bad = sf; bad[17] = 0;
  p.long_factor = bad.data(); check(p, "long_factor[17]");
  p = d; p.type = POSENC_ROPE_LLAMA3; p.original_max_position = 8192; p.high_freq_factor = 0.5; check(p, "high_freq_factor");
  p.high_freq_factor = 4; p.low_freq_factor = 0; check(p, "low_freq_factor");
  EXPECT_POSENC_ERROR(posenc_rope_inv_freq(nullptr, inv.data(), &af), POSENC_ERR_NULL_POINTER, "p");
  EXPECT_POSENC_ERROR(posenc_rope_inv_freq(&d, nullptr, &af), POSENC_ERR_NULL_POINTER, "inv_freq");
  EXPECT_EQ(count_poison(inv), inv.size());
}

// ---------------------------------------------------------------- cos/sin
/// Long-double cos/sin of positions[i] * inv[j] (phase error <= |p w| 2^-64 ~ 1e-12 rad).
void ref_cos_sin(const std::vector<int64_t>& pos, const std::vector<double>& inv, std::vector<double>& c,
                 std::vector<double>& s) {
  const size_t h = inv.size();
  c.resize(pos.size() * h);
  s.resize(pos.size() * h);
  for (size_t i = 0; i < pos.size(); ++i)
    for (size_t j = 0; j < h; ++j) {
      const long double ph = static_cast<long double>(pos[i]) * static_cast<long double>(inv[j]);
      c[i * h + j] = static_cast<double>(cosl(ph));
      s[i * h + j] = static_cast<double>(sinl(ph));
    }
}

std::vector<double> inv_of(const posenc_rope_params& p, double* af = nullptr) {
  std::vector<double> inv(p.rotary_dim / 2);
  double a = 0;
  EXPECT_EQ(posenc_rope_inv_freq(&p, inv.data(), &a), POSENC_OK);
  if (af) *af = a;
  return inv;
}

/// Edge positions, random ones up to 2^24, and consecutive runs (the recurrence path).
/// `small` keeps the apply tests affordable under qemu (long double is quad precision there).
std::vector<int64_t> rope_positions(uint64_t seed, bool small = false) {
  std::vector<int64_t> p = edge_and_random_positions(small ? 16 : 60, seed);
  for (int64_t start : {int64_t(0), int64_t(131072 - 7), int64_t((1 << 24) - 40), int64_t(-(1 << 24))})
    for (int64_t i = 0; i < (small ? 18 : 40); ++i) p.push_back(start + i);
  return p;
}

class RopeCosSin : public IsaTest {};

TEST_P(RopeCosSin, AccurateToTwoToThe24ForEveryType) {
  const auto pos = rope_positions(11);
  const int64_t n = static_cast<int64_t>(pos.size());
  std::vector<posenc_rope_params> ps;
  ps.push_back(make_params(POSENC_ROPE_DEFAULT, 128, 500000.0));
  auto y = make_params(POSENC_ROPE_YARN, 64, 1e6);
  y.original_max_position = 32768; y.factor = 16;
  ps.push_back(y);
  auto l3 = make_params(POSENC_ROPE_LLAMA3, 128, 500000.0);
  l3.original_max_position = 8192; l3.factor = 8;
  ps.push_back(l3);
  ps.push_back(make_params(POSENC_ROPE_DEFAULT, 18, 10000.0));  // tail lanes
  for (const auto& p : ps) {
    double af = 0;
    const auto inv = inv_of(p, &af);
    const size_t h = inv.size();
    std::vector<double> rc, rs;
    ref_cos_sin(pos, inv, rc, rs);
    std::vector<float> c(n * h + 1), s(n * h + 1);
    poison(c); poison(s);
    ASSERT_EQ(posenc_rope_cos_sin_f32(&p, pos.data(), n, c.data(), s.data()), POSENC_OK) << posenc_last_error_message();
    EXPECT_TRUE(is_poison(c.back()) && is_poison(s.back()));
    double err = 0;
    for (size_t i = 0; i < n * h; ++i) {
      err = std::max(err, std::fabs(c[i] - af * rc[i]));
      err = std::max(err, std::fabs(s[i] - af * rs[i]));
    }
    EXPECT_LE(err, 2e-7 * af) << "type " << p.type;
    EXPECT_LE(err, 6.5e-8 * af) << "type " << p.type << " (float32 rounding only)";
  }
}

TEST_P(RopeCosSin, PhaseStaysExactFarBeyondTwoToThe24) {
  // At |p| ~ 2^36 a phase formed with one rounding (no exact two-product) is off by ~1e-6 rad;
  // the long-double reference is within |p w| 2^-64 <= 4e-9 there.
  const auto p = make_params(POSENC_ROPE_DEFAULT, 64, 10000.0);
  std::vector<int64_t> pos;
  std::mt19937_64 rng(99);
  std::uniform_int_distribution<int64_t> d(int64_t(1) << 35, int64_t(1) << 36);
  for (int i = 0; i < 40; ++i) pos.push_back(i % 2 ? d(rng) : -d(rng));
  for (int i = 0; i < 20; ++i) pos.push_back((int64_t(1) << 36) - 10 + i);  // a consecutive run
  const auto inv = inv_of(p);
  std::vector<double> rc, rs;
  ref_cos_sin(pos, inv, rc, rs);
  const int64_t n = static_cast<int64_t>(pos.size());
  std::vector<float> c(n * 32), s(n * 32);
  ASSERT_EQ(posenc_rope_cos_sin_f32(&p, pos.data(), n, c.data(), s.data()), POSENC_OK);
  double err = 0;
  for (size_t i = 0; i < rc.size(); ++i) err = std::max({err, std::fabs(c[i] - rc[i]), std::fabs(s[i] - rs[i])});
  EXPECT_LE(err, 7e-8);
}

TEST_P(RopeCosSin, NullPositionsAndThreadCountsAreBitwiseIdentical) {
  const auto p = make_params(POSENC_ROPE_DEFAULT, 128, 10000.0);
  const int64_t n = 3000;
  std::vector<int64_t> pos(n);
  for (int64_t i = 0; i < n; ++i) pos[i] = i;
  std::vector<float> c0(n * 64), s0(n * 64);
  ASSERT_EQ(posenc_rope_cos_sin_f32(&p, nullptr, n, c0.data(), s0.data()), POSENC_OK);
  for (int threads : {1, 2, 3}) {
    ThreadScope ts(threads);
    std::vector<float> c(n * 64), s(n * 64);
    poison(c); poison(s);
    ASSERT_EQ(posenc_rope_cos_sin_f32(&p, pos.data(), n, c.data(), s.data()), POSENC_OK);
    EXPECT_TRUE(same_bits(c, c0) && same_bits(s, s0)) << threads;
  }
  // Consecutive positions (recurrence) against the reference.
  const auto inv = inv_of(p);
  std::vector<int64_t> sub(pos.begin(), pos.begin() + 200);
  std::vector<double> rc, rs;
  ref_cos_sin(sub, inv, rc, rs);
  double err = 0;
  for (size_t i = 0; i < rc.size(); ++i) err = std::max({err, std::fabs(c0[i] - rc[i]), std::fabs(s0[i] - rs[i])});
  EXPECT_LE(err, 6.5e-8);
}

TEST_P(RopeCosSin, BadInputWritesNothing) {
  const auto p = make_params(POSENC_ROPE_DEFAULT, 8, 10000.0);
  std::vector<float> c(16), s(16);
  poison(c); poison(s);
  const int64_t pos[4] = {0, 1, (int64_t(1) << 53) + 1, 3};
  EXPECT_POSENC_ERROR(posenc_rope_cos_sin_f32(&p, pos, 4, c.data(), s.data()), POSENC_ERR_INVALID_ARGUMENT, "positions[2]");
  EXPECT_POSENC_ERROR(posenc_rope_cos_sin_f32(&p, pos, -1, c.data(), s.data()), POSENC_ERR_INVALID_ARGUMENT, "n");
  EXPECT_POSENC_ERROR(posenc_rope_cos_sin_f32(&p, pos, 2, nullptr, s.data()), POSENC_ERR_NULL_POINTER, "cos_out");
  EXPECT_POSENC_ERROR(posenc_rope_cos_sin_f32(&p, pos, 2, c.data(), nullptr), POSENC_ERR_NULL_POINTER, "sin_out");
  EXPECT_POSENC_ERROR(posenc_rope_cos_sin_f32(nullptr, pos, 2, c.data(), s.data()), POSENC_ERR_NULL_POINTER, "p");
  auto q = p; q.factor = -0.5;
  EXPECT_POSENC_ERROR(posenc_rope_cos_sin_f32(&q, pos, 2, c.data(), s.data()), POSENC_ERR_INVALID_ARGUMENT, "factor");
  EXPECT_POSENC_ERROR(posenc_rope_cos_sin_f32(&p, nullptr, INT64_MAX / 2, c.data(), s.data()), POSENC_ERR_SIZE_OVERFLOW, "cos_out");
  EXPECT_EQ(count_poison(c), c.size());
  EXPECT_EQ(count_poison(s), s.size());
}

// ---------------------------------------------------------------- apply
struct ApplyCase {
  posenc_rope_params p;
  posenc_rope_layout layout;
  int64_t tokens, head_dim, nq, nk, q_stride, k_stride;  // strides 0 = packed
};

/// Float64 reference rotation of one buffer (values in double from the float32 input).
void ref_rotate(const std::vector<double>& in, std::vector<double>& out, const std::vector<int64_t>& pos,
                const std::vector<double>& inv, double af, int layout, int rot, int64_t head_dim, int64_t heads,
                int64_t stride, int inverse) {
  out = in;
  const int half = rot / 2;
  std::vector<double> rc, rs;
  ref_cos_sin(pos, inv, rc, rs);
  for (size_t t = 0; t < pos.size(); ++t)
    for (int64_t hd = 0; hd < heads; ++hd) {
      const size_t base = t * stride + hd * head_dim;
      for (int j = 0; j < half; ++j) {
        const size_t ia = base + (layout == 0 ? j : 2 * j), ib = base + (layout == 0 ? j + half : 2 * j + 1);
        const double c = af * rc[t * half + j], s = (inverse ? -af : af) * rs[t * half + j];
        out[ia] = in[ia] * c - in[ib] * s;
        out[ib] = in[ia] * s + in[ib] * c;
      }
    }
}

class RopeApply : public IsaTest {};

void check_apply_case(const ApplyCase& a, int inverse, const std::vector<int64_t>& pos, const char* what) {
  const int64_t qs = a.q_stride ? a.q_stride : a.nq * a.head_dim;
  const int64_t ks = a.k_stride ? a.k_stride : a.nk * a.head_dim;
  std::vector<float> q = random_f32(a.tokens * qs, 1), k = random_f32(a.tokens * ks + (a.nk ? 0 : 1), 2);
  const std::vector<float> q0 = q, k0 = k;
  ASSERT_EQ(posenc_rope_apply_f32(&a.p, a.layout, pos.data(), a.tokens, a.head_dim, q.data(), a.nq, a.q_stride,
                                  a.nk ? k.data() : nullptr, a.nk, a.k_stride, inverse),
            POSENC_OK)
      << what << ": " << posenc_last_error_message();
  double af = 0;
  const auto inv = inv_of(a.p, &af);
  const int rot = a.p.rotary_dim;
  for (int which = 0; which < 2; ++which) {
    const auto& in = which ? k0 : q0;
    const auto& got = which ? k : q;
    const int64_t heads = which ? a.nk : a.nq, stride = which ? ks : qs;
    std::vector<double> ind(in.begin(), in.end()), ref;
    ref_rotate(ind, ref, pos, inv, af, a.layout, rot, a.head_dim, heads, stride, inverse);
    double worst = 0;
    for (int64_t t = 0; t < a.tokens; ++t)
      for (int64_t e = 0; e < stride; ++e) {
        const size_t i = t * stride + e;
        const int64_t hd = e / a.head_dim, ch = e % a.head_dim;
        if (hd >= heads || ch >= rot) {  // untouched: other heads' gap, pass-through channels
          ASSERT_EQ(std::memcmp(&got[i], &in[i], 4), 0) << what << " touched element " << e << " of token " << t;
          continue;
        }
        const int j = a.layout == 0 ? (ch % (rot / 2)) : ch / 2;
        const size_t ia = t * stride + hd * a.head_dim + (a.layout == 0 ? j : 2 * j);
        const size_t ib = t * stride + hd * a.head_dim + (a.layout == 0 ? j + rot / 2 : 2 * j + 1);
        const double scale = std::fabs(in[ia]) + std::fabs(in[ib]);
        worst = std::max(worst, std::fabs(got[i] - ref[i]) / (scale * std::max(af, 1.0) + 1e-30));
      }
    EXPECT_LE(worst, 4e-7) << what << (which ? " k" : " q");
  }
}

TEST_P(RopeApply, MatchesFloat64ReferenceLayoutsPartialStridesGqa) {
  auto llama = make_params(POSENC_ROPE_LLAMA3, 128, 500000.0);
  llama.original_max_position = 8192; llama.factor = 8;
  auto yarn = make_params(POSENC_ROPE_YARN, 64, 1e6);
  yarn.original_max_position = 4096; yarn.factor = 8;
  const auto pos = rope_positions(5, true);
  std::vector<int64_t> contiguous(37);
  for (size_t i = 0; i < contiguous.size(); ++i) contiguous[i] = 1000 + static_cast<int64_t>(i);
  for (int layout : {0, 1}) {
    const auto L = static_cast<posenc_rope_layout>(layout);
    for (int inverse : {0, 1}) {
      // Llama-3.1-8B shape: 32 Q heads, 8 K heads (GQA), head_dim 128.
      check_apply_case({llama, L, int64_t(pos.size()), 128, 32, 8, 0, 0}, inverse, pos, "llama gqa");
      // Fused QKV rows: q and k are views into [tokens, (32 + 8 + 8) * 128] with gaps.
      check_apply_case({llama, L, 37, 128, 4, 2, 48 * 128, 48 * 128 + 3}, inverse, contiguous, "strided");
      // Partial rotary (rotary_dim 64 of head_dim 80), attention_factor != 1.
      check_apply_case({yarn, L, int64_t(pos.size()), 80, 3, 1, 0, 0}, inverse, pos, "partial yarn");
      // Odd shapes: rotary_dim 18 (tails), head_dim 21, K absent.
      check_apply_case({make_params(POSENC_ROPE_DEFAULT, 18, 1e4), L, 37, 21, 5, 0, 0, 0}, inverse, contiguous,
                       "tails no k");
      check_apply_case({make_params(POSENC_ROPE_DEFAULT, 2, 1e4), L, 37, 3, 2, 2, 7, 0}, inverse, contiguous, "dim 2");
    }
  }
}

TEST_P(RopeApply, InverseRoundTripsAndThreadsAreBitwiseIdentical) {
  const auto p = make_params(POSENC_ROPE_DEFAULT, 128, 500000.0);
  const auto pos = scattered_positions(300, 1 << 24, 3);
  for (int layout : {0, 1}) {
    const auto L = static_cast<posenc_rope_layout>(layout);
    const std::vector<float> q0 = random_f32(300 * 4 * 128, 5), k0 = random_f32(300 * 2 * 128, 6);
    std::vector<float> qr, kr;
    for (int threads : {1, 2, 3}) {
      ThreadScope ts(threads);
      auto q = q0, k = k0;
      ASSERT_EQ(posenc_rope_apply_f32(&p, L, pos.data(), 300, 128, q.data(), 4, 0, k.data(), 2, 0, 0), POSENC_OK);
      if (threads == 1) { qr = q; kr = k; }
      else EXPECT_TRUE(same_bits(q, qr) && same_bits(k, kr)) << threads;
      ASSERT_EQ(posenc_rope_apply_f32(&p, L, pos.data(), 300, 128, q.data(), 4, 0, k.data(), 2, 0, 1), POSENC_OK);
      double err = 0;
      for (size_t i = 0; i < q.size(); ++i) err = std::max(err, double(std::fabs(q[i] - q0[i])));
      for (size_t i = 0; i < k.size(); ++i) err = std::max(err, double(std::fabs(k[i] - k0[i])));
      EXPECT_LE(err, 1e-6) << "layout " << layout;
    }
  }
}

uint16_t ref_bf16(float f) {  // round to nearest even
  uint32_t u; std::memcpy(&u, &f, 4);
  if (std::isnan(f)) return static_cast<uint16_t>((u >> 16) | 0x40);
  const uint32_t lower = u & 0xffff, upper = u >> 16;
  if (lower > 0x8000 || (lower == 0x8000 && (upper & 1))) return static_cast<uint16_t>(upper + 1);
  return static_cast<uint16_t>(upper);
}
float widen(uint16_t b) { uint32_t u = uint32_t(b) << 16; float f; std::memcpy(&f, &u, 4); return f; }

TEST_P(RopeApply, Bf16IsFloat32MathRoundedToNearestEven) {
  auto p = make_params(POSENC_ROPE_YARN, 96, 1e4);
  p.original_max_position = 2048; p.factor = 4;
  const auto pos = rope_positions(9, true);
  const int64_t T = static_cast<int64_t>(pos.size()), hd = 112, nq = 5, nk = 3, qs = 6 * 112;
  for (int layout : {0, 1}) {
    for (int inverse : {0, 1}) {
      const auto L = static_cast<posenc_rope_layout>(layout);
      std::vector<float> qf = random_f32(T * qs, 7), kf = random_f32(T * nk * hd, 8);
      std::vector<uint16_t> qb(qf.size()), kb(kf.size());
      for (size_t i = 0; i < qf.size(); ++i) { qb[i] = ref_bf16(qf[i]); qf[i] = widen(qb[i]); }
      for (size_t i = 0; i < kf.size(); ++i) { kb[i] = ref_bf16(kf[i]); kf[i] = widen(kb[i]); }
      qb[3] = 0x7fc1; qf[3] = widen(0x7fc1);  // a NaN in a pass-through... and in a rotated channel:
      const auto qb0 = qb;
      ASSERT_EQ(posenc_rope_apply_bf16(&p, L, pos.data(), T, hd, qb.data(), nq, qs, kb.data(), nk, 0, inverse), POSENC_OK);
      ASSERT_EQ(posenc_rope_apply_f32(&p, L, pos.data(), T, hd, qf.data(), nq, qs, kf.data(), nk, 0, inverse), POSENC_OK);
      size_t bad = 0;
      for (size_t i = 0; i < qb.size(); ++i) bad += qb[i] != ref_bf16(qf[i]);
      for (size_t i = 0; i < kb.size(); ++i) bad += kb[i] != ref_bf16(kf[i]);
      EXPECT_EQ(bad, 0u) << "layout " << layout;
      // Gap between heads 5 and the token stride is untouched.
      for (int64_t t = 0; t < T; ++t)
        EXPECT_EQ(std::memcmp(&qb[t * qs + nq * hd], &qb0[t * qs + nq * hd], (qs - nq * hd) * 2), 0);
    }
  }
}

TEST_P(RopeApply, CachedEqualsUncached) {
  const auto p = make_params(POSENC_ROPE_DEFAULT, 64, 10000.0);
  const int64_t rows = 4099, hd = 64;
  // Table rows computed with every row an exact anchor: positions in a stride permutation.
  std::vector<int64_t> perm(rows);
  for (int64_t i = 0; i < rows; ++i) perm[i] = (i * 1031) % rows;
  std::vector<float> pc(rows * 32), ps(rows * 32), ct(rows * 32), st(rows * 32);
  ASSERT_EQ(posenc_rope_cos_sin_f32(&p, perm.data(), rows, pc.data(), ps.data()), POSENC_OK);
  for (int64_t i = 0; i < rows; ++i) {
    std::memcpy(&ct[perm[i] * 32], &pc[i * 32], 128);
    std::memcpy(&st[perm[i] * 32], &ps[i * 32], 128);
  }
  // The natural table (consecutive positions from 0: anchored recurrence).
  std::vector<float> cn(rows * 32), sn(rows * 32);
  ASSERT_EQ(posenc_rope_cos_sin_f32(&p, nullptr, rows, cn.data(), sn.data()), POSENC_OK);
  std::vector<int64_t> consecutive(700);
  for (size_t i = 0; i < consecutive.size(); ++i) consecutive[i] = static_cast<int64_t>(i);
  const auto scattered = scattered_positions(700, rows, 4);
  for (int layout : {0, 1}) {
    for (int inverse : {0, 1}) {
      const auto L = static_cast<posenc_rope_layout>(layout);
      for (int which = 0; which < 2; ++which) {
        const auto& pos = which ? scattered : consecutive;
        const float* ctab = which ? ct.data() : cn.data();
        const float* stab = which ? st.data() : sn.data();
        const int64_t T = static_cast<int64_t>(pos.size());
        std::vector<float> q1 = random_f32(T * 3 * hd, 10), k1 = random_f32(T * hd, 11);
        auto q2 = q1, k2 = k1;
        ASSERT_EQ(posenc_rope_apply_f32(&p, L, pos.data(), T, hd, q1.data(), 3, 0, k1.data(), 1, 0, inverse), POSENC_OK);
        ASSERT_EQ(posenc_rope_apply_cached_f32(ctab, stab, rows, 64, L, pos.data(), T, hd, q2.data(), 3, 0, k2.data(),
                                               1, 0, inverse),
                  POSENC_OK)
            << posenc_last_error_message();
        EXPECT_TRUE(same_bits(q1, q2) && same_bits(k1, k2)) << "layout " << layout << " scattered " << which;
      }
    }
  }
}

TEST_P(RopeApply, BadInputLeavesQAndKBitIdentical) {
  const auto p = make_params(POSENC_ROPE_DEFAULT, 16, 10000.0);
  std::vector<float> q = random_f32(4 * 2 * 16, 1), k = random_f32(4 * 16, 2);
  std::vector<uint16_t> qb(q.size(), 0x3f80), kb(k.size(), 0x3f80);
  const auto q0 = q, k0 = k;
  const auto qb0 = qb, kb0 = kb;
  int64_t pos[4] = {0, 1, 2, 3};
  const int64_t big[4] = {0, 1, (int64_t(1) << 53) + 5, 3};
  std::vector<float> ct(4 * 8, 1.0f), st(4 * 8, 0.0f);
  const auto L = POSENC_ROPE_NEOX;
  auto f32 = [&](const posenc_rope_params* pp, int layout, const int64_t* ps, int64_t T, int64_t hd, float* qq,
                 int64_t nq, int64_t qs, float* kk, int64_t nk, int64_t ks) {
    return posenc_rope_apply_f32(pp, static_cast<posenc_rope_layout>(layout), ps, T, hd, qq, nq, qs, kk, nk, ks, 0);
  };
  EXPECT_POSENC_ERROR(f32(&p, 2, pos, 4, 16, q.data(), 2, 0, k.data(), 1, 0), POSENC_ERR_INVALID_ARGUMENT, "layout");
  EXPECT_POSENC_ERROR(f32(&p, 0, pos, -1, 16, q.data(), 2, 0, k.data(), 1, 0), POSENC_ERR_INVALID_ARGUMENT, "num_tokens");
  EXPECT_POSENC_ERROR(f32(&p, 0, pos, 4, 8, q.data(), 2, 0, k.data(), 1, 0), POSENC_ERR_INVALID_ARGUMENT, "head_dim");
  EXPECT_POSENC_ERROR(f32(&p, 0, pos, 4, 16, q.data(), -2, 0, k.data(), 1, 0), POSENC_ERR_INVALID_ARGUMENT, "num_q_heads");
  EXPECT_POSENC_ERROR(f32(&p, 0, pos, 4, 16, q.data(), 2, 31, k.data(), 1, 0), POSENC_ERR_INVALID_ARGUMENT, "q_token_stride");
  EXPECT_POSENC_ERROR(f32(&p, 0, pos, 4, 16, q.data(), 2, 0, k.data(), 1, -1), POSENC_ERR_INVALID_ARGUMENT, "k_token_stride");
  EXPECT_POSENC_ERROR(f32(&p, 0, pos, 4, 16, nullptr, 2, 0, k.data(), 1, 0), POSENC_ERR_NULL_POINTER, "q");
  EXPECT_POSENC_ERROR(f32(&p, 0, pos, 4, 16, q.data(), 2, 0, nullptr, 1, 0), POSENC_ERR_NULL_POINTER, "k");
  EXPECT_POSENC_ERROR(f32(&p, 0, nullptr, 4, 16, q.data(), 2, 0, k.data(), 1, 0), POSENC_ERR_NULL_POINTER, "positions");
  EXPECT_POSENC_ERROR(f32(&p, 0, big, 4, 16, q.data(), 2, 0, k.data(), 1, 0), POSENC_ERR_INVALID_ARGUMENT, "positions[2]");
  EXPECT_POSENC_ERROR(f32(&p, 0, pos, INT64_MAX / 4, 16, q.data(), 2, 0, k.data(), 1, 0), POSENC_ERR_SIZE_OVERFLOW, "q");
  auto bad = p; bad.theta = -1;
  EXPECT_POSENC_ERROR(f32(&bad, 0, pos, 4, 16, q.data(), 2, 0, k.data(), 1, 0), POSENC_ERR_INVALID_ARGUMENT, "theta");
  EXPECT_POSENC_ERROR(posenc_rope_apply_bf16(&p, L, big, 4, 16, qb.data(), 2, 0, kb.data(), 1, 0, 0),
                      POSENC_ERR_INVALID_ARGUMENT, "positions[2]");
  EXPECT_POSENC_ERROR(posenc_rope_apply_bf16(&p, L, pos, 4, 8, qb.data(), 2, 0, kb.data(), 1, 0, 0),
                      POSENC_ERR_INVALID_ARGUMENT, "head_dim");
  EXPECT_POSENC_ERROR(posenc_rope_apply_bf16(&p, L, pos, 4, 16, qb.data(), 2, 0, nullptr, 1, 0, 0),
                      POSENC_ERR_NULL_POINTER, "k");
  auto cached = [&](int64_t rows, int32_t rot, const int64_t* ps, const float* c, const float* s) {
    return posenc_rope_apply_cached_f32(c, s, rows, rot, L, ps, 4, 16, q.data(), 2, 0, k.data(), 1, 0, 0);
  };
  pos[3] = 4;
  EXPECT_POSENC_ERROR(cached(4, 16, pos, ct.data(), st.data()), POSENC_ERR_INVALID_ARGUMENT, "positions[3]");
  pos[3] = -1;
  EXPECT_POSENC_ERROR(cached(4, 16, pos, ct.data(), st.data()), POSENC_ERR_INVALID_ARGUMENT, "positions[3]");
  pos[3] = 3;
  EXPECT_POSENC_ERROR(cached(4, 15, pos, ct.data(), st.data()), POSENC_ERR_INVALID_ARGUMENT, "rotary_dim");
  EXPECT_POSENC_ERROR(cached(4, 18, pos, ct.data(), st.data()), POSENC_ERR_INVALID_ARGUMENT, "head_dim");
  EXPECT_POSENC_ERROR(cached(-1, 16, pos, ct.data(), st.data()), POSENC_ERR_INVALID_ARGUMENT, "table_rows");
  EXPECT_POSENC_ERROR(cached(4, 16, pos, nullptr, st.data()), POSENC_ERR_NULL_POINTER, "cos_table");
  EXPECT_POSENC_ERROR(cached(4, 16, pos, ct.data(), nullptr), POSENC_ERR_NULL_POINTER, "sin_table");
  EXPECT_TRUE(same_bits(q, q0) && same_bits(k, k0));
  EXPECT_TRUE(same_bits(qb, qb0) && same_bits(kb, kb0));
  // Zero tokens / zero heads are no-ops that accept NULL buffers.
  EXPECT_EQ(posenc_rope_apply_f32(&p, L, nullptr, 0, 16, nullptr, 2, 0, nullptr, 0, 0, 0), POSENC_OK);
  EXPECT_EQ(posenc_rope_apply_cached_f32(nullptr, nullptr, 0, 16, L, nullptr, 0, 16, nullptr, 2, 0, nullptr, 0, 0, 0),
            POSENC_OK);
}

// ---------------------------------------------------------------- decay
class RopeDecay : public IsaTest {};

std::vector<double> decay_inv(int d, double b) {
  std::vector<double> w(d / 2);
  for (int t = 0; t < d / 2; ++t) w[t] = std::pow(b, -2.0 * t / d);
  return w;
}

TEST_P(RopeDecay, ReferenceValuesD8192) {
  const auto w = decay_inv(8192, 1e4);
  const int64_t count = 20000;
  std::vector<double> f(count + 1);
  poison(f);
  ASSERT_EQ(posenc_rope_decay_f64(w.data(), 4096, 0, 1, count, f.data(), nullptr), POSENC_OK);
  EXPECT_TRUE(is_poison(f.back()));
  EXPECT_NEAR(f[0], 4096.0, 1e-9);
  EXPECT_NEAR(f[1], 3989.1215, 6e-5);
  EXPECT_NEAR(f[100], 1788.9641, 6e-5);
  EXPECT_NEAR(f[1000], 768.3948, 6e-5);
  EXPECT_NEAR(f[5000], 63.3766, 6e-5);
  EXPECT_NEAR(f[10000], -132.4347, 6e-5);
  const auto mn = std::min_element(f.begin(), f.begin() + count);
  EXPECT_EQ(mn - f.begin(), 17064);
  EXPECT_NEAR(*mn, -272.2781, 6e-5);
  int64_t first_neg = -1;
  for (int64_t i = 0; i < count; ++i)
    if (f[i] < 0) { first_neg = i; break; }
  EXPECT_EQ(first_neg, 5670);
  // Far values through n_begin / n_step.
  std::vector<double> g(4);
  ASSERT_EQ(posenc_rope_decay_f64(w.data(), 4096, 50000, 50000, 4, g.data(), nullptr), POSENC_OK);
  EXPECT_NEAR(g[0], 111.5338, 6e-5);
  EXPECT_NEAR(g[1], 56.3034, 6e-5);
  EXPECT_NEAR(g[2], -54.9229, 6e-5);
  EXPECT_NEAR(g[3], 7.2519, 6e-5);
}

TEST_P(RopeDecay, ReferenceValuesD128AndBound) {
  const auto w = decay_inv(128, 5e5);
  std::vector<double> f(4), bound(4);
  const int64_t ns[4] = {1000, 8192, 32768, 131072};
  const double want[4] = {31.5049, 16.9865, 13.4233, 3.0578};
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(posenc_rope_decay_f64(w.data(), 64, ns[i], 1, 1, &f[i], &bound[i]), POSENC_OK);
    EXPECT_NEAR(f[i], want[i], 6e-5) << ns[i];
  }
  // Bound against a direct long-double evaluation, and at n = 0: (1/F) sum_j j = (F+1)/2.
  std::vector<int64_t> ns2 = {0, 1, 17, 999, 65537, 1 << 20};
  std::vector<double> f2(ns2.size()), b2(ns2.size());
  for (size_t i = 0; i < ns2.size(); ++i) {
    ASSERT_EQ(posenc_rope_decay_f64(w.data(), 64, ns2[i], 3, 1, &f2[i], &b2[i]), POSENC_OK);
    long double re = 0, im = 0, sum = 0, fr = 0;
    for (int j = 0; j < 64; ++j) {
      const long double ph = static_cast<long double>(ns2[i]) * w[j];
      re += cosl(ph); im += sinl(ph);
      fr += cosl(ph);
      sum += sqrtl(re * re + im * im);
    }
    EXPECT_NEAR(b2[i], static_cast<double>(sum / 64), 1e-9 * 64) << ns2[i];
    EXPECT_NEAR(f2[i], static_cast<double>(fr), 1e-9 * 64) << ns2[i];
  }
  EXPECT_NEAR(b2[0], 32.5, 1e-12);
}

TEST_P(RopeDecay, MatchesLongDoubleAtRandomNAndStepsBitwiseForThreads) {
  // Frequencies of d = 1000 (500, not a multiple of any vector width), random n_begin / n_step,
  // one full tile and a partial one.
  const auto w = decay_inv(1000, 1e4);
  const int F = 500;
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 3; ++trial) {
    const int64_t n0 = std::uniform_int_distribution<int64_t>(-(1 << 24), 1 << 24)(rng);
    const int64_t step = std::uniform_int_distribution<int64_t>(-40000, 40000)(rng);
    const int64_t count = 700;
    std::vector<double> ref_f, ref_b;
    for (int threads : {1, 2, 3}) {
      ThreadScope ts(threads);
      std::vector<double> f(count), b(count);
      poison(f); poison(b);
      ASSERT_EQ(posenc_rope_decay_f64(w.data(), F, n0, step, count, f.data(), b.data()), POSENC_OK);
      if (threads == 1) { ref_f = f; ref_b = b; }
      else EXPECT_TRUE(same_bits(f, ref_f) && same_bits(b, ref_b)) << threads;
    }
    // f alone takes another path (Chebyshev recurrence instead of rotations).
    std::vector<double> fo(count + 1);
    poison(fo);
    ASSERT_EQ(posenc_rope_decay_f64(w.data(), F, n0, step, count, fo.data(), nullptr), POSENC_OK);
    EXPECT_TRUE(is_poison(fo.back()));
    // Direct long-double sums at a few rows: both ends of the first and the second tile.
    double worst = 0;
    for (int64_t i : {int64_t(0), int64_t(1), int64_t(2), int64_t(137), int64_t(511), int64_t(512),
                      int64_t(513), int64_t(count - 1)}) {
      const long double n = static_cast<long double>(n0 + i * step);
      long double s = 0;
      for (int j = 0; j < F; ++j) s += cosl(n * w[j]);
      worst = std::max(worst, std::fabs(ref_f[i] - static_cast<double>(s)));
      worst = std::max(worst, std::fabs(fo[i] - static_cast<double>(s)));
    }
    EXPECT_LE(worst, 1e-9 * F) << "n0 " << n0 << " step " << step;
    EXPECT_LE(worst, 1e-10 * F) << "observed accuracy regressed";
  }
}

TEST_P(RopeDecay, BadInputWritesNothing) {
  const auto w = decay_inv(16, 1e4);
  std::vector<double> f(4), b(4);
  poison(f); poison(b);
  auto bad = w; bad[3] = NAN;
  EXPECT_POSENC_ERROR(posenc_rope_decay_f64(w.data(), 0, 0, 1, 4, f.data(), b.data()), POSENC_ERR_INVALID_ARGUMENT, "num_freqs");
  EXPECT_POSENC_ERROR(posenc_rope_decay_f64(nullptr, 8, 0, 1, 4, f.data(), b.data()), POSENC_ERR_NULL_POINTER, "inv_freq");
  EXPECT_POSENC_ERROR(posenc_rope_decay_f64(bad.data(), 8, 0, 1, 4, f.data(), b.data()), POSENC_ERR_INVALID_ARGUMENT, "inv_freq[3]");
  EXPECT_POSENC_ERROR(posenc_rope_decay_f64(w.data(), 8, 0, 1, -4, f.data(), b.data()), POSENC_ERR_INVALID_ARGUMENT, "count");
  EXPECT_POSENC_ERROR(posenc_rope_decay_f64(w.data(), 8, 0, 1, 4, nullptr, b.data()), POSENC_ERR_NULL_POINTER, "f");
  EXPECT_POSENC_ERROR(posenc_rope_decay_f64(w.data(), 8, INT64_MAX - 2, 1, 4, f.data(), b.data()), POSENC_ERR_INVALID_ARGUMENT, "overflows");
  EXPECT_POSENC_ERROR(posenc_rope_decay_f64(w.data(), 8, int64_t(1) << 53, 1, 4, f.data(), b.data()), POSENC_ERR_INVALID_ARGUMENT, "2^53");
  EXPECT_EQ(count_poison(f), f.size());
  EXPECT_EQ(count_poison(b), b.size());
}

}  // namespace

POSENC_INSTANTIATE_ISA(RopeFreq);
POSENC_INSTANTIATE_ISA(RopeCosSin);
POSENC_INSTANTIATE_ISA(RopeApply);
POSENC_INSTANTIATE_ISA(RopeDecay);
