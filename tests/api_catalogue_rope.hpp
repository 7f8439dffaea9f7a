// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/api_catalogue_rope.hpp — the API catalogue's calls of the rope family: RoPE and the sinusoidal table: 1-D, M-RoPE, strided and plan calls, the decay curve.
// Part of tests/api_catalogue.hpp (see there).
#pragma once

#include "tests/api_catalogue_common.hpp"

namespace posenc_test {

/// Appends one small, valid call of each rope function (several variants per function).
inline void add_rope_calls(std::vector<ApiCall>& calls) {
  using namespace api_detail;
  const Adder add{calls};
  {
    auto b = fresh();
    const int64_t n = 37;
    const int32_t dim = 24;
    int64_t* pos = b->iv({});
    for (int64_t t = 0; t < n; ++t) b->i.back().push_back(3 * t + 1);
    pos = b->i.back().data();
    float* out = b->of(static_cast<size_t>(n * dim));
    add("posenc_sinusoidal_f32", "rope", b, {region(out, n * dim)},
        [=] { return posenc_sinusoidal_f32(pos, n, dim, 1e4, POSENC_SINUSOIDAL_HALVES, out); });
  }
  // Parameter sets: DEFAULT and YARN (more preparation), 1-D; M-RoPE with three axes.
  auto params = [](Bufs& b, posenc_rope_type type) {
    b.params.emplace_back();
    posenc_rope_params* p = &b.params.back();
    posenc_rope_params_init(p, type, 16, 1e4);
    if (type == POSENC_ROPE_YARN) {
      p->factor = 4;
      p->original_max_position = 2048;
    }
    return p;
  };
  for (posenc_rope_type type : {POSENC_ROPE_DEFAULT, POSENC_ROPE_YARN}) {
    {
      auto b = fresh();
      const posenc_rope_params* p = params(*b, type);
      double* inv = b->od(8);
      double* af = b->od(1);
      add("posenc_rope_inv_freq", "rope", b, {region(inv, 8), region(af, 1)},
          [=] { return posenc_rope_inv_freq(p, inv, af); });
    }
    {
      auto b = fresh();
      const posenc_rope_params* p = params(*b, type);
      int64_t* pos = b->iv({0, 5, 9, 100, 2047, 4000, 7, 8, 9, 10, 11});
      float* c = b->of(11 * 8);
      float* s = b->of(11 * 8);
      add("posenc_rope_cos_sin_f32", "rope", b, {region(c, 88), region(s, 88)},
          [=] { return posenc_rope_cos_sin_f32(p, pos, 11, c, s); });
    }
    for (posenc_rope_layout layout : {POSENC_ROPE_NEOX, POSENC_ROPE_INTERLEAVED}) {
      auto b = fresh();
      const posenc_rope_params* p = params(*b, type);
      const int64_t T = 13, D = 20, hq = 3, hk = 2;
      int64_t* pos = b->iv({});
      for (int64_t t = 0; t < T; ++t) b->i.back().push_back(t * 7);
      pos = b->i.back().data();
      float* q = b->rf(static_cast<size_t>(T * hq * D), -1, 1);
      float* k = b->rf(static_cast<size_t>(T * hk * D), -1, 1);
      add("posenc_rope_apply_f32", "rope", b, {region(q, T * hq * D), region(k, T * hk * D)},
          [=] { return posenc_rope_apply_f32(p, layout, pos, T, D, q, hq, 0, k, hk, 0, 0); });
    }
  }
  {
    auto b = fresh();
    const int64_t rows = 16, T = 9, D = 16, hq = 2;
    const int32_t rd = 12;
    const float* ct = b->rf(static_cast<size_t>(rows * rd / 2), -1, 1);
    const float* st = b->rf(static_cast<size_t>(rows * rd / 2), -1, 1);
    int64_t* pos = b->iv({0, 3, 15, 2, 2, 7, 1, 0, 9});
    float* q = b->rf(static_cast<size_t>(T * hq * D), -1, 1);
    add("posenc_rope_apply_cached_f32", "rope", b, {region(q, T * hq * D)}, [=] {
      return posenc_rope_apply_cached_f32(ct, st, rows, rd, POSENC_ROPE_INTERLEAVED, pos, T, D, q, hq, 0, nullptr, 0,
                                          0, 1);
    });
  }
  for (int half = 0; half < 2; ++half) {
    auto b = fresh();
    const posenc_rope_params* p = params(*b, POSENC_ROPE_YARN);
    const int64_t T = 11, D = 16;
    int64_t* pos = b->iv({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 4095});
    uint16_t* q = half ? b->f16(static_cast<size_t>(T * 2 * D)) : b->bf16(static_cast<size_t>(T * 2 * D));
    uint16_t* k = half ? b->f16(static_cast<size_t>(T * D)) : b->bf16(static_cast<size_t>(T * D));
    if (half)
      add("posenc_rope_apply_f16", "rope", b, {region(q, T * 2 * D), region(k, T * D)},
          [=] { return posenc_rope_apply_f16(p, POSENC_ROPE_NEOX, pos, T, D, q, 2, 0, k, 1, 0, 0); });
    else
      add("posenc_rope_apply_bf16", "rope", b, {region(q, T * 2 * D), region(k, T * D)},
          [=] { return posenc_rope_apply_bf16(p, POSENC_ROPE_NEOX, pos, T, D, q, 2, 0, k, 1, 0, 0); });
  }
  // Strided / plan functions: [B=2, S=5, H, D=16] float32 and bf16; M-RoPE positions [3, S].
  for (int mrope = 0; mrope < 2; ++mrope) {
    for (posenc_rope_dtype dt : {POSENC_ROPE_F32, POSENC_ROPE_BF16}) {
      for (int kind = 0; kind < 3; ++kind) {  // strided, plan_apply, plan_rerotate
        if (mrope && kind == 2) continue;       // rerotate takes 1-D positions only
        auto b = fresh();
        posenc_rope_params* p = params(*b, POSENC_ROPE_DEFAULT);
        if (mrope) {
          p->axes = POSENC_ROPE_AXES_MROPE;
          p->sections[0] = 2;
          p->sections[1] = 3;
          p->sections[2] = 3;
        }
        const int64_t B = 2, S = 5, D = 16, hq = 2, hk = 1;
        const int32_t naxes = mrope ? 3 : 1;
        int64_t* pos = b->iv({});
        for (int64_t t = 0; t < naxes * B * S; ++t) b->i.back().push_back((t * 5) % 17);
        pos = b->i.back().data();
        void* qd;
        void* kd;
        size_t qb, kb;
        if (dt == POSENC_ROPE_F32) {
          qd = b->rf(static_cast<size_t>(B * S * hq * D), -1, 1);
          kd = b->rf(static_cast<size_t>(B * S * hk * D), -1, 1);
          qb = static_cast<size_t>(B * S * hq * D) * 4;
          kb = static_cast<size_t>(B * S * hk * D) * 4;
        } else {
          qd = b->bf16(static_cast<size_t>(B * S * hq * D));
          kd = b->bf16(static_cast<size_t>(B * S * hk * D));
          qb = static_cast<size_t>(B * S * hq * D) * 2;
          kb = static_cast<size_t>(B * S * hk * D) * 2;
        }
        b->ops.push_back({qd, hq, 0, 0, 0});
        const posenc_rope_operand* qo = &b->ops.back();
        b->ops.push_back({kd, hk, 0, 0, 0});
        const posenc_rope_operand* ko = &b->ops.back();
        std::vector<ApiRegion> outs{{qd, qb}, {kd, kb}};
        if (kind == 0) {
          add("posenc_rope_apply_strided", "rope", b, outs,
              [=] { return posenc_rope_apply_strided(p, dt, POSENC_ROPE_NEOX, pos, naxes, B, S, D, qo, ko, 0); });
          continue;
        }
        posenc_rope_plan* plan = nullptr;
        posenc_rope_plan_create(p, &plan);
        b->other.emplace_back(plan, [](void* x) { posenc_rope_plan_destroy(static_cast<posenc_rope_plan*>(x)); });
        if (kind == 1) {
          add("posenc_rope_plan_apply", "rope", b, outs, [=] {
            return posenc_rope_plan_apply(plan, dt, POSENC_ROPE_INTERLEAVED, pos, naxes, B, S, D, qo, ko, 1);
          });
          // out of place into separate outputs ([B, H, S, D] strides), q and k read only
          void* qd2 = b->rf(qb / 4 + 1, -1, 1);  // qb / kb bytes, as floats (enough for either dtype)
          void* kd2 = b->rf(kb / 4 + 1, -1, 1);
          b->ops.push_back({qd2, hq, S * D, D, hq * S * D});
          const posenc_rope_operand* qo2 = &b->ops.back();
          b->ops.push_back({kd2, hk, S * D, D, hk * S * D});
          const posenc_rope_operand* ko2 = &b->ops.back();
          add("posenc_rope_plan_apply_out", "rope", b, {{qd2, qb}, {kd2, kb}, {qd, qb}, {kd, kb}}, [=] {
            return posenc_rope_plan_apply_out(plan, dt, POSENC_ROPE_NEOX, pos, naxes, B, S, D, qo, ko, qo2, ko2, 0);
          });
        } else {
          posenc_rope_params* p2 = params(*b, POSENC_ROPE_YARN);
          posenc_rope_plan* to = nullptr;
          posenc_rope_plan_create(p2, &to);
          b->other.emplace_back(to, [](void* x) { posenc_rope_plan_destroy(static_cast<posenc_rope_plan*>(x)); });
          add("posenc_rope_plan_rerotate", "rope", b, outs, [=] {
            return posenc_rope_plan_rerotate(plan, to, dt, POSENC_ROPE_NEOX, pos, 1, B, S, D, qo, ko);
          });
        }
      }
    }
  }
  {
    auto b = fresh();
    const posenc_rope_params* p = params(*b, POSENC_ROPE_YARN);
    posenc_rope_plan* plan = nullptr;
    posenc_rope_plan_create(p, &plan);
    b->other.emplace_back(plan, [](void* x) { posenc_rope_plan_destroy(static_cast<posenc_rope_plan*>(x)); });
    double* inv = b->od(8);
    double* af = b->od(1);
    add("posenc_rope_plan_inv_freq", "rope", b, {region(inv, 8), region(af, 1)},
        [=] { return posenc_rope_plan_inv_freq(plan, inv, af); });
  }
  {
    // posenc_rope_plan_create: the output is the plan pointer; a successful call's plan is
    // destroyed at once and the pointer replaced by a fixed value, so that runs compare equal.
    auto b = fresh();
    const posenc_rope_params* p = params(*b, POSENC_ROPE_YARN);
    b->i.emplace_back(1, INT64_C(0x5a5a5a5a5a5a5a5a));
    int64_t* slot = b->i.back().data();
    add("posenc_rope_plan_create", "rope", b, {region(slot, 1)}, [=] {
      posenc_rope_plan* plan;
      std::memcpy(&plan, slot, sizeof plan);
      const posenc_status s = posenc_rope_plan_create(p, &plan);
      if (s == POSENC_OK) {
        posenc_rope_plan_destroy(plan);
        *slot = 1;
      } else {
        std::memcpy(slot, &plan, sizeof plan);
      }
      return s;
    });
  }
  {
    auto b = fresh();
    const double* inv = b->rd(8, 1e-3, 1.0);
    double* f = b->od(25);
    double* bound = b->od(25);
    add("posenc_rope_decay_f64", "rope", b, {region(f, 25), region(bound, 25)},
        [=] { return posenc_rope_decay_f64(inv, 8, 3, 7, 25, f, bound); });
  }

}

}  // namespace posenc_test
