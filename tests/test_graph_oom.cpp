// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/test_graph_oom.cpp — graph family under allocation failure (tests/fault_inject.hpp: every
// allocation of a call failed in turn; OUT_OF_MEMORY must leave every output bit-identical).
// RWSE and the Laplacian PE on the dense path and on each sparse solver; tests/test_oom.cpp
// sweeps one call of every other function.
#include "tests/test_common.hpp"
#include "tests/fault_inject.hpp"
#include "tests/graph_gen.hpp"

#include <cstring>
#include <functional>
#include <vector>

namespace {

using namespace posenc_test;
using posenc_graph_gen::EdgeList;
using posenc_fault::SweepResult;

/// Sweeps `call` with float64 outputs `outs` (poisoned before each call).
SweepResult sweep(const char* what, const std::function<posenc_status()>& call,
                  const std::vector<std::vector<double>*>& outs) {
  return posenc_fault::sweep(
      what, [&] { for (auto* o : outs) poison(*o); }, call,
      [&] {
        posenc_fault::Bytes b;
        for (auto* o : outs) {
          const auto* p = reinterpret_cast<const unsigned char*>(o->data());
          b.emplace_back(p, p + o->size() * sizeof(double));
        }
        return b;
      });
}

EdgeList small_graph() {
  // Two components (a 5x6 grid and a 9-cycle) and an isolated node.
  EdgeList g = posenc_graph_gen::grid(5, 6);
  const int64_t base = g.n;
  for (int i = 0; i < 9; ++i) {
    g.src.push_back(base + i);
    g.dst.push_back(base + (i + 1) % 9);
  }
  g.n = base + 10;
  return g;
}

TEST(GraphOom, RwseKeepsOutputsOnFailure) {
  const EdgeList g = small_graph();
  const int32_t steps = 9;
  std::vector<double> out(static_cast<size_t>(g.n * steps));
  const SweepResult r = sweep(
      "posenc_rwse_f64",
      [&] { return posenc_rwse_f64(g.n, g.src.data(), g.dst.data(), nullptr, g.m(), steps, out.data()); }, {&out});
  EXPECT_GT(r.sites, 5);
  EXPECT_GT(r.oom, 0);
}

TEST(GraphOom, LaplacianPeKeepsOutputsOnFailure) {
  // The dense path on small components, then every sparse solver forced on a 12 x 12 grid.
  const EdgeList small = small_graph(), grid = posenc_graph_gen::grid(12, 12);
  struct Case {
    const EdgeList* g;
    posenc_lappe_method solver;
  };
  for (const Case& c : {Case{&small, POSENC_LAPPE_AUTO}, Case{&grid, POSENC_LAPPE_LANCZOS},
                        Case{&grid, POSENC_LAPPE_SHIFT_INVERT}}) {
    SCOPED_TRACE(testing::Message() << "solver " << c.solver);
    const EdgeList& g = *c.g;
    const int32_t k = 5;
    std::vector<double> val(k), vec(static_cast<size_t>(g.n * k));
    posenc_laplacian_pe_info info;
    const SweepResult r = sweep(
        "posenc_laplacian_pe_ex_f64", [&] {
          posenc_laplacian_pe_info_init(&info);
          info.solver = c.solver;
          return posenc_laplacian_pe_ex_f64(g.n, g.src.data(), g.dst.data(), nullptr, g.m(), POSENC_LAPLACIAN_SYM, k,
                                            val.data(), vec.data(), &info);
        },
        {&val, &vec});
    EXPECT_GT(r.oom, 0);
  }
}

}  // namespace
