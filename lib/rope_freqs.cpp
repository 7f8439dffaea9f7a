// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/rope_freqs.cpp — RoPE parameters: defaults, reading any struct_size version, validation,
// the frequency formulas of every scaling type (HF transformers modeling_rope_utils.py, vLLM
// rotary_embedding/, ggml rope_yarn), position axes, and the reusable plan.
#include "lib/rope_common.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <new>

using namespace posenc;
using namespace posenc::detail;

namespace {

bool is_fin(double x) { return std::isfinite(x); }

/// x finite and >= lo (strict: > lo).
bool in_range(double x, double lo, bool strict) { return is_fin(x) && (strict ? x > lo : x >= lo); }

posenc_status check_array(const double* a, int32_t n, const char* name) {
  if (a == nullptr) return POSENC_OK;
  for (int32_t j = 0; j < n; ++j)
    if (!(is_fin(a[j]) && a[j] > 0.0))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->%s[%d] must be finite and > 0 (got %g)", name, j, a[j]);
  return POSENC_OK;
}

/// Number of leading positive sections of an AXIAL config.
int32_t axial_axes(const posenc_rope_params& p) {
  int32_t n = 0;
  while (n < 4 && p.sections[n] > 0) ++n;
  return n;
}

posenc_status check_sections(const posenc_rope_params& p, int type) {
  const int axes = enum_bits(p.axes);
  if (axes < POSENC_ROPE_AXES_1D || axes > POSENC_ROPE_AXES_AXIAL)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->axes must be a posenc_rope_axes (0..3) (got %d)", axes);
  if (axes == POSENC_ROPE_AXES_1D) return POSENC_OK;
  const int32_t half = p.rotary_dim / 2;
  const int32_t* s = p.sections;
  int64_t sum = 0;
  for (int a = 0; a < 4; ++a) sum += s[a];
  if (axes == POSENC_ROPE_AXES_MROPE || axes == POSENC_ROPE_AXES_MROPE_INTERLEAVED) {
    if (s[0] < 0 || s[1] < 0 || s[2] < 0 || s[3] != 0 || sum != half)
      return set_error(POSENC_ERR_INVALID_ARGUMENT,
                       "p->sections must be 3 values >= 0 (then 0) summing to rotary_dim/2 = %d for M-RoPE "
                       "(got %d %d %d %d)",
                       half, s[0], s[1], s[2], s[3]);
    return POSENC_OK;
  }
  const int32_t n = axial_axes(p);
  bool ok = n >= 1 && sum == half;
  for (int a = n; a < 4; ++a) ok = ok && s[a] == 0;
  if (!ok)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "p->sections must be 1..4 values > 0 (then 0) summing to rotary_dim/2 = %d for AXIAL "
                     "(got %d %d %d %d)",
                     half, s[0], s[1], s[2], s[3]);
  if (type == POSENC_ROPE_NTK || type == POSENC_ROPE_DYNAMIC)
    for (int a = 0; a < n; ++a)
      if (s[a] < 2)
        return set_error(POSENC_ERR_INVALID_ARGUMENT,
                         "p->sections[%d] must be >= 2 for NTK/DYNAMIC (each section's ladder has rotary dim "
                         "2*sections[a] > 2) (got %d)",
                         a, s[a]);
  return POSENC_OK;
}

posenc_status validate(const posenc_rope_params& p) {
  const int type = enum_bits(p.type);
  if (type < POSENC_ROPE_DEFAULT || type > POSENC_ROPE_NTK_VLLM)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->type must be a posenc_rope_type (0..8) (got %d)", type);
  const int32_t d = p.rotary_dim;
  if (d <= 0 || d % 2 != 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->rotary_dim must be even and > 0 (got %d)", d);
  if ((type == POSENC_ROPE_NTK || type == POSENC_ROPE_DYNAMIC) && d <= 2)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "p->rotary_dim must be > 2 for NTK/DYNAMIC scaling (exponent d/(d-2)) (got %d)", d);
  if (!in_range(p.theta, 0.0, true))
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->theta must be finite and > 0 (got %g)", p.theta);
  if (type == POSENC_ROPE_YARN && !(p.theta > 1.0))
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->theta must be > 1 for YARN (divides by ln theta) (got %g)",
                     p.theta);
  if (!in_range(p.factor, 0.0, true))
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->factor must be finite and > 0 (got %g)", p.factor);
  if (!in_range(p.attention_factor, 0.0, false))
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "p->attention_factor must be 0 (derive) or finite and > 0 (got %g)", p.attention_factor);
  if (p.seq_len < 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->seq_len must be >= 0 (got %lld)",
                     static_cast<long long>(p.seq_len));
  const int64_t L = p.original_max_position;
  const bool needs_L = (type == POSENC_ROPE_DYNAMIC && p.alpha == 0.0) || type == POSENC_ROPE_YARN ||
                       type == POSENC_ROPE_LONGROPE || type == POSENC_ROPE_LLAMA3;
  if (needs_L && L <= 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "p->original_max_position must be > 0 for this scaling type (got %lld)", static_cast<long long>(L));
  if (type == POSENC_ROPE_LONGROPE && L < 2)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "p->original_max_position must be >= 2 for LONGROPE (divides by ln L) (got %lld)",
                     static_cast<long long>(L));
  const int32_t half = d / 2;
  if (type == POSENC_ROPE_YARN) {
    if (!in_range(p.beta_slow, 0.0, true))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->beta_slow must be finite and > 0 (got %g)", p.beta_slow);
    if (!(is_fin(p.beta_fast) && p.beta_fast > p.beta_slow))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->beta_fast must be finite and > beta_slow (got %g, %g)",
                       p.beta_fast, p.beta_slow);
    if (!in_range(p.mscale, 0.0, false))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->mscale must be finite and >= 0 (got %g)", p.mscale);
    if (!in_range(p.mscale_all_dim, 0.0, false))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->mscale_all_dim must be finite and >= 0 (got %g)",
                       p.mscale_all_dim);
    if (p.truncate != 0 && p.truncate != 1)
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->truncate must be 0 or 1 (got %d)", p.truncate);
    if (!in_range(p.extrapolation_factor, 0.0, false))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->extrapolation_factor must be finite and >= 0 (got %g)",
                       p.extrapolation_factor);
    if (!in_range(p.attn_factor, 0.0, true))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->attn_factor must be finite and > 0 (got %g)", p.attn_factor);
  }
  if (type == POSENC_ROPE_LONGROPE) {
    if (p.short_factor == nullptr)
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->short_factor must be set for LONGROPE ([rotary_dim/2])");
    if (p.long_factor == nullptr)
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->long_factor must be set for LONGROPE ([rotary_dim/2])");
    POSENC_CHECK(check_array(p.short_factor, half, "short_factor"));
    POSENC_CHECK(check_array(p.long_factor, half, "long_factor"));
  }
  if (type == POSENC_ROPE_LLAMA3) {
    if (!in_range(p.low_freq_factor, 0.0, true))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->low_freq_factor must be finite and > 0 (got %g)",
                       p.low_freq_factor);
    if (!(is_fin(p.high_freq_factor) && p.high_freq_factor >= p.low_freq_factor))
      return set_error(POSENC_ERR_INVALID_ARGUMENT,
                       "p->high_freq_factor must be finite and >= low_freq_factor (got %g, %g)", p.high_freq_factor,
                       p.low_freq_factor);
  }
  if (type == POSENC_ROPE_PROPORTIONAL && !(is_fin(p.partial_rotary_factor) && p.partial_rotary_factor >= 0.0 &&
                                            p.partial_rotary_factor <= 1.0))
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->partial_rotary_factor must be in [0, 1] (got %g)",
                     p.partial_rotary_factor);
  if (type == POSENC_ROPE_NTK_VLLM && !in_range(p.mixed_b, 0.0, false))
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->mixed_b must be finite and >= 0 (0 = fixed NTK) (got %g)",
                     p.mixed_b);
  if (type == POSENC_ROPE_DYNAMIC && !in_range(p.alpha, 0.0, false))
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->alpha must be finite and >= 0 (0 = HF dynamic NTK) (got %g)",
                     p.alpha);
  POSENC_CHECK(check_array(p.freq_factors, half, "freq_factors"));
  if (p.seq_len_from_positions != 0 && p.seq_len_from_positions != 1)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "p->seq_len_from_positions must be 0 or 1 (got %d)",
                     p.seq_len_from_positions);
  return check_sections(p, type);
}

/// The scaling type's ladder for rotary dim d: inv[0 .. d/2) (global pair index off + i for the
/// per-pair arrays) and the attention factor, as documented at posenc_rope_inv_freq.
void ladder(const posenc_rope_params& p, int32_t d, int32_t off, int64_t seq_len, double* inv, double* af_out) {
  const int type = enum_bits(p.type);
  const int32_t half = d / 2;
  const double dd = static_cast<double>(d);
  const double s = p.factor;
  const int64_t L = p.original_max_position;
  const double Ld = static_cast<double>(L);
  double base = p.theta;
  if (type == POSENC_ROPE_NTK) {
    base = p.theta * std::pow(s, dd / (dd - 2.0));
  } else if (type == POSENC_ROPE_DYNAMIC) {
    if (p.alpha > 0.0) {
      base = p.theta * std::pow(p.alpha, dd / (dd - 2.0));  // vLLM DynamicNTKAlphaRotaryEmbedding
    } else {
      const double Lp = static_cast<double>(std::max(seq_len, L));
      base = p.theta * std::pow(s * Lp / Ld - (s - 1.0), dd / (dd - 2.0));
    }
  } else if (type == POSENC_ROPE_NTK_VLLM && p.mixed_b == 0.0) {
    base = p.theta * s;
  }
  auto ff = [&](int32_t j) { return p.freq_factors ? p.freq_factors[off + j] : 1.0; };
  for (int32_t j = 0; j < half; ++j) inv[j] = 1.0 / (std::pow(base, (2.0 * j) / dd) * ff(j));
  double af = 1.0;
  switch (type) {
    case POSENC_ROPE_LINEAR:
      for (int32_t j = 0; j < half; ++j) inv[j] /= s;
      break;
    case POSENC_ROPE_YARN: {
      auto corr = [&](double r) { return dd * std::log(Ld / (2.0 * M_PI * r)) / (2.0 * std::log(p.theta)); };
      double low = corr(p.beta_fast), high = corr(p.beta_slow);
      if (p.truncate) {
        low = std::floor(low);
        high = std::ceil(high);
      }
      low = std::max(low, 0.0);
      high = std::min(high, dd - 1.0);
      if (low == high) high += 0.001;
      for (int32_t j = 0; j < half; ++j) {
        const double ramp = std::min(1.0, std::max(0.0, (j - low) / (high - low)));
        const double mask = (1.0 - ramp) * p.extrapolation_factor;
        inv[j] = (inv[j] / s) * (1.0 - mask) + inv[j] * mask;
      }
      auto mscale = [&](double m) { return s <= 1.0 ? 1.0 : 0.1 * m * std::log(s) + 1.0; };
      af = (p.mscale != 0.0 && p.mscale_all_dim != 0.0) ? mscale(p.mscale) / mscale(p.mscale_all_dim) : mscale(1.0);
      af *= p.attn_factor;
      break;
    }
    case POSENC_ROPE_LONGROPE: {
      const double* ext = seq_len > L ? p.long_factor : p.short_factor;
      for (int32_t j = 0; j < half; ++j) inv[j] = 1.0 / (ext[off + j] * std::pow(p.theta, (2.0 * j) / dd) * ff(j));
      af = s <= 1.0 ? 1.0 : std::sqrt(1.0 + std::log(s) / std::log(Ld));
      break;
    }
    case POSENC_ROPE_LLAMA3: {
      const double lf = p.low_freq_factor, hf = p.high_freq_factor;
      const double low_wl = Ld / lf, high_wl = Ld / hf;
      for (int32_t j = 0; j < half; ++j) {
        double& v = inv[j];
        const double wl = 2.0 * M_PI / v;
        if (wl < high_wl) continue;
        if (wl > low_wl) {
          v = v / s;
        } else {
          const double sm = lf == hf ? 0.0 : (Ld / wl - lf) / (hf - lf);  // vLLM: 0 when equal
          v = (1.0 - sm) * v / s + sm * v;
        }
      }
      break;
    }
    case POSENC_ROPE_PROPORTIONAL: {
      const double n = std::floor(p.partial_rotary_factor * dd / 2.0);
      for (int32_t j = 0; j < half; ++j) inv[j] = j < n ? inv[j] / s : 0.0;
      break;
    }
    case POSENC_ROPE_NTK_VLLM:
      if (p.mixed_b == 0.0) {
        const double div = std::pow(s, 2.0 / dd);
        for (int32_t j = 0; j < half; ++j) inv[j] /= div;
      } else {
        const double a = std::log(s) / std::pow(dd / 2.0, p.mixed_b);
        for (int32_t j = 0; j < half; ++j) inv[j] /= std::exp(a * std::pow(static_cast<double>(j + 1), p.mixed_b));
      }
      break;
    default:
      break;
  }
  if (p.attention_factor != 0.0) af = p.attention_factor;
  *af_out = af;
}

}  // namespace

namespace posenc {
namespace detail {

posenc_rope_params rope_params_defaults(int type, int32_t rotary_dim, double theta) {
  posenc_rope_params r;
  std::memset(&r, 0, sizeof r);
  r.struct_size = sizeof(posenc_rope_params);
  std::memcpy(&r.type, &type, sizeof type);
  r.rotary_dim = rotary_dim;
  r.theta = theta;
  r.factor = 1.0;
  r.low_freq_factor = 1.0;
  r.high_freq_factor = 4.0;
  r.beta_fast = 32.0;
  r.beta_slow = 1.0;
  r.truncate = 1;
  r.axes = POSENC_ROPE_AXES_1D;
  r.partial_rotary_factor = 1.0;
  r.extrapolation_factor = 1.0;
  r.attn_factor = 1.0;
  return r;
}

posenc_status rope_params_read(const posenc_rope_params* p, posenc_rope_params* out) {
  POSENC_CHECK(check_not_null(p, "p"));
  const uint32_t sz = p->struct_size;
  if (sz != sizeof(posenc_rope_params) && sz != POSENC_ROPE_PARAMS_SIZE_V1)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "p->struct_size must be sizeof(posenc_rope_params) = %zu or POSENC_ROPE_PARAMS_SIZE_V1 = %u "
                     "(got %u); call posenc_rope_params_init",
                     sizeof(posenc_rope_params), POSENC_ROPE_PARAMS_SIZE_V1, sz);
  posenc_rope_params r = rope_params_defaults(0, 0, 0.0);
  std::memcpy(&r, p, sz);  // a 0.1 caller's struct ends at POSENC_ROPE_PARAMS_SIZE_V1: read no further
  r.struct_size = sizeof(posenc_rope_params);
  POSENC_CHECK(validate(r));
  *out = r;
  return POSENC_OK;
}

void rope_compute_freqs(const posenc_rope_params& p, int64_t seq_len, double* inv, double* af) {
  if (enum_bits(p.axes) != POSENC_ROPE_AXES_AXIAL) {
    ladder(p, p.rotary_dim, 0, seq_len, inv, af);
    return;
  }
  int32_t off = 0;
  for (int32_t a = 0; a < axial_axes(p); ++a) {
    double af_a = 1.0;
    ladder(p, 2 * p.sections[a], off, seq_len, inv + off, &af_a);
    if (a == 0) *af = af_a;  // no type's attention factor depends on the rotary dim
    off += p.sections[a];
  }
}

int32_t rope_num_axes(const posenc_rope_params& p) {
  switch (enum_bits(p.axes)) {
    case POSENC_ROPE_AXES_MROPE:
    case POSENC_ROPE_AXES_MROPE_INTERLEAVED:
      return 3;
    case POSENC_ROPE_AXES_AXIAL:
      return axial_axes(p);
    default:
      return 1;
  }
}

std::vector<int32_t> rope_axis_of(const posenc_rope_params& p) {
  const int32_t half = p.rotary_dim / 2;
  std::vector<int32_t> ax(pad_lanes(static_cast<size_t>(half)), 0);
  const int32_t* s = p.sections;
  const int mode = enum_bits(p.axes);
  int32_t off = 0;
  for (int32_t j = 0; j < half; ++j) {
    int32_t a = 0;
    if (mode == POSENC_ROPE_AXES_MROPE) {
      a = j < s[0] ? 0 : (j < s[0] + s[1] ? 1 : 2);
    } else if (mode == POSENC_ROPE_AXES_MROPE_INTERLEAVED) {
      a = (j % 3 == 1 && j < 3 * s[1]) ? 1 : ((j % 3 == 2 && j < 3 * s[2]) ? 2 : 0);
    } else if (mode == POSENC_ROPE_AXES_AXIAL) {
      a = 0;
      off = 0;
      while (a < 3 && j >= off + s[a]) off += s[a++];
    }
    ax[static_cast<size_t>(j)] = a;
  }
  return ax;
}

void rope_freqset::compute(const posenc_rope_params& p, int64_t seq_len) {
  const size_t half = static_cast<size_t>(p.rotary_dim / 2);
  inv.assign(half, 0.0);
  rope_compute_freqs(p, seq_len, inv.data(), &af);
  wh.assign(pad_lanes(half), 0.0);
  wl.assign(wh.size(), 0.0);
  for (size_t j = 0; j < half; ++j) freq_turns(inv[j], &wh[j], &wl[j]);
}

posenc_status rope_check_positions(const int64_t* positions, int64_t count, int64_t* seq_len_out) {
  int64_t mx = count > 0 ? count - 1 : -1;
  if (positions == nullptr) {
    if (count - 1 > kRopeMaxPos)
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "positions (NULL = 0..n-1) must be <= 2^53 (n = %lld)",
                       static_cast<long long>(count));
  } else {
    mx = std::numeric_limits<int64_t>::min();
    for (int64_t i = 0; i < count; ++i) {
      if (positions[i] > kRopeMaxPos || positions[i] < -kRopeMaxPos)
        return set_error(POSENC_ERR_INVALID_ARGUMENT, "positions[%lld] must satisfy |position| <= 2^53 (got %lld)",
                         static_cast<long long>(i), static_cast<long long>(positions[i]));
      mx = std::max(mx, positions[i]);
    }
  }
  if (seq_len_out) *seq_len_out = count > 0 ? std::max<int64_t>(mx + 1, 0) : 0;
  return POSENC_OK;
}

}  // namespace detail
}  // namespace posenc

posenc_status posenc_rope_plan::init(const posenc_rope_params* params) {
  POSENC_CHECK(rope_params_read(params, &p));
  half = p.rotary_dim / 2;
  const size_t h = static_cast<size_t>(half);
  if (p.short_factor) short_f.assign(p.short_factor, p.short_factor + h);
  if (p.long_factor) long_f.assign(p.long_factor, p.long_factor + h);
  if (p.freq_factors) ff.assign(p.freq_factors, p.freq_factors + h);
  p.short_factor = p.short_factor ? short_f.data() : nullptr;
  p.long_factor = p.long_factor ? long_f.data() : nullptr;
  p.freq_factors = p.freq_factors ? ff.data() : nullptr;
  naxes = rope_num_axes(p);
  if (naxes > 1) axis_of = rope_axis_of(p);
  const int type = enum_bits(p.type);
  seq_from_positions = p.seq_len_from_positions != 0 &&
                       ((type == POSENC_ROPE_DYNAMIC && p.alpha == 0.0) || type == POSENC_ROPE_LONGROPE);
  main.compute(p, seq_from_positions ? 0 : p.seq_len);
  if (seq_from_positions && type == POSENC_ROPE_LONGROPE) longset.compute(p, p.original_max_position + 1);
  return POSENC_OK;
}

const rope_freqset& posenc_rope_plan::select(int64_t seq_len, rope_freqset* tmp) const {
  if (!seq_from_positions || seq_len <= p.original_max_position) return main;
  if (enum_bits(p.type) == POSENC_ROPE_LONGROPE) return longset;
  tmp->compute(p, seq_len);
  return *tmp;
}

extern "C" POSENC_API posenc_status posenc_rope_params_init(posenc_rope_params* p, posenc_rope_type type,
                                                           int32_t rotary_dim, double theta) {
  api_guard g("posenc_rope_params_init");
  POSENC_CHECK(check_not_null(p, "p"));
  const int type_i = enum_bits(type);
  if (type_i < POSENC_ROPE_DEFAULT || type_i > POSENC_ROPE_NTK_VLLM)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "type must be a posenc_rope_type (0..8) (got %d)", type_i);
  if (rotary_dim <= 0 || rotary_dim % 2 != 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "rotary_dim must be even and > 0 (got %d)", rotary_dim);
  POSENC_CHECK(check_finite_positive(theta, "theta"));
  *p = rope_params_defaults(type_i, rotary_dim, theta);
  return POSENC_OK;
}

extern "C" POSENC_API posenc_status posenc_rope_inv_freq(const posenc_rope_params* p, double* inv_freq,
                                                        double* attention_factor) {
  api_guard g("posenc_rope_inv_freq");
  POSENC_CHECK(check_not_null(p, "p"));
  POSENC_CHECK(check_not_null(inv_freq, "inv_freq"));
  return guarded([&] {
    posenc_rope_params r;
    POSENC_CHECK(rope_params_read(p, &r));
    std::vector<double> inv(static_cast<size_t>(r.rotary_dim / 2));
    double af = 1.0;
    rope_compute_freqs(r, r.seq_len, inv.data(), &af);
    std::copy(inv.begin(), inv.end(), inv_freq);
    if (attention_factor) *attention_factor = af;
    return POSENC_OK;
  });
}

extern "C" POSENC_API posenc_status posenc_rope_plan_create(const posenc_rope_params* p, posenc_rope_plan** plan) {
  api_guard g("posenc_rope_plan_create");
  POSENC_CHECK(check_not_null(p, "p"));
  POSENC_CHECK(check_not_null(plan, "plan"));
  return guarded([&] {
    std::unique_ptr<posenc_rope_plan> pl(new posenc_rope_plan());
    POSENC_CHECK(pl->init(p));
    *plan = pl.release();
    return POSENC_OK;
  });
}

extern "C" POSENC_API void posenc_rope_plan_destroy(posenc_rope_plan* plan) { delete plan; }

extern "C" POSENC_API posenc_status posenc_rope_plan_inv_freq(const posenc_rope_plan* plan, double* inv_freq,
                                                             double* attention_factor) {
  api_guard g("posenc_rope_plan_inv_freq");
  POSENC_CHECK(check_not_null(plan, "plan"));
  POSENC_CHECK(check_not_null(inv_freq, "inv_freq"));
  if (plan->seq_from_positions) {  // the regime of the params' own seq_len, as posenc_rope_inv_freq
    return guarded([&] {
      rope_freqset fs;
      fs.compute(plan->p, plan->p.seq_len);
      std::copy(fs.inv.begin(), fs.inv.end(), inv_freq);
      if (attention_factor) *attention_factor = fs.af;
      return POSENC_OK;
    });
  }
  std::copy(plan->main.inv.begin(), plan->main.inv.end(), inv_freq);
  if (attention_factor) *attention_factor = plan->main.af;
  return POSENC_OK;
}
