// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/api_catalogue_features.hpp — the API catalogue's calls of the features family: random features, linear attention (training, decoding, multi-head).
// Part of tests/api_catalogue.hpp (see there).
#pragma once

#include "tests/api_catalogue_common.hpp"

namespace posenc_test {

/// Appends one small, valid call of each features function (several variants per function).
inline void add_features_calls(std::vector<ApiCall>& calls) {
  using namespace api_detail;
  const Adder add{calls};
  for (posenc_rf_sampling smp : {POSENC_RF_IID, POSENC_RF_ORTHOGONAL, POSENC_RF_QMC, POSENC_RF_PFF}) {
    auto b = fresh();
    const int32_t d = 5, m = 12;
    float* om = b->of(static_cast<size_t>(m * d));
    add("posenc_rf_sample_f32", "features", b, {region(om, m * d)},
        [=] { return posenc_rf_sample_f32(smp, d, m, 1.5, 42, om); });
  }
  for (posenc_rf_kind kind : {POSENC_RF_TRIG, POSENC_RF_POSITIVE, POSENC_RF_HYPERBOLIC}) {
    const int32_t d = 5, m = 12;
    const int64_t n = 21;
    const int32_t width = kind == POSENC_RF_POSITIVE ? m : 2 * m;
    {
      auto b = fresh();
      const float* om = b->rf(static_cast<size_t>(m * d), -1, 1);
      const float* w = b->rf(m, 0.5, 1.5);
      const float* x = b->rf(static_cast<size_t>(n * d), -1, 1);
      float* out = b->of(static_cast<size_t>(n * width));
      add("posenc_rf_features_f32", "features", b, {region(out, n * width)},
          [=] { return posenc_rf_features_f32(kind, POSENC_RF_SHIFT_ROW_MAX, om, m, d, w, x, n, out); });
    }
    {
      auto b = fresh();
      const float* om = b->rf(static_cast<size_t>(m * d), -1, 1);
      const float* w = b->rf(m, 0.5, 1.5);
      const float* x = b->rf(static_cast<size_t>(n * d), -1, 1);
      const float* go = b->rf(static_cast<size_t>(n * width), -1, 1);
      float* gx = b->of(static_cast<size_t>(n * d));
      float* gw = b->of(m);
      float* gom = b->of(static_cast<size_t>(m * d));
      add("posenc_rf_features_backward_f32", "features", b, {region(gx, n * d), region(gw, m), region(gom, m * d)},
          [=] {
            return posenc_rf_features_backward_f32(kind, POSENC_RF_SHIFT_OVERFLOW, om, m, d, w, x, n, go, gx, gw, gom);
          });
    }
  }
  for (int causal = 0; causal < 2; ++causal) {
    const int64_t n = 17;
    const int32_t F = 6, dv = 5, dq = 4;
    {
      auto b = fresh();
      const float* pq = b->rf(static_cast<size_t>(n * F), 0.1, 1);
      const float* pk = b->rf(static_cast<size_t>(n * F), 0.1, 1);
      const float* v = b->rf(static_cast<size_t>(n * dv), -1, 1);
      float* out = b->of(static_cast<size_t>(n * dv));
      add("posenc_linear_attention_f32", "features", b, {region(out, n * dv)},
          [=] { return posenc_linear_attention_f32(pq, pk, v, n, F, dv, causal, 1e-6f, out); });
    }
    {
      auto b = fresh();
      const float* pq = b->rf(static_cast<size_t>(n * F), 0.1, 1);
      const float* pk = b->rf(static_cast<size_t>(n * F), 0.1, 1);
      const float* v = b->rf(static_cast<size_t>(n * dv), -1, 1);
      const float* go = b->rf(static_cast<size_t>(n * dv), -1, 1);
      float* gq = b->of(static_cast<size_t>(n * F));
      float* gk = b->of(static_cast<size_t>(n * F));
      float* gv = b->of(static_cast<size_t>(n * dv));
      add("posenc_linear_attention_backward_f32", "features", b,
          {region(gq, n * F), region(gk, n * F), region(gv, n * dv)},
          [=] { return posenc_linear_attention_backward_f32(pq, pk, v, n, F, dv, causal, 1e-6f, go, gq, gk, gv); });
    }
    {
      auto b = fresh();
      const float* q = b->rf(static_cast<size_t>(n * dq), -1, 1);
      const float* k = b->rf(static_cast<size_t>(n * dq), -1, 1);
      const float* v = b->rf(static_cast<size_t>(n * dv), -1, 1);
      float* out = b->of(static_cast<size_t>(n * dv));
      add("posenc_softmax_attention_f32", "features", b, {region(out, n * dv)},
          [=] { return posenc_softmax_attention_f32(q, k, v, n, dq, dv, causal, 0.5f, out); });
    }
    {
      auto b = fresh();
      const float* q = b->rf(static_cast<size_t>(n * dq), -1, 1);
      const float* k = b->rf(static_cast<size_t>(n * dq), -1, 1);
      const float* v = b->rf(static_cast<size_t>(n * dv), -1, 1);
      const float* go = b->rf(static_cast<size_t>(n * dv), -1, 1);
      float* gq = b->of(static_cast<size_t>(n * dq));
      float* gk = b->of(static_cast<size_t>(n * dq));
      float* gv = b->of(static_cast<size_t>(n * dv));
      add("posenc_softmax_attention_backward_f32", "features", b,
          {region(gq, n * dq), region(gk, n * dq), region(gv, n * dv)},
          [=] { return posenc_softmax_attention_backward_f32(q, k, v, n, dq, dv, causal, 0.5f, go, gq, gk, gv); });
    }
  }
  // Multi-head (contiguous, and a strided v / out: torch's [B, n, H, d].transpose(1, 2)) and
  // bfloat16 storage.
  for (int strided = 0; strided < 2; ++strided) {
    const int64_t B = 2, H = 2, n = 9;
    const int32_t F = 6, dv = 5, flags = strided;  // strided: causal
    const size_t nf = static_cast<size_t>(B * H * n * F), nv = static_cast<size_t>(B * H * n * dv);
    {
      auto b = fresh();
      const float* pq = b->rf(nf, 0.1, 1);
      const float* pk = b->rf(nf, 0.1, 1);
      const float* v = b->rf(nv, -1, 1);
      float* out = b->of(nv);
      const int64_t* vs = strided ? b->iv({n * H * dv, dv, H * dv}) : nullptr;
      add("posenc_linear_attention_mh_f32", "features", b, {region(out, nv)}, [=] {
        return posenc_linear_attention_mh_f32(B, H, n, F, dv, pq, nullptr, pk, nullptr, v, vs, flags, 1e-6f, out, vs);
      });
    }
    {
      auto b = fresh();
      const float* pq = b->rf(nf, 0.1, 1);
      const float* pk = b->rf(nf, 0.1, 1);
      const float* v = b->rf(nv, -1, 1);
      const float* go = b->rf(nv, -1, 1);
      float* gq = b->of(nf);
      float* gk = b->of(nf);
      float* gv = b->of(nv);
      const int64_t* vs = strided ? b->iv({n * H * dv, dv, H * dv}) : nullptr;
      add("posenc_linear_attention_backward_mh_f32", "features", b, {region(gq, nf), region(gk, nf), region(gv, nv)},
          [=] {
            return posenc_linear_attention_backward_mh_f32(B, H, n, F, dv, pq, nullptr, pk, nullptr, v, vs, flags, 1e-6f,
                                                           go, vs, gq, nullptr, gk, nullptr, gv, vs);
          });
    }
  }
  for (posenc_rf_kind kind : {POSENC_RF_TRIG, POSENC_RF_POSITIVE}) {
    const int32_t d = 5, m = 12;
    const int64_t n = 21;
    const int32_t width = kind == POSENC_RF_POSITIVE ? m : 2 * m;
    auto b = fresh();
    const float* om = b->rf(static_cast<size_t>(m * d), -1, 1);
    const float* w = b->rf(m, 0.5, 1.5);
    const uint16_t* x = b->bf16(static_cast<size_t>(n * d));
    uint16_t* out = b->bf16(static_cast<size_t>(n * width));
    add("posenc_rf_features_bf16", "features", b, {region(out, n * width)},
        [=] { return posenc_rf_features_bf16(kind, POSENC_RF_SHIFT_ROW_MAX, om, m, d, w, x, n, out); });
  }
  for (int causal = 0; causal < 2; ++causal) {
    const int64_t n = 17;
    const int32_t F = 6, dv = 5;
    auto b = fresh();
    const uint16_t* pq = b->bf16(static_cast<size_t>(n * F));
    const uint16_t* pk = b->bf16(static_cast<size_t>(n * F));
    const uint16_t* v = b->bf16(static_cast<size_t>(n * dv));
    uint16_t* out = b->bf16(static_cast<size_t>(n * dv));
    add("posenc_linear_attention_bf16", "features", b, {region(out, n * dv)},
        [=] { return posenc_linear_attention_bf16(pq, pk, v, n, F, dv, causal, 1e-6f, out); });
  }
  {
    auto b = fresh();
    const int32_t F = 6, dv = 5;
    const float* pq = b->rf(F, 0.1, 1);
    const float* pk = b->rf(F, 0.1, 1);
    const float* v = b->rf(dv, -1, 1);
    float* S = b->rf(static_cast<size_t>(F * dv), 0, 1);
    float* z = b->rf(F, 0.5, 1);
    float* out = b->of(dv);
    add("posenc_linear_attention_step_f32", "features", b, {region(S, F * dv), region(z, F), region(out, dv)},
        [=] { return posenc_linear_attention_step_f32(pq, pk, v, F, dv, 1e-6f, S, z, out); });
  }

}

}  // namespace posenc_test
