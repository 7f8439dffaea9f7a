// SPDX-License-Identifier: Apache-2.0 OR MIT
// requires: posenc_sph_harm_real_f64 posenc_sph_harm_real_f32 posenc_legendre_f64
// posenc profile: the sphere family.
#include <cmath>
#include <memory>
#include <vector>

#include "cli/profile.hpp"
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

template <class T>
ProfileCase sh_case(int L, bool quick) {
  const int64_t n = quick ? 20000 : 100000, C = int64_t(L + 1) * (L + 1);
  auto x = directions<T>(n);
  auto o = std::make_shared<std::vector<T>>(size_t(n * C));
  return ProfileCase{strf("L=%d n=%lld", L, (long long)n), double(n), "points", [=] {
                       if constexpr (sizeof(T) == 4) posenc::check(posenc_sph_harm_real_f32(L, x->data(), n, o->data()));
                       else posenc::check(posenc_sph_harm_real_f64(L, x->data(), n, o->data()));
                     }};
}

RegisterProfile reg10(20, "sphere", "sph_harm_real_f64", [](bool quick) { return sh_case<double>(10, quick); });
RegisterProfile reg40(21, "sphere", "sph_harm_real_f64", [](bool quick) { return sh_case<double>(40, quick); });
RegisterProfile reg10f(22, "sphere", "sph_harm_real_f32", [](bool quick) { return sh_case<float>(10, quick); });

}  // namespace
}  // namespace posenc_cli
