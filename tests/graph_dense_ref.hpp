// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/graph_dense_ref.hpp — dense Eigen references of a graph's adjacency and Laplacians for the
// graph family's tests, written from the documented construction (include/posenc/graph.h),
// independently of lib/.
#pragma once

#include "tests/graph_gen.hpp"

#include <posenc/posenc.h>

#include <Eigen/Dense>

#include <cmath>
#include <vector>

namespace posenc_graph_gen {

/// Dense adjacency [n, n]: every listed edge (either direction) adds its weight (w [m], or 1 when
/// w is NULL) to both entries; self-loops skipped.
inline Eigen::MatrixXd dense_adjacency(const EdgeList& g, const double* w) {
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(g.n, g.n);
  for (int64_t e = 0; e < g.m(); ++e) {
    if (g.src[e] == g.dst[e]) continue;
    const double x = w ? w[e] : 1.0;
    A(g.src[e], g.dst[e]) += x;
    A(g.dst[e], g.src[e]) += x;
  }
  return A;
}
inline Eigen::MatrixXd dense_adjacency(const EdgeList& g, const std::vector<double>& w) {
  return dense_adjacency(g, w.empty() ? nullptr : w.data());
}

/// Dense Laplacian [n, n] of that adjacency: D - A (COMBINATORIAL) or I - D^-1/2 A D^-1/2 (SYM,
/// isolated nodes with a zero row and a 1 on the diagonal).
inline Eigen::MatrixXd dense_laplacian(const EdgeList& g, const double* w, posenc_laplacian kind) {
  const Eigen::MatrixXd A = dense_adjacency(g, w);
  const Eigen::VectorXd d = A.rowwise().sum();
  if (kind == POSENC_LAPLACIAN_COMBINATORIAL) return Eigen::MatrixXd(d.asDiagonal()) - A;
  Eigen::VectorXd isq(g.n);
  for (int64_t i = 0; i < g.n; ++i) isq[i] = d[i] > 0 ? 1.0 / std::sqrt(d[i]) : 0.0;
  return Eigen::MatrixXd::Identity(g.n, g.n) - isq.asDiagonal() * A * isq.asDiagonal();
}
inline Eigen::MatrixXd dense_laplacian(const EdgeList& g, const std::vector<double>& w, posenc_laplacian kind) {
  return dense_laplacian(g, w.empty() ? nullptr : w.data(), kind);
}

}  // namespace posenc_graph_gen
