// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/graph_heat_diag.cpp — graph family: the heat-kernel diagonal (exp(-tL))_vv by local
// Chebyshev moments (meet in the middle over the ceil(m/2)-hop ball of each node), and the cost
// model that chooses it over the global route (heat_apply on blocks of unit vectors).
//
// With c the spectral bound of L, A = (2/c) L - I (symmetric for both Laplacians: L_sym is built
// as I - D^-1/2 W D^-1/2) and exp(-tL) = sum_j eps_j (-1)^j a_j(z) T_j(A), z = t c / 2
// (heat_chebyshev). The moments mu_j(v) = (T_j(A))_vv follow from w_a = T_a(A) e_v, which is
// supported on the a-hop ball of v: T_{2a} = 2 T_a^2 - T_0 and T_{2a+1} = 2 T_a T_{a+1} - T_1 give
// mu_{2a} = 2 <w_a, w_a> - 1 and mu_{2a+1} = 2 <w_a, w_{a+1}> - mu_1, so a = 0 .. ceil(m/2)
// suffices for j = 0 .. m, and one set of moments serves every time.
//
// Cost: per block of kBlock sources, kBlock * sum_{a=1..H} (vol(B_a) + 2 |B_a|) multiply-adds,
// H = ceil(m/2). Even where the balls are the whole graph (hub graphs, large t c) that is about
// half the n (m + 1) (nnz + 2n) of the global route for ONE time, which pays it again per time:
// the global route is therefore no longer taken by default (POSENC_HEAT_DIAG_ROUTE=global, a test
// knob, still selects it).
//
// Plain lib code (baseline flags), blocks of kBlock BFS-adjacent sources as in the exact RWSE
// (lib/graph_rwse.cpp), fixed tiles of blocks: bitwise identical for any thread count and on every
// ISA path.
#include "lib/graph_common.hpp"

#include <tbb/enumerable_thread_specific.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

using namespace posenc;
using namespace posenc::detail;

namespace posenc {
namespace graph_detail {

namespace {

constexpr double kU = 0x1.0p-53;  // unit roundoff of float64

/// Per-thread scratch of one block: its ball, the ball's piece of L and three Chebyshev vectors.
struct DiagScratch {
  std::vector<int32_t> local;   // [n], -1 = outside the block's ball
  std::vector<int32_t> nodes;   // the ball, sources first, then by hop distance (BFS)
  std::vector<int64_t> level;   // level[a] = |B_a|, the nodes within a hops of a source
  std::vector<int64_t> lptr;    // L restricted to the ball, local numbering
  std::vector<int32_t> lidx;
  std::vector<double> lval;
  std::vector<double> w[3];     // rows of kBlock lanes: T_{a-1}(A) e, T_a(A) e, T_{a+1}(A) e
  int64_t max_ball = 0;         // largest |B_H| this thread has seen
};

/// The ball B_H of the sources src[0..nb) (BFS over L's pattern), into S.nodes / S.level / S.local.
void ball(const Lap& L, const int32_t* src, int nb, int32_t H, DiagScratch& S) {
  S.nodes.clear();
  S.level.assign(static_cast<size_t>(H) + 1, 0);
  for (int b = 0; b < nb; ++b) {
    S.local[static_cast<size_t>(src[b])] = static_cast<int32_t>(S.nodes.size());
    S.nodes.push_back(src[b]);
  }
  size_t head = 0;
  S.level[0] = nb;
  for (int32_t a = 1; a <= H; ++a) {
    const size_t end = S.nodes.size();
    for (; head < end; ++head) {
      const int32_t u = S.nodes[head];
      for (int64_t p = L.ptr[static_cast<size_t>(u)]; p < L.ptr[static_cast<size_t>(u) + 1]; ++p) {
        const int32_t x = L.idx[static_cast<size_t>(p)];
        if (S.local[static_cast<size_t>(x)] < 0) {
          S.local[static_cast<size_t>(x)] = static_cast<int32_t>(S.nodes.size());
          S.nodes.push_back(x);
        }
      }
    }
    S.level[static_cast<size_t>(a)] = static_cast<int64_t>(S.nodes.size());
  }
}

/// Moments mu[b * (m + 1) + j] = (T_j(A))_{vv} of the sources v = src[b], b < nb (nb <= kBlock).
void block_moments(const Lap& L, const int32_t* src, int nb, int64_t m, DiagScratch& S, double* mu) {
  const int32_t H = static_cast<int32_t>((m + 1) / 2);
  ball(L, src, nb, H, S);
  const int64_t N = static_cast<int64_t>(S.nodes.size());
  S.max_ball = std::max(S.max_ball, N);
  // L restricted to the ball (entries to nodes outside it dropped: only rows of B_H \ B_{H-1} have
  // such entries, and they multiply w_{H-1}, which is 0 outside B_{H-1}).
  S.lptr.assign(static_cast<size_t>(N) + 1, 0);
  S.lidx.clear();
  S.lval.clear();
  for (int64_t i = 0; i < N; ++i) {
    const int32_t u = S.nodes[static_cast<size_t>(i)];
    for (int64_t p = L.ptr[static_cast<size_t>(u)]; p < L.ptr[static_cast<size_t>(u) + 1]; ++p) {
      const int32_t l = S.local[static_cast<size_t>(L.idx[static_cast<size_t>(p)])];
      if (l < 0) continue;
      S.lidx.push_back(l);
      S.lval.push_back(L.val[static_cast<size_t>(p)]);
    }
    S.lptr[static_cast<size_t>(i) + 1] = static_cast<int64_t>(S.lidx.size());
  }
  for (int64_t i = 0; i < N; ++i) S.local[static_cast<size_t>(S.nodes[static_cast<size_t>(i)])] = -1;
  for (auto& w : S.w) w.assign(static_cast<size_t>(N * kBlock), 0.0);
  double* prev = S.w[2].data();  // T_{a-1}
  double* cur = S.w[0].data();   // T_a
  double* next = S.w[1].data();  // T_{a+1}
  for (int b = 0; b < nb; ++b) cur[b * kBlock + b] = 1.0;  // source b is local node b
  const int64_t stride = m + 1;
  for (int b = 0; b < nb; ++b) mu[b * stride] = 1.0;
  const double s2c = 2.0 / L.bound;
  const int64_t* __restrict lptr = S.lptr.data();
  const int32_t* __restrict lidx = S.lidx.data();
  const double* __restrict lval = S.lval.data();
  double mu1[kBlock] = {};
  for (int32_t a = 0; a < H; ++a) {
    const int64_t ra = S.level[static_cast<size_t>(a)], r1 = S.level[static_cast<size_t>(a) + 1];
    double dd[kBlock] = {}, dn[kBlock] = {};
    for (int64_t i = 0; i < r1; ++i) {
      double s[kBlock] = {};
      for (int64_t p = lptr[i]; p < lptr[i + 1]; ++p) {
        const double v = lval[p];
        const double* __restrict x = cur + static_cast<int64_t>(lidx[p]) * kBlock;
        for (int b = 0; b < kBlock; ++b) s[b] += v * x[b];
      }
      const double* __restrict c = cur + i * kBlock;
      const double* __restrict q = prev + i * kBlock;
      double* __restrict y = next + i * kBlock;
      for (int b = 0; b < kBlock; ++b) {
        const double av = s2c * s[b] - c[b];  // (A T_a) e
        y[b] = a == 0 ? av : 2.0 * av - q[b];
      }
      if (i < ra)
        for (int b = 0; b < kBlock; ++b) {
          dd[b] += c[b] * c[b];
          dn[b] += c[b] * y[b];
        }
    }
    for (int b = 0; b < nb; ++b) {
      double* M = mu + b * stride;
      if (a == 0) {
        mu1[b] = dn[b];  // <e_v, A e_v>
        M[1] = mu1[b];
      } else {
        M[2 * a] = 2.0 * dd[b] - 1.0;
        if (2 * a + 1 <= m) M[2 * a + 1] = 2.0 * dn[b] - mu1[b];
      }
    }
    double* old = prev;
    prev = cur;
    cur = next;
    next = old;
  }
  if (H >= 1 && 2 * static_cast<int64_t>(H) <= m) {  // mu_{2H} = 2 <w_H, w_H> - 1
    double dd[kBlock] = {};
    for (int64_t i = 0; i < S.level[static_cast<size_t>(H)]; ++i)
      for (int b = 0; b < kBlock; ++b) dd[b] += cur[i * kBlock + b] * cur[i * kBlock + b];
    for (int b = 0; b < nb; ++b) mu[b * stride + 2 * H] = 2.0 * dd[b] - 1.0;
  }
}

/// Sources in BFS order (every node: isolated nodes are their own ball).
std::vector<int32_t> diag_sources(const Lap& L) {
  Graph g;  // bfs_order reads the pattern only
  g.n = L.n;
  g.ptr = L.ptr;
  g.idx = L.idx;
  return bfs_order(g);
}

}  // namespace

HeatSeries heat_series(const Lap& L, const double* times, int32_t num_times) {
  HeatSeries hs;
  hs.coef.resize(static_cast<size_t>(num_times));
  hs.tail.resize(static_cast<size_t>(num_times));
  for (int32_t i = 0; i < num_times; ++i) {
    std::vector<double> a = heat_chebyshev(0.5 * times[i] * L.bound, 1e-17, &hs.tail[static_cast<size_t>(i)]);
    for (size_t j = 0; j < a.size(); ++j) a[j] *= j == 0 ? 1.0 : (j % 2 == 0 ? 2.0 : -2.0);  // eps_j (-1)^j
    hs.m_max = std::max<int64_t>(hs.m_max, static_cast<int64_t>(a.size()) - 1);
    hs.coef[static_cast<size_t>(i)] = std::move(a);
  }
  return hs;
}

double heat_diag_local(const Lap& L, const HeatSeries& hs, int32_t num_times, double* res) {
  const int64_t n = L.n;
  const int64_t m = hs.m_max;
  const std::vector<int32_t> order = diag_sources(L);
  tbb::enumerable_thread_specific<DiagScratch> scratch([&] {
    DiagScratch s;
    s.local.assign(static_cast<size_t>(n), -1);
    return s;
  });
  const int64_t grain = 4 * kBlock;  // sources per tile
  parallel_tiles(tiles_of(n, grain), [&](int64_t t) {
    DiagScratch& S = scratch.local();
    std::vector<double> mu(static_cast<size_t>(kBlock * (m + 1)));
    const int64_t i0 = t * grain, i1 = std::min(n, i0 + grain);
    for (int64_t i = i0; i < i1; i += kBlock) {
      const int nb = static_cast<int>(std::min<int64_t>(kBlock, i1 - i));
      block_moments(L, order.data() + i, nb, m, S, mu.data());
      for (int b = 0; b < nb; ++b) {
        const double* M = mu.data() + b * (m + 1);
        double* o = res + static_cast<int64_t>(order[static_cast<size_t>(i + b)]) * num_times;
        for (int32_t ti = 0; ti < num_times; ++ti) {
          const std::vector<double>& c = hs.coef[static_cast<size_t>(ti)];
          double s = 0.0;
          for (int64_t j = static_cast<int64_t>(c.size()) - 1; j >= 0; --j) s += c[static_cast<size_t>(j)] * M[j];
          o[ti] = s;
        }
      }
    }
  });
  int64_t N = 0;
  for (const DiagScratch& s : scratch) N = std::max(N, s.max_ball);
  // Rounding (docs/ACCURACY.md, graph section): the computed w_a differ from T_a(A) e_v by at most
  // e = 2 (H + 1)^2 (r + 4) u in the 2-norm (local errors <= 3 (r + 4) u per step with
  // || |A| ||_2 <= 1, carried by U_{a-k}(A) of norm <= a - k + 1), the inner products over at most
  // N ball nodes add 1.01 N u (1 + e)^2, so |d mu_j| <= 5 e + 2 e^2 + 2.02 N u (1 + e)^2 + 2 u; the
  // coefficients sum to 1 in absolute value, and the final sum adds (m_i + 3) u.
  int64_t r = 0;
  for (int64_t i = 0; i < n; ++i) r = std::max<int64_t>(r, L.ptr[static_cast<size_t>(i) + 1] - L.ptr[static_cast<size_t>(i)]);
  const double H = static_cast<double>((m + 1) / 2);
  const double e = 2.0 * (H + 1.0) * (H + 1.0) * (static_cast<double>(r) + 4.0) * kU;
  const double rnd = 5.0 * e + 2.0 * e * e + 2.02 * static_cast<double>(N) * kU * (1.0 + e) * (1.0 + e) + 2.0 * kU;
  double worst = 0.0;
  for (int32_t ti = 0; ti < num_times; ++ti)
    worst = std::max(worst, hs.tail[static_cast<size_t>(ti)] + rnd +
                                (static_cast<double>(hs.coef[static_cast<size_t>(ti)].size()) + 2.0) * kU);
  return worst;
}

int heat_diag_route_override() {
  if (const char* env = std::getenv("POSENC_HEAT_DIAG_ROUTE"); env && *env) {
    if (std::strcmp(env, "local") == 0) return 1;
    if (std::strcmp(env, "global") == 0) return 2;
  }
  return 0;
}

}  // namespace graph_detail
}  // namespace posenc
