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
// @@GRAPH-END@@

// @@LEARNED-BEGIN@@ --------------------------------------------- learned
// @@LEARNED-END@@

}  // namespace posenc
