// SPDX-License-Identifier: Apache-2.0 OR MIT
// rope family: fp16 storage, strided operands ([batch, heads, seq, head_dim], fused QKV rows),
// the reusable plan (decode path), seq_len from positions, the LongRoPE re-rotation, and ABI
// compatibility of posenc_rope_params with posenc 0.1 callers.
#include "tests/test_rope_common.hpp"

#include <cstddef>

using namespace posenc_test;

namespace {

posenc_rope_params yarn_params(int32_t rot) {
  auto p = make_params(POSENC_ROPE_YARN, rot, 1e6);
  p.original_max_position = 4096;
  p.factor = 8;  // attention factor 1.2079: cos/sin are not unit
  return p;
}

std::vector<uint16_t> to_f16(const std::vector<float>& v) {
  std::vector<uint16_t> h(v.size());
  for (size_t i = 0; i < v.size(); ++i) h[i] = ref_f32_to_f16(v[i]);
  return h;
}

std::vector<float> widen_f16(const std::vector<uint16_t>& h) {
  std::vector<float> v(h.size());
  for (size_t i = 0; i < h.size(); ++i) v[i] = ref_f16_to_f32(h[i]);
  return v;
}

// ---------------------------------------------------------------- fp16
class RopeF16 : public IsaTest {};

TEST_P(RopeF16, EveryBinary16InputIsFloat32MathRoundedToNearestEven) {
  // q holds all 65536 bit patterns (shuffled): subnormals, infinities and NaNs included.
  const int64_t T = 64, H = 8, D = 128;
  std::vector<uint16_t> all(65536);
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i);
  std::shuffle(all.begin(), all.end(), std::mt19937_64(5));
  std::vector<int64_t> pos = scattered_positions(T / 2, 1 << 20, 7);
  for (int64_t i = 0; i < T / 2; ++i) pos.push_back(4096 + i);  // a consecutive run
  const std::vector<uint16_t> k0 = to_f16(random_f32(T * 2 * D, 9));
  // Derived attention factor (1.21), and overrides that push results into the subnormal range
  // (2^-20) and past the largest finite value (3000: |x| up to 6e4 times 3000).
  for (double af : {0.0, std::ldexp(1.0, -20), 3000.0}) {
    auto p = yarn_params(128);
    p.attention_factor = af;
    for (int layout : {0, 1}) {
      for (int inverse : {0, 1}) {
        const auto L = static_cast<posenc_rope_layout>(layout);
        std::vector<uint16_t> q = all, k = k0;
        std::vector<float> qf = widen_f16(q), kf = widen_f16(k);
        ASSERT_EQ(posenc_rope_apply_f16(&p, L, pos.data(), T, D, q.data(), H, 0, k.data(), 2, 0, inverse), POSENC_OK)
            << posenc_last_error_message();
        ASSERT_EQ(posenc_rope_apply_f32(&p, L, pos.data(), T, D, qf.data(), H, 0, kf.data(), 2, 0, inverse), POSENC_OK);
        size_t bad = 0, nan = 0, sub = 0, inf = 0;
        for (size_t i = 0; i < q.size(); ++i) {
          const uint16_t want = ref_f32_to_f16(qf[i]);
          if (f16_is_nan(want)) {
            bad += !f16_is_nan(q[i]);
            ++nan;
            continue;
          }
          bad += q[i] != want;
          sub += (want & 0x7c00) == 0 && (want & 0x3ff) != 0;
          inf += (want & 0x7fff) == 0x7c00;
        }
        for (size_t i = 0; i < k.size(); ++i) bad += k[i] != ref_f32_to_f16(kf[i]);
        EXPECT_EQ(bad, 0u) << "af " << af << " layout " << layout << " inverse " << inverse;
        EXPECT_GT(nan, 0u);
        if (af == std::ldexp(1.0, -20)) {
          EXPECT_GT(sub, 10000u) << "subnormal results exercised";
        }
        if (af == 3000.0) {
          EXPECT_GT(inf, 1000u) << "overflow exercised";
        }
      }
    }
  }
}

/// Checks that angle 0 (every position 0, attention factor 1: x' = x*1 - y*0 with y = 1.0
/// exactly) gives back every binary16 input, NaNs quieted.
void expect_widen_narrow_identity() {
  const auto p = make_params(POSENC_ROPE_DEFAULT, 2, 1e4);
  std::vector<uint16_t> q(2 * 65536);
  for (size_t i = 0; i < 65536; ++i) {
    q[2 * i] = static_cast<uint16_t>(i);
    q[2 * i + 1] = 0x3c00;  // 1.0
  }
  const std::vector<int64_t> pos(65536, 0);
  ASSERT_EQ(posenc_rope_apply_f16(&p, POSENC_ROPE_INTERLEAVED, pos.data(), 65536, 2, q.data(), 1, 0, nullptr, 0, 0, 0),
            POSENC_OK);
  size_t bad = 0;
  for (size_t i = 0; i < 65536; ++i) {
    const uint16_t h = static_cast<uint16_t>(i);
    const uint16_t want = f16_is_nan(h) ? static_cast<uint16_t>(h | 0x0200) : h;  // NaN: quieted
    if (q[2 * i] != want && bad++ < 5) ADD_FAILURE() << std::hex << "f16 0x" << i << " -> 0x" << q[2 * i];
  }
  EXPECT_EQ(bad, 0u);
}

TEST_P(RopeF16, WidenThenNarrowIsTheIdentity) { expect_widen_narrow_identity(); }

#if defined(__x86_64__) || defined(__i386__)
TEST_P(RopeF16, WidenThenNarrowIsTheIdentityUnderFlushToZero) {
  // MXCSR FTZ (bit 15) and DAZ (bit 6) set, as some inference runtimes run: binary16
  // subnormals must still widen and narrow exactly (they are normal float32 values).
  // MXCSR is per thread: one posenc thread, so the work runs on this one.
  const int threads = posenc_threads_get();
  ASSERT_EQ(posenc_threads_set(1), POSENC_OK);
  const unsigned saved = __builtin_ia32_stmxcsr();
  __builtin_ia32_ldmxcsr(saved | 0x8040u);
  expect_widen_narrow_identity();
  __builtin_ia32_ldmxcsr(saved);
  ASSERT_EQ(posenc_threads_set(threads), POSENC_OK);
}
#endif

// ---------------------------------------------------------------- strided operands
class RopeStrided : public IsaTest {};

/// Element size of a posenc_rope_dtype.
size_t esize(int dt) { return dt == POSENC_ROPE_F32 ? 4 : 2; }

/// A buffer of `n` elements of dtype dt with random finite values.
std::vector<unsigned char> random_buf(int dt, size_t n, uint64_t seed) {
  const std::vector<float> v = random_f32(n, seed);
  std::vector<unsigned char> b(n * esize(dt));
  for (size_t i = 0; i < n; ++i) {
    if (dt == POSENC_ROPE_F32) {
      std::memcpy(&b[4 * i], &v[i], 4);
    } else {
      uint32_t u;
      std::memcpy(&u, &v[i], 4);
      const uint16_t h = dt == POSENC_ROPE_F16 ? ref_f32_to_f16(v[i]) : static_cast<uint16_t>(u >> 16);
      std::memcpy(&b[2 * i], &h, 2);
    }
  }
  return b;
}

/// Copies element (b, s, h, c) between a strided view and a packed [B*S, H, D] buffer.
void gather(int dt, const unsigned char* src, const posenc_rope_operand& o, int64_t B, int64_t S, int64_t D,
            unsigned char* packed, bool to_packed) {
  const size_t es = esize(dt);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t s = 0; s < S; ++s)
      for (int64_t h = 0; h < o.num_heads; ++h)
        for (int64_t c = 0; c < D; ++c) {
          const size_t so = static_cast<size_t>(b * o.batch_stride + s * o.token_stride + h * o.head_stride + c);
          const size_t po = static_cast<size_t>(((b * S + s) * o.num_heads + h) * D + c);
          unsigned char* strided = const_cast<unsigned char*>(src) + so * es;
          if (to_packed) std::memcpy(packed + po * es, strided, es);
          else std::memcpy(strided, packed + po * es, es);
        }
}

posenc_status packed_apply(int dt, const posenc_rope_params* p, posenc_rope_layout L, const int64_t* pos, int64_t T,
                           int64_t D, void* q, int64_t nq, void* k, int64_t nk, int inverse) {
  if (dt == POSENC_ROPE_F32)
    return posenc_rope_apply_f32(p, L, pos, T, D, static_cast<float*>(q), nq, 0, static_cast<float*>(k), nk, 0, inverse);
  if (dt == POSENC_ROPE_BF16)
    return posenc_rope_apply_bf16(p, L, pos, T, D, static_cast<uint16_t*>(q), nq, 0, static_cast<uint16_t*>(k), nk, 0,
                                  inverse);
  return posenc_rope_apply_f16(p, L, pos, T, D, static_cast<uint16_t*>(q), nq, 0, static_cast<uint16_t*>(k), nk, 0,
                               inverse);
}

/// o with its zero (packed) strides replaced by the values they stand for.
posenc_rope_operand resolved(posenc_rope_operand o, int64_t S, int64_t D) {
  if (o.head_stride == 0) o.head_stride = D;
  if (o.token_stride == 0) o.token_stride = o.num_heads * o.head_stride;
  if (o.batch_stride == 0) o.batch_stride = S * o.token_stride;
  return o;
}

/// Applies with strided views q/k into qbuf/kbuf (explicit strides) and compares bitwise with
/// the packed apply of the gathered values; every element outside the rotated channels of the
/// views is checked untouched.
void check_strided(int dt, const posenc_rope_params& p, posenc_rope_layout L, int64_t B, int64_t S, int64_t D,
                   posenc_rope_operand q, posenc_rope_operand k, size_t qn, size_t kn, const int64_t* pos,
                   const char* what) {
  const size_t es = esize(dt);
  std::vector<unsigned char> qb = random_buf(dt, qn, 11), kb = random_buf(dt, kn, 12);
  const auto q0 = qb, k0 = kb;
  const int64_t T = B * S;
  std::vector<unsigned char> qp(static_cast<size_t>(T * q.num_heads * D) * es), kp(static_cast<size_t>(T * k.num_heads * D) * es);
  q.data = qb.data();
  k.data = kb.data();
  const posenc_rope_operand qr = resolved(q, S, D), kr = resolved(k, S, D);
  gather(dt, qb.data(), qr, B, S, D, qp.data(), true);
  gather(dt, kb.data(), kr, B, S, D, kp.data(), true);
  std::vector<int64_t> flat(static_cast<size_t>(T));
  for (int64_t t = 0; t < T; ++t) flat[t] = pos ? pos[t] : t % S;
  for (int inverse : {0, 1}) {
    ASSERT_EQ(posenc_rope_apply_strided(&p, static_cast<posenc_rope_dtype>(dt), L, pos, 1, B, S, D, &q, &k, inverse),
              POSENC_OK)
        << what << ": " << posenc_last_error_message();
    ASSERT_EQ(packed_apply(dt, &p, L, flat.data(), T, D, qp.data(), q.num_heads, kp.data(), k.num_heads, inverse),
              POSENC_OK);
  }
  // Scatter the packed result into copies of the original buffers: must equal the strided result.
  auto qe = q0, ke = k0;
  gather(dt, qe.data(), qr, B, S, D, qp.data(), false);
  gather(dt, ke.data(), kr, B, S, D, kp.data(), false);
  EXPECT_TRUE(qb == qe) << what << " dtype " << dt << ": q differs from the packed apply (or a gap was written)";
  EXPECT_TRUE(kb == ke) << what << " dtype " << dt << ": k differs from the packed apply (or a gap was written)";
  EXPECT_FALSE(qb == q0) << what << ": nothing was rotated";
}

TEST_P(RopeStrided, HfBhsdFusedQkvAndGapsMatchPackedApplyBitwise) {
  const auto p = yarn_params(48);  // partial rotary: 48 of 64 channels
  const int64_t B = 2, S = 21, H = 3, D = 64;
  std::vector<int64_t> pos(static_cast<size_t>(B * S));
  for (int64_t s = 0; s < S; ++s) {
    pos[s] = 1000 + s;          // a consecutive run (anchored recurrence)
    pos[S + s] = (s * 7919) % 5003;  // scattered
  }
  for (int dt : {POSENC_ROPE_F32, POSENC_ROPE_BF16, POSENC_ROPE_F16}) {
    for (int layout : {0, 1}) {
      const auto L = static_cast<posenc_rope_layout>(layout);
      // HF [B, H, S, D] after transpose(1, 2): q with 3 heads, k with 1.
      check_strided(dt, p, L, B, S, D, {nullptr, H, S * D, D, H * S * D}, {nullptr, 1, S * D, D, S * D},
                    size_t(B * H * S * D), size_t(B * S * D), pos.data(), "bhsd");
      // Fused QKV rows [B*S, (3 + 2*2) * D] as batch 1: q at column 0, k at 3*D, v after.
      const int64_t row = (H + 4) * D;
      check_strided(dt, p, L, 1, B * S, D, {nullptr, H, 0, row, 0}, {nullptr, 2, 0, row, 0}, size_t(B * S * row),
                    size_t(B * S * row), pos.data(), "fused qkv");
      // Gaps everywhere: head_stride D+5, token_stride H(D+5)+3, batch_stride S*ts+7.
      const int64_t hs = D + 5, ts = H * hs + 3, bs = S * ts + 7;
      check_strided(dt, p, L, B, S, D, {nullptr, H, hs, ts, bs}, {nullptr, 2, hs, 2 * hs, S * 2 * hs + 1},
                    size_t(B * bs), size_t(B * (S * 2 * hs + 1)), pos.data(), "gaps");
      // NULL positions: every sequence 0 .. S-1.
      check_strided(dt, p, L, B, S, D, {nullptr, H, 0, 0, 0}, {nullptr, 1, 0, 0, 0}, size_t(B * S * H * D),
                    size_t(B * S * D), nullptr, "null positions");
    }
  }
}

TEST_P(RopeStrided, BitwiseIdenticalForOneTwoThreeThreads) {
  const auto p = yarn_params(128);
  const int64_t B = 3, S = 70, H = 4, D = 128;
  const std::vector<int64_t> pos = scattered_positions(size_t(B * S), 1 << 20, 3);
  const auto q0 = random_f32(size_t(B * H * S * D), 4);
  std::vector<float> ref;
  for (int threads : {1, 2, 3}) {
    ThreadScope ts(threads);
    auto q = q0;
    const posenc_rope_operand qo{q.data(), H, S * D, D, H * S * D};
    ASSERT_EQ(posenc_rope_apply_strided(&p, POSENC_ROPE_F32, POSENC_ROPE_NEOX, pos.data(), 1, B, S, D, &qo, nullptr, 0),
              POSENC_OK);
    if (threads == 1) ref = q;
    else EXPECT_TRUE(same_bits(q, ref)) << threads;
  }
}

TEST_P(RopeStrided, OverlappingStridesAndBadArgumentsAreRejectedAndWriteNothing) {
  const auto p = make_params(POSENC_ROPE_DEFAULT, 64, 1e4);
  constexpr int64_t B = 2, S = 4, H = 3, D = 64;
  std::vector<float> q = random_f32(size_t(B * S * H * D + 64), 1), k = random_f32(size_t(B * S * D + 64), 2);
  const auto q0 = q, k0 = k;
  std::vector<int64_t> pos(size_t(B * S), 5);
  auto call = [&](posenc_rope_operand qo, posenc_rope_operand ko, int32_t axes = 1, int dtype = 0, int layout = 0,
                  int64_t b = 2, int64_t hd = 64, const int64_t* ps = nullptr) {
    return posenc_rope_apply_strided(&p, static_cast<posenc_rope_dtype>(dtype), static_cast<posenc_rope_layout>(layout),
                                     ps ? ps : pos.data(), axes, b, S, hd, &qo, &ko, 0);
  };
  const posenc_rope_operand qok{q.data(), H, 0, 0, 0}, kok{k.data(), 1, 0, 0, 0};
  auto qv = qok;
  qv.head_stride = 32;  // heads overlap
  EXPECT_POSENC_ERROR(call(qv, kok), POSENC_ERR_INVALID_ARGUMENT, "q->head_stride");
  qv = qok;
  qv.token_stride = 2 * D;  // tokens overlap the third head
  EXPECT_POSENC_ERROR(call(qv, kok), POSENC_ERR_INVALID_ARGUMENT, "q->token_stride");
  qv = qok;
  qv.batch_stride = D;
  EXPECT_POSENC_ERROR(call(qv, kok), POSENC_ERR_INVALID_ARGUMENT, "q->batch_stride");
  auto kv = kok;
  kv.head_stride = -64;
  EXPECT_POSENC_ERROR(call(qok, kv), POSENC_ERR_INVALID_ARGUMENT, "k->head_stride");
  kv = kok;
  kv.num_heads = -1;
  EXPECT_POSENC_ERROR(call(qok, kv), POSENC_ERR_INVALID_ARGUMENT, "k->num_heads");
  kv = kok;
  kv.data = nullptr;
  EXPECT_POSENC_ERROR(call(qok, kv), POSENC_ERR_NULL_POINTER, "k->data");
  // Same stride for heads and tokens (a [B, S, H, D] view misdescribed).
  qv = qok;
  qv.head_stride = D;
  qv.token_stride = D;
  EXPECT_POSENC_ERROR(call(qv, kok), POSENC_ERR_INVALID_ARGUMENT, "overlap");
  EXPECT_POSENC_ERROR(call(qok, kok, 3), POSENC_ERR_INVALID_ARGUMENT, "position_axes");
  EXPECT_POSENC_ERROR(call(qok, kok, 1, 3), POSENC_ERR_INVALID_ARGUMENT, "dtype");
  EXPECT_POSENC_ERROR(call(qok, kok, 1, 0, 2), POSENC_ERR_INVALID_ARGUMENT, "layout");
  EXPECT_POSENC_ERROR(call(qok, kok, 1, 0, 0, -1), POSENC_ERR_INVALID_ARGUMENT, "batch");
  EXPECT_POSENC_ERROR(call(qok, kok, 1, 0, 0, B, 32), POSENC_ERR_INVALID_ARGUMENT, "head_dim");
  std::vector<int64_t> big = pos;
  big[5] = (int64_t(1) << 53) + 1;
  EXPECT_POSENC_ERROR(call(qok, kok, 1, 0, 0, B, D, big.data()), POSENC_ERR_INVALID_ARGUMENT, "positions[5]");
  auto bad = p;
  bad.rotary_dim = 63;
  EXPECT_POSENC_ERROR(posenc_rope_apply_strided(&bad, POSENC_ROPE_F32, POSENC_ROPE_NEOX, pos.data(), 1, B, S, D, &qok,
                                                &kok, 0),
                      POSENC_ERR_INVALID_ARGUMENT, "rotary_dim");
  EXPECT_POSENC_ERROR(posenc_rope_plan_apply(nullptr, POSENC_ROPE_F32, POSENC_ROPE_NEOX, pos.data(), 1, B, S, D, &qok,
                                             &kok, 0),
                      POSENC_ERR_NULL_POINTER, "plan");
  EXPECT_TRUE(same_bits(q, q0) && same_bits(k, k0));
  // Nothing to do: empty batch, NULL operands.
  EXPECT_EQ(posenc_rope_apply_strided(&p, POSENC_ROPE_F32, POSENC_ROPE_NEOX, nullptr, 1, 0, S, D, &qok, nullptr, 0),
            POSENC_OK);
  EXPECT_EQ(posenc_rope_apply_strided(&p, POSENC_ROPE_F32, POSENC_ROPE_NEOX, pos.data(), 1, B, S, D, nullptr, nullptr, 0),
            POSENC_OK);
  EXPECT_TRUE(same_bits(q, q0) && same_bits(k, k0));
}

// ---------------------------------------------------------------- plan
class RopePlan : public IsaTest {};

TEST_P(RopePlan, PlanApplyEqualsParamsApplyBitwiseForEveryDtypeAndTheDecodeCall) {
  auto p = make_params(POSENC_ROPE_LLAMA3, 128, 500000.0);
  p.original_max_position = 8192;
  p.factor = 8;
  posenc_rope_plan* plan = nullptr;
  ASSERT_EQ(posenc_rope_plan_create(&p, &plan), POSENC_OK) << posenc_last_error_message();
  std::vector<double> a(64), b(64);
  double afa = 0, afb = 0;
  ASSERT_EQ(posenc_rope_plan_inv_freq(plan, a.data(), &afa), POSENC_OK);
  ASSERT_EQ(posenc_rope_inv_freq(&p, b.data(), &afb), POSENC_OK);
  EXPECT_TRUE(same_bits(a, b) && afa == afb);
  const int64_t Q = 32, K = 8, D = 128;
  for (int64_t T : {int64_t(1), int64_t(5), int64_t(300)}) {  // decode, small batch, prefill (tiled, threads)
    const std::vector<int64_t> pos = T == 300 ? scattered_positions(300, 131072, 2) : std::vector<int64_t>(T, 130000);
    for (int dt : {POSENC_ROPE_F32, POSENC_ROPE_BF16, POSENC_ROPE_F16}) {
      for (int layout : {0, 1}) {
        const auto L = static_cast<posenc_rope_layout>(layout);
        auto q1 = random_buf(dt, size_t(T * Q * D), 3), k1 = random_buf(dt, size_t(T * K * D), 4);
        auto q2 = q1, k2 = k1;
        const posenc_rope_operand qo{q1.data(), Q, 0, 0, 0}, ko{k1.data(), K, 0, 0, 0};
        ASSERT_EQ(posenc_rope_plan_apply(plan, static_cast<posenc_rope_dtype>(dt), L, pos.data(), 1, 1, T, D, &qo, &ko,
                                         0),
                  POSENC_OK)
            << posenc_last_error_message();
        ASSERT_EQ(packed_apply(dt, &p, L, pos.data(), T, D, q2.data(), Q, k2.data(), K, 0), POSENC_OK);
        EXPECT_TRUE(q1 == q2 && k1 == k2) << "T " << T << " dtype " << dt << " layout " << layout;
      }
    }
  }
  posenc_rope_plan_destroy(plan);
  posenc_rope_plan_destroy(nullptr);
}

TEST_P(RopePlan, CopiesItsArraysAndRejectsBadParams) {
  const int half = 32;
  auto* sf = new double[half];
  auto* lf = new double[half];
  for (int j = 0; j < half; ++j) { sf[j] = 1.0 + 0.02 * j; lf[j] = 1.0 + 0.5 * j; }
  auto p = make_params(POSENC_ROPE_LONGROPE, 2 * half, 1e4);
  p.original_max_position = 4096;
  p.factor = 32;
  p.seq_len = 8192;
  p.short_factor = sf;
  p.long_factor = lf;
  std::vector<double> want(half);
  double afw = 0;
  ASSERT_EQ(posenc_rope_inv_freq(&p, want.data(), &afw), POSENC_OK);
  posenc_rope_plan* plan = nullptr;
  ASSERT_EQ(posenc_rope_plan_create(&p, &plan), POSENC_OK);
  for (int j = 0; j < half; ++j) sf[j] = lf[j] = -1.0;  // the plan must not read these any more
  delete[] sf;
  delete[] lf;
  std::vector<double> got(half);
  double afg = 0;
  ASSERT_EQ(posenc_rope_plan_inv_freq(plan, got.data(), &afg), POSENC_OK);
  EXPECT_TRUE(same_bits(got, want) && afg == afw);
  posenc_rope_plan_destroy(plan);
  posenc_rope_plan* untouched = reinterpret_cast<posenc_rope_plan*>(0x1);
  auto bad = make_params(POSENC_ROPE_YARN, 64, 1e4);
  EXPECT_POSENC_ERROR(posenc_rope_plan_create(&bad, &untouched), POSENC_ERR_INVALID_ARGUMENT, "original_max_position");
  EXPECT_EQ(untouched, reinterpret_cast<posenc_rope_plan*>(0x1));
  EXPECT_POSENC_ERROR(posenc_rope_plan_create(nullptr, &untouched), POSENC_ERR_NULL_POINTER, "p");
  EXPECT_POSENC_ERROR(posenc_rope_plan_create(&bad, nullptr), POSENC_ERR_NULL_POINTER, "plan");
}

TEST_P(RopePlan, SeqLenFromPositionsSwitchesLongRopeAndDynamicLikeHf) {
  const int half = 32;
  std::vector<double> sf(half), lf(half);
  for (int j = 0; j < half; ++j) { sf[j] = 1.0 + 0.03 * j; lf[j] = 1.0 + 0.7 * j; }
  auto lr = make_params(POSENC_ROPE_LONGROPE, 2 * half, 1e4);
  lr.original_max_position = 4096;
  lr.factor = 32;
  lr.short_factor = sf.data();
  lr.long_factor = lf.data();
  auto dy = make_params(POSENC_ROPE_DYNAMIC, 2 * half, 1e4);
  dy.original_max_position = 4096;
  dy.factor = 4;
  for (const auto& base : {lr, dy}) {
    for (int64_t last : {int64_t(4095), int64_t(4096), int64_t(10000)}) {  // max(position) + 1 = last + 1
      std::vector<int64_t> pos = scattered_positions(20, 4000, 8);
      pos.push_back(last);
      const int64_t T = static_cast<int64_t>(pos.size());
      auto flag = base;
      flag.seq_len_from_positions = 1;
      auto expl = base;
      expl.seq_len = last + 1;
      std::vector<float> q1 = random_f32(size_t(T * 2 * 64), 5), q2 = q1;
      ASSERT_EQ(posenc_rope_apply_f32(&flag, POSENC_ROPE_NEOX, pos.data(), T, 64, q1.data(), 2, 0, nullptr, 0, 0, 0),
                POSENC_OK);
      ASSERT_EQ(posenc_rope_apply_f32(&expl, POSENC_ROPE_NEOX, pos.data(), T, 64, q2.data(), 2, 0, nullptr, 0, 0, 0),
                POSENC_OK);
      EXPECT_TRUE(same_bits(q1, q2)) << "type " << base.type << " last " << last;
      // The same through a plan (precomputed regimes) and cos_sin.
      posenc_rope_plan* plan = nullptr;
      ASSERT_EQ(posenc_rope_plan_create(&flag, &plan), POSENC_OK);
      std::vector<float> q3 = random_f32(size_t(T * 2 * 64), 5);
      const posenc_rope_operand qo{q3.data(), 2, 0, 0, 0};
      ASSERT_EQ(posenc_rope_plan_apply(plan, POSENC_ROPE_F32, POSENC_ROPE_NEOX, pos.data(), 1, 1, T, 64, &qo, nullptr, 0),
                POSENC_OK);
      EXPECT_TRUE(same_bits(q3, q2)) << "plan, type " << base.type << " last " << last;
      posenc_rope_plan_destroy(plan);
      std::vector<float> c1(size_t(T * half)), s1(c1.size()), c2(c1.size()), s2(c1.size());
      ASSERT_EQ(posenc_rope_cos_sin_f32(&flag, pos.data(), T, c1.data(), s1.data()), POSENC_OK);
      ASSERT_EQ(posenc_rope_cos_sin_f32(&expl, pos.data(), T, c2.data(), s2.data()), POSENC_OK);
      EXPECT_TRUE(same_bits(c1, c2) && same_bits(s1, s2));
    }
  }
}

// ---------------------------------------------------------------- re-rotation
class RopeRerotate : public IsaTest {};

TEST_P(RopeRerotate, LongRopeShortToLongIsOneRotationByTheAngleDifference) {
  const int half = 48, rot = 2 * half, D = 112, H = 3;
  std::vector<double> sf(half), lf(half);
  for (int j = 0; j < half; ++j) { sf[j] = 1.0 + 0.05 * j; lf[j] = 1.0 + 1.3 * j; }
  auto sp = make_params(POSENC_ROPE_LONGROPE, rot, 1e4);
  sp.original_max_position = 4096;
  sp.factor = 32;
  sp.short_factor = sf.data();
  sp.long_factor = lf.data();
  auto lp = sp;
  lp.seq_len = 4097;
  auto ya = yarn_params(rot), yb = yarn_params(rot);  // different attention factors: 1.2079 -> 1.3466
  yb.factor = 32;
  std::vector<int64_t> pos = scattered_positions(24, 4096, 6);
  for (int64_t i = 0; i < 20; ++i) pos.push_back(3000 + i);
  const int64_t T = static_cast<int64_t>(pos.size());
  for (const auto& pr : {std::make_pair(sp, lp), std::make_pair(ya, yb)}) {
    posenc_rope_plan *from = nullptr, *to = nullptr;
    ASSERT_EQ(posenc_rope_plan_create(&pr.first, &from), POSENC_OK);
    ASSERT_EQ(posenc_rope_plan_create(&pr.second, &to), POSENC_OK);
    double af_from = 0, af_to = 0;
    const auto inv_from = inv_of(pr.first, &af_from), inv_to = inv_of(pr.second, &af_to);
    for (int layout : {0, 1}) {
      const auto L = static_cast<posenc_rope_layout>(layout);
      const auto k0 = random_f32(size_t(T * H * D), 7);
      auto k = k0;
      const posenc_rope_operand ko{k.data(), H, 0, 0, 0};
      ASSERT_EQ(posenc_rope_plan_rerotate(from, to, POSENC_ROPE_F32, L, pos.data(), 1, 1, T, D, nullptr, &ko), POSENC_OK)
          << posenc_last_error_message();
      // Reference: one float64 rotation by pos (inv_to - inv_from), amplitude A_to / A_from.
      double worst = 0;
      std::vector<long double> ang(half);
      std::vector<double> in(D), ref(D);
      for (int64_t t = 0; t < T; ++t) {
        for (int j = 0; j < half; ++j)
          ang[j] = static_cast<long double>(pos[t]) * inv_to[j] - static_cast<long double>(pos[t]) * inv_from[j];
        for (int h = 0; h < H; ++h) {
          const size_t o = size_t((t * H + h) * D);
          for (int c = 0; c < D; ++c) in[c] = k0[o + c];
          ref_rotate_head(in.data(), ref.data(), D, ang.data(), rot, layout, af_to / af_from, false);
          worst = std::max(worst, pair_rel_err(in.data(), &k[o], ref.data(), rot, layout, af_to / af_from));
          for (int c = rot; c < D; ++c) ASSERT_EQ(k[o + c], k0[o + c]);
        }
      }
      EXPECT_LE(worst, 4e-7) << "layout " << layout;
      // Rotating with `from`, then re-rotating, equals rotating with `to` up to the float32
      // rounding of the intermediate (relative 1e-6).
      auto a = k0, b = k0;
      ASSERT_EQ(posenc_rope_apply_f32(&pr.first, L, pos.data(), T, D, a.data(), H, 0, nullptr, 0, 0, 0), POSENC_OK);
      const posenc_rope_operand ao{a.data(), H, 0, 0, 0};
      ASSERT_EQ(posenc_rope_plan_rerotate(from, to, POSENC_ROPE_F32, L, pos.data(), 1, 1, T, D, nullptr, &ao), POSENC_OK);
      ASSERT_EQ(posenc_rope_apply_f32(&pr.second, L, pos.data(), T, D, b.data(), H, 0, nullptr, 0, 0, 0), POSENC_OK);
      double diff = 0;
      for (size_t i = 0; i < a.size(); ++i) diff = std::max(diff, double(std::fabs(a[i] - b[i]) / (1 + std::fabs(b[i]))));
      EXPECT_LE(diff, 1e-6) << "layout " << layout;
      // from == to is the identity, bit for bit.
      auto c = k0;
      const posenc_rope_operand co{c.data(), H, 0, 0, 0};
      ASSERT_EQ(posenc_rope_plan_rerotate(to, to, POSENC_ROPE_F32, L, pos.data(), 1, 1, T, D, &co, nullptr), POSENC_OK);
      EXPECT_TRUE(same_bits(c, k0));
    }
    posenc_rope_plan_destroy(from);
    posenc_rope_plan_destroy(to);
  }
}

TEST_P(RopeRerotate, MismatchedPlansAreRejected) {
  posenc_rope_plan *a = nullptr, *b = nullptr;
  const auto pa = make_params(POSENC_ROPE_DEFAULT, 64, 1e4), pb = make_params(POSENC_ROPE_DEFAULT, 32, 1e4);
  ASSERT_EQ(posenc_rope_plan_create(&pa, &a), POSENC_OK);
  ASSERT_EQ(posenc_rope_plan_create(&pb, &b), POSENC_OK);
  std::vector<float> k = random_f32(64, 1);
  const auto k0 = k;
  const int64_t pos[1] = {3};
  const posenc_rope_operand ko{k.data(), 1, 0, 0, 0};
  EXPECT_POSENC_ERROR(posenc_rope_plan_rerotate(a, b, POSENC_ROPE_F32, POSENC_ROPE_NEOX, pos, 1, 1, 1, 64, nullptr, &ko),
                      POSENC_ERR_INVALID_ARGUMENT, "rotary_dim");
  EXPECT_POSENC_ERROR(posenc_rope_plan_rerotate(nullptr, b, POSENC_ROPE_F32, POSENC_ROPE_NEOX, pos, 1, 1, 1, 64, nullptr,
                                                &ko),
                      POSENC_ERR_NULL_POINTER, "from");
  EXPECT_TRUE(same_bits(k, k0));
  posenc_rope_plan_destroy(a);
  posenc_rope_plan_destroy(b);
}

// ---------------------------------------------------------------- ABI
/// posenc_rope_params as posenc 0.1 defined it (a caller compiled against the old header).
struct rope_params_v1 {
  uint32_t struct_size;
  posenc_rope_type type;
  int32_t rotary_dim;
  double theta, factor;
  int64_t original_max_position, seq_len;
  double low_freq_factor, high_freq_factor, beta_fast, beta_slow, mscale, mscale_all_dim, attention_factor;
  int32_t truncate;
  const double* short_factor;
  const double* long_factor;
};
static_assert(sizeof(rope_params_v1) == POSENC_ROPE_PARAMS_SIZE_V1, "0.1 layout is a prefix of the current one");
static_assert(offsetof(rope_params_v1, long_factor) == offsetof(posenc_rope_params, long_factor), "same offsets");

class RopeAbi : public IsaTest {};

TEST_P(RopeAbi, AVersion1StructStillWorksWithDefaultsForTheNewFields) {
  // The 0.1 caller's struct lives in a buffer exactly its size, followed by poison bytes that
  // must not be read as the new fields (ASan would also flag a read past it on the heap).
  std::vector<unsigned char> buf(sizeof(rope_params_v1));
  rope_params_v1 v1{};
  v1.struct_size = sizeof(rope_params_v1);
  v1.type = POSENC_ROPE_YARN;
  v1.rotary_dim = 64;
  v1.theta = 1e6;
  v1.factor = 8;
  v1.original_max_position = 4096;
  v1.low_freq_factor = 1;
  v1.high_freq_factor = 4;
  v1.beta_fast = 32;
  v1.beta_slow = 1;
  v1.truncate = 1;
  std::memcpy(buf.data(), &v1, sizeof v1);
  const auto* old = reinterpret_cast<const posenc_rope_params*>(buf.data());
  const auto cur = yarn_params(64);
  std::vector<double> a(32), b(32);
  double afa = 0, afb = 0;
  ASSERT_EQ(posenc_rope_inv_freq(old, a.data(), &afa), POSENC_OK) << posenc_last_error_message();
  ASSERT_EQ(posenc_rope_inv_freq(&cur, b.data(), &afb), POSENC_OK);
  EXPECT_TRUE(same_bits(a, b) && afa == afb);
  const std::vector<int64_t> pos = scattered_positions(9, 100000, 1);
  std::vector<float> q1 = random_f32(9 * 2 * 64, 2), q2 = q1;
  ASSERT_EQ(posenc_rope_apply_f32(old, POSENC_ROPE_NEOX, pos.data(), 9, 64, q1.data(), 2, 0, nullptr, 0, 0, 0), POSENC_OK);
  ASSERT_EQ(posenc_rope_apply_f32(&cur, POSENC_ROPE_NEOX, pos.data(), 9, 64, q2.data(), 2, 0, nullptr, 0, 0, 0), POSENC_OK);
  EXPECT_TRUE(same_bits(q1, q2));
  posenc_rope_plan* plan = nullptr;
  ASSERT_EQ(posenc_rope_plan_create(old, &plan), POSENC_OK);
  posenc_rope_plan_destroy(plan);
  // Any other struct_size is refused.
  v1.struct_size = sizeof(rope_params_v1) + 8;
  std::memcpy(buf.data(), &v1, sizeof v1);
  EXPECT_POSENC_ERROR(posenc_rope_inv_freq(old, a.data(), &afa), POSENC_ERR_INVALID_ARGUMENT, "struct_size");
  auto c = cur;
  c.struct_size = sizeof(posenc_rope_params) - 8;
  EXPECT_POSENC_ERROR(posenc_rope_inv_freq(&c, a.data(), &afa), POSENC_ERR_INVALID_ARGUMENT, "struct_size");
}

}  // namespace

POSENC_INSTANTIATE_ISA(RopeF16);
POSENC_INSTANTIATE_ISA(RopeStrided);
POSENC_INSTANTIATE_ISA(RopePlan);
POSENC_INSTANTIATE_ISA(RopeRerotate);
POSENC_INSTANTIATE_ISA(RopeAbi);
