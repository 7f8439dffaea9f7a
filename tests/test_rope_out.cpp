// SPDX-License-Identifier: Apache-2.0 OR MIT
// rope family: posenc_rope_plan_apply_out (RoPE of strided q / k into separate strided outputs).
// Reference: posenc_rope_plan_apply run in place on a copy of the inputs (itself tested against
// a long-double rotation in test_rope*.cpp): the results must be the same bits on every ISA
// path and thread count, the inputs untouched, the gaps of the outputs unwritten, and the
// aliasing rule of posenc.h enforced with nothing written.
#include "tests/test_rope_common.hpp"

#include <posenc/posenc.hpp>

#include <cstring>

using namespace posenc_test;

namespace {

constexpr unsigned char kPoisonByte = 0xA5;

size_t esz(int dt) { return dt == POSENC_ROPE_F32 ? 4 : 2; }

/// Random finite values of dtype dt (float32, or bf16 / f16 bit patterns of them).
std::vector<unsigned char> random_bytes(int dt, size_t n, uint64_t seed) {
  const std::vector<float> f = random_f32(n, seed);
  std::vector<unsigned char> b(n * esz(dt));
  for (size_t i = 0; i < n; ++i) {
    if (dt == POSENC_ROPE_F32) {
      std::memcpy(&b[4 * i], &f[i], 4);
    } else {
      uint16_t h;
      if (dt == POSENC_ROPE_F16) {
        h = ref_f32_to_f16(f[i]);
      } else {
        uint32_t u;
        std::memcpy(&u, &f[i], 4);
        h = static_cast<uint16_t>(u >> 16);
      }
      std::memcpy(&b[2 * i], &h, 2);
    }
  }
  return b;
}

/// An operand's strides with the zero (packed) ones resolved.
struct Lay {
  int64_t H, hs, ts, bs;
};
Lay resolve(const posenc_rope_operand& o, int64_t S, int64_t D) {
  Lay l{o.num_heads, o.head_stride ? o.head_stride : D, 0, 0};
  l.ts = o.token_stride ? o.token_stride : l.H * l.hs;
  l.bs = o.batch_stride ? o.batch_stride : S * l.ts;
  return l;
}
/// Elements an operand spans (first to one past the last).
size_t span(const Lay& l, int64_t B, int64_t S, int64_t D) {
  return static_cast<size_t>((B - 1) * l.bs + (S - 1) * l.ts + (l.H - 1) * l.hs + D);
}

/// Calls apply_out from the inputs (layout a) to fresh poisoned outputs (layout b) and checks:
/// OK, inputs untouched, every output element equal in bits to plan_apply in place on a copy of
/// the inputs, every other output byte unwritten.
void check_out(const posenc_rope_plan* plan, int dt, posenc_rope_layout L, int64_t B, int64_t S, int64_t D,
               const int64_t* pos, int inverse, posenc_rope_operand qa, posenc_rope_operand ka, posenc_rope_operand qb,
               posenc_rope_operand kb, const char* what) {
  const size_t es = esz(dt);
  const Lay lqa = resolve(qa, S, D), lka = resolve(ka, S, D), lqb = resolve(qb, S, D), lkb = resolve(kb, S, D);
  auto qin = random_bytes(dt, span(lqa, B, S, D), 21), kin = random_bytes(dt, span(lka, B, S, D), 22);
  const auto qin0 = qin, kin0 = kin;
  std::vector<unsigned char> qout(span(lqb, B, S, D) * es, kPoisonByte), kout(span(lkb, B, S, D) * es, kPoisonByte);
  qa.data = qin.data();
  ka.data = kin.data();
  qb.data = qout.data();
  kb.data = kout.data();
  const auto dtype = static_cast<posenc_rope_dtype>(dt);
  ASSERT_EQ(posenc_rope_plan_apply_out(plan, dtype, L, pos, 1, B, S, D, &qa, &ka, &qb, &kb, inverse), POSENC_OK)
      << what << ": " << posenc_last_error_message();
  EXPECT_TRUE(qin == qin0 && kin == kin0) << what << ": an input was written";
  auto qref = qin0, kref = kin0;
  posenc_rope_operand qr = qa, kr = ka;
  qr.data = qref.data();
  kr.data = kref.data();
  ASSERT_EQ(posenc_rope_plan_apply(plan, dtype, L, pos, 1, B, S, D, &qr, &kr, inverse), POSENC_OK);
  for (int which = 0; which < 2; ++which) {
    const Lay& la = which ? lka : lqa;
    const Lay& lb = which ? lkb : lqb;
    const auto& ref = which ? kref : qref;
    const auto& out = which ? kout : qout;
    std::vector<char> written(out.size(), 0);
    size_t bad = 0;
    for (int64_t b = 0; b < B; ++b)
      for (int64_t s = 0; s < S; ++s)
        for (int64_t h = 0; h < la.H; ++h)
          for (int64_t c = 0; c < D; ++c) {
            const size_t ia = static_cast<size_t>(b * la.bs + s * la.ts + h * la.hs + c) * es;
            const size_t ib = static_cast<size_t>(b * lb.bs + s * lb.ts + h * lb.hs + c) * es;
            bad += std::memcmp(&ref[ia], &out[ib], es) != 0;
            std::memset(&written[ib], 1, es);
          }
    size_t gaps = 0;
    for (size_t i = 0; i < out.size(); ++i) gaps += !written[i] && out[i] != kPoisonByte;
    EXPECT_EQ(bad, 0u) << what << " dtype " << dt << " layout " << L << " inverse " << inverse << ": "
                       << (which ? "k" : "q") << " differs from the in-place apply";
    EXPECT_EQ(gaps, 0u) << what << ": a gap of " << (which ? "k_out" : "q_out") << " was written";
  }
}

posenc_rope_plan* make_plan(const posenc_rope_params& p) {
  posenc_rope_plan* plan = nullptr;
  EXPECT_EQ(posenc_rope_plan_create(&p, &plan), POSENC_OK) << posenc_last_error_message();
  return plan;
}

posenc_rope_params yarn48() {
  auto p = make_params(POSENC_ROPE_YARN, 48, 1e6);  // partial rotary (48 of 64): the tail is copied
  p.original_max_position = 4096;
  p.factor = 8;  // attention factor 1.2079: cos/sin are not unit
  return p;
}

class RopeOut : public IsaTest {};

TEST_P(RopeOut, EqualsInPlaceApplyOnACopyBitwiseForEveryDtypeLayoutAndStrides) {
  posenc_rope_plan* plan = make_plan(yarn48());
  auto l3 = make_params(POSENC_ROPE_LLAMA3, 64, 500000.0);
  l3.original_max_position = 8192;
  l3.factor = 8;
  posenc_rope_plan* full = make_plan(l3);
  const int64_t D = 64, H = 3;
  for (auto bs : {std::pair<int64_t, int64_t>{1, 1}, {2, 21}}) {  // decode; two tiled sequences
    const int64_t B = bs.first, S = bs.second;
    std::vector<int64_t> pos(static_cast<size_t>(B * S));
    for (int64_t t = 0; t < B * S; ++t) pos[t] = t < S ? 70000 + t : (t * 7919) % 5003;
    for (const posenc_rope_plan* pl : {static_cast<const posenc_rope_plan*>(plan), static_cast<const posenc_rope_plan*>(full)})
      for (int dt : {POSENC_ROPE_F32, POSENC_ROPE_BF16, POSENC_ROPE_F16})
        for (int layout : {0, 1})
          for (int inverse : {0, 1}) {
            const auto L = static_cast<posenc_rope_layout>(layout);
            // HF's transposed [B, H, S, D] views in, packed [B, S, H, D] out (what posenc.torch does)
            check_out(pl, dt, L, B, S, D, pos.data(), inverse, {nullptr, H, S * D, D, H * S * D},
                      {nullptr, 1, S * D, D, S * D}, {nullptr, H, 0, 0, 0}, {nullptr, 1, 0, 0, 0}, "bhsd -> packed");
            // packed in, gaps everywhere out; NULL positions (0 .. S-1 per sequence)
            const int64_t hs = D + 5, ts = H * hs + 3;
            check_out(pl, dt, L, B, S, D, nullptr, inverse, {nullptr, H, 0, 0, 0}, {nullptr, 2, 0, 0, 0},
                      {nullptr, H, hs, ts, S * ts + 7}, {nullptr, 2, hs, 2 * hs + 1, S * (2 * hs + 1) + 2},
                      "packed -> gaps");
          }
  }
  posenc_rope_plan_destroy(plan);
  posenc_rope_plan_destroy(full);
}

TEST_P(RopeOut, BitwiseIdenticalForOneTwoThreeThreads) {
  posenc_rope_plan* plan = make_plan(yarn48());
  const int64_t B = 3, S = 70, H = 4, D = 64;
  const std::vector<int64_t> pos = scattered_positions(size_t(B * S), 1 << 20, 3);
  const auto q = random_f32(size_t(B * H * S * D), 4);
  std::vector<float> ref;
  for (int threads : {1, 2, 3}) {
    ThreadScope ts(threads);
    std::vector<float> out(q.size());
    poison(out);
    const posenc_rope_operand qi{const_cast<float*>(q.data()), H, S * D, D, H * S * D}, qo{out.data(), H, 0, 0, 0};
    ASSERT_EQ(posenc_rope_plan_apply_out(plan, POSENC_ROPE_F32, POSENC_ROPE_NEOX, pos.data(), 1, B, S, D, &qi,
                                         nullptr, &qo, nullptr, 0),
              POSENC_OK)
        << posenc_last_error_message();
    EXPECT_EQ(count_poison(out), 0u);
    if (threads == 1) ref = out;
    else EXPECT_TRUE(same_bits(out, ref)) << threads;
  }
  posenc_rope_plan_destroy(plan);
}

TEST_P(RopeOut, AnOutputEqualToItsInputRotatesInPlaceAnyOtherOverlapIsRejected) {
  posenc_rope_plan* plan = make_plan(yarn48());
  const int64_t S = 5, H = 3, D = 64;
  std::vector<int64_t> pos(S, 1234);
  const auto q0 = random_f32(size_t(S * H * D + 2 * D), 1), k0 = random_f32(size_t(S * D + D), 2);
  auto q = q0, k = k0;
  std::vector<float> ko(k.size());
  poison(ko);
  // q_out is q (packed strides spelled out: the same operand), k_out a separate buffer
  const posenc_rope_operand qi{q.data(), H, 0, 0, 0}, qsame{q.data(), H, D, H * D, 7 /* batch 1: unused */};
  const posenc_rope_operand ki{k.data(), 1, 0, 0, 0}, kout{ko.data(), 1, 0, 0, 0};
  ASSERT_EQ(posenc_rope_plan_apply_out(plan, POSENC_ROPE_F32, POSENC_ROPE_NEOX, pos.data(), 1, 1, S, D, &qi, &ki,
                                       &qsame, &kout, 0),
            POSENC_OK)
      << posenc_last_error_message();
  auto qr = q0, kr = k0;
  const posenc_rope_operand qro{qr.data(), H, 0, 0, 0}, kro{kr.data(), 1, 0, 0, 0};
  ASSERT_EQ(posenc_rope_plan_apply(plan, POSENC_ROPE_F32, POSENC_ROPE_NEOX, pos.data(), 1, 1, S, D, &qro, &kro, 0),
            POSENC_OK);
  EXPECT_TRUE(same_bits(q, qr)) << "q rotated in place";
  EXPECT_TRUE(same_bits(k, k0)) << "k is an input: unchanged";
  for (int64_t i = 0; i < S * D; ++i) ASSERT_EQ(std::memcmp(&ko[i], &kr[i], 4), 0) << i;
  // rejected overlaps: nothing written
  q = q0;
  k = k0;
  poison(ko);
  const auto ko0 = ko;
  auto call = [&](const posenc_rope_operand& a, const posenc_rope_operand& b) {
    return posenc_rope_plan_apply_out(plan, POSENC_ROPE_F32, POSENC_ROPE_NEOX, pos.data(), 1, 1, S, D, &qi, &ki, &a,
                                      &b, 0);
  };
  const posenc_rope_operand shifted{q.data() + D, H, 0, 0, 0};  // q one head on: overlaps q
  EXPECT_POSENC_ERROR(call(shifted, kout), POSENC_ERR_INVALID_ARGUMENT, "q_out overlaps q");
  const posenc_rope_operand strided_same{q.data(), H, 0, (H + 1) * D, 0};  // same data, other strides
  EXPECT_POSENC_ERROR(call(strided_same, kout), POSENC_ERR_INVALID_ARGUMENT, "q_out overlaps q");
  const posenc_rope_operand in_k{k.data() + 1, 1, 0, 0, 0};
  EXPECT_POSENC_ERROR(call(qsame, in_k), POSENC_ERR_INVALID_ARGUMENT, "k_out overlaps k");
  const posenc_rope_operand in_q{q.data() + 2 * D, 1, 0, 0, 0};
  EXPECT_POSENC_ERROR(call(qsame, in_q), POSENC_ERR_INVALID_ARGUMENT, "k_out overlaps q");
  std::vector<float> big(q.size() + k.size());
  poison(big);
  const posenc_rope_operand qa{big.data(), H, 0, 0, 0}, kb{big.data() + S * H * D - D, 1, 0, 0, 0};
  EXPECT_POSENC_ERROR(call(qa, kb), POSENC_ERR_INVALID_ARGUMENT, "q_out overlaps k_out");
  EXPECT_POSENC_ERROR(call(kb, kout), POSENC_ERR_INVALID_ARGUMENT, "num_heads");
  EXPECT_TRUE(same_bits(q, q0) && same_bits(k, k0) && same_bits(ko, ko0));
  EXPECT_EQ(count_poison(big), big.size());
  posenc_rope_plan_destroy(plan);
}

TEST_P(RopeOut, BadArgumentsAreRejectedAndWriteNothing) {
  posenc_rope_plan* plan = make_plan(yarn48());
  constexpr int64_t B = 2, S = 4, H = 3, D = 64;
  const auto q0 = random_f32(size_t(B * S * H * D), 1), k0 = random_f32(size_t(B * S * D), 2);
  auto q = q0, k = k0;
  std::vector<float> qo(q.size()), ko(k.size());
  poison(qo);
  poison(ko);
  std::vector<int64_t> pos(size_t(B * S), 5);
  const posenc_rope_operand qi{q.data(), H, 0, 0, 0}, ki{k.data(), 1, 0, 0, 0};
  const posenc_rope_operand qok{qo.data(), H, 0, 0, 0}, kok{ko.data(), 1, 0, 0, 0};
  auto call = [&](const posenc_rope_operand* a, const posenc_rope_operand* b, const posenc_rope_operand* qa = nullptr,
                  const posenc_rope_operand* kb = nullptr, int dtype = 0, int32_t axes = 1,
                  const posenc_rope_plan* pl = nullptr, int64_t hd = 64) {
    return posenc_rope_plan_apply_out(pl ? pl : plan, static_cast<posenc_rope_dtype>(dtype), POSENC_ROPE_NEOX,
                                      pos.data(), axes, B, S, hd, qa ? qa : &qi, kb ? kb : &ki, a, b, 0);
  };
  EXPECT_POSENC_ERROR(call(nullptr, &kok), POSENC_ERR_NULL_POINTER, "q_out must not be NULL");
  EXPECT_POSENC_ERROR(call(&qok, nullptr), POSENC_ERR_NULL_POINTER, "k_out must not be NULL");
  EXPECT_POSENC_ERROR(posenc_rope_plan_apply_out(plan, POSENC_ROPE_F32, POSENC_ROPE_NEOX, pos.data(), 1, B, S, D,
                                                 nullptr, &ki, &qok, &kok, 0),
                      POSENC_ERR_INVALID_ARGUMENT, "q_out must be NULL when q is NULL");
  auto v = qok;
  v.num_heads = 2;
  EXPECT_POSENC_ERROR(call(&v, &kok), POSENC_ERR_INVALID_ARGUMENT, "q_out->num_heads");
  v = qok;
  v.head_stride = 32;
  EXPECT_POSENC_ERROR(call(&v, &kok), POSENC_ERR_INVALID_ARGUMENT, "q_out->head_stride");
  v = qok;
  v.data = nullptr;
  EXPECT_POSENC_ERROR(call(&v, &kok), POSENC_ERR_NULL_POINTER, "q_out->data");
  auto w = kok;
  w.token_stride = -1;
  EXPECT_POSENC_ERROR(call(&qok, &w), POSENC_ERR_INVALID_ARGUMENT, "k_out->token_stride");
  auto bi = ki;
  bi.batch_stride = 1;
  EXPECT_POSENC_ERROR(call(&qok, &kok, nullptr, &bi), POSENC_ERR_INVALID_ARGUMENT, "k->batch_stride");
  EXPECT_POSENC_ERROR(call(&qok, &kok, nullptr, nullptr, 3), POSENC_ERR_INVALID_ARGUMENT, "dtype");
  EXPECT_POSENC_ERROR(call(&qok, &kok, nullptr, nullptr, 0, 3), POSENC_ERR_INVALID_ARGUMENT, "position_axes");
  EXPECT_POSENC_ERROR(call(&qok, &kok, nullptr, nullptr, 0, 1, nullptr, 32), POSENC_ERR_INVALID_ARGUMENT, "head_dim");
  EXPECT_POSENC_ERROR(posenc_rope_plan_apply_out(nullptr, POSENC_ROPE_F32, POSENC_ROPE_NEOX, pos.data(), 1, B, S, D,
                                                 &qi, &ki, &qok, &kok, 0),
                      POSENC_ERR_NULL_POINTER, "plan");
  std::vector<int64_t> big = pos;
  big[3] = (int64_t(1) << 53) + 1;
  EXPECT_POSENC_ERROR(posenc_rope_plan_apply_out(plan, POSENC_ROPE_F32, POSENC_ROPE_NEOX, big.data(), 1, B, S, D, &qi,
                                                 &ki, &qok, &kok, 0),
                      POSENC_ERR_INVALID_ARGUMENT, "positions[3]");
  EXPECT_TRUE(same_bits(q, q0) && same_bits(k, k0));
  EXPECT_EQ(count_poison(qo), qo.size());
  EXPECT_EQ(count_poison(ko), ko.size());
  // nothing to do: both operands absent, or batch 0
  EXPECT_EQ(posenc_rope_plan_apply_out(plan, POSENC_ROPE_F32, POSENC_ROPE_NEOX, pos.data(), 1, B, S, D, nullptr,
                                       nullptr, nullptr, nullptr, 0),
            POSENC_OK);
  EXPECT_EQ(posenc_rope_plan_apply_out(plan, POSENC_ROPE_F32, POSENC_ROPE_NEOX, nullptr, 1, 0, S, D, &qi, &ki, &qok,
                                       &kok, 0),
            POSENC_OK);
  EXPECT_EQ(count_poison(qo), qo.size());
  posenc_rope_plan_destroy(plan);
}

TEST_P(RopeOut, CppWrapperCallsTheCFunctionAndThrowsOnError) {
  const posenc::rope_plan plan(yarn48());
  const int64_t S = 3, H = 2, D = 64;
  std::vector<int64_t> pos{5, 6, 7};
  const auto q = random_f32(size_t(S * H * D), 9);
  std::vector<float> a(q.size()), b(q.size());
  const posenc_rope_operand qi{const_cast<float*>(q.data()), H, 0, 0, 0}, qa{a.data(), H, 0, 0, 0},
      qb{b.data(), H, 0, 0, 0};
  plan.apply_out(POSENC_ROPE_F32, POSENC_ROPE_NEOX, pos.data(), 1, 1, S, D, &qi, nullptr, &qa, nullptr, true);
  ASSERT_EQ(posenc_rope_plan_apply_out(plan.get(), POSENC_ROPE_F32, POSENC_ROPE_NEOX, pos.data(), 1, 1, S, D, &qi,
                                       nullptr, &qb, nullptr, 1),
            POSENC_OK);
  EXPECT_TRUE(same_bits(a, b));
  EXPECT_THROW(plan.apply_out(POSENC_ROPE_F32, POSENC_ROPE_NEOX, pos.data(), 1, 1, S, D, &qi, nullptr, nullptr,
                              nullptr),
               posenc::error);
}

POSENC_INSTANTIATE_ISA(RopeOut);

}  // namespace
