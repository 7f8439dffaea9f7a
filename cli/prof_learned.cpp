// SPDX-License-Identifier: Apache-2.0 OR MIT
// requires: posenc_learned_add_f32 posenc_learned_grad_f32 posenc_learned_spectrum_f32 posenc_learned_resample_f32
// posenc profile: the learned family at GPT-2 / ViT sizes.
#include <algorithm>
#include <memory>
#include <vector>

#include "cli/profile.hpp"
#include "posenc/posenc.hpp"

namespace posenc_cli {
namespace {

using VF = std::vector<float>;

std::shared_ptr<std::vector<int64_t>> positions(int64_t n, int64_t rows) {
  auto p = std::make_shared<std::vector<int64_t>>(size_t(n));
  for (int64_t i = 0; i < n; ++i) (*p)[size_t(i)] = i % rows;
  return p;
}

RegisterProfile reg_add(50, "learned", "learned_add_f32", [](bool quick) {
  const int64_t rows = 1024, n = quick ? 4096 : 16384;
  const int32_t dim = 768;
  auto t = std::make_shared<VF>(size_t(rows) * dim, 0.01f), x = std::make_shared<VF>(size_t(n) * dim, 0.f);
  auto p = positions(n, rows);
  return ProfileCase{strf("GPT-2 wpe 1024x768, n=%lld", (long long)n), double(n), "tokens",
                     [=] { posenc::check(posenc_learned_add_f32(t->data(), rows, dim, p->data(), n, x->data())); }};
});

RegisterProfile reg_grad(51, "learned", "learned_grad_f32", [](bool quick) {
  const int64_t rows = 1024, n = quick ? 4096 : 16384;
  const int32_t dim = 768;
  auto g = std::make_shared<VF>(size_t(n) * dim, 1e-3f), t = std::make_shared<VF>(size_t(rows) * dim, 0.f);
  auto p = positions(n, rows);
  return ProfileCase{strf("GPT-2 wpe 1024x768, n=%lld", (long long)n), double(n), "tokens",
                     [=] { posenc::check(posenc_learned_grad_f32(g->data(), p->data(), n, dim, t->data(), rows)); }};
});

RegisterProfile reg_spec(52, "learned", "learned_spectrum_f32", [](bool quick) {
  const int64_t rows = quick ? 512 : 1024;
  const int32_t dim = 768;
  auto t = std::make_shared<VF>(size_t(rows) * dim);
  for (size_t i = 0; i < t->size(); ++i) (*t)[i] = float((i * 2654435761u) % 1000) * 1e-3f;
  auto s = std::make_shared<std::vector<double>>(size_t(std::min<int64_t>(rows, dim)));
  return ProfileCase{strf("%lldx%d", (long long)rows, dim), 1, "tables", [=] {
                       double er;
                       posenc::check(posenc_learned_spectrum_f32(t->data(), rows, dim, s->data(), &er));
                     }};
});

RegisterProfile reg_resample(53, "learned", "learned_resample_f32", [](bool) {
  const int32_t dim = 768;
  auto t = std::make_shared<VF>(size_t(1 + 14 * 14) * dim, 0.5f), o = std::make_shared<VF>(size_t(1 + 24 * 24) * dim);
  return ProfileCase{"ViT 1+14x14 -> 1+24x24, dim 768, bicubic-aa", double(1 + 24 * 24), "rows", [=] {
                       posenc::check(posenc_learned_resample_f32(t->data(), 1, 14, 14, dim, 24, 24,
                                                                 POSENC_RESAMPLE_BICUBIC_AA, o->data()));
                     }};
});

}  // namespace
}  // namespace posenc_cli
