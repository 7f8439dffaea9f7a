// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/fuzz/fuzz_graph.cpp — libFuzzer target of the graph family: Laplacian eigenvector PE
// (every solver, the PyG flags), random-walk SE (with flags; exact or Monte-Carlo, single-graph or
// batched), the heat-kernel action and MagLapPE,
// the heat-kernel diagonal and rows, diffusion distances, RRWP and shortest-path distances, on edge
// lists decoded from the input (self-loops, duplicates, out-of-range or negative node ids, odd
// weights). The seeds mc_rwse_auto and mc_batch_auto (corpus/graph/) reach the Monte-Carlo RWSE
// through posenc_rwse_auto_f64 and through posenc_graph_batch_pe_auto_f64.
#include "tests/fuzz/fuzz_common.hpp"

using namespace posenc_fuzz;

namespace {
int64_t cnt(int64_t a, int64_t b) { return a > 0 && b > 0 && a <= 4096 && b <= 64 ? a * b : 0; }

/// posenc_rrwp_f64 / posenc_shortest_path_i32 with max_pairs below the number of pairs fail but
/// write *num_pairs (documented: the caller learns the size it needs); the other outputs stay.
void accept_count(posenc_status s, Out<int64_t>& np, int64_t max_pairs) {
  if (s != POSENC_ERR_INVALID_ARGUMENT || std::strstr(posenc_last_error_message(), "smaller than the number of pairs") == nullptr)
    return;
  if (np.null || np.v[0] <= max_pairs) fail("posenc_rrwp_f64 / posenc_shortest_path_i32", "max_pairs error without a larger *num_pairs");
  np.snap();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  setup(in);
  // Function selector: bytes 0..127 the first five functions (sel % 5, the seeds' meaning),
  // 128..255 the pair and heat-kernel functions.
  const uint8_t sel = in.u8();
  const int op = sel < 128 ? sel % 5 : 5 + (sel - 128) % 5;
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
      bool nan_pad = false;  // POSENC_LAPPE_NAN_PAD writes NaN by design (GraphGPS's padding)
      if (op == 0) {
        s = posenc_laplacian_pe_f64(n, src.ptr(), dst.ptr(), wp, m, lap, k, val.ptr(), vec.ptr());
      } else {
        posenc_laplacian_pe_info info;
        posenc_laplacian_pe_info_init(&info);
        info.solver = static_cast<posenc_lappe_method>(in.choice(4));
        info.flags = in.u8() % 32;  // the PyG bits, KEEP_SELF_LOOPS (rejected) and one unknown bit
        if (in.u8() % 16 == 0) info.struct_size = in.u32();
        const bool no_info = in.flag();
        nan_pad = !no_info && (info.flags & POSENC_LAPPE_NAN_PAD) != 0;
        s = posenc_laplacian_pe_ex_f64(n, src.ptr(), dst.ptr(), wp, m, lap, k, val.ptr(), vec.ptr(),
                                       no_info ? nullptr : &info);
      }
      if (s == POSENC_ERR_NOT_CONVERGED) s = POSENC_ERR_INVALID_ARGUMENT;  // a documented failure: same promise
      check(op == 0 ? "posenc_laplacian_pe_f64" : "posenc_laplacian_pe_ex_f64", s, in,
            out(val, k > 0 && k <= 64 && !nan_pad ? k : 0), out(vec, nan_pad ? 0 : cnt(n, k)));
      break;
    }
    case 5: case 6: {  // RRWP, shortest-path distances: a size query, or max_pairs rows
      const int32_t steps = in.size32(-1, 5);
      const int64_t mp = in.size(-1, 255);
      if (mp > 255) break;  // a wild max_pairs (>= 2^61): the caller's arrays cannot hold it
      const int64_t maxp = mp <= 0 ? mp : mp * 16;
      const bool query = in.u8() % 4 == 0;
      const int64_t rows = maxp > 0 ? maxp : 0;
      Out<int64_t> np(in, 1), pairs(in, 2 * rows);
      Out<double> values(in, rows * (steps > 0 ? steps : 0));
      Out<int32_t> dist(in, rows);
      posenc_status s;
      if (op == 5) {
        s = posenc_rrwp_f64(n, src.ptr(), dst.ptr(), wp, m, steps, maxp, np.ptr(), query ? nullptr : pairs.ptr(),
                            query ? nullptr : values.ptr());
        accept_count(s, np, maxp);
        const int64_t got = s == POSENC_OK && !query ? std::min(np.v[0], rows) : 0;
        check("posenc_rrwp_f64", s, in, out(np, 0), out(pairs, 0), out(values, got * (steps > 0 ? steps : 0)));
      } else {
        s = posenc_shortest_path_i32(n, src.ptr(), dst.ptr(), m, steps, maxp, np.ptr(), query ? nullptr : pairs.ptr(),
                                     query ? nullptr : dist.ptr());
        accept_count(s, np, maxp);
        check("posenc_shortest_path_i32", s, in, out(np, 0), out(pairs, 0), out(dist, 0));
      }
      break;
    }
    case 7: case 8: case 9: {  // heat-kernel diagonal, rows, diffusion distance
      const int64_t cnt_in = in.size(-1, 6);
      const int64_t c = cnt_in > 0 && cnt_in <= 4096 ? cnt_in : 0;
      Arr<double> times = array<double>(in, c, [&] { return in.real(0, 5); });
      Arr<int64_t> ids = array<int64_t>(in, 2 * c, [&] {
        const uint8_t b = in.u8();
        return b >= 252 ? static_cast<int64_t>(b) - 256 + (b == 255 && n > 0 && n <= 4096 ? n + 1 : 0) : (n > 0 ? b % n : b);
      });
      const double t = in.real(0, 5);
      Out<double> eb(in, 1);
      double* ebp = in.flag() ? nullptr : eb.ptr();
      if (op == 7) {
        Out<double> o(in, cnt(n, c));
        const posenc_status s = posenc_heat_kernel_diag_f64(n, src.ptr(), dst.ptr(), wp, m, lap, times.ptr(),
                                                            cnt_in > INT32_MAX || cnt_in < INT32_MIN ? -1 : static_cast<int32_t>(cnt_in), o.ptr(), ebp);
        check("posenc_heat_kernel_diag_f64", s, in, out(o, cnt(n, c)), out(eb, ebp ? 1 : 0));
      } else if (op == 8) {
        Out<double> o(in, cnt(n, c));
        const posenc_status s = posenc_heat_kernel_rows_f64(n, src.ptr(), dst.ptr(), wp, m, lap, t, ids.ptr(), cnt_in,
                                                            o.ptr(), ebp);
        check("posenc_heat_kernel_rows_f64", s, in, out(o, cnt(n, c)), out(eb, ebp ? 1 : 0));
      } else {
        Out<double> o(in, c);
        const posenc_status s = posenc_diffusion_distance_f64(n, src.ptr(), dst.ptr(), wp, m, lap, t, ids.ptr(), cnt_in,
                                                              o.ptr(), ebp);
        check("posenc_diffusion_distance_f64", s, in, out(o, c), out(eb, ebp ? 1 : 0));
      }
      break;
    }
    case 2: {
      const int32_t steps = in.size32(-1, 12);
      Out<double> o(in, cnt(n, steps));
      const uint32_t flags = in.u8() % 8;  // 0: posenc_rwse_f64; 4: an unknown bit
      // A later byte (0 when the input ends: the seeds' meaning) picks posenc_rwse_auto_f64 or the
      // batched posenc_graph_batch_pe_auto_f64 (the graph as one batch of 1 or 2 graphs): small walk
      // budgets make AUTO take the Monte-Carlo path; the method may be forced or out of range.
      const int via = in.u8() % 4;
      if (via == 0 || via == 3) {
        const posenc_status s = flags == 0 ? posenc_rwse_f64(n, src.ptr(), dst.ptr(), wp, m, steps, o.ptr())
                                           : posenc_rwse_ex_f64(n, src.ptr(), dst.ptr(), wp, m, steps, flags, o.ptr());
        check(flags == 0 ? "posenc_rwse_f64" : "posenc_rwse_ex_f64", s, in, out(o, cnt(n, steps)));
        break;
      }
      posenc_rwse_info info;
      posenc_rwse_info_init(&info);
      const uint8_t mb = in.u8();
      info.method = static_cast<posenc_rwse_method>(mb < 250 ? mb % 3 : static_cast<int>(mb) - 247);  // 3..8: bad
      info.walks = in.size32(-2, 40);
      info.seed = in.u64();
      if (in.u8() % 16 == 0) info.struct_size = in.u32();
      const bool no_info = in.flag();
      if (via == 1) {
        info.flags = flags;
        const posenc_status s = posenc_rwse_auto_f64(n, src.ptr(), dst.ptr(), wp, m, steps, o.ptr(), no_info ? nullptr : &info);
        check("posenc_rwse_auto_f64", s, in, out(o, cnt(n, steps)));
        break;
      }
      // Batched: LapPE off (k = 0; its NaN padding is by design), node_ptr {0, cut, n}.
      info.flags = in.u8() % 8 == 0 ? flags : 0u;
      const int64_t cut = n > 0 && n <= 4096 ? in.size(0, n) : 0;
      int64_t ecut = 0;
      while (ecut < mm && src.v[static_cast<size_t>(ecut)] < cut) ++ecut;  // the edges before the first one >= cut
      const int64_t ng = in.flag() ? 1 : 2;
      const int64_t node_ptr[3] = {0, ng == 1 ? n : cut, n}, edge_ptr[3] = {0, ng == 1 ? m : ecut, m};
      Out<int32_t> st(in, ng), used(in, ng);
      const posenc_status s = posenc_graph_batch_pe_auto_f64(ng, node_ptr, edge_ptr, src.ptr(), dst.ptr(), wp, lap, 0,
                                                             steps, flags, no_info ? nullptr : &info, nullptr, nullptr,
                                                             o.ptr(), st.ptr(), used.ptr());
      check("posenc_graph_batch_pe_auto_f64", s, in, out(o, cnt(n, steps)), out(st, ng), out(used, ng));
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
    case 4: {
      const int32_t k = in.size32(-1, 6);
      const double q = in.real(-0.5, 1.0);
      Out<double> val(in, k > 0 && k <= 64 ? k : 0), re(in, cnt(n, k)), im(in, cnt(n, k));
      // Half the inputs take the sparse route on every component above 2 nodes (test knob).
      if (in.flag())
        setenv("POSENC_MAGLAP_DENSE_MAX", "2", 1);
      else
        unsetenv("POSENC_MAGLAP_DENSE_MAX");
      posenc_status s = posenc_maglap_pe_f64(n, src.ptr(), dst.ptr(), wp, m, lap, q, k, val.ptr(), re.ptr(), im.ptr());
      if (s == POSENC_ERR_NOT_CONVERGED) s = POSENC_ERR_INVALID_ARGUMENT;  // a documented failure: same promise
      check("posenc_maglap_pe_f64", s, in, out(val, k > 0 && k <= 64 ? k : 0), out(re, cnt(n, k)), out(im, cnt(n, k)));
      break;
    }
  }
  return 0;
}
