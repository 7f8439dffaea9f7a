// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/api_catalogue_sphere.hpp — the API catalogue's calls of the sphere family: spherical harmonics, Legendre functions, derivatives and rotations.
// Part of tests/api_catalogue.hpp (see there).
#pragma once

#include "tests/api_catalogue_common.hpp"

namespace posenc_test {

/// Appends one small, valid call of each sphere function (several variants per function).
inline void add_sphere_calls(std::vector<ApiCall>& calls) {
  using namespace api_detail;
  const Adder add{calls};
  const int32_t L = 6;
  const size_t K = static_cast<size_t>((L + 1) * (L + 1));
  {
    auto b = fresh();
    const int64_t n = 29;
    const double* x = b->rd(n, -1, 1);
    const size_t pl = static_cast<size_t>((L + 1) * (L + 2) / 2);
    double* out = b->od(n * pl);
    add("posenc_legendre_f64", "sphere", b, {region(out, n * pl)},
        [=] { return posenc_legendre_f64(POSENC_LEGENDRE_SPHARM, L, 1, x, n, out); });
    auto b2 = fresh();
    const float* xf = b2->rf(n, -1, 1);
    float* outf = b2->of(n * pl);
    add("posenc_legendre_f32", "sphere", b2, {region(outf, n * pl)},
        [=] { return posenc_legendre_f32(POSENC_LEGENDRE_SCHMIDT, L, -1, xf, n, outf); });
    auto b3 = fresh();
    const double* x3 = b3->rd(n, -1, 1);
    double* out3 = b3->od(n * (L + 1));
    add("posenc_legendre_poly_f64", "sphere", b3, {region(out3, n * (L + 1))},
        [=] { return posenc_legendre_poly_f64(L, x3, n, out3); });
    auto b4 = fresh();
    const double* w = b4->rd(L + 1, 0, 2);
    const double* cg = b4->rd(n, -1, 1);
    double* out4 = b4->od(n);
    add("posenc_sph_kernel_f64", "sphere", b4, {region(out4, n)},
        [=] { return posenc_sph_kernel_f64(L, w, cg, n, out4); });
  }
  for (uint32_t flags : {0u, POSENC_SPH_SOLID}) {
    const int64_t n = 23;
    {
      auto b = fresh();
      const double* xyz = b->rd(n * 3, -2, 2);
      double* out = b->od(n * K);
      if (flags == 0)
        add("posenc_sph_harm_real_f64", "sphere", b, {region(out, n * K)},
            [=] { return posenc_sph_harm_real_f64(L, xyz, n, out); });
      else
        add("posenc_sph_harm_real_ex_f64", "sphere", b, {region(out, n * K)},
            [=] { return posenc_sph_harm_real_ex_f64(L, xyz, n, flags, out); });
    }
    {
      auto b = fresh();
      const float* xyz = b->rf(n * 3, -2, 2);
      float* out = b->of(n * K);
      if (flags == 0)
        add("posenc_sph_harm_real_f32", "sphere", b, {region(out, n * K)},
            [=] { return posenc_sph_harm_real_f32(L, xyz, n, out); });
      else
        add("posenc_sph_harm_real_ex_f32", "sphere", b, {region(out, n * K)},
            [=] { return posenc_sph_harm_real_ex_f32(L, xyz, n, flags, out); });
    }
    {
      auto b = fresh();
      const double* xyz = b->rd(n * 3, -2, 2);
      double* v = b->od(n * K);
      double* g = b->od(n * 3 * K);
      double* h = b->od(n * 9 * K);
      add("posenc_sph_harm_real_grad_f64", "sphere", b, {region(v, n * K), region(g, n * 3 * K), region(h, n * 9 * K)},
          [=] { return posenc_sph_harm_real_grad_f64(L, xyz, n, flags, v, g, h); });
    }
    {
      auto b = fresh();
      const float* xyz = b->rf(n * 3, -2, 2);
      float* v = b->of(n * K);
      float* g = b->of(n * 3 * K);
      float* h = b->of(n * 9 * K);
      add("posenc_sph_harm_real_grad_f32", "sphere", b, {region(v, n * K), region(g, n * 3 * K), region(h, n * 9 * K)},
          [=] { return posenc_sph_harm_real_grad_f32(L, xyz, n, flags, flags ? v : nullptr, g, h); });
    }
  }
  {
    auto b = fresh();
    const int64_t n = 19;
    double* ll = b->rd(n * 2, -90, 90);
    double* out = b->od(n * K);
    add("posenc_sph_harm_real_lonlat_f64", "sphere", b, {region(out, n * K)},
        [=] { return posenc_sph_harm_real_lonlat_f64(L, ll, n, out); });
    auto b2 = fresh();
    const double* th = b2->rd(n, 0, 3.1);
    const double* ph = b2->rd(n, -7, 7);
    double* out2 = b2->od(n * K * 2);
    add("posenc_sph_harm_complex_f64", "sphere", b2, {region(out2, n * K * 2)},
        [=] { return posenc_sph_harm_complex_f64(L, th, ph, n, out2); });
  }
  {
    // A rotation about (1, 2, 2)/3 by 0.7 rad (Rodrigues).
    auto b = fresh();
    const double ax[3] = {1.0 / 3, 2.0 / 3, 2.0 / 3}, c = std::cos(0.7), s = std::sin(0.7);
    b->d.emplace_back(9);
    double* R = b->d.back().data();
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) R[3 * i + j] = (i == j ? c : 0.0) + (1 - c) * ax[i] * ax[j];
    R[1] -= s * ax[2];
    R[3] += s * ax[2];
    R[2] += s * ax[1];
    R[6] -= s * ax[1];
    R[5] -= s * ax[0];
    R[7] += s * ax[0];
    const size_t wd = static_cast<size_t>((L + 1) * (2 * L + 1) * (2 * L + 3) / 3);
    double* out = b->od(wd);
    add("posenc_wigner_d_real_f64", "sphere", b, {region(out, wd)},
        [=] { return posenc_wigner_d_real_f64(L, R, out); });
    auto b2 = fresh();
    b2->d.push_back(b->d.front());
    const double* R2 = b2->d.back().data();
    const int64_t n = 7;
    const double* coeffs = b2->rd(n * K, -1, 1);
    double* out2 = b2->od(n * K);
    add("posenc_sph_rotate_real_f64", "sphere", b2, {region(out2, n * K)},
        [=] { return posenc_sph_rotate_real_f64(L, R2, coeffs, n, out2); });
  }

}

}  // namespace posenc_test
