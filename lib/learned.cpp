// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/learned.cpp — learned position tables: validation, bucketing of the gradient scatter,
// SVD (Eigen BDCSVD, float64), resampling weights (PyTorch / timm conventions) and tiling.
#include "kernels/learned_table.hpp"
#include "lib/internal.hpp"

#include <Eigen/Dense>
#include "lib/eigen_svd.hpp"  // Eigen/SVD, safe under allocation failure

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <vector>

POSENC_USE_KERNELS(learned_kernels_t, learned_kernels)

using namespace posenc;
using namespace posenc::detail;

namespace {

/// Rows per tile: about 16K floats of output, independent of the thread count.
int64_t rows_per_tile(int64_t row_len) {
  int64_t r = 16384 / (row_len > 0 ? row_len : 1);
  return r < 1 ? 1 : r;
}

/// Every positions[i] must lie in [0, rows). Names the first offending index and value.
posenc_status check_positions(const int64_t* positions, int64_t n, int64_t rows) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t p = positions[i];
    if (p < 0 || p >= rows)
      return set_error(POSENC_ERR_INVALID_ARGUMENT,
                       "positions[%lld] = %lld is out of range: a learned table has rows [0, %lld) and "
                       "cannot extrapolate",
                       static_cast<long long>(i), static_cast<long long>(p), static_cast<long long>(rows));
  }
  return POSENC_OK;
}

posenc_status check_dim(int32_t dim) {
  if (dim <= 0) return set_error(POSENC_ERR_INVALID_ARGUMENT, "dim must be > 0 (got %d)", dim);
  return POSENC_OK;
}

/// Every entry of table [count] must be finite (the SVD functions).
posenc_status check_finite_table(const float* table, int64_t count, int32_t dim) {
  for (int64_t e = 0; e < count; ++e) {
    if (!std::isfinite(table[e]))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "table[%lld, %lld] is not finite (got %g)",
                       static_cast<long long>(e / dim), static_cast<long long>(e % dim),
                       static_cast<double>(table[e]));
  }
  return POSENC_OK;
}

/// The row-major float32 table as a column-major float64 matrix (exact conversion).
Eigen::MatrixXd to_double(const float* table, int64_t rows, int32_t dim) {
  using RowMajorF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  return Eigen::Map<const RowMajorF>(table, rows, dim).cast<double>();
}

// ------------------------------------------------------------------ resampling weights
/// One axis of a separable resampling: for output j, taps k < ntaps[j] combine input indices
/// idx[j*max_taps + k] with weights w[j*max_taps + k]. Computed in float64, stored as float32.
struct AxisPlan {
  int32_t max_taps = 0;
  std::vector<int64_t> idx;
  std::vector<float> w;
  std::vector<int32_t> ntaps;
};

/// Keys cubic convolution kernel (Keys 1981) with parameter a; support [-2, 2].
/// The two branches are PyTorch's cubic_convolution1 / cubic_convolution2 (ATen UpSample.h).
double keys_cubic(double x, double a) {
  x = std::fabs(x);
  if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
  if (x < 2.0) return ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a;
  return 0.0;
}

/// PyTorch antialiased bicubic (ATen cpu/UpSampleKernel.cpp, HelperInterpBase::
/// _compute_indices_min_size_weights_aa with the Keys a = -0.5 filter), align_corners=False:
/// scale = in/out, support = 2*max(scale, 1), center = scale*(j + 0.5),
/// xmin = max(trunc(center - support + 0.5), 0), xmax = min(trunc(center + support + 0.5), in),
/// w_x = filter((x - center + 0.5) / max(scale, 1)), normalized to sum 1 (taps outside the input
/// are dropped, not clamped).
AxisPlan plan_bicubic_aa(int64_t in, int64_t out) {
  AxisPlan p;
  const double scale = static_cast<double>(in) / static_cast<double>(out);
  const double support = scale >= 1.0 ? 2.0 * scale : 2.0;
  const double invscale = scale >= 1.0 ? 1.0 / scale : 1.0;
  p.max_taps = static_cast<int32_t>(std::ceil(support)) * 2 + 1;
  const size_t mt = static_cast<size_t>(p.max_taps);
  p.idx.assign(static_cast<size_t>(out) * mt, 0);
  p.w.assign(static_cast<size_t>(out) * mt, 0.0f);
  p.ntaps.assign(static_cast<size_t>(out), 0);
  std::vector<double> wd(mt);
  for (int64_t j = 0; j < out; ++j) {
    const double center = scale * (static_cast<double>(j) + 0.5);
    const int64_t xmin = std::max<int64_t>(static_cast<int64_t>(center - support + 0.5), 0);
    const int64_t xmax = std::min<int64_t>(static_cast<int64_t>(center + support + 0.5), in);
    const int64_t xsize = std::clamp<int64_t>(xmax - xmin, 0, p.max_taps);
    double total = 0.0;
    for (int64_t k = 0; k < xsize; ++k) {
      wd[static_cast<size_t>(k)] = keys_cubic((static_cast<double>(k + xmin) - center + 0.5) * invscale, -0.5);
      total += wd[static_cast<size_t>(k)];
    }
    const size_t base = static_cast<size_t>(j) * mt;
    for (int64_t k = 0; k < xsize; ++k) {
      p.idx[base + static_cast<size_t>(k)] = xmin + k;
      p.w[base + static_cast<size_t>(k)] =
          static_cast<float>(total != 0.0 ? wd[static_cast<size_t>(k)] / total : 0.0);
    }
    p.ntaps[static_cast<size_t>(j)] = static_cast<int32_t>(xsize);
  }
  return p;
}

/// PyTorch bicubic without antialiasing (upsample_bicubic2d, align_corners=False):
/// src = scale*(j + 0.5) - 0.5 (not clamped), i0 = min(floor(src), in - 1),
/// t = clamp(src - i0, 0, 1), taps i0-1 .. i0+2 clamped to [0, in-1] with Keys a = -0.75 weights
/// [K(t+1), K(t), K(1-t), K(2-t)] (ATen get_cubic_upsample_coefficients, guard_index_and_lambda).
AxisPlan plan_bicubic(int64_t in, int64_t out) {
  AxisPlan p;
  p.max_taps = 4;
  const double scale = static_cast<double>(in) / static_cast<double>(out);
  p.idx.assign(static_cast<size_t>(out) * 4, 0);
  p.w.assign(static_cast<size_t>(out) * 4, 0.0f);
  p.ntaps.assign(static_cast<size_t>(out), 4);
  const double a = -0.75;
  for (int64_t j = 0; j < out; ++j) {
    const double src = scale * (static_cast<double>(j) + 0.5) - 0.5;
    const int64_t i0 = std::min<int64_t>(static_cast<int64_t>(std::floor(src)), in - 1);
    const double t = std::min(std::max(src - static_cast<double>(i0), 0.0), 1.0);
    const double c[4] = {keys_cubic(t + 1.0, a), keys_cubic(t, a), keys_cubic(1.0 - t, a), keys_cubic(2.0 - t, a)};
    for (int k = 0; k < 4; ++k) {
      const size_t e = static_cast<size_t>(j) * 4 + static_cast<size_t>(k);
      p.idx[e] = std::clamp<int64_t>(i0 - 1 + k, 0, in - 1);
      p.w[e] = static_cast<float>(c[k]);
    }
  }
  return p;
}

/// PyTorch (bi)linear without antialiasing, align_corners=False (compute_source_index_and_lambda):
/// src = max(scale*(j + 0.5) - 0.5, 0), i0 = min(floor(src), in - 1), i1 = i0 + (i0 < in - 1),
/// l1 = clamp(src - i0, 0, 1), weights [1 - l1, l1] on [i0, i1].
AxisPlan plan_linear(int64_t in, int64_t out) {
  AxisPlan p;
  p.max_taps = 2;
  const double scale = static_cast<double>(in) / static_cast<double>(out);
  p.idx.assign(static_cast<size_t>(out) * 2, 0);
  p.w.assign(static_cast<size_t>(out) * 2, 0.0f);
  p.ntaps.assign(static_cast<size_t>(out), 2);
  for (int64_t j = 0; j < out; ++j) {
    const double src = std::max(scale * (static_cast<double>(j) + 0.5) - 0.5, 0.0);
    const int64_t i0 = std::min<int64_t>(static_cast<int64_t>(std::floor(src)), in - 1);
    const int64_t i1 = i0 + (i0 < in - 1 ? 1 : 0);
    const double l1 = std::min(std::max(src - static_cast<double>(i0), 0.0), 1.0);
    const size_t e = static_cast<size_t>(j) * 2;
    p.idx[e] = i0;
    p.idx[e + 1] = i1;
    p.w[e] = static_cast<float>(1.0 - l1);
    p.w[e + 1] = static_cast<float>(l1);
  }
  return p;
}

AxisPlan plan_axis(posenc_resample mode, int64_t in, int64_t out) {
  switch (mode) {
    case POSENC_RESAMPLE_BICUBIC_AA: return plan_bicubic_aa(in, out);
    case POSENC_RESAMPLE_BICUBIC: return plan_bicubic(in, out);
    default: return plan_linear(in, out);
  }
}

/// The transpose of a plan in -> out: a plan out -> in whose item i (a forward input index)
/// lists every forward tap (j, k) with idx = i, in increasing j then k, with the same float32
/// weight. Gathering with it computes A^T y exactly as the sum over the forward matrix's column
/// (no scatter, so every output element is one ordered sum: thread-count independent).
AxisPlan transpose_plan(const AxisPlan& p, int64_t in, int64_t out) {
  AxisPlan t;
  std::vector<int32_t> count(static_cast<size_t>(in), 0);
  const size_t mt = static_cast<size_t>(p.max_taps);
  for (int64_t j = 0; j < out; ++j)
    for (int32_t k = 0; k < p.ntaps[static_cast<size_t>(j)]; ++k)
      ++count[static_cast<size_t>(p.idx[static_cast<size_t>(j) * mt + static_cast<size_t>(k)])];
  t.max_taps = 1;
  for (int32_t c : count) t.max_taps = std::max(t.max_taps, c);
  const size_t tt = static_cast<size_t>(t.max_taps);
  t.idx.assign(static_cast<size_t>(in) * tt, 0);
  t.w.assign(static_cast<size_t>(in) * tt, 0.0f);
  t.ntaps.assign(static_cast<size_t>(in), 0);
  for (int64_t j = 0; j < out; ++j)
    for (int32_t k = 0; k < p.ntaps[static_cast<size_t>(j)]; ++k) {
      const size_t e = static_cast<size_t>(j) * mt + static_cast<size_t>(k);
      const size_t i = static_cast<size_t>(p.idx[e]);
      const size_t slot = i * tt + static_cast<size_t>(t.ntaps[i]++);
      t.idx[slot] = j;
      t.w[slot] = p.w[e];
    }
  return t;
}

/// Sizes of a resample call, checked (shared by the forward and the backward).
struct ResampleSizes {
  int mode = 0;
  int64_t old_grid = 0, new_grid = 0, old_rows = 0, new_rows = 0, in_size = 0, out_size = 0, tmp_size = 0;
};

/// Validates the size and mode arguments of posenc_learned_resample_f32 / _backward_f32. `in` and
/// `out` name the forward input and output arrays of the calling function in the messages.
posenc_status check_resample(int32_t prefix, int64_t old_h, int64_t old_w, int32_t dim, int64_t new_h, int64_t new_w,
                             posenc_resample mode, const char* in, const char* out, ResampleSizes* sz) {
  POSENC_CHECK(check_nonneg(prefix, "prefix"));
  POSENC_CHECK(check_positive(old_h, "old_h"));
  POSENC_CHECK(check_positive(old_w, "old_w"));
  POSENC_CHECK(check_dim(dim));
  POSENC_CHECK(check_positive(new_h, "new_h"));
  POSENC_CHECK(check_positive(new_w, "new_w"));
  // A C caller may pass any int: read the bits without an enum-typed load (UBSan -fsanitize=enum).
  int mode_value = 0;
  std::memcpy(&mode_value, &mode, sizeof(mode_value) < sizeof(mode) ? sizeof(mode_value) : sizeof(mode));
  if (mode_value != POSENC_RESAMPLE_BICUBIC_AA && mode_value != POSENC_RESAMPLE_BICUBIC &&
      mode_value != POSENC_RESAMPLE_LINEAR)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "mode must be POSENC_RESAMPLE_BICUBIC_AA (0), POSENC_RESAMPLE_BICUBIC (1) or "
                     "POSENC_RESAMPLE_LINEAR (2) (got %d)",
                     mode_value);
  sz->mode = mode_value;
  int64_t tmp_rows = 0;
  POSENC_CHECK(checked_mul(old_h, old_w, &sz->old_grid, "old grid [old_h, old_w]"));
  POSENC_CHECK(checked_mul(new_h, new_w, &sz->new_grid, "new grid [new_h, new_w]"));
  if (__builtin_add_overflow(sz->old_grid, static_cast<int64_t>(prefix), &sz->old_rows) ||
      __builtin_add_overflow(sz->new_grid, static_cast<int64_t>(prefix), &sz->new_rows))
    return set_error(POSENC_ERR_SIZE_OVERFLOW, "size of prefix + grid rows overflows");
  char what_in[64], what_out[64];
  std::snprintf(what_in, sizeof what_in, "%s [prefix + old_h*old_w, dim]", in);
  std::snprintf(what_out, sizeof what_out, "%s [prefix + new_h*new_w, dim]", out);
  POSENC_CHECK(checked_mul(sz->old_rows, dim, &sz->in_size, what_in, sizeof(float)));
  POSENC_CHECK(checked_mul(sz->new_rows, dim, &sz->out_size, what_out, sizeof(float)));
  POSENC_CHECK(checked_mul(old_h, new_w, &tmp_rows, "intermediate grid [old_h, new_w]"));
  POSENC_CHECK(checked_mul(tmp_rows, dim, &sz->tmp_size, "intermediate [old_h*new_w, dim]", sizeof(float)));
  return POSENC_OK;
}

}  // namespace

// ====================================================================== lookup / add
extern "C" POSENC_API posenc_status posenc_learned_add_f32(const float* table, int64_t rows, int32_t dim,
                                                          const int64_t* positions, int64_t n, float* x) {
  api_guard g("posenc_learned_add_f32");
  POSENC_CHECK(check_positive(rows, "rows"));
  POSENC_CHECK(check_dim(dim));
  POSENC_CHECK(check_nonneg(n, "n"));
  int64_t table_size = 0, x_size = 0;
  POSENC_CHECK(checked_mul(rows, dim, &table_size, "table [rows, dim]", sizeof(float)));
  POSENC_CHECK(checked_mul(n, dim, &x_size, "x [n, dim]", sizeof(float)));
  POSENC_CHECK(check_not_null(table, "table"));
  POSENC_CHECK(check_not_null_if(positions, n, "positions"));
  POSENC_CHECK(check_not_null_if(x, x_size, "x"));
  POSENC_CHECK(check_positions(positions, n, rows));
  if (n == 0) return POSENC_OK;
  const learned_kernels_t* k = nullptr;
  POSENC_CHECK(learned_kernels_active(&k));
  work(12.0 * double(x_size) + 8.0 * double(n), double(x_size), true);  // rows and x read, x written; one add
  POSENC_SHAPE("n=%lld rows=%lld dim=%d", (long long)n, (long long)rows, dim);
  return guarded([&] {
    const int64_t grain = rows_per_tile(dim);
    parallel_tiles(tiles_of(n, grain), [&](int64_t t) {
      const int64_t r0 = t * grain, r1 = std::min(n, r0 + grain);
      k->add_rows(table, dim, positions, r0, r1, x);
    });
    return POSENC_OK;
  });
}

// ====================================================================== gradient scatter
extern "C" POSENC_API posenc_status posenc_learned_grad_f32(const float* grad_x, const int64_t* positions,
                                                           int64_t n, int32_t dim, float* grad_table,
                                                           int64_t rows) {
  api_guard g("posenc_learned_grad_f32");
  POSENC_CHECK(check_nonneg(n, "n"));
  POSENC_CHECK(check_dim(dim));
  POSENC_CHECK(check_positive(rows, "rows"));
  int64_t table_size = 0, x_size = 0;
  POSENC_CHECK(checked_mul(rows, dim, &table_size, "grad_table [rows, dim]", sizeof(float)));
  POSENC_CHECK(checked_mul(n, dim, &x_size, "grad_x [n, dim]", sizeof(float)));
  POSENC_CHECK(check_not_null_if(grad_x, x_size, "grad_x"));
  POSENC_CHECK(check_not_null_if(positions, n, "positions"));
  POSENC_CHECK(check_not_null(grad_table, "grad_table"));
  POSENC_CHECK(check_positions(positions, n, rows));
  if (n == 0) return POSENC_OK;
  const learned_kernels_t* k = nullptr;
  POSENC_CHECK(learned_kernels_active(&k));
  return guarded([&] {
    // Group the rows of grad_x by position, increasing i within a group (a stable sort), then
    // list the touched table rows. Counting sort when the table is not much larger than n.
    const size_t nn = static_cast<size_t>(n);
    std::vector<int64_t> order(nn), urows, offsets;
    path(rows / 4 <= n + 1024 ? "learned_grad.counting_sort" : "learned_grad.stable_sort");
    POSENC_SHAPE("n=%lld rows=%lld dim=%d", (long long)n, (long long)rows, dim);
    if (rows / 4 <= n + 1024) {  // (no overflow: n <= 2^61 after the size checks)
      std::vector<int64_t> count(static_cast<size_t>(rows) + 1, 0);
      for (size_t i = 0; i < nn; ++i) ++count[static_cast<size_t>(positions[i]) + 1];
      for (int64_t r = 0; r < rows; ++r) {
        if (count[static_cast<size_t>(r) + 1] != 0) urows.push_back(r);
        count[static_cast<size_t>(r) + 1] += count[static_cast<size_t>(r)];
      }
      std::vector<int64_t> next(count.begin(), count.end() - 1);
      for (size_t i = 0; i < nn; ++i) order[static_cast<size_t>(next[static_cast<size_t>(positions[i])]++)] = static_cast<int64_t>(i);
      offsets.reserve(urows.size() + 1);
      for (int64_t r : urows) offsets.push_back(count[static_cast<size_t>(r)]);
      offsets.push_back(n);
    } else {
      std::iota(order.begin(), order.end(), int64_t{0});
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t a, int64_t b) { return positions[a] < positions[b]; });
      for (size_t e = 0; e < nn; ++e) {
        const int64_t p = positions[order[e]];
        if (urows.empty() || urows.back() != p) {
          urows.push_back(p);
          offsets.push_back(static_cast<int64_t>(e));
        }
      }
      offsets.push_back(n);
    }
    const int64_t nu = static_cast<int64_t>(urows.size());
    const int64_t grain = rows_per_tile(dim);
    parallel_tiles(tiles_of(nu, grain), [&](int64_t t) {
      const int64_t u0 = t * grain, u1 = std::min(nu, u0 + grain);
      k->scatter_rows(grad_x, dim, urows.data(), offsets.data(), order.data(), u0, u1, grad_table);
    });
    return POSENC_OK;
  });
}

// ====================================================================== spectrum, low rank
extern "C" POSENC_API posenc_status posenc_learned_spectrum_f32(const float* table, int64_t rows, int32_t dim,
                                                               double* singular_values, double* effective_rank) {
  api_guard g("posenc_learned_spectrum_f32");
  POSENC_CHECK(check_positive(rows, "rows"));
  POSENC_CHECK(check_dim(dim));
  int64_t table_size = 0;
  POSENC_CHECK(checked_mul(rows, dim, &table_size, "table [rows, dim]", sizeof(double)));
  POSENC_CHECK(check_not_null(table, "table"));
  POSENC_CHECK(check_finite_table(table, table_size, dim));
  if (singular_values == nullptr && effective_rank == nullptr) return POSENC_OK;
  const double mx = double(std::max<int64_t>(rows, dim)), mn = double(std::min<int64_t>(rows, dim));
  work(4.0 * double(table_size), 4.0 * mx * mn * mn - 4.0 / 3.0 * mn * mn * mn);  // bidiagonalization, values only
  POSENC_SHAPE("rows=%lld dim=%d", (long long)rows, dim);
  return guarded([&] {
    const Eigen::MatrixXd a = to_double(table, rows, dim);
    Eigen::BDCSVD<Eigen::MatrixXd> svd(a);
    if (svd.info() != Eigen::Success)
      return set_error(POSENC_ERR_NOT_CONVERGED, "Eigen::BDCSVD did not converge on the %lld x %d table",
                       static_cast<long long>(rows), dim);
    const Eigen::VectorXd& s = svd.singularValues();  // descending, >= 0
    const int64_t m = std::min<int64_t>(rows, dim);
    double total = 0.0;
    for (int64_t i = 0; i < m; ++i) total += s[i];
    double er = 0.0;
    if (total > 0.0) {
      double h = 0.0;
      for (int64_t i = 0; i < m; ++i) {
        const double p = s[i] / total;
        if (p > 0.0) h -= p * std::log(p);
      }
      er = std::exp(h);
    }
    if (singular_values != nullptr)
      for (int64_t i = 0; i < m; ++i) singular_values[i] = s[i];
    if (effective_rank != nullptr) *effective_rank = er;
    return POSENC_OK;
  });
}

extern "C" POSENC_API posenc_status posenc_learned_lowrank_f32(const float* table, int64_t rows, int32_t dim,
                                                              int32_t r, float* left, float* right) {
  api_guard g("posenc_learned_lowrank_f32");
  POSENC_CHECK(check_positive(rows, "rows"));
  POSENC_CHECK(check_dim(dim));
  int64_t table_size = 0;
  POSENC_CHECK(checked_mul(rows, dim, &table_size, "table [rows, dim]", sizeof(double)));
  const int64_t m = std::min<int64_t>(rows, dim);
  if (r < 1 || r > m)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "r must be in [1, min(rows, dim)] = [1, %lld] (got %d)",
                     static_cast<long long>(m), r);
  POSENC_CHECK(check_not_null(table, "table"));
  POSENC_CHECK(check_not_null(left, "left"));
  POSENC_CHECK(check_not_null(right, "right"));
  POSENC_CHECK(check_finite_table(table, table_size, dim));
  return guarded([&] {
    const Eigen::MatrixXd a = to_double(table, rows, dim);
    Eigen::BDCSVD<Eigen::MatrixXd> svd(a, Eigen::ComputeThinU | Eigen::ComputeThinV);
    if (svd.info() != Eigen::Success)
      return set_error(POSENC_ERR_NOT_CONVERGED, "Eigen::BDCSVD did not converge on the %lld x %d table",
                       static_cast<long long>(rows), dim);
    const Eigen::MatrixXd& u = svd.matrixU();  // [rows, m]
    const Eigen::MatrixXd& v = svd.matrixV();  // [dim, m]
    const Eigen::VectorXd& s = svd.singularValues();
    for (int32_t c = 0; c < r; ++c) {
      // Sign rule: the largest-magnitude entry of each right singular vector is positive (first
      // one on ties), so the factors do not depend on the SVD's arbitrary signs.
      Eigen::Index best = 0;
      for (Eigen::Index j = 1; j < v.rows(); ++j)
        if (std::fabs(v(j, c)) > std::fabs(v(best, c))) best = j;
      const double sign = v(best, c) < 0.0 ? -1.0 : 1.0;
      for (int64_t i = 0; i < rows; ++i)
        left[i * r + c] = static_cast<float>(sign * u(static_cast<Eigen::Index>(i), c) * s[c]);
      for (int32_t j = 0; j < dim; ++j)
        right[static_cast<int64_t>(c) * dim + j] = static_cast<float>(sign * v(j, c));
    }
    return POSENC_OK;
  });
}

// ====================================================================== resampling
extern "C" POSENC_API posenc_status posenc_learned_resample_f32(const float* table, int32_t prefix, int64_t old_h,
                                                               int64_t old_w, int32_t dim, int64_t new_h,
                                                               int64_t new_w, posenc_resample mode, float* out) {
  api_guard g("posenc_learned_resample_f32");
  ResampleSizes sz;
  POSENC_CHECK(check_resample(prefix, old_h, old_w, dim, new_h, new_w, mode, "table", "out", &sz));
  const int64_t old_grid = sz.old_grid, in_size = sz.in_size, out_size = sz.out_size, tmp_size = sz.tmp_size;
  const int mode_value = sz.mode;
  POSENC_CHECK(check_not_null(table, "table"));
  POSENC_CHECK(check_not_null(out, "out"));
  const learned_kernels_t* k = nullptr;
  POSENC_CHECK(learned_kernels_active(&k));
  return guarded([&] {
    const size_t d = static_cast<size_t>(dim);
    const bool do_w = old_w != new_w, do_h = old_h != new_h;
    // Plans first (they allocate), so an allocation failure leaves out untouched.
    AxisPlan pw, ph;
    std::vector<float> tmp;
    if (do_w) pw = plan_axis(mode, old_w, new_w);
    if (do_h) ph = plan_axis(mode, old_h, new_h);
    if (do_w && do_h) tmp.resize(static_cast<size_t>(tmp_size));

    if (prefix > 0) std::memcpy(out, table, static_cast<size_t>(prefix) * d * sizeof(float));
    const float* grid = table + static_cast<size_t>(prefix) * d;
    float* dst = out + static_cast<size_t>(prefix) * d;
    const double taps = (do_w ? double(old_h * new_w) * pw.max_taps : 0.0) + (do_h ? double(new_h * new_w) * ph.max_taps : 0.0);
    work(4.0 * double(in_size + out_size), 2.0 * double(d) * taps, true);  // 2 flops a tap (max taps per axis)
    path(!do_w && !do_h ? "learned_resample.copy" : do_w && do_h ? "learned_resample.width_height"
         : do_w ? "learned_resample.width" : "learned_resample.height");
    POSENC_SHAPE("prefix=%d old=%lldx%lld new=%lldx%lld dim=%d mode=%d", prefix, (long long)old_h, (long long)old_w,
                 (long long)new_h, (long long)new_w, dim, mode_value);
    if (!do_w && !do_h) {
      std::memcpy(dst, grid, static_cast<size_t>(old_grid) * d * sizeof(float));
      return POSENC_OK;
    }
    // Width pass: for every input row y, items = new_w output columns of `dim` channels.
    if (do_w) {
      float* wout = do_h ? tmp.data() : dst;
      const int64_t grain = rows_per_tile(dim);  // columns per tile
      const int64_t per_row = tiles_of(new_w, grain);
      parallel_tiles(old_h * per_row, [&](int64_t t) {
        const int64_t y = t / per_row, j0 = (t % per_row) * grain, j1 = std::min(new_w, j0 + grain);
        k->resample_pass(grid + static_cast<size_t>(y * old_w) * d, dim, pw.idx.data(), pw.w.data(),
                         pw.ntaps.data(), pw.max_taps, j0, j1, 0, dim,
                         wout + static_cast<size_t>(y * new_w) * d);
      });
    }
    // Height pass: whole grid rows (new_w * dim floats) are the channel vector.
    if (do_h) {
      const float* hin = do_w ? tmp.data() : grid;
      const int64_t len = new_w * static_cast<int64_t>(dim);
      const int64_t chunk = 8192;
      const int64_t per_row = tiles_of(len, chunk);
      parallel_tiles(new_h * per_row, [&](int64_t t) {
        const int64_t yo = t / per_row, c0 = (t % per_row) * chunk, c1 = std::min(len, c0 + chunk);
        k->resample_pass(hin, len, ph.idx.data(), ph.w.data(), ph.ntaps.data(), ph.max_taps, yo, yo + 1, c0, c1,
                         dst);
      });
    }
    return POSENC_OK;
  });
}

// ====================================================================== resampling: adjoint
extern "C" POSENC_API posenc_status posenc_learned_resample_backward_f32(const float* grad_out, int32_t prefix,
                                                                        int64_t old_h, int64_t old_w, int32_t dim,
                                                                        int64_t new_h, int64_t new_w,
                                                                        posenc_resample mode, float* grad_table) {
  api_guard g("posenc_learned_resample_backward_f32");
  ResampleSizes sz;
  POSENC_CHECK(check_resample(prefix, old_h, old_w, dim, new_h, new_w, mode, "grad_table", "grad_out", &sz));
  POSENC_CHECK(check_not_null(grad_out, "grad_out"));
  POSENC_CHECK(check_not_null(grad_table, "grad_table"));
  const learned_kernels_t* k = nullptr;
  POSENC_CHECK(learned_kernels_active(&k));
  return guarded([&] {
    const size_t d = static_cast<size_t>(dim);
    const bool do_w = old_w != new_w, do_h = old_h != new_h;
    // Transposed plans first (they allocate), so an allocation failure leaves grad_table untouched.
    AxisPlan tw, th;
    std::vector<float> tmp;
    if (do_w) tw = transpose_plan(plan_axis(mode, old_w, new_w), old_w, new_w);
    if (do_h) th = transpose_plan(plan_axis(mode, old_h, new_h), old_h, new_h);
    if (do_w && do_h) tmp.resize(static_cast<size_t>(sz.tmp_size));

    if (prefix > 0) std::memcpy(grad_table, grad_out, static_cast<size_t>(prefix) * d * sizeof(float));
    const float* grid = grad_out + static_cast<size_t>(prefix) * d;
    float* dst = grad_table + static_cast<size_t>(prefix) * d;
    const double taps = (do_h ? double(old_h * new_w) * th.max_taps : 0.0) + (do_w ? double(old_h * old_w) * tw.max_taps : 0.0);
    work(4.0 * double(sz.in_size + sz.out_size), 2.0 * double(d) * taps, true);  // 2 flops a tap (max taps per axis)
    path(!do_w && !do_h ? "learned_resample_backward.copy"
         : do_w && do_h ? "learned_resample_backward.height_width"
         : do_w ? "learned_resample_backward.width" : "learned_resample_backward.height");
    POSENC_SHAPE("prefix=%d old=%lldx%lld new=%lldx%lld dim=%d mode=%d", prefix, (long long)old_h, (long long)old_w,
                 (long long)new_h, (long long)new_w, dim, sz.mode);
    if (!do_w && !do_h) {
      std::memcpy(dst, grid, static_cast<size_t>(sz.old_grid) * d * sizeof(float));
      return POSENC_OK;
    }
    // The forward is height(width(x)); its adjoint is width^T(height^T(y)).
    // Height^T pass: whole grid rows (new_w * dim floats) are the channel vector; new_h -> old_h.
    if (do_h) {
      float* hout = do_w ? tmp.data() : dst;
      const int64_t len = new_w * static_cast<int64_t>(dim);
      const int64_t chunk = 8192;
      const int64_t per_row = tiles_of(len, chunk);
      parallel_tiles(old_h * per_row, [&](int64_t t) {
        const int64_t yo = t / per_row, c0 = (t % per_row) * chunk, c1 = std::min(len, c0 + chunk);
        k->resample_pass(grid, len, th.idx.data(), th.w.data(), th.ntaps.data(), th.max_taps, yo, yo + 1, c0, c1,
                         hout);
      });
    }
    // Width^T pass: for every row y of the old height, new_w columns -> old_w columns.
    if (do_w) {
      const float* win = do_h ? tmp.data() : grid;
      const int64_t grain = rows_per_tile(dim);  // columns per tile
      const int64_t per_row = tiles_of(old_w, grain);
      parallel_tiles(old_h * per_row, [&](int64_t t) {
        const int64_t y = t / per_row, j0 = (t % per_row) * grain, j1 = std::min(old_w, j0 + grain);
        k->resample_pass(win + static_cast<size_t>(y * new_w) * d, dim, tw.idx.data(), tw.w.data(), tw.ntaps.data(),
                         tw.max_taps, j0, j1, 0, dim, dst + static_cast<size_t>(y * old_w) * d);
      });
    }
    return POSENC_OK;
  });
}
