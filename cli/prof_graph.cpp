// SPDX-License-Identifier: Apache-2.0 OR MIT
// requires: posenc_laplacian_pe_f64 posenc_rwse_f64
// posenc profile: the graph family on a 2-D grid (a mesh: the shift-invert path) and RWSE.
#include <memory>
#include <vector>

#include "cli/profile.hpp"
#include "posenc/posenc.hpp"

namespace posenc_cli {
namespace {

struct Grid {
  int64_t n;
  std::vector<int64_t> src, dst;
};
std::shared_ptr<Grid> grid(int64_t side) {
  auto g = std::make_shared<Grid>();
  g->n = side * side;
  for (int64_t y = 0; y < side; ++y)
    for (int64_t x = 0; x < side; ++x) {
      if (x + 1 < side) g->src.push_back(y * side + x), g->dst.push_back(y * side + x + 1);
      if (y + 1 < side) g->src.push_back(y * side + x), g->dst.push_back((y + 1) * side + x);
    }
  return g;
}

RegisterProfile reg_lpe(30, "graph", "laplacian_pe_f64", [](bool quick) {
  const int64_t side = quick ? 64 : 128;
  auto g = grid(side);
  const int32_t k = 8;
  auto vals = std::make_shared<std::vector<double>>(size_t(k)), vecs = std::make_shared<std::vector<double>>(size_t(g->n) * k);
  return ProfileCase{strf("grid %lldx%lld, k=%d", (long long)side, (long long)side, k), double(g->n), "nodes", [=] {
                       posenc::check(posenc_laplacian_pe_f64(g->n, g->src.data(), g->dst.data(), nullptr,
                                                             int64_t(g->src.size()), POSENC_LAPLACIAN_SYM, k, vals->data(),
                                                             vecs->data()));
                     }};
});

RegisterProfile reg_rwse(31, "graph", "rwse_f64", [](bool quick) {
  const int64_t side = quick ? 128 : 256;
  auto g = grid(side);
  const int32_t steps = 16;
  auto out = std::make_shared<std::vector<double>>(size_t(g->n) * steps);
  return ProfileCase{strf("grid %lldx%lld, steps=%d", (long long)side, (long long)side, steps), double(g->n), "nodes", [=] {
                       posenc::check(posenc_rwse_f64(g->n, g->src.data(), g->dst.data(), nullptr, int64_t(g->src.size()),
                                                     steps, out->data()));
                     }};
});

}  // namespace
}  // namespace posenc_cli
