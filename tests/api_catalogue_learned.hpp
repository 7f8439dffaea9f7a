// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/api_catalogue_learned.hpp — the API catalogue's calls of the learned family: learned tables: lookup-add, gradient scatter, spectrum, low rank, resampling.
// Part of tests/api_catalogue.hpp (see there).
#pragma once

#include "tests/api_catalogue_common.hpp"

namespace posenc_test {

/// Appends one small, valid call of each learned function (several variants per function).
inline void add_learned_calls(std::vector<ApiCall>& calls) {
  using namespace api_detail;
  const Adder add{calls};
  {
    const int64_t rows = 12, n = 15;
    const int32_t dim = 10;
    {
      auto b = fresh();
      const float* table = b->rf(static_cast<size_t>(rows * dim), -1, 1);
      int64_t* pos = b->iv({0, 11, 3, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 0, 11});
      float* x = b->rf(static_cast<size_t>(n * dim), -1, 1);
      add("posenc_learned_add_f32", "learned", b, {region(x, n * dim)},
          [=] { return posenc_learned_add_f32(table, rows, dim, pos, n, x); });
    }
    {
      auto b = fresh();
      const float* gx = b->rf(static_cast<size_t>(n * dim), -1, 1);
      int64_t* pos = b->iv({0, 11, 3, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 0, 11});
      float* gt = b->of(static_cast<size_t>(rows * dim));
      add("posenc_learned_grad_f32", "learned", b, {region(gt, rows * dim)},
          [=] { return posenc_learned_grad_f32(gx, pos, n, dim, gt, rows); });
    }
    {
      auto b = fresh();
      const float* table = b->rf(static_cast<size_t>(rows * dim), -1, 1);
      double* sv = b->od(static_cast<size_t>(dim));
      double* er = b->od(1);
      add("posenc_learned_spectrum_f32", "learned", b, {region(sv, dim), region(er, 1)},
          [=] { return posenc_learned_spectrum_f32(table, rows, dim, sv, er); });
    }
    {
      auto b = fresh();
      const float* table = b->rf(static_cast<size_t>(rows * dim), -1, 1);
      float* left = b->of(static_cast<size_t>(rows * 3));
      float* right = b->of(static_cast<size_t>(3 * dim));
      add("posenc_learned_lowrank_f32", "learned", b, {region(left, rows * 3), region(right, 3 * dim)},
          [=] { return posenc_learned_lowrank_f32(table, rows, dim, 3, left, right); });
    }
    for (posenc_resample mode : {POSENC_RESAMPLE_BICUBIC_AA, POSENC_RESAMPLE_BICUBIC, POSENC_RESAMPLE_LINEAR}) {
      const int32_t prefix = 1, d = 6;
      const int64_t oh = 4, ow = 5, nh = 3, nw = 7;
      {
        auto b = fresh();
        const float* t = b->rf(static_cast<size_t>((prefix + oh * ow) * d), -1, 1);
        float* out = b->of(static_cast<size_t>((prefix + nh * nw) * d));
        add("posenc_learned_resample_f32", "learned", b, {region(out, (prefix + nh * nw) * d)},
            [=] { return posenc_learned_resample_f32(t, prefix, oh, ow, d, nh, nw, mode, out); });
      }
      {
        auto b = fresh();
        const float* g = b->rf(static_cast<size_t>((prefix + nh * nw) * d), -1, 1);
        float* gt = b->of(static_cast<size_t>((prefix + oh * ow) * d));
        add("posenc_learned_resample_backward_f32", "learned", b, {region(gt, (prefix + oh * ow) * d)},
            [=] { return posenc_learned_resample_backward_f32(g, prefix, oh, ow, d, nh, nw, mode, gt); });
      }
    }
  }
}

}  // namespace posenc_test
