// SPDX-License-Identifier: Apache-2.0 OR MIT
// requires: posenc_learned_add_f32 posenc_learned_grad_f32 posenc_learned_spectrum_f32 posenc_learned_resample_f32
// posenc profile: the learned family at GPT-2 / ViT sizes.
#include <memory>
#include <vector>

#include "cli/report.hpp"
#include "posenc/posenc.hpp"

namespace posenc_cli {
namespace {

using VF = std::vector<float>;

std::shared_ptr<std::vector<int64_t>> positions(int64_t n, int64_t rows) {
  auto p = std::make_shared<std::vector<int64_t>>(size_t(n));
  for (int64_t i = 0; i < n; ++i) (*p)[size_t(i)] = i % rows;
  return p;
}

RegisterProfile reg_add(50, [](ProfileResult& r, bool quick) -> std::function<void()> {
  const int64_t rows = 1024, n = quick ? 4096 : 16384;
  const int32_t dim = 768;
  auto t = std::make_shared<VF>(size_t(rows) * dim, 0.01f), x = std::make_shared<VF>(size_t(n) * dim, 0.f);
  auto p = positions(n, rows);
  r = {"learned", "learned_add_f32", strf("GPT-2 wpe 1024x768, n=%lld", (long long)n), double(n), "tokens",
       4.0 * 3 * n * dim + 8.0 * n, 0, "bytes = table rows read + x read + x written + positions", 0};
  return [=] { posenc::check(posenc_learned_add_f32(t->data(), rows, dim, p->data(), n, x->data())); };
});

RegisterProfile reg_grad(51, [](ProfileResult& r, bool quick) -> std::function<void()> {
  const int64_t rows = 1024, n = quick ? 4096 : 16384;
  const int32_t dim = 768;
  auto g = std::make_shared<VF>(size_t(n) * dim, 1e-3f), t = std::make_shared<VF>(size_t(rows) * dim, 0.f);
  auto p = positions(n, rows);
  r = {"learned", "learned_grad_f32", strf("GPT-2 wpe 1024x768, n=%lld", (long long)n), double(n), "tokens",
       4.0 * n * dim + 4.0 * 2 * rows * dim + 8.0 * n, 0, "bytes = grad_x read + grad_table read/written + positions", 0};
  return [=] { posenc::check(posenc_learned_grad_f32(g->data(), p->data(), n, dim, t->data(), rows)); };
});

RegisterProfile reg_spec(52, [](ProfileResult& r, bool quick) -> std::function<void()> {
  const int64_t rows = quick ? 512 : 1024;
  const int32_t dim = 768;
  auto t = std::make_shared<VF>(size_t(rows) * dim);
  for (size_t i = 0; i < t->size(); ++i) (*t)[i] = float((i * 2654435761u) % 1000) * 1e-3f;
  auto s = std::make_shared<std::vector<double>>(size_t(std::min<int64_t>(rows, dim)));
  const double mn = double(std::min<int64_t>(rows, dim)), mx = double(std::max<int64_t>(rows, dim));
  r = {"learned", "learned_spectrum_f32", strf("%lldx%d", (long long)rows, dim), 1, "tables", 0,
       4.0 * mx * mn * mn - 4.0 / 3.0 * mn * mn * mn, "flops = 4 m n^2 - 4/3 n^3 (bidiagonalization, values only), f64", 0};
  return [=] {
    double er;
    posenc::check(posenc_learned_spectrum_f32(t->data(), rows, dim, s->data(), &er));
  };
});

RegisterProfile reg_resample(53, [](ProfileResult& r, bool) -> std::function<void()> {
  const int32_t dim = 768;
  auto t = std::make_shared<VF>(size_t(1 + 14 * 14) * dim, 0.5f), o = std::make_shared<VF>(size_t(1 + 24 * 24) * dim);
  r = {"learned", "learned_resample_f32", "ViT 1+14x14 -> 1+24x24, dim 768, bicubic-aa", double(1 + 24 * 24), "rows",
       4.0 * dim * (1 + 14 * 14 + 1 + 24 * 24), 0, "bytes = table read + output written", 0};
  return [=] { posenc::check(posenc_learned_resample_f32(t->data(), 1, 14, 14, dim, 24, 24, POSENC_RESAMPLE_BICUBIC_AA, o->data())); };
});

}  // namespace
}  // namespace posenc_cli
