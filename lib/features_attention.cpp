// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/features_attention.cpp — features family, attention: kernelized linear attention (global
// and causal chunked), exact streaming softmax attention and the recurrent decoding step:
// argument validation, tiling, and calls into the per-ISA kernel table (kernels/features.hpp).
#include "kernels/features_table.hpp"
#include "lib/features_internal.hpp"
#include "lib/internal.hpp"

#include <cmath>
#include <limits>
#include <vector>

POSENC_USE_KERNELS(features_kernels_t, features_kernels)

using namespace posenc;
using namespace posenc::detail;

namespace posenc {
namespace detail {
posenc_status check_attention(const attention_args& c) {
  POSENC_CHECK(check_nonneg(c.n, "n"));
  POSENC_CHECK(check_positive(c.da, c.da_name));
  POSENC_CHECK(check_positive(c.dv, "dv"));
  if (c.rule == attention_param::eps) {
    if (!(std::isfinite(c.param) && c.param >= 0.0f))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "eps must be finite and >= 0 (got %g)", static_cast<double>(c.param));
  } else if (!std::isfinite(c.param)) {
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "scale must be finite (got %g)", static_cast<double>(c.param));
  }
  if (c.backward) {
    POSENC_CHECK(check_not_null_if(c.grad_out, c.n, "grad_out"));
    POSENC_CHECK(check_not_null_if(c.grad_a, c.n, c.grad_a_name));
    POSENC_CHECK(check_not_null_if(c.grad_b, c.n, c.grad_b_name));
    POSENC_CHECK(check_not_null_if(c.out, c.n, "grad_v"));
  }
  int64_t t = 0;
  POSENC_CHECK(checked_mul(c.n, c.da, &t, c.a_name, sizeof(float)));
  POSENC_CHECK(checked_mul(c.n, c.dv, &t, "v", sizeof(float)));
  POSENC_CHECK(checked_mul(c.n, std::max<int64_t>(c.da, c.dv) + 256, &t, "attention scratch", sizeof(float)));
  POSENC_CHECK(check_not_null_if(c.a, c.n, c.a_name));
  POSENC_CHECK(check_not_null_if(c.b, c.n, c.b_name));
  POSENC_CHECK(check_not_null_if(c.v, c.n, "v"));
  POSENC_CHECK(check_not_null_if(c.out, c.n, "out"));
  return POSENC_OK;
}

posenc_status check_linear_flags(int32_t flags) {
  if (flags & ~int32_t(POSENC_LINEAR_CAUSAL | POSENC_LINEAR_UNNORMALIZED))
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "causal (flags) must be 0 or a combination of POSENC_LINEAR_CAUSAL (1) and "
                     "POSENC_LINEAR_UNNORMALIZED (2) (got %d)", flags);
  return POSENC_OK;
}

void transpose_to(const float* a, int64_t rows, int64_t cols, int64_t lda, float* b) {
  constexpr int64_t T = 32;  // 32 x 32 blocks: the strided side stays in L1
  for (int64_t i0 = 0; i0 < rows; i0 += T)
    for (int64_t c0 = 0; c0 < cols; c0 += T) {
      const int64_t i1 = std::min(rows, i0 + T), c1 = std::min(cols, c0 + T);
      for (int64_t c = c0; c < c1; ++c)
        for (int64_t i = i0; i < i1; ++i) b[c * rows + i] = a[i * lda + c];
    }
}
}  // namespace detail
}  // namespace posenc

namespace posenc {
namespace detail {
void linear_attention_run(const features_kernels_t* k, const float* phi_q, const float* phi_k, const float* v, int64_t n, int32_t F,
                          int32_t dv, bool causal, bool unnorm, float eps, float* out) {
  const int64_t state = static_cast<int64_t>(F) * dv + F;  // S [F, dv] then z [F]
  if (!causal) {
    const int64_t grain = 512;
    const int64_t nt = tiles_of(n, grain);
    fbuf part(nt * state);
    parallel_tiles(nt, [&](int64_t t) {
      const int64_t r0 = t * grain, len = std::min(n, r0 + grain) - r0;
      float* st = part.data() + t * state;
      k->matmul(phi_k + r0 * F, 1, F, v + r0 * dv, dv, F, dv, len, st, dv, 0);
      std::fill(st + static_cast<int64_t>(F) * dv, st + state, 0.0f);
      k->colsum_acc(phi_k + r0 * F, len, F, st + static_cast<int64_t>(F) * dv);
    });
    std::vector<float> s(static_cast<size_t>(state), 0.0f);
    for (int64_t t = 0; t < nt; ++t)  // fixed (tile) order: independent of the thread count
      for (int64_t e = 0; e < state; ++e) s[static_cast<size_t>(e)] += part[t * state + e];
    const int64_t og = 256;
    parallel_tiles(tiles_of(n, og), [&](int64_t t) {
      const int64_t r0 = t * og, len = std::min(n, r0 + og) - r0;
      k->linear_rows(phi_q + r0 * F, len, F, s.data(), dv, unnorm ? nullptr : s.data() + static_cast<int64_t>(F) * dv,
                     dv, nullptr, nullptr, eps, out + r0 * dv);
    });
    return;
  }
  const int64_t C = 128;
  const int64_t nc = tiles_of(n, C);
  fbuf st(nc * state);
  parallel_tiles(nc, [&](int64_t c) {
    const int64_t r0 = c * C, len = std::min(n, r0 + C) - r0;
    float* s = st.data() + c * state;
    k->matmul(phi_k + r0 * F, 1, F, v + r0 * dv, dv, F, dv, len, s, dv, 0);
    std::fill(s + static_cast<int64_t>(F) * dv, s + state, 0.0f);
    k->colsum_acc(phi_k + r0 * F, len, F, s + static_cast<int64_t>(F) * dv);
  });
  // exclusive prefix sums over chunks, parallel over state elements (order along chunks fixed)
  const int64_t eg = 2048;
  parallel_tiles(tiles_of(state, eg), [&](int64_t t) {
    const int64_t e0 = t * eg, e1 = std::min(state, e0 + eg);
    std::vector<float> run(static_cast<size_t>(e1 - e0), 0.0f);
    for (int64_t c = 0; c < nc; ++c) {
      float* s = st.data() + c * state;
      for (int64_t e = e0; e < e1; ++e) {
        const float tmp = s[e];
        s[e] = run[static_cast<size_t>(e - e0)];
        run[static_cast<size_t>(e - e0)] += tmp;
      }
    }
  });
  const int64_t l32 = round_up(C, 32);
  parallel_tiles(nc, [&](int64_t c) {
    const int64_t r0 = c * C, len = std::min(n, r0 + C) - r0;
    fbuf scratch(F * l32 + C * l32 + C * dv + C);
    float* num = scratch.data() + F * l32 + C * l32;
    float* den = num + C * dv;
    k->causal_chunk(phi_q + r0 * F, phi_k + r0 * F, v + r0 * dv, len, F, dv, scratch.data(), num, den);
    const float* s = st.data() + c * state;
    k->linear_rows(phi_q + r0 * F, len, F, s, dv, unnorm ? nullptr : s + static_cast<int64_t>(F) * dv, dv, num,
                   unnorm ? nullptr : den, eps, out + r0 * dv);
  });
}
}  // namespace detail
}  // namespace posenc

extern "C" POSENC_API posenc_status posenc_linear_attention_f32(const float* phi_q, const float* phi_k,
                                                               const float* v, int64_t n, int32_t F, int32_t dv,
                                                               int32_t flags, float eps, float* out) {
  api_guard g("posenc_linear_attention_f32");
  POSENC_CHECK(check_attention({n, F, dv, "F", eps, attention_param::eps, phi_q, phi_k, v, "phi_q", "phi_k", out,
                                false, nullptr, nullptr, nullptr, nullptr, nullptr}));
  POSENC_CHECK(check_linear_flags(flags));
  if (n == 0) return POSENC_OK;
  const features_kernels_t* k = nullptr;
  POSENC_CHECK(features_kernels_active(&k));
  const bool causal = (flags & POSENC_LINEAR_CAUSAL) != 0, unnorm = (flags & POSENC_LINEAR_UNNORMALIZED) != 0;
  // State (2 n F dv + n F) and read-out (2 n F dv + 2 n F); causal adds the 128-row chunks'
  // quadratic part (2 n 128 (F + dv)).
  static const char* const kPaths[] = {"linear_attention.global", "linear_attention.causal_chunked",
                                       "linear_attention.global_unnormalized",
                                       "linear_attention.causal_chunked_unnormalized"};
  path(kPaths[(causal ? 1 : 0) + (unnorm ? 2 : 0)]);
  work(4.0 * double(n) * 2.0 * (F + dv),
       4.0 * double(n) * F * dv + 3.0 * double(n) * F + (causal ? 2.0 * double(n) * 128 * (F + dv) : 0.0), true);
  POSENC_SHAPE("n=%lld F=%d dv=%d", (long long)n, F, dv);
  return guarded([&] {
    linear_attention_run(k, phi_q, phi_k, v, n, F, dv, causal, unnorm, eps, out);
    return POSENC_OK;
  });
}

extern "C" POSENC_API posenc_status posenc_linear_attention_bf16(const uint16_t* phi_q, const uint16_t* phi_k,
                                                                const uint16_t* v, int64_t n, int32_t F, int32_t dv,
                                                                int32_t flags, float eps, uint16_t* out) {
  api_guard g("posenc_linear_attention_bf16");
  auto f = [](const uint16_t* p) { return reinterpret_cast<const float*>(p); };  // only compared with NULL
  POSENC_CHECK(check_attention({n, F, dv, "F", eps, attention_param::eps, f(phi_q), f(phi_k), f(v), "phi_q", "phi_k",
                                reinterpret_cast<float*>(out), false, nullptr, nullptr, nullptr, nullptr, nullptr}));
  POSENC_CHECK(check_linear_flags(flags));
  if (n == 0) return POSENC_OK;
  const features_kernels_t* k = nullptr;
  POSENC_CHECK(features_kernels_active(&k));
  const bool causal = (flags & POSENC_LINEAR_CAUSAL) != 0, unnorm = (flags & POSENC_LINEAR_UNNORMALIZED) != 0;
  path(causal ? "linear_attention_bf16.causal_chunked" : "linear_attention_bf16.global");
  work(2.0 * double(n) * 2.0 * (F + dv),
       4.0 * double(n) * F * dv + 3.0 * double(n) * F + (causal ? 2.0 * double(n) * 128 * (F + dv) : 0.0), true);
  POSENC_SHAPE("n=%lld F=%d dv=%d", (long long)n, F, dv);
  return guarded([&] {
    const int64_t nf = n * F, nv = n * int64_t(dv);
    std::vector<float> q(static_cast<size_t>(nf)), kk(static_cast<size_t>(nf)), vv(static_cast<size_t>(nv)),
        o(static_cast<size_t>(nv));
    const int64_t grain = 1024;
    parallel_tiles(tiles_of(n, grain), [&](int64_t t) {
      const int64_t r0 = t * grain, len = std::min(n, r0 + grain) - r0;
      bf16_widen(phi_q + r0 * F, len * F, q.data() + r0 * F);
      bf16_widen(phi_k + r0 * F, len * F, kk.data() + r0 * F);
      bf16_widen(v + r0 * dv, len * dv, vv.data() + r0 * dv);
    });
    linear_attention_run(k, q.data(), kk.data(), vv.data(), n, F, dv, causal, unnorm, eps, o.data());
    parallel_tiles(tiles_of(n, grain), [&](int64_t t) {
      const int64_t r0 = t * grain, len = std::min(n, r0 + grain) - r0;
      bf16_narrow(o.data() + r0 * dv, len * dv, out + r0 * dv);
    });
    return POSENC_OK;
  });
}

extern "C" POSENC_API posenc_status posenc_softmax_attention_f32(const float* q, const float* kk, const float* v,
                                                                int64_t n, int32_t d, int32_t dv, int32_t causal,
                                                                float scale, float* out) {
  api_guard g("posenc_softmax_attention_f32");
  POSENC_CHECK(check_attention({n, d, dv, "d", scale, attention_param::scale, q, kk, v, "q", "k", out, false, nullptr,
                                nullptr, nullptr, nullptr, nullptr}));
  if (n == 0) return POSENC_OK;
  const features_kernels_t* k = nullptr;
  POSENC_CHECK(features_kernels_active(&k));
  // 2 (d + dv) flops per (query, key) pair scored; exp not counted. Causal: pairs j <= i.
  path(causal ? "softmax_attention.causal" : "softmax_attention.full");
  work(4.0 * double(n) * 2.0 * (d + dv),
       2.0 * double(d + dv) * (causal ? double(n) * double(n + 1) / 2.0 : double(n) * double(n)), true);
  POSENC_SHAPE("n=%lld d=%d dv=%d", (long long)n, d, dv);
  return guarded([&] {
    const int64_t n_pad = round_up(n, kFeaturesColPad);
    std::vector<float> kt(static_cast<size_t>(d * n_pad), 0.0f);  // K^T [d, n_pad]
    const int64_t tg = 1024;
    parallel_tiles(tiles_of(n, tg), [&](int64_t t) {
      const int64_t j0 = t * tg, j1 = std::min(n, j0 + tg);
      for (int32_t c = 0; c < d; ++c)
        for (int64_t j = j0; j < j1; ++j) kt[static_cast<size_t>(c * n_pad + j)] = kk[j * d + c];
    });
    const int64_t QB = 64;
    parallel_tiles(tiles_of(n, QB), [&](int64_t t) {
      const int64_t q0 = t * QB, q1 = std::min(n, q0 + QB);
      std::vector<float> scratch(static_cast<size_t>(QB * 256 + QB * dv + 2 * QB));
      k->softmax_rows(q, kt.data(), n_pad, v, n, d, dv, q0, q1, causal != 0 ? 1 : 0, scale, scratch.data(), out);
    });
    return POSENC_OK;
  });
}

extern "C" POSENC_API posenc_status posenc_linear_attention_step_f32(const float* phi_q, const float* phi_k,
                                                                    const float* v, int32_t F, int32_t dv, float eps,
                                                                    float* state_s, float* state_z, float* out) {
  api_guard g("posenc_linear_attention_step_f32");
  POSENC_CHECK(check_positive(F, "F"));
  POSENC_CHECK(check_positive(dv, "dv"));
  if (!(std::isfinite(eps) && eps >= 0.0f))
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "eps must be finite and >= 0 (got %g)", static_cast<double>(eps));
  int64_t fd = 0;
  POSENC_CHECK(checked_mul(F, dv, &fd, "state_s [F, dv]", sizeof(float)));
  POSENC_CHECK(check_not_null(phi_q, "phi_q"));
  POSENC_CHECK(check_not_null(phi_k, "phi_k"));
  POSENC_CHECK(check_not_null(v, "v"));
  POSENC_CHECK(check_not_null(state_s, "state_s"));
  POSENC_CHECK(check_not_null(out, "out"));  // state_z NULL: the unnormalized form
  path(state_z ? "linear_attention_step.state" : "linear_attention_step.unnormalized");
  work(4.0 * double(2 * fd + 3 * F + 2 * dv), 4.0 * double(fd) + 3.0 * F, true);
  POSENC_SHAPE("F=%d dv=%d", F, dv);
  return guarded([&] {
    std::vector<double> num(static_cast<size_t>(dv), 0.0);
    double den = 0.0;
    for (int32_t f = 0; f < F; ++f) {
      const float kf = phi_k[f];
      float* row = state_s + static_cast<int64_t>(f) * dv;
      for (int32_t c = 0; c < dv; ++c) row[c] += kf * v[c];
      const double qf = phi_q[f];
      if (state_z) {
        state_z[f] += kf;
        den += qf * state_z[f];
      }
      for (int32_t c = 0; c < dv; ++c) num[size_t(c)] += qf * row[c];
    }
    if (!state_z) {
      for (int32_t c = 0; c < dv; ++c) out[c] = static_cast<float>(num[size_t(c)]);
      return POSENC_OK;
    }
    den += eps;
    for (int32_t c = 0; c < dv; ++c) out[c] = den == 0.0 ? 0.0f : static_cast<float>(num[size_t(c)] / den);
    return POSENC_OK;
  });
}

