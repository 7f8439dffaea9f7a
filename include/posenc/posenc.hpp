// posenc.hpp — header-only C++17 layer over the C ABI of posenc.h.
//
// Every wrapper calls the C function and throws posenc::error (carrying the posenc_status and
// the thread-local message) when it fails. Arrays are passed as pointer + sizes exactly as in
// the C ABI (shapes are documented there); the wrappers add no copies and no allocations.
#pragma once

#include <cstdint>
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
  std::vector<float> out(static_cast<size_t>(n > 0 && dim > 0 ? n * dim : 0));
  sinusoidal(nullptr, n, dim, base, layout, out.data());
  return out;
}
// @@ROPE-END@@

// @@SPHERE-BEGIN@@ ---------------------------------------------- sphere (S²)
// @@SPHERE-END@@

// @@FEATURES-BEGIN@@ -------------------------------------------- features (Bochner)
/// posenc_rf_sample_f32: omega [m, d].
inline void rf_sample(posenc_rf_sampling sampling, int32_t d, int32_t m, double sigma, uint64_t seed, float* omega) {
  check(posenc_rf_sample_f32(sampling, d, m, sigma, seed, omega));
}
/// Allocating variant: returns Omega [m, d].
inline std::vector<float> rf_sample(posenc_rf_sampling sampling, int32_t d, int32_t m, double sigma = 1.0,
                                    uint64_t seed = 0) {
  std::vector<float> omega(static_cast<size_t>(d > 0 && m > 0 ? int64_t(d) * m : 0));
  rf_sample(sampling, d, m, sigma, seed, omega.data());
  return omega;
}
/// Width of a feature row: 2m for TRIG and HYPERBOLIC, m otherwise.
inline int64_t rf_feature_width(posenc_rf_kind kind, int32_t m) noexcept {
  return (kind == POSENC_RF_TRIG || kind == POSENC_RF_HYPERBOLIC) ? 2 * int64_t(m) : int64_t(m);
}
/// posenc_rf_features_f32: x [n, d] -> out [n, rf_feature_width(kind, m)]; weights [m] or nullptr.
inline void rf_features(posenc_rf_kind kind, const float* omega, int32_t m, int32_t d, const float* weights,
                        const float* x, int64_t n, float* out) {
  check(posenc_rf_features_f32(kind, omega, m, d, weights, x, n, out));
}
/// Allocating variant: omega holds m * d floats, x holds n * d floats.
inline std::vector<float> rf_features(posenc_rf_kind kind, const std::vector<float>& omega, int32_t m, int32_t d,
                                      const std::vector<float>& x, const float* weights = nullptr) {
  const int64_t n = d > 0 ? int64_t(x.size()) / d : 0;
  std::vector<float> out(static_cast<size_t>(n > 0 && m > 0 ? n * rf_feature_width(kind, m) : 0));
  rf_features(kind, omega.data(), m, d, weights, x.data(), n, out.data());
  return out;
}
/// posenc_linear_attention_f32: phi_q, phi_k [n, F], v [n, dv] -> out [n, dv].
inline void linear_attention(const float* phi_q, const float* phi_k, const float* v, int64_t n, int32_t F, int32_t dv,
                             bool causal, float eps, float* out) {
  check(posenc_linear_attention_f32(phi_q, phi_k, v, n, F, dv, causal ? 1 : 0, eps, out));
}
/// posenc_softmax_attention_f32: q, k [n, d], v [n, dv] -> out [n, dv].
inline void softmax_attention(const float* q, const float* k, const float* v, int64_t n, int32_t d, int32_t dv,
                              bool causal, float scale, float* out) {
  check(posenc_softmax_attention_f32(q, k, v, n, d, dv, causal ? 1 : 0, scale, out));
}
// @@FEATURES-END@@

// @@GRAPH-BEGIN@@ ----------------------------------------------- graph
// @@GRAPH-END@@

// @@LEARNED-BEGIN@@ --------------------------------------------- learned
// @@LEARNED-END@@

}  // namespace posenc
