// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/api_catalogue_common.hpp — the types of the API catalogue (tests/api_catalogue.hpp): a call
// with the buffers it may write, the buffer pool of one call and the helper that appends a call.
// Each ApiCall owns its buffers.
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

/// A fresh, empty set of buffers for one call.
inline std::shared_ptr<Bufs> fresh() { return std::make_shared<Bufs>(); }

/// Appends one call to a catalogue: its name and family, the buffers it owns, the regions it
/// may write and the call itself; the regions' contents now are what reset() restores.
struct Adder {
  std::vector<ApiCall>& calls;
  void operator()(const char* name, const char* family, std::shared_ptr<Bufs> b, std::vector<ApiRegion> outs,
                  std::function<posenc_status()> fn) const {
    ApiCall c;
    c.name = name;
    c.family = family;
    c.call = std::move(fn);
    c.outs = std::move(outs);
    c.state = b;
    c.init = c.snapshot();
    calls.push_back(std::move(c));
  }
};

}  // namespace api_detail
}  // namespace posenc_test
