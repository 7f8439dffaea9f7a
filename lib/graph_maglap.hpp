// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/graph_maglap.hpp — internal: the sparse eigensolver of one connected component of the
// magnetic Laplacian (lib/graph_maglap_sparse.cpp), called by posenc_maglap_pe_f64
// (lib/graph_maglap.cpp) for components above the dense size limit.
#pragma once

#include "lib/graph_common.hpp"

#include <Eigen/Core>

#include <cstdint>
#include <vector>

namespace posenc {
namespace graph_detail {

/// The nev smallest eigenpairs of the magnetic Laplacian L_q of one connected component, sparse.
/// nodes: the component's node ids (ascending); local[v]: v's index inside the component;
/// edges[0..num_local_edges): ids of the component's edges (no self-loops), in input order.
/// sym: L = I - D^{-1/2} H D^{-1/2} (else D - H), H(i,j) = a_s(i,j) exp(i 2 pi q (W(i,j) - W(j,i))).
/// On POSENC_OK, *vals holds nev ascending eigenvalues and *vecs (nodes.size() x nev) orthonormal
/// eigenvectors (phase not fixed). Errors: POSENC_ERR_NOT_CONVERGED (the Lanczos run, the residual
/// check or the certificate failed), POSENC_ERR_UNSUPPORTED (2^30 nodes or more),
/// POSENC_ERR_INVALID_ARGUMENT (a weighted degree overflows).
posenc_status maglap_sparse_component(const std::vector<int32_t>& nodes, const std::vector<int32_t>& local,
                                      const int64_t* src, const int64_t* dst, const double* weights,
                                      const int64_t* edges, int64_t num_local_edges, bool sym, double q,
                                      int64_t nev, Eigen::VectorXd* vals, Eigen::MatrixXcd* vecs);

}  // namespace graph_detail
}  // namespace posenc
