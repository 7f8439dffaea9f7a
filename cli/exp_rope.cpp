// SPDX-License-Identifier: Apache-2.0 OR MIT
// requires: posenc_rope_params_init posenc_rope_inv_freq posenc_rope_decay_f64 posenc_rope_cos_sin_f32
// posenc report, experiments 1 (long-range decay on S¹) and 2 (RoPE cos/sin precision).
#include <algorithm>
#include <cmath>
#include <vector>

#include "cli/report.hpp"
#include "posenc/posenc.hpp"

namespace posenc_cli {
namespace {

std::vector<double> inv_freq_of(posenc_rope_params& p) {
  std::vector<double> f(static_cast<size_t>(p.rotary_dim / 2));
  posenc::check(posenc_rope_inv_freq(&p, f.data(), nullptr));
  return f;
}

struct DecayCase {
  std::string name;
  std::vector<double> inv;
  std::vector<double> n, f, bound;
  double t_f = 0, t_bound = 0, min_f = 0, check_err = 0;
  int64_t argmin = 0, first_neg = -1;
};

void run_decay_case(Report& rep, DecayCase& c, int64_t n_end, int64_t step) {
  const int64_t count = (n_end + step - 1) / step;
  const int32_t nf = int32_t(c.inv.size());
  c.f.assign(size_t(count), 0.0);
  c.bound.assign(size_t(count), 0.0);
  double t = now_s();
  posenc::check(posenc_rope_decay_f64(c.inv.data(), nf, 0, step, count, c.f.data(), nullptr));
  c.t_f = now_s() - t;
  t = now_s();
  std::vector<double> f2(static_cast<size_t>(count));
  posenc::check(posenc_rope_decay_f64(c.inv.data(), nf, 0, step, count, f2.data(), c.bound.data()));
  c.t_bound = now_s() - t;
  c.n.resize(size_t(count));
  for (int64_t i = 0; i < count; ++i) c.n[size_t(i)] = double(i * step);
  const auto it = std::min_element(c.f.begin(), c.f.end());
  c.min_f = *it;
  c.argmin = int64_t(it - c.f.begin()) * step;
  for (int64_t i = 0; i < count; ++i)
    if (c.f[size_t(i)] < 0) {
      c.first_neg = i * step;
      break;
    }
  // Independent check: long double direct sums at 16 sample n, plus f == f2 (same call, bound on).
  for (int s = 0; s < 16; ++s) {
    const int64_t i = (count - 1) * s / 15;
    long double ref = 0;
    for (double w : c.inv) ref += std::cos((long double)(i * step) * (long double)w);
    c.check_err = std::max(c.check_err, double(std::fabs(ref - (long double)c.f[size_t(i)])));
    c.check_err = std::max(c.check_err, std::fabs(f2[size_t(i)] - c.f[size_t(i)]));  // f of the call with bound
  }
  rep.progress("%s: %lld values of n, f in %.3f s, with bound %.3f s", c.name.c_str(), (long long)count, c.t_f, c.t_bound);
}

void exp_decay(Report& rep) {
  const bool q = rep.quick();
  const int64_t step_big = q ? 8 : 1, step_llama = q ? 8 : 1;
  posenc_rope_params p;
  std::vector<DecayCase> cases(3);
  posenc::check(posenc_rope_params_init(&p, POSENC_ROPE_DEFAULT, 8192, 1e4));
  cases[0].name = "d=8192 b=1e4";
  cases[0].inv = inv_freq_of(p);
  posenc::check(posenc_rope_params_init(&p, POSENC_ROPE_DEFAULT, 128, 5e5));
  cases[1].name = "Llama-3.1-8B, no scaling";
  cases[1].inv = inv_freq_of(p);
  posenc::check(posenc_rope_params_init(&p, POSENC_ROPE_LLAMA3, 128, 5e5));
  p.factor = 8, p.low_freq_factor = 1, p.high_freq_factor = 4, p.original_max_position = 8192;
  cases[2].name = "Llama-3.1-8B, llama3 scaling";
  cases[2].inv = inv_freq_of(p);
  const int64_t n_end = 200000;
  for (size_t i = 0; i < cases.size(); ++i) run_decay_case(rep, cases[i], n_end, i == 0 ? step_big : step_llama);

  rep.md() << "RoFormer §3.4.3: f_n = Σ_j cos(n θ_j) and the bound (1/N) Σ_{j=1..N} |S_j(n)|, "
              "S_j(n) = Σ_{k<j} e^{i n θ_k}, for n < 200000"
           << (q ? " (every 8th n, --quick)" : "") << ", N = d/2 frequencies from `posenc_rope_inv_freq`. "
           << "Llama-3.1-8B: head_dim 128, θ = 500000; llama3 scaling factor 8, low/high 1/4, L = 8192. "
              "\"check\" is the max |f − long-double direct sum| at 16 sampled n (both calls, with and without the bound).\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : cases) {
    const double terms = double(c.f.size()) * double(c.inv.size());
    rows.push_back({c.name, strf("%zu", c.inv.size()), strf("%.4f", c.f[0]), strf("%.4f (%.4f N)", c.min_f, c.min_f / c.inv.size()),
                    strf("%lld", (long long)c.argmin), c.first_neg >= 0 ? strf("%lld", (long long)c.first_neg) : "none",
                    strf("%.3g", c.check_err), strf("%.3f", c.t_f), strf("%.3g", terms / c.t_f), strf("%.3f", c.t_bound)});
  }
  rep.table({"case", "N", "f_0", "min f", "argmin n", "first n with f<0", "check", "time f (s)", "terms/s", "time f+bound (s)"}, rows);
  const auto& a = cases[0];
  rep.md() << "Reference (docs/REFERENCES.md §1, long double): min −272.2781 at n = 17064, first negative n = 5670.\n\n";
  auto norm = [](const std::vector<double>& v, double N) {
    std::vector<double> o(v);
    for (double& x : o) x /= N;
    return o;
  };
  // Plots and CSVs on a log-n axis: every n up to 500, then n growing by 0.2% per point
  // (a few thousand rows instead of 200000; the table above uses every n).
  std::vector<size_t> keep;
  {
    double next = 0;
    for (size_t i = 0; i < a.n.size(); ++i)
      if (a.n[i] >= next || i + 1 == a.n.size()) {
        keep.push_back(i);
        next = std::max(a.n[i] + 1, a.n[i] * 1.002);
      }
  }
  auto pick = [&](const std::vector<double>& v) {
    std::vector<double> o;
    for (size_t i : keep) o.push_back(v[i]);
    return o;
  };
  auto thin = [&](const std::vector<double>& n, const std::vector<double>& y) {
    Series s;
    for (size_t i : keep)
      if (n[i] > 0) s.x.push_back(n[i]), s.y.push_back(y[i]);
    return s;
  };
  rep.csv("decay_d8192", {"n", "f", "bound"}, {pick(a.n), pick(a.f), pick(a.bound)});
  rep.csv("decay_llama31", {"n", "f_default", "bound_default", "f_llama3", "bound_llama3"},
          {pick(cases[1].n), pick(cases[1].f), pick(cases[1].bound), pick(cases[2].f), pick(cases[2].bound)});
  Plot pl;
  pl.title = "RoPE long-range decay, d = 8192, b = 1e4";
  pl.xlabel = "relative distance n";
  pl.ylabel = "value / N";
  pl.logx = true;
  Series s1 = thin(a.n, norm(a.f, double(a.inv.size())));
  s1.name = "f_n / N";
  Series s2 = thin(a.n, norm(a.bound, double(a.inv.size())));
  s2.name = "bound / N";
  pl.series = {s1, s2};
  rep.plot("decay_d8192", pl);
  Plot pl2;
  pl2.title = "RoPE decay f_n / N, Llama-3.1-8B (d = 128, theta = 5e5)";
  pl2.xlabel = "relative distance n";
  pl2.ylabel = "f_n / N";
  pl2.logx = true;
  Series t1 = thin(cases[1].n, norm(cases[1].f, 64));
  t1.name = "no scaling";
  Series t2 = thin(cases[2].n, norm(cases[2].f, 64));
  t2.name = "llama3 scaling";
  pl2.series = {t1, t2};
  rep.plot("decay_llama31", pl2);
  for (const auto& c : cases) {
    rep.summary("1 decay", c.name + ": min f / N, first f<0",
                strf("%.4f at n=%lld, %s", c.min_f / c.inv.size(), (long long)c.argmin,
                     c.first_neg >= 0 ? strf("n=%lld", (long long)c.first_neg).c_str() : "never"));
  }
  rep.summary("1 decay", "d=8192 speed", strf("%.3g terms/s (f), check %.2g", double(a.f.size()) * a.inv.size() / a.t_f, a.check_err));
}
RegisterExperiment reg_decay(10, "decay", "1. Long-range decay of RoPE (S¹)", exp_decay);

void exp_precision(Report& rep) {
  const bool q = rep.quick();
  const int32_t d = 128;
  const double theta = 5e5;
  const int64_t pmax = 131072, stride = q ? 17 : 1, block = 1024;
  posenc_rope_params p;
  posenc::check(posenc_rope_params_init(&p, POSENC_ROPE_DEFAULT, d, theta));
  const std::vector<double> inv = inv_freq_of(p);
  const int h = d / 2;
  std::vector<int64_t> pos;
  for (int64_t x = 0; x <= pmax; x += stride) pos.push_back(x);
  if (pos.back() != pmax) pos.push_back(pmax);
  const int64_t n = int64_t(pos.size());
  std::vector<float> c(size_t(n) * h), s(size_t(n) * h);
  const double t0 = now_s();
  posenc::check(posenc_rope_cos_sin_f32(&p, pos.data(), n, c.data(), s.data()));
  const double t_posenc = now_s() - t0;
  // fp32-phase practice (HF transformers, vLLM, FlashAttention): inv_freq = 1/(base^(arange(0,d,2)/d))
  // in float32, phase = float(pos) * inv_freq in float32, cos/sin in float32.
  std::vector<float> inv32(static_cast<size_t>(h));
  for (int j = 0; j < h; ++j) inv32[size_t(j)] = 1.0f / std::pow(float(theta), float(2 * j) / float(d));
  const int64_t nblocks = pmax / block + 1;
  std::vector<double> bx(static_cast<size_t>(nblocks)), e_posenc(size_t(nblocks), 0.0), e_fp32(size_t(nblocks), 0.0);
  for (int64_t b = 0; b < nblocks; ++b) bx[size_t(b)] = double(b * block);
  double max_posenc = 0, max_fp32 = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t b = pos[size_t(i)] / block;
    for (int j = 0; j < h; ++j) {
      const long double ph = (long double)pos[size_t(i)] * (long double)inv[size_t(j)];
      const long double rc = std::cos(ph), rs = std::sin(ph);
      const double ep = double(std::max(std::fabs(rc - c[size_t(i * h + j)]), std::fabs(rs - s[size_t(i * h + j)])));
      const float ph32 = float(pos[size_t(i)]) * inv32[size_t(j)];
      const double ef = double(std::max(std::fabs(rc - std::cos(ph32)), std::fabs(rs - std::sin(ph32))));
      e_posenc[size_t(b)] = std::max(e_posenc[size_t(b)], ep);
      e_fp32[size_t(b)] = std::max(e_fp32[size_t(b)], ef);
      max_posenc = std::max(max_posenc, ep);
      max_fp32 = std::max(max_fp32, ef);
    }
  }
  rep.progress("precision: %lld positions x %d frequencies, posenc %.3f s", (long long)n, h, t_posenc);
  rep.md() << strf("rotary_dim %d, θ = %g, positions 0..%lld%s. Error = max over the %d frequencies of |cos − ref|, "
                   "|sin − ref| against long double cos/sin of position × inv_freq (float64 inv_freq). "
                   "\"fp32 phase\" is the common practice: float32 inv_freq = 1/θ^(2j/d), float32 product "
                   "position × inv_freq, float32 cos/sin (HF transformers, vLLM, FlashAttention).\n",
                   d, theta, (long long)pmax, q ? strf(" (every %lld-th, --quick)", (long long)stride).c_str() : "", h);
  std::vector<std::vector<std::string>> rows;
  for (int64_t at : {int64_t(0), int64_t(1024), int64_t(8192), int64_t(32768), int64_t(131072)}) {
    const size_t b = size_t(at / block);
    rows.push_back({strf("[%lld, %lld)", (long long)(b * block), (long long)(b * block + block)),
                    strf("%.2g", e_posenc[b]), strf("%.2g", e_fp32[b]), strf("%.3g", e_fp32[b] / std::max(e_posenc[b], 1e-300))});
  }
  rows.push_back({"all", strf("%.2g", max_posenc), strf("%.2g", max_fp32), strf("%.3g", max_fp32 / max_posenc)});
  rep.table({"positions", "posenc max error", "fp32-phase max error", "ratio"}, rows);
  rep.md() << strf("posenc_rope_cos_sin_f32 time for this table: %.3f s (%.3g values/s).\n\n", t_posenc, 2.0 * n * h / t_posenc);
  rep.csv("rope_precision", {"block_start", "posenc_max_err", "fp32_phase_max_err"}, {bx, e_posenc, e_fp32});
  Plot pl;
  pl.title = "RoPE cos/sin max error per 1024 positions (d = 128, theta = 5e5)";
  pl.xlabel = "position";
  pl.ylabel = "max abs error";
  pl.logy = true;
  pl.legend = 1;
  Series a, b;
  a.name = "posenc (exact phase)";
  b.name = "fp32 phase (common practice)";
  a.x = b.x = bx;
  a.y = e_posenc;
  b.y = e_fp32;
  pl.series = {b, a};
  rep.plot("rope_precision", pl);
  rep.summary("2 rope precision", "max cos/sin error to 131072: posenc vs fp32 phase",
              strf("%.2g vs %.2g (%.0fx)", max_posenc, max_fp32, max_fp32 / max_posenc));
}
RegisterExperiment reg_precision(20, "precision", "2. RoPE cos/sin precision vs fp32-phase practice", exp_precision);

}  // namespace
}  // namespace posenc_cli
