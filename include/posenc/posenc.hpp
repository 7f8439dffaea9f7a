// SPDX-License-Identifier: Apache-2.0 OR MIT
// posenc.hpp — header-only C++17 layer over the C ABI of posenc.h.
//
// Every wrapper calls the C function and throws posenc::error (carrying the posenc_status and
// the thread-local message) when it fails. Arrays are passed as pointer + sizes exactly as in
// the C ABI (shapes are documented there); the wrappers add no copies and no allocations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "posenc/posenc.h"

namespace posenc {

/// Exception thrown by every wrapper when a posenc call fails.
class error : public std::runtime_error {
 public:
  error(posenc_status s, const std::string& msg) : std::runtime_error(msg), status_(s) {}
  /// The posenc_status the C function returned.
  posenc_status status() const noexcept { return status_; }

 private:
  posenc_status status_;
};

/// Throws posenc::error if s != POSENC_OK.
inline void check(posenc_status s) {
  if (s != POSENC_OK) {
    std::string msg = posenc_last_error_message();
    if (msg.empty()) msg = posenc_status_string(s);
    throw error(s, msg);
  }
}

namespace detail {
/// The largest output an allocating wrapper will try to allocate, in bytes: 2^57 (the largest
/// virtual address space of a 64-bit CPU posenc runs on: x86-64 with 5-level paging; aarch64 has
/// 2^52), or PTRDIFF_MAX where that is smaller. Anything larger cannot exist on any machine.
constexpr uint64_t kMaxOutputBytes =
    static_cast<uint64_t>(PTRDIFF_MAX) < (uint64_t(1) << 57) ? static_cast<uint64_t>(PTRDIFF_MAX) : (uint64_t(1) << 57);

/// Element count of an output of shape dims, checked before anything is allocated: 0 if a
/// dimension is <= 0 (the C function then accepts the empty shape or names the bad argument);
/// throws posenc::error(POSENC_ERR_SIZE_OVERFLOW) if the product, in bytes, exceeds kMaxOutputBytes.
template <class T>
inline size_t out_count(const char* fn, std::initializer_list<int64_t> dims) {
  for (int64_t d : dims)
    if (d <= 0) return 0;
  const uint64_t limit = kMaxOutputBytes / sizeof(T);
  uint64_t count = 1;
  bool over = false;
  for (int64_t d : dims) {
    if (over || count > limit / static_cast<uint64_t>(d)) {
      over = true;
    } else {
      count *= static_cast<uint64_t>(d);
    }
  }
  if (over) {
    std::string shape;
    for (int64_t d : dims) shape += (shape.empty() ? "" : " x ") + std::to_string(d);
    throw error(POSENC_ERR_SIZE_OVERFLOW, std::string("posenc::") + fn + ": an output of [" + shape + "] elements of " +
                                              std::to_string(sizeof(T)) + " bytes exceeds the largest possible allocation (" +
                                              std::to_string(kMaxOutputBytes) + " bytes)");
  }
  return static_cast<size_t>(count);
}
/// std::vector<T>(count); an allocation failure is posenc::error(POSENC_ERR_OUT_OF_MEMORY).
template <class T>
inline std::vector<T> alloc(const char* fn, size_t count) {
  try {
    return std::vector<T>(count);
  } catch (const std::bad_alloc&) {
    throw error(POSENC_ERR_OUT_OF_MEMORY, std::string("posenc::") + fn + ": cannot allocate " +
                                              std::to_string(count) + " elements of " + std::to_string(sizeof(T)) +
                                              " bytes for the output");
  }
}
/// The output buffer of an allocating wrapper: out_count, then alloc.
template <class T>
inline std::vector<T> out_buffer(const char* fn, std::initializer_list<int64_t> dims) {
  return alloc<T>(fn, out_count<T>(fn, dims));
}
}  // namespace detail

// ---------------------------------------------------------------- runtime
inline uint32_t version() noexcept { return posenc_version(); }
inline const char* version_string() noexcept { return posenc_version_string(); }
inline uint32_t isa_available() noexcept { return posenc_isa_available(); }
inline posenc_isa isa_active() noexcept { return posenc_isa_active(); }
inline void isa_set(posenc_isa isa) { check(posenc_isa_set(isa)); }
inline const char* isa_name(posenc_isa isa) noexcept { return posenc_isa_name(isa); }
inline void threads_set(int32_t n) { check(posenc_threads_set(n)); }
inline int32_t threads_get() noexcept { return posenc_threads_get(); }

// @@ROPE-BEGIN@@ ------------------------------------------------ rope (S¹)
/// posenc_sinusoidal_f32: out [n, dim]; positions may be nullptr (= 0..n-1).
inline void sinusoidal(const int64_t* positions, int64_t n, int32_t dim, double base,
                       posenc_sinusoidal_layout layout, float* out) {
  check(posenc_sinusoidal_f32(positions, n, dim, base, layout, out));
}
/// Allocating variant: returns the [n, dim] table for positions 0..n-1.
inline std::vector<float> sinusoidal(int64_t n, int32_t dim, double base = 10000.0,
                                     posenc_sinusoidal_layout layout = POSENC_SINUSOIDAL_INTERLEAVED) {
  std::vector<float> out = detail::out_buffer<float>("sinusoidal", {n, dim});
  sinusoidal(nullptr, n, dim, base, layout, out.data());
  return out;
}

/// posenc_rope_params_init: defaults for every field (see posenc.h), the given type, rotary_dim
/// and theta.
inline posenc_rope_params rope_params(posenc_rope_type type, int32_t rotary_dim, double theta) {
  posenc_rope_params p;
  check(posenc_rope_params_init(&p, type, rotary_dim, theta));
  return p;
}
/// posenc_rope_inv_freq: returns inv_freq [rotary_dim/2] (radians per position); the attention
/// factor goes to *attention_factor when given.
inline std::vector<double> rope_inv_freq(const posenc_rope_params& p, double* attention_factor = nullptr) {
  std::vector<double> inv(static_cast<size_t>(p.rotary_dim > 0 ? p.rotary_dim / 2 : 0));
  check(posenc_rope_inv_freq(&p, inv.data(), attention_factor));
  return inv;
}
/// posenc_rope_cos_sin_f32: cos_out, sin_out [n, rotary_dim/2]; positions may be nullptr (= 0..n-1).
inline void rope_cos_sin(const posenc_rope_params& p, const int64_t* positions, int64_t n, float* cos_out,
                         float* sin_out) {
  check(posenc_rope_cos_sin_f32(&p, positions, n, cos_out, sin_out));
}
/// posenc_rope_apply_f32: in place on q [T, num_q_heads, head_dim] and k [T, num_k_heads, head_dim]
/// (k may be nullptr with num_k_heads 0); strides in elements, 0 = packed.
inline void rope_apply(const posenc_rope_params& p, posenc_rope_layout layout, const int64_t* positions,
                       int64_t num_tokens, int64_t head_dim, float* q, int64_t num_q_heads, float* k,
                       int64_t num_k_heads, bool inverse = false, int64_t q_token_stride = 0,
                       int64_t k_token_stride = 0) {
  check(posenc_rope_apply_f32(&p, layout, positions, num_tokens, head_dim, q, num_q_heads, q_token_stride, k,
                              num_k_heads, k_token_stride, inverse ? 1 : 0));
}
/// posenc_rope_apply_bf16: as rope_apply on bf16 bit patterns.
inline void rope_apply(const posenc_rope_params& p, posenc_rope_layout layout, const int64_t* positions,
                       int64_t num_tokens, int64_t head_dim, uint16_t* q, int64_t num_q_heads, uint16_t* k,
                       int64_t num_k_heads, bool inverse = false, int64_t q_token_stride = 0,
                       int64_t k_token_stride = 0) {
  check(posenc_rope_apply_bf16(&p, layout, positions, num_tokens, head_dim, q, num_q_heads, q_token_stride, k,
                               num_k_heads, k_token_stride, inverse ? 1 : 0));
}
/// posenc_rope_apply_f16: as rope_apply on IEEE binary16 bit patterns (a separate name: bf16 and
/// f16 share the uint16_t storage type).
inline void rope_apply_f16(const posenc_rope_params& p, posenc_rope_layout layout, const int64_t* positions,
                           int64_t num_tokens, int64_t head_dim, uint16_t* q, int64_t num_q_heads, uint16_t* k,
                           int64_t num_k_heads, bool inverse = false, int64_t q_token_stride = 0,
                           int64_t k_token_stride = 0) {
  check(posenc_rope_apply_f16(&p, layout, positions, num_tokens, head_dim, q, num_q_heads, q_token_stride, k,
                              num_k_heads, k_token_stride, inverse ? 1 : 0));
}
/// A posenc_rope_operand (strides in elements, 0 = packed; see posenc.h).
inline posenc_rope_operand rope_operand(void* data, int64_t num_heads, int64_t head_stride = 0,
                                        int64_t token_stride = 0, int64_t batch_stride = 0) {
  return posenc_rope_operand{data, num_heads, head_stride, token_stride, batch_stride};
}
/// posenc_rope_apply_strided: q, k of logical shape [batch, seq, heads, head_dim], any strides
/// and dtype; q or k may be nullptr.
inline void rope_apply_strided(const posenc_rope_params& p, posenc_rope_dtype dtype, posenc_rope_layout layout,
                               const int64_t* positions, int32_t position_axes, int64_t batch, int64_t seq,
                               int64_t head_dim, const posenc_rope_operand* q, const posenc_rope_operand* k,
                               bool inverse = false) {
  check(posenc_rope_apply_strided(&p, dtype, layout, positions, position_axes, batch, seq, head_dim, q, k,
                                  inverse ? 1 : 0));
}
/// Owns a posenc_rope_plan (move-only). The plan is immutable: apply may run concurrently.
class rope_plan {
 public:
  explicit rope_plan(const posenc_rope_params& p) : rotary_dim_(p.rotary_dim) {
    check(posenc_rope_plan_create(&p, &plan_));
  }
  rope_plan(const rope_plan&) = delete;
  rope_plan& operator=(const rope_plan&) = delete;
  rope_plan(rope_plan&& o) noexcept : plan_(o.plan_), rotary_dim_(o.rotary_dim_) { o.plan_ = nullptr; }
  rope_plan& operator=(rope_plan&& o) noexcept {
    if (this != &o) {
      posenc_rope_plan_destroy(plan_);
      plan_ = o.plan_;
      rotary_dim_ = o.rotary_dim_;
      o.plan_ = nullptr;
    }
    return *this;
  }
  ~rope_plan() { posenc_rope_plan_destroy(plan_); }
  /// The C handle.
  const posenc_rope_plan* get() const noexcept { return plan_; }
  /// posenc_rope_plan_apply.
  void apply(posenc_rope_dtype dtype, posenc_rope_layout layout, const int64_t* positions, int32_t position_axes,
             int64_t batch, int64_t seq, int64_t head_dim, const posenc_rope_operand* q,
             const posenc_rope_operand* k, bool inverse = false) const {
    check(posenc_rope_plan_apply(plan_, dtype, layout, positions, position_axes, batch, seq, head_dim, q, k,
                                 inverse ? 1 : 0));
  }
  /// posenc_rope_plan_apply_out: q / k read, their rotations written to q_out / k_out (an output
  /// given exactly when its input is; see posenc.h for the aliasing rule).
  void apply_out(posenc_rope_dtype dtype, posenc_rope_layout layout, const int64_t* positions,
                 int32_t position_axes, int64_t batch, int64_t seq, int64_t head_dim, const posenc_rope_operand* q,
                 const posenc_rope_operand* k, const posenc_rope_operand* q_out, const posenc_rope_operand* k_out,
                 bool inverse = false) const {
    check(posenc_rope_plan_apply_out(plan_, dtype, layout, positions, position_axes, batch, seq, head_dim, q, k,
                                     q_out, k_out, inverse ? 1 : 0));
  }
  /// posenc_rope_plan_rerotate: Q/K rotated with `from` become rotated with this plan.
  void rerotate_from(const rope_plan& from, posenc_rope_dtype dtype, posenc_rope_layout layout,
                     const int64_t* positions, int32_t position_axes, int64_t batch, int64_t seq, int64_t head_dim,
                     const posenc_rope_operand* q, const posenc_rope_operand* k) const {
    check(posenc_rope_plan_rerotate(from.plan_, plan_, dtype, layout, positions, position_axes, batch, seq, head_dim,
                                    q, k));
  }
  /// posenc_rope_plan_inv_freq: inv_freq [rotary_dim/2]; the attention factor to *af when given.
  std::vector<double> inv_freq(double* af = nullptr) const {
    std::vector<double> inv(static_cast<size_t>(rotary_dim_ / 2));
    check(posenc_rope_plan_inv_freq(plan_, inv.data(), af));
    return inv;
  }

 private:
  posenc_rope_plan* plan_ = nullptr;
  int32_t rotary_dim_ = 0;
};
/// posenc_rope_apply_cached_f32: rotation from cos_table/sin_table [table_rows, rotary_dim/2].
inline void rope_apply_cached(const float* cos_table, const float* sin_table, int64_t table_rows, int32_t rotary_dim,
                              posenc_rope_layout layout, const int64_t* positions, int64_t num_tokens,
                              int64_t head_dim, float* q, int64_t num_q_heads, float* k, int64_t num_k_heads,
                              bool inverse = false, int64_t q_token_stride = 0, int64_t k_token_stride = 0) {
  check(posenc_rope_apply_cached_f32(cos_table, sin_table, table_rows, rotary_dim, layout, positions, num_tokens,
                                     head_dim, q, num_q_heads, q_token_stride, k, num_k_heads, k_token_stride,
                                     inverse ? 1 : 0));
}
/// posenc_rope_decay_f64: f [count] (and bound [count] when non-null) for n = n_begin + i*n_step.
inline void rope_decay(const double* inv_freq, int32_t num_freqs, int64_t n_begin, int64_t n_step, int64_t count,
                       double* f, double* bound = nullptr) {
  check(posenc_rope_decay_f64(inv_freq, num_freqs, n_begin, n_step, count, f, bound));
}
/// Allocating variant: f_n for n = 0..count-1.
inline std::vector<double> rope_decay(const std::vector<double>& inv_freq, int64_t count) {
  std::vector<double> f = detail::out_buffer<double>("rope_decay", {count});
  rope_decay(inv_freq.data(), static_cast<int32_t>(inv_freq.size()), 0, 1, count, f.data());
  return f;
}
// @@ROPE-END@@

// @@SPHERE-BEGIN@@ ---------------------------------------------- sphere (S²)
/// posenc_legendre_f64: x [n] in [-1, 1] -> out [n, (lmax+1)(lmax+2)/2], GSL index l(l+1)/2+m.
inline void legendre(posenc_legendre_norm norm, int32_t lmax, int32_t csphase, const double* x, int64_t n,
                     double* out) {
  check(posenc_legendre_f64(norm, lmax, csphase, x, n, out));
}
/// posenc_legendre_f32 (computed in float64, rounded once).
inline void legendre(posenc_legendre_norm norm, int32_t lmax, int32_t csphase, const float* x, int64_t n,
                     float* out) {
  check(posenc_legendre_f32(norm, lmax, csphase, x, n, out));
}
/// Allocating variant: returns [x.size(), (lmax+1)(lmax+2)/2].
inline std::vector<double> legendre(posenc_legendre_norm norm, int32_t lmax, const std::vector<double>& x,
                                    int32_t csphase = 1) {
  const int64_t k = lmax >= 0 ? (int64_t(lmax) + 1) * (int64_t(lmax) + 2) / 2 : 0;
  std::vector<double> out = detail::out_buffer<double>("legendre", {static_cast<int64_t>(x.size()), k});
  legendre(norm, lmax, csphase, x.data(), static_cast<int64_t>(x.size()), out.data());
  return out;
}
/// posenc_legendre_poly_f64: out [n, lmax+1] = P_l(x[i]).
inline void legendre_poly(int32_t lmax, const double* x, int64_t n, double* out) {
  check(posenc_legendre_poly_f64(lmax, x, n, out));
}
/// posenc_sph_kernel_f64: out[i] = sum_l w_l (2l+1)/(4 pi) P_l(cos_gamma[i]); weights may be nullptr.
inline void sph_kernel(int32_t lmax, const double* weights, const double* cos_gamma, int64_t n, double* out) {
  check(posenc_sph_kernel_f64(lmax, weights, cos_gamma, n, out));
}
/// posenc_sph_harm_real_f64 / _f32: xyz [n, 3] -> out [n, (lmax+1)^2], index l(l+1)+m.
inline void sph_harm_real(int32_t lmax, const double* xyz, int64_t n, double* out) {
  check(posenc_sph_harm_real_f64(lmax, xyz, n, out));
}
inline void sph_harm_real(int32_t lmax, const float* xyz, int64_t n, float* out) {
  check(posenc_sph_harm_real_f32(lmax, xyz, n, out));
}
/// Allocating variant: xyz holds n = xyz.size()/3 points; returns [n, (lmax+1)^2].
/// Throws posenc::error (INVALID_ARGUMENT) if xyz.size() is not a multiple of 3.
template <class T>
inline std::vector<T> sph_harm_real(int32_t lmax, const std::vector<T>& xyz) {
  if (xyz.size() % 3 != 0)
    throw error(POSENC_ERR_INVALID_ARGUMENT, "posenc::sph_harm_real: xyz.size() must be a multiple of 3 (points as x, y, z; got " +
                                                 std::to_string(xyz.size()) + ")");
  const int64_t k = lmax >= 0 ? (int64_t(lmax) + 1) * (int64_t(lmax) + 1) : 0;
  std::vector<T> out = detail::out_buffer<T>("sph_harm_real", {static_cast<int64_t>(xyz.size() / 3), k});
  sph_harm_real(lmax, xyz.data(), static_cast<int64_t>(xyz.size() / 3), out.data());
  return out;
}
/// posenc_sph_harm_real_ex_f64 / _f32: flags POSENC_SPH_SOLID | POSENC_SPH_ZERO_AS_ZERO (0: sph_harm_real).
inline void sph_harm_real(int32_t lmax, const double* xyz, int64_t n, uint32_t flags, double* out) {
  check(posenc_sph_harm_real_ex_f64(lmax, xyz, n, flags, out));
}
inline void sph_harm_real(int32_t lmax, const float* xyz, int64_t n, uint32_t flags, float* out) {
  check(posenc_sph_harm_real_ex_f32(lmax, xyz, n, flags, out));
}
/// posenc_sph_harm_real_grad_f64 / _f32: values [n, K] (may be nullptr), grad [n, 3, K],
/// hess [n, 3, 3, K] (may be nullptr), K = (lmax+1)^2.
inline void sph_harm_real_grad(int32_t lmax, const double* xyz, int64_t n, uint32_t flags, double* values,
                               double* grad, double* hess = nullptr) {
  check(posenc_sph_harm_real_grad_f64(lmax, xyz, n, flags, values, grad, hess));
}
inline void sph_harm_real_grad(int32_t lmax, const float* xyz, int64_t n, uint32_t flags, float* values,
                               float* grad, float* hess = nullptr) {
  check(posenc_sph_harm_real_grad_f32(lmax, xyz, n, flags, values, grad, hess));
}
/// posenc_sph_harm_real_lonlat_f64: lonlat [n, 2] in degrees -> out [n, (lmax+1)^2].
inline void sph_harm_real_lonlat(int32_t lmax, const double* lonlat, int64_t n, double* out) {
  check(posenc_sph_harm_real_lonlat_f64(lmax, lonlat, n, out));
}
/// posenc_sph_harm_complex_f64: theta, phi [n] radians -> out [n, (lmax+1)^2, 2] (re, im).
inline void sph_harm_complex(int32_t lmax, const double* theta, const double* phi, int64_t n, double* out) {
  check(posenc_sph_harm_complex_f64(lmax, theta, phi, n, out));
}
/// posenc_wigner_d_real_f64: rotation [3, 3] -> D^0..D^lmax blocks concatenated.
inline std::vector<double> wigner_d_real(int32_t lmax, const double* rotation) {
  const int64_t L = lmax >= 0 ? lmax : 0;
  std::vector<double> out = detail::alloc<double>(
      "wigner_d_real", detail::out_count<double>("wigner_d_real", {L + 1, 2 * L + 1, 2 * L + 3}) / 3);
  check(posenc_wigner_d_real_f64(lmax, rotation, out.data()));
  return out;
}
/// posenc_sph_rotate_real_f64: out[i] = D(R) coeffs[i]; out may equal coeffs.
inline void sph_rotate_real(int32_t lmax, const double* rotation, const double* coeffs, int64_t n, double* out) {
  check(posenc_sph_rotate_real_f64(lmax, rotation, coeffs, n, out));
}
// @@SPHERE-END@@

// @@FEATURES-BEGIN@@ -------------------------------------------- features (Bochner)
/// posenc_rf_sample_f32: omega [m, d].
inline void rf_sample(posenc_rf_sampling sampling, int32_t d, int32_t m, double sigma, uint64_t seed, float* omega) {
  check(posenc_rf_sample_f32(sampling, d, m, sigma, seed, omega));
}
/// Allocating variant: returns Omega [m, d].
inline std::vector<float> rf_sample(posenc_rf_sampling sampling, int32_t d, int32_t m, double sigma = 1.0,
                                    uint64_t seed = 0) {
  std::vector<float> omega = detail::out_buffer<float>("rf_sample", {m, d});
  rf_sample(sampling, d, m, sigma, seed, omega.data());
  return omega;
}
/// Width of a feature row: 2m for TRIG and HYPERBOLIC, m otherwise.
inline int64_t rf_feature_width(posenc_rf_kind kind, int32_t m) noexcept {
  return (kind == POSENC_RF_TRIG || kind == POSENC_RF_HYPERBOLIC) ? 2 * int64_t(m) : int64_t(m);
}
/// posenc_rf_features_f32: x [n, d] -> out [n, rf_feature_width(kind, m)]; weights [m] or nullptr.
inline void rf_features(posenc_rf_kind kind, const float* omega, int32_t m, int32_t d, const float* weights,
                        const float* x, int64_t n, float* out, posenc_rf_shift shift = POSENC_RF_SHIFT_OVERFLOW) {
  check(posenc_rf_features_f32(kind, shift, omega, m, d, weights, x, n, out));
}
/// Allocating variant: omega holds m * d floats, x holds n * d floats. Throws posenc::error
/// (INVALID_ARGUMENT) if omega.size() != m * d or x.size() is not a multiple of d.
inline std::vector<float> rf_features(posenc_rf_kind kind, const std::vector<float>& omega, int32_t m, int32_t d,
                                      const std::vector<float>& x, const float* weights = nullptr,
                                      posenc_rf_shift shift = POSENC_RF_SHIFT_OVERFLOW) {
  if (m > 0 && d > 0 && omega.size() != static_cast<size_t>(m) * static_cast<size_t>(d))
    throw error(POSENC_ERR_INVALID_ARGUMENT, "posenc::rf_features: omega.size() must be m * d = " +
                                                 std::to_string(int64_t(m) * d) + " (got " + std::to_string(omega.size()) + ")");
  if (d > 0 && x.size() % static_cast<size_t>(d) != 0)
    throw error(POSENC_ERR_INVALID_ARGUMENT, "posenc::rf_features: x.size() must be a multiple of d = " +
                                                 std::to_string(d) + " (got " + std::to_string(x.size()) + ")");
  const int64_t n = d > 0 ? int64_t(x.size()) / d : 0;
  std::vector<float> out = detail::out_buffer<float>("rf_features", {n, m > 0 ? rf_feature_width(kind, m) : 0});
  rf_features(kind, omega.data(), m, d, weights, x.data(), n, out.data(), shift);
  return out;
}
/// posenc_linear_attention_f32: phi_q, phi_k [n, F], v [n, dv] -> out [n, dv]; unnormalized:
/// POSENC_LINEAR_UNNORMALIZED (no denominator).
inline void linear_attention(const float* phi_q, const float* phi_k, const float* v, int64_t n, int32_t F, int32_t dv,
                             bool causal, float eps, float* out, bool unnormalized = false) {
  check(posenc_linear_attention_f32(phi_q, phi_k, v, n, F, dv,
                                    (causal ? POSENC_LINEAR_CAUSAL : 0) | (unnormalized ? POSENC_LINEAR_UNNORMALIZED : 0),
                                    eps, out));
}
/// posenc_rf_features_backward_f32: grad_out [n, rf_feature_width(kind, m)] -> grad_x [n, d],
/// grad_weights [m], grad_omega [m, d] (each may be nullptr, not all).
inline void rf_features_backward(posenc_rf_kind kind, const float* omega, int32_t m, int32_t d, const float* weights,
                                 const float* x, int64_t n, const float* grad_out, float* grad_x, float* grad_weights,
                                 float* grad_omega, posenc_rf_shift shift = POSENC_RF_SHIFT_OVERFLOW) {
  check(posenc_rf_features_backward_f32(kind, shift, omega, m, d, weights, x, n, grad_out, grad_x, grad_weights,
                                        grad_omega));
}
/// posenc_linear_attention_backward_f32: grad_out [n, dv] -> grad_phi_q, grad_phi_k [n, F], grad_v [n, dv].
inline void linear_attention_backward(const float* phi_q, const float* phi_k, const float* v, int64_t n, int32_t F,
                                      int32_t dv, bool causal, float eps, const float* grad_out, float* grad_phi_q,
                                      float* grad_phi_k, float* grad_v, bool unnormalized = false) {
  check(posenc_linear_attention_backward_f32(
      phi_q, phi_k, v, n, F, dv, (causal ? POSENC_LINEAR_CAUSAL : 0) | (unnormalized ? POSENC_LINEAR_UNNORMALIZED : 0),
      eps, grad_out, grad_phi_q, grad_phi_k, grad_v));
}
/// posenc_softmax_attention_backward_f32: grad_out [n, dv] -> grad_q, grad_k [n, d], grad_v [n, dv].
inline void softmax_attention_backward(const float* q, const float* k, const float* v, int64_t n, int32_t d,
                                       int32_t dv, bool causal, float scale, const float* grad_out, float* grad_q,
                                       float* grad_k, float* grad_v) {
  check(posenc_softmax_attention_backward_f32(q, k, v, n, d, dv, causal ? 1 : 0, scale, grad_out, grad_q, grad_k,
                                              grad_v));
}
/// posenc_linear_attention_step_f32: one decoding step; state_s [F, dv], state_z [F] updated in place
/// (state_z nullptr: the unnormalized form).
inline void linear_attention_step(const float* phi_q, const float* phi_k, const float* v, int32_t F, int32_t dv,
                                  float eps, float* state_s, float* state_z, float* out) {
  check(posenc_linear_attention_step_f32(phi_q, phi_k, v, F, dv, eps, state_s, state_z, out));
}
/// posenc_softmax_attention_f32: q, k [n, d], v [n, dv] -> out [n, dv].
inline void softmax_attention(const float* q, const float* k, const float* v, int64_t n, int32_t d, int32_t dv,
                              bool causal, float scale, float* out) {
  check(posenc_softmax_attention_f32(q, k, v, n, d, dv, causal ? 1 : 0, scale, out));
}
/// posenc_linear_attention_mh_f32: [batch, heads, n, F] / [batch, heads, n, dv] arrays with element
/// strides (3 each, nullptr: contiguous) -> out.
inline void linear_attention_mh(int64_t batch, int64_t heads, int64_t n, int32_t F, int32_t dv, const float* phi_q,
                                const int64_t* q_strides, const float* phi_k, const int64_t* k_strides, const float* v,
                                const int64_t* v_strides, bool causal, float eps, float* out,
                                const int64_t* out_strides = nullptr, bool unnormalized = false) {
  check(posenc_linear_attention_mh_f32(
      batch, heads, n, F, dv, phi_q, q_strides, phi_k, k_strides, v, v_strides,
      (causal ? POSENC_LINEAR_CAUSAL : 0) | (unnormalized ? POSENC_LINEAR_UNNORMALIZED : 0), eps, out, out_strides));
}
/// posenc_linear_attention_backward_mh_f32: the gradients of linear_attention_mh (strides nullptr: contiguous).
inline void linear_attention_backward_mh(int64_t batch, int64_t heads, int64_t n, int32_t F, int32_t dv,
                                         const float* phi_q, const int64_t* q_strides, const float* phi_k,
                                         const int64_t* k_strides, const float* v, const int64_t* v_strides,
                                         bool causal, float eps, const float* grad_out,
                                         const int64_t* grad_out_strides, float* grad_phi_q,
                                         const int64_t* grad_q_strides, float* grad_phi_k,
                                         const int64_t* grad_k_strides, float* grad_v,
                                         const int64_t* grad_v_strides, bool unnormalized = false) {
  check(posenc_linear_attention_backward_mh_f32(
      batch, heads, n, F, dv, phi_q, q_strides, phi_k, k_strides, v, v_strides,
      (causal ? POSENC_LINEAR_CAUSAL : 0) | (unnormalized ? POSENC_LINEAR_UNNORMALIZED : 0), eps, grad_out,
      grad_out_strides, grad_phi_q, grad_q_strides, grad_phi_k, grad_k_strides, grad_v, grad_v_strides));
}
/// posenc_rf_features_bf16: x [n, d] bf16 bits -> out [n, rf_feature_width(kind, m)] bf16 bits.
inline void rf_features_bf16(posenc_rf_kind kind, const float* omega, int32_t m, int32_t d, const float* weights,
                             const uint16_t* x, int64_t n, uint16_t* out,
                             posenc_rf_shift shift = POSENC_RF_SHIFT_OVERFLOW) {
  check(posenc_rf_features_bf16(kind, shift, omega, m, d, weights, x, n, out));
}
/// posenc_linear_attention_bf16: bf16 bits phi_q, phi_k [n, F], v [n, dv] -> out [n, dv] bf16 bits.
inline void linear_attention_bf16(const uint16_t* phi_q, const uint16_t* phi_k, const uint16_t* v, int64_t n,
                                  int32_t F, int32_t dv, bool causal, float eps, uint16_t* out,
                                  bool unnormalized = false) {
  check(posenc_linear_attention_bf16(phi_q, phi_k, v, n, F, dv,
                                     (causal ? POSENC_LINEAR_CAUSAL : 0) | (unnormalized ? POSENC_LINEAR_UNNORMALIZED : 0),
                                     eps, out));
}
// @@FEATURES-END@@

// @@GRAPH-BEGIN@@ ----------------------------------------------- graph
/// posenc_laplacian_pe_f64: eigvals [k] ascending, eigvecs [num_nodes, k] row-major, unit
/// columns, largest-magnitude entry positive. weights may be nullptr (all 1). Graph conventions,
/// solver choice and errors: see posenc.h.
inline void laplacian_pe(int64_t num_nodes, const int64_t* src, const int64_t* dst, const double* weights,
                         int64_t num_edges, posenc_laplacian laplacian, int32_t k, double* eigvals, double* eigvecs) {
  check(posenc_laplacian_pe_f64(num_nodes, src, dst, weights, num_edges, laplacian, k, eigvals, eigvecs));
}
/// Result of the allocating laplacian_pe.
struct laplacian_pe_result {
  std::vector<double> eigvals;  ///< [k], ascending
  std::vector<double> eigvecs;  ///< [num_nodes, k], row-major
  posenc_laplacian_pe_info info; ///< solver used, matvecs, residual
};
/// Allocating variant over std::vectors (src.size() == dst.size() edges; weights empty = all 1).
/// solver forces an eigensolver (POSENC_LAPPE_AUTO = choose per component); flags: info.flags
/// (POSENC_GRAPH_BOTH_DIRECTIONS, POSENC_LAPPE_DROP_TRIVIAL, POSENC_LAPPE_NAN_PAD).
inline laplacian_pe_result laplacian_pe(int64_t num_nodes, const std::vector<int64_t>& src,
                                        const std::vector<int64_t>& dst, int32_t k,
                                        posenc_laplacian laplacian = POSENC_LAPLACIAN_SYM,
                                        const std::vector<double>& weights = {},
                                        posenc_lappe_method solver = POSENC_LAPPE_AUTO, uint32_t flags = 0) {
  if (src.size() != dst.size() || (!weights.empty() && weights.size() != src.size()))
    throw error(POSENC_ERR_INVALID_ARGUMENT, "laplacian_pe: src, dst (and weights, if given) must have equal sizes");
  laplacian_pe_result r;
  check(posenc_laplacian_pe_info_init(&r.info));
  r.info.solver = solver;
  r.info.flags = flags;
  const int64_t kk = k > 0 ? k : 0, nn = num_nodes > 0 ? num_nodes : 0;
  r.eigvecs = detail::out_buffer<double>("laplacian_pe", {nn, kk});
  r.eigvals = detail::out_buffer<double>("laplacian_pe", {kk});
  check(posenc_laplacian_pe_ex_f64(num_nodes, src.data(), dst.data(), weights.empty() ? nullptr : weights.data(),
                                   static_cast<int64_t>(src.size()), laplacian, k, r.eigvals.data(),
                                   r.eigvecs.data(), &r.info));
  return r;
}
/// posenc_rwse_f64: out [num_nodes, steps], out[v*steps + t-1] = (P^t)_vv, P = D^-1 A.
inline void rwse(int64_t num_nodes, const int64_t* src, const int64_t* dst, const double* weights, int64_t num_edges,
                 int32_t steps, double* out) {
  check(posenc_rwse_f64(num_nodes, src, dst, weights, num_edges, steps, out));
}
/// Allocating variant over std::vectors (weights empty = all 1); returns [num_nodes, steps].
inline std::vector<double> rwse(int64_t num_nodes, const std::vector<int64_t>& src, const std::vector<int64_t>& dst,
                                int32_t steps, const std::vector<double>& weights = {}) {
  if (src.size() != dst.size() || (!weights.empty() && weights.size() != src.size()))
    throw error(POSENC_ERR_INVALID_ARGUMENT, "rwse: src, dst (and weights, if given) must have equal sizes");
  std::vector<double> out = detail::out_buffer<double>("rwse", {num_nodes, steps});
  check(posenc_rwse_f64(num_nodes, src.data(), dst.data(), weights.empty() ? nullptr : weights.data(),
                        static_cast<int64_t>(src.size()), steps, out.data()));
  return out;
}
/// posenc_rwse_ex_f64: posenc_rwse_f64 with flags (POSENC_GRAPH_KEEP_SELF_LOOPS,
/// POSENC_GRAPH_BOTH_DIRECTIONS: PyG's AddRandomWalkPE on an edge_index with self-loops).
inline void rwse_ex(int64_t num_nodes, const int64_t* src, const int64_t* dst, const double* weights,
                    int64_t num_edges, int32_t steps, uint32_t flags, double* out) {
  check(posenc_rwse_ex_f64(num_nodes, src, dst, weights, num_edges, steps, flags, out));
}
/// posenc_rwse_auto_f64: RWSE exact or by Monte-Carlo (chosen by cost, or info->method);
/// info may be nullptr (AUTO, default walks, seed 0, flags 0).
inline void rwse_auto(int64_t num_nodes, const int64_t* src, const int64_t* dst, const double* weights,
                      int64_t num_edges, int32_t steps, double* out, posenc_rwse_info* info = nullptr) {
  check(posenc_rwse_auto_f64(num_nodes, src, dst, weights, num_edges, steps, out, info));
}
/// Result of the allocating rwse_auto.
struct rwse_auto_result {
  std::vector<double> out;  ///< [num_nodes, steps], row-major
  posenc_rwse_info info;    ///< path taken (method_used), walks_used, std_error_bound, costs
};
/// Allocating variant over std::vectors (weights empty = all 1). method: AUTO, EXACT or
/// MONTE_CARLO; walks 0 = POSENC_RWSE_DEFAULT_WALKS; flags: POSENC_GRAPH_KEEP_SELF_LOOPS,
/// POSENC_GRAPH_BOTH_DIRECTIONS.
inline rwse_auto_result rwse_auto(int64_t num_nodes, const std::vector<int64_t>& src, const std::vector<int64_t>& dst,
                                  int32_t steps, const std::vector<double>& weights = {},
                                  posenc_rwse_method method = POSENC_RWSE_AUTO, int32_t walks = 0,
                                  uint64_t seed = 0, uint32_t flags = 0) {
  if (src.size() != dst.size() || (!weights.empty() && weights.size() != src.size()))
    throw error(POSENC_ERR_INVALID_ARGUMENT, "rwse_auto: src, dst (and weights, if given) must have equal sizes");
  rwse_auto_result r;
  check(posenc_rwse_info_init(&r.info));
  r.info.method = method;
  r.info.walks = walks;
  r.info.seed = seed;
  r.info.flags = flags;
  r.out = detail::out_buffer<double>("rwse_auto", {num_nodes, steps});
  check(posenc_rwse_auto_f64(num_nodes, src.data(), dst.data(), weights.empty() ? nullptr : weights.data(),
                             static_cast<int64_t>(src.size()), steps, r.out.data(), &r.info));
  return r;
}
/// posenc_maglap_pe_f64: eigvals [k] ascending, eigvecs_re / eigvecs_im [num_nodes, k] (column j of
/// re + i im a unit eigenvector of the magnetic Laplacian L_q; largest-modulus entry real positive).
inline void maglap_pe(int64_t num_nodes, const int64_t* src, const int64_t* dst, const double* weights,
                      int64_t num_edges, posenc_laplacian laplacian, double q, int32_t k, double* eigvals,
                      double* eigvecs_re, double* eigvecs_im) {
  check(posenc_maglap_pe_f64(num_nodes, src, dst, weights, num_edges, laplacian, q, k, eigvals, eigvecs_re,
                             eigvecs_im));
}
/// Result of the allocating maglap_pe.
struct maglap_pe_result {
  std::vector<double> eigvals;     ///< [k], ascending
  std::vector<double> eigvecs_re;  ///< [num_nodes, k], row-major
  std::vector<double> eigvecs_im;  ///< [num_nodes, k], row-major
};
/// Allocating variant over std::vectors (src.size() == dst.size() directed edges src -> dst;
/// weights empty = all 1).
inline maglap_pe_result maglap_pe(int64_t num_nodes, const std::vector<int64_t>& src, const std::vector<int64_t>& dst,
                                  int32_t k, double q, posenc_laplacian laplacian = POSENC_LAPLACIAN_SYM,
                                  const std::vector<double>& weights = {}) {
  if (src.size() != dst.size() || (!weights.empty() && weights.size() != src.size()))
    throw error(POSENC_ERR_INVALID_ARGUMENT, "maglap_pe: src, dst (and weights, if given) must have equal sizes");
  const int64_t kk = k > 0 ? k : 0, nn = num_nodes > 0 ? num_nodes : 0;
  maglap_pe_result r;
  r.eigvals = detail::out_buffer<double>("maglap_pe", {kk});
  r.eigvecs_re = detail::out_buffer<double>("maglap_pe", {nn, kk});
  r.eigvecs_im = detail::out_buffer<double>("maglap_pe", {nn, kk});
  check(posenc_maglap_pe_f64(num_nodes, src.data(), dst.data(), weights.empty() ? nullptr : weights.data(),
                             static_cast<int64_t>(src.size()), laplacian, q, k, r.eigvals.data(),
                             r.eigvecs_re.data(), r.eigvecs_im.data()));
  return r;
}
/// posenc_heat_kernel_apply_f64: y [num_nodes, num_vectors] = exp(-t L) x (row-major); returns
/// the documented error bound (relative to ||x_b||_2 per column).
inline double heat_kernel_apply(int64_t num_nodes, const int64_t* src, const int64_t* dst, const double* weights,
                                int64_t num_edges, posenc_laplacian laplacian, double t, const double* x,
                                int64_t num_vectors, double* y) {
  double bound = 0.0;
  check(posenc_heat_kernel_apply_f64(num_nodes, src, dst, weights, num_edges, laplacian, t, x, num_vectors, y,
                                     &bound));
  return bound;
}
/// posenc_graph_batch_pe_f64: LapPE (k > 0) and RWSE (steps > 0) of num_graphs graphs in PyG's
/// Batch layout (node_ptr, edge_ptr [num_graphs + 1]; global node ids); outputs as in posenc.h.
/// Returns the per-graph statuses (throws posenc::error if any graph failed or an argument is bad).
inline std::vector<int32_t> graph_batch_pe(int64_t num_graphs, const int64_t* node_ptr, const int64_t* edge_ptr,
                                           const int64_t* src, const int64_t* dst, const double* weights,
                                           posenc_laplacian laplacian, int32_t k, int32_t steps, double* eigvals,
                                           double* eigvecs, double* rwse) {
  std::vector<int32_t> st = detail::out_buffer<int32_t>("graph_batch_pe", {num_graphs > 0 ? num_graphs : 0});
  check(posenc_graph_batch_pe_f64(num_graphs, node_ptr, edge_ptr, src, dst, weights, laplacian, k, steps, eigvals,
                                  eigvecs, rwse, st.data()));
  return st;
}
/// posenc_graph_batch_pe_ex_f64: graph_batch_pe with the PyG compatibility flags
/// (POSENC_GRAPH_BOTH_DIRECTIONS, POSENC_GRAPH_KEEP_SELF_LOOPS, POSENC_LAPPE_DROP_TRIVIAL,
/// POSENC_LAPPE_NAN_PAD; 0 = graph_batch_pe). Returns the per-graph statuses.
inline std::vector<int32_t> graph_batch_pe_ex(int64_t num_graphs, const int64_t* node_ptr, const int64_t* edge_ptr,
                                              const int64_t* src, const int64_t* dst, const double* weights,
                                              posenc_laplacian laplacian, int32_t k, int32_t steps, uint32_t flags,
                                              double* eigvals, double* eigvecs, double* rwse) {
  std::vector<int32_t> st = detail::out_buffer<int32_t>("graph_batch_pe_ex", {num_graphs > 0 ? num_graphs : 0});
  check(posenc_graph_batch_pe_ex_f64(num_graphs, node_ptr, edge_ptr, src, dst, weights, laplacian, k, steps, flags,
                                     eigvals, eigvecs, rwse, st.data()));
  return st;
}
/// posenc_graph_batch_pe_auto_f64: graph_batch_pe_ex with each graph's RWSE chosen as by
/// posenc_rwse_auto_f64 (rwse_options may be NULL: AUTO, default walks, seed 0). Returns the
/// per-graph statuses; rwse_method_used [num_graphs] may be NULL.
inline std::vector<int32_t> graph_batch_pe_auto(int64_t num_graphs, const int64_t* node_ptr, const int64_t* edge_ptr,
                                                const int64_t* src, const int64_t* dst, const double* weights,
                                                posenc_laplacian laplacian, int32_t k, int32_t steps, uint32_t flags,
                                                const posenc_rwse_info* rwse_options, double* eigvals,
                                                double* eigvecs, double* rwse, int32_t* rwse_method_used = nullptr) {
  std::vector<int32_t> st = detail::out_buffer<int32_t>("graph_batch_pe_auto", {num_graphs > 0 ? num_graphs : 0});
  check(posenc_graph_batch_pe_auto_f64(num_graphs, node_ptr, edge_ptr, src, dst, weights, laplacian, k, steps, flags,
                                       rwse_options, eigvals, eigvecs, rwse, st.data(), rwse_method_used));
  return st;
}
/// Sparse pair encodings: pairs [num_pairs, 2] (i, j sorted), values [num_pairs, width].
template <class V>
struct pair_encoding {
  std::vector<int64_t> pairs;
  std::vector<V> values;
  int64_t num_pairs() const { return static_cast<int64_t>(pairs.size() / 2); }
};
/// posenc_rrwp_f64 (size query, then fill): values[p, s] = (P^s)_ij, s = 0..steps-1.
inline pair_encoding<double> rrwp(int64_t num_nodes, const std::vector<int64_t>& src, const std::vector<int64_t>& dst,
                                  int32_t steps, const std::vector<double>& weights = {}) {
  if (src.size() != dst.size() || (!weights.empty() && weights.size() != src.size()))
    throw error(POSENC_ERR_INVALID_ARGUMENT, "rrwp: src, dst (and weights, if given) must have equal sizes");
  const double* w = weights.empty() ? nullptr : weights.data();
  const int64_t m = static_cast<int64_t>(src.size());
  int64_t np = 0;
  check(posenc_rrwp_f64(num_nodes, src.data(), dst.data(), w, m, steps, 0, &np, nullptr, nullptr));
  pair_encoding<double> r;
  r.pairs = detail::out_buffer<int64_t>("rrwp", {np, 2});
  r.values = detail::out_buffer<double>("rrwp", {np, steps});
  check(posenc_rrwp_f64(num_nodes, src.data(), dst.data(), w, m, steps, np, &np, r.pairs.data(), r.values.data()));
  return r;
}
/// posenc_shortest_path_i32 (size query, then fill): hop distances <= max_hops.
inline pair_encoding<int32_t> shortest_path(int64_t num_nodes, const std::vector<int64_t>& src,
                                            const std::vector<int64_t>& dst, int32_t max_hops) {
  if (src.size() != dst.size())
    throw error(POSENC_ERR_INVALID_ARGUMENT, "shortest_path: src and dst must have equal sizes");
  const int64_t m = static_cast<int64_t>(src.size());
  int64_t np = 0;
  check(posenc_shortest_path_i32(num_nodes, src.data(), dst.data(), m, max_hops, 0, &np, nullptr, nullptr));
  pair_encoding<int32_t> r;
  r.pairs = detail::out_buffer<int64_t>("shortest_path", {np, 2});
  r.values = detail::out_buffer<int32_t>("shortest_path", {np});
  check(posenc_shortest_path_i32(num_nodes, src.data(), dst.data(), m, max_hops, np, &np, r.pairs.data(),
                                 r.values.data()));
  return r;
}
/// posenc_heat_kernel_diag_f64: out [num_nodes, num_times] = diag(exp(-t_i L)); returns the bound.
inline double heat_kernel_diag(int64_t num_nodes, const int64_t* src, const int64_t* dst, const double* weights,
                               int64_t num_edges, posenc_laplacian laplacian, const double* times, int32_t num_times,
                               double* out) {
  double bound = 0.0;
  check(posenc_heat_kernel_diag_f64(num_nodes, src, dst, weights, num_edges, laplacian, times, num_times, out, &bound));
  return bound;
}
/// posenc_heat_kernel_rows_f64: out [num_sources, num_nodes] = rows of exp(-tL); returns the bound.
inline double heat_kernel_rows(int64_t num_nodes, const int64_t* src, const int64_t* dst, const double* weights,
                               int64_t num_edges, posenc_laplacian laplacian, double t, const int64_t* sources,
                               int64_t num_sources, double* out) {
  double bound = 0.0;
  check(posenc_heat_kernel_rows_f64(num_nodes, src, dst, weights, num_edges, laplacian, t, sources, num_sources, out,
                                    &bound));
  return bound;
}
/// posenc_diffusion_distance_f64: out[p] = ||exp(-tL)(e_i - e_j)||_2; returns the error bound.
inline double diffusion_distance(int64_t num_nodes, const int64_t* src, const int64_t* dst, const double* weights,
                                 int64_t num_edges, posenc_laplacian laplacian, double t, const int64_t* pairs,
                                 int64_t num_pairs, double* out) {
  double bound = 0.0;
  check(posenc_diffusion_distance_f64(num_nodes, src, dst, weights, num_edges, laplacian, t, pairs, num_pairs, out,
                                      &bound));
  return bound;
}
/// posenc_diffusion_distance_eig_f64: the same from k eigenpairs; returns the truncation bound.
inline double diffusion_distance_eig(int64_t num_nodes, int32_t k, const double* eigvals, const double* eigvecs,
                                     double t, const int64_t* pairs, int64_t num_pairs, double* out) {
  double bound = 0.0;
  check(posenc_diffusion_distance_eig_f64(num_nodes, k, eigvals, eigvecs, t, pairs, num_pairs, out, &bound));
  return bound;
}
// @@GRAPH-END@@

// @@LEARNED-BEGIN@@ --------------------------------------------- learned
/// posenc_learned_add_f32: x [n, dim] += table [rows, dim] at positions [n].
inline void learned_add(const float* table, int64_t rows, int32_t dim, const int64_t* positions, int64_t n,
                        float* x) {
  check(posenc_learned_add_f32(table, rows, dim, positions, n, x));
}
/// posenc_learned_grad_f32: grad_table [rows, dim] += scatter of grad_x [n, dim] (deterministic).
inline void learned_grad(const float* grad_x, const int64_t* positions, int64_t n, int32_t dim, float* grad_table,
                         int64_t rows) {
  check(posenc_learned_grad_f32(grad_x, positions, n, dim, grad_table, rows));
}
/// Singular values (descending, [min(rows, dim)]) and effective rank of a table [rows, dim].
struct learned_spectrum_result {
  std::vector<double> singular_values;
  double effective_rank = 0.0;
};
/// posenc_learned_spectrum_f32, allocating.
inline learned_spectrum_result learned_spectrum(const float* table, int64_t rows, int32_t dim) {
  learned_spectrum_result r;
  r.singular_values.resize(static_cast<size_t>(rows > 0 && dim > 0 ? (rows < dim ? rows : dim) : 0));
  check(posenc_learned_spectrum_f32(table, rows, dim, r.singular_values.data(), &r.effective_rank));
  return r;
}
/// posenc_learned_lowrank_f32: left [rows, r] = U Sigma, right [r, dim] = V^T.
inline void learned_lowrank(const float* table, int64_t rows, int32_t dim, int32_t r, float* left, float* right) {
  check(posenc_learned_lowrank_f32(table, rows, dim, r, left, right));
}
/// posenc_learned_resample_f32: table [prefix + old_h*old_w, dim] -> out [prefix + new_h*new_w, dim].
inline void learned_resample(const float* table, int32_t prefix, int64_t old_h, int64_t old_w, int32_t dim,
                             int64_t new_h, int64_t new_w, posenc_resample mode, float* out) {
  check(posenc_learned_resample_f32(table, prefix, old_h, old_w, dim, new_h, new_w, mode, out));
}
/// Allocating variant (timm resample_abs_pos_embed): returns out [prefix + new_h*new_w, dim].
/// Throws posenc::error (INVALID_ARGUMENT) if table.size() != (prefix + old_h*old_w) * dim.
inline std::vector<float> learned_resample(const std::vector<float>& table, int32_t prefix, int64_t old_h,
                                           int64_t old_w, int32_t dim, int64_t new_h, int64_t new_w,
                                           posenc_resample mode = POSENC_RESAMPLE_BICUBIC_AA) {
  // rows*dim for rows = prefix + h*w, or -1 if an argument is out of range or a product overflows.
  auto size_of = [](int32_t pre, int64_t h, int64_t w, int32_t d) -> int64_t {
    const int64_t big = INT64_MAX;
    if (pre < 0 || h <= 0 || w <= 0 || d <= 0 || h > big / w || h * w > big - pre) return -1;
    const int64_t rows = h * w + pre;
    return rows > big / d ? -1 : rows * d;
  };
  const int64_t in_size = size_of(prefix, old_h, old_w, dim), out_size = size_of(prefix, new_h, new_w, dim);
  if (in_size >= 0 && table.size() != static_cast<size_t>(in_size))
    throw error(POSENC_ERR_INVALID_ARGUMENT, "posenc::learned_resample: table.size() != (prefix + old_h*old_w) * dim");
  // With invalid sizes, out stays empty and the C function reports which argument is wrong.
  std::vector<float> out =
      detail::out_buffer<float>("learned_resample", {in_size >= 0 && out_size >= 0 ? out_size : 0});
  learned_resample(table.data(), prefix, old_h, old_w, dim, new_h, new_w, mode, out.data());
  return out;
}
/// posenc_learned_resample_backward_f32: grad_table [prefix + old_h*old_w, dim] = A^T grad_out
/// [prefix + new_h*new_w, dim] (the adjoint of learned_resample; overwritten).
inline void learned_resample_backward(const float* grad_out, int32_t prefix, int64_t old_h, int64_t old_w,
                                      int32_t dim, int64_t new_h, int64_t new_w, posenc_resample mode,
                                      float* grad_table) {
  check(posenc_learned_resample_backward_f32(grad_out, prefix, old_h, old_w, dim, new_h, new_w, mode, grad_table));
}
// @@LEARNED-END@@

}  // namespace posenc
