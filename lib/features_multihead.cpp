// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/features_multihead.cpp — features family, multi-head and batched linear attention: arrays
// [batch, heads, n, dim] with element strides (the last dimension contiguous), one call for all
// (batch, head) pairs, TBB-parallel over them; each head runs the single-head body
// (linear_attention_run / linear_attention_backward_run), so its bits equal a per-head call.
#include "kernels/features_table.hpp"
#include "lib/features_internal.hpp"
#include "lib/internal.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

POSENC_USE_KERNELS(features_kernels_t, features_kernels)

using namespace posenc;
using namespace posenc::detail;

namespace {

/// One [batch, heads, n, dim] array of a multi-head call, strides resolved.
struct mh_array {
  const char* name;          // the array argument
  const char* strides_name;  // its strides argument
  const float* p;
  const int64_t* strides;  // (batch, head, row) in elements, or NULL: contiguous
  int32_t dim;
  bool output;
  int64_t sb = 0, sh = 0, sr = 0;
};

/// Resolves and checks the strides of a: each >= 0 (NULL: contiguous [batch, heads, n, dim]), the
/// largest offset fits int64_t and the address space, the pointer is not NULL when the array has
/// elements, and an output's rows never overlap: sorted by stride, every stride of an extent > 1
/// is >= the span of the smaller ones (the last dimension spans dim).
posenc_status check_mh_array(mh_array& a, int64_t batch, int64_t heads, int64_t n) {
  int64_t t = 0;
  if (a.strides) {
    a.sb = a.strides[0];
    a.sh = a.strides[1];
    a.sr = a.strides[2];
    for (int i = 0; i < 3; ++i)
      if (a.strides[i] < 0)
        return set_error(POSENC_ERR_INVALID_ARGUMENT, "%s[%d] must be >= 0 (got %lld)", a.strides_name, i,
                         static_cast<long long>(a.strides[i]));
  } else {
    a.sr = a.dim;
    POSENC_CHECK(checked_mul(n, a.dim, &a.sh, a.name, sizeof(float)));
    POSENC_CHECK(checked_mul(heads, a.sh, &a.sb, a.name, sizeof(float)));
  }
  const int64_t total = batch * heads * n;  // batch, heads, n were checked as a product by the caller
  if (total == 0) return POSENC_OK;
  POSENC_CHECK(check_not_null(a.p, a.name));
  // largest offset + 1 = sb (batch-1) + sh (heads-1) + sr (n-1) + dim
  const int64_t ext[3] = {batch, heads, n};
  const int64_t str[3] = {a.sb, a.sh, a.sr};
  int64_t span = a.dim;
  for (int i = 0; i < 3; ++i) {
    POSENC_CHECK(checked_mul(str[i], ext[i] - 1, &t, a.name, sizeof(float)));
    if (t > std::numeric_limits<int64_t>::max() / int64_t(sizeof(float)) - span)
      return set_error(POSENC_ERR_SIZE_OVERFLOW, "%s: the largest offset of its strides overflows", a.name);
    span += t;
  }
  if (!a.output) return POSENC_OK;
  int order[3] = {0, 1, 2};
  std::sort(order, order + 3, [&](int x, int y) { return str[x] < str[y]; });
  int64_t cover = a.dim;  // elements spanned by the dimensions placed so far
  for (int o : order) {
    if (ext[o] <= 1) continue;
    if (str[o] < cover)
      return set_error(POSENC_ERR_INVALID_ARGUMENT,
                       "%s (%s = {%lld, %lld, %lld}) must not make two rows of the output overlap (each stride of "
                       "an extent > 1 must be >= the span of the smaller ones, %lld at stride %lld)",
                       a.strides_name, a.name, static_cast<long long>(a.sb), static_cast<long long>(a.sh),
                       static_cast<long long>(a.sr), static_cast<long long>(cover), static_cast<long long>(str[o]));
    cover += str[o] * (ext[o] - 1);
  }
  return POSENC_OK;
}

posenc_status check_mh_shape(int64_t batch, int64_t heads, int64_t n) {
  POSENC_CHECK(check_nonneg(batch, "batch"));
  POSENC_CHECK(check_nonneg(heads, "heads"));
  POSENC_CHECK(check_nonneg(n, "n"));
  int64_t t = 0;
  POSENC_CHECK(checked_mul(batch, heads, &t, "batch * heads", 1));
  POSENC_CHECK(checked_mul(t, n, &t, "batch * heads * n", 1));
  return POSENC_OK;
}

/// Head (b, h) of a as contiguous rows [n, dim]: the array itself when its rows are contiguous,
/// else packed into buf.
const float* head_in(const mh_array& a, int64_t b, int64_t h, int64_t n, std::vector<float>& buf) {
  const float* base = a.p + b * a.sb + h * a.sh;
  if (a.sr == a.dim || n == 1) return base;
  buf.resize(static_cast<size_t>(n * a.dim));
  for (int64_t i = 0; i < n; ++i) std::memcpy(buf.data() + i * a.dim, base + i * a.sr, sizeof(float) * size_t(a.dim));
  return buf.data();
}

/// Writes head (b, h) of output a from its packed rows src [n, dim] (no allocation).
void head_scatter(const mh_array& a, int64_t b, int64_t h, int64_t n, const float* src) {
  float* base = const_cast<float*>(a.p) + b * a.sb + h * a.sh;
  if (a.sr == a.dim || n == 1) {
    std::memcpy(base, src, sizeof(float) * size_t(n * a.dim));
    return;
  }
  for (int64_t i = 0; i < n; ++i) std::memcpy(base + i * a.sr, src + i * a.dim, sizeof(float) * size_t(a.dim));
}

}  // namespace

extern "C" POSENC_API posenc_status posenc_linear_attention_mh_f32(int64_t batch, int64_t heads, int64_t n, int32_t F,
                                                                  int32_t dv, const float* phi_q,
                                                                  const int64_t* q_strides, const float* phi_k,
                                                                  const int64_t* k_strides, const float* v,
                                                                  const int64_t* v_strides, int32_t flags, float eps,
                                                                  float* out, const int64_t* out_strides) {
  api_guard g("posenc_linear_attention_mh_f32");
  POSENC_CHECK(check_mh_shape(batch, heads, n));
  // the per-head checks (n, F, dv, eps, sizes of one head), then flags and the strided arrays
  const float one = 1.0f;
  POSENC_CHECK(check_attention({n, F, dv, "F", eps, attention_param::eps, &one, &one, &one, "phi_q", "phi_k",
                                const_cast<float*>(&one), false, nullptr, nullptr, nullptr, nullptr, nullptr}));
  POSENC_CHECK(check_linear_flags(flags));
  mh_array aq{"phi_q", "q_strides", phi_q, q_strides, F, false};
  mh_array ak{"phi_k", "k_strides", phi_k, k_strides, F, false};
  mh_array av{"v", "v_strides", v, v_strides, dv, false};
  mh_array ao{"out", "out_strides", out, out_strides, dv, true};
  for (mh_array* a : {&aq, &ak, &av, &ao}) POSENC_CHECK(check_mh_array(*a, batch, heads, n));
  const int64_t nh = batch * heads;
  if (nh == 0 || n == 0) return POSENC_OK;
  const features_kernels_t* k = nullptr;
  POSENC_CHECK(features_kernels_active(&k));
  const bool causal = (flags & POSENC_LINEAR_CAUSAL) != 0, unnorm = (flags & POSENC_LINEAR_UNNORMALIZED) != 0;
  path(causal ? "linear_attention_mh.causal_chunked" : "linear_attention_mh.global");
  const double rows = double(nh) * double(n);
  work(4.0 * rows * 2.0 * (F + dv), 4.0 * rows * F * dv + 3.0 * rows * F + (causal ? 2.0 * rows * 128 * (F + dv) : 0.0),
       true);
  POSENC_SHAPE("batch=%lld heads=%lld n=%lld F=%d dv=%d", (long long)batch, (long long)heads, (long long)n, F, dv);
  return guarded([&] {
    // Every head is computed into one staging array, written to out once all heads are done
    // (serially, no allocation): an allocation failing in any head then leaves out untouched.
    const int64_t ho = n * dv;
    fbuf stage(nh * ho);
    parallel_tiles(nh, [&](int64_t t) {
      const int64_t b = t / heads, h = t % heads;
      std::vector<float> bq, bk, bv;
      const float* q = head_in(aq, b, h, n, bq);
      const float* kk = head_in(ak, b, h, n, bk);
      const float* vv = head_in(av, b, h, n, bv);
      linear_attention_run(k, q, kk, vv, n, F, dv, causal, unnorm, eps, stage.data() + t * ho);
    });
    for (int64_t t = 0; t < nh; ++t) head_scatter(ao, t / heads, t % heads, n, stage.data() + t * ho);
    return POSENC_OK;
  });
}

extern "C" POSENC_API posenc_status posenc_linear_attention_backward_mh_f32(
    int64_t batch, int64_t heads, int64_t n, int32_t F, int32_t dv, const float* phi_q, const int64_t* q_strides,
    const float* phi_k, const int64_t* k_strides, const float* v, const int64_t* v_strides, int32_t flags, float eps,
    const float* grad_out, const int64_t* grad_out_strides, float* grad_phi_q, const int64_t* grad_q_strides,
    float* grad_phi_k, const int64_t* grad_k_strides, float* grad_v, const int64_t* grad_v_strides) {
  api_guard g("posenc_linear_attention_backward_mh_f32");
  POSENC_CHECK(check_mh_shape(batch, heads, n));
  const float one = 1.0f;
  POSENC_CHECK(check_attention({n, F, dv, "F", eps, attention_param::eps, &one, &one, &one, "phi_q", "phi_k",
                                const_cast<float*>(&one), false, nullptr, nullptr, nullptr, nullptr, nullptr}));
  POSENC_CHECK(check_linear_flags(flags));
  mh_array aq{"phi_q", "q_strides", phi_q, q_strides, F, false};
  mh_array ak{"phi_k", "k_strides", phi_k, k_strides, F, false};
  mh_array av{"v", "v_strides", v, v_strides, dv, false};
  mh_array ag{"grad_out", "grad_out_strides", grad_out, grad_out_strides, dv, false};
  mh_array gq{"grad_phi_q", "grad_q_strides", grad_phi_q, grad_q_strides, F, true};
  mh_array gk{"grad_phi_k", "grad_k_strides", grad_phi_k, grad_k_strides, F, true};
  mh_array gv{"grad_v", "grad_v_strides", grad_v, grad_v_strides, dv, true};
  for (mh_array* a : {&aq, &ak, &av, &ag, &gq, &gk, &gv}) POSENC_CHECK(check_mh_array(*a, batch, heads, n));
  const int64_t nh = batch * heads;
  if (nh == 0 || n == 0) return POSENC_OK;
  const features_kernels_t* k = nullptr;
  POSENC_CHECK(features_kernels_active(&k));
  const bool causal = (flags & POSENC_LINEAR_CAUSAL) != 0, unnorm = (flags & POSENC_LINEAR_UNNORMALIZED) != 0;
  path(causal ? "linear_attention_backward_mh.causal_chunked" : "linear_attention_backward_mh.global");
  const double rows = double(nh) * double(n);
  work(4.0 * rows * 4.0 * (F + dv), 10.0 * rows * F * dv + (causal ? 0.625 * rows * 64 * (6.0 * F + 4.0 * dv) : 0.0), true);
  POSENC_SHAPE("batch=%lld heads=%lld n=%lld F=%d dv=%d", (long long)batch, (long long)heads, (long long)n, F, dv);
  return guarded([&] {
    // Staged as in posenc_linear_attention_mh_f32: the gradients reach the caller's arrays only
    // once every head is done.
    const int64_t hf = n * F, hv = n * dv;
    fbuf sq(nh * hf), sk(nh * hf), sv(nh * hv);
    parallel_tiles(nh, [&](int64_t t) {
      const int64_t b = t / heads, h = t % heads;
      std::vector<float> bq, bk, bv, bg;
      const float* q = head_in(aq, b, h, n, bq);
      const float* kk = head_in(ak, b, h, n, bk);
      const float* vv = head_in(av, b, h, n, bv);
      const float* go = head_in(ag, b, h, n, bg);
      linear_attention_backward_run(k, q, kk, vv, n, F, dv, causal, unnorm, eps, go, sq.data() + t * hf,
                                    sk.data() + t * hf, sv.data() + t * hv);
    });
    for (int64_t t = 0; t < nh; ++t) {
      head_scatter(gq, t / heads, t % heads, n, sq.data() + t * hf);
      head_scatter(gk, t / heads, t % heads, n, sk.data() + t * hf);
      head_scatter(gv, t / heads, t % heads, n, sv.data() + t * hv);
    }
    return POSENC_OK;
  });
}
