// SPDX-License-Identifier: Apache-2.0 OR MIT
// requires: posenc_rf_sample_f32 posenc_rf_features_f32 posenc_rf_features_backward_f32
// posenc report, experiment 6b: WPFF's weights λ learned by gradient descent through
// posenc_rf_features_backward_f32 (the seed's Theorem 3 / DiJiang eq. 10), against PFF (λ = 1) and
// i.i.d. RFF, on held-out pairs of the city vectors of experiment 6.
#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cli/features_data.hpp"
#include "cli/report.hpp"
#include "posenc/posenc.hpp"

namespace posenc_cli {

namespace {

using MatF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

std::vector<float> half(const Points& p, int parity) {
  std::vector<float> o;
  for (int64_t i = parity; i < p.n(); i += 2) o.insert(o.end(), p.x.begin() + i * p.d, p.x.begin() + (i + 1) * p.d);
  return o;
}

// Exact Gaussian kernel exp(-|x-y|^2/2) between the rows of x [n, d], in float64.
Eigen::MatrixXd gauss(const std::vector<float>& x, int32_t d) {
  const int64_t n = int64_t(x.size()) / d;
  Eigen::MatrixXd K(n, n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int32_t c = 0; c < d; ++c) {
        const double t = double(x[size_t(i * d + c)]) - x[size_t(j * d + c)];
        s += t * t;
      }
      K(i, j) = std::exp(-0.5 * s);
    }
  return K;
}

// Mean over the pairs i < j of (phi_i . phi_j - K_ij)^2; when E is given, also the residual
// E = Phi Phi^T - K with a zero diagonal (the gradient's input).
double pair_loss(const MatF& Phi, const Eigen::MatrixXd& K, MatF* E = nullptr) {
  const int64_t n = Phi.rows();
  const MatF Kh = Phi * Phi.transpose();
  double s = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) {
      const double e = double(Kh(i, j)) - K(i, j);
      s += e * e;
    }
  if (E) {
    *E = Kh - K.cast<float>();
    E->diagonal().setZero();
  }
  return s / (0.5 * double(n) * double(n - 1));
}

struct Split {
  std::vector<float> tr, te;
  int64_t ntr, nte;
  Eigen::MatrixXd Ktr, Kte;
};

MatF features(posenc_rf_kind kind, const std::vector<float>& omega, int32_t m, int32_t d, const float* w,
              const std::vector<float>& x) {
  const int64_t n = int64_t(x.size()) / d, F = kind == POSENC_RF_TRIG ? 2 * int64_t(m) : m;
  MatF out(n, F);
  posenc::check(posenc_rf_features_f32(kind, POSENC_RF_SHIFT_OVERFLOW, omega.data(), m, d, w, x.data(), n, out.data()));
  return out;
}

struct Trained {
  double pff, wpff, rff;                 // test-half MSE
  std::vector<double> train, test;       // curve, one point per `every` steps (step 0 = PFF)
  double wmin, wmax;                     // range of the learned weights
};

// One omega seed at m features: PFF, WPFF learned by Adam on the training pairs (all pairs of the
// training half, full batch; the loss gradient wrt the features is (4 / (n (n-1))) E Phi, pulled
// back to the weights by posenc_rf_features_backward_f32; weights projected onto >= 0), and the
// i.i.d. trig RFF with m frequencies.
Trained train_one(const Split& s, int32_t d, int32_t m, uint64_t seed, int steps, int every) {
  Trained r;
  std::vector<float> omega(size_t(m) * d);
  posenc::check(posenc_rf_sample_f32(POSENC_RF_PFF, d, m, 1.0, seed, omega.data()));
  std::vector<float> w(size_t(m), 1.0f), g(static_cast<size_t>(m));
  std::vector<double> mom(size_t(m), 0.0), var(size_t(m), 0.0);
  const double lr = 0.05, b1 = 0.9, b2 = 0.999;
  const double scale = 4.0 / (double(s.ntr) * double(s.ntr - 1));
  MatF E, grad_out;
  for (int t = 0; t <= steps; ++t) {
    const MatF Phi = features(POSENC_RF_GAUSSIAN_POSITIVE, omega, m, d, w.data(), s.tr);
    const double ltr = pair_loss(Phi, s.Ktr, &E);
    if (t % every == 0 || t == steps) {
      r.train.push_back(ltr);
      r.test.push_back(pair_loss(features(POSENC_RF_GAUSSIAN_POSITIVE, omega, m, d, w.data(), s.te), s.Kte));
    }
    if (t == steps) break;
    grad_out = (E * Phi) * float(scale);
    posenc::check(posenc_rf_features_backward_f32(POSENC_RF_GAUSSIAN_POSITIVE, POSENC_RF_SHIFT_OVERFLOW, omega.data(), m,
                                                  d, w.data(), s.tr.data(), s.ntr, grad_out.data(), nullptr, g.data(),
                                                  nullptr));
    const double c1 = 1 - std::pow(b1, t + 1), c2 = 1 - std::pow(b2, t + 1);
    for (int32_t j = 0; j < m; ++j) {
      mom[size_t(j)] = b1 * mom[size_t(j)] + (1 - b1) * g[size_t(j)];
      var[size_t(j)] = b2 * var[size_t(j)] + (1 - b2) * double(g[size_t(j)]) * g[size_t(j)];
      const double step = lr * (mom[size_t(j)] / c1) / (std::sqrt(var[size_t(j)] / c2) + 1e-12);
      w[size_t(j)] = float(std::max(0.0, double(w[size_t(j)]) - step));
    }
  }
  r.pff = r.test.front(), r.wpff = r.test.back();
  r.wmin = *std::min_element(w.begin(), w.end()), r.wmax = *std::max_element(w.begin(), w.end());
  std::vector<float> om_iid(size_t(m) * d);
  posenc::check(posenc_rf_sample_f32(POSENC_RF_IID, d, m, 1.0, seed, om_iid.data()));
  r.rff = pair_loss(features(POSENC_RF_TRIG, om_iid, m, d, nullptr, s.te), s.Kte);
  return r;
}

void exp_wpff(Report& rep) {
  const bool q = rep.quick();
  const std::vector<int32_t> ms = {64, 256, 512};
  const int seeds = q ? 1 : 2, steps = q ? 15 : 60, every = q ? 3 : 4;
  const std::vector<Points> data = feature_datasets(rep);
  rep.md() << strf(
      "WPFF (seed Theorem 3; DiJiang eq. 10) multiplies PFF feature j by a learned weight λ_j ≥ 0. Here λ is "
      "learned by gradient descent: Adam (learning rate %.2g, %d full-batch steps from λ = 1, projected onto "
      "λ ≥ 0) on the mean squared error of φ(x)·φ(y) against the Gaussian kernel exp(−|x−y|²/2) over all "
      "pairs of the training half (even rows); the gradient with respect to the features, (4/(n(n−1))) E Φ "
      "with E = ΦΦᵀ − K off the diagonal, is pulled back to λ by `posenc_rf_features_backward_f32`. "
      "MSE is measured on all pairs of the held-out half (odd rows), mean of %d seed(s) of ω. PFF and WPFF: "
      "`GAUSSIAN_POSITIVE` map exp(ω·x − |x|²)/√m with PFF sampling, m features; RFF: i.i.d. ω, trig map "
      "[cos, sin]/√m, m frequencies (2m features). Same ω for PFF and WPFF; everything is seeded, so the "
      "numbers are reproducible.\n",
      0.05, steps, seeds);
  std::vector<double> mx;
  std::vector<std::vector<double>> mse_cols(3 * data.size());
  std::vector<std::string> mse_hdr = {"m"};
  std::vector<std::string> curve_hdr = {"step"};
  std::vector<std::vector<double>> curve_cols(1);  // the steps train_one records
  for (int t = 0; t <= steps; ++t)
    if (t % every == 0 || t == steps) curve_cols[0].push_back(double(t));
  for (int32_t m : ms) mx.push_back(double(m));
  for (size_t di = 0; di < data.size(); ++di) {
    const Points& pts = data[di];
    Split s;
    s.tr = half(pts, 0), s.te = half(pts, 1);
    s.ntr = int64_t(s.tr.size()) / pts.d, s.nte = int64_t(s.te.size()) / pts.d;
    s.Ktr = gauss(s.tr, pts.d), s.Kte = gauss(s.te, pts.d);
    std::vector<std::vector<std::string>> rows;
    Plot pl;
    pl.title = "WPFF training (Adam on λ): " + pts.label;
    pl.xlabel = "step";
    pl.ylabel = "kernel MSE";
    pl.logy = true;
    pl.legend = 0;
    bool lowers_all = true;
    std::string vs_rff;
    for (int32_t m : ms) {
      const double t0 = now_s();
      Trained avg{0, 0, 0, {}, {}, 1e300, 0};
      for (int sd = 0; sd < seeds; ++sd) {
        const Trained r = train_one(s, pts.d, m, 7919ull * uint64_t(sd + 1) + uint64_t(m), steps, every);
        avg.pff += r.pff / seeds, avg.wpff += r.wpff / seeds, avg.rff += r.rff / seeds;
        avg.wmin = std::min(avg.wmin, r.wmin), avg.wmax = std::max(avg.wmax, r.wmax);
        if (avg.train.empty()) avg.train.assign(r.train.size(), 0.0), avg.test.assign(r.test.size(), 0.0);
        for (size_t i = 0; i < r.train.size(); ++i) avg.train[i] += r.train[i] / seeds, avg.test[i] += r.test[i] / seeds;
      }
      rep.progress("wpff: %s, m=%d: %.2f s", pts.label.c_str(), m, now_s() - t0);
      lowers_all = lowers_all && avg.wpff < avg.pff;
      vs_rff += strf("%s%s at m = %d", vs_rff.empty() ? "" : ", ", avg.wpff < avg.rff ? "lower" : "higher", m);
      rows.push_back({std::to_string(m), strf("%.3g", avg.pff), strf("%.3g", avg.wpff), strf("%.3g", avg.rff),
                      strf("%.3g", avg.wpff / avg.pff), strf("%.3g", avg.train.front()), strf("%.3g", avg.train.back()),
                      strf("%.2g … %.2g", avg.wmin, avg.wmax)});
      mse_cols[3 * di].push_back(avg.pff), mse_cols[3 * di + 1].push_back(avg.wpff), mse_cols[3 * di + 2].push_back(avg.rff);
      curve_cols.push_back(avg.train), curve_cols.push_back(avg.test);
      curve_hdr.push_back(strf("%s_m%d_train", pts.label.c_str(), m));
      curve_hdr.push_back(strf("%s_m%d_test", pts.label.c_str(), m));
      Series a, b;
      a.name = strf("m=%d train", m), a.x = curve_cols[0], a.y = avg.train;
      b.name = strf("m=%d held-out", m), b.x = curve_cols[0], b.y = avg.test;
      pl.series.push_back(a), pl.series.push_back(b);
      if (m == ms.back())
        rep.summary("6b wpff", pts.label + ": held-out MSE at m=512 PFF / learned WPFF / RFF",
                    strf("%.3g / %.3g / %.3g", avg.pff, avg.wpff, avg.rff));
    }
    mse_hdr.push_back(pts.label + "_PFF"), mse_hdr.push_back(pts.label + "_WPFF"), mse_hdr.push_back(pts.label + "_RFF");
    rep.md() << "\n**" << pts.name << "** (" << s.ntr << " training / " << s.nte << " held-out vectors, d = " << pts.d
             << ")\n";
    rep.table({"m", "PFF (held-out)", "learned WPFF (held-out)", "i.i.d. RFF (held-out)", "WPFF / PFF",
               "train MSE at λ = 1", "train MSE learned", "learned λ range"},
              rows);
    rep.md() << (lowers_all ? "Learned WPFF lowers the held-out error of PFF (same ω) at every m here"
                            : "Learned WPFF does NOT lower the held-out error of PFF at every m here (see the "
                              "WPFF / PFF column)");
    rep.md() << "; against i.i.d. RFF it is " << vs_rff << ".\n\n";
    rep.plot(strf("wpff_curve_%zu", di), pl);
  }
  rep.csv("wpff_mse", mse_hdr, [&] {
    std::vector<std::vector<double>> c = {mx};
    c.insert(c.end(), mse_cols.begin(), mse_cols.end());
    return c;
  }());
  rep.csv("wpff_curve", curve_hdr, curve_cols);
}
RegisterExperiment reg_wpff(61, "wpff", "6b. Learned WPFF weights: gradient descent through the features backward", exp_wpff);

}  // namespace
}  // namespace posenc_cli
