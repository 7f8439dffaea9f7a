// SPDX-License-Identifier: Apache-2.0 OR MIT
// requires: posenc_learned_add_f32 posenc_learned_grad_f32 posenc_learned_spectrum_f32 posenc_learned_resample_f32 posenc_sinusoidal_f32
// posenc report, experiment 5: a learned 1-D table fit by SGD with posenc's add/grad kernels,
// extrapolation past n_train (clamp, resample) against a sinusoidal model, and the singular
// spectra / effective ranks of learned, sinusoidal and random-init tables.
#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "cli/report.hpp"
#include "posenc/posenc.hpp"

namespace posenc_cli {
namespace {

constexpr int64_t kTrain = 512;  // n_train: positions seen in training
constexpr int32_t kDim = 64;     // table width = output channels
// The periodic task uses the 32 highest-frequency sinusoidal channels (16 frequencies, periods
// 2 pi 1e4^(i/32) <= 470 < n_train: all resolvable from the training range).
constexpr int kPeriodicChannels = 32;

// Task targets y [2*kTrain, kDim] for positions 0 .. 2*kTrain-1.
// periodic: y = R s(p), s = the first 32 channels of the 64-channel sinusoidal encoding (base
//           1e4), R random Gaussian / 8: a task the sinusoidal basis represents exactly.
// random-freq: y_c(p) = sum_{k<4} a_ck sin(2 pi p / P_ck + phi_ck), P log-uniform in [16, 1024].
std::vector<double> make_target(bool periodic, std::mt19937_64& rng) {
  const int64_t n = 2 * kTrain;
  std::vector<double> y(size_t(n) * kDim);
  std::normal_distribution<double> g(0.0, 1.0);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  if (periodic) {
    std::vector<float> s(size_t(n) * kDim);
    posenc::check(posenc_sinusoidal_f32(nullptr, n, kDim, 1e4, POSENC_SINUSOIDAL_INTERLEAVED, s.data()));
    std::vector<double> R(size_t(kDim) * kDim);
    for (double& r : R) r = g(rng) / 8.0;
    for (int64_t p = 0; p < n; ++p)
      for (int c = 0; c < kDim; ++c) {
        double acc = 0;
        for (int j = 0; j < kPeriodicChannels; ++j) acc += R[size_t(c) * kDim + j] * s[size_t(p) * kDim + j];
        y[size_t(p) * kDim + c] = acc;
      }
  } else {
    for (int c = 0; c < kDim; ++c) {
      double a[4], P[4], ph[4];
      for (int k = 0; k < 4; ++k) a[k] = g(rng) / 2, P[k] = 16.0 * std::pow(64.0, u(rng)), ph[k] = 2 * M_PI * u(rng);
      for (int64_t p = 0; p < n; ++p) {
        double acc = 0;
        for (int k = 0; k < 4; ++k) acc += a[k] * std::sin(2 * M_PI * double(p) / P[k] + ph[k]);
        y[size_t(p) * kDim + c] = acc;
      }
    }
  }
  return y;
}

struct TaskResult {
  std::string name;
  std::vector<float> table;  // trained [kTrain, kDim]
  double train_mse = 0, clamp_mse = 0, resample_lin_mse = 0, resample_bic_mse = 0, sin_in_mse = 0, sin_out_mse = 0, sin_ridge_out_mse = 0;
  double t_train = 0;
  std::vector<double> ch0_target, ch0_clamp, ch0_resample, ch0_sin, ch0_sin_ridge;
};

double rel_mse(const float* a, const float* y, int64_t rows, int64_t y_rows_from) {
  double e = 0, s = 0;
  for (int64_t i = 0; i < rows * kDim; ++i) {
    const double t = y[size_t(y_rows_from * kDim + i)];
    e += (a[size_t(i)] - t) * (a[size_t(i)] - t), s += t * t;
  }
  return e / s;
}

TaskResult run_task(Report& rep, bool periodic, uint64_t seed) {
  TaskResult r;
  r.name = periodic ? "periodic (in the sinusoidal basis)" : "random frequencies";
  std::mt19937_64 rng(seed);
  const std::vector<double> yd = make_target(periodic, rng);  // float64 targets (readout fit)
  const std::vector<float> y(yd.begin(), yd.end());            // float32 targets (table)
  // --- SGD on the learned table with posenc_learned_add_f32 / posenc_learned_grad_f32.
  std::normal_distribution<float> init(0.0f, 0.02f);  // GPT-2 initialization
  r.table.resize(size_t(kTrain) * kDim);
  for (float& v : r.table) v = init(rng);
  const int64_t B = 64;
  const int steps = rep.quick() ? 400 : 3000;
  const float lr = float(B) / 4.0f;  // per visit, a row moves halfway to its target
  std::uniform_int_distribution<int64_t> pick(0, kTrain - 1);
  std::vector<int64_t> pos(static_cast<size_t>(B));
  std::vector<float> x(size_t(B) * kDim), grad(size_t(B) * kDim), gtab(size_t(kTrain) * kDim);
  const double t0 = now_s();
  for (int step = 0; step < steps; ++step) {
    for (auto& p : pos) p = pick(rng);
    std::fill(x.begin(), x.end(), 0.0f);
    posenc::check(posenc_learned_add_f32(r.table.data(), kTrain, kDim, pos.data(), B, x.data()));  // forward
    for (int64_t i = 0; i < B; ++i)  // loss = (1/B) sum_i |x_i - y_i|^2
      for (int c = 0; c < kDim; ++c)
        grad[size_t(i * kDim + c)] = 2.0f * (x[size_t(i * kDim + c)] - y[size_t(pos[size_t(i)] * kDim + c)]) / float(B);
    std::fill(gtab.begin(), gtab.end(), 0.0f);
    posenc::check(posenc_learned_grad_f32(grad.data(), pos.data(), B, kDim, gtab.data(), kTrain));  // backward
    for (size_t i = 0; i < gtab.size(); ++i) r.table[i] -= lr * gtab[i];
  }
  r.t_train = now_s() - t0;
  std::vector<int64_t> all(static_cast<size_t>(2 * kTrain));
  for (int64_t p = 0; p < 2 * kTrain; ++p) all[size_t(p)] = p;
  // In-range error.
  std::vector<float> pred(size_t(2 * kTrain) * kDim, 0.0f);
  posenc::check(posenc_learned_add_f32(r.table.data(), kTrain, kDim, all.data(), kTrain, pred.data()));
  r.train_mse = rel_mse(pred.data(), y.data(), kTrain, 0);
  // Clamp: positions >= n_train read the last row.
  std::vector<int64_t> clamped(size_t(kTrain), kTrain - 1);
  std::vector<float> pc(size_t(kTrain) * kDim, 0.0f);
  posenc::check(posenc_learned_add_f32(r.table.data(), kTrain, kDim, clamped.data(), kTrain, pc.data()));
  r.clamp_mse = rel_mse(pc.data(), y.data(), kTrain, kTrain);
  // Resample the table to 2*n_train rows (as ViT / position interpolation do), read rows >= n_train.
  std::vector<float> big(size_t(2 * kTrain) * kDim), big2(size_t(2 * kTrain) * kDim);
  posenc::check(posenc_learned_resample_f32(r.table.data(), 0, 1, kTrain, kDim, 1, 2 * kTrain, POSENC_RESAMPLE_LINEAR, big.data()));
  posenc::check(posenc_learned_resample_f32(r.table.data(), 0, 1, kTrain, kDim, 1, 2 * kTrain, POSENC_RESAMPLE_BICUBIC_AA, big2.data()));
  r.resample_lin_mse = rel_mse(big.data() + kTrain * kDim, y.data(), kTrain, kTrain);
  r.resample_bic_mse = rel_mse(big2.data() + kTrain * kDim, y.data(), kTrain, kTrain);
  // Sinusoidal model: fixed 64-channel table (base 1e4) + linear readout fit by least squares on p < n_train.
  std::vector<float> s(size_t(2 * kTrain) * kDim);
  posenc::check(posenc_sinusoidal_f32(nullptr, 2 * kTrain, kDim, 1e4, POSENC_SINUSOIDAL_INTERLEAVED, s.data()));
  Eigen::MatrixXd S(2 * kTrain, kDim), Y(2 * kTrain, kDim);
  for (int64_t p = 0; p < 2 * kTrain; ++p)
    for (int c = 0; c < kDim; ++c) S(p, c) = s[size_t(p * kDim + c)], Y(p, c) = yd[size_t(p * kDim + c)];
  const Eigen::MatrixXd St = S.topRows(kTrain);
  // Minimum-norm least squares (complete orthogonal decomposition) on float64 targets. The
  // low-frequency channels are nearly constant over 512 positions (s_63/s_0 ~ 1e-10): exact data
  // (periodic task) is recovered, anything else is amplified past n_train.
  const Eigen::MatrixXd W = St.completeOrthogonalDecomposition().solve(Y.topRows(kTrain));
  const Eigen::MatrixXd P = S * W;
  {  // ridge readout, lambda = 1e-3 tr(S^T S) / 64, for comparison
    const Eigen::MatrixXd G = St.transpose() * St;
    const Eigen::MatrixXd Wr = (G + 1e-3 * G.trace() / kDim * Eigen::MatrixXd::Identity(kDim, kDim)).ldlt().solve(St.transpose() * Y.topRows(kTrain));
    const Eigen::MatrixXd Pr = S * Wr;
    std::vector<float> pr(size_t(kTrain) * kDim);
    for (int64_t p = 0; p < kTrain; ++p)
      for (int c = 0; c < kDim; ++c) pr[size_t(p * kDim + c)] = float(Pr(kTrain + p, c));
    r.sin_ridge_out_mse = rel_mse(pr.data(), y.data(), kTrain, kTrain);
    for (int64_t p = 0; p < 2 * kTrain; ++p) r.ch0_sin_ridge.push_back(Pr(p, 0));
  }
  std::vector<float> ps(size_t(2 * kTrain) * kDim);
  for (int64_t p = 0; p < 2 * kTrain; ++p)
    for (int c = 0; c < kDim; ++c) ps[size_t(p * kDim + c)] = float(P(p, c));
  r.sin_in_mse = rel_mse(ps.data(), y.data(), kTrain, 0);
  r.sin_out_mse = rel_mse(ps.data() + kTrain * kDim, y.data(), kTrain, kTrain);
  for (int64_t p = 0; p < 2 * kTrain; ++p) {
    r.ch0_target.push_back(y[size_t(p * kDim)]);
    r.ch0_clamp.push_back(p < kTrain ? r.table[size_t(p * kDim)] : r.table[size_t((kTrain - 1) * kDim)]);
    r.ch0_resample.push_back(p < kTrain ? r.table[size_t(p * kDim)] : big[size_t(p * kDim)]);
    r.ch0_sin.push_back(ps[size_t(p * kDim)]);
  }
  rep.progress("learned, task %s: %d SGD steps in %.2f s, train rel. MSE %.2g", r.name.c_str(), steps, r.t_train, r.train_mse);
  return r;
}

void exp_learned(Report& rep) {
  std::vector<TaskResult> tasks = {run_task(rep, true, 1234), run_task(rep, false, 5678)};
  rep.md() << strf("A learned table [n_train = %lld, %d] is fit by SGD (batch 64, GPT-2 init N(0, 0.02²), loss "
                   "mean |x − y|²) where the forward pass is `posenc_learned_add_f32` and the backward pass "
                   "`posenc_learned_grad_f32`. Two tasks on positions 0..2n_train−1: *periodic* y = R·s(p) with "
                   "s the 64-channel sinusoidal encoding (the sinusoidal model can represent it exactly), and "
                   "*random frequencies* (4 sinusoids per channel, periods log-uniform in [16, 1024]). "
                   "The sinusoidal model is the fixed sinusoidal table plus a linear readout fit on p < n_train by "
                   "minimum-norm least squares (complete orthogonal decomposition, float64 targets); *ridge* uses "
                   "λ = 10⁻³·tr(SᵀS)/64 instead. Errors are MSE / mean(y²) on [n_train, 2 n_train) unless marked \"train\"; "
                   "*resample* stretches the table to 2 n_train rows with `posenc_learned_resample_f32` "
                   "(as for ViT grids / position interpolation) and reads the rows past n_train.\n",
                   (long long)kTrain, kDim);
  std::vector<std::vector<std::string>> rows;
  for (const auto& t : tasks)
    rows.push_back({t.name, strf("%.2g", t.train_mse), strf("%.3g", t.clamp_mse), strf("%.3g", t.resample_lin_mse),
                    strf("%.3g", t.resample_bic_mse), strf("%.2g", t.sin_in_mse), strf("%.3g", t.sin_out_mse),
                    strf("%.3g", t.sin_ridge_out_mse)});
  rep.table({"task", "learned train", "learned clamp", "learned resample linear", "learned resample bicubic-aa",
             "sinusoidal train", "sinusoidal past n_train"}, rows);
  const TaskResult& b = tasks[1];
  std::vector<double> px;
  for (int64_t p = 0; p < 2 * kTrain; ++p) px.push_back(double(p));
  rep.csv("learned_extrapolation", {"position", "target", "learned_clamp", "learned_resample_linear", "sinusoidal_lstsq", "sinusoidal_ridge"},
          {px, b.ch0_target, b.ch0_clamp, b.ch0_resample, b.ch0_sin, b.ch0_sin_ridge});
  Plot pl;
  pl.title = "Channel 0, random-frequency task: trained on p < 512";
  pl.xlabel = "position p";
  pl.ylabel = "value";
  pl.legend = 2;
  auto mk = [&](const std::string& n, const std::vector<double>& y) {
    Series s;
    s.name = n, s.x = px, s.y = y;
    return s;
  };
  pl.series = {mk("target", b.ch0_target), mk("learned, clamp", b.ch0_clamp), mk("learned, resample", b.ch0_resample),
               mk("sinusoidal + ridge readout", b.ch0_sin_ridge)};
  rep.plot("learned_extrapolation", pl);

  // Spectra: learned (both tasks), sinusoidal, random init.
  std::vector<float> sin_tab(size_t(kTrain) * kDim), rnd(size_t(kTrain) * kDim);
  posenc::check(posenc_sinusoidal_f32(nullptr, kTrain, kDim, 1e4, POSENC_SINUSOIDAL_INTERLEAVED, sin_tab.data()));
  std::mt19937_64 rng(99);
  std::normal_distribution<float> init(0.0f, 0.02f);
  for (float& v : rnd) v = init(rng);
  struct Spec {
    std::string name;
    const std::vector<float>* t;
    std::vector<double> s;
    double erank;
  };
  std::vector<Spec> specs = {{"learned (periodic task)", &tasks[0].table, {}, 0},
                             {"learned (random-freq task)", &tasks[1].table, {}, 0},
                             {"sinusoidal (base 1e4)", &sin_tab, {}, 0},
                             {"random init N(0, 0.02^2)", &rnd, {}, 0}};
  std::vector<std::vector<std::string>> srows;
  Plot sp;
  sp.title = "Singular spectra of [512, 64] position tables";
  sp.xlabel = "index k";
  sp.ylabel = "s_k / s_0";
  sp.logy = true;
  sp.legend = 3;
  std::vector<std::vector<double>> cols;
  std::vector<std::string> hdr = {"k"};
  std::vector<double> kx;
  for (int k = 0; k < kDim; ++k) kx.push_back(k);
  cols.push_back(kx);
  for (auto& s : specs) {
    s.s.resize(kDim);
    posenc::check(posenc_learned_spectrum_f32(s.t->data(), kTrain, kDim, s.s.data(), &s.erank));
    int r99 = 0;
    double tot = 0, acc = 0;
    for (double v : s.s) tot += v * v;
    for (double v : s.s) {
      acc += v * v;
      ++r99;
      if (acc >= 0.99 * tot) break;
    }
    srows.push_back({s.name, strf("%.2f", s.erank), strf("%d", r99), strf("%.3g", s.s[0]), strf("%.3g", s.s[kDim - 1] / s.s[0])});
    Series se;
    se.name = s.name + strf(" (erank %.1f)", s.erank);
    se.x = kx;
    for (double v : s.s) se.y.push_back(v / s.s[0]);
    sp.series.push_back(se);
    cols.push_back(s.s);
    hdr.push_back(s.name);
  }
  rep.md() << "\nSingular spectra (`posenc_learned_spectrum_f32`); effective rank = exp(entropy(s / Σs)) "
              "(Roy & Vetterli 2007); \"99% energy\" = number of singular values holding 99% of Σs².\n";
  rep.table({"table [512, 64]", "effective rank", "rank at 99% energy", "s_0", "s_63 / s_0"}, srows);
  for (auto& h : hdr) std::replace(h.begin(), h.end(), ' ', '_');
  rep.csv("learned_spectra", hdr, cols);
  rep.plot("learned_spectra", sp);
  rep.summary("5 learned", "past n_train, random-freq task: clamp / resample / sinusoidal",
              strf("%.3g / %.3g / %.3g (ridge %.3g) rel. MSE", b.clamp_mse, b.resample_lin_mse, b.sin_out_mse, b.sin_ridge_out_mse));
  rep.summary("5 learned", "past n_train, periodic task: clamp / resample / sinusoidal",
              strf("%.3g / %.3g / %.2g", tasks[0].clamp_mse, tasks[0].resample_lin_mse, tasks[0].sin_out_mse));
  rep.summary("5 learned", "effective rank: learned(rand-freq) / sinusoidal / random",
              strf("%.1f / %.1f / %.1f of 64", specs[1].erank, specs[2].erank, specs[3].erank));
}
RegisterExperiment reg_learned(50, "learned", "5. Learned position table: SGD, extrapolation, rank", exp_learned);

}  // namespace
}  // namespace posenc_cli
