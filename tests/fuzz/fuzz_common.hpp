// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/fuzz/fuzz_common.hpp — input decoding and the checked promise shared by the libFuzzer
// targets (tests/fuzz/fuzz_<family>.cpp, one per family).
//
// Each target reads its input as: one byte choosing the ISA path (among those this CPU runs), one
// byte choosing the function, then that function's arguments. Sizes are small (so that one input
// runs in microseconds) and may be negative or zero; pointers may be NULL; numbers are "nice"
// (finite, moderate) or special (0, -0, huge, tiny, subnormal, inf, -inf, NaN, raw bits). Outputs
// are poisoned before the call. The promise checked after every call (posenc.h):
//   - a status other than POSENC_OK leaves every output byte-identical (poison, or the original
//     contents of an in-place operand);
//   - POSENC_OK with only nice inputs writes no NaN into the outputs the check lists.
// AddressSanitizer and UBSan (the build, tests/fuzz/CMakeLists.txt) catch out-of-bounds accesses
// and undefined behaviour; a violated promise aborts with a message naming the function.
#pragma once

#include "posenc/posenc.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

namespace posenc_fuzz {

[[noreturn]] inline void fail(const char* fn, const char* what) {
  std::fprintf(stderr, "posenc fuzz: %s: %s (last error: %s)\n", fn, what, posenc_last_error_message());
  std::abort();
}

/// The input bytes, read front to back; zeros once exhausted.
struct Input {
  const uint8_t* p;
  size_t n;
  bool nice = true;  // every number read so far was finite and moderate

  Input(const uint8_t* data, size_t size) : p(data), n(size) {}
  uint8_t u8() {
    if (n == 0) return 0;
    --n;
    return *p++;
  }
  uint32_t u32() { uint32_t v = 0; for (int i = 0; i < 4; ++i) v = (v << 8) | u8(); return v; }
  uint64_t u64() { return (uint64_t(u32()) << 32) | u32(); }
  bool flag() { return (u8() & 1) != 0; }
  /// A size in [lo, hi] (mostly), or a wild value (1 in 32): negative, or so large that every
  /// byte count it enters overflows int64 (a valid huge size would make the call read or write
  /// that much of the caller's arrays, which the target cannot provide).
  int64_t size(int64_t lo, int64_t hi) {
    const uint8_t b = u8();
    if (b >= 248) {
      static const int64_t wild[] = {-1, -7, (INT64_C(1) << 62) + 1, std::numeric_limits<int64_t>::max(),
                                     std::numeric_limits<int64_t>::min(), -2, INT64_C(3) << 61,
                                     std::numeric_limits<int64_t>::max() - 1};
      return wild[b - 248];
    }
    return lo + static_cast<int64_t>(b) % (hi - lo + 1);
  }
  /// An int32 size in [lo, hi] (mostly), or a negative one.
  int32_t size32(int32_t lo, int32_t hi) {
    const uint8_t b = u8();
    if (b >= 250) return b == 255 ? std::numeric_limits<int32_t>::min() : -static_cast<int32_t>(b - 249);
    return lo + static_cast<int32_t>(b % (hi - lo + 1));
  }
  /// Enum values: mostly valid (0..count-1), sometimes anything.
  int32_t choice(int32_t count) {
    const uint8_t b = u8();
    if (b >= 250) return static_cast<int32_t>(u32() & 0x7fffffffu);  // (a negative value is not a valid C++ value of the enum)
    return static_cast<int32_t>(b % count);
  }
  /// A float64: nice (in [lo, hi]) 7 times in 8, else special.
  double real(double lo = -4, double hi = 4) {
    const uint8_t mode = u8();
    if (mode < 224) return lo + (hi - lo) * (u32() * 0x1.0p-32);
    nice = false;
    static const double special[] = {0.0, -0.0, 1e300, -1e300, 1e-310, std::numeric_limits<double>::infinity(),
                                     -std::numeric_limits<double>::infinity(),
                                     std::numeric_limits<double>::quiet_NaN(), 1e-300, -2.5e10, 1.0, -1.0};
    if (mode < 224 + 12) return special[mode - 224];
    const uint64_t bits = u64();
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
  }
  float realf(double lo = -4, double hi = 4) { return static_cast<float>(real(lo, hi)); }
};

/// An argument array; NULL when `null` (the caller's choice from the input).
template <class T> struct Arr {
  std::vector<T> v;
  bool null = false;
  T* ptr() { return null ? nullptr : v.data(); }
};

/// `count` elements (capped: sizes come from the input) read from the input, each from gen.
template <class T, class G> Arr<T> array(Input& in, int64_t count, G gen, bool may_be_null = true) {
  Arr<T> a;
  a.null = may_be_null && (in.u8() % 16 == 0);
  const int64_t c = count < 0 ? 0 : (count > 4096 ? 4096 : count);
  a.v.resize(static_cast<size_t>(c) + 1);  // never empty: data() is not NULL
  for (int64_t i = 0; i < c; ++i) a.v[size_t(i)] = static_cast<T>(gen());
  return a;
}

/// An output array of `count` elements (0 when the count is invalid or too large: the call must
/// fail before writing), filled with a poison byte pattern; NULL 1 time in 16.
template <class T> struct Out {
  std::vector<T> v;
  std::vector<unsigned char> init;
  bool null = false;
  Out(Input& in, int64_t count, int64_t cap = int64_t(1) << 22) {
    null = in.u8() % 16 == 0;
    const int64_t c = count < 0 || count > cap ? 0 : count;
    v.resize(static_cast<size_t>(c) + 1);
    std::memset(v.data(), 0xA5, v.size() * sizeof(T));
    snap();
  }
  /// An in-place operand: its current contents are the reference.
  void snap() {
    const auto* b = reinterpret_cast<const unsigned char*>(v.data());
    init.assign(b, b + v.size() * sizeof(T));
  }
  T* ptr() { return null ? nullptr : v.data(); }
  bool untouched() const { return std::memcmp(init.data(), v.data(), init.size()) == 0; }
  bool has_nan(int64_t count) const {
    for (int64_t i = 0; i < count && size_t(i) < v.size(); ++i)
      if (std::isnan(static_cast<double>(v[size_t(i)]))) return true;
    return false;
  }
};

/// Picks the ISA path from the first input byte (among those this CPU runs) and the thread count.
inline void setup(Input& in) {
  static const std::vector<posenc_isa> isas = [] {
    std::vector<posenc_isa> v;
    const uint32_t m = posenc_isa_available();  // a mask of posenc_isa values
    for (uint32_t b : {1u, 2u, 4u, 8u})
      if (m & b) v.push_back(static_cast<posenc_isa>(b));
    return v;
  }();
  const uint8_t b = in.u8();
  if (!isas.empty()) posenc_isa_set(isas[b % isas.size()]);
  posenc_threads_set((b >> 4) & 1 ? 2 : 1);
}

/// After a call: a failure leaves every output untouched; success with nice inputs writes no NaN
/// into the outputs given with their element counts.
template <class... O> void check(const char* fn, posenc_status s, const Input& in, O&&... outs) {
  if (s != POSENC_OK) {
    if (s == POSENC_ERR_INTERNAL) fail(fn, "POSENC_ERR_INTERNAL");
    const bool ok = (outs.first.untouched() && ...);
    if (!ok) fail(fn, "an output was modified by a failing call");
    return;
  }
  if (in.nice && (outs.first.has_nan(outs.second) || ...)) fail(fn, "NaN in an output of a call on finite input");
}

template <class T> std::pair<Out<T>&, int64_t> out(Out<T>& o, int64_t count) { return {o, count}; }

}  // namespace posenc_fuzz
