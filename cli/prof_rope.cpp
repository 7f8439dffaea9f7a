// SPDX-License-Identifier: Apache-2.0 OR MIT
// requires: posenc_rope_params_init posenc_rope_cos_sin_f32 posenc_rope_apply_f32 posenc_rope_decay_f64
// posenc profile: the rope family (cos/sin table, fused Q/K rotation, decay curve).
#include <memory>
#include <vector>

#include "cli/report.hpp"
#include "posenc/posenc.hpp"

namespace posenc_cli {
namespace {

RegisterProfile reg_cs(11, [](ProfileResult& r, bool quick) -> std::function<void()> {
  const int64_t n = quick ? 8192 : 32768;
  auto p = std::make_shared<posenc_rope_params>();
  posenc::check(posenc_rope_params_init(p.get(), POSENC_ROPE_DEFAULT, 128, 5e5));
  auto c = std::make_shared<std::vector<float>>(size_t(n) * 64), s = std::make_shared<std::vector<float>>(size_t(n) * 64);
  r = {"rope", "rope_cos_sin_f32", strf("n=%lld d=128", (long long)n), double(n) * 64 * 2, "values",
       8.0 * n * 64, 0, "bytes = cos + sin float32 written", 0};
  return [=] { posenc::check(posenc_rope_cos_sin_f32(p.get(), nullptr, n, c->data(), s->data())); };
});

RegisterProfile reg_apply(12, [](ProfileResult& r, bool quick) -> std::function<void()> {
  // Llama-3.1-8B shapes: 32 query heads, 8 KV heads, head_dim 128.
  const int64_t tokens = quick ? 1024 : 4096;
  auto p = std::make_shared<posenc_rope_params>();
  posenc::check(posenc_rope_params_init(p.get(), POSENC_ROPE_DEFAULT, 128, 5e5));
  auto q = std::make_shared<std::vector<float>>(size_t(tokens) * 32 * 128, 0.5f);
  auto k = std::make_shared<std::vector<float>>(size_t(tokens) * 8 * 128, 0.25f);
  auto pos = std::make_shared<std::vector<int64_t>>(size_t(tokens));
  for (int64_t i = 0; i < tokens; ++i) (*pos)[size_t(i)] = i;
  r = {"rope", "rope_apply_f32", strf("tokens=%lld 32q+8k heads x128", (long long)tokens), double(tokens), "tokens",
       2.0 * 4.0 * tokens * 40 * 128 + 8.0 * tokens, 6.0 * tokens * 40 * 64,
       "bytes = q,k read + written + positions; flops = 6 per rotated pair (4 mul, 2 add)", 0};
  r.fp32 = true;
  return [=] {
    posenc::check(posenc_rope_apply_f32(p.get(), POSENC_ROPE_NEOX, pos->data(), tokens, 128, q->data(), 32, 0,
                                        k->data(), 8, 0, 0));
  };
});

RegisterProfile reg_decay(13, [](ProfileResult& r, bool quick) -> std::function<void()> {
  const int64_t count = quick ? 20000 : 200000;
  auto inv = std::make_shared<std::vector<double>>(4096);
  posenc_rope_params p;
  posenc::check(posenc_rope_params_init(&p, POSENC_ROPE_DEFAULT, 8192, 1e4));
  posenc::check(posenc_rope_inv_freq(&p, inv->data(), nullptr));
  auto f = std::make_shared<std::vector<double>>(size_t(count));
  r = {"rope", "rope_decay_f64", strf("N=4096 n<%lld", (long long)count), double(count) * 4096, "terms",
       0, 8.0 * count * 4096, "flops = 8 per term (complex rotation 6 + accumulate 2), f64", 0};
  return [=] { posenc::check(posenc_rope_decay_f64(inv->data(), 4096, 0, 1, count, f->data(), nullptr)); };
});

}  // namespace
}  // namespace posenc_cli
