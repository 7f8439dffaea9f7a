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
/// solver forces an eigensolver (POSENC_LAPPE_AUTO = choose per component).
inline laplacian_pe_result laplacian_pe(int64_t num_nodes, const std::vector<int64_t>& src,
                                        const std::vector<int64_t>& dst, int32_t k,
                                        posenc_laplacian laplacian = POSENC_LAPLACIAN_SYM,
                                        const std::vector<double>& weights = {},
                                        posenc_lappe_method solver = POSENC_LAPPE_AUTO) {
  if (src.size() != dst.size() || (!weights.empty() && weights.size() != src.size()))
    throw error(POSENC_ERR_INVALID_ARGUMENT, "laplacian_pe: src, dst (and weights, if given) must have equal sizes");
  laplacian_pe_result r;
  check(posenc_laplacian_pe_info_init(&r.info));
  r.info.solver = solver;
  const int64_t kk = k > 0 ? k : 0, nn = num_nodes > 0 ? num_nodes : 0;
  r.eigvals.resize(static_cast<size_t>(kk));
  r.eigvecs.resize(static_cast<size_t>(nn) * static_cast<size_t>(kk));
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
  std::vector<double> out(static_cast<size_t>(num_nodes > 0 ? num_nodes : 0) * static_cast<size_t>(steps > 0 ? steps : 0));
  check(posenc_rwse_f64(num_nodes, src.data(), dst.data(), weights.empty() ? nullptr : weights.data(),
                        static_cast<int64_t>(src.size()), steps, out.data()));
  return out;
}
// @@GRAPH-END@@

// @@LEARNED-BEGIN@@ --------------------------------------------- learned
// @@LEARNED-END@@

}  // namespace posenc
