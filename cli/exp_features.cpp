// SPDX-License-Identifier: Apache-2.0 OR MIT
// requires: posenc_rf_sample_f32 posenc_rf_features_f32 posenc_linear_attention_f32 posenc_softmax_attention_f32 posenc_sph_harm_real_lonlat_f64
// posenc report, experiment 6: random features (Bochner) on real vectors — kernel-approximation
// MSE against m for IID / ORF / QMC / PFF / WPFF — and linear vs softmax attention against n.
#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "cli/features_data.hpp"
#include "cli/report.hpp"
#include "posenc/posenc.hpp"

namespace posenc_cli {
namespace {

Eigen::MatrixXd to_mat(const std::vector<float>& v, int64_t rows, int64_t cols) {
  Eigen::MatrixXd m(rows, cols);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) m(i, j) = v[size_t(i * cols + j)];
  return m;
}

std::vector<float> subset(const Points& p, int parity) {
  std::vector<float> o;
  for (int64_t i = parity; i < p.n(); i += 2) o.insert(o.end(), p.x.begin() + i * p.d, p.x.begin() + (i + 1) * p.d);
  return o;
}

// Exact Gaussian kernel exp(-|x-y|^2/2) between rows of a [n, d] matrix.
Eigen::MatrixXd gauss_kernel(const Eigen::MatrixXd& X) {
  const int64_t n = X.rows();
  Eigen::MatrixXd K(n, n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) K(i, j) = std::exp(-0.5 * (X.row(i) - X.row(j)).squaredNorm());
  return K;
}

double pair_mse(const Eigen::MatrixXd& Khat, const Eigen::MatrixXd& K) {
  double e = 0;
  int64_t c = 0;
  for (int64_t i = 0; i < K.rows(); ++i)
    for (int64_t j = i + 1; j < K.cols(); ++j) e += (Khat(i, j) - K(i, j)) * (Khat(i, j) - K(i, j)), ++c;
  return e / double(c);
}

enum Method { IID, ORF, QMC, PFF, WPFF };
const char* kMethodName[] = {"IID (RFF)", "ORF", "QMC", "PFF", "WPFF"};

// WPFF weights: feature weights w_j = sqrt(u_j), u >= 0 minimizing sum over training pairs of
// (sum_j u_j phi_j(x) phi_j(y) - K(x, y))^2 (DiJiang eq. 10 learns D; here D is fit by projected
// gradient descent on 2000 random pairs of the training half, 300 steps of size 1/lambda_max).
std::vector<float> fit_wpff(const Eigen::MatrixXd& Phi, const Eigen::MatrixXd& Xtr, uint64_t seed) {
  const int64_t n = Phi.rows(), m = Phi.cols(), P = 2000;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> pick(0, n - 1);
  Eigen::MatrixXd A(P, m);
  Eigen::VectorXd k(P);
  for (int64_t p = 0; p < P; ++p) {
    int64_t i = pick(rng), j = pick(rng);
    while (j == i) j = pick(rng);
    A.row(p) = Phi.row(i).cwiseProduct(Phi.row(j));
    k(p) = std::exp(-0.5 * (Xtr.row(i) - Xtr.row(j)).squaredNorm());
  }
  const Eigen::MatrixXd G = A.transpose() * A;
  const Eigen::VectorXd b = A.transpose() * k;
  Eigen::VectorXd v = Eigen::VectorXd::Ones(m);
  double lam = 1;
  for (int it = 0; it < 50; ++it) {
    Eigen::VectorXd w = G * v;
    lam = w.norm() / std::max(v.norm(), 1e-300);
    v = w / std::max(w.norm(), 1e-300);
  }
  Eigen::VectorXd u = Eigen::VectorXd::Ones(m);
  const double step = 1.0 / std::max(lam, 1e-300);
  for (int it = 0; it < 300; ++it) u = (u - step * (G * u - b)).cwiseMax(0.0);
  std::vector<float> w(static_cast<size_t>(m));
  for (int64_t j = 0; j < m; ++j) w[size_t(j)] = float(std::sqrt(u(j)));
  return w;
}

std::vector<double> mse_curve(const Points& pts, Method meth, const std::vector<int32_t>& ms, int seeds) {
  const std::vector<float> tr = subset(pts, 0), te = subset(pts, 1);
  const int64_t ntr = int64_t(tr.size()) / pts.d, nte = int64_t(te.size()) / pts.d;
  const Eigen::MatrixXd Xtr = to_mat(tr, ntr, pts.d), Xte = to_mat(te, nte, pts.d);
  const Eigen::MatrixXd K = gauss_kernel(Xte);
  std::vector<double> out;
  for (int32_t m : ms) {
    double acc = 0;
    for (int s = 0; s < seeds; ++s) {
      const uint64_t seed = 1000003ull * uint64_t(s + 1) + uint64_t(m);
      const posenc_rf_sampling samp = meth == IID ? POSENC_RF_IID : meth == ORF ? POSENC_RF_ORTHOGONAL
                                      : meth == QMC ? POSENC_RF_QMC : POSENC_RF_PFF;
      std::vector<float> omega(size_t(m) * pts.d);
      posenc::check(posenc_rf_sample_f32(samp, pts.d, m, 1.0, seed, omega.data()));
      const bool trig = meth == IID || meth == ORF || meth == QMC;
      const posenc_rf_kind kind = trig ? POSENC_RF_TRIG : POSENC_RF_GAUSSIAN_POSITIVE;
      const int64_t F = trig ? 2 * m : m;
      std::vector<float> w;
      if (meth == WPFF) {
        std::vector<float> ftr(static_cast<size_t>(ntr * F));
        posenc::check(posenc_rf_features_f32(kind, POSENC_RF_SHIFT_OVERFLOW, omega.data(), m, pts.d, nullptr, tr.data(), ntr, ftr.data()));
        w = fit_wpff(to_mat(ftr, ntr, F), Xtr, seed ^ 0x9e3779b97f4a7c15ull);
      }
      std::vector<float> fte(static_cast<size_t>(nte * F));
      posenc::check(posenc_rf_features_f32(kind, POSENC_RF_SHIFT_OVERFLOW, omega.data(), m, pts.d, w.empty() ? nullptr : w.data(), te.data(), nte, fte.data()));
      const Eigen::MatrixXd Phi = to_mat(fte, nte, F);
      acc += pair_mse(Phi * Phi.transpose(), K);
    }
    out.push_back(acc / seeds);
  }
  return out;
}

}  // namespace

namespace {

void exp_features(Report& rep) {
  const bool q = rep.quick();
  const std::vector<int32_t> ms = q ? std::vector<int32_t>{16, 64, 256} : std::vector<int32_t>{16, 32, 64, 128, 256, 512};
  const int seeds = q ? 2 : 5;
  const std::vector<Points> data = feature_datasets(rep);
  rep.md() << strf("Gaussian kernel exp(−|x−y|²/2) (σ = 1) estimated by random features; MSE over all pairs "
                   "of the test half (odd rows), mean of %d seeds. IID / ORF / QMC use the trig map "
                   "[cos, sin]/√m (2m features); PFF and WPFF the DiJiang positive map "
                   "exp(ω·x − |x|²)/√m with PFF sampling (m features); WPFF's weights D are fit on the "
                   "training half (even rows) by non-negative least squares (projected gradient, 2000 pairs).\n",
                   seeds);
  std::vector<std::vector<double>> cols;
  std::vector<std::string> hdr = {"m"};
  std::vector<double> mx(ms.begin(), ms.end());
  cols.push_back(mx);
  for (const auto& pts : data) {
    Plot pl;
    pl.title = "Gaussian-kernel MSE vs m: " + pts.name;
    pl.xlabel = "m (random features)";
    pl.ylabel = "MSE";
    pl.logx = pl.logy = true;
    pl.legend = 3;
    std::vector<std::vector<std::string>> rows;
    for (int meth = IID; meth <= WPFF; ++meth) {
      const double t0 = now_s();
      const std::vector<double> c = mse_curve(pts, Method(meth), ms, seeds);
      rep.progress("features: %s, %s: %.2f s", pts.name.c_str(), kMethodName[meth], now_s() - t0);
      std::vector<std::string> row = {kMethodName[meth]};
      for (double v : c) row.push_back(strf("%.3g", v));
      rows.push_back(row);
      Series s;
      s.name = kMethodName[meth], s.x = mx, s.y = c;
      pl.series.push_back(s);
      cols.push_back(c);
      hdr.push_back(pts.label + "_" + std::string(kMethodName[meth]).substr(0, 4));
      if (meth == IID || meth == QMC || meth == WPFF)
        rep.summary("6 features", pts.label + ": MSE at m=" + std::to_string(ms.back()) + " " + kMethodName[meth],
                    strf("%.3g", c.back()));
    }
    std::vector<std::string> h = {"method \\ m"};
    for (int32_t m : ms) h.push_back(std::to_string(m));
    rep.md() << "\n**" << pts.name << "** (" << pts.n() << " vectors, d = " << pts.d << ")\n";
    rep.table(h, rows);
    rep.plot(strf("features_mse_%zu", size_t(&pts - data.data())), pl);
  }
  for (auto& h : hdr) {
    std::replace(h.begin(), h.end(), ' ', '_');
    h.erase(std::remove_if(h.begin(), h.end(), [](char c) { return c == '(' || c == ')'; }), h.end());
  }
  rep.csv("features_mse", hdr, cols);

  // Linear vs softmax attention.
  const std::vector<int64_t> ns = q ? std::vector<int64_t>{256, 1024, 2048} : std::vector<int64_t>{256, 512, 1024, 2048, 4096, 8192};
  const int32_t d = 64, dv = 64, m = 256;
  std::mt19937_64 rng(7);
  std::normal_distribution<float> g(0.0f, 1.0f);
  std::vector<float> omega(size_t(m) * d);
  posenc::check(posenc_rf_sample_f32(POSENC_RF_ORTHOGONAL, d, m, 1.0, 11, omega.data()));
  std::vector<double> nx, t_soft, t_lin, err;
  std::vector<std::vector<std::string>> rows;
  for (int64_t n : ns) {
    std::vector<float> Q(size_t(n) * d), Kk(size_t(n) * d), V(size_t(n) * dv);
    // Random directions of norm 1 (logits q.k in [-1, 1]): FAVOR+'s variance grows like
    // e^{|q + k|^2} (Performer Lemma 2), so larger norms need far more features.
    for (float* M : {Q.data(), Kk.data()})
      for (int64_t i = 0; i < n; ++i) {
        double s2 = 0;
        for (int j = 0; j < d; ++j) M[i * d + j] = g(rng), s2 += double(M[i * d + j]) * M[i * d + j];
        for (int j = 0; j < d; ++j) M[i * d + j] = float(M[i * d + j] / std::sqrt(s2));
      }
    for (float& v : V) v = g(rng);
    std::vector<float> o_soft(size_t(n) * dv), o_lin(size_t(n) * dv), pq(size_t(n) * m), pk(size_t(n) * m);
    double t0 = now_s();
    posenc::check(posenc_softmax_attention_f32(Q.data(), Kk.data(), V.data(), n, d, dv, 0, 1.0f, o_soft.data()));
    const double ts = now_s() - t0;
    t0 = now_s();
    posenc::check(posenc_rf_features_f32(POSENC_RF_POSITIVE, POSENC_RF_SHIFT_OVERFLOW, omega.data(), m, d, nullptr, Q.data(), n, pq.data()));
    posenc::check(posenc_rf_features_f32(POSENC_RF_POSITIVE, POSENC_RF_SHIFT_OVERFLOW, omega.data(), m, d, nullptr, Kk.data(), n, pk.data()));
    posenc::check(posenc_linear_attention_f32(pq.data(), pk.data(), V.data(), n, m, dv, 0, 1e-6f, o_lin.data()));
    const double tl = now_s() - t0;
    double num = 0, den = 0;
    for (size_t i = 0; i < o_soft.size(); ++i) num += (o_lin[i] - o_soft[i]) * (o_lin[i] - o_soft[i]), den += o_soft[i] * o_soft[i];
    nx.push_back(double(n)), t_soft.push_back(ts), t_lin.push_back(tl), err.push_back(std::sqrt(num / den));
    rows.push_back({std::to_string(n), strf("%.3g", ts * 1e3), strf("%.3g", tl * 1e3), strf("%.2f", ts / tl), strf("%.3f", err.back())});
    rep.progress("attention n=%lld: softmax %.3f s, linear %.3f s", (long long)n, ts, tl);
  }
  rep.md() << strf("\n**Linear vs softmax attention** (non-causal, d = dv = %d, q, k random unit vectors, v ~ N(0, I)): "
                   "exact `posenc_softmax_attention_f32` (scale 1) against FAVOR+ positive features "
                   "(`posenc_rf_features_f32` POSITIVE, ORF, m = %d, for q and k) + `posenc_linear_attention_f32`. "
                   "Error = ‖out_lin − out_softmax‖_F / ‖out_softmax‖_F; linear time includes the feature maps. "
                   "FAVOR+'s variance grows like e^{|q+k|²} (Performer Lemma 2): at |q| = |k| = 2 the same m gives "
                   "errors above 1.\n",
                   d, m);
  rep.table({"n", "softmax (ms)", "linear (ms)", "speedup", "rel. error"}, rows);
  rep.csv("attention", {"n", "softmax_s", "linear_s", "rel_error"}, {nx, t_soft, t_lin, err});
  Plot pl;
  pl.title = "Attention time vs n (d = 64, m = 256)";
  pl.xlabel = "n (tokens)";
  pl.ylabel = "seconds";
  pl.logx = pl.logy = true;
  pl.legend = 2;
  Series a, b;
  a.name = "softmax (exact)", a.x = nx, a.y = t_soft;
  b.name = "linear (FAVOR+ features)", b.x = nx, b.y = t_lin;
  pl.series = {a, b};
  rep.plot("attention_time", pl);
  rep.summary("6 features", strf("attention n=%lld: softmax / linear time, rel. error", (long long)ns.back()),
              strf("%.3g s / %.3g s, %.3f", t_soft.back(), t_lin.back(), err.back()));
}
RegisterExperiment reg_features(60, "features", "6. Random features (Bochner): kernel MSE vs m, linear vs softmax attention", exp_features);

}  // namespace

// City unit vectors scaled by 1.5 (d = 3), and unit-normalized rows of a real table: the
// spherical-harmonic PE of the cities at L = 7 (64 channels) when the sphere family is built in,
// else the 64-channel sinusoidal table of positions 0..511.
std::vector<Points> feature_datasets(Report& rep) {
  const std::vector<City> cities = load_zone1970(rep.data_file("zone1970.tab"));
  Points a{"tz cities, unit vectors x 1.5", "cities-xyz", 3, {}};
  for (const City& c : cities) {
    const double lo = c.lon_deg * M_PI / 180, la = c.lat_deg * M_PI / 180;
    a.x.push_back(float(1.5 * std::cos(la) * std::cos(lo)));
    a.x.push_back(float(1.5 * std::cos(la) * std::sin(lo)));
    a.x.push_back(float(1.5 * std::sin(la)));
  }
  Points b{"", "", 64, {}};
  b.name = "tz cities, spherical PE L=7 (64 channels), rows normalized";
  b.label = "cities-SPE";
  std::vector<double> lonlat, y(cities.size() * 64);
  for (const City& c : cities) lonlat.push_back(c.lon_deg), lonlat.push_back(c.lat_deg);
  posenc::check(posenc_sph_harm_real_lonlat_f64(7, lonlat.data(), int64_t(cities.size()), y.data()));
  b.x.assign(y.begin(), y.end());
  for (int64_t i = 0; i < b.n(); ++i) {
    double s = 0;
    for (int j = 0; j < 64; ++j) s += double(b.x[size_t(i * 64 + j)]) * b.x[size_t(i * 64 + j)];
    for (int j = 0; j < 64; ++j) b.x[size_t(i * 64 + j)] = float(b.x[size_t(i * 64 + j)] / std::sqrt(s));
  }
  return {a, b};
}

}  // namespace posenc_cli
