// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/rope.cpp — rope family (S¹): argument validation, frequency preparation, tiling.
#include "kernels/rope_table.hpp"
#include "lib/internal.hpp"
#include "lib/phase_prep.hpp"

#include <cstring>
#include <vector>

#include <tbb/task_arena.h>

POSENC_USE_KERNELS(rope_kernels_t, rope_kernels)

using namespace posenc;
using namespace posenc::detail;

namespace {

/// The int value of an enum argument without an enum-typed load: a C caller may pass any int,
/// and loading an out-of-range value as the enum type is undefined behaviour in C++ (UBSan).
template <class E>
int enum_bits(const E& e) {
  static_assert(sizeof(E) == sizeof(int), "C enums are int-sized here");
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

/// Rows per tile: about 16K output elements, a multiple of kRopeAnchorEvery (16) rows,
/// independent of the thread count.
int64_t rows_per_tile(int64_t row_len) {
  int64_t r = 16384 / (row_len > 0 ? row_len : 1);
  r = r / kRopeAnchorEvery * kRopeAnchorEvery;
  return r < kRopeAnchorEvery ? kRopeAnchorEvery : r;
}

}  // namespace

extern "C" POSENC_API posenc_status posenc_sinusoidal_f32(const int64_t* positions, int64_t n, int32_t dim,
                                                         double base, posenc_sinusoidal_layout layout,
                                                         float* out) {
  api_guard g("posenc_sinusoidal_f32");
  POSENC_CHECK(check_nonneg(n, "n"));
  if (dim <= 0 || dim % 2 != 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "dim must be even and > 0 (got %d)", dim);
  POSENC_CHECK(check_finite_positive(base, "base"));
  const int layout_i = enum_bits(layout);
  if (layout_i != POSENC_SINUSOIDAL_INTERLEAVED && layout_i != POSENC_SINUSOIDAL_HALVES)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "layout must be POSENC_SINUSOIDAL_INTERLEAVED (0) or POSENC_SINUSOIDAL_HALVES (1) (got %d)",
                     layout_i);
  int64_t total = 0;
  POSENC_CHECK(checked_mul(n, dim, &total, "out [n, dim]", sizeof(float)));
  POSENC_CHECK(check_not_null_if(out, total, "out"));
  if (n == 0) return POSENC_OK;
  const rope_kernels_t* k = nullptr;
  POSENC_CHECK(rope_kernels_active(&k));
  path(positions ? "sinusoidal.positions" : "sinusoidal.consecutive");
  // 6 float64 flops per (sin, cos) pair: one angle-addition step (the anchors are not counted).
  work(4.0 * double(total) + (positions ? 8.0 * double(n) : 0.0), 3.0 * double(total));
  POSENC_SHAPE("n=%lld dim=%d layout=%s", (long long)n, dim, layout_i ? "halves" : "interleaved");
  return guarded([&] {
    const int32_t half = dim / 2;
    std::vector<double> wh(pad_lanes(static_cast<size_t>(half)), 0.0), wl(wh.size(), 0.0);
    for (int32_t i = 0; i < half; ++i) {
      const double w = std::pow(base, -2.0 * i / dim);  // Vaswani et al. §3.5, in float64
      phase_turns(w, &wh[static_cast<size_t>(i)], &wl[static_cast<size_t>(i)]);
    }
    const int64_t grain = rows_per_tile(dim);
    parallel_tiles(tiles_of(n, grain), [&](int64_t t) {
      const int64_t r0 = t * grain, r1 = std::min(n, r0 + grain);
      k->sinusoidal_rows(positions, r0, r1, half, wh.data(), wl.data(), layout_i, out);
    });
    return POSENC_OK;
  });
}

// ============================================================================================
// RoPE
// ============================================================================================
namespace {

constexpr int64_t kMaxPosI = int64_t(1) << 53;

bool is_fin(double x) { return std::isfinite(x); }

/// Validates p and computes inv_freq (size rotary_dim/2) and the attention factor (HF
/// transformers modeling_rope_utils.py, REFERENCES.md §1). Nothing but the message on error.
posenc_status rope_freqs(const posenc_rope_params* p, std::vector<double>& inv, double& af) {
  POSENC_CHECK(check_not_null(p, "p"));
  if (p->struct_size != sizeof(posenc_rope_params))
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "p->struct_size must be sizeof(posenc_rope_params) = %zu (got %u); call posenc_rope_params_init",
                     sizeof(posenc_rope_params), p->struct_size);
  const int type = enum_bits(p->type);
  if (type < POSENC_ROPE_DEFAULT || type > POSENC_ROPE_LLAMA3)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->type must be a posenc_rope_type (0..6) (got %d)", type);
  const int32_t d = p->rotary_dim;
  if (d <= 0 || d % 2 != 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->rotary_dim must be even and > 0 (got %d)", d);
  if ((type == POSENC_ROPE_NTK || type == POSENC_ROPE_DYNAMIC) && d <= 2)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "p->rotary_dim must be > 2 for NTK/DYNAMIC scaling (exponent d/(d-2)) (got %d)", d);
  if (!(is_fin(p->theta) && p->theta > 0.0))
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->theta must be finite and > 0 (got %g)", p->theta);
  if (type == POSENC_ROPE_YARN && !(p->theta > 1.0))
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->theta must be > 1 for YARN (divides by ln theta) (got %g)",
                     p->theta);
  const double s = p->factor;
  if (!(is_fin(s) && s >= 1.0))
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->factor must be finite and >= 1 (got %g)", s);
  if (!(is_fin(p->attention_factor) && p->attention_factor >= 0.0))
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "p->attention_factor must be 0 (derive) or finite and > 0 (got %g)", p->attention_factor);
  if (p->seq_len < 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->seq_len must be >= 0 (got %lld)",
                     static_cast<long long>(p->seq_len));
  const int64_t L = p->original_max_position;
  const bool needs_L = type == POSENC_ROPE_DYNAMIC || type == POSENC_ROPE_YARN || type == POSENC_ROPE_LONGROPE ||
                       type == POSENC_ROPE_LLAMA3;
  if (needs_L && L <= 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "p->original_max_position must be > 0 for this scaling type (got %lld)", static_cast<long long>(L));
  if (type == POSENC_ROPE_LONGROPE && L < 2)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "p->original_max_position must be >= 2 for LONGROPE (divides by ln L) (got %lld)",
                     static_cast<long long>(L));
  const int32_t half = d / 2;
  if (type == POSENC_ROPE_YARN) {
    if (!(is_fin(p->beta_slow) && p->beta_slow > 0.0))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->beta_slow must be finite and > 0 (got %g)", p->beta_slow);
    if (!(is_fin(p->beta_fast) && p->beta_fast > p->beta_slow))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->beta_fast must be finite and > beta_slow (got %g, %g)",
                       p->beta_fast, p->beta_slow);
    if (!(is_fin(p->mscale) && p->mscale >= 0.0))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->mscale must be finite and >= 0 (got %g)", p->mscale);
    if (!(is_fin(p->mscale_all_dim) && p->mscale_all_dim >= 0.0))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->mscale_all_dim must be finite and >= 0 (got %g)",
                       p->mscale_all_dim);
    if (p->truncate != 0 && p->truncate != 1)
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->truncate must be 0 or 1 (got %d)", p->truncate);
  }
  if (type == POSENC_ROPE_LONGROPE) {
    if (p->short_factor == nullptr)
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->short_factor must be set for LONGROPE ([rotary_dim/2])");
    if (p->long_factor == nullptr)
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->long_factor must be set for LONGROPE ([rotary_dim/2])");
    for (int32_t j = 0; j < half; ++j) {
      if (!(is_fin(p->short_factor[j]) && p->short_factor[j] > 0.0))
        return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->short_factor[%d] must be finite and > 0 (got %g)", j,
                         p->short_factor[j]);
      if (!(is_fin(p->long_factor[j]) && p->long_factor[j] > 0.0))
        return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->long_factor[%d] must be finite and > 0 (got %g)", j,
                         p->long_factor[j]);
    }
  }
  if (type == POSENC_ROPE_LLAMA3) {
    if (!(is_fin(p->low_freq_factor) && p->low_freq_factor > 0.0))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->low_freq_factor must be finite and > 0 (got %g)",
                       p->low_freq_factor);
    if (!(is_fin(p->high_freq_factor) && p->high_freq_factor > p->low_freq_factor))
      return set_error(POSENC_ERR_INVALID_ARGUMENT,
                       "p->high_freq_factor must be finite and > low_freq_factor (got %g, %g)", p->high_freq_factor,
                       p->low_freq_factor);
  }

  const double dd = static_cast<double>(d);
  double base = p->theta;
  if (type == POSENC_ROPE_NTK) {
    base = p->theta * std::pow(s, dd / (dd - 2.0));
  } else if (type == POSENC_ROPE_DYNAMIC) {
    const double Ld = static_cast<double>(L);
    const double Lp = static_cast<double>(std::max(p->seq_len, L));
    base = p->theta * std::pow(s * Lp / Ld - (s - 1.0), dd / (dd - 2.0));
  }
  inv.assign(static_cast<size_t>(half), 0.0);
  for (int32_t j = 0; j < half; ++j) inv[static_cast<size_t>(j)] = 1.0 / std::pow(base, (2.0 * j) / dd);
  af = 1.0;
  switch (type) {
    case POSENC_ROPE_LINEAR:
      for (double& v : inv) v /= s;
      break;
    case POSENC_ROPE_YARN: {
      const double Ld = static_cast<double>(L);
      auto corr = [&](double r) { return dd * std::log(Ld / (2.0 * M_PI * r)) / (2.0 * std::log(p->theta)); };
      double low = corr(p->beta_fast), high = corr(p->beta_slow);
      if (p->truncate) {
        low = std::floor(low);
        high = std::ceil(high);
      }
      low = std::max(low, 0.0);
      high = std::min(high, dd - 1.0);
      if (low == high) high += 0.001;
      for (int32_t j = 0; j < half; ++j) {
        const double ramp = std::min(1.0, std::max(0.0, (j - low) / (high - low)));
        double& v = inv[static_cast<size_t>(j)];
        v = (v / s) * ramp + v * (1.0 - ramp);
      }
      auto mscale = [&](double m) { return s <= 1.0 ? 1.0 : 0.1 * m * std::log(s) + 1.0; };
      if (p->mscale != 0.0 && p->mscale_all_dim != 0.0) af = mscale(p->mscale) / mscale(p->mscale_all_dim);
      else af = mscale(1.0);
      break;
    }
    case POSENC_ROPE_LONGROPE: {
      const double* ext = p->seq_len > L ? p->long_factor : p->short_factor;
      for (int32_t j = 0; j < half; ++j)
        inv[static_cast<size_t>(j)] = 1.0 / (ext[j] * std::pow(p->theta, (2.0 * j) / dd));
      af = s <= 1.0 ? 1.0 : std::sqrt(1.0 + std::log(s) / std::log(static_cast<double>(L)));
      break;
    }
    case POSENC_ROPE_LLAMA3: {
      const double Ld = static_cast<double>(L);
      const double lf = p->low_freq_factor, hf = p->high_freq_factor;
      const double low_wl = Ld / lf, high_wl = Ld / hf;
      for (double& v : inv) {
        const double wl = 2.0 * M_PI / v;
        if (wl < high_wl) continue;
        if (wl > low_wl) {
          v = v / s;
        } else {
          const double sm = (Ld / wl - lf) / (hf - lf);
          v = (1.0 - sm) * v / s + sm * v;
        }
      }
      break;
    }
    default:
      break;
  }
  if (p->attention_factor != 0.0) af = p->attention_factor;
  return POSENC_OK;
}

/// Checks |positions[i]| <= 2^53 (positions may be NULL = 0..n-1).
posenc_status check_positions(const int64_t* positions, int64_t n) {
  if (positions == nullptr) {
    if (n - 1 > kMaxPosI)
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "positions (NULL = 0..n-1) must be <= 2^53 (n = %lld)",
                       static_cast<long long>(n));
    return POSENC_OK;
  }
  for (int64_t i = 0; i < n; ++i)
    if (positions[i] > kMaxPosI || positions[i] < -kMaxPosI)
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "positions[%lld] must satisfy |position| <= 2^53 (got %lld)",
                       static_cast<long long>(i), static_cast<long long>(positions[i]));
  return POSENC_OK;
}

/// Turns per position (double-double) padded with zeros to a multiple of `pad`.
void prep_turns(const std::vector<double>& inv, size_t pad, std::vector<double>& wh, std::vector<double>& wl) {
  const size_t n = (inv.size() + pad - 1) / pad * pad;
  wh.assign(n, 0.0);
  wl.assign(n, 0.0);
  for (size_t j = 0; j < inv.size(); ++j) phase_turns(inv[j], &wh[j], &wl[j]);
}

/// Validates one Q/K operand: heads >= 0, stride, pointer, extent.
posenc_status check_operand(const void* x, int64_t num_tokens, int64_t heads, int64_t head_dim, int64_t stride,
                            const char* xname, const char* hname, const char* sname, int64_t elem, bool optional,
                            int64_t* resolved_stride) {
  if (heads < 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "%s must be >= 0 (got %lld)", hname, static_cast<long long>(heads));
  int64_t row = 0;
  POSENC_CHECK(checked_mul(heads, head_dim, &row, xname, elem));
  if (stride < 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "%s must be >= 0 (got %lld)", sname, static_cast<long long>(stride));
  if (stride != 0 && stride < row)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "%s must be 0 (packed) or >= %s * head_dim = %lld (got %lld)",
                     sname, hname, static_cast<long long>(row), static_cast<long long>(stride));
  const int64_t st = stride == 0 ? row : stride;
  if (num_tokens > 0 && heads > 0) {
    if (x == nullptr) {
      if (optional)
        return set_error(POSENC_ERR_NULL_POINTER, "%s must not be NULL when %s > 0 (got %lld)", xname, hname,
                         static_cast<long long>(heads));
      return set_error(POSENC_ERR_NULL_POINTER, "%s must not be NULL when num_tokens and %s are > 0", xname, hname);
    }
    int64_t ext = 0;
    POSENC_CHECK(checked_mul(num_tokens - 1, st, &ext, xname, elem));
    if (__builtin_add_overflow(ext, row, &ext) || ext > std::numeric_limits<int64_t>::max() / elem)
      return set_error(POSENC_ERR_SIZE_OVERFLOW, "size of %s overflows", xname);
  }
  *resolved_stride = st;
  return POSENC_OK;
}

/// Common validation of the apply functions (after rotary_dim is known).
posenc_status check_apply(int32_t rotary_dim, int layout, const int64_t* positions, int64_t num_tokens,
                          int64_t head_dim, const void* q, int64_t num_q_heads, int64_t q_token_stride, const void* k,
                          int64_t num_k_heads, int64_t k_token_stride, int64_t elem, rope_qk_t* h) {
  if (layout != POSENC_ROPE_NEOX && layout != POSENC_ROPE_INTERLEAVED)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "layout must be POSENC_ROPE_NEOX (0) or POSENC_ROPE_INTERLEAVED (1) (got %d)", layout);
  POSENC_CHECK(check_nonneg(num_tokens, "num_tokens"));
  if (head_dim < rotary_dim)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "head_dim must be >= rotary_dim = %d (got %lld)", rotary_dim,
                     static_cast<long long>(head_dim));
  POSENC_CHECK(check_not_null_if(positions, num_tokens, "positions"));
  POSENC_CHECK(check_operand(q, num_tokens, num_q_heads, head_dim, q_token_stride, "q", "num_q_heads",
                             "q_token_stride", elem, false, &h->q_stride));
  POSENC_CHECK(check_operand(k, num_tokens, num_k_heads, head_dim, k_token_stride, "k", "num_k_heads",
                             "k_token_stride", elem, true, &h->k_stride));
  POSENC_CHECK(check_positions(positions, num_tokens));
  h->layout = layout;
  h->rotary_dim = rotary_dim;
  h->head_dim = head_dim;
  h->q = const_cast<void*>(q);
  h->num_q_heads = num_q_heads;
  h->k = const_cast<void*>(k);
  h->num_k_heads = k == nullptr ? 0 : num_k_heads;
  return POSENC_OK;
}

/// Roofline model and shape of an apply call: each rotated pair of every head is read and written
/// (6 float32 flops: 4 multiplies, 2 adds) plus 8 bytes of position per token.
void rope_apply_work(const rope_qk_t& h, int64_t num_tokens, size_t elem) {
  if (prof_flags() == 0) return;
  const double pairs = double(num_tokens) * double(h.num_q_heads + h.num_k_heads) * (h.rotary_dim / 2);
  work(4.0 * double(elem) * pairs + 8.0 * double(num_tokens), 6.0 * pairs, true);
  POSENC_SHAPE("tokens=%lld q=%lldx%lld k=%lldx%lld rotary=%d", (long long)num_tokens, (long long)h.num_q_heads,
               (long long)h.head_dim, (long long)h.num_k_heads, (long long)h.head_dim, h.rotary_dim);
}

/// Tokens per apply tile: a multiple of kRopeAnchorEvery, independent of the thread count.
constexpr int64_t kApplyTile = 16;

/// Per-thread scratch for the apply kernels, allocated before any tile runs (so that an
/// allocation failure leaves q and k untouched): one slot of `floats` per arena thread.
class ScratchPool {
 public:
  explicit ScratchPool(size_t floats)
      : floats_(floats), slots_(std::max<int32_t>(1, thread_count())),
        pool_(static_cast<size_t>(slots_) * floats) {}
  /// The calling thread's slot. Outside the arena (serial run) that is slot 0; a thread index
  /// beyond the slots (the thread count changed concurrently) gets a thread_local buffer.
  float* get() {
    const int idx = tbb::this_task_arena::current_thread_index();
    if (idx < 0) return pool_.data();
    if (idx < slots_) return pool_.data() + static_cast<size_t>(idx) * floats_;
    thread_local std::vector<float> spare;
    if (spare.size() < floats_) spare.resize(floats_);
    return spare.data();
  }

 private:
  size_t floats_;
  int32_t slots_;
  std::vector<float> pool_;
};

template <class E, class Fn>
posenc_status rope_apply_common(const char* /*name*/, const posenc_rope_params* p, int layout,
                                const int64_t* positions, int64_t num_tokens, int64_t head_dim, E* q,
                                int64_t num_q_heads, int64_t q_token_stride, E* k, int64_t num_k_heads,
                                int64_t k_token_stride, int32_t inverse, Fn pick) {
  std::vector<double> inv;
  double af = 1.0;
  POSENC_CHECK(rope_freqs(p, inv, af));
  rope_qk_t h{};
  POSENC_CHECK(check_apply(p->rotary_dim, layout, positions, num_tokens, head_dim, q, num_q_heads, q_token_stride, k,
                           num_k_heads, k_token_stride, static_cast<int64_t>(sizeof(E)), &h));
  h.inverse = inverse != 0;
  if (num_tokens == 0 || (h.num_q_heads == 0 && h.num_k_heads == 0)) return POSENC_OK;
  const rope_kernels_t* kt = nullptr;
  POSENC_CHECK(rope_kernels_active(&kt));
  path(layout == POSENC_ROPE_NEOX ? "rope.apply.neox" : "rope.apply.interleaved");
  rope_apply_work(h, num_tokens, sizeof(E));
  return guarded([&] {
    std::vector<double> wh, wl;
    prep_turns(inv, 16, wh, wl);
    const rope_freqs_t f{static_cast<int32_t>(inv.size()), wh.data(), wl.data(), af};
    const auto fn = pick(kt);
    const size_t scratch = static_cast<size_t>(4 * (kApplyTile + 1)) * pad_lanes(static_cast<size_t>(p->rotary_dim));
    ScratchPool pool(scratch);
    parallel_tiles(tiles_of(num_tokens, kApplyTile), [&](int64_t t) {
      const int64_t t0 = t * kApplyTile, t1 = std::min(num_tokens, t0 + kApplyTile);
      fn(positions, t0, t1, &f, &h, pool.get());
    });
    return POSENC_OK;
  });
}

}  // namespace

extern "C" POSENC_API posenc_status posenc_rope_params_init(posenc_rope_params* p, posenc_rope_type type,
                                                           int32_t rotary_dim, double theta) {
  api_guard g("posenc_rope_params_init");
  POSENC_CHECK(check_not_null(p, "p"));
  const int type_i = enum_bits(type);
  if (type_i < POSENC_ROPE_DEFAULT || type_i > POSENC_ROPE_LLAMA3)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "type must be a posenc_rope_type (0..6) (got %d)", type_i);
  if (rotary_dim <= 0 || rotary_dim % 2 != 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "rotary_dim must be even and > 0 (got %d)", rotary_dim);
  POSENC_CHECK(check_finite_positive(theta, "theta"));
  posenc_rope_params r;
  std::memset(&r, 0, sizeof r);
  r.struct_size = sizeof(posenc_rope_params);
  r.type = static_cast<posenc_rope_type>(type_i);
  r.rotary_dim = rotary_dim;
  r.theta = theta;
  r.factor = 1.0;
  r.original_max_position = 0;
  r.seq_len = 0;
  r.low_freq_factor = 1.0;
  r.high_freq_factor = 4.0;
  r.beta_fast = 32.0;
  r.beta_slow = 1.0;
  r.mscale = 0.0;
  r.mscale_all_dim = 0.0;
  r.attention_factor = 0.0;
  r.truncate = 1;
  r.short_factor = nullptr;
  r.long_factor = nullptr;
  *p = r;
  return POSENC_OK;
}

extern "C" POSENC_API posenc_status posenc_rope_inv_freq(const posenc_rope_params* p, double* inv_freq,
                                                        double* attention_factor) {
  api_guard g("posenc_rope_inv_freq");
  POSENC_CHECK(check_not_null(p, "p"));
  POSENC_CHECK(check_not_null(inv_freq, "inv_freq"));
  return guarded([&] {
    std::vector<double> inv;
    double af = 1.0;
    POSENC_CHECK(rope_freqs(p, inv, af));
    std::copy(inv.begin(), inv.end(), inv_freq);
    if (attention_factor) *attention_factor = af;
    return POSENC_OK;
  });
}

extern "C" POSENC_API posenc_status posenc_rope_cos_sin_f32(const posenc_rope_params* p, const int64_t* positions,
                                                           int64_t n, float* cos_out, float* sin_out) {
  api_guard g("posenc_rope_cos_sin_f32");
  std::vector<double> inv;
  double af = 1.0;
  POSENC_CHECK(guarded([&] { return rope_freqs(p, inv, af); }));
  POSENC_CHECK(check_nonneg(n, "n"));
  int64_t total = 0;
  POSENC_CHECK(checked_mul(n, p->rotary_dim / 2, &total, "cos_out [n, rotary_dim/2]", sizeof(float)));
  POSENC_CHECK(check_not_null_if(cos_out, total, "cos_out"));
  POSENC_CHECK(check_not_null_if(sin_out, total, "sin_out"));
  POSENC_CHECK(check_positions(positions, n));
  if (n == 0) return POSENC_OK;
  const rope_kernels_t* k = nullptr;
  POSENC_CHECK(rope_kernels_active(&k));
  path(positions ? "rope.cos_sin.positions" : "rope.cos_sin.consecutive");
  work(8.0 * double(total) + (positions ? 8.0 * double(n) : 0.0), 8.0 * double(total));  // step + scale
  POSENC_SHAPE("n=%lld rotary=%d", (long long)n, p->rotary_dim);
  return guarded([&] {
    std::vector<double> wh, wl;
    prep_turns(inv, 16, wh, wl);
    const rope_freqs_t f{static_cast<int32_t>(inv.size()), wh.data(), wl.data(), af};
    const int64_t grain = rows_per_tile(p->rotary_dim);
    parallel_tiles(tiles_of(n, grain), [&](int64_t t) {
      const int64_t r0 = t * grain, r1 = std::min(n, r0 + grain);
      k->cos_sin_rows(positions, r0, r1, &f, cos_out, sin_out);
    });
    return POSENC_OK;
  });
}

extern "C" POSENC_API posenc_status posenc_rope_apply_f32(const posenc_rope_params* p, posenc_rope_layout layout,
                                                         const int64_t* positions, int64_t num_tokens,
                                                         int64_t head_dim, float* q, int64_t num_q_heads,
                                                         int64_t q_token_stride, float* k, int64_t num_k_heads,
                                                         int64_t k_token_stride, int32_t inverse) {
  api_guard g("posenc_rope_apply_f32");
  return rope_apply_common("posenc_rope_apply_f32", p, enum_bits(layout), positions, num_tokens, head_dim, q, num_q_heads,
                           q_token_stride, k, num_k_heads, k_token_stride, inverse,
                           [](const rope_kernels_t* kt) { return kt->apply_f32_rows; });
}

extern "C" POSENC_API posenc_status posenc_rope_apply_bf16(const posenc_rope_params* p, posenc_rope_layout layout,
                                                          const int64_t* positions, int64_t num_tokens,
                                                          int64_t head_dim, uint16_t* q, int64_t num_q_heads,
                                                          int64_t q_token_stride, uint16_t* k, int64_t num_k_heads,
                                                          int64_t k_token_stride, int32_t inverse) {
  api_guard g("posenc_rope_apply_bf16");
  return rope_apply_common("posenc_rope_apply_bf16", p, enum_bits(layout), positions, num_tokens, head_dim, q, num_q_heads,
                           q_token_stride, k, num_k_heads, k_token_stride, inverse,
                           [](const rope_kernels_t* kt) { return kt->apply_bf16_rows; });
}

extern "C" POSENC_API posenc_status posenc_rope_apply_cached_f32(
    const float* cos_table, const float* sin_table, int64_t table_rows, int32_t rotary_dim, posenc_rope_layout layout,
    const int64_t* positions, int64_t num_tokens, int64_t head_dim, float* q, int64_t num_q_heads,
    int64_t q_token_stride, float* k, int64_t num_k_heads, int64_t k_token_stride, int32_t inverse) {
  api_guard g("posenc_rope_apply_cached_f32");
  POSENC_CHECK(check_nonneg(table_rows, "table_rows"));
  if (rotary_dim <= 0 || rotary_dim % 2 != 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "rotary_dim must be even and > 0 (got %d)", rotary_dim);
  int64_t tsize = 0;
  POSENC_CHECK(checked_mul(table_rows, rotary_dim / 2, &tsize, "cos_table [table_rows, rotary_dim/2]", sizeof(float)));
  rope_qk_t h{};
  POSENC_CHECK(check_apply(rotary_dim, enum_bits(layout), positions, num_tokens, head_dim, q, num_q_heads, q_token_stride, k,
                           num_k_heads, k_token_stride, static_cast<int64_t>(sizeof(float)), &h));
  if (num_tokens > 0) {
    POSENC_CHECK(check_not_null(cos_table, "cos_table"));
    POSENC_CHECK(check_not_null(sin_table, "sin_table"));
  }
  for (int64_t i = 0; i < num_tokens; ++i)
    if (positions[i] < 0 || positions[i] >= table_rows)
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "positions[%lld] must be in [0, table_rows = %lld) (got %lld)",
                       static_cast<long long>(i), static_cast<long long>(table_rows),
                       static_cast<long long>(positions[i]));
  h.inverse = inverse != 0;
  if (num_tokens == 0 || (h.num_q_heads == 0 && h.num_k_heads == 0)) return POSENC_OK;
  const rope_kernels_t* kt = nullptr;
  POSENC_CHECK(rope_kernels_active(&kt));
  path(enum_bits(layout) == POSENC_ROPE_NEOX ? "rope.apply_cached.neox" : "rope.apply_cached.interleaved");
  rope_apply_work(h, num_tokens, sizeof(float));
  work(8.0 * double(num_tokens) * (rotary_dim / 2));  // the cos and sin rows read
  return guarded([&] {
    const size_t scratch = 4 * pad_lanes(static_cast<size_t>(rotary_dim));
    ScratchPool pool(scratch);
    parallel_tiles(tiles_of(num_tokens, kApplyTile), [&](int64_t t) {
      const int64_t t0 = t * kApplyTile, t1 = std::min(num_tokens, t0 + kApplyTile);
      kt->apply_cached_f32_rows(cos_table, sin_table, positions, t0, t1, &h, pool.get());
    });
    return POSENC_OK;
  });
}

extern "C" POSENC_API posenc_status posenc_rope_decay_f64(const double* inv_freq, int32_t num_freqs, int64_t n_begin,
                                                         int64_t n_step, int64_t count, double* f, double* bound) {
  api_guard g("posenc_rope_decay_f64");
  if (num_freqs <= 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "num_freqs must be > 0 (got %d)", num_freqs);
  POSENC_CHECK(check_not_null(inv_freq, "inv_freq"));
  for (int32_t j = 0; j < num_freqs; ++j)
    if (!is_fin(inv_freq[j]))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "inv_freq[%d] must be finite (got %g)", j, inv_freq[j]);
  POSENC_CHECK(check_nonneg(count, "count"));
  POSENC_CHECK(check_not_null_if(f, count, "f"));
  if (count > 0) {
    int64_t span = 0, last = 0;
    if (__builtin_mul_overflow(count - 1, n_step, &span) || __builtin_add_overflow(n_begin, span, &last))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "n_begin + (count-1)*n_step overflows (n_begin %lld, n_step %lld)",
                       static_cast<long long>(n_begin), static_cast<long long>(n_step));
    for (int64_t v : {n_begin, last, n_step})
      if (v > kMaxPosI || v < -kMaxPosI)
        return set_error(POSENC_ERR_INVALID_ARGUMENT,
                         "n_begin, n_step and the last n must satisfy |n| <= 2^53 (got %lld)", static_cast<long long>(v));
  }
  if (count == 0) return POSENC_OK;
  const rope_kernels_t* k = nullptr;
  POSENC_CHECK(rope_kernels_active(&k));
  // f alone: one Chebyshev step (FMA) and one add per term; with the bound: the rotation (2 mul,
  // 2 FMA), the running sums (2 add), |S| (mul, FMA, sqrt) and 2 adds: 14 flops per term.
  path(bound ? "rope.decay.f_bound" : "rope.decay.f");
  work(8.0 * double(count) * (bound ? 2 : 1), (bound ? 14.0 : 3.0) * double(count) * num_freqs);
  POSENC_SHAPE("freqs=%d count=%lld", num_freqs, (long long)count);
  return guarded([&] {
    std::vector<double> inv(inv_freq, inv_freq + num_freqs), wh, wl;
    prep_turns(inv, 64, wh, wl);
    parallel_tiles(tiles_of(count, kRopeDecayTile), [&](int64_t t) {
      const int64_t r0 = t * kRopeDecayTile, r1 = std::min(count, r0 + kRopeDecayTile);
      k->decay_rows(wh.data(), wl.data(), num_freqs, n_begin, n_step, r0, r1, f, bound);
    });
    return POSENC_OK;
  });
}
