// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/fuzz/fuzz_graph.cpp — libFuzzer target of the graph family: Laplacian eigenvector PE
// (every solver), random-walk SE and the heat-kernel action, on edge lists decoded from the input
// (self-loops, duplicates, out-of-range or negative node ids, odd weights).
#include "tests/fuzz/fuzz_common.hpp"

using namespace posenc_fuzz;

namespace {
int64_t cnt(int64_t a, int64_t b) { return a > 0 && b > 0 && a <= 4096 && b <= 64 ? a * b : 0; }
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  setup(in);
  const int op = in.u8() % 4;
  const int64_t n = in.size(-1, 60), m = in.size(-1, 120);
  const int64_t mm = m > 0 && m <= 4096 ? m : 0;
  // Edges: mostly a path / random pairs among the n nodes; some ids out of range.
  Arr<int64_t> src = array<int64_t>(in, mm, [&] {
    const uint8_t b = in.u8();
    return b >= 252 ? static_cast<int64_t>(b) - 256 + (b == 255 && n > 0 && n <= 4096 ? n + 1 : 0) : (n > 0 ? b % n : b);
  });
  Arr<int64_t> dst = array<int64_t>(in, mm, [&] {
    const uint8_t b = in.u8();
    return b >= 252 ? static_cast<int64_t>(b) - 256 + (b == 255 && n > 0 && n <= 4096 ? n + 1 : 0) : (n > 0 ? b % n : b);
  });
  Arr<double> w = array<double>(in, mm, [&] { return in.real(0, 3); });
  const double* wp = in.flag() ? nullptr : w.ptr();
  const auto lap = static_cast<posenc_laplacian>(in.choice(2));
  switch (op) {
    case 0: case 1: {
      const int32_t k = in.size32(-1, 6);
      Out<double> val(in, k > 0 && k <= 64 ? k : 0), vec(in, cnt(n, k));
      posenc_status s;
      if (op == 0) {
        s = posenc_laplacian_pe_f64(n, src.ptr(), dst.ptr(), wp, m, lap, k, val.ptr(), vec.ptr());
      } else {
        posenc_laplacian_pe_info info;
        posenc_laplacian_pe_info_init(&info);
        info.solver = static_cast<posenc_lappe_method>(in.choice(4));
        if (in.u8() % 16 == 0) info.struct_size = in.u32();
        s = posenc_laplacian_pe_ex_f64(n, src.ptr(), dst.ptr(), wp, m, lap, k, val.ptr(), vec.ptr(),
                                       in.flag() ? nullptr : &info);
      }
      if (s == POSENC_ERR_NOT_CONVERGED) s = POSENC_ERR_INVALID_ARGUMENT;  // a documented failure: same promise
      check(op == 0 ? "posenc_laplacian_pe_f64" : "posenc_laplacian_pe_ex_f64", s, in,
            out(val, k > 0 && k <= 64 ? k : 0), out(vec, cnt(n, k)));
      break;
    }
    case 2: {
      const int32_t steps = in.size32(-1, 12);
      Out<double> o(in, cnt(n, steps));
      const posenc_status s = posenc_rwse_f64(n, src.ptr(), dst.ptr(), wp, m, steps, o.ptr());
      check("posenc_rwse_f64", s, in, out(o, cnt(n, steps)));
      break;
    }
    case 3: {
      const double t = in.real(0, 20);
      const int64_t nv = in.size(-1, 3);
      Arr<double> x = array<double>(in, cnt(n, nv), [&] { return in.real(-2, 2); });
      Out<double> y(in, cnt(n, nv)), eb(in, 1);
      const posenc_status s = posenc_heat_kernel_apply_f64(n, src.ptr(), dst.ptr(), wp, m, lap, t, x.ptr(), nv, y.ptr(),
                                                           in.flag() ? nullptr : eb.ptr());
      check("posenc_heat_kernel_apply_f64", s, in, out(y, cnt(n, nv)), out(eb, 1));
      break;
    }
  }
  return 0;
}
