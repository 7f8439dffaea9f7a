// SPDX-License-Identifier: Apache-2.0 OR MIT
// bench/fill_decision.cpp — CPU time of the steps that decide whether a sparse LDL^T of a graph
// Laplacian is affordable (lib/sparse_fill.hpp): Eigen's AMD ordering, the factor count
// (elimination tree + column counts) and Eigen's symbolic factorization (what LapPE and MagLapPE
// ran before deciding, until the count was added). Not part of the build (CMake globs bench_*.cpp
// only); the pattern is that of L = D - (W + W^T) with the diagonal, real scalars.
//
//   g++ -O2 -DNDEBUG -std=c++17 -I. -I/usr/include/eigen3 bench/fill_decision.cpp -o /tmp/fill_decision
//   /tmp/fill_decision EDGES.bin N [--no-symbolic]
//
// EDGES.bin: int64 pairs (src, dst) in native byte order; bench/fill_decision.py writes the graphs
// of bench/maglap_sparse_random.py and bench/lappe_vs_scipy.py and runs this tool.
#include "lib/sparse_fill.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <ctime>
#include <vector>

static double cpu_s() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s EDGES.bin N [--no-symbolic]\n", argv[0]);
    return 2;
  }
  const int n = std::atoi(argv[2]);
  const bool symbolic = !(argc > 3 && std::strcmp(argv[3], "--no-symbolic") == 0);
  std::FILE* f = std::fopen(argv[1], "rb");
  if (f == nullptr) return 2;
  std::vector<long long> e;
  long long buf[2];
  while (std::fread(buf, sizeof buf, 1, f) == 1) e.push_back(buf[0]), e.push_back(buf[1]);
  std::fclose(f);
  using SpMat = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;
  std::vector<Eigen::Triplet<double, int>> tr;
  for (size_t p = 0; p + 1 < e.size(); p += 2) {
    int s = static_cast<int>(e[p]), d = static_cast<int>(e[p + 1]);
    if (s == d) continue;
    if (s < d) std::swap(s, d);
    tr.emplace_back(s, d, -1.0);
  }
  for (int j = 0; j < n; ++j) tr.emplace_back(j, j, 1.0);
  SpMat M(n, n);
  M.setFromTriplets(tr.begin(), tr.end());
  posenc::graph_detail::OrderedLDLT<SpMat> ldlt;
  const double t0 = cpu_s();
  ldlt.order(M);
  const double t1 = cpu_s();
  const posenc::graph_detail::FillCount fc = ldlt.fill();
  const double t2 = cpu_s();
  double t3 = t2;
  if (symbolic && fc.indexable) {
    ldlt.analyze();
    t3 = cpu_s();
  }
  std::printf("n=%d nnz(lower)=%lld factor_nnz=%lld flops=%.3g | AMD %.3f s, count %.3f s, symbolic %s\n", n,
              static_cast<long long>(M.nonZeros()), static_cast<long long>(fc.factor_nnz), fc.flops, t1 - t0, t2 - t1,
              symbolic && fc.indexable ? std::to_string(t3 - t2).c_str() : "skipped");
  if (symbolic && fc.indexable && ldlt.factor_nnz() != fc.factor_nnz) {
    std::printf("MISMATCH: Eigen factor_nnz %lld\n", static_cast<long long>(ldlt.factor_nnz()));
    return 1;
  }
  return 0;
}
