// SPDX-License-Identifier: Apache-2.0 OR MIT
// features family tests, multi-head and batched linear attention
// (posenc_linear_attention_mh_f32, posenc_linear_attention_backward_mh_f32): every head bitwise
// identical to the single-head call on a packed copy of that head (the single-head functions are
// tested against float64 in test_features.cpp), for strided [B, n, H, dim] views, contiguous
// arrays and NULL strides, causal / unnormalized flags, 1-3 threads, every ISA path; argument
// validation (strides, overlapping outputs) writes nothing.
#include "tests/test_common.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

using namespace posenc_test;

namespace {

std::vector<float> randn(size_t n, double sd, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0.0, sd);
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(g(rng));
  return v;
}

/// A [B, H, n, dim] view: element (b, h, i, c) at b*s[0] + h*s[1] + i*s[2] + c.
struct View {
  std::vector<float> data;
  int64_t s[3];
  int dim;
  float* at(int64_t b, int64_t h, int64_t i) { return data.data() + b * s[0] + h * s[1] + i * s[2]; }
};

/// "bnhd": torch's q.view(B, n, H, d) transposed to [B, H, n, d]; "bhnd": contiguous.
View make_view(bool bnhd, int64_t B, int64_t H, int64_t n, int dim, uint64_t seed, double sd = 1.0) {
  View v;
  v.dim = dim;
  v.data = randn(size_t(B * H * n * dim), sd, seed);
  if (bnhd) {
    v.s[0] = n * H * dim; v.s[1] = dim; v.s[2] = H * dim;
  } else {
    v.s[0] = H * n * dim; v.s[1] = n * dim; v.s[2] = dim;
  }
  return v;
}

std::vector<float> pack_head(View& v, int64_t b, int64_t h, int64_t n) {
  std::vector<float> out(size_t(n * v.dim));
  for (int64_t i = 0; i < n; ++i)
    for (int c = 0; c < v.dim; ++c) out[size_t(i * v.dim + c)] = v.at(b, h, i)[c];
  return out;
}

bool head_equals(View& v, int64_t b, int64_t h, int64_t n, const std::vector<float>& ref) {
  for (int64_t i = 0; i < n; ++i)
    if (std::memcmp(v.at(b, h, i), ref.data() + i * v.dim, sizeof(float) * size_t(v.dim)) != 0) return false;
  return true;
}

class FeaturesMultiHead : public IsaTest {};

TEST_P(FeaturesMultiHead, EveryHeadBitwiseEqualsTheSingleHeadCall) {
  const int64_t B = 2, H = 3, n = 150;  // 150 rows: two 128-row causal chunks
  const int F = 8, dv = 5;
  for (bool bnhd : {true, false})
    for (int32_t flags : {0, 1, 2, 3}) {
      View q = make_view(bnhd, B, H, n, F, 1), k = make_view(bnhd, B, H, n, F, 2), v = make_view(false, B, H, n, dv, 3);
      View go = make_view(bnhd, B, H, n, dv, 4);
      for (auto* x : {&q, &k})
        for (auto& e : x->data) e = std::fabs(e) + 0.05f;  // positive features
      View out = make_view(bnhd, B, H, n, dv, 5), gq = make_view(bnhd, B, H, n, F, 6), gk = make_view(false, B, H, n, F, 7),
           gv = make_view(bnhd, B, H, n, dv, 8);
      for (auto* x : {&out, &gq, &gk, &gv}) poison(x->data);
      const int64_t* ns = bnhd ? nullptr : v.s;  // NULL strides = contiguous
      ASSERT_EQ(posenc_linear_attention_mh_f32(B, H, n, F, dv, q.data.data(), q.s, k.data.data(), k.s, v.data.data(), ns,
                                               flags, 1e-6f, out.data.data(), out.s), POSENC_OK)
          << posenc_last_error_message();
      ASSERT_EQ(posenc_linear_attention_backward_mh_f32(B, H, n, F, dv, q.data.data(), q.s, k.data.data(), k.s,
                                                        v.data.data(), ns, flags, 1e-6f, go.data.data(), go.s,
                                                        gq.data.data(), gq.s, gk.data.data(), nullptr, gv.data.data(),
                                                        gv.s), POSENC_OK)
          << posenc_last_error_message();
      // both layouts cover the whole buffer: nothing left poisoned
      EXPECT_EQ(count_poison(out.data) + count_poison(gq.data) + count_poison(gk.data) + count_poison(gv.data), 0u);
      for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h) {
          auto hq = pack_head(q, b, h, n), hk = pack_head(k, b, h, n), hv = pack_head(v, b, h, n),
               hg = pack_head(go, b, h, n);
          std::vector<float> o1(size_t(n * dv)), a(size_t(n * F)), c(size_t(n * F)), e(size_t(n * dv));
          ASSERT_EQ(posenc_linear_attention_f32(hq.data(), hk.data(), hv.data(), n, F, dv, flags, 1e-6f, o1.data()),
                    POSENC_OK);
          ASSERT_EQ(posenc_linear_attention_backward_f32(hq.data(), hk.data(), hv.data(), n, F, dv, flags, 1e-6f,
                                                         hg.data(), a.data(), c.data(), e.data()), POSENC_OK);
          EXPECT_TRUE(head_equals(out, b, h, n, o1)) << "out b " << b << " h " << h << " flags " << flags;
          EXPECT_TRUE(head_equals(gq, b, h, n, a) && head_equals(gk, b, h, n, c) && head_equals(gv, b, h, n, e))
              << "grads b " << b << " h " << h << " flags " << flags;
        }
      for (int threads : {1, 2, 3}) {
        ThreadScope ts(threads);
        View o2 = out;
        poison(o2.data);
        ASSERT_EQ(posenc_linear_attention_mh_f32(B, H, n, F, dv, q.data.data(), q.s, k.data.data(), k.s, v.data.data(),
                                                 ns, flags, 1e-6f, o2.data.data(), o2.s), POSENC_OK);
        for (int64_t b = 0; b < B; ++b)
          for (int64_t h = 0; h < H; ++h) EXPECT_TRUE(head_equals(o2, b, h, n, pack_head(out, b, h, n))) << threads;
      }
    }
}

TEST_P(FeaturesMultiHead, BadInputWritesNothingAndNamesTheArgument) {
  const int64_t B = 1, H = 2, n = 3;
  const int F = 4, dv = 2;
  View q = make_view(false, B, H, n, F, 1), v = make_view(false, B, H, n, dv, 2), out = make_view(false, B, H, n, dv, 3);
  poison(out.data);
  auto call = [&](int64_t b, int64_t h, int64_t nn, const int64_t* qs, const int64_t* os, int32_t flags, float* o) {
    return posenc_linear_attention_mh_f32(b, h, nn, F, dv, q.data.data(), qs, q.data.data(), qs, v.data.data(), nullptr,
                                          flags, 0.0f, o, os);
  };
  const int64_t neg[3] = {-1, 0, 4}, overlap[3] = {0, 0, 2}, rows_overlap[3] = {12, 6, 1};
  EXPECT_POSENC_ERROR(call(-1, H, n, nullptr, nullptr, 0, out.data.data()), POSENC_ERR_INVALID_ARGUMENT, "batch");
  EXPECT_POSENC_ERROR(call(B, -2, n, nullptr, nullptr, 0, out.data.data()), POSENC_ERR_INVALID_ARGUMENT, "heads");
  EXPECT_POSENC_ERROR(call(B, H, -1, nullptr, nullptr, 0, out.data.data()), POSENC_ERR_INVALID_ARGUMENT, "n");
  EXPECT_POSENC_ERROR(call(B, H, n, nullptr, nullptr, 4, out.data.data()), POSENC_ERR_INVALID_ARGUMENT, "flags");
  EXPECT_POSENC_ERROR(call(B, H, n, neg, nullptr, 0, out.data.data()), POSENC_ERR_INVALID_ARGUMENT, "q_strides[0]");
  EXPECT_POSENC_ERROR(call(B, H, n, nullptr, overlap, 0, out.data.data()), POSENC_ERR_INVALID_ARGUMENT, "out_strides");
  EXPECT_POSENC_ERROR(call(B, H, n, nullptr, rows_overlap, 0, out.data.data()), POSENC_ERR_INVALID_ARGUMENT, "out_strides");
  EXPECT_POSENC_ERROR(call(B, H, n, nullptr, nullptr, 0, nullptr), POSENC_ERR_NULL_POINTER, "out");
  EXPECT_POSENC_ERROR(posenc_linear_attention_mh_f32(B, H, n, F, dv, nullptr, nullptr, q.data.data(), nullptr,
                                                     v.data.data(), nullptr, 0, 0.0f, out.data.data(), nullptr),
                      POSENC_ERR_NULL_POINTER, "phi_q");
  const int64_t huge[3] = {int64_t(1) << 61, 0, 4};
  EXPECT_POSENC_ERROR(call(2, H, n, huge, nullptr, 0, out.data.data()), POSENC_ERR_SIZE_OVERFLOW, "phi_q");
  EXPECT_EQ(count_poison(out.data), out.data.size());
  // backward: an overlapping gradient
  View g = make_view(false, B, H, n, F, 4);
  poison(g.data);
  const int64_t gover[3] = {0, 0, 4};
  EXPECT_POSENC_ERROR(posenc_linear_attention_backward_mh_f32(B, H, n, F, dv, q.data.data(), nullptr, q.data.data(),
                                                              nullptr, v.data.data(), nullptr, 0, 0.0f, v.data.data(),
                                                              nullptr, g.data.data(), gover, g.data.data() + 0,
                                                              nullptr, out.data.data(), nullptr),
                      POSENC_ERR_INVALID_ARGUMENT, "grad_q_strides");
  EXPECT_EQ(count_poison(g.data) + count_poison(out.data), g.data.size() + out.data.size());
  // no element: a no-op
  EXPECT_EQ(call(0, H, n, nullptr, nullptr, 0, nullptr), POSENC_OK);
}

POSENC_INSTANTIATE_ISA(FeaturesMultiHead);

}  // namespace
