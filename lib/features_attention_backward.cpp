// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/features_attention_backward.cpp — features family, the backward passes of linear attention
// (global and causal chunked, a reverse prefix scan over chunks) and of softmax attention
// (FlashAttention-2 recomputation): argument validation, tiling, kernel table calls.
#include "kernels/features_table.hpp"
#include "lib/features_internal.hpp"
#include "lib/internal.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

POSENC_USE_KERNELS(features_kernels_t, features_kernels)

using namespace posenc;
using namespace posenc::detail;

namespace posenc {
namespace detail {
namespace {
/// Rows per block of the causal backward's intra-chunk staircase (see pass 1).
constexpr int64_t kRowBlock = 16;
/// Chunks per block of the causal backward's running prefix and suffix sums (see below).
constexpr int64_t kBlockChunks = 8;

/// Scratch for the tiles of one call, one slot per tile that runs at a time, all allocated when
/// the pool is built (before the call writes any output: an allocation that fails later would
/// leave the outputs half written). A tile takes a free slot and gives it back; with more tiles
/// running at once than slots (the thread count changed during the call) a tile allocates its own.
template <class T>
class slot_pool {
 public:
  slot_pool(int64_t slots, int64_t floats)
      : floats_(floats), mem_(new T[static_cast<size_t>(std::max<int64_t>(slots, 1) * floats)]) {
    for (int64_t i = std::max<int64_t>(slots, 1) - 1; i >= 0; --i) free_.push_back(mem_.get() + i * floats);
  }
  /// A slot held for the lifetime of the object.
  class lease {
   public:
    explicit lease(slot_pool& p) : pool_(p) {
      {
        std::lock_guard<std::mutex> lk(p.m_);
        if (!p.free_.empty()) {
          ptr_ = p.free_.back();
          p.free_.pop_back();
          return;
        }
      }
      own_.reset(new T[static_cast<size_t>(p.floats_)]);
      ptr_ = own_.get();
    }
    ~lease() {
      if (own_) return;
      std::lock_guard<std::mutex> lk(pool_.m_);
      pool_.free_.push_back(ptr_);
    }
    lease(const lease&) = delete;
    lease& operator=(const lease&) = delete;
    T* data() const { return ptr_; }

   private:
    slot_pool& pool_;
    T* ptr_ = nullptr;
    std::unique_ptr<T[]> own_;
  };

 private:
  int64_t floats_;
  std::unique_ptr<T[]> mem_;
  std::mutex m_;
  std::vector<T*> free_;
};

/// dst[0..count) += src[0..count)
void add_to(float* dst, const float* src, int64_t count) {
  for (int64_t e = 0; e < count; ++e) dst[e] += src[e];
}
}  // namespace

void linear_attention_backward_run(const features_kernels_t* k, const float* phi_q, const float* phi_k, const float* v, int64_t n,
                                   int32_t F, int32_t dv, bool causal, bool unnorm, float eps, const float* grad_out,
                                   float* grad_phi_q, float* grad_phi_k, float* grad_v) {
  const int64_t C = causal ? 64 : 512;  // rows per chunk (causal) or tile
  const int64_t nc = tiles_of(n, C);
  const int64_t FD = static_cast<int64_t>(F) * dv, state = FD + F;
  // Causal: the chunks are grouped into blocks of kBlockChunks; a tile of passes 1 and 2 walks
  // the chunks of one block in order (pass 2: in reverse order) with the running state in its
  // scratch, so the prefix sums of the chunk states (and the suffix sums of R, r) are formed on
  // the way instead of in separate passes over the whole state array; only the block totals are
  // scanned. The block size depends on the problem only: the bits do not depend on the threads.
  const int64_t G = causal ? kBlockChunks : 1;
  const int64_t nb = tiles_of(nc, G);
  // Every allocation comes first (no output is written before they all succeed). Per-tile
  // scratch: pass 1's buffer (below) for the largest chunk, the state a chunk sees and the
  // running block total of R, r; pass 2's running R, r and R^T.
  const int64_t cm = std::min(n, C), l2m = causal ? cm * cm : 0, ltm = causal ? cm : 0;
  const int64_t slot = std::max(cm * dv + 2 * cm + F + 2 * l2m + (F + dv) * ltm + (F + dv) * ltm + 2 * state, state + FD);
  const int64_t slots = std::max<int64_t>(1, std::min<int64_t>(causal ? nb : nc, thread_count()));
  slot_pool<float> pool(slots, slot);
  slot_pool<double> dpool(slots, 2 * cm);  // pass 1's float64 row sums
  // causal: the chunks' R, r (pass 1), read by pass 2; non-causal: the tiles' states S [F, dv]
  // and z [F] (the layout of the fast products here: F rows of 64 columns), then their R, r.
  fbuf st(nc * state);
  // causal: per block, the exclusive prefix of the block totals of the states, then the
  // exclusive suffix of the block totals of R, r
  std::vector<float> blk(causal ? static_cast<size_t>(nb * state) : 0);
  std::vector<float> run(causal ? static_cast<size_t>(state) : 0);  // the running sum of the block scans
  std::vector<float> total;  // non-causal: the one state, summed in tile order, then S^T [dv, F] and z
  std::vector<double> acc;   // non-causal: R, r summed in tile order
  std::vector<float> acc_f;  // non-causal: S^T before it is copied into total
  if (!causal) {
    total.assign(static_cast<size_t>(state), 0.0f);
    acc.assign(static_cast<size_t>(state), 0.0);
    acc_f.resize(static_cast<size_t>(FD));
  }
  // s (+)= the state of chunk c
  auto chunk_state = [&](int64_t c, float* s, bool accumulate) {
    const int64_t r0 = c * C, len = std::min(n, r0 + C) - r0;
    k->matmul(phi_k + r0 * F, 1, F, v + r0 * dv, dv, F, dv, len, s, dv, accumulate ? 1 : 0);  // S = phi_k^T V
    if (!accumulate) std::fill(s + FD, s + state, 0.0f);
    k->colsum_acc(phi_k + r0 * F, len, F, s + FD);
  };
  if (causal) {
    // blk[b] = the block total of the chunk states, each chunk's product accumulating into it
    // (pass 1 forms the same sums again, chunk by chunk: storing the n/64 partial sums and
    // reading them back costs more memory traffic than the products)
    parallel_tiles(nb, [&](int64_t b) {
      const int64_t c0 = b * G, c1 = std::min(nc, c0 + G);
      float* tot = blk.data() + b * state;
      std::fill(tot, tot + state, 0.0f);
      for (int64_t c = c0; c < c1; ++c) chunk_state(c, tot, true);
    });
    std::fill(run.begin(), run.end(), 0.0f);  // exclusive prefix over blocks
    for (int64_t b = 0; b < nb; ++b) {
      float* tot = blk.data() + b * state;
      for (int64_t e = 0; e < state; ++e) {
        const float tmp = tot[e];
        tot[e] = run[size_t(e)];
        run[size_t(e)] += tmp;
      }
    }
  } else {
    parallel_tiles(nc, [&](int64_t c) { chunk_state(c, st.data() + c * state, false); });
    for (int64_t t = 0; t < nc; ++t)
      for (int64_t e = 0; e < state; ++e) total[size_t(e)] += st[t * state + e];
    std::vector<float>& sT = acc_f;  // S^T: the B operand of U = grad_out S^T for the 512-row tiles
    k->transpose(total.data(), F, dv, dv, sT.data());
    std::copy(sT.begin(), sT.end(), total.begin());
  }
  // pass 1 per chunk, with S, z the state the chunk's rows see: U = grad_out S^T [len, F]; causal:
  // the masked intra-chunk scores P = phi_q phi_k^T and G = grad_out V^T (j <= i). Per row, in
  // float64: D_i = phi_q_i . z + sum_j P_ij + eps and grad_out_i . out_i = (phi_q_i . U_i +
  // sum_j P_ij G_ij) / D_i, so the forward output is never formed; a_i = grad_out_i / D_i,
  // b_i = -(grad_out_i . out_i) / D_i. Then grad_phi_q = U / D + b z^T + M phi_k with
  // M_ij = G_ij / D_i + b_i (j <= i), the intra-chunk grad_phi_k = M^T phi_q and grad_v = P^T A,
  // and the chunk's R = phi_q^T A [F, dv] and r = sum_i b_i phi_q_i [F].
  float* const rs = st.data();  // R, r of chunk c overwrite its state once the state is consumed
  auto pass1 = [&](int64_t c, const float* s, float* buf, double* dots) {
    const int64_t r0 = c * C, len = std::min(n, r0 + C) - r0;
    const float* z = s + FD;
    const float* q = phi_q + r0 * F;
    const float* kk = phi_k + r0 * F;
    const float* vv = v + r0 * dv;
    const float* go = grad_out + r0 * dv;
    // a [len, dv], b, dinv [len], z [F]; causal: P, G [len, len], phi_k^T [F, len], V^T [dv, len],
    // grad_out^T [dv, len], U^T [F, len]
    const int64_t L2 = causal ? len * len : 0, LT = causal ? len : 0;
    float* a = buf;
    float* b = a + len * dv;
    float* dinv = b + len;
    float* zc = dinv + len;  // non-causal: z copied (the state slot receives R, r below)
    float* P = zc + F;
    float* G = P + L2;
    float* kT = G + L2;
    float* vT = kT + F * LT;
    float* goT = vT + dv * LT;
    float* uT = goT + dv * LT;
    if (!causal) {
      std::copy(z, z + F, zc);
      z = zc;
    }
    float* gq = grad_phi_q + r0 * F;
    if (causal) {  // U^T = S grad_out^T [F, len] (F rows of len columns), U into grad_phi_q
      k->transpose(go, len, dv, dv, goT);
      k->matmul(s, dv, 1, goT, len, F, len, dv, uT, len, 0);
      k->transpose(uT, F, len, len, gq);
    } else {  // s = S^T [dv, F]: U = grad_out S^T, in place of grad_phi_q
      k->matmul(go, dv, 1, s, F, len, F, dv, gq, F, 0);
    }
    // Causal: the intra-chunk products run on a staircase of kRowBlock-row blocks: rows [i0, i1)
    // of P and G are formed for the columns [0, i1) only (the strict upper part of the diagonal
    // block set to 0), and the products with M and P read only that part: the skipped entries
    // are the masked ones (j > i), so the sums are those of the full masked blocks.
    if (causal) {
      k->transpose(kk, len, F, F, kT);
      k->transpose(vv, len, dv, dv, vT);
      for (int64_t i0 = 0; i0 < len; i0 += kRowBlock) {
        const int64_t i1 = std::min(len, i0 + kRowBlock);
        // columns up to a whole register block (the micro-kernel's partial blocks load B through
        // a copy): the extra columns j >= i1 of rows [i0, i1) are masked ones, never read below
        const int64_t jc = std::min(len, round_up(i1, kFeaturesColPad));
        k->matmul(q + i0 * F, F, 1, kT, len, i1 - i0, jc, F, P + i0 * len, len, 0);
        k->matmul(go + i0 * dv, dv, 1, vT, len, i1 - i0, jc, dv, G + i0 * len, len, 0);
        for (int64_t i = i0; i < i1; ++i)
          for (int64_t j = i + 1; j < i1; ++j) P[size_t(i * len + j)] = G[size_t(i * len + j)] = 0.0f;
      }
    }
    if (!unnorm) k->linear_bwd_dots(q, gq, len, F, z, causal ? P : nullptr, G, len, dots);
    for (int64_t i = 0; i < len; ++i) {
      if (unnorm) {  // no denominator: a_i = grad_out_i, b_i = 0
        for (int32_t cdx = 0; cdx < dv; ++cdx) a[size_t(i * dv + cdx)] = go[i * dv + cdx];
        b[size_t(i)] = 0.0f;
        dinv[size_t(i)] = 1.0f;
        continue;
      }
      const double dz = dots[2 * i], gdo = dots[2 * i + 1];
      const double dn = dz + double(eps);
      if (dn == 0.0) {  // the forward wrote a zero row: zero gradient
        for (int32_t cdx = 0; cdx < dv; ++cdx) a[size_t(i * dv + cdx)] = 0.0f;
        b[i] = dinv[i] = 0.0f;
        continue;
      }
      const double inv = 1.0 / dn;  // one division per row
      for (int32_t cdx = 0; cdx < dv; ++cdx) a[size_t(i * dv + cdx)] = static_cast<float>(go[i * dv + cdx] * inv);
      b[size_t(i)] = static_cast<float>(-gdo * inv * inv);
      dinv[size_t(i)] = static_cast<float>(inv);
    }
    for (int64_t i = 0; i < len; ++i)
      for (int32_t f = 0; f < F; ++f) gq[i * F + f] = gq[i * F + f] * dinv[size_t(i)] + b[size_t(i)] * z[f];
    if (causal) {
      float* M = G;
      for (int64_t i = 0; i < len; ++i)
        for (int64_t j = 0; j <= i; ++j) M[size_t(i * len + j)] = M[size_t(i * len + j)] * dinv[size_t(i)] + b[size_t(i)];
      for (int64_t i0 = 0; i0 < len; i0 += kRowBlock) {
        const int64_t i1 = std::min(len, i0 + kRowBlock), nb_ = i1 - i0;
        // M phi_k for the queries [i0, i1) (keys j < i1); M^T phi_q and P^T A for the keys
        // [i0, i1) (queries i >= i0)
        k->matmul(M + i0 * len, len, 1, kk, F, nb_, F, i1, gq + i0 * F, F, 1);
        k->matmul(M + i0 * len + i0, 1, len, q + i0 * F, F, nb_, F, len - i0, grad_phi_k + (r0 + i0) * F, F, 0);
        k->matmul(P + i0 * len + i0, 1, len, a + i0 * dv, dv, nb_, dv, len - i0, grad_v + (r0 + i0) * dv, dv, 0);
      }
    }
  };
  // the chunk's R = phi_q^T A and r = sum_i b_i phi_q_i into r (a, b from pass1's buffer)
  auto chunk_r = [&](int64_t c, const float* buf, float* r) {
    const int64_t r0 = c * C, len = std::min(n, r0 + C) - r0;
    const float* q = phi_q + r0 * F;
    const float* a = buf;
    const float* b = a + len * dv;
    k->matmul(q, 1, F, a, dv, F, dv, len, r, dv, 0);
    std::fill(r + FD, r + state, 0.0f);
    for (int64_t i = 0; i < len; ++i)
      for (int32_t f = 0; f < F; ++f) r[FD + f] += b[size_t(i)] * q[i * F + f];
  };
  // pass 2 of one chunk with the R, r it sees: grad_phi_k += V R^T + r, grad_v += phi_k R
  auto pass2 = [&](int64_t c, const float* r, float* rT) {
    const int64_t r0 = c * C, len = std::min(n, r0 + C) - r0;
    k->transpose(r, F, dv, dv, rT);
    float* gk = grad_phi_k + r0 * F;
    float* gv = grad_v + r0 * dv;
    k->matmul(v + r0 * dv, dv, 1, rT, F, len, F, dv, gk, F, causal ? 1 : 0);
    for (int64_t i = 0; i < len; ++i) add_to(gk + i * F, r + FD, F);
    k->matmul(phi_k + r0 * F, F, 1, r, dv, len, dv, F, gv, dv, causal ? 1 : 0);
  };
  if (!causal) {
    parallel_tiles(nc, [&](int64_t c) {
      slot_pool<float>::lease buf(pool);
      slot_pool<double>::lease dbuf(dpool);
      pass1(c, total.data(), buf.data(), dbuf.data());
      chunk_r(c, buf.data(), rs + c * state);
    });
    for (int64_t t = 0; t < nc; ++t)
      for (int64_t e = 0; e < state; ++e) acc[size_t(e)] += rs[t * state + e];
    for (int64_t e = 0; e < state; ++e) rs[e] = static_cast<float>(acc[size_t(e)]);
    parallel_tiles(nc, [&](int64_t c) {
      slot_pool<float>::lease rT(pool);
      pass2(c, rs, rT.data());
    });
    return;
  }
  // causal pass 1 per block: the running state starts at the block's prefix and adds each
  // chunk's state after the chunk; the chunk's R, r go to st[c]; the block's slot in blk
  // receives the block total of R, r.
  parallel_tiles(nb, [&](int64_t bi) {
    const int64_t c0 = bi * G, c1 = std::min(nc, c0 + G);
    slot_pool<float>::lease buf(pool);
    slot_pool<double>::lease dbuf(dpool);
    float* tot = blk.data() + bi * state;
    float* srun = buf.data() + (slot - 2 * state);
    float* racc = srun + state;
    std::copy(tot, tot + state, srun);  // the block's prefix
    for (int64_t c = c0; c < c1; ++c) {
      float* s = rs + c * state;
      pass1(c, srun, buf.data(), dbuf.data());
      chunk_state(c, srun, true);  // the state chunk c + 1 sees
      chunk_r(c, buf.data(), s);
      if (c == c0) std::copy(s, s + state, racc);
      else add_to(racc, s, state);
    }
    std::copy(racc, racc + state, tot);
  });
  {  // exclusive suffix over blocks
    std::fill(run.begin(), run.end(), 0.0f);
    for (int64_t b = nb - 1; b >= 0; --b) {
      float* tot = blk.data() + b * state;
      for (int64_t e = 0; e < state; ++e) {
        const float tmp = tot[e];
        tot[e] = run[size_t(e)];
        run[size_t(e)] += tmp;
      }
    }
  }
  // causal pass 2 per block, chunks in reverse order: the running R, r starts at the block's
  // suffix and adds each chunk's R, r after the chunk is done
  parallel_tiles(nb, [&](int64_t bi) {
    const int64_t c0 = bi * G, c1 = std::min(nc, c0 + G);
    slot_pool<float>::lease buf(pool);
    float* rrun = buf.data();
    float* rT = rrun + state;
    const float* tot = blk.data() + bi * state;
    std::copy(tot, tot + state, rrun);
    for (int64_t c = c1 - 1; c >= c0; --c) {
      pass2(c, rrun, rT);
      add_to(rrun, rs + c * state, state);
    }
  });
}
}  // namespace detail
}  // namespace posenc

extern "C" POSENC_API posenc_status posenc_linear_attention_backward_f32(
    const float* phi_q, const float* phi_k, const float* v, int64_t n, int32_t F, int32_t dv, int32_t flags, float eps,
    const float* grad_out, float* grad_phi_q, float* grad_phi_k, float* grad_v) {
  api_guard g("posenc_linear_attention_backward_f32");
  POSENC_CHECK(check_attention({n, F, dv, "F", eps, attention_param::eps, phi_q, phi_k, v, "phi_q", "phi_k", grad_v,
                                true, grad_out, grad_phi_q, grad_phi_k, "grad_phi_q", "grad_phi_k"}));
  POSENC_CHECK(check_linear_flags(flags));
  if (n == 0) return POSENC_OK;
  const features_kernels_t* k = nullptr;
  POSENC_CHECK(features_kernels_active(&k));
  const bool causal = (flags & POSENC_LINEAR_CAUSAL) != 0, unnorm = (flags & POSENC_LINEAR_UNNORMALIZED) != 0;
  static const char* const kPaths[] = {"linear_attention_backward.global", "linear_attention_backward.causal_chunked",
                                       "linear_attention_backward.global_unnormalized",
                                       "linear_attention_backward.causal_chunked_unnormalized"};
  path(kPaths[(causal ? 1 : 0) + (unnorm ? 2 : 0)]);
  // Five n F dv products (causal: six, the chunk states are formed twice, for the block totals
  // and for the running state); causal adds the intra-chunk ones on the 64-row chunks' staircase
  // (10 of the 16 16-row blocks of each chunk).
  work(4.0 * double(n) * 4.0 * (F + dv),
       (causal ? 12.0 : 10.0) * double(n) * F * dv + (causal ? 0.625 * double(n) * 64 * (6.0 * F + 4.0 * dv) : 0.0),
       true);
  POSENC_SHAPE("n=%lld F=%d dv=%d", (long long)n, F, dv);
  return guarded([&] {
    // linear_attention_backward_run allocates all its scratch before it writes an output: an
    // allocation failure leaves the caller's arrays untouched.
    linear_attention_backward_run(k, phi_q, phi_k, v, n, F, dv, causal, unnorm, eps, grad_out, grad_phi_q, grad_phi_k,
                                  grad_v);
    return POSENC_OK;
  });
}

extern "C" POSENC_API posenc_status posenc_softmax_attention_backward_f32(
    const float* q, const float* kk, const float* v, int64_t n, int32_t d, int32_t dv, int32_t causal, float scale,
    const float* grad_out, float* grad_q, float* grad_k, float* grad_v) {
  api_guard g("posenc_softmax_attention_backward_f32");
  POSENC_CHECK(check_attention({n, d, dv, "d", scale, attention_param::scale, q, kk, v, "q", "k", grad_v, true,
                                grad_out, grad_q, grad_k, "grad_q", "grad_k"}));
  if (n == 0) return POSENC_OK;
  const features_kernels_t* k = nullptr;
  POSENC_CHECK(features_kernels_active(&k));
  path(causal ? "softmax_attention_backward.causal" : "softmax_attention_backward.full");
  const double pairs = causal ? double(n) * double(n + 1) / 2.0 : double(n) * double(n);
  work(4.0 * double(n) * 4.0 * (d + dv), pairs * (6.0 * d + 6.0 * dv), true);
  POSENC_SHAPE("n=%lld d=%d dv=%d", (long long)n, d, dv);
  return guarded([&] {
    // Staging arrays, copied out at the end (as in posenc_linear_attention_backward_f32).
    std::unique_ptr<float[]> stage_q(new float[size_t(n * d)]), stage_k(new float[size_t(n * d)]),
        stage_v(new float[size_t(n * dv)]);
    float* const out_q = grad_q;
    float* const out_k = grad_k;
    float* const out_v = grad_v;
    grad_q = stage_q.get();
    grad_k = stage_k.get();
    grad_v = stage_v.get();
    const int64_t n_pad = round_up(n, kFeaturesColPad);
    std::vector<float> kt(static_cast<size_t>(d * n_pad), 0.0f), vt(static_cast<size_t>(dv * n_pad), 0.0f);
    const int64_t tg = 1024;
    parallel_tiles(tiles_of(n, tg), [&](int64_t t) {  // K^T [d, n_pad], V^T [dv, n_pad]
      const int64_t j0 = t * tg, j1 = std::min(n, j0 + tg);
      for (int32_t c = 0; c < d; ++c)
        for (int64_t j = j0; j < j1; ++j) kt[size_t(c * n_pad + j)] = kk[j * d + c];
      for (int32_t c = 0; c < dv; ++c)
        for (int64_t j = j0; j < j1; ++j) vt[size_t(c * n_pad + j)] = v[j * dv + c];
    });
    const int64_t QB = 64, KB = 256;
    // the forward output (the forward kernel: same bits), then L_i = m_i + log l_i and
    // Dl_i = grad_out_i . out_i (float64)
    std::vector<float> out(static_cast<size_t>(n * dv));
    parallel_tiles(tiles_of(n, QB), [&](int64_t t) {
      const int64_t q0 = t * QB, q1 = std::min(n, q0 + QB);
      std::vector<float> scratch(static_cast<size_t>(QB * 256 + QB * dv + 2 * QB));
      k->softmax_rows(q, kt.data(), n_pad, v, n, d, dv, q0, q1, causal != 0 ? 1 : 0, scale, scratch.data(), out.data());
    });
    std::vector<float> lse(static_cast<size_t>(n)), dl(static_cast<size_t>(n));
    // block of scores for query rows [q0, q0+nq) and keys [j0, j0+bl): p = exp(scale s - L) (0 masked)
    auto probs = [&](int64_t q0, int64_t nq, int64_t j0, int64_t bl, float* s) {
      k->matmul(q + q0 * d, d, 1, kt.data() + j0, n_pad, nq, bl, d, s, KB, 0);
      for (int64_t i = 0; i < nq; ++i)
        for (int64_t j = 0; j < bl; ++j) {
          float& e = s[i * KB + j];
          e = (causal && j0 + j > q0 + i) ? 0.0f : std::exp(e * scale - lse[size_t(q0 + i)]);
        }
    };
    parallel_tiles(tiles_of(n, QB), [&](int64_t t) {
      const int64_t q0 = t * QB, nq = std::min(n, q0 + QB) - q0;
      std::vector<float> s(static_cast<size_t>(QB * KB));
      std::vector<double> mx(static_cast<size_t>(nq), -std::numeric_limits<double>::infinity()), l(size_t(nq), 0.0);
      const int64_t kend = causal ? q0 + nq : n;
      for (int64_t j0 = 0; j0 < kend; j0 += KB) {
        const int64_t bl = std::min(kend - j0, KB);
        k->matmul(q + q0 * d, d, 1, kt.data() + j0, n_pad, nq, bl, d, s.data(), KB, 0);
        for (int64_t i = 0; i < nq; ++i) {
          const int64_t jm = causal ? std::min(bl, q0 + i - j0 + 1) : bl;
          if (jm <= 0) continue;
          double bm = -std::numeric_limits<double>::infinity();
          for (int64_t j = 0; j < jm; ++j) bm = std::max(bm, double(s[size_t(i * KB + j)]) * scale);
          const double nm = std::max(mx[size_t(i)], bm);
          double acc = l[size_t(i)] * std::exp(mx[size_t(i)] - nm);
          for (int64_t j = 0; j < jm; ++j) acc += std::exp(double(s[size_t(i * KB + j)]) * scale - nm);
          l[size_t(i)] = acc;
          mx[size_t(i)] = nm;
        }
      }
      for (int64_t i = 0; i < nq; ++i) {
        lse[size_t(q0 + i)] = static_cast<float>(mx[size_t(i)] + std::log(l[size_t(i)]));
        double a = 0.0;
        for (int32_t c = 0; c < dv; ++c) a += double(grad_out[(q0 + i) * dv + c]) * out[size_t((q0 + i) * dv + c)];
        dl[size_t(q0 + i)] = static_cast<float>(a);
      }
    });
    // grad_q: per query block over key blocks; dS = P (dP - Dl), dP = dO V^T; grad_q = scale dS K
    parallel_tiles(tiles_of(n, QB), [&](int64_t t) {
      const int64_t q0 = t * QB, nq = std::min(n, q0 + QB) - q0;
      std::vector<float> s(static_cast<size_t>(QB * KB)), dp(static_cast<size_t>(QB * KB));
      const int64_t kend = causal ? q0 + nq : n;
      float* gq = grad_q + q0 * d;
      std::fill(gq, gq + nq * d, 0.0f);
      for (int64_t j0 = 0; j0 < kend; j0 += KB) {
        const int64_t bl = std::min(kend - j0, KB);
        probs(q0, nq, j0, bl, s.data());
        k->matmul(grad_out + q0 * dv, dv, 1, vt.data() + j0, n_pad, nq, bl, dv, dp.data(), KB, 0);
        for (int64_t i = 0; i < nq; ++i)
          for (int64_t j = 0; j < bl; ++j)
            s[size_t(i * KB + j)] *= (dp[size_t(i * KB + j)] - dl[size_t(q0 + i)]) * scale;
        k->matmul(s.data(), KB, 1, kk + j0 * d, d, nq, d, bl, gq, d, 1);
      }
    });
    // grad_k, grad_v: per key block over query blocks; grad_v = P^T dO, grad_k = scale dS^T Q
    parallel_tiles(tiles_of(n, KB), [&](int64_t t) {
      const int64_t j0 = t * KB, bl = std::min(n, j0 + KB) - j0;
      std::vector<float> s(static_cast<size_t>(QB * KB)), dp(static_cast<size_t>(QB * KB));
      float* gk = grad_k + j0 * d;
      float* gv = grad_v + j0 * dv;
      std::fill(gk, gk + bl * d, 0.0f);
      std::fill(gv, gv + bl * dv, 0.0f);
      for (int64_t q0 = causal ? j0 / QB * QB : 0; q0 < n; q0 += QB) {
        const int64_t nq = std::min(n, q0 + QB) - q0;
        probs(q0, nq, j0, bl, s.data());
        k->matmul(s.data(), 1, KB, grad_out + q0 * dv, dv, bl, dv, nq, gv, dv, 1);
        k->matmul(grad_out + q0 * dv, dv, 1, vt.data() + j0, n_pad, nq, bl, dv, dp.data(), KB, 0);
        for (int64_t i = 0; i < nq; ++i)
          for (int64_t j = 0; j < bl; ++j)
            s[size_t(i * KB + j)] *= (dp[size_t(i * KB + j)] - dl[size_t(q0 + i)]) * scale;
        k->matmul(s.data(), 1, KB, q + q0 * d, d, bl, d, nq, gk, d, 1);
      }
    });
    std::memcpy(out_q, grad_q, size_t(n * d) * sizeof(float));
    std::memcpy(out_k, grad_k, size_t(n * d) * sizeof(float));
    std::memcpy(out_v, grad_v, size_t(n * dv) * sizeof(float));
    return POSENC_OK;
  });
}
