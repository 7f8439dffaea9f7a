// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/api_catalogue.hpp — one small, valid call of every computing function of posenc.h, with the
// buffers it may write. Shared by the fault-injection test (tests/test_oom.cpp: every allocation of
// each call failed in turn) and the concurrency test (tests/test_concurrency.cpp: the calls run
// from many threads at once). Each ApiCall owns its buffers: make_api_calls() gives a fresh set.
//
// `outs` are the byte regions the call may write (outputs, and the in-place operands of the RoPE
// apply functions, learned_add and linear_attention_step); `reset()` restores them to the
// contents they had when the set was made (poison for outputs, the input for in-place operands),
// so that every run of a call starts from the same state.
#pragma once

#include "posenc/posenc.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace posenc_test {

struct ApiRegion {
  void* data;
  size_t bytes;
};

struct ApiCall {
  std::string name;    // the posenc_* function
  std::string family;  // rope, sphere, features, graph, learned
  std::function<posenc_status()> call;
  std::vector<ApiRegion> outs;
  std::vector<std::vector<unsigned char>> init;  // contents of outs before the first call
  std::shared_ptr<void> state;                   // owns the buffers

  void reset() const {
    for (size_t i = 0; i < outs.size(); ++i)
      if (outs[i].bytes) std::memcpy(outs[i].data, init[i].data(), outs[i].bytes);
  }
  std::vector<std::vector<unsigned char>> snapshot() const {
    std::vector<std::vector<unsigned char>> s;
    for (const auto& r : outs) {
      const auto* p = static_cast<const unsigned char*>(r.data);
      s.emplace_back(p, p + r.bytes);
    }
    return s;
  }
  /// True when every region holds its initial contents.
  bool untouched() const { return snapshot() == init; }
};

namespace api_detail {

/// Buffers of one call; deques keep element addresses stable.
struct Bufs {
  std::deque<std::vector<double>> d;
  std::deque<std::vector<float>> f;
  std::deque<std::vector<int64_t>> i;
  std::deque<std::vector<uint16_t>> h;
  std::deque<std::vector<int32_t>> i32;
  std::deque<posenc_rope_params> params;
  std::deque<posenc_rope_operand> ops;
  std::deque<std::shared_ptr<void>> other;
  uint64_t rng = 0x9e3779b97f4a7c15ull;

  double uniform(double lo, double hi) {  // deterministic splitmix64
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return lo + (hi - lo) * static_cast<double>(z >> 11) * 0x1.0p-53;
  }
  double* rd(size_t n, double lo, double hi) {
    d.emplace_back(n);
    for (auto& x : d.back()) x = uniform(lo, hi);
    return d.back().data();
  }
  float* rf(size_t n, double lo, double hi) {
    f.emplace_back(n);
    for (auto& x : f.back()) x = static_cast<float>(uniform(lo, hi));
    return f.back().data();
  }
  /// Output buffers, filled with the test poison patterns.
  double* od(size_t n) {
    uint64_t u = 0x7ff4badbadbadbadull;
    double p;
    std::memcpy(&p, &u, 8);
    d.emplace_back(n, p);
    return d.back().data();
  }
  float* of(size_t n) {
    uint32_t u = 0x7fbadbadu;
    float p;
    std::memcpy(&p, &u, 4);
    f.emplace_back(n, p);
    return f.back().data();
  }
  int64_t* iv(std::vector<int64_t> v) {
    i.push_back(std::move(v));
    return i.back().data();
  }
  int64_t* oi(size_t n) {  // int64 output, poisoned
    i.emplace_back(n, INT64_C(0x5a5a5a5a5a5a5a5a));
    return i.back().data();
  }
  int32_t* oi32(size_t n) {  // int32 output, poisoned
    i32.emplace_back(n, INT32_C(0x5a5a5a5a));
    return i32.back().data();
  }
  uint16_t* bf16(size_t n) {  // bfloat16 patterns of values in [-1, 1]
    h.emplace_back(n);
    for (auto& x : h.back()) {
      float v = static_cast<float>(uniform(-1, 1));
      uint32_t u;
      std::memcpy(&u, &v, 4);
      x = static_cast<uint16_t>(u >> 16);
    }
    return h.back().data();
  }
  uint16_t* f16(size_t n) {  // binary16 patterns of values in (-1, 1): sign, exponent 14, random mantissa
    h.emplace_back(n);
    for (auto& x : h.back())
      x = static_cast<uint16_t>((uniform(0, 1) < 0.5 ? 0x8000u : 0u) | (14u << 10) |
                                (static_cast<uint32_t>(uniform(0, 1024)) & 0x3ffu));
    return h.back().data();
  }
};

template <class T> ApiRegion region(T* p, size_t n) { return {p, n * sizeof(T)}; }

}  // namespace api_detail

/// A fresh set of calls (every computing function of posenc.h except the runtime, profiling and
/// trace functions, which the tests exercise separately).
inline std::vector<ApiCall> make_api_calls() {
  using namespace api_detail;
  std::vector<ApiCall> calls;
  auto add = [&calls](const char* name, const char* family, std::shared_ptr<Bufs> b, std::vector<ApiRegion> outs,
                      std::function<posenc_status()> fn) {
    ApiCall c;
    c.name = name;
    c.family = family;
    c.call = std::move(fn);
    c.outs = std::move(outs);
    c.state = b;
    c.init = c.snapshot();
    calls.push_back(std::move(c));
  };
  auto fresh = [] { return std::make_shared<Bufs>(); };

  // ------------------------------------------------------------------ rope
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

  // ------------------------------------------------------------------ sphere
  const int32_t L = 6;
  const size_t K = static_cast<size_t>((L + 1) * (L + 1));
  {
    auto b = fresh();
    const int64_t n = 29;
    const double* x = b->rd(n, -1, 1);
    const size_t pl = static_cast<size_t>((L + 1) * (L + 2) / 2);
    double* out = b->od(n * pl);
    add("posenc_legendre_f64", "sphere", b, {region(out, n * pl)},
        [=] { return posenc_legendre_f64(POSENC_LEGENDRE_SPHARM, L, 1, x, n, out); });
    auto b2 = fresh();
    const float* xf = b2->rf(n, -1, 1);
    float* outf = b2->of(n * pl);
    add("posenc_legendre_f32", "sphere", b2, {region(outf, n * pl)},
        [=] { return posenc_legendre_f32(POSENC_LEGENDRE_SCHMIDT, L, -1, xf, n, outf); });
    auto b3 = fresh();
    const double* x3 = b3->rd(n, -1, 1);
    double* out3 = b3->od(n * (L + 1));
    add("posenc_legendre_poly_f64", "sphere", b3, {region(out3, n * (L + 1))},
        [=] { return posenc_legendre_poly_f64(L, x3, n, out3); });
    auto b4 = fresh();
    const double* w = b4->rd(L + 1, 0, 2);
    const double* cg = b4->rd(n, -1, 1);
    double* out4 = b4->od(n);
    add("posenc_sph_kernel_f64", "sphere", b4, {region(out4, n)},
        [=] { return posenc_sph_kernel_f64(L, w, cg, n, out4); });
  }
  for (uint32_t flags : {0u, POSENC_SPH_SOLID}) {
    const int64_t n = 23;
    {
      auto b = fresh();
      const double* xyz = b->rd(n * 3, -2, 2);
      double* out = b->od(n * K);
      if (flags == 0)
        add("posenc_sph_harm_real_f64", "sphere", b, {region(out, n * K)},
            [=] { return posenc_sph_harm_real_f64(L, xyz, n, out); });
      else
        add("posenc_sph_harm_real_ex_f64", "sphere", b, {region(out, n * K)},
            [=] { return posenc_sph_harm_real_ex_f64(L, xyz, n, flags, out); });
    }
    {
      auto b = fresh();
      const float* xyz = b->rf(n * 3, -2, 2);
      float* out = b->of(n * K);
      if (flags == 0)
        add("posenc_sph_harm_real_f32", "sphere", b, {region(out, n * K)},
            [=] { return posenc_sph_harm_real_f32(L, xyz, n, out); });
      else
        add("posenc_sph_harm_real_ex_f32", "sphere", b, {region(out, n * K)},
            [=] { return posenc_sph_harm_real_ex_f32(L, xyz, n, flags, out); });
    }
    {
      auto b = fresh();
      const double* xyz = b->rd(n * 3, -2, 2);
      double* v = b->od(n * K);
      double* g = b->od(n * 3 * K);
      double* h = b->od(n * 9 * K);
      add("posenc_sph_harm_real_grad_f64", "sphere", b, {region(v, n * K), region(g, n * 3 * K), region(h, n * 9 * K)},
          [=] { return posenc_sph_harm_real_grad_f64(L, xyz, n, flags, v, g, h); });
    }
    {
      auto b = fresh();
      const float* xyz = b->rf(n * 3, -2, 2);
      float* v = b->of(n * K);
      float* g = b->of(n * 3 * K);
      float* h = b->of(n * 9 * K);
      add("posenc_sph_harm_real_grad_f32", "sphere", b, {region(v, n * K), region(g, n * 3 * K), region(h, n * 9 * K)},
          [=] { return posenc_sph_harm_real_grad_f32(L, xyz, n, flags, flags ? v : nullptr, g, h); });
    }
  }
  {
    auto b = fresh();
    const int64_t n = 19;
    double* ll = b->rd(n * 2, -90, 90);
    double* out = b->od(n * K);
    add("posenc_sph_harm_real_lonlat_f64", "sphere", b, {region(out, n * K)},
        [=] { return posenc_sph_harm_real_lonlat_f64(L, ll, n, out); });
    auto b2 = fresh();
    const double* th = b2->rd(n, 0, 3.1);
    const double* ph = b2->rd(n, -7, 7);
    double* out2 = b2->od(n * K * 2);
    add("posenc_sph_harm_complex_f64", "sphere", b2, {region(out2, n * K * 2)},
        [=] { return posenc_sph_harm_complex_f64(L, th, ph, n, out2); });
  }
  {
    // A rotation about (1, 2, 2)/3 by 0.7 rad (Rodrigues).
    auto b = fresh();
    const double ax[3] = {1.0 / 3, 2.0 / 3, 2.0 / 3}, c = std::cos(0.7), s = std::sin(0.7);
    b->d.emplace_back(9);
    double* R = b->d.back().data();
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) R[3 * i + j] = (i == j ? c : 0.0) + (1 - c) * ax[i] * ax[j];
    R[1] -= s * ax[2];
    R[3] += s * ax[2];
    R[2] += s * ax[1];
    R[6] -= s * ax[1];
    R[5] -= s * ax[0];
    R[7] += s * ax[0];
    const size_t wd = static_cast<size_t>((L + 1) * (2 * L + 1) * (2 * L + 3) / 3);
    double* out = b->od(wd);
    add("posenc_wigner_d_real_f64", "sphere", b, {region(out, wd)},
        [=] { return posenc_wigner_d_real_f64(L, R, out); });
    auto b2 = fresh();
    b2->d.push_back(b->d.front());
    const double* R2 = b2->d.back().data();
    const int64_t n = 7;
    const double* coeffs = b2->rd(n * K, -1, 1);
    double* out2 = b2->od(n * K);
    add("posenc_sph_rotate_real_f64", "sphere", b2, {region(out2, n * K)},
        [=] { return posenc_sph_rotate_real_f64(L, R2, coeffs, n, out2); });
  }

  // ------------------------------------------------------------------ features
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

  // ------------------------------------------------------------------ graph
  {
    // A 4 x 5 grid plus a triangle and an isolated node (27 nodes), weighted.
    auto graph = [](Bufs& b, int64_t*& src, int64_t*& dst, double*& w, int64_t& n, int64_t& m) {
      std::vector<int64_t> s, d;
      for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 5; ++c) {
          if (c + 1 < 5) { s.push_back(r * 5 + c); d.push_back(r * 5 + c + 1); }
          if (r + 1 < 4) { s.push_back(r * 5 + c); d.push_back((r + 1) * 5 + c); }
        }
      for (int i = 0; i < 3; ++i) { s.push_back(20 + i); d.push_back(20 + (i + 1) % 3); }
      n = 27;
      m = static_cast<int64_t>(s.size());
      src = b.iv(s);
      dst = b.iv(d);
      w = b.rd(static_cast<size_t>(m), 0.5, 2);
    };
    {
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      double* val = b->od(4);
      double* vec = b->od(static_cast<size_t>(n * 4));
      add("posenc_laplacian_pe_f64", "graph", b, {region(val, 4), region(vec, n * 4)},
          [=] { return posenc_laplacian_pe_f64(n, src, dst, w, m, POSENC_LAPLACIAN_SYM, 4, val, vec); });
    }
    {
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      b->other.push_back(std::make_shared<posenc_laplacian_pe_info>());
      auto* info = static_cast<posenc_laplacian_pe_info*>(b->other.back().get());
      double* val = b->od(3);
      double* vec = b->od(static_cast<size_t>(n * 3));
      add("posenc_laplacian_pe_ex_f64", "graph", b, {region(val, 3), region(vec, n * 3)}, [=] {
        posenc_laplacian_pe_info_init(info);
        info->solver = POSENC_LAPPE_LANCZOS;
        return posenc_laplacian_pe_ex_f64(n, src, dst, nullptr, m, POSENC_LAPLACIAN_COMBINATORIAL, 3, val, vec, info);
      });
    }
    {
      // PyG flags: the drop and the NaN padding go through scratch copied at the end.
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      b->other.push_back(std::make_shared<posenc_laplacian_pe_info>());
      auto* info = static_cast<posenc_laplacian_pe_info*>(b->other.back().get());
      double* val = b->od(30);
      double* vec = b->od(static_cast<size_t>(n * 30));
      add("posenc_laplacian_pe_ex_f64", "graph", b, {region(val, 30), region(vec, n * 30)}, [=] {
        posenc_laplacian_pe_info_init(info);
        info->flags = POSENC_GRAPH_BOTH_DIRECTIONS | POSENC_LAPPE_DROP_TRIVIAL | POSENC_LAPPE_NAN_PAD;
        return posenc_laplacian_pe_ex_f64(n, src, dst, w, m, POSENC_LAPLACIAN_COMBINATORIAL, 30, val, vec, info);
      });
    }
    {
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      double* out = b->od(static_cast<size_t>(n * 6));
      add("posenc_rwse_f64", "graph", b, {region(out, n * 6)},
          [=] { return posenc_rwse_f64(n, src, dst, w, m, 6, out); });
    }
    {
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      double* out = b->od(static_cast<size_t>(n * 5));
      add("posenc_rwse_ex_f64", "graph", b, {region(out, n * 5)}, [=] {
        return posenc_rwse_ex_f64(n, src, dst, w, m, 5, POSENC_GRAPH_KEEP_SELF_LOOPS | POSENC_GRAPH_BOTH_DIRECTIONS,
                                  out);
      });
    }
    {
      // Monte-Carlo (forced, weighted rows: the binary-search path) and AUTO (exact here).
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      b->other.push_back(std::make_shared<posenc_rwse_info>());
      auto* info = static_cast<posenc_rwse_info*>(b->other.back().get());
      double* out = b->od(static_cast<size_t>(n * 6));
      add("posenc_rwse_auto_f64", "graph", b, {region(out, n * 6)}, [=] {
        posenc_rwse_info_init(info);
        info->method = POSENC_RWSE_MONTE_CARLO;
        info->walks = 16;
        info->seed = 5;
        info->flags = POSENC_GRAPH_KEEP_SELF_LOOPS;
        return posenc_rwse_auto_f64(n, src, dst, w, m, 6, out, info);
      });
    }
    {
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      double* out = b->od(static_cast<size_t>(n * 4));
      add("posenc_rwse_auto_f64", "graph", b, {region(out, n * 4)},
          [=] { return posenc_rwse_auto_f64(n, src, dst, w, m, 4, out, nullptr); });
    }
    {
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      double* val = b->od(3);
      double* re = b->od(static_cast<size_t>(n * 3));
      double* im = b->od(static_cast<size_t>(n * 3));
      add("posenc_maglap_pe_f64", "graph", b, {region(val, 3), region(re, n * 3), region(im, n * 3)},
          [=] { return posenc_maglap_pe_f64(n, src, dst, w, m, POSENC_LAPLACIAN_SYM, 0.2, 3, val, re, im); });
    }
    {
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      const double* x = b->rd(static_cast<size_t>(n * 2), -1, 1);
      double* y = b->od(static_cast<size_t>(n * 2));
      double* eb = b->od(1);
      add("posenc_heat_kernel_apply_f64", "graph", b, {region(y, n * 2), region(eb, 1)},
          [=] { return posenc_heat_kernel_apply_f64(n, src, dst, w, m, POSENC_LAPLACIAN_SYM, 1.5, x, 2, y, eb); });
    }
    {
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      const double* times = b->rd(3, 0.1, 2);
      double* out = b->od(static_cast<size_t>(n * 3));
      double* eb = b->od(1);
      add("posenc_heat_kernel_diag_f64", "graph", b, {region(out, n * 3), region(eb, 1)},
          [=] { return posenc_heat_kernel_diag_f64(n, src, dst, w, m, POSENC_LAPLACIAN_SYM, times, 3, out, eb); });
    }
    {
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      const int64_t* sources = b->iv({0, 7, 21, 26});
      double* out = b->od(static_cast<size_t>(4 * n));
      double* eb = b->od(1);
      add("posenc_heat_kernel_rows_f64", "graph", b, {region(out, 4 * n), region(eb, 1)}, [=] {
        return posenc_heat_kernel_rows_f64(n, src, dst, w, m, POSENC_LAPLACIAN_COMBINATORIAL, 0.7, sources, 4, out, eb);
      });
    }
    {
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      const int64_t* pairs = b->iv({0, 19, 3, 3, 20, 22, 5, 26, 11, 12});
      double* out = b->od(5);
      double* eb = b->od(1);
      add("posenc_diffusion_distance_f64", "graph", b, {region(out, 5), region(eb, 1)},
          [=] { return posenc_diffusion_distance_f64(n, src, dst, w, m, POSENC_LAPLACIAN_SYM, 1.2, pairs, 5, out, eb); });
    }
    {
      auto b = fresh();
      const int64_t n = 9;
      const int32_t k = 4;
      b->d.push_back({0.0, 0.3, 0.7, 1.2});
      const double* val = b->d.back().data();
      const double* vec = b->rd(static_cast<size_t>(n * k), -0.5, 0.5);
      const int64_t* pairs = b->iv({0, 8, 3, 3, 2, 5});
      double* out = b->od(3);
      double* tb = b->od(1);
      add("posenc_diffusion_distance_eig_f64", "graph", b, {region(out, 3), region(tb, 1)},
          [=] { return posenc_diffusion_distance_eig_f64(n, k, val, vec, 0.9, pairs, 3, out, tb); });
    }
    for (int weighted = 0; weighted < 2; ++weighted) {
      // The size is queried once here; the call then writes max_pairs = that many rows.
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      const int32_t steps = 4;
      int64_t np = 0;
      posenc_rrwp_f64(n, src, dst, weighted ? w : nullptr, m, steps, 0, &np, nullptr, nullptr);
      int64_t* cnt = b->oi(1);
      int64_t* pairs = b->oi(static_cast<size_t>(2 * np));
      double* values = b->od(static_cast<size_t>(np * steps));
      add("posenc_rrwp_f64", "graph", b, {region(cnt, 1), region(pairs, 2 * np), region(values, np * steps)}, [=] {
        return posenc_rrwp_f64(n, src, dst, weighted ? w : nullptr, m, steps, np, cnt, pairs, values);
      });
    }
    {
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      const int32_t hops = 3;
      int64_t np = 0;
      posenc_shortest_path_i32(n, src, dst, m, hops, 0, &np, nullptr, nullptr);
      int64_t* cnt = b->oi(1);
      int64_t* pairs = b->oi(static_cast<size_t>(2 * np));
      int32_t* dist = b->oi32(static_cast<size_t>(np));
      add("posenc_shortest_path_i32", "graph", b, {region(cnt, 1), region(pairs, 2 * np), region(dist, np)},
          [=] { return posenc_shortest_path_i32(n, src, dst, m, hops, np, cnt, pairs, dist); });
    }
    for (int32_t k : {0, 3}) {
      // Three graphs in PyG's Batch layout (global node ids): the grid and triangle above as
      // two graphs (the triangle's ids shifted), and a 4-node path.
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      const int64_t G = 3, N = n + 4;
      std::vector<int64_t> s2(src, src + m), d2(dst, dst + m);
      for (int i = 0; i < 3; ++i) { s2.push_back(n + i); d2.push_back(n + i + 1); }
      const int64_t* node_ptr = b->iv({0, 20, n, N});
      const int64_t* edge_ptr = b->iv({0, m - 3, m, m + 3});
      const int64_t* bs = b->iv(s2);
      const int64_t* bd = b->iv(d2);
      const double* bw = b->rd(static_cast<size_t>(m + 3), 0.5, 2);
      const int32_t steps = k ? 0 : 5;
      double* val = b->od(static_cast<size_t>(G * 3));
      double* vec = b->od(static_cast<size_t>(N * 3));
      double* rw = b->od(static_cast<size_t>(N * 5));
      int32_t* st = b->oi32(static_cast<size_t>(G));
      add("posenc_graph_batch_pe_f64", "graph", b,
          {region(val, G * 3), region(vec, N * 3), region(rw, N * 5), region(st, G)}, [=] {
            return posenc_graph_batch_pe_f64(G, node_ptr, edge_ptr, bs, bd, bw, POSENC_LAPLACIAN_SYM, k, steps,
                                             k ? val : nullptr, k ? vec : nullptr, steps ? rw : nullptr, st);
          });
    }
    {  // the batched API with flags: both directions listed, self-loops kept for RWSE, the trivial
       // pair dropped, NaN padding (the 4-node path has fewer pairs than k + 1)
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      const int64_t G = 3, N = n + 4;
      std::vector<int64_t> s2(src, src + m), d2(dst, dst + m);
      for (int i = 0; i < 3; ++i) { s2.push_back(n + i); d2.push_back(n + i + 1); }
      s2.push_back(n + 1); d2.push_back(n + 1);  // a self-loop
      const int64_t* node_ptr = b->iv({0, 20, n, N});
      const int64_t* edge_ptr = b->iv({0, m - 3, m, m + 4});
      const int64_t* bs = b->iv(s2);
      const int64_t* bd = b->iv(d2);
      const double* bw = b->rd(static_cast<size_t>(m + 4), 0.5, 2);
      const int32_t k = 4, steps = 5;
      double* val = b->od(static_cast<size_t>(G * k));
      double* vec = b->od(static_cast<size_t>(N * k));
      double* rw = b->od(static_cast<size_t>(N * steps));
      int32_t* st = b->oi32(static_cast<size_t>(G));
      add("posenc_graph_batch_pe_ex_f64", "graph", b,
          {region(val, G * k), region(vec, N * k), region(rw, N * steps), region(st, G)}, [=] {
            return posenc_graph_batch_pe_ex_f64(G, node_ptr, edge_ptr, bs, bd, bw, POSENC_LAPLACIAN_SYM, k, steps,
                                                POSENC_GRAPH_BOTH_DIRECTIONS | POSENC_GRAPH_KEEP_SELF_LOOPS |
                                                    POSENC_LAPPE_DROP_TRIVIAL | POSENC_LAPPE_NAN_PAD,
                                                val, vec, rw, st);
          });
    }
    {  // the batched API with RWSE chosen per graph, Monte-Carlo forced (and its method array)
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      const int64_t G = 2;
      const int64_t* node_ptr = b->iv({0, 20, n});
      const int64_t* edge_ptr = b->iv({0, m - 3, m});
      b->other.push_back(std::make_shared<posenc_rwse_info>());
      auto* info = static_cast<posenc_rwse_info*>(b->other.back().get());
      const int32_t k = 3, steps = 5;
      double* val = b->od(static_cast<size_t>(G * k));
      double* vec = b->od(static_cast<size_t>(n * k));
      double* rw = b->od(static_cast<size_t>(n * steps));
      int32_t* st = b->oi32(static_cast<size_t>(G));
      int32_t* used = b->oi32(static_cast<size_t>(G));
      add("posenc_graph_batch_pe_auto_f64", "graph", b,
          {region(val, G * k), region(vec, n * k), region(rw, n * steps), region(st, G), region(used, G)}, [=] {
            posenc_rwse_info_init(info);
            info->method = POSENC_RWSE_MONTE_CARLO;
            info->walks = 16;
            info->seed = 3;
            return posenc_graph_batch_pe_auto_f64(G, node_ptr, edge_ptr, src, dst, w, POSENC_LAPLACIAN_SYM, k, steps,
                                                  POSENC_GRAPH_KEEP_SELF_LOOPS, info, val, vec, rw, st, used);
          });
    }
  }

  // ------------------------------------------------------------------ learned
  {
    const int64_t rows = 12, n = 15;
    const int32_t dim = 10;
    {
      auto b = fresh();
      const float* table = b->rf(static_cast<size_t>(rows * dim), -1, 1);
      int64_t* pos = b->iv({0, 11, 3, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 0, 11});
      float* x = b->rf(static_cast<size_t>(n * dim), -1, 1);
      add("posenc_learned_add_f32", "learned", b, {region(x, n * dim)},
          [=] { return posenc_learned_add_f32(table, rows, dim, pos, n, x); });
    }
    {
      auto b = fresh();
      const float* gx = b->rf(static_cast<size_t>(n * dim), -1, 1);
      int64_t* pos = b->iv({0, 11, 3, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 0, 11});
      float* gt = b->of(static_cast<size_t>(rows * dim));
      add("posenc_learned_grad_f32", "learned", b, {region(gt, rows * dim)},
          [=] { return posenc_learned_grad_f32(gx, pos, n, dim, gt, rows); });
    }
    {
      auto b = fresh();
      const float* table = b->rf(static_cast<size_t>(rows * dim), -1, 1);
      double* sv = b->od(static_cast<size_t>(dim));
      double* er = b->od(1);
      add("posenc_learned_spectrum_f32", "learned", b, {region(sv, dim), region(er, 1)},
          [=] { return posenc_learned_spectrum_f32(table, rows, dim, sv, er); });
    }
    {
      auto b = fresh();
      const float* table = b->rf(static_cast<size_t>(rows * dim), -1, 1);
      float* left = b->of(static_cast<size_t>(rows * 3));
      float* right = b->of(static_cast<size_t>(3 * dim));
      add("posenc_learned_lowrank_f32", "learned", b, {region(left, rows * 3), region(right, 3 * dim)},
          [=] { return posenc_learned_lowrank_f32(table, rows, dim, 3, left, right); });
    }
    for (posenc_resample mode : {POSENC_RESAMPLE_BICUBIC_AA, POSENC_RESAMPLE_BICUBIC, POSENC_RESAMPLE_LINEAR}) {
      const int32_t prefix = 1, d = 6;
      const int64_t oh = 4, ow = 5, nh = 3, nw = 7;
      {
        auto b = fresh();
        const float* t = b->rf(static_cast<size_t>((prefix + oh * ow) * d), -1, 1);
        float* out = b->of(static_cast<size_t>((prefix + nh * nw) * d));
        add("posenc_learned_resample_f32", "learned", b, {region(out, (prefix + nh * nw) * d)},
            [=] { return posenc_learned_resample_f32(t, prefix, oh, ow, d, nh, nw, mode, out); });
      }
      {
        auto b = fresh();
        const float* g = b->rf(static_cast<size_t>((prefix + nh * nw) * d), -1, 1);
        float* gt = b->of(static_cast<size_t>((prefix + oh * ow) * d));
        add("posenc_learned_resample_backward_f32", "learned", b, {region(gt, (prefix + oh * ow) * d)},
            [=] { return posenc_learned_resample_backward_f32(g, prefix, oh, ow, d, nh, nw, mode, gt); });
      }
    }
  }
  return calls;
}

}  // namespace posenc_test
