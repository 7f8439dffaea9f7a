// SPDX-License-Identifier: Apache-2.0 OR MIT
// sphere family benchmarks (S²). Anchors in the same binary:
//  - GSL: gsl_sf_legendre_array (SPHARM) per point plus cos/sin(m phi) per order, the way a
//    GSL user builds the real SH vector;
//  - a plain scalar recurrence, one point at a time (what sphericart does: (x+iy)^m azimuth,
//    precomputed normalized coefficients, point-major output), compiled with baseline flags;
//  - the output bytes alone: memset (ordinary stores) and, on x86, non-temporal stores.
// Sizes: 64k points. The output of 64k points at L = 100 is 5.3 GB, so every benchmark
// (posenc and anchors alike) writes its points in chunks into one output buffer of at most
// 256 MB (still far beyond the caches, so the output traffic is the real one).
#include "bench/bench_common.hpp"

#include <gsl/gsl_sf_legendre.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <cstring>
#include <random>

using namespace posenc_bench;

namespace {

constexpr double kPi = 3.14159265358979323846;

std::vector<double> random_dirs(int64_t n, uint64_t seed = 1) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> N(0, 1);
  std::vector<double> v(static_cast<size_t>(3 * n));
  for (auto& x : v) x = N(rng);
  return v;
}

int64_t npoints() { return smoke() ? 64 : 65536; }
/// Points per chunk. resident = 0: one chunk's output is <= 256 MB (beyond every cache: the
/// output is written to DRAM, as a caller keeping all 64k points' features would); resident = 1:
/// <= 1 MB (a multiple of 128 points, at least 128), reused chunk after chunk, so the output
/// stays in L2 as for a caller that consumes the features batch by batch (compute-bound).
int64_t chunk_points(int64_t per_point_bytes, int64_t n, int64_t resident = 0) {
  if (resident) return std::min<int64_t>(n, std::max<int64_t>(128, (int64_t(1) << 20) / per_point_bytes / 128 * 128));
  return std::max<int64_t>(1, std::min<int64_t>(n, (int64_t(256) << 20) / per_point_bytes));
}

// Anchor 1: GSL per point, SPHARM Legendre array + cos/sin(m phi).
void BM_sh_real_gsl(benchmark::State& st) {
  const int L = int(st.range(0));
  const int64_t n = npoints(), K = int64_t(L + 1) * (L + 1), ch = chunk_points(K * 8, n);
  const auto dirs = random_dirs(n);
  std::vector<double> out(static_cast<size_t>(ch * K)), leg(gsl_sf_legendre_array_n(size_t(L)));
  const double r2 = std::sqrt(2.0);
  for (auto _ : st) {
    for (int64_t p0 = 0; p0 < n; p0 += ch) {
      const int64_t p1 = std::min(n, p0 + ch);
      for (int64_t p = p0; p < p1; ++p) {
        const double* v = dirs.data() + 3 * p;
        const double r = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        const double phi = std::atan2(v[1], v[0]);
        gsl_sf_legendre_array_e(GSL_SF_LEGENDRE_SPHARM, size_t(L), v[2] / r, 1.0, leg.data());
        double* o = out.data() + (p - p0) * K;
        for (int l = 0; l <= L; ++l) {
          const size_t b = size_t(l) * size_t(l + 1) / 2;
          o[l * (l + 1)] = leg[b];
          for (int m = 1; m <= l; ++m) {
            o[l * (l + 1) + m] = r2 * leg[b + size_t(m)] * std::cos(m * phi);
            o[l * (l + 1) - m] = r2 * leg[b + size_t(m)] * std::sin(m * phi);
          }
        }
      }
    }
    benchmark::DoNotOptimize(out.data());
  }
  st.SetItemsProcessed(st.iterations() * n);
}

// Anchor 2: plain scalar recurrence one point at a time (sphericart's scheme, no SIMD across
// points): Q_l^m = P_l^m / sin^m by the normalized recurrence with precomputed coefficients,
// azimuth as (x+iy)^m.
template <class T>
void scalar_sh_point(int L, const T* v, const std::vector<T>& A, const std::vector<T>& B, const std::vector<T>& D,
                     T* o, T* c, T* s, T* q1, T* q2) {
  const T r = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  const T x = v[0] / r, y = v[1] / r, z = v[2] / r;
  c[0] = 1;
  s[0] = 0;
  for (int m = 1; m <= L; ++m) {
    c[m] = c[m - 1] * x - s[m - 1] * y;
    s[m] = c[m - 1] * y + s[m - 1] * x;
  }
  // Q_m^m = D[m]; Q_{m+1}^m = sqrt(2m+3) z Q_m^m (coefficients of the orthonormal form, with the
  // real form's sqrt(2) in D for m > 0); Q_l^m = A z Q_{l-1}^m - B Q_{l-2}^m.
  for (int m = 0; m <= L; ++m) {
    T a2 = D[size_t(m)], a1 = 0;
    q1[m] = a2;
    if (m + 1 <= L) q2[m] = a1 = std::sqrt(T(2 * m + 3)) * z * a2;
    (void)a1;
  }
  for (int l = 0; l <= L; ++l) {
    T* row = o + l * (l + 1);
    for (int m = 0; m <= l; ++m) {
      T val;
      if (m == l) val = q1[m];
      else if (m == l - 1) val = q2[m];
      else {
        const size_t k = size_t(l) * size_t(l + 1) / 2 + size_t(m);
        val = A[k] * z * q2[m] - B[k] * q1[m];
        q1[m] = q2[m];
        q2[m] = val;
      }
      if (m == 0) row[0] = val;
      else {
        row[m] = val * c[m];
        row[-m] = val * s[m];
      }
    }
  }
}

/// The scalar anchor's tables (normalized recurrence coefficients, sectoral values with the real
/// form's sqrt 2) and per-point work rows, for lmax L.
template <class T>
struct scalar_sh {
  int L;
  std::vector<T> A, B, D, c, s, q1, q2;
  explicit scalar_sh(int lmax) : L(lmax) {
    const size_t NK = size_t(L + 1) * size_t(L + 2) / 2;
    A.assign(NK, T(0));
    B.assign(NK, T(0));
    D.assign(size_t(L + 1), T(0));
    for (int l = 2; l <= L; ++l)
      for (int m = 0; m <= l - 2; ++m) {
        const double lm = l - m, lp = l + m;
        A[size_t(l) * size_t(l + 1) / 2 + size_t(m)] = T(std::sqrt((4.0 * l * l - 1) / (lm * lp)));
        B[size_t(l) * size_t(l + 1) / 2 + size_t(m)] =
            T(std::sqrt((2.0 * l + 1) * (lm - 1) * (lp - 1) / ((2.0 * l - 3) * lm * lp)));
      }
    double dm = 1 / std::sqrt(4 * kPi);
    D[0] = T(dm);
    for (int m = 1; m <= L; ++m) {
      dm *= std::sqrt((2.0 * m + 1) / (2.0 * m)) * (2.0 * m - 1) / std::sqrt((2.0 * m - 1) * (2.0 * m - 1));
      D[size_t(m)] = T(dm * std::sqrt(2.0));
    }
    for (auto* v : {&c, &s, &q1, &q2}) v->assign(size_t(L + 1), T(0));
  }
  /// Points [0, n) of dirs, in chunks of ch points, each chunk into out (point-major, K per point).
  void run(const T* dirs, int64_t n, int64_t ch, T* out) {
    const int64_t K = int64_t(L + 1) * (L + 1);
    for (int64_t p0 = 0; p0 < n; p0 += ch) {
      const int64_t p1 = std::min(n, p0 + ch);
      for (int64_t p = p0; p < p1; ++p)
        scalar_sh_point<T>(L, dirs + 3 * p, A, B, D, out + (p - p0) * K, c.data(), s.data(), q1.data(), q2.data());
    }
  }
};

posenc_status sh_real(int L, const double* xyz, int64_t n, double* out) { return posenc_sph_harm_real_f64(L, xyz, n, out); }
posenc_status sh_real(int L, const float* xyz, int64_t n, float* out) { return posenc_sph_harm_real_f32(L, xyz, n, out); }

/// A real-SH benchmark case in type T: st's L and resident, 64k random points (as T), the
/// chunked output buffer and the scalar anchor for L.
template <class T>
struct sh_case {
  int L;
  int64_t n, K, ch;
  std::vector<T> dirs, out;
  scalar_sh<T> anchor;
  explicit sh_case(const benchmark::State& st)
      : L(int(st.range(0))), n(npoints()), K(int64_t(L + 1) * (L + 1)),
        ch(chunk_points(K * int64_t(sizeof(T)), n, st.range(1))), out(static_cast<size_t>(ch * K)), anchor(L) {
    const auto d = random_dirs(n);
    dirs.assign(d.begin(), d.end());
  }
  void run_anchor() { anchor.run(dirs.data(), n, ch, out.data()); }
  /// posenc over the same points and chunks; false (st's error set) if a call fails.
  bool run_posenc(benchmark::State& st) {
    for (int64_t p = 0; p < n; p += ch)
      if (!ok(st, sh_real(L, dirs.data() + 3 * p, std::min(ch, n - p), out.data()))) return false;
    return true;
  }
};

template <class T>
void bm_sh_real_posenc(benchmark::State& st) {
  sh_case<T> c(st);
  for (auto _ : st) {
    if (!c.run_posenc(st)) return;
    benchmark::DoNotOptimize(c.out.data());
  }
  st.SetItemsProcessed(st.iterations() * c.n);
  label(st);
}
void BM_sh_real_posenc_f64(benchmark::State& st) { bm_sh_real_posenc<double>(st); }
void BM_sh_real_posenc_f32(benchmark::State& st) { bm_sh_real_posenc<float>(st); }

template <class T>
void BM_sh_real_scalar(benchmark::State& st) {
  sh_case<T> c(st);
  for (auto _ : st) {
    c.run_anchor();
    benchmark::DoNotOptimize(c.out.data());
  }
  st.SetItemsProcessed(st.iterations() * c.n);
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.empty() ? 0.0 : (v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]));
}

// The ratio to the scalar anchor from interleaved passes: each pair times one pass of posenc
// and one of the scalar recurrence over the same 64k points (same chunking, same output
// buffer), in alternating order, 10 pairs per iteration; the counters are the medians over all
// pairs of the two times (ms per pass) and of the per-pair ratio scalar / posenc. The real time
// of an iteration is the sum of its 20 passes. The shared dev VM's load changes over tens of
// seconds by up to 1.8x (measured while tuning the sphere kernels), which separate benchmarks run
// minutes apart cannot cancel; passes milliseconds apart see the same load.
template <class T>
void BM_sh_real_vs_scalar(benchmark::State& st) {
  sh_case<T> c(st);
  auto ms = [](auto&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  std::vector<double> tp, ts, r;
  bool good = true;
  const int pairs = smoke() ? 1 : 10;  // per iteration, so that even L = 40 has 10 and more
  for (auto _ : st) {
    for (int i = 0; i < pairs; ++i) {
      double a = 0, b = 0;
      if (tp.size() % 2 == 0) {
        a = ms([&] { good = c.run_posenc(st); });
        b = ms([&] { c.run_anchor(); });
      } else {
        b = ms([&] { c.run_anchor(); });
        a = ms([&] { good = c.run_posenc(st); });
      }
      if (!good) return;
      benchmark::DoNotOptimize(c.out.data());
      tp.push_back(a);
      ts.push_back(b);
      r.push_back(b / a);
    }
  }
  st.counters["posenc_ms"] = median_of(tp);
  st.counters["scalar_ms"] = median_of(ts);
  st.counters["ratio"] = median_of(r);
  st.SetItemsProcessed(st.iterations() * pairs * c.n);
  label(st);
}

// Anchor 3: the output bytes alone. memset of the 64k points' output (same chunking), the floor
// of any kernel that writes it; T = double or float.
template <class T>
void BM_sh_real_memset(benchmark::State& st) {
  const int L = int(st.range(0));
  const int64_t n = npoints(), K = int64_t(L + 1) * (L + 1), ch = chunk_points(K * int64_t(sizeof(T)), n, st.range(1));
  std::vector<T> out(static_cast<size_t>(ch * K));
  int v = 0;
  for (auto _ : st) {
    for (int64_t p = 0; p < n; p += ch) std::memset(out.data(), ++v & 0x7f, size_t(std::min(ch, n - p) * K) * sizeof(T));
    benchmark::DoNotOptimize(out.data());
  }
  st.SetItemsProcessed(st.iterations() * n);
  st.SetBytesProcessed(st.iterations() * n * K * int64_t(sizeof(T)));
}

#if defined(__SSE2__)
// Anchor 4: the same bytes written with non-temporal stores (16-byte movntdq, baseline x86-64;
// the write-combining buffers merge them into whole lines), chunked like the others: the floor
// of a kernel that streams its output to DRAM, as posenc does for outputs >= 16 MB. Measured
// 13.4 GB/s against memset's 7.2 GB/s (ordinary stores: every line read for ownership first).
template <class T>
void BM_sh_real_ntstore(benchmark::State& st) {
  const int L = int(st.range(0));
  const int64_t n = npoints(), K = int64_t(L + 1) * (L + 1), ch = chunk_points(K * int64_t(sizeof(T)), n);
  std::vector<double> buf(static_cast<size_t>((ch * K * int64_t(sizeof(T)) + 15) / 8 + 2));
  __m128i* const out = reinterpret_cast<__m128i*>((reinterpret_cast<uintptr_t>(buf.data()) + 15) & ~uintptr_t(15));
  int v = 0;
  for (auto _ : st) {
    for (int64_t p = 0; p < n; p += ch) {
      const __m128i x = _mm_set1_epi8(static_cast<char>(++v & 0x7f));
      const int64_t nv = (std::min(ch, n - p) * K * int64_t(sizeof(T)) + 15) / 16;
      for (int64_t i = 0; i < nv; ++i) _mm_stream_si128(out + i, x);
    }
    _mm_sfence();
    benchmark::DoNotOptimize(out);
  }
  st.SetItemsProcessed(st.iterations() * n);
  st.SetBytesProcessed(st.iterations() * n * K * int64_t(sizeof(T)));
}
#endif

// Legendre f64, L = 1000 (SCHMIDT), posenc vs GSL per point.
constexpr int64_t kLegPoints = 16;
void BM_legendre1000_posenc(benchmark::State& st) {
  const int L = smoke() ? 50 : 1000;
  const int64_t n = kLegPoints, K = int64_t(L + 1) * (L + 2) / 2;
  std::vector<double> x(static_cast<size_t>(n)), out(static_cast<size_t>(n * K));
  for (int64_t i = 0; i < n; ++i) x[size_t(i)] = std::cos(0.1 + 0.19 * double(i));
  for (auto _ : st) {
    if (!ok(st, posenc_legendre_f64(POSENC_LEGENDRE_SCHMIDT, L, 1, x.data(), n, out.data()))) return;
    benchmark::DoNotOptimize(out.data());
  }
  st.SetItemsProcessed(st.iterations() * n);
  label(st);
}
void BM_legendre1000_gsl(benchmark::State& st) {
  const int L = smoke() ? 50 : 1000;
  const int64_t n = kLegPoints, K = int64_t(L + 1) * (L + 2) / 2;
  std::vector<double> x(static_cast<size_t>(n)), out(static_cast<size_t>(n * K)), tmp(gsl_sf_legendre_array_n(size_t(L)));
  for (int64_t i = 0; i < n; ++i) x[size_t(i)] = std::cos(0.1 + 0.19 * double(i));
  for (auto _ : st) {
    for (int64_t i = 0; i < n; ++i) {
      gsl_sf_legendre_array_e(GSL_SF_LEGENDRE_SCHMIDT, size_t(L), x[size_t(i)], 1.0, tmp.data());
      std::copy(tmp.begin(), tmp.begin() + K, out.begin() + i * K);
    }
    benchmark::DoNotOptimize(out.data());
  }
  st.SetItemsProcessed(st.iterations() * n);
}

// Wigner-D + rotate: lmax 20, 64k coefficient vectors.
void BM_wigner_rotate(benchmark::State& st) {
  const int L = 20;
  const int64_t n = npoints(), K = int64_t(L + 1) * (L + 1);
  std::mt19937_64 rng(5);
  std::normal_distribution<double> N(0, 1);
  std::vector<double> c(static_cast<size_t>(n * K)), out(c.size());
  for (auto& v : c) v = N(rng);
  const double a = 0.3, b = 1.1;
  const double R[9] = {std::cos(a), -std::sin(a) * std::cos(b), std::sin(a) * std::sin(b),
                       std::sin(a), std::cos(a) * std::cos(b),  -std::cos(a) * std::sin(b),
                       0.0,         std::sin(b),                std::cos(b)};
  for (auto _ : st) {
    if (!ok(st, posenc_sph_rotate_real_f64(L, R, c.data(), n, out.data()))) return;
    benchmark::DoNotOptimize(out.data());
  }
  st.SetItemsProcessed(st.iterations() * n);
  st.SetBytesProcessed(st.iterations() * n * K * 16);
  label(st);
}
void BM_wigner_d_only(benchmark::State& st) {
  const int L = 20;
  std::vector<double> d(size_t((L + 1) * (2 * L + 1) * (2 * L + 3) / 3));
  const double R[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1};
  for (auto _ : st) {
    if (!ok(st, posenc_wigner_d_real_f64(L, R, d.data()))) return;
    benchmark::DoNotOptimize(d.data());
  }
}

}  // namespace

// Second argument: 0 = output to DRAM (all 64k points kept), 1 = L2-resident output chunks.
#define SH_ARGS                                                                                     \
  ->ArgsProduct({{3, 10, 20, 40, 100}, {0, 1}})->ArgNames({"L", "resident"})->Unit(benchmark::kMillisecond) \
      ->UseRealTime()
BENCHMARK(BM_sh_real_posenc_f64) SH_ARGS;
BENCHMARK(BM_sh_real_posenc_f32) SH_ARGS;
BENCHMARK(BM_sh_real_gsl)->ArgsProduct({{3, 10, 20, 40, 100}, {0}})->ArgNames({"L", "resident"})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_TEMPLATE(BM_sh_real_scalar, double) SH_ARGS;
BENCHMARK_TEMPLATE(BM_sh_real_scalar, float) SH_ARGS;
BENCHMARK_TEMPLATE(BM_sh_real_vs_scalar, double)->ArgsProduct({{10, 40}, {0, 1}})->ArgNames({"L", "resident"})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_TEMPLATE(BM_sh_real_vs_scalar, float)->ArgsProduct({{10, 40}, {0, 1}})->ArgNames({"L", "resident"})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_TEMPLATE(BM_sh_real_memset, double)->ArgsProduct({{10, 40}, {0, 1}})->ArgNames({"L", "resident"})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_TEMPLATE(BM_sh_real_memset, float)->ArgsProduct({{10, 40}, {0, 1}})->ArgNames({"L", "resident"})->Unit(benchmark::kMillisecond)->UseRealTime();
#if defined(__SSE2__)
BENCHMARK_TEMPLATE(BM_sh_real_ntstore, double)->ArgsProduct({{10, 40}, {0}})->ArgNames({"L", "resident"})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_TEMPLATE(BM_sh_real_ntstore, float)->ArgsProduct({{10, 40}, {0}})->ArgNames({"L", "resident"})->Unit(benchmark::kMillisecond)->UseRealTime();
#endif
BENCHMARK(BM_legendre1000_posenc)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_legendre1000_gsl)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_wigner_rotate)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_wigner_d_only)->Unit(benchmark::kMicrosecond);
