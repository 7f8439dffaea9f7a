// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/rope_apply.cpp — RoPE rotation of Q/K in place or into separate outputs: argument validation
// (packed and strided operands, position axes, output aliasing), frequency selection, tiling over
// tokens, and the re-rotation.
#include "lib/rope_common.hpp"

#include <algorithm>
#include <array>


POSENC_USE_KERNELS(rope_kernels_t, rope_kernels)

using namespace posenc;
using namespace posenc::detail;

namespace {

/// Tokens per apply tile: a multiple of kRopeAnchorEvery, independent of the thread count.
constexpr int64_t kApplyTile = 16;
/// Scratch floats a one-tile call takes from the stack (no allocation on the decode path).
constexpr int64_t kStackScratch = 4096;

int64_t elem_size(int dtype) { return dtype == kRopeF32 ? 4 : 2; }

/// Roofline model and shape of an apply call: each rotated pair of every head is read and written
/// (6 float32 flops: 4 multiplies, 2 adds) plus 8 bytes of position per token.
void rope_apply_work(const rope_qk_t& h, int64_t tokens, int64_t elem) {
  if (prof_flags() == 0) return;
  path(h.layout == POSENC_ROPE_NEOX ? "rope.apply.neox" : "rope.apply.interleaved");
  const double pairs = double(tokens) * double(h.num_q_heads + h.num_k_heads) * (h.rotary_dim / 2);
  work(4.0 * double(elem) * pairs + 8.0 * double(tokens), 6.0 * pairs, true);
  POSENC_SHAPE("tokens=%lld q=%lldx%lld k=%lldx%lld rotary=%d", (long long)tokens, (long long)h.num_q_heads,
               (long long)h.head_dim, (long long)h.num_k_heads, (long long)h.head_dim, h.rotary_dim);
}

/// Runs the apply kernel of `dtype` over `tokens` tokens in tiles of kApplyTile.
posenc_status run_apply(const rope_kernels_t* kt, int dtype, const rope_pos_t& pos, int64_t tokens,
                        const rope_freqs_t& f, const rope_qk_t& h) {
  const rope_apply_fn fn = kt->apply[dtype];
  rope_apply_work(h, tokens, elem_size(dtype));
  if (tokens <= kApplyTile && rope_apply_scratch_floats(tokens, h.rotary_dim) <= kStackScratch) {
    alignas(64) float buf[kStackScratch];
    fn(&pos, 0, tokens, &f, &h, buf);
    return POSENC_OK;
  }
  return guarded([&] {
    ScratchPool<float> pool(static_cast<size_t>(rope_apply_scratch_floats(kApplyTile, h.rotary_dim)));
    parallel_tiles(tiles_of(tokens, kApplyTile), [&](int64_t t) {
      const int64_t t0 = t * kApplyTile, t1 = std::min(tokens, t0 + kApplyTile);
      fn(&pos, t0, t1, &f, &h, pool.get());
    });
    return POSENC_OK;
  });
}

// ---------------------------------------------------------------- packed operands (0.1 API)
/// Validates one packed Q/K operand: heads >= 0, token stride, pointer, extent.
posenc_status check_packed(const void* x, int64_t num_tokens, int64_t heads, int64_t head_dim, int64_t stride,
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

posenc_status check_layout(int layout) {
  if (layout != POSENC_ROPE_NEOX && layout != POSENC_ROPE_INTERLEAVED)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "layout must be POSENC_ROPE_NEOX (0) or POSENC_ROPE_INTERLEAVED (1) (got %d)", layout);
  return POSENC_OK;
}

/// Common validation of the packed apply functions (after rotary_dim is known).
posenc_status check_apply(int32_t rotary_dim, int layout, const int64_t* positions, int64_t num_tokens,
                          int64_t head_dim, const void* q, int64_t num_q_heads, int64_t q_token_stride, const void* k,
                          int64_t num_k_heads, int64_t k_token_stride, int64_t elem, rope_qk_t* h) {
  POSENC_CHECK(check_layout(layout));
  POSENC_CHECK(check_nonneg(num_tokens, "num_tokens"));
  if (head_dim < rotary_dim)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "head_dim must be >= rotary_dim = %d (got %lld)", rotary_dim,
                     static_cast<long long>(head_dim));
  POSENC_CHECK(check_not_null_if(positions, num_tokens, "positions"));
  POSENC_CHECK(check_packed(q, num_tokens, num_q_heads, head_dim, q_token_stride, "q", "num_q_heads",
                            "q_token_stride", elem, false, &h->q_token_stride));
  POSENC_CHECK(check_packed(k, num_tokens, num_k_heads, head_dim, k_token_stride, "k", "num_k_heads",
                            "k_token_stride", elem, true, &h->k_token_stride));
  h->layout = layout;
  h->rotary_dim = rotary_dim;
  h->head_dim = head_dim;
  h->seq = num_tokens > 0 ? num_tokens : 1;
  h->q = const_cast<void*>(q);
  h->num_q_heads = num_q_heads;
  h->q_head_stride = head_dim;
  h->k = const_cast<void*>(k);
  h->num_k_heads = k == nullptr ? 0 : num_k_heads;
  h->k_head_stride = head_dim;
  return POSENC_OK;
}

// ---------------------------------------------------------------- strided operands
/// Validates one strided operand (NULL = none) and resolves its strides into the q_ or k_ fields.
posenc_status check_strided(const posenc_rope_operand* o, const char* name, int64_t batch, int64_t seq,
                            int64_t head_dim, int64_t elem, void** data, int64_t* heads, int64_t* hs, int64_t* ts,
                            int64_t* bs) {
  *data = nullptr;
  *heads = 0;
  *hs = *ts = *bs = 0;
  if (o == nullptr) return POSENC_OK;
  if (o->num_heads < 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "%s->num_heads must be >= 0 (got %lld)", name,
                     static_cast<long long>(o->num_heads));
  const std::array<std::pair<int64_t, const char*>, 3> given = {
      {{o->head_stride, "head_stride"}, {o->token_stride, "token_stride"}, {o->batch_stride, "batch_stride"}}};
  for (const auto& g : given)
    if (g.first < 0)
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "%s->%s must be >= 0 (got %lld)", name, g.second,
                       static_cast<long long>(g.first));
  int64_t h_s = o->head_stride ? o->head_stride : head_dim;
  int64_t t_s = o->token_stride;
  if (t_s == 0) POSENC_CHECK(checked_mul(o->num_heads, h_s, &t_s, name, elem));
  int64_t b_s = o->batch_stride;
  if (b_s == 0) POSENC_CHECK(checked_mul(seq, t_s, &b_s, name, elem));
  if (o->num_heads > 0 && batch > 0 && seq > 0) {
    if (o->data == nullptr)
      return set_error(POSENC_ERR_NULL_POINTER, "%s->data must not be NULL when %s->num_heads > 0", name, name);
    // The head_dim channels alone (every other count 1) must fit the address space too.
    if (head_dim > std::numeric_limits<int64_t>::max() / elem)
      return set_error(POSENC_ERR_SIZE_OVERFLOW, "size of %s overflows (head_dim = %lld elements of %lld bytes)", name,
                       static_cast<long long>(head_dim), static_cast<long long>(elem));
    // No two elements may share an address: sorted by stride, each dimension's stride must be at
    // least the extent of the dimensions inside it (the contiguous head_dim channels first).
    struct dim { int64_t count, stride; const char* field; };
    std::array<dim, 3> dims = {{{o->num_heads, h_s, "head_stride"}, {seq, t_s, "token_stride"}, {batch, b_s, "batch_stride"}}};
    std::stable_sort(dims.begin(), dims.end(), [](const dim& a, const dim& b) { return a.stride < b.stride; });
    int64_t extent = head_dim;
    for (const dim& d : dims) {
      if (d.count <= 1) continue;
      if (d.stride < extent)
        return set_error(POSENC_ERR_INVALID_ARGUMENT,
                         "%s->%s = %lld makes elements of %s overlap: it must be >= %lld, the extent of the "
                         "dimensions with smaller strides (head_dim = %lld channels first)",
                         name, d.field, static_cast<long long>(d.stride), name, static_cast<long long>(extent),
                         static_cast<long long>(head_dim));
      int64_t span = 0;
      POSENC_CHECK(checked_mul(d.count - 1, d.stride, &span, name, elem));
      if (__builtin_add_overflow(span, extent, &extent) || extent > std::numeric_limits<int64_t>::max() / elem)
        return set_error(POSENC_ERR_SIZE_OVERFLOW, "size of %s overflows", name);
    }
  }
  *data = o->data;
  *heads = o->num_heads;
  *hs = h_s;
  *ts = t_s;
  *bs = b_s;
  return POSENC_OK;
}

/// A plan's frequency set for its own seq_len (the seq_len_from_positions option not applied).
const rope_freqset& fixed_set(const posenc_rope_plan* pl, rope_freqset* tmp) {
  if (!pl->seq_from_positions) return pl->main;
  tmp->compute(pl->p, pl->p.seq_len);
  return *tmp;
}

const char* axes_name(int axes) {
  switch (axes) {
    case POSENC_ROPE_AXES_MROPE: return "M-RoPE";
    case POSENC_ROPE_AXES_MROPE_INTERLEAVED: return "interleaved M-RoPE";
    case POSENC_ROPE_AXES_AXIAL: return "AXIAL";
    default: return "1-D";
  }
}

/// One resolved operand (check_strided's outputs).
struct resolved_op {
  void* data = nullptr;
  int64_t heads = 0, hs = 0, ts = 0, bs = 0;
  /// Byte range [lo, hi) from the first to one past the last element (empty when no element).
  uintptr_t lo = 0, hi = 0;
  int64_t nb = 0, ns = 0;  ///< batch, seq
  void range(int64_t batch, int64_t seq, int64_t head_dim, int64_t elem) {
    nb = batch;
    ns = seq;
    if (data == nullptr || heads == 0 || batch == 0 || seq == 0) return;
    // check_strided verified that this extent fits int64_t elements of elem bytes
    const int64_t ext = head_dim + (heads - 1) * hs + (seq - 1) * ts + (batch - 1) * bs;
    lo = reinterpret_cast<uintptr_t>(data);
    hi = lo + static_cast<uintptr_t>(ext) * static_cast<uintptr_t>(elem);
  }
  bool overlaps(const resolved_op& o) const { return lo < hi && o.lo < o.hi && lo < o.hi && o.lo < hi; }
  bool same_as(const resolved_op& o) const {
    // the stride of a dimension of extent 1 addresses nothing: compared only where it matters
    return data == o.data && heads == o.heads && (heads <= 1 || hs == o.hs) && (ns <= 1 || ts == o.ts) &&
           (nb <= 1 || bs == o.bs);
  }
};

/// Validates the outputs of posenc_rope_plan_apply_out against their inputs and fills h: the
/// outputs become h.q / h.k, the inputs h.q_src / h.k_src (left null for an output that is
/// exactly its input: rotated in place).
posenc_status check_outputs(const posenc_rope_operand* q, const posenc_rope_operand* k,
                            const posenc_rope_operand* q_out, const posenc_rope_operand* k_out, int64_t batch,
                            int64_t seq, int64_t head_dim, int64_t es, rope_qk_t* h) {
  const posenc_rope_operand* ins[2] = {q, k};
  const posenc_rope_operand* outs[2] = {q_out, k_out};
  const char* in_name[2] = {"q", "k"};
  const char* out_name[2] = {"q_out", "k_out"};
  for (int i = 0; i < 2; ++i) {
    if (ins[i] == nullptr && outs[i] != nullptr)
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "%s must be NULL when %s is NULL", out_name[i], in_name[i]);
    if (ins[i] != nullptr && outs[i] == nullptr)
      return set_error(POSENC_ERR_NULL_POINTER, "%s must not be NULL when %s is given", out_name[i], in_name[i]);
    if (ins[i] != nullptr && outs[i]->num_heads != ins[i]->num_heads)
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "%s->num_heads must equal %s->num_heads = %lld (got %lld)",
                       out_name[i], in_name[i], static_cast<long long>(ins[i]->num_heads),
                       static_cast<long long>(outs[i]->num_heads));
  }
  resolved_op in[2], out[2];
  for (int i = 0; i < 2; ++i) {
    POSENC_CHECK(check_strided(ins[i], in_name[i], batch, seq, head_dim, es, &in[i].data, &in[i].heads, &in[i].hs,
                               &in[i].ts, &in[i].bs));
    POSENC_CHECK(check_strided(outs[i], out_name[i], batch, seq, head_dim, es, &out[i].data, &out[i].heads,
                               &out[i].hs, &out[i].ts, &out[i].bs));
    in[i].range(batch, seq, head_dim, es);
    out[i].range(batch, seq, head_dim, es);
  }
  // An output is either exactly its input (rotated in place) or shares no address range with
  // either input and the other output.
  bool inplace[2];
  for (int i = 0; i < 2; ++i) inplace[i] = out[i].same_as(in[i]);
  for (int i = 0; i < 2; ++i) {
    if (inplace[i]) continue;
    const resolved_op* others[3] = {&in[0], &in[1], &out[1 - i]};
    const char* other_name[3] = {"q", "k", out_name[1 - i]};
    for (int j = 0; j < 3; ++j)
      if (out[i].overlaps(*others[j]))
        return set_error(POSENC_ERR_INVALID_ARGUMENT,
                         "%s overlaps %s: an output must be exactly its input (same data and strides: rotated in "
                         "place) or share no address with q, k and the other output",
                         out_name[i], other_name[j]);
  }
  h->q = out[0].data;
  h->num_q_heads = out[0].heads;
  h->q_head_stride = out[0].hs;
  h->q_token_stride = out[0].ts;
  h->q_batch_stride = out[0].bs;
  h->k = out[1].data;
  h->num_k_heads = out[1].heads;
  h->k_head_stride = out[1].hs;
  h->k_token_stride = out[1].ts;
  h->k_batch_stride = out[1].bs;
  if (!inplace[0]) {
    h->q_src = in[0].data;
    h->q_src_head_stride = in[0].hs;
    h->q_src_token_stride = in[0].ts;
    h->q_src_batch_stride = in[0].bs;
  }
  if (!inplace[1]) {
    h->k_src = in[1].data;
    h->k_src_head_stride = in[1].hs;
    h->k_src_token_stride = in[1].ts;
    h->k_src_batch_stride = in[1].bs;
  }
  return POSENC_OK;
}

/// posenc_rope_plan_apply (from == NULL, out_of_place false), posenc_rope_plan_apply_out
/// (out_of_place: q / k are read, q_out / k_out written) and posenc_rope_plan_rerotate.
posenc_status strided_apply(const posenc_rope_plan* from, const posenc_rope_plan* pl, posenc_rope_dtype dtype,
                            posenc_rope_layout layout, const int64_t* positions, int32_t position_axes, int64_t batch,
                            int64_t seq, int64_t head_dim, const posenc_rope_operand* q, const posenc_rope_operand* k,
                            int32_t inverse, bool out_of_place = false, const posenc_rope_operand* q_out = nullptr,
                            const posenc_rope_operand* k_out = nullptr) {
  const int dt = enum_bits(dtype);
  if (dt < kRopeF32 || dt > kRopeF16)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "dtype must be a posenc_rope_dtype (0..2) (got %d)", dt);
  const int lay = enum_bits(layout);
  POSENC_CHECK(check_layout(lay));
  const int axes = enum_bits(pl->p.axes);
  if (position_axes != pl->naxes)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "position_axes must be %d for %s positions (the plan's axes) (got %d)", pl->naxes,
                     axes_name(axes), position_axes);
  POSENC_CHECK(check_nonneg(batch, "batch"));
  POSENC_CHECK(check_nonneg(seq, "seq"));
  int64_t tokens = 0;
  POSENC_CHECK(checked_mul(batch, seq, &tokens, "batch * seq"));
  const int32_t rot = pl->p.rotary_dim;
  if (head_dim < rot)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "head_dim must be >= rotary_dim = %d (got %lld)", rot,
                     static_cast<long long>(head_dim));
  rope_qk_t h{};
  const int64_t es = elem_size(dt);
  if (out_of_place) {
    POSENC_CHECK(check_outputs(q, k, q_out, k_out, batch, seq, head_dim, es, &h));
  } else {
    POSENC_CHECK(check_strided(q, "q", batch, seq, head_dim, es, &h.q, &h.num_q_heads, &h.q_head_stride,
                               &h.q_token_stride, &h.q_batch_stride));
    POSENC_CHECK(check_strided(k, "k", batch, seq, head_dim, es, &h.k, &h.num_k_heads, &h.k_head_stride,
                               &h.k_token_stride, &h.k_batch_stride));
  }
  if (positions == nullptr && pl->naxes > 1 && tokens > 0)
    return set_error(POSENC_ERR_NULL_POINTER, "positions must not be NULL for %s positions", axes_name(axes));
  int64_t count = 0, seq_len = 0;
  POSENC_CHECK(checked_mul(tokens, pl->naxes, &count, "positions", sizeof(int64_t)));
  if (positions == nullptr) {
    POSENC_CHECK(rope_check_positions(nullptr, seq, &seq_len));
  } else {
    POSENC_CHECK(rope_check_positions(positions, count, &seq_len));
  }
  if (tokens == 0 || (h.num_q_heads == 0 && h.num_k_heads == 0)) return POSENC_OK;
  const rope_kernels_t* kt = nullptr;
  POSENC_CHECK(rope_kernels_active(&kt));
  return guarded([&] {
    h.layout = lay;
    h.inverse = inverse != 0;
    h.rotary_dim = rot;
    h.head_dim = head_dim;
    h.seq = seq;
    std::vector<int64_t> own;
    rope_pos_t pos{positions, pl->naxes, 0, 1, pl->naxes > 1 ? pl->axis_of.data() : nullptr};
    if (pl->naxes > 1) {
      const bool mrope = axes != POSENC_ROPE_AXES_AXIAL;  // [3, batch, seq] vs [batch, seq, n]
      pos.axis_stride = mrope ? tokens : 1;
      pos.token_stride = mrope ? 1 : pl->naxes;
    } else if (positions == nullptr && batch > 1) {  // every sequence 0 .. seq-1
      own.resize(static_cast<size_t>(tokens));
      for (int64_t t = 0; t < tokens; ++t) own[static_cast<size_t>(t)] = t % seq;
      pos.p = own.data();
    }
    rope_freqset tmp, tmp_from;
    const rope_freqset& fs = from ? fixed_set(pl, &tmp) : pl->select(seq_len, &tmp);
    rope_freqs_t f{pl->half, fs.wh.data(), fs.wl.data(), fs.af, nullptr, nullptr};
    if (from) {
      const rope_freqset& ff = fixed_set(from, &tmp_from);
      f.wh_from = ff.wh.data();
      f.wl_from = ff.wl.data();
      f.scale = fs.af / ff.af;
      h.inverse = 0;
    }
    return run_apply(kt, dt, pos, tokens, f, h);
  });
}

/// The packed apply functions: a plan for the call, then the common path.
posenc_status packed_apply(int dtype, const posenc_rope_params* p, int layout, const int64_t* positions,
                           int64_t num_tokens, int64_t head_dim, void* q, int64_t num_q_heads, int64_t q_token_stride,
                           void* k, int64_t num_k_heads, int64_t k_token_stride, int32_t inverse) {
  posenc_rope_plan pl;
  POSENC_CHECK(guarded([&] { return pl.init(p); }));
  rope_qk_t h{};
  POSENC_CHECK(check_apply(pl.p.rotary_dim, layout, positions, num_tokens, head_dim, q, num_q_heads, q_token_stride, k,
                           num_k_heads, k_token_stride, elem_size(dtype), &h));
  h.inverse = inverse != 0;
  int64_t count = 0, seq_len = 0;
  POSENC_CHECK(checked_mul(num_tokens, pl.naxes, &count, "positions", sizeof(int64_t)));
  POSENC_CHECK(rope_check_positions(positions, count, &seq_len));
  if (num_tokens == 0 || (h.num_q_heads == 0 && h.num_k_heads == 0)) return POSENC_OK;
  const rope_kernels_t* kt = nullptr;
  POSENC_CHECK(rope_kernels_active(&kt));
  return guarded([&] {
    const bool mrope = enum_bits(pl.p.axes) != POSENC_ROPE_AXES_AXIAL;
    const rope_pos_t pos{positions, pl.naxes, pl.naxes > 1 && mrope ? num_tokens : 1,
                         pl.naxes > 1 && !mrope ? pl.naxes : 1, pl.naxes > 1 ? pl.axis_of.data() : nullptr};
    rope_freqset tmp;
    const rope_freqset& fs = pl.select(seq_len, &tmp);
    const rope_freqs_t f{pl.half, fs.wh.data(), fs.wl.data(), fs.af, nullptr, nullptr};
    return run_apply(kt, dtype, pos, num_tokens, f, h);
  });
}

}  // namespace

extern "C" POSENC_API posenc_status posenc_rope_apply_f32(const posenc_rope_params* p, posenc_rope_layout layout,
                                                         const int64_t* positions, int64_t num_tokens,
                                                         int64_t head_dim, float* q, int64_t num_q_heads,
                                                         int64_t q_token_stride, float* k, int64_t num_k_heads,
                                                         int64_t k_token_stride, int32_t inverse) {
  api_guard g("posenc_rope_apply_f32");
  return packed_apply(kRopeF32, p, enum_bits(layout), positions, num_tokens, head_dim, q, num_q_heads, q_token_stride,
                      k, num_k_heads, k_token_stride, inverse);
}

extern "C" POSENC_API posenc_status posenc_rope_apply_bf16(const posenc_rope_params* p, posenc_rope_layout layout,
                                                          const int64_t* positions, int64_t num_tokens,
                                                          int64_t head_dim, uint16_t* q, int64_t num_q_heads,
                                                          int64_t q_token_stride, uint16_t* k, int64_t num_k_heads,
                                                          int64_t k_token_stride, int32_t inverse) {
  api_guard g("posenc_rope_apply_bf16");
  return packed_apply(kRopeBF16, p, enum_bits(layout), positions, num_tokens, head_dim, q, num_q_heads, q_token_stride,
                      k, num_k_heads, k_token_stride, inverse);
}

extern "C" POSENC_API posenc_status posenc_rope_apply_f16(const posenc_rope_params* p, posenc_rope_layout layout,
                                                         const int64_t* positions, int64_t num_tokens,
                                                         int64_t head_dim, uint16_t* q, int64_t num_q_heads,
                                                         int64_t q_token_stride, uint16_t* k, int64_t num_k_heads,
                                                         int64_t k_token_stride, int32_t inverse) {
  api_guard g("posenc_rope_apply_f16");
  return packed_apply(kRopeF16, p, enum_bits(layout), positions, num_tokens, head_dim, q, num_q_heads, q_token_stride,
                      k, num_k_heads, k_token_stride, inverse);
}

extern "C" POSENC_API posenc_status posenc_rope_plan_apply(const posenc_rope_plan* plan, posenc_rope_dtype dtype,
                                                          posenc_rope_layout layout, const int64_t* positions,
                                                          int32_t position_axes, int64_t batch, int64_t seq,
                                                          int64_t head_dim, const posenc_rope_operand* q,
                                                          const posenc_rope_operand* k, int32_t inverse) {
  api_guard g("posenc_rope_plan_apply");
  POSENC_CHECK(check_not_null(plan, "plan"));
  return strided_apply(nullptr, plan, dtype, layout, positions, position_axes, batch, seq, head_dim, q, k, inverse);
}

extern "C" POSENC_API posenc_status posenc_rope_plan_apply_out(
    const posenc_rope_plan* plan, posenc_rope_dtype dtype, posenc_rope_layout layout, const int64_t* positions,
    int32_t position_axes, int64_t batch, int64_t seq, int64_t head_dim, const posenc_rope_operand* q,
    const posenc_rope_operand* k, const posenc_rope_operand* q_out, const posenc_rope_operand* k_out,
    int32_t inverse) {
  api_guard g("posenc_rope_plan_apply_out");
  POSENC_CHECK(check_not_null(plan, "plan"));
  return strided_apply(nullptr, plan, dtype, layout, positions, position_axes, batch, seq, head_dim, q, k, inverse,
                       true, q_out, k_out);
}

extern "C" POSENC_API posenc_status posenc_rope_apply_strided(const posenc_rope_params* p, posenc_rope_dtype dtype,
                                                             posenc_rope_layout layout, const int64_t* positions,
                                                             int32_t position_axes, int64_t batch, int64_t seq,
                                                             int64_t head_dim, const posenc_rope_operand* q,
                                                             const posenc_rope_operand* k, int32_t inverse) {
  api_guard g("posenc_rope_apply_strided");
  posenc_rope_plan pl;
  POSENC_CHECK(guarded([&] { return pl.init(p); }));
  return strided_apply(nullptr, &pl, dtype, layout, positions, position_axes, batch, seq, head_dim, q, k, inverse);
}

extern "C" POSENC_API posenc_status posenc_rope_plan_rerotate(const posenc_rope_plan* from, const posenc_rope_plan* to,
                                                             posenc_rope_dtype dtype, posenc_rope_layout layout,
                                                             const int64_t* positions, int32_t position_axes,
                                                             int64_t batch, int64_t seq, int64_t head_dim,
                                                             const posenc_rope_operand* q,
                                                             const posenc_rope_operand* k) {
  api_guard g("posenc_rope_plan_rerotate");
  POSENC_CHECK(check_not_null(from, "from"));
  POSENC_CHECK(check_not_null(to, "to"));
  if (from->p.rotary_dim != to->p.rotary_dim || enum_bits(from->p.axes) != enum_bits(to->p.axes) ||
      (from->naxes > 1 && std::memcmp(from->p.sections, to->p.sections, sizeof from->p.sections) != 0))
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "from and to must have the same rotary_dim, axes and sections (got rotary_dim %d / %d, axes "
                     "%d / %d)",
                     from->p.rotary_dim, to->p.rotary_dim, enum_bits(from->p.axes), enum_bits(to->p.axes));
  return strided_apply(from, to, dtype, layout, positions, position_axes, batch, seq, head_dim, q, k, 0);
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
  POSENC_CHECK(check_apply(rotary_dim, enum_bits(layout), positions, num_tokens, head_dim, q, num_q_heads,
                           q_token_stride, k, num_k_heads, k_token_stride, static_cast<int64_t>(sizeof(float)), &h));
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
  rope_apply_work(h, num_tokens, static_cast<int64_t>(sizeof(float)));
  path(h.layout == POSENC_ROPE_NEOX ? "rope.apply_cached.neox" : "rope.apply_cached.interleaved");
  work(8.0 * double(num_tokens) * (rotary_dim / 2));  // the cos and sin rows read
  const size_t scratch = 4 * pad_lanes(static_cast<size_t>(rotary_dim));
  if (num_tokens <= kApplyTile && scratch <= static_cast<size_t>(kStackScratch)) {
    alignas(64) float buf[kStackScratch];
    kt->apply_cached_f32_rows(cos_table, sin_table, positions, 0, num_tokens, &h, buf);
    return POSENC_OK;
  }
  return guarded([&] {
    ScratchPool<float> pool(scratch);
    parallel_tiles(tiles_of(num_tokens, kApplyTile), [&](int64_t t) {
      const int64_t t0 = t * kApplyTile, t1 = std::min(num_tokens, t0 + kApplyTile);
      kt->apply_cached_f32_rows(cos_table, sin_table, positions, t0, t1, &h, pool.get());
    });
    return POSENC_OK;
  });
}
