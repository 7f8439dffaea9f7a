// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/fuzz/fuzz_learned.cpp — libFuzzer target of the learned family: table lookup-add and its
// gradient, spectrum and low-rank factors (SVD), resampling and its backward.
#include "tests/fuzz/fuzz_common.hpp"

using namespace posenc_fuzz;

namespace {
int64_t cnt(int64_t a, int64_t b) { return a > 0 && b > 0 && a <= 512 && b <= 512 ? a * b : 0; }
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  setup(in);
  const int op = in.u8() % 6;
  const int64_t rows = in.size(-1, 20);
  const int32_t dim = in.size32(-1, 12);
  switch (op) {
    case 0: case 1: {
      const int64_t n = in.size(-1, 24);
      Arr<int64_t> pos = array<int64_t>(in, n > 0 && n <= 512 ? n : 0, [&] {
        const uint8_t b = in.u8();
        return b >= 250 ? static_cast<int64_t>(in.u64()) : static_cast<int64_t>(b % 24) - 2;
      });
      if (op == 0) {
        Arr<float> t = array<float>(in, cnt(rows, dim), [&] { return in.realf(-2, 2); });
        Out<float> x(in, cnt(n, dim));
        for (auto& e : x.v) e = in.realf(-2, 2);
        x.snap();
        const posenc_status s = posenc_learned_add_f32(t.ptr(), rows, dim, pos.ptr(), n, x.ptr());
        check("posenc_learned_add_f32", s, in, out(x, cnt(n, dim)));
      } else {
        Arr<float> gx = array<float>(in, cnt(n, dim), [&] { return in.realf(-2, 2); });
        Out<float> gt(in, cnt(rows, dim));
        const posenc_status s = posenc_learned_grad_f32(gx.ptr(), pos.ptr(), n, dim, gt.ptr(), rows);
        check("posenc_learned_grad_f32", s, in, out(gt, cnt(rows, dim)));
      }
      break;
    }
    case 2: case 3: {
      Arr<float> t = array<float>(in, cnt(rows, dim), [&] { return in.u8() % 8 == 0 ? 0.0f : in.realf(-2, 2); });
      const int64_t m = rows > 0 && dim > 0 ? std::min<int64_t>(rows, dim) : 0;
      if (op == 2) {
        Out<double> sv(in, m), er(in, 1);
        const uint8_t which = in.u8();
        const posenc_status s = posenc_learned_spectrum_f32(t.ptr(), rows, dim, which & 1 ? nullptr : sv.ptr(),
                                                            which & 2 ? nullptr : er.ptr());
        check("posenc_learned_spectrum_f32", s, in, out(sv, which & 1 ? 0 : m), out(er, which & 2 ? 0 : 1));
      } else {
        const int32_t r = in.size32(-1, 12);
        Out<float> left(in, cnt(rows, r)), right(in, cnt(r, dim));
        const posenc_status s = posenc_learned_lowrank_f32(t.ptr(), rows, dim, r, left.ptr(), right.ptr());
        check("posenc_learned_lowrank_f32", s, in, out(left, cnt(rows, r)), out(right, cnt(r, dim)));
      }
      break;
    }
    case 4: case 5: {
      const int32_t prefix = in.size32(-1, 2);
      const int64_t oh = in.size(-1, 9), ow = in.size(-1, 9), nh = in.size(-1, 12), nw = in.size(-1, 12);
      const auto mode = static_cast<posenc_resample>(in.choice(3));
      const int64_t old_rows = prefix >= 0 && oh >= 0 && ow >= 0 && oh <= 64 && ow <= 64 ? prefix + oh * ow : 0;
      const int64_t new_rows = prefix >= 0 && nh >= 0 && nw >= 0 && nh <= 64 && nw <= 64 ? prefix + nh * nw : 0;
      if (op == 4) {
        Arr<float> t = array<float>(in, cnt(old_rows, dim), [&] { return in.realf(-2, 2); });
        Out<float> o(in, cnt(new_rows, dim));
        const posenc_status s = posenc_learned_resample_f32(t.ptr(), prefix, oh, ow, dim, nh, nw, mode, o.ptr());
        check("posenc_learned_resample_f32", s, in, out(o, cnt(new_rows, dim)));
      } else {
        Arr<float> g = array<float>(in, cnt(new_rows, dim), [&] { return in.realf(-2, 2); });
        Out<float> gt(in, cnt(old_rows, dim));
        const posenc_status s = posenc_learned_resample_backward_f32(g.ptr(), prefix, oh, ow, dim, nh, nw, mode, gt.ptr());
        check("posenc_learned_resample_backward_f32", s, in, out(gt, cnt(old_rows, dim)));
      }
      break;
    }
  }
  return 0;
}
