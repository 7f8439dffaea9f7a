// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/features_internal.hpp — helpers shared by the features family's lib/ files
// (features.cpp: sampling and feature maps; features_attention.cpp: linear and softmax attention
// and the decoding step; features_attention_backward.cpp: the attention backward passes).
// lib/ only (baseline flags); the definitions live in features.cpp and features_attention.cpp.
#pragma once

#include "kernels/features_table.hpp"
#include "lib/internal.hpp"

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

namespace posenc {
namespace detail {

inline int64_t round_up(int64_t v, int64_t q) { return (v + q - 1) / q * q; }

/// kind (a posenc_rf_kind) and shift (a posenc_rf_shift) as integers: INVALID_ARGUMENT naming the
/// argument when either is not a value of its enum.
posenc_status check_kind_shift(int kv, int hv);

/// True for the kinds whose output has 2m columns per row (TRIG, HYPERBOLIC).
bool rf_kind_wide(int kv);

/// True for the exponential kinds (POSITIVE, HYPERBOLIC, GAUSSIAN_POSITIVE), the ones a shift applies to.
bool rf_kind_exp(int kv);

/// The per-feature factor before the weights: 1/sqrt(m) (1/sqrt(2m) for HYPERBOLIC) for the
/// kernel estimators, 1 for ELU_PLUS_ONE and RELU.
double rf_base_scale(int kv, int32_t m);

/// The validated feature map (shared by the forward and the backward's recomputation): out [n, F]
/// with per-feature scale[j] (weights included or not), packed Omega^T wt [d, m_pad].
void features_run(const features_kernels_t* k, int kind, int shift, const float* x, int64_t n, int32_t d,
                  const float* wt, int32_t m, int64_t m_pad, const float* scale, float* out);

/// Omega^T packed [d, m_pad] (zero columns past m).
std::vector<float> pack_omega_t(const float* omega, int32_t m, int32_t d, int64_t m_pad);

/// An uninitialized float buffer (new float[count], no value-initialization): scratch that the
/// caller writes before reading. Zero-filling megabytes of fresh pages costs more than the
/// products in the attention passes.
struct fbuf {
  std::unique_ptr<float[]> p;
  explicit fbuf(int64_t count) : p(new float[static_cast<size_t>(count > 0 ? count : 1)]) {}
  float* data() { return p.get(); }
  float& operator[](int64_t i) { return p[static_cast<size_t>(i)]; }
};

/// bfloat16 (the upper 16 bits of an IEEE float32) -> float32, exact.
inline void bf16_widen(const uint16_t* in, int64_t count, float* out) {
  for (int64_t i = 0; i < count; ++i) {
    const uint32_t u = static_cast<uint32_t>(in[i]) << 16;
    std::memcpy(out + i, &u, 4);
  }
}

/// float32 -> bfloat16, round to nearest, ties to even; a NaN stays a quiet NaN.
inline void bf16_narrow(const float* in, int64_t count, uint16_t* out) {
  for (int64_t i = 0; i < count; ++i) {
    uint32_t u;
    std::memcpy(&u, in + i, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) {
      out[i] = static_cast<uint16_t>((u | 0x00400000u) >> 16);
    } else {
      u += 0x7fffu + ((u >> 16) & 1u);
      out[i] = static_cast<uint16_t>(u >> 16);
    }
  }
}

/// The rule of an attention call's scalar parameter.
enum class attention_param { eps, scale };

/// Arguments of an attention call (forward or backward) as its checks see them.
struct attention_args {
  int64_t n;
  int32_t da;            // feature / head dimension of a and b
  int32_t dv;
  const char* da_name;   // "F" or "d"
  float param;           // eps or scale
  attention_param rule;  // eps: finite and >= 0; scale: finite
  const float* a;
  const float* b;
  const float* v;
  const char* a_name;
  const char* b_name;
  float* out;  // the forward's out, the backward's grad_v
  // backward calls only (backward == true)
  bool backward;
  const float* grad_out;
  float* grad_a;
  float* grad_b;
  const char* grad_a_name;
  const char* grad_b_name;
};

/// The argument checks shared by the attention functions, in this order (the message names the
/// first failing argument): n >= 0, da > 0, dv > 0, the scalar's rule; for a backward call
/// grad_out, grad_a, grad_b and out (= grad_v) not NULL while n > 0; then the size products
/// (a [n, da], v [n, dv], the attention scratch) and a, b, v, out not NULL while n > 0.
posenc_status check_attention(const attention_args& c);

/// The flags argument of the linear attention functions (posenc_linear_flags): only
/// POSENC_LINEAR_CAUSAL and POSENC_LINEAR_UNNORMALIZED bits, else INVALID_ARGUMENT naming it.
posenc_status check_linear_flags(int32_t flags);

/// The validated linear attention of one head (contiguous rows): the body of
/// posenc_linear_attention_f32, shared with the multi-head entry point so both give the same bits.
void linear_attention_run(const features_kernels_t* k, const float* phi_q, const float* phi_k, const float* v, int64_t n,
                          int32_t F, int32_t dv, bool causal, bool unnorm, float eps, float* out);

/// The validated backward of one head (contiguous rows): the body of posenc_linear_attention_backward_f32.
void linear_attention_backward_run(const features_kernels_t* k, const float* phi_q, const float* phi_k, const float* v,
                                   int64_t n, int32_t F, int32_t dv, bool causal, bool unnorm, float eps,
                                   const float* grad_out, float* grad_phi_q, float* grad_phi_k, float* grad_v);

/// b [cols, rows] = a^T for a [rows, cols] (leading dimension lda).
void transpose_to(const float* a, int64_t rows, int64_t cols, int64_t lda, float* b);

}  // namespace detail
}  // namespace posenc
