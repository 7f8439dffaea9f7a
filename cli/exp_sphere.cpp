// SPDX-License-Identifier: Apache-2.0 OR MIT
// requires: posenc_sph_harm_real_lonlat_f64 posenc_sph_harm_real_f64 posenc_sph_kernel_f64 posenc_sph_rotate_real_f64
// posenc report, experiment 3: spherical-harmonic PE of the tzdata cities (real places): the
// addition theorem over all city pairs, equivariance under a random rotation, kernel vs angle.
#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "cli/report.hpp"
#include "posenc/posenc.hpp"

namespace posenc_cli {
namespace {

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// A rotation matrix from a seeded uniformly random unit quaternion (Shoemake 1992).
std::vector<double> random_rotation(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0, 1);
  double q[4], s = 0;
  for (double& v : q) v = g(rng), s += v * v;
  for (double& v : q) v /= std::sqrt(s);
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  return {1 - 2 * (y * y + z * z), 2 * (x * y - z * w),     2 * (x * z + y * w),
          2 * (x * y + z * w),     1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
          2 * (x * z - y * w),     2 * (y * z + x * w),     1 - 2 * (x * x + y * y)};
}

void exp_sphere(Report& rep) {
  const std::vector<City> cities = load_zone1970(rep.data_file("zone1970.tab"));
  const int64_t n = int64_t(cities.size());
  std::vector<double> lonlat, xyz;
  for (const City& c : cities) {
    lonlat.push_back(c.lon_deg), lonlat.push_back(c.lat_deg);
    const double lo = c.lon_deg * M_PI / 180, la = c.lat_deg * M_PI / 180;
    xyz.push_back(std::cos(la) * std::cos(lo)), xyz.push_back(std::cos(la) * std::sin(lo)), xyz.push_back(std::sin(la));
  }
  // cos(gamma) for all pairs (i, j), i <= j, from the unit vectors.
  std::vector<double> cg;
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i; j < n; ++j) {
      double d = 0;
      for (int a = 0; a < 3; ++a) d += xyz[size_t(3 * i + a)] * xyz[size_t(3 * j + a)];
      cg.push_back(std::max(-1.0, std::min(1.0, d)));
      pairs.push_back({i, j});
    }
  rep.md() << strf("%lld time-zone cities of tzdata's zone1970.tab (ISO 6709 coordinates parsed in C++), "
                   "real orthonormal SH (`posenc_sph_harm_real_lonlat_f64`). Addition theorem: ⟨PE(x₁), PE(x₂)⟩ "
                   "= Σ_l (2l+1)/(4π) P_l(cos γ) (`posenc_sph_kernel_f64`) over all %zu pairs (i ≤ j); errors are "
                   "absolute and relative to K(0) = (L+1)²/(4π). Equivariance: PE(R x) (`posenc_sph_harm_real_f64` "
                   "on rotated unit vectors) against D(R)·PE(x) (`posenc_sph_rotate_real_f64`), R from a random "
                   "unit quaternion.\n",
                   (long long)n, pairs.size());
  const std::vector<double> R = random_rotation(20261121);
  std::vector<double> rxyz(xyz.size());
  for (int64_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a)
      rxyz[size_t(3 * i + a)] = R[size_t(3 * a)] * xyz[size_t(3 * i)] + R[size_t(3 * a + 1)] * xyz[size_t(3 * i + 1)] +
                                R[size_t(3 * a + 2)] * xyz[size_t(3 * i + 2)];
  std::vector<std::vector<std::string>> rows;
  Plot pl;
  pl.title = "SH kernel vs great-circle angle (tz city pairs as dots)";
  pl.xlabel = "great-circle angle gamma (degrees)";
  pl.ylabel = "<PE(x1), PE(x2)> / K(0)";
  std::vector<std::vector<double>> csv_cols;
  std::vector<double> gam;
  for (int i = 0; i <= 720; ++i) gam.push_back(0.25 * i);
  csv_cols.push_back(gam);
  for (int L : {10, 40}) {
    const int64_t C = int64_t(L + 1) * (L + 1);
    RowMat Y(n, C), Yx(n, C), Yr(n, C), DY(n, C);
    double t0 = now_s();
    posenc::check(posenc_sph_harm_real_lonlat_f64(L, lonlat.data(), n, Y.data()));
    const double t_pe = now_s() - t0;
    posenc::check(posenc_sph_harm_real_f64(L, xyz.data(), n, Yx.data()));
    const double lonlat_vs_xyz = (Y - Yx).cwiseAbs().maxCoeff();
    const RowMat G = Y * Y.transpose();
    std::vector<double> K(cg.size());
    t0 = now_s();
    posenc::check(posenc_sph_kernel_f64(L, nullptr, cg.data(), int64_t(cg.size()), K.data()));
    const double t_k = now_s() - t0;
    double max_err = 0;
    for (size_t p = 0; p < pairs.size(); ++p) max_err = std::max(max_err, std::fabs(G(pairs[p].first, pairs[p].second) - K[p]));
    const double K0 = double(C) / (4 * M_PI);
    posenc::check(posenc_sph_harm_real_f64(L, rxyz.data(), n, Yr.data()));
    posenc::check(posenc_sph_rotate_real_f64(L, R.data(), Yx.data(), n, DY.data()));
    const double eq_err = (Yr - DY).cwiseAbs().maxCoeff();
    const double ymax = Yr.cwiseAbs().maxCoeff();
    rows.push_back({strf("%d", L), strf("%lld", (long long)C), strf("%.3g", t_pe * 1e3), strf("%.3g", double(n) / t_pe),
                    strf("%.2g", max_err), strf("%.2g", max_err / K0), strf("%.2g", eq_err), strf("%.2g", eq_err / ymax),
                    strf("%.2g", lonlat_vs_xyz)});
    rep.progress("sphere L=%d: PE %.2f ms, addition theorem max err %.2g, equivariance %.2g", L, t_pe * 1e3, max_err, eq_err);
    rep.summary("3 sphere", strf("L=%d: addition-theorem / equivariance max error", L),
                strf("%.2g / %.2g (K(0) = %.1f)", max_err, eq_err, K0));
    // kernel curve
    std::vector<double> cgc, kc(gam.size());
    for (double g : gam) cgc.push_back(std::cos(g * M_PI / 180));
    posenc::check(posenc_sph_kernel_f64(L, nullptr, cgc.data(), int64_t(cgc.size()), kc.data()));
    Series s;
    s.name = strf("K_%d(gamma) / K(0)", L);
    s.x = gam;
    for (double v : kc) s.y.push_back(v / K0);
    pl.series.push_back(s);
    csv_cols.push_back(s.y);
    Series pts;
    pts.name = strf("city pairs, L = %d", L);
    pts.points = true;
    for (size_t p = 0; p < pairs.size(); p += 37) {
      pts.x.push_back(std::acos(cg[p]) * 180 / M_PI);
      pts.y.push_back(G(pairs[p].first, pairs[p].second) / K0);
    }
    pl.series.push_back(pts);
    (void)t_k;
  }
  rep.table({"L", "channels", "PE time (ms)", "points/s", "addition thm max |err|", "rel. to K(0)",
             "equivariance max |err|", "rel. to max|Y|", "lonlat vs xyz path"},
            rows);
  rep.csv("sphere_kernel", {"gamma_deg", "K10_over_K0", "K40_over_K0"}, csv_cols);
  rep.plot("sphere_kernel", pl);
}
RegisterExperiment reg_sphere(30, "sphere", "3. Spherical PE of the tzdata cities (S²)", exp_sphere);

}  // namespace
}  // namespace posenc_cli
