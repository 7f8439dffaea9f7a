// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/rope_common.hpp — what lib/rope.cpp, lib/rope_freqs.cpp and lib/rope_apply.cpp share:
// parameter reading (any struct_size version) and validation, the frequency formulas, the plan.
#pragma once

#include "kernels/rope_table.hpp"
#include "lib/internal.hpp"
#include "lib/phase_prep.hpp"

#include <cstring>
#include <vector>

#include <tbb/task_arena.h>

namespace posenc {
namespace detail {

constexpr int64_t kRopeMaxPos = int64_t(1) << 53;

/// Every field's default (what posenc_rope_params_init writes), with the given type, d, theta.
posenc_rope_params rope_params_defaults(int type, int32_t rotary_dim, double theta);

/// Reads *p (struct_size of this version or of posenc 0.1: missing fields take their
/// defaults) into *out and validates every field. Messages name the field ("p->...").
posenc_status rope_params_read(const posenc_rope_params* p, posenc_rope_params* out);

/// inv_freq [rotary_dim/2] and the attention factor of validated params for the given seq_len.
void rope_compute_freqs(const posenc_rope_params& p, int64_t seq_len, double* inv, double* af);

/// Number of position axes the params' mode reads per token (1, 3, or the AXIAL sections).
int32_t rope_num_axes(const posenc_rope_params& p);

/// Axis of every rotary pair (posenc_rope_axes), [pad_lanes(half)] (zeros past half).
std::vector<int32_t> rope_axis_of(const posenc_rope_params& p);

/// One frequency set: inv_freq, its turns per position (double-double, padded to 16), af.
struct rope_freqset {
  std::vector<double> inv, wh, wl;
  double af = 1.0;
  void compute(const posenc_rope_params& p, int64_t seq_len);
};

/// Checks |positions| <= 2^53 over count values (positions NULL: 0 .. count-1) and returns
/// max(position) + 1 in *seq_len_out (or 0 when count == 0) when it is not NULL.
posenc_status rope_check_positions(const int64_t* positions, int64_t count, int64_t* seq_len_out);

/// Per-thread scratch of the rope kernels, allocated before any tile runs (so that an
/// allocation failure leaves the outputs untouched): one slot of `floats` per arena thread.
template <class T>
class ScratchPool {
 public:
  explicit ScratchPool(size_t floats)
      : floats_(floats), slots_(std::max<int32_t>(1, thread_count())),
        pool_(static_cast<size_t>(slots_) * floats) {}
  /// The calling thread's slot. Outside the arena (serial run) that is slot 0; a thread index
  /// beyond the slots (the thread count changed concurrently) gets a thread_local buffer.
  T* get() {
    const int idx = tbb::this_task_arena::current_thread_index();
    if (idx < 0) return pool_.data();
    if (idx < slots_) return pool_.data() + static_cast<size_t>(idx) * floats_;
    thread_local std::vector<T> spare;
    if (spare.size() < floats_) spare.resize(floats_);
    return spare.data();
  }

 private:
  size_t floats_;
  int32_t slots_;
  std::vector<T> pool_;
};

}  // namespace detail
}  // namespace posenc

/// The plan behind the opaque posenc_rope_plan handle (lib/rope_freqs.cpp builds it).
struct posenc_rope_plan {
  posenc_rope_params p;  ///< validated copy; array pointers refer to the vectors below
  std::vector<double> short_f, long_f, ff;
  int32_t half = 0;
  int32_t naxes = 1;
  std::vector<int32_t> axis_of;  ///< [pad(half)] when naxes > 1, else empty
  /// Frequencies for p.seq_len, or with seq_len_from_positions for sequences <= L.
  posenc::detail::rope_freqset main;
  /// LONGROPE with seq_len_from_positions: the long-factor set (sequences > L).
  posenc::detail::rope_freqset longset;
  /// True when seq_len_from_positions changes the frequencies (DYNAMIC without alpha, LONGROPE).
  bool seq_from_positions = false;

  posenc_status init(const posenc_rope_params* params);
  /// The frequency set for a call whose positions give max(position) + 1 = seq_len; DYNAMIC
  /// sequences past L are computed into *tmp.
  const posenc::detail::rope_freqset& select(int64_t seq_len, posenc::detail::rope_freqset* tmp) const;
};
