// SPDX-License-Identifier: Apache-2.0 OR MIT
// report.cpp — Report output helpers, registries, timing, machine peaks, the profile runner.
#include "cli/report.hpp"

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <thread>

#include "posenc/posenc.h"

namespace posenc_cli {

std::string strf(const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

std::string Report::data_file(const std::string& name) const {
  const std::string p = data_ + "/" + name;
  std::ifstream f(p);
  if (!f) throw std::runtime_error("missing data file " + p + " (set --data DIR or POSENC_DATA)");
  return p;
}

void Report::table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  md_ << "\n|";
  for (const auto& h : header) md_ << ' ' << h << " |";
  md_ << "\n|";
  for (size_t i = 0; i < header.size(); ++i) md_ << "---|";
  md_ << '\n';
  for (const auto& r : rows) {
    md_ << '|';
    for (const auto& c : r) md_ << ' ' << c << " |";
    md_ << '\n';
  }
  md_ << '\n';
}

void Report::csv(const std::string& name, const std::vector<std::string>& header,
                 const std::vector<std::vector<double>>& columns) {
  const std::string path = out_ + "/" + name + ".csv";
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  for (size_t j = 0; j < header.size(); ++j) std::fprintf(f, "%s%s", j ? "," : "", header[j].c_str());
  std::fputc('\n', f);
  const size_t rows = columns.empty() ? 0 : columns[0].size();
  for (size_t i = 0; i < rows; ++i) {
    for (size_t j = 0; j < columns.size(); ++j)
      std::fprintf(f, "%s%.17g", j ? "," : "", i < columns[j].size() ? columns[j][i] : 0.0);
    std::fputc('\n', f);
  }
  if (std::fclose(f) != 0) throw std::runtime_error("write error on " + path);
  md_ << "Data: [" << name << ".csv](" << name << ".csv)\n\n";
}

void Report::plot(const std::string& name, const Plot& p) {
  std::string err;
  if (!write_png_plot(out_ + "/" + name + ".png", p, &err)) throw std::runtime_error(err);
  md_ << "![" << p.title << "](" << name << ".png)\n\n";
}

void Report::summary(const std::string& experiment, const std::string& what, const std::string& value) {
  summary_.push_back({experiment, what, value});
}

void Report::progress(const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "  %s\n", buf);
  std::fflush(stderr);
}

std::vector<Experiment>& experiments() {
  static std::vector<Experiment> v;
  return v;
}
std::vector<ProfileKernel>& profile_kernels() {
  static std::vector<ProfileKernel> v;
  return v;
}

// Best (minimum) time of a few calls: peaks are what the machine can do, so take the fastest run.
static double time_min(const std::function<void()>& fn, int reps) {
  fn();
  double best = HUGE_VAL;
  for (int i = 0; i < reps; ++i) {
    const double a = now_s();
    fn();
    best = std::min(best, now_s() - a);
  }
  return best;
}

double time_median(const std::function<void()>& fn, double budget_s) {
  fn();  // warm-up (page faults, caches, thread start)
  std::vector<double> t;
  const double start = now_s();
  while (t.size() < 3 || (now_s() - start < budget_s && t.size() < 1000)) {
    const double a = now_s();
    fn();
    t.push_back(now_s() - a);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Per-ISA FMA loops (cli/peak_*.cpp): flops executed in `iters` iterations.
double peak_loop_baseline(int64_t iters, double* sink);
#if defined(__x86_64__)
double peak_loop_avx2(int64_t iters, double* sink);
double peak_loop_avx512(int64_t iters, double* sink);
#endif
#if defined(__aarch64__)
double peak_loop_neon(int64_t iters, double* sink);
#endif

MachinePeaks measure_peaks(int threads, bool quick) {
  MachinePeaks mp;
  // memcpy: a buffer far larger than the caches, copied by `threads` threads at once;
  // bytes counted = read + written (2 x copied).
  const size_t total = size_t(quick ? 32 : 128) << 20;
  std::vector<char> a(total, 1), b(total, 0);
  auto copy_all = [&] {
    std::vector<std::thread> th;
    const size_t part = total / size_t(threads);
    for (int t = 0; t < threads; ++t)
      th.emplace_back([&, t] { std::memcpy(b.data() + t * part, a.data() + t * part, part); });
    for (auto& x : th) x.join();
  };
  const double tc = time_min(copy_all, quick ? 3 : 7);
  mp.memcpy_bytes_per_s = 2.0 * double(total) / tc;
  // FMA peak: 12 independent accumulator chains per thread, vector width of the active ISA.
  double (*loop)(int64_t, double*) = peak_loop_baseline;
  std::string how = "baseline mul+add loop (no FMA), compiler's vector width";
  const posenc_isa isa = posenc_isa_active();
#if defined(__x86_64__)
  if (isa == POSENC_ISA_AVX512) loop = peak_loop_avx512, how = "AVX-512 vfmadd231pd zmm, 12 chains";
  else if (isa == POSENC_ISA_AVX2) loop = peak_loop_avx2, how = "AVX2 vfmadd231pd ymm, 12 chains";
#endif
#if defined(__aarch64__)
  if (isa == POSENC_ISA_NEON) loop = peak_loop_neon, how = "NEON fmla v.2d, 12 chains";
#endif
  const int64_t iters = quick ? 2000000 : 8000000;
  std::vector<double> sinks(size_t(threads) * 8, 0.0);
  double flops = 0;
  auto run = [&] {
    std::vector<std::thread> th;
    std::vector<double> f(threads);
    for (int t = 0; t < threads; ++t) th.emplace_back([&, t] { f[t] = loop(iters, &sinks[t * 8]); });
    for (auto& x : th) x.join();
    flops = 0;
    for (double v : f) flops += v;
  };
  const double tf = time_min(run, quick ? 3 : 7);
  mp.fma_flops_per_s_f64 = flops / tf;
  mp.fma_how = how + strf(", %d thread(s), best of %d runs", threads, quick ? 3 : 7);
  return mp;
}

std::vector<ProfileResult> run_profile(bool quick, bool verbose, const std::string& family) {
  auto ks = profile_kernels();
  std::stable_sort(ks.begin(), ks.end(), [](const ProfileKernel& a, const ProfileKernel& b) { return a.order < b.order; });
  std::vector<ProfileResult> out;
  for (const auto& k : ks) {
    ProfileResult r;
    auto fn = k.setup(r, quick);
    if (!family.empty() && r.family != family) continue;
    if (verbose) std::fprintf(stderr, "  profile %s %s %s ...\n", r.family.c_str(), r.kernel.c_str(), r.shape.c_str());
    r.seconds = time_median(fn, quick ? 0.05 : 0.3);
    out.push_back(r);
  }
  return out;
}

}  // namespace posenc_cli
