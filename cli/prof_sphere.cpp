// SPDX-License-Identifier: Apache-2.0 OR MIT
// requires: posenc_sph_harm_real_f64 posenc_sph_harm_real_f32 posenc_legendre_f64
// posenc profile: the sphere family.
#include <cmath>
#include <memory>
#include <vector>

#include "cli/report.hpp"
#include "posenc/posenc.hpp"

namespace posenc_cli {
namespace {

template <class T>
std::shared_ptr<std::vector<T>> directions(int64_t n) {
  auto v = std::make_shared<std::vector<T>>(size_t(n) * 3);
  for (int64_t i = 0; i < n; ++i) {
    const double z = -1 + 2 * (i + 0.5) / n, phi = 2.399963229728653 * i, r = std::sqrt(1 - z * z);
    (*v)[size_t(3 * i)] = T(r * std::cos(phi)), (*v)[size_t(3 * i + 1)] = T(r * std::sin(phi)), (*v)[size_t(3 * i + 2)] = T(z);
  }
  return v;
}

// Flop model for real SH: per coefficient ~3 flops of the Legendre recurrence (FMA = 2, + 1 mul
// of the normalization) and ~2 of the azimuthal factor; counted as 5 per output value.
void reg_sh(int order, int L, bool f32) {
  static std::vector<RegisterProfile> keep;
  keep.emplace_back(order, [L, f32](ProfileResult& r, bool quick) -> std::function<void()> {
    const int64_t n = quick ? 20000 : 100000, C = int64_t(L + 1) * (L + 1);
    const double es = f32 ? 4 : 8;
    r = {"sphere", f32 ? "sph_harm_real_f32" : "sph_harm_real_f64", strf("L=%d n=%lld", L, (long long)n), double(n), "points",
         es * n * (C + 3), 5.0 * n * C, "bytes = xyz read + output written; flops = 5 per output value (model)", 0};
    r.fp32 = f32;
    if (f32) {
      auto x = directions<float>(n);
      auto o = std::make_shared<std::vector<float>>(size_t(n * C));
      return [=] { posenc::check(posenc_sph_harm_real_f32(L, x->data(), n, o->data())); };
    }
    auto x = directions<double>(n);
    auto o = std::make_shared<std::vector<double>>(size_t(n * C));
    return [=] { posenc::check(posenc_sph_harm_real_f64(L, x->data(), n, o->data())); };
  });
}

struct Init {
  Init() {
    reg_sh(20, 10, false);
    reg_sh(21, 40, false);
    reg_sh(22, 10, true);
  }
} init;

}  // namespace
}  // namespace posenc_cli
