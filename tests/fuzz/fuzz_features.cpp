// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/fuzz/fuzz_features.cpp — libFuzzer target of the features family: random-feature
// sampling, feature maps and their backward, linear (global, causal, one step) and softmax
// attention and their backward.
#include "tests/fuzz/fuzz_common.hpp"

using namespace posenc_fuzz;

namespace {
int64_t cnt(int64_t a, int64_t b) { return a > 0 && b > 0 && a <= 512 && b <= 512 ? a * b : 0; }
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  setup(in);
  const int op = in.u8() % 8;
  switch (op) {
    case 0: {
      const auto smp = static_cast<posenc_rf_sampling>(in.choice(4));
      const int32_t d = in.size32(-1, 12), m = in.size32(-1, 40);
      const double sigma = in.real(0.01, 10);
      Out<float> om(in, cnt(m, d));
      const posenc_status s = posenc_rf_sample_f32(smp, d, m, sigma, in.u64(), om.ptr());
      check("posenc_rf_sample_f32", s, in, out(om, cnt(m, d)));
      break;
    }
    case 1: case 2: {
      const auto kind = static_cast<posenc_rf_kind>(in.choice(4));
      const auto shift = static_cast<posenc_rf_shift>(in.choice(3));
      const int32_t d = in.size32(-1, 8), m = in.size32(-1, 24);
      const int64_t n = in.size(-1, 40);
      const int64_t width = kind == POSENC_RF_POSITIVE || kind == POSENC_RF_GAUSSIAN_POSITIVE ? m : 2 * int64_t(m);
      Arr<float> om = array<float>(in, cnt(m, d), [&] { return in.realf(-2, 2); });
      Arr<float> w = array<float>(in, m, [&] { return in.realf(0, 2); });
      Arr<float> x = array<float>(in, cnt(n, d), [&] { return in.realf(-2, 2); });
      const float* wp = in.flag() ? nullptr : w.ptr();
      if (op == 1) {
        Out<float> o(in, cnt(n, width));
        const posenc_status s = posenc_rf_features_f32(kind, shift, om.ptr(), m, d, wp, x.ptr(), n, o.ptr());
        check("posenc_rf_features_f32", s, in, out(o, cnt(n, width)));
      } else {
        Arr<float> go = array<float>(in, cnt(n, width), [&] { return in.realf(-2, 2); });
        Out<float> gx(in, cnt(n, d)), gw(in, m > 0 ? m : 0), gom(in, cnt(m, d));
        const posenc_status s = posenc_rf_features_backward_f32(kind, shift, om.ptr(), m, d, wp, x.ptr(), n, go.ptr(),
                                                                gx.ptr(), gw.ptr(), gom.ptr());
        check("posenc_rf_features_backward_f32", s, in, out(gx, gx.null ? 0 : cnt(n, d)),
              out(gw, gw.null ? 0 : (m > 0 ? m : 0)), out(gom, gom.null ? 0 : cnt(m, d)));
      }
      break;
    }
    case 3: case 4: {  // linear attention and its backward
      const int64_t n = in.size(-1, 300);
      const int32_t F = in.size32(-1, 8), dv = in.size32(-1, 6), causal = in.size32(-1, 2);
      const float eps = in.realf(0, 1e-3);
      Arr<float> pq = array<float>(in, cnt(n, F), [&] { return in.realf(0, 2); });
      Arr<float> pk = array<float>(in, cnt(n, F), [&] { return in.realf(0, 2); });
      Arr<float> v = array<float>(in, cnt(n, dv), [&] { return in.realf(-2, 2); });
      if (op == 3) {
        Out<float> o(in, cnt(n, dv));
        const posenc_status s = posenc_linear_attention_f32(pq.ptr(), pk.ptr(), v.ptr(), n, F, dv, causal, eps, o.ptr());
        check("posenc_linear_attention_f32", s, in, out(o, cnt(n, dv)));
      } else {
        Arr<float> go = array<float>(in, cnt(n, dv), [&] { return in.realf(-2, 2); });
        Out<float> gq(in, cnt(n, F)), gk(in, cnt(n, F)), gv(in, cnt(n, dv));
        const posenc_status s = posenc_linear_attention_backward_f32(pq.ptr(), pk.ptr(), v.ptr(), n, F, dv, causal, eps,
                                                                     go.ptr(), gq.ptr(), gk.ptr(), gv.ptr());
        check("posenc_linear_attention_backward_f32", s, in, out(gq, cnt(n, F)), out(gk, cnt(n, F)),
              out(gv, cnt(n, dv)));
      }
      break;
    }
    case 5: case 6: {  // softmax attention and its backward
      const int64_t n = in.size(-1, 300);
      const int32_t d = in.size32(-1, 8), dv = in.size32(-1, 6), causal = in.size32(-1, 2);
      const float scale = in.realf(-2, 2);
      Arr<float> q = array<float>(in, cnt(n, d), [&] { return in.realf(-2, 2); });
      Arr<float> k = array<float>(in, cnt(n, d), [&] { return in.realf(-2, 2); });
      Arr<float> v = array<float>(in, cnt(n, dv), [&] { return in.realf(-2, 2); });
      if (op == 5) {
        Out<float> o(in, cnt(n, dv));
        const posenc_status s = posenc_softmax_attention_f32(q.ptr(), k.ptr(), v.ptr(), n, d, dv, causal, scale, o.ptr());
        check("posenc_softmax_attention_f32", s, in, out(o, cnt(n, dv)));
      } else {
        Arr<float> go = array<float>(in, cnt(n, dv), [&] { return in.realf(-2, 2); });
        Out<float> gq(in, cnt(n, d)), gk(in, cnt(n, d)), gv(in, cnt(n, dv));
        const posenc_status s = posenc_softmax_attention_backward_f32(q.ptr(), k.ptr(), v.ptr(), n, d, dv, causal, scale,
                                                                      go.ptr(), gq.ptr(), gk.ptr(), gv.ptr());
        check("posenc_softmax_attention_backward_f32", s, in, out(gq, cnt(n, d)), out(gk, cnt(n, d)),
              out(gv, cnt(n, dv)));
      }
      break;
    }
    case 7: {  // one step of causal linear attention: the state is updated in place
      const int32_t F = in.size32(-1, 8), dv = in.size32(-1, 6);
      const float eps = in.realf(0, 1e-3);
      Arr<float> pq = array<float>(in, F, [&] { return in.realf(0, 2); });
      Arr<float> pk = array<float>(in, F, [&] { return in.realf(0, 2); });
      Arr<float> v = array<float>(in, dv, [&] { return in.realf(-2, 2); });
      Out<float> S(in, cnt(F, dv)), z(in, F > 0 ? F : 0), o(in, dv > 0 ? dv : 0);
      for (auto& x : S.v) x = in.realf(0, 2);
      for (auto& x : z.v) x = in.realf(0.1, 2);
      S.snap();
      z.snap();
      const posenc_status s = posenc_linear_attention_step_f32(pq.ptr(), pk.ptr(), v.ptr(), F, dv, eps, S.ptr(), z.ptr(),
                                                               o.ptr());
      check("posenc_linear_attention_step_f32", s, in, out(S, cnt(F, dv)), out(z, F > 0 ? F : 0),
            out(o, dv > 0 ? dv : 0));
      break;
    }
  }
  return 0;
}
