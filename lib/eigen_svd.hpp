// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/eigen_svd.hpp — Eigen's SVDs (JacobiSVD, BDCSVD) for Eigen::MatrixXd, safe under allocation
// failure. Include this instead of <Eigen/SVD> in every lib/ file that uses them.
//
// Eigen 3.4's JacobiSVD QR preconditioners re-create their QR object with
//   m_qr.~QRType(); ::new (&m_qr) QRType(rows, cols);
// When that constructor's allocation fails, std::bad_alloc leaves m_qr destroyed and the
// JacobiSVD's destructor destroys it a second time: a double free that aborts the process instead
// of our OUT_OF_MEMORY (found by tests/test_oom.cpp; BDCSVD uses such a JacobiSVD below 16 columns
// and for the leaves of its divide and conquer). The explicit specializations below are Eigen's
// column-pivoting preconditioners (the default) for MatrixXd with one change: the new QR object is
// built first and then moved in, so a failed allocation leaves the old one intact.
#pragma once

#include <Eigen/SVD>

#include <utility>

namespace Eigen {
namespace internal {

// Both classes are declared before any member is defined: a member body instantiates
// JacobiSVD<MatrixXd>, which needs both specializations already declared.
template <>
class qr_preconditioner_impl<MatrixXd, ColPivHouseholderQRPreconditioner, PreconditionIfMoreRowsThanCols, true> {
 public:
  void allocate(const JacobiSVD<MatrixXd, ColPivHouseholderQRPreconditioner>& svd);
  bool run(JacobiSVD<MatrixXd, ColPivHouseholderQRPreconditioner>& svd, const MatrixXd& matrix);

 private:
  typedef ColPivHouseholderQR<MatrixXd> QRType;
  QRType m_qr;
  VectorXd m_workspace;
};

template <>
class qr_preconditioner_impl<MatrixXd, ColPivHouseholderQRPreconditioner, PreconditionIfMoreColsThanRows, true> {
 public:
  void allocate(const JacobiSVD<MatrixXd, ColPivHouseholderQRPreconditioner>& svd);
  bool run(JacobiSVD<MatrixXd, ColPivHouseholderQRPreconditioner>& svd, const MatrixXd& matrix);

 private:
  typedef ColPivHouseholderQR<MatrixXd> QRType;
  QRType m_qr;
  MatrixXd m_adjoint;
  RowVectorXd m_workspace;
};

typedef qr_preconditioner_impl<MatrixXd, ColPivHouseholderQRPreconditioner, PreconditionIfMoreRowsThanCols, true>
    posenc_qr_more_rows;
typedef qr_preconditioner_impl<MatrixXd, ColPivHouseholderQRPreconditioner, PreconditionIfMoreColsThanRows, true>
    posenc_qr_more_cols;

inline void posenc_qr_more_rows::allocate(const JacobiSVD<MatrixXd, ColPivHouseholderQRPreconditioner>& svd) {
  if (svd.rows() != m_qr.rows() || svd.cols() != m_qr.cols()) {
    QRType fresh(svd.rows(), svd.cols());  // may throw: m_qr is untouched
    m_qr = std::move(fresh);
  }
  if (svd.m_computeFullU)
    m_workspace.resize(svd.rows());
  else if (svd.m_computeThinU)
    m_workspace.resize(svd.cols());
}

inline bool posenc_qr_more_rows::run(JacobiSVD<MatrixXd, ColPivHouseholderQRPreconditioner>& svd,
                                     const MatrixXd& matrix) {
  if (matrix.rows() > matrix.cols()) {
    m_qr.compute(matrix);
    svd.m_workMatrix = m_qr.matrixQR().block(0, 0, matrix.cols(), matrix.cols()).triangularView<Upper>();
    if (svd.m_computeFullU) {
      m_qr.householderQ().evalTo(svd.m_matrixU, m_workspace);
    } else if (svd.m_computeThinU) {
      svd.m_matrixU.setIdentity(matrix.rows(), matrix.cols());
      m_qr.householderQ().applyThisOnTheLeft(svd.m_matrixU, m_workspace);
    }
    if (svd.computeV()) svd.m_matrixV = m_qr.colsPermutation();
    return true;
  }
  return false;
}

inline void posenc_qr_more_cols::allocate(const JacobiSVD<MatrixXd, ColPivHouseholderQRPreconditioner>& svd) {
  if (svd.cols() != m_qr.rows() || svd.rows() != m_qr.cols()) {
    QRType fresh(svd.cols(), svd.rows());  // may throw: m_qr is untouched
    m_qr = std::move(fresh);
  }
  if (svd.m_computeFullV)
    m_workspace.resize(svd.cols());
  else if (svd.m_computeThinV)
    m_workspace.resize(svd.rows());
  m_adjoint.resize(svd.cols(), svd.rows());
}

inline bool posenc_qr_more_cols::run(JacobiSVD<MatrixXd, ColPivHouseholderQRPreconditioner>& svd,
                                     const MatrixXd& matrix) {
  if (matrix.cols() > matrix.rows()) {
    m_adjoint = matrix.adjoint();
    m_qr.compute(m_adjoint);
    svd.m_workMatrix = m_qr.matrixQR().block(0, 0, matrix.rows(), matrix.rows()).triangularView<Upper>().adjoint();
    if (svd.m_computeFullV) {
      m_qr.householderQ().evalTo(svd.m_matrixV, m_workspace);
    } else if (svd.m_computeThinV) {
      svd.m_matrixV.setIdentity(matrix.cols(), matrix.rows());
      m_qr.householderQ().applyThisOnTheLeft(svd.m_matrixV, m_workspace);
    }
    if (svd.computeU()) svd.m_matrixU = m_qr.colsPermutation();
    return true;
  }
  return false;
}

}  // namespace internal
}  // namespace Eigen
