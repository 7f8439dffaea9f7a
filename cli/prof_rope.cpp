// SPDX-License-Identifier: Apache-2.0 OR MIT
// requires: posenc_rope_params_init posenc_rope_cos_sin_f32 posenc_rope_apply_f32 posenc_rope_decay_f64
// posenc profile: the rope family (cos/sin table, fused Q/K rotation, decay curve).
#include <memory>
#include <vector>

#include "cli/profile.hpp"
#include "posenc/posenc.hpp"

namespace posenc_cli {
namespace {

RegisterProfile reg_cs(11, "rope", "rope_cos_sin_f32", [](bool quick) {
  const int64_t n = quick ? 8192 : 32768;
  auto p = std::make_shared<posenc_rope_params>();
  posenc::check(posenc_rope_params_init(p.get(), POSENC_ROPE_DEFAULT, 128, 5e5));
  auto c = std::make_shared<std::vector<float>>(size_t(n) * 64), s = std::make_shared<std::vector<float>>(size_t(n) * 64);
  return ProfileCase{strf("n=%lld d=128", (long long)n), double(n) * 64 * 2, "values",
                     [=] { posenc::check(posenc_rope_cos_sin_f32(p.get(), nullptr, n, c->data(), s->data())); }};
});

RegisterProfile reg_apply(12, "rope", "rope_apply_f32", [](bool quick) {
  // Llama-3.1-8B shapes: 32 query heads, 8 KV heads, head_dim 128.
  const int64_t tokens = quick ? 1024 : 4096;
  auto p = std::make_shared<posenc_rope_params>();
  posenc::check(posenc_rope_params_init(p.get(), POSENC_ROPE_DEFAULT, 128, 5e5));
  auto q = std::make_shared<std::vector<float>>(size_t(tokens) * 32 * 128, 0.5f);
  auto k = std::make_shared<std::vector<float>>(size_t(tokens) * 8 * 128, 0.25f);
  auto pos = std::make_shared<std::vector<int64_t>>(size_t(tokens));
  for (int64_t i = 0; i < tokens; ++i) (*pos)[size_t(i)] = i;
  return ProfileCase{strf("tokens=%lld 32q+8k heads x128", (long long)tokens), double(tokens), "tokens", [=] {
                       posenc::check(posenc_rope_apply_f32(p.get(), POSENC_ROPE_NEOX, pos->data(), tokens, 128, q->data(),
                                                           32, 0, k->data(), 8, 0, 0));
                     }};
});

RegisterProfile reg_decay(13, "rope", "rope_decay_f64", [](bool quick) {
  const int64_t count = quick ? 20000 : 200000;
  auto inv = std::make_shared<std::vector<double>>(4096);
  posenc_rope_params p;
  posenc::check(posenc_rope_params_init(&p, POSENC_ROPE_DEFAULT, 8192, 1e4));
  posenc::check(posenc_rope_inv_freq(&p, inv->data(), nullptr));
  auto f = std::make_shared<std::vector<double>>(size_t(count));
  return ProfileCase{strf("N=4096 n<%lld (f only)", (long long)count), double(count) * 4096, "terms",
                     [=] { posenc::check(posenc_rope_decay_f64(inv->data(), 4096, 0, 1, count, f->data(), nullptr)); }};
});

}  // namespace
}  // namespace posenc_cli
