// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/fuzz/fuzz_sphere.cpp — libFuzzer target of the sphere family: Legendre functions and
// polynomials, the zonal kernel, real SH (float64 / float32, flags, gradients and Hessians),
// lon/lat and complex SH, Wigner D matrices and coefficient rotation.
#include "tests/fuzz/fuzz_common.hpp"

using namespace posenc_fuzz;

namespace {

int64_t coeffs(int32_t lmax) { return lmax >= 0 && lmax <= 40 ? int64_t(lmax + 1) * (lmax + 1) : 0; }
int64_t rows(int64_t n) { return n > 0 && n <= 256 ? n : 0; }

/// A 3 x 3 matrix: a rotation (about a random axis) 3 times in 4, else arbitrary numbers.
std::vector<double> rotation(Input& in) {
  std::vector<double> R(9);
  if (in.u8() % 4 == 0) {
    for (auto& x : R) x = in.real(-1.5, 1.5);
    return R;
  }
  double a[3] = {in.real(-1, 1), in.real(-1, 1), in.real(1e-3, 1)};
  const double nrm = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  for (auto& x : a) x /= nrm;
  const double t = in.real(-7, 7), c = std::cos(t), s = std::sin(t);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) R[size_t(3 * i + j)] = (i == j ? c : 0.0) + (1 - c) * a[i] * a[j];
  R[1] -= s * a[2]; R[3] += s * a[2]; R[2] += s * a[1]; R[6] -= s * a[1]; R[5] -= s * a[0]; R[7] += s * a[0];
  return R;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  setup(in);
  const int op = in.u8() % 10;
  const int32_t lmax = in.size32(-1, op == 0 ? 60 : 12);
  const int64_t n = in.size(-1, 24);
  const int64_t K = coeffs(lmax), N = rows(n);
  switch (op) {
    case 0: {  // Legendre functions, float64 / float32, and polynomials
      const int kind = in.u8() % 3;
      const auto norm = static_cast<posenc_legendre_norm>(in.choice(4));
      const int32_t cs = in.flag() ? 1 : in.size32(-2, 2);
      const int64_t pl = lmax >= 0 && lmax <= 60 ? int64_t(lmax + 1) * (lmax + 2) / 2 : 0;
      if (kind == 0) {
        Arr<double> x = array<double>(in, N, [&] { return in.real(-1, 1); });
        Out<double> o(in, N * pl);
        const posenc_status s = posenc_legendre_f64(norm, lmax, cs, x.ptr(), n, o.ptr());
        // NONE may overflow to inf beyond l ~ 150; NaN never.
        check("posenc_legendre_f64", s, in, out(o, N * pl));
      } else if (kind == 1) {
        Arr<float> x = array<float>(in, N, [&] { return in.realf(-1, 1); });
        Out<float> o(in, N * pl);
        const posenc_status s = posenc_legendre_f32(norm, lmax, cs, x.ptr(), n, o.ptr());
        check("posenc_legendre_f32", s, in, out(o, N * pl));
      } else {
        const int64_t L1 = lmax >= 0 && lmax <= 60 ? lmax + 1 : 0;
        Arr<double> x = array<double>(in, N, [&] { return in.real(-1, 1); });
        Out<double> o(in, N * L1);
        const posenc_status s = posenc_legendre_poly_f64(lmax, x.ptr(), n, o.ptr());
        check("posenc_legendre_poly_f64", s, in, out(o, N * L1));
      }
      break;
    }
    case 1: {
      const int64_t L1 = lmax >= 0 && lmax <= 60 ? lmax + 1 : 0;
      Arr<double> w = array<double>(in, L1, [&] { return in.real(-2, 2); });
      Arr<double> cg = array<double>(in, N, [&] { return in.real(-1, 1); });
      Out<double> o(in, N);
      const posenc_status s = posenc_sph_kernel_f64(lmax, in.flag() ? nullptr : w.ptr(), cg.ptr(), n, o.ptr());
      check("posenc_sph_kernel_f64", s, in, out(o, N));
      break;
    }
    case 2: case 3: {  // real SH, float64 / float32, with flags
      const uint32_t flags = in.flag() ? 0u : (in.u8() % 8 == 0 ? in.u32() : in.u8() % 4);
      const bool f32 = op == 3;
      if (!f32) {
        Arr<double> xyz = array<double>(in, N * 3, [&] { return in.real(-3, 3); });
        Out<double> o(in, N * K);
        const posenc_status s = flags == 0 && in.flag() ? posenc_sph_harm_real_f64(lmax, xyz.ptr(), n, o.ptr())
                                                        : posenc_sph_harm_real_ex_f64(lmax, xyz.ptr(), n, flags, o.ptr());
        check("posenc_sph_harm_real(_ex)_f64", s, in, out(o, N * K));
      } else {
        Arr<float> xyz = array<float>(in, N * 3, [&] { return in.realf(-3, 3); });
        Out<float> o(in, N * K);
        const posenc_status s = flags == 0 && in.flag() ? posenc_sph_harm_real_f32(lmax, xyz.ptr(), n, o.ptr())
                                                        : posenc_sph_harm_real_ex_f32(lmax, xyz.ptr(), n, flags, o.ptr());
        check("posenc_sph_harm_real(_ex)_f32", s, in, out(o, N * K));
      }
      break;
    }
    case 4: case 5: {  // gradients and Hessians
      const uint32_t flags = in.u8() % 8 == 0 ? in.u32() : in.u8() % 4;
      const uint8_t which = in.u8();
      if (op == 4) {
        Arr<double> xyz = array<double>(in, N * 3, [&] { return in.real(-3, 3); });
        Out<double> v(in, N * K), g(in, N * 3 * K), h(in, N * 9 * K);
        const posenc_status s = posenc_sph_harm_real_grad_f64(lmax, xyz.ptr(), n, flags, which & 1 ? v.ptr() : nullptr,
                                                              g.ptr(), which & 2 ? h.ptr() : nullptr);
        check("posenc_sph_harm_real_grad_f64", s, in, out(v, which & 1 ? N * K : 0), out(g, N * 3 * K),
              out(h, which & 2 ? N * 9 * K : 0));
      } else {
        Arr<float> xyz = array<float>(in, N * 3, [&] { return in.realf(-3, 3); });
        Out<float> v(in, N * K), g(in, N * 3 * K), h(in, N * 9 * K);
        const posenc_status s = posenc_sph_harm_real_grad_f32(lmax, xyz.ptr(), n, flags, which & 1 ? v.ptr() : nullptr,
                                                              g.ptr(), which & 2 ? h.ptr() : nullptr);
        check("posenc_sph_harm_real_grad_f32", s, in, out(v, which & 1 ? N * K : 0), out(g, N * 3 * K),
              out(h, which & 2 ? N * 9 * K : 0));
      }
      break;
    }
    case 6: {
      Arr<double> ll = array<double>(in, N * 2, [&] { return in.real(-120, 120); });
      Out<double> o(in, N * K);
      const posenc_status s = posenc_sph_harm_real_lonlat_f64(lmax, ll.ptr(), n, o.ptr());
      check("posenc_sph_harm_real_lonlat_f64", s, in, out(o, N * K));
      break;
    }
    case 7: {
      Arr<double> th = array<double>(in, N, [&] { return in.real(-4, 4); });
      Arr<double> ph = array<double>(in, N, [&] { return in.real(-8, 8); });
      Out<double> o(in, N * K * 2);
      const posenc_status s = posenc_sph_harm_complex_f64(lmax, th.ptr(), ph.ptr(), n, o.ptr());
      check("posenc_sph_harm_complex_f64", s, in, out(o, N * K * 2));
      break;
    }
    case 8: {
      std::vector<double> R = rotation(in);
      const int64_t wd = lmax >= 0 && lmax <= 40 ? int64_t(lmax + 1) * (2 * lmax + 1) * (2 * lmax + 3) / 3 : 0;
      Out<double> o(in, wd);
      const posenc_status s = posenc_wigner_d_real_f64(lmax, in.u8() % 16 ? R.data() : nullptr, o.ptr());
      check("posenc_wigner_d_real_f64", s, in, out(o, wd));
      break;
    }
    case 9: {
      std::vector<double> R = rotation(in);
      Arr<double> c = array<double>(in, N * K, [&] { return in.real(-2, 2); });
      Out<double> o(in, N * K);
      if (in.u8() % 4 == 0) {  // in place
        o.v.assign(c.v.begin(), c.v.end());
        o.snap();
        const posenc_status s = posenc_sph_rotate_real_f64(lmax, R.data(), o.ptr(), n, o.ptr());
        check("posenc_sph_rotate_real_f64 (in place)", s, in, out(o, N * K));
      } else {
        const posenc_status s = posenc_sph_rotate_real_f64(lmax, R.data(), c.ptr(), n, o.ptr());
        check("posenc_sph_rotate_real_f64", s, in, out(o, N * K));
      }
      break;
    }
  }
  return 0;
}
