// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/fuzz/fuzz_features.cpp — libFuzzer target of the features family: random-feature
// sampling, feature maps and their backward, linear (global, causal, one step) and softmax
// attention and their backward, the bfloat16 features and linear attention, multi-head linear
// attention and its backward.
#include "tests/fuzz/fuzz_common.hpp"

using namespace posenc_fuzz;

namespace {
int64_t cnt(int64_t a, int64_t b) { return a > 0 && b > 0 && a <= 512 && b <= 512 ? a * b : 0; }

/// bfloat16 bit pattern of a float32 (truncated; a NaN stays a NaN).
uint16_t to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<uint16_t>(u >> 16);
}

/// Elements of a [batch, heads, n, dim] array when every extent is small, else 0.
int64_t cnt4(int64_t b, int64_t h, int64_t n, int64_t d) {
  return b > 0 && h > 0 && n > 0 && d > 0 && b <= 8 && h <= 8 && n <= 512 && d <= 64 ? b * h * n * d : 0;
}

/// bf16 NaN check of the first count elements.
bool has_nan_bf16(const Out<uint16_t>& o, int64_t count) {
  for (int64_t i = 0; i < count && size_t(i) < o.v.size(); ++i)
    if ((o.v[size_t(i)] & 0x7f80u) == 0x7f80u && (o.v[size_t(i)] & 0x7fu) != 0) return true;
  return false;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  setup(in);
  // Function selector: bytes 0..127 the first eight functions (the seeds written when there were
  // eight keep their meaning), 128..255 the bfloat16 and multi-head functions.
  const uint8_t sel = in.u8();
  const int op = sel < 128 ? sel % 8 : 8 + (sel - 128) % 4;
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
    case 8: {  // random features on bfloat16 storage
      const auto kind = static_cast<posenc_rf_kind>(in.choice(4));
      const auto shift = static_cast<posenc_rf_shift>(in.choice(3));
      const int32_t d = in.size32(-1, 8), m = in.size32(-1, 24);
      const int64_t n = in.size(-1, 40);
      const int64_t width = kind == POSENC_RF_POSITIVE || kind == POSENC_RF_GAUSSIAN_POSITIVE ? m : 2 * int64_t(m);
      Arr<float> om = array<float>(in, cnt(m, d), [&] { return in.realf(-2, 2); });
      Arr<float> w = array<float>(in, m, [&] { return in.realf(0, 2); });
      Arr<uint16_t> x = array<uint16_t>(in, cnt(n, d), [&] { return to_bf16(in.realf(-2, 2)); });
      Out<uint16_t> o(in, cnt(n, width));
      const posenc_status s = posenc_rf_features_bf16(kind, shift, om.ptr(), m, d, in.flag() ? nullptr : w.ptr(), x.ptr(),
                                                      n, o.ptr());
      check("posenc_rf_features_bf16", s, in, out(o, 0));
      if (s == POSENC_OK && in.nice && has_nan_bf16(o, cnt(n, width)))
        fail("posenc_rf_features_bf16", "NaN in an output of a call on finite input");
      break;
    }
    case 9: {  // linear attention on bfloat16 storage
      const int64_t n = in.size(-1, 300);
      const int32_t F = in.size32(-1, 8), dv = in.size32(-1, 6), flags = in.size32(-1, 4);
      const float eps = in.realf(0, 1e-3);
      Arr<uint16_t> pq = array<uint16_t>(in, cnt(n, F), [&] { return to_bf16(in.realf(0, 2)); });
      Arr<uint16_t> pk = array<uint16_t>(in, cnt(n, F), [&] { return to_bf16(in.realf(0, 2)); });
      Arr<uint16_t> v = array<uint16_t>(in, cnt(n, dv), [&] { return to_bf16(in.realf(-2, 2)); });
      Out<uint16_t> o(in, cnt(n, dv));
      const posenc_status s = posenc_linear_attention_bf16(pq.ptr(), pk.ptr(), v.ptr(), n, F, dv, flags, eps, o.ptr());
      check("posenc_linear_attention_bf16", s, in, out(o, 0));
      if (s == POSENC_OK && in.nice && has_nan_bf16(o, cnt(n, dv)))
        fail("posenc_linear_attention_bf16", "NaN in an output of a call on finite input");
      break;
    }
    case 10: case 11: {  // multi-head linear attention and its backward, [B, H, n, d] or [B, n, H, d] views
      const int64_t B = in.size(-1, 3), H = in.size(-1, 3), n = in.size(-1, 40);
      const int32_t F = in.size32(-1, 8), dv = in.size32(-1, 6), flags = in.size32(-1, 4);
      const float eps = in.realf(0, 1e-3);
      const int64_t cf = cnt4(B, H, n, F), cv = cnt4(B, H, n, dv);
      // strides: NULL (contiguous) or torch's x.view(B, n, H, d).transpose(1, 2) (same extent)
      const bool tq = in.flag(), tv = in.flag(), to = in.flag();
      const int64_t sf[3] = {cf ? n * H * F : 0, F, cf ? H * F : 0}, sv[3] = {cv ? n * H * dv : 0, dv, cv ? H * dv : 0};
      const int64_t* qs = tq && cf ? sf : nullptr;
      const int64_t* vs = tv && cv ? sv : nullptr;
      const int64_t* os_f = to && cf ? sf : nullptr;
      const int64_t* os_v = to && cv ? sv : nullptr;
      Arr<float> pq = array<float>(in, cf, [&] { return in.realf(0, 2); });
      Arr<float> pk = array<float>(in, cf, [&] { return in.realf(0, 2); });
      Arr<float> v = array<float>(in, cv, [&] { return in.realf(-2, 2); });
      if (op == 10) {
        Out<float> o(in, cv);
        const posenc_status s = posenc_linear_attention_mh_f32(B, H, n, F, dv, pq.ptr(), qs, pk.ptr(), qs, v.ptr(), vs,
                                                               flags, eps, o.ptr(), os_v);
        check("posenc_linear_attention_mh_f32", s, in, out(o, cv));
      } else {
        Arr<float> go = array<float>(in, cv, [&] { return in.realf(-2, 2); });
        Out<float> gq(in, cf), gk(in, cf), gv(in, cv);
        const posenc_status s = posenc_linear_attention_backward_mh_f32(
            B, H, n, F, dv, pq.ptr(), qs, pk.ptr(), nullptr, v.ptr(), vs, flags, eps, go.ptr(), vs, gq.ptr(), os_f,
            gk.ptr(), nullptr, gv.ptr(), os_v);
        check("posenc_linear_attention_backward_mh_f32", s, in, out(gq, cf), out(gk, cf), out(gv, cv));
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
