// SPDX-License-Identifier: Apache-2.0 OR MIT
// bench/ab_compare.cpp — A/B timing of two builds of libposenc in one process.
//
//   posenc_ab OLD.so NEW.so [--fn FN] [--fn-old FN] [--lmax L[,L...]] [--points N] [--pairs P]
//             [--isa scalar|avx2|avx512|neon] [--threads T] [--clock wall|cpu]
//   FN: sh_real_f64 (default), sh_real_f32, legendre_f64, sh_lonlat_f64 (the same directions as
//   lon / lat in degrees), sh_complex_f64 (the same directions as theta, phi in radians)
//
// Loads both libraries with dlmopen(LM_ID_NEWLM) — two link-map namespaces, so the two copies
// of every posenc_* symbol (and of their TBB arenas) stay apart — forces the same ISA and thread
// count in both, and for each lmax times P pairs of calls on the same random input, alternating
// which library goes first. Prints, per lmax, the median and the 25th/75th percentiles of the
// per-pair time ratio NEW/OLD (below 1: NEW is faster) and each library's median time.
// --fn-old FN: OLD runs FN instead of --fn on the same directions, e.g. the cost of a front end
// against the Cartesian entry point of one build:
//   posenc_ab build/release/libposenc.so build/release/libposenc.so --fn-old sh_real_f64 \
//             --fn sh_lonlat_f64 --lmax 1,2,3,10,40 --clock cpu
// Alternating the calls inside one process cancels most of the drift of a shared machine, which
// separate benchmark runs cannot: two copies of one library measure 0.95–1.05 on a busy VM.
// --clock cpu times each call by the process's CPU time instead of the wall clock: on a machine
// with more runnable threads than cores the wall time of a call includes the time it waited for
// a core (with --threads 1 the call runs on the calling thread only).
//
// This is how the sphere thresholds in kernels/sphere/policy.hpp (block sizes, streaming and
// line-writer cut-offs, unroll limits) are re-tuned when the CPU changes: build the library twice
// with the constant changed (two build folders), then run
//   ./build/release/bench/posenc_ab build/old/libposenc.so build/new/libposenc.so --lmax 3,10,40
// and keep the change where the median ratio is below 1 on every lmax that matters.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

namespace {

using status_fn = int (*)();
struct Lib {
  void* h = nullptr;
  int (*isa_set)(int) = nullptr;
  int (*threads_set)(int32_t) = nullptr;
  const char* (*last_error)() = nullptr;
  int (*sh_f64)(int32_t, const double*, int64_t, double*) = nullptr;
  int (*sh_f32)(int32_t, const float*, int64_t, float*) = nullptr;
  int (*leg_f64)(int, int32_t, int32_t, const double*, int64_t, double*) = nullptr;
  int (*lonlat_f64)(int32_t, const double*, int64_t, double*) = nullptr;
  int (*complex_f64)(int32_t, const double*, const double*, int64_t, double*) = nullptr;
};

template <class F>
void sym(Lib& l, F& f, const char* name, const char* path) {
  f = reinterpret_cast<F>(dlsym(l.h, name));
  if (!f) {
    std::fprintf(stderr, "posenc_ab: %s has no %s\n", path, name);
    std::exit(2);
  }
}

Lib open_lib(const char* path) {
  Lib l;
  l.h = dlmopen(LM_ID_NEWLM, path, RTLD_NOW | RTLD_LOCAL);
  if (!l.h) {
    std::fprintf(stderr, "posenc_ab: cannot load %s: %s\n", path, dlerror());
    std::exit(2);
  }
  sym(l, l.isa_set, "posenc_isa_set", path);
  sym(l, l.threads_set, "posenc_threads_set", path);
  sym(l, l.last_error, "posenc_last_error_message", path);
  sym(l, l.sh_f64, "posenc_sph_harm_real_f64", path);
  sym(l, l.sh_f32, "posenc_sph_harm_real_f32", path);
  sym(l, l.leg_f64, "posenc_legendre_f64", path);
  sym(l, l.lonlat_f64, "posenc_sph_harm_real_lonlat_f64", path);
  sym(l, l.complex_f64, "posenc_sph_harm_complex_f64", path);
  return l;
}

int isa_value(const std::string& s) {
  if (s == "scalar") return 1;
  if (s == "avx2") return 2;
  if (s == "avx512") return 4;
  if (s == "neon") return 8;
  if (s == "auto") return 0;
  std::fprintf(stderr, "posenc_ab: --isa must be scalar, avx2, avx512, neon or auto (got %s)\n", s.c_str());
  std::exit(2);
}

double pct(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double i = q * double(v.size() - 1);
  const size_t a = size_t(i), b = std::min(a + 1, v.size() - 1);
  return v[a] + (v[b] - v[a]) * (i - double(a));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: posenc_ab OLD.so NEW.so [--fn FN] [--fn-old FN] [--lmax L[,L...]] [--points N] [--pairs P]\n"
                 "                 [--isa scalar|avx2|avx512|neon] [--threads T] [--clock wall|cpu]\n"
                 "  FN: sh_real_f64, sh_real_f32, legendre_f64, sh_lonlat_f64, sh_complex_f64\n");
    return 2;
  }
  std::string fn = "sh_real_f64", fn_old, isa = "auto", lmaxs = "3,10,40";
  int64_t points = 65536;
  int pairs = 31, threads = 1;
  bool cpu_clock = false;
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "posenc_ab: %s needs a value\n", a.c_str());
      return 2;
    }
    const char* v = argv[++i];
    if (a == "--fn") fn = v;
    else if (a == "--fn-old") fn_old = v;
    else if (a == "--lmax") lmaxs = v;
    else if (a == "--points") points = std::atoll(v);
    else if (a == "--pairs") pairs = std::atoi(v);
    else if (a == "--isa") isa = v;
    else if (a == "--threads") threads = std::atoi(v);
    else if (a == "--clock") cpu_clock = std::string(v) == "cpu";
    else {
      std::fprintf(stderr, "posenc_ab: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (fn_old.empty()) fn_old = fn;
  for (const std::string& f : {fn, fn_old}) {
    if (f != "sh_real_f64" && f != "sh_real_f32" && f != "legendre_f64" && f != "sh_lonlat_f64" && f != "sh_complex_f64") {
      std::fprintf(stderr,
                   "posenc_ab: --fn and --fn-old must be sh_real_f64, sh_real_f32, legendre_f64, sh_lonlat_f64 or "
                   "sh_complex_f64 (got %s)\n",
                   f.c_str());
      return 2;
    }
  }
  if (points <= 0 || pairs < 3 || threads < 0) {
    std::fprintf(stderr, "posenc_ab: --points must be > 0, --pairs >= 3, --threads >= 0\n");
    return 2;
  }
  Lib lib[2] = {open_lib(argv[1]), open_lib(argv[2])};
  for (Lib& l : lib) {
    if (l.isa_set(isa_value(isa)) != 0 || l.threads_set(threads) != 0) {
      std::fprintf(stderr, "posenc_ab: %s\n", l.last_error());
      return 2;
    }
  }
  std::mt19937_64 rng(42);
  std::normal_distribution<double> g;
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> xyz(static_cast<size_t>(points) * 3), x(static_cast<size_t>(points));
  for (double& v : xyz) v = g(rng);
  for (double& v : x) v = u(rng);
  std::vector<float> xyz32(xyz.begin(), xyz.end());
  // The same directions as (longitude, latitude) in degrees and (theta, phi) in radians.
  std::vector<double> ll(static_cast<size_t>(points) * 2), theta(static_cast<size_t>(points)), phi(theta.size());
  for (size_t i = 0; i < size_t(points); ++i) {
    const double* q = xyz.data() + 3 * i;
    const double r = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
    phi[i] = std::atan2(q[1], q[0]);
    theta[i] = std::acos(q[2] / r);
    ll[2 * i] = phi[i] * (180.0 / 3.14159265358979323846);
    ll[2 * i + 1] = std::asin(q[2] / r) * (180.0 / 3.14159265358979323846);
  }

  std::printf("fn %s (OLD: %s), %lld points, %d pairs, isa %s, %d thread(s), %s time\nOLD %s\nNEW %s\n", fn.c_str(),
              fn_old.c_str(), (long long)points, pairs, isa.c_str(), threads, cpu_clock ? "CPU" : "wall", argv[1], argv[2]);
  std::printf("%6s %12s %12s %10s %16s\n", "lmax", "OLD ms", "NEW ms", "NEW/OLD", "[p25, p75]");
  size_t pos = 0;
  while (pos <= lmaxs.size()) {
    const size_t end = std::min(lmaxs.find(',', pos), lmaxs.size());
    const int lmax = std::atoi(lmaxs.substr(pos, end - pos).c_str());
    pos = end + 1;
    auto width = [&](const std::string& f) {
      const size_t k = size_t(lmax + 1) * size_t(lmax + 1);
      return f == "legendre_f64" ? size_t(lmax + 1) * size_t(lmax + 2) / 2 : f == "sh_complex_f64" ? 2 * k : k;
    };
    // one output buffer per library: with --fn-old the two may differ in size
    std::vector<double> out64[2] = {std::vector<double>(size_t(points) * width(fn_old)),
                                    std::vector<double>(size_t(points) * width(fn))};
    std::vector<float> out32[2] = {std::vector<float>(fn_old == "sh_real_f32" ? size_t(points) * width(fn_old) : 0),
                                   std::vector<float>(fn == "sh_real_f32" ? size_t(points) * width(fn) : 0)};
    auto call = [&](const Lib& l) {
      const int j = &l == &lib[0] ? 0 : 1;
      const std::string& f = j == 0 ? fn_old : fn;
      double* o = out64[j].data();
      int st = 0;
      if (f == "sh_real_f64") st = l.sh_f64(lmax, xyz.data(), points, o);
      else if (f == "sh_real_f32") st = l.sh_f32(lmax, xyz32.data(), points, out32[j].data());
      else if (f == "sh_lonlat_f64") st = l.lonlat_f64(lmax, ll.data(), points, o);
      else if (f == "sh_complex_f64") st = l.complex_f64(lmax, theta.data(), phi.data(), points, o);
      else st = l.leg_f64(1, lmax, 1, x.data(), points, o);
      if (st != 0) {
        std::fprintf(stderr, "posenc_ab: %s\n", l.last_error());
        std::exit(1);
      }
    };
    auto timed = [&](const Lib& l) {
      if (cpu_clock) {
        timespec a{}, b{};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
        call(l);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
        return double(b.tv_sec - a.tv_sec) * 1e3 + double(b.tv_nsec - a.tv_nsec) * 1e-6;
      }
      const auto t0 = std::chrono::steady_clock::now();
      call(l);
      return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    };
    call(lib[0]), call(lib[1]);  // warm up: first-call tables, page faults of the output
    std::vector<double> ratio, t_old, t_new;
    for (int p = 0; p < pairs; ++p) {
      double a, b;
      if (p % 2 == 0) a = timed(lib[0]), b = timed(lib[1]);
      else b = timed(lib[1]), a = timed(lib[0]);
      t_old.push_back(a), t_new.push_back(b), ratio.push_back(b / a);
    }
    std::printf("%6d %12.3f %12.3f %10.3f     [%.3f, %.3f]\n", lmax, pct(t_old, 0.5), pct(t_new, 0.5),
                pct(ratio, 0.5), pct(ratio, 0.25), pct(ratio, 0.75));
  }
  return 0;
}
