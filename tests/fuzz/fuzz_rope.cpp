// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/fuzz/fuzz_rope.cpp — libFuzzer target of the rope family: sinusoidal tables, RoPE
// parameters of every scaling type and axes mode, frequencies, cos/sin, the apply functions
// (float32, cached, bf16, f16, strided, plans, rerotation) and the decay bound.
#include "tests/fuzz/fuzz_common.hpp"

using namespace posenc_fuzz;

namespace {

int64_t clamp_count(int64_t v) { return v < 0 || v > 4096 ? 0 : v; }

/// Parameters: the defaults of a type, then some fields overwritten from the input.
posenc_rope_params params(Input& in, std::vector<double>& factors) {
  posenc_rope_params p;
  posenc_rope_params_init(&p, POSENC_ROPE_DEFAULT, 8, 1e4);
  p.type = static_cast<posenc_rope_type>(in.choice(9));
  p.rotary_dim = in.size32(-2, 24);
  p.theta = in.flag() ? 1e4 : in.real(0.5, 1e6);
  const uint8_t which = in.u8();
  if (which & 1) p.factor = in.real(0.25, 16);
  if (which & 2) p.original_max_position = in.size(-1, 4096);
  if (which & 4) p.seq_len = in.size(-1, 8192);
  if (which & 8) { p.low_freq_factor = in.real(0, 4); p.high_freq_factor = in.real(0, 8); }
  if (which & 16) { p.beta_fast = in.real(-1, 64); p.beta_slow = in.real(-1, 4); p.mscale = in.real(-1, 2); p.mscale_all_dim = in.real(-1, 2); }
  if (which & 32) { p.attention_factor = in.real(-1, 2); p.truncate = in.size32(-1, 2); p.extrapolation_factor = in.real(-1, 2); p.attn_factor = in.real(-1, 2); }
  if (which & 64) { p.axes = static_cast<posenc_rope_axes>(in.choice(4)); for (int a = 0; a < 4; ++a) p.sections[a] = in.size32(-1, 12); }
  if (which & 128) { p.partial_rotary_factor = in.real(-0.5, 1.5); p.mixed_b = in.real(-1, 4); p.alpha = in.real(-1, 4); p.seq_len_from_positions = in.size32(-1, 2); }
  const int64_t half = p.rotary_dim > 0 && p.rotary_dim <= 64 ? p.rotary_dim / 2 : 1;
  factors.assign(static_cast<size_t>(3 * half + 3), 1.0);
  for (auto& f : factors) f = in.flag() ? 1.0 : in.real(0.1, 8);
  const uint8_t ptrs = in.u8();
  if (ptrs & 1) p.short_factor = factors.data();
  if (ptrs & 2) p.long_factor = factors.data() + half;
  if (ptrs & 4) p.freq_factors = factors.data() + 2 * half;
  if (ptrs & 8) p.struct_size = in.flag() ? POSENC_ROPE_PARAMS_SIZE_V1 : in.u32();
  return p;
}

/// Positions: `axes` rows of n, small, sometimes negative or beyond 2^53.
Arr<int64_t> positions(Input& in, int64_t n, int axes) {
  return array<int64_t>(in, n * axes, [&] {
    const uint8_t b = in.u8();
    if (b == 255) return (INT64_C(1) << 53) + 1;
    if (b == 254) return -(INT64_C(1) << 53) - 1;
    return static_cast<int64_t>(b) - 8;
  });
}

/// Elements spanned by a [num_tokens, heads, head_dim] operand with a token stride, as the library
/// reads it (one token: the stride adds nothing, a wild one is legitimate); 0 when the library
/// must reject the call (a stride below the row) or the span is beyond what the harness allocates
/// (only wild values give one: the call must fail).
int64_t span(int64_t tokens, int64_t heads, int64_t head_dim, int64_t stride) {
  if (tokens <= 0 || heads <= 0 || head_dim <= 0 || stride < 0) return 0;
  if (tokens > 4096 || heads > (1 << 20) || head_dim > (1 << 20)) return 0;  // wild: the row overflows
  using wide = __int128;  // below: < 2^12 * 2^63 + 2^40
  const wide row = wide(heads) * head_dim, st = stride == 0 ? row : wide(stride);
  if (st < row) return 0;
  const wide e = wide(tokens - 1) * st + row;
  return e <= (wide(1) << 22) ? static_cast<int64_t>(e) : 0;
}

void apply_family(Input& in, int op) {
  std::vector<double> factors;
  posenc_rope_params p = params(in, factors);
  const auto layout = static_cast<posenc_rope_layout>(in.choice(2));
  const int64_t T = in.size(-1, 12), D = in.size(-1, 28), hq = in.size(-1, 3), hk = in.size(-1, 2);
  const int64_t qs = in.flag() ? 0 : in.size(-1, 80), ks = in.flag() ? 0 : in.size(-1, 80);
  // Token counts past 4096 (the wild ones, >= 2^62) are left out: this harness's own span()
  // arithmetic would overflow for them. The library's answer to them (SIZE_OVERFLOW before
  // positions is read) is the regression test FuzzFindings.RopeApplyRejectsOverflowingPositionCount.
  if (T > 4096) return;
  const int32_t inverse = in.size32(-1, 2);
  Arr<int64_t> pos = positions(in, clamp_count(T), 4);
  const bool seq_pos = in.u8() % 8 == 0;  // positions NULL = 0 .. n-1 (1-D)
  const int64_t* pp = seq_pos ? nullptr : pos.ptr();
  const int64_t nq = span(T, hq, D, qs), nk = span(T, hk, D, ks);
  if (op == 0 || op == 1) {
    Out<float> q(in, nq), k(in, nk);
    for (auto& x : q.v) x = in.realf(-2, 2);
    for (auto& x : k.v) x = in.realf(-2, 2);
    q.snap();
    k.snap();
    posenc_status s;
    if (op == 0) {
      s = posenc_rope_apply_f32(&p, layout, pp, T, D, q.ptr(), hq, qs, k.ptr(), hk, ks, inverse);
    } else {
      const int64_t rows = in.size(-1, 16);
      const int32_t rd = in.size32(-2, 24);
      const int64_t tab = rows > 0 && rows <= 64 && rd > 0 ? rows * (rd / 2) : 0;
      Arr<float> ct = array<float>(in, tab, [&] { return in.realf(-1, 1); });
      Arr<float> st = array<float>(in, tab, [&] { return in.realf(-1, 1); });
      s = posenc_rope_apply_cached_f32(ct.ptr(), st.ptr(), rows, rd, layout, pp, T, D, q.ptr(), hq, qs, k.ptr(), hk,
                                       ks, inverse);
    }
    check(op == 0 ? "posenc_rope_apply_f32" : "posenc_rope_apply_cached_f32", s, in, out(q, nq), out(k, nk));
  } else {
    Out<uint16_t> q(in, nq), k(in, nk);
    for (auto& x : q.v) x = static_cast<uint16_t>(in.u8() | (in.u8() << 8));
    for (auto& x : k.v) x = static_cast<uint16_t>(in.u8() | (in.u8() << 8));
    q.snap();
    k.snap();
    in.nice = false;  // raw bit patterns (NaN in, NaN out)
    const posenc_status s = op == 2 ? posenc_rope_apply_bf16(&p, layout, pp, T, D, q.ptr(), hq, qs, k.ptr(), hk, ks, inverse)
                                    : posenc_rope_apply_f16(&p, layout, pp, T, D, q.ptr(), hq, qs, k.ptr(), hk, ks, inverse);
    check(op == 2 ? "posenc_rope_apply_bf16" : "posenc_rope_apply_f16", s, in, out(q, 0), out(k, 0));
  }
}

/// Strided operand [B, S, H, D]: packed or with strides from the input; its buffer spans it.
/// The extent follows posenc.h's rule, as the library reads it: zero strides resolve to the
/// packed ones, and a dimension of count 1 adds nothing whatever its stride (a wild stride >= 2^62
/// is then legitimate: the call must succeed and touch D elements only). An extent the harness
/// cannot allocate (only wild values give one) gets a 4-byte buffer: every such call must fail.
struct Operand {
  posenc_rope_operand op{};
  std::vector<float> f;
  std::vector<unsigned char> init;
  bool null = false;
  Operand(Input& in, posenc_rope_dtype dt, int64_t B, int64_t S, int64_t D) {
    op.num_heads = in.size(-1, 3);
    const bool packed = in.flag();
    op.head_stride = packed ? 0 : in.size(-1, 40);
    op.token_stride = packed ? 0 : in.size(-1, 120);
    op.batch_stride = packed ? 0 : in.size(-1, 600);
    const int64_t H = op.num_heads;
    int64_t n = 0;
    if (B > 0 && S > 0 && D > 0 && H > 0 && B <= 64 && S <= 64 && D <= (1 << 20) && H <= (1 << 20) &&
        op.head_stride >= 0 && op.token_stride >= 0 && op.batch_stride >= 0) {
      using wide = __int128;  // below: < 2^6 * 2^6 * 2^20 * 2^63
      const wide hs = op.head_stride ? op.head_stride : D;
      const wide ts = op.token_stride ? wide(op.token_stride) : H * hs;
      const wide bs = op.batch_stride ? wide(op.batch_stride) : S * ts;
      const wide extent = wide(B - 1) * bs + wide(S - 1) * ts + wide(H - 1) * hs + D;
      if (extent <= (wide(1) << 22)) n = static_cast<int64_t>(extent);
    }
    const size_t bytes = static_cast<size_t>(n) * (dt == POSENC_ROPE_F32 ? 4 : 2) + 4;
    f.resize((bytes + 3) / 4);
    for (auto& x : f) x = in.realf(-2, 2);
    const auto* b = reinterpret_cast<const unsigned char*>(f.data());
    init.assign(b, b + f.size() * 4);
    null = in.u8() % 16 == 0;
    op.data = null ? nullptr : f.data();
  }
  bool untouched() const { return std::memcmp(init.data(), f.data(), init.size()) == 0; }
};

void strided_family(Input& in, int op) {
  std::vector<double> factors, factors2;
  posenc_rope_params p = params(in, factors);
  const auto dt = static_cast<posenc_rope_dtype>(in.choice(3));
  const auto layout = static_cast<posenc_rope_layout>(in.choice(2));
  const int32_t axes = in.size32(-1, 4);
  const int64_t B = in.size(-1, 3), S = in.size(-1, 6), D = in.size(-1, 24);
  if (B > 64 || S > 64) return;  // as in apply_family: positions[batch * seq] are read first
  Arr<int64_t> pos = positions(in, B > 0 && S > 0 && B <= 64 && S <= 64 ? B * S : 0, 4);
  Operand q(in, dt, B, S, D), k(in, dt, B, S, D);
  const bool k_null = in.u8() % 8 == 0;
  const char* fn = "posenc_rope_apply_strided";
  posenc_status s;
  if (op == 0) {
    s = posenc_rope_apply_strided(&p, dt, layout, pos.ptr(), axes, B, S, D, &q.op, k_null ? nullptr : &k.op, in.size32(0, 1));
  } else {
    posenc_rope_plan* plan = reinterpret_cast<posenc_rope_plan*>(uintptr_t(0x5a5a));
    s = posenc_rope_plan_create(&p, &plan);
    if (s != POSENC_OK) {
      if (plan != reinterpret_cast<posenc_rope_plan*>(uintptr_t(0x5a5a))) fail("posenc_rope_plan_create", "plan written on failure");
      return;
    }
    double inv[40], af = -1;
    for (auto& x : inv) x = -1;
    // (Subnormal freq_factors, finite and > 0, give infinite frequencies and NaN: only nice input is checked.)
    if (posenc_rope_plan_inv_freq(plan, inv, &af) == POSENC_OK && in.nice && (std::isnan(af) || std::isnan(inv[0])))
      fail("posenc_rope_plan_inv_freq", "NaN");
    if (op == 1 && in.flag()) {
      // out of place: q / k are inputs (never written, even on success), qo / ko separate outputs
      fn = "posenc_rope_plan_apply_out";
      Operand qo(in, dt, B, S, D), ko(in, dt, B, S, D);
      const bool qo_null = in.u8() % 16 == 0;
      s = posenc_rope_plan_apply_out(plan, dt, layout, pos.ptr(), axes, B, S, D, &q.op, k_null ? nullptr : &k.op,
                                     qo_null ? nullptr : &qo.op, k_null ? nullptr : &ko.op, in.size32(0, 1));
      if (s == POSENC_OK && !(q.untouched() && k.untouched())) fail(fn, "an input was modified");
      if (s != POSENC_OK && s != POSENC_ERR_INTERNAL && !(qo.untouched() && ko.untouched()))
        fail(fn, "an output was written by a failing call");
    } else if (op == 1) {
      fn = "posenc_rope_plan_apply";
      s = posenc_rope_plan_apply(plan, dt, layout, pos.ptr(), axes, B, S, D, &q.op, k_null ? nullptr : &k.op, in.size32(0, 1));
    } else {
      fn = "posenc_rope_plan_rerotate";
      posenc_rope_params p2 = params(in, factors2);
      posenc_rope_plan* to = nullptr;
      if (posenc_rope_plan_create(&p2, &to) == POSENC_OK) {
        s = posenc_rope_plan_rerotate(plan, to, dt, layout, pos.ptr(), axes, B, S, D, &q.op, k_null ? nullptr : &k.op);
        posenc_rope_plan_destroy(to);
      } else {
        s = posenc_rope_plan_rerotate(plan, nullptr, dt, layout, pos.ptr(), axes, B, S, D, &q.op, &k.op);
        if (s == POSENC_OK) fail(fn, "OK with a NULL plan");
      }
    }
    posenc_rope_plan_destroy(plan);
  }
  if (s != POSENC_OK && s != POSENC_ERR_INTERNAL && !(q.untouched() && k.untouched()))
    fail(fn, "an operand was modified by a failing call");
  if (s == POSENC_ERR_INTERNAL) fail(fn, "POSENC_ERR_INTERNAL");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  setup(in);
  const int op = in.u8() % 10;
  switch (op) {
    case 0: {
      const int64_t n = in.size(-1, 40);
      if (n > 4096) break;  // as in apply_family
      const int32_t dim = in.size32(-1, 40);
      const double base = in.real(0.5, 1e5);
      const auto layout = static_cast<posenc_sinusoidal_layout>(in.choice(2));
      Arr<int64_t> pos = positions(in, clamp_count(n), 1);
      const int64_t cnt = n > 0 && dim > 0 && n <= 4096 && dim <= 4096 ? n * dim : 0;
      Out<float> o(in, cnt);
      const posenc_status s = posenc_sinusoidal_f32(in.flag() ? nullptr : pos.ptr(), n, dim, base, layout, o.ptr());
      check("posenc_sinusoidal_f32", s, in, out(o, cnt));
      break;
    }
    case 1: {
      std::vector<double> factors;
      posenc_rope_params p = params(in, factors);
      const int64_t half = p.rotary_dim > 0 && p.rotary_dim <= 64 ? p.rotary_dim / 2 : 0;
      Out<double> inv(in, half), af(in, 1);
      const posenc_status s = posenc_rope_inv_freq(&p, inv.ptr(), af.ptr());
      check("posenc_rope_inv_freq", s, in, out(inv, half), out(af, 1));
      // params_init itself: on error *p is untouched
      posenc_rope_params q;
      std::memset(&q, 0x5a, sizeof q);
      const posenc_rope_params q0 = q;
      if (posenc_rope_params_init(&q, p.type, p.rotary_dim, p.theta) != POSENC_OK && std::memcmp(&q, &q0, sizeof q) != 0)
        fail("posenc_rope_params_init", "params written on failure");
      break;
    }
    case 2: {
      std::vector<double> factors;
      posenc_rope_params p = params(in, factors);
      const int64_t n = in.size(-1, 24);
      if (n > 4096) break;  // as in apply_family
      const int64_t half = p.rotary_dim > 0 && p.rotary_dim <= 64 ? p.rotary_dim / 2 : 0;
      Arr<int64_t> pos = positions(in, clamp_count(n), 4);
      const int64_t cnt = n > 0 && n <= 4096 ? n * half : 0;
      Out<float> c(in, cnt), s_(in, cnt);
      const posenc_status s = posenc_rope_cos_sin_f32(&p, in.u8() % 8 == 0 ? nullptr : pos.ptr(), n, c.ptr(), s_.ptr());
      check("posenc_rope_cos_sin_f32", s, in, out(c, cnt), out(s_, cnt));
      break;
    }
    case 3: case 4: case 5: case 6: apply_family(in, op - 3); break;
    case 7: case 8: strided_family(in, op - 7); break;
    case 9: {
      if (in.flag()) { strided_family(in, 2); break; }
      // (A wild count >= 2^62 with n_step = 0 used to pass validation and write count elements:
      // now SIZE_OVERFLOW, regression test FuzzFindings.RopeDecayRejectsOverflowingCount.)
      const int32_t nf = in.size32(-1, 16);
      Arr<double> inv = array<double>(in, nf, [&] { return in.real(0, 2); });
      const int64_t b = in.size(-5, 100), st = in.size(-2, 9), cnt = in.size(-1, 30);
      const int64_t c = cnt > 0 && cnt <= 4096 ? cnt : 0;
      Out<double> f(in, c), bound(in, c);
      const posenc_status s = posenc_rope_decay_f64(inv.ptr(), nf, b, st, cnt, f.ptr(), in.flag() ? nullptr : bound.ptr());
      check("posenc_rope_decay_f64", s, in, out(f, c), out(bound, c));
      break;
    }
  }
  return 0;
}
