// SPDX-License-Identifier: Apache-2.0 OR MIT
// requires: posenc_rf_sample_f32 posenc_rf_features_f32 posenc_linear_attention_f32 posenc_softmax_attention_f32
// posenc profile: the features family (feature maps, linear and softmax attention).
#include <memory>
#include <vector>

#include "cli/profile.hpp"
#include "posenc/posenc.hpp"

namespace posenc_cli {
namespace {

using VF = std::vector<float>;
std::shared_ptr<VF> filled(size_t n, float v) { return std::make_shared<VF>(n, v); }

RegisterProfile reg_trig(40, "features", "rf_features_f32", [](bool quick) {
  const int64_t n = quick ? 2048 : 8192;
  const int32_t d = 64, m = 256;
  auto om = filled(size_t(m) * d, 0.f);
  posenc::check(posenc_rf_sample_f32(POSENC_RF_ORTHOGONAL, d, m, 1.0, 1, om->data()));
  auto x = filled(size_t(n) * d, 0.1f), out = filled(size_t(n) * 2 * m, 0.f);
  return ProfileCase{strf("TRIG n=%lld d=%d m=%d", (long long)n, d, m), double(n), "vectors", [=] {
                       posenc::check(posenc_rf_features_f32(POSENC_RF_TRIG, POSENC_RF_SHIFT_OVERFLOW, om->data(), m, d, nullptr, x->data(), n, out->data()));
                     }};
});

RegisterProfile reg_lin(41, "features", "linear_attention_f32", [](bool quick) {
  const int64_t n = quick ? 2048 : 8192;
  const int32_t F = 256, dv = 64;
  auto pq = filled(size_t(n) * F, 0.01f), pk = filled(size_t(n) * F, 0.02f), v = filled(size_t(n) * dv, 1.f),
       out = filled(size_t(n) * dv, 0.f);
  return ProfileCase{strf("n=%lld F=%d dv=%d", (long long)n, F, dv), double(n), "tokens", [=] {
                       posenc::check(posenc_linear_attention_f32(pq->data(), pk->data(), v->data(), n, F, dv, 0, 1e-6f, out->data()));
                     }};
});

RegisterProfile reg_soft(42, "features", "softmax_attention_f32", [](bool quick) {
  const int64_t n = quick ? 1024 : 2048;
  const int32_t d = 64, dv = 64;
  auto q = filled(size_t(n) * d, 0.01f), k = filled(size_t(n) * d, 0.02f), v = filled(size_t(n) * dv, 1.f),
       out = filled(size_t(n) * dv, 0.f);
  return ProfileCase{strf("n=%lld d=dv=%d", (long long)n, d), double(n), "tokens", [=] {
                       posenc::check(posenc_softmax_attention_f32(q->data(), k->data(), v->data(), n, d, dv, 0, 0.125f, out->data()));
                     }};
});

}  // namespace
}  // namespace posenc_cli
