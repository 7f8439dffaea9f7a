// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere/sh_grad_f32.hpp — float32 unit-sphere real SH with their gradients
// (posenc_sph_harm_real_grad_f32 without POSENC_SPH_SOLID and without Hessians) on the paths
// with float32 lanes (kGradF32Native: AVX-512 16 points a vector, AVX2 8).
//
// Split by accuracy: what carries error from degree to degree stays in float64, what does not
// runs in float32 lanes.
//   float64 (kHalves vectors of W points): the set-up (u = x / |x|, cos theta as xh + xl,
//     sin theta, 1 / |x|), cos / sin (m phi) by their complex-multiplication chains, and the
//     Legendre recurrence ybar_l^m (near the poles a float32 forward recurrence loses ~l^2 eps:
//     kSphF32NativeLmax), and d/dz's bracket cz ybar_{l-1}^m - l u_z ybar_l^m (its two terms
//     nearly cancel near the poles). Each is rounded to float32 once.
//   float32 (one vector of WF points): Y_l,+-m = ybar cos / sin (m phi), the ladder relations of
//     sph_grad_coef for d/dx, d/dy (G from the Y row of degree l - 1: two products, no
//     recurrence), the gradient (G - l Y u) / |x|, and the WF x WF transposes into the
//     point-major rows.
// Every output element is a few float32 roundings from the float64 kernel's (sh_grad.hpp):
// measured block-relative error against float64 in docs/ACCURACY.md. Per lane the operations
// do not depend on the other lanes of the block, so a point's bits do not depend on the call's
// split or thread count: 1 / |x| is applied as one product where it is inside [2^-60, 2^60] and
// as two (ir / 2^+-64, then 2^+-64, an exact scaling) otherwise, which gives the same bits
// wherever both are used.
//
// Outputs of 16 MB or more (sph_grad_plan::stream) are written with non-temporal stores. Whole
// super-blocks of kGradLinePoints points (every lib/ tile but the call's last) run as kLineUnit
// blocks of points kLineUnit apart, whose rows then start at the same offset within a 64-byte
// line: each unit of 16 features is one aligned line of every row, transposed from the stage and
// stored straight into the output (grad_lemitter), and the line two rows share (the end of one
// plane row, the start of the next) is merged in a small buffer and stored whole once both
// halves are there (grad_line_edges). Against staging each block's rows point-major in a
// line_stream buffer and copying them out (the remaining blocks still do), the output is written
// once instead of twice: A/B AVX-512 float32 L = 10 0.90, 20 0.81, 40 0.64; AVX2 0.87 / 0.83 /
// 0.81 (docs/PERFORMANCE.md, "float32 values + gradients: whole lines from the tiles").
#pragma once

#include "kernels/sphere/sh_grad.hpp"

namespace posenc {
namespace POSENC_NS {
namespace sph {

/// The float32-lane derivative kernel runs on the ISA paths whose float vectors hold two
/// double vectors (the float32-native values path's, kF32Native), for gradients (values-only
/// calls, posenc_sph_harm_real_ex_f32, stay rounded once), at the degrees whose block of values
/// + gradients fits kSphGradStageMaxBytes (grad_stage_planes >= 4: lmax <= 44 on AVX-512, 63 on
/// AVX2). Above, the WF-row tiles stored straight into the output rows were slower than the
/// float64 kernel's W-row ones (AVX-512, 4000 points, CPU time new / old: lmax 50 1.38, 64 1.32,
/// 100 1.26; AVX2 lmax 64 1.04). Error: a few float32 roundings of each element, growing
/// ~sqrt(l) per degree block (its largest element is up to sqrt(2l+1) times its rms): measured
/// 1.5e-6 at lmax 40, 1.8e-6 at 63 (AVX2), 3.4e-6 at 150 when run there (docs/ACCURACY.md; the
/// contract is 1e-5).
constexpr bool kGradF32Native = kF32Native;
/// The highest such lmax (44 on AVX-512, 63 on AVX2), -1 where kGradF32Native is false.
constexpr int32_t grad_f32_lanes_lmax() {
  if (!kGradF32Native || !kHasStream) return -1;
  int32_t L = 0;
  const int64_t per = 4 * static_cast<int64_t>(W) * static_cast<int64_t>(sizeof(double));  // bytes per (lmax+1)^2
  while (per * (L + 2) * (L + 2) <= kSphGradStageMaxBytes) ++L;
  return L;
}
/// grad_stage_planes(lmax) >= 4 where kGradF32Native.
inline bool grad_f32_lanes(int32_t lmax) { return lmax <= grad_f32_lanes_lmax(); }

/// The emitter of sh_grad_f32_body: grad_emitter with float32 features, WF points a vector;
/// full WF x WF tiles by vx::ftile_rows, rows stored from registers.
struct grad_femitter {
  static constexpr std::size_t WF = width<float>;
  float* st;  // stage: capacity >= max row + 2 WF vectors, aligned to the float vector
  std::size_t cnt = 0;
  int64_t base = 0;
  float* out;
  int64_t stride;
  std::size_t npts;
  grad_femitter(float* stage, float* o, int64_t s, std::size_t np) : st(stage), out(o), stride(s), npts(np) {}
  void put(std::size_t j, const vec<float>& v) { stu(st + (cnt + j) * WF, v); }
  void tile(const float* src, std::size_t c) {
    vec<float> r[WF];
    vx::ftile_rows(src, r);
    float* const d = out + base;
    if (c == WF && npts == WF) {  // a constant trip count: the rows stored straight from registers
      for (std::size_t p = 0; p < WF; ++p) stu(d + static_cast<int64_t>(p) * stride, r[p]);
    } else if (c == WF) {
      for (std::size_t p = 0; p < npts; ++p) stu(d + static_cast<int64_t>(p) * stride, r[p]);
    } else {
      for (std::size_t p = 0; p < npts; ++p) vx::store_first(d + static_cast<int64_t>(p) * stride, r[p], c);
    }
    base += static_cast<int64_t>(c);
  }
  void commit(std::size_t count) {
    cnt += count;
    std::size_t t = 0;
    for (; t + WF <= cnt; t += WF) tile(st + t * WF, WF);
    if (t > 0) {
      for (std::size_t i = t; i < cnt; ++i) stu(st + (i - t) * WF, load(st + i * WF));
      cnt -= t;
    }
  }
  void finish() {
    if (cnt > 0) tile(st, cnt);
    cnt = 0;
  }
};

/// Super-blocks of the whole-line writer of sh_grad_f32_body (kGradLines): kLineUnit blocks of
/// WF points, block c taking points c, c + kLineUnit, ..., c + (WF - 1) kLineUnit of the
/// super-block, so that the rows of a block are kLineUnit rows apart: a whole number of 64-byte
/// lines, every row of a block at the same offset within a line.
constexpr int64_t kLineUnit = vx::lines<float>::unit;
constexpr int64_t kGradLinePoints = kLineUnit * static_cast<int64_t>(width<float>);
/// The whole-line writer runs where the float32 lanes run and lib/'s tiles are whole super-blocks
/// (kSphTilePoints a multiple of kGradLinePoints).
constexpr bool kGradLines = kGradF32Native && kHasStream && kSphTilePoints % kGradLinePoints == 0;

/// Floats of the shared-line buffer of the whole-line writer: one 64-byte line per row of a
/// super-block (kGradLinePoints points, 1 + 3 planes), + 16 floats of alignment slack.
inline int64_t grad_f32_edge_floats() { return kGradLinePoints * 4 * kLineUnit + kLineUnit; }

/// Floats of the float32 ladder coefficients (alpha, beta of sph_grad_coef) of sh_grad_f32_body:
/// a table of every (l, m) and one degree's row.
inline int64_t grad_f32_ab_floats(int32_t lmax) {
  const int64_t N = static_cast<int64_t>(lmax) + 1;
  return N * (N + 1) + 2 * N;
}
/// Doubles of the whole-line writer's shared-line buffer (0 where it does not run).
inline int64_t grad_f32_edge_doubles() { return kGradLines ? (grad_f32_edge_floats() + 1) / 2 : 0; }
/// Scratch doubles of sh_grad_f32_impl: grad_scratch and, where the float32 lanes run, the
/// whole-line writer's shared-line buffer and the float32 ladder coefficients.
inline int64_t grad_f32_scratch(int32_t lmax) {
  return grad_scratch(lmax) + (grad_f32_lanes(lmax) ? 16 + grad_f32_edge_doubles() + (grad_f32_ab_floats(lmax) + 1) / 2 : 0);
}

/// The R = WF rows' 64-byte lines of 16 float features held feature-major (feature k of row p
/// at src[WF k + p]): a 16 x 16 transpose on AVX-512, two 8 x 8 ones on AVX2.
inline void grad_line_rows(const float* src, typename vx::lines<float>::LV* v) {
  vx::line_rows<static_cast<int>(width<float>)>(src, v);
}

/// The lines that two rows of the output share (the end of one K-feature row of a plane and the
/// start of the next: plane a + 1 of the same point, or plane 0 of the next point), for one
/// output of a super-block: row (c, p, a) (block c, row p of the block, plane a < P) keeps the
/// line of its start at slot(c, p, a); the previous row writes its end into the same slot. A
/// slot whose two parts are both written is stored whole, non-temporally (flush); one whose
/// other part is outside the super-blocks of the call (its first and last line) gets ordinary
/// stores of its own bytes only.
struct grad_line_edges {
  static constexpr int64_t U = kLineUnit, R = static_cast<int64_t>(width<float>);
  float* E = nullptr;    ///< U R P lines, 64-byte aligned
  float* out = nullptr;  ///< the output (nullptr: none)
  int64_t S = 0, K = 0;  ///< elements per point (P K), per plane row
  int64_t P = 0;
  int64_t off0 = 0;  ///< the output's offset within its first line, in floats
  grad_line_edges() = default;
  grad_line_edges(float* e, float* o, int64_t k, int64_t planes)
      : E(e), out(o), S(planes * k), K(k), P(planes), off0(static_cast<int64_t>((reinterpret_cast<std::uintptr_t>(o) / sizeof(float)) % U)) {}
  /// Offset within its line of the start of row (c, ., a), in floats (the same for every p).
  int64_t off(int64_t c, int64_t a) const { return (off0 + c * S + a * K) % U; }
  float* slot(int64_t c, int64_t p, int64_t a) const { return E + ((c * R + p) * P + a) * U; }
  char* dest(int64_t q0, int64_t c, int64_t p, int64_t a) const {
    const std::uintptr_t s = reinterpret_cast<std::uintptr_t>(out + (q0 + c + U * p) * S + a * K);
    return reinterpret_cast<char*>(s & ~static_cast<std::uintptr_t>(63));
  }
  void flush(int64_t q0, int64_t c, int64_t p, int64_t a) const {
    vx::copy_line<true>(dest(q0, c, p, a), reinterpret_cast<const char*>(slot(c, p, a)));
  }
  /// After block c of the super-block at point q0 (prev: the super-block before it was written
  /// by this call, its last row's end is in slot(0, 0, 0)).
  void block_done(int64_t q0, int64_t c, bool prev) const {
    for (int64_t a = 1; a < P; ++a)
      if (off(c, a) != 0)
        for (int64_t p = 0; p < R; ++p) flush(q0, c, p, a);
    const int64_t o = off(c, 0);
    if (o != 0) {
      if (c > 0) {
        for (int64_t p = 0; p < R; ++p) flush(q0, c, p, 0);
      } else if (prev) {
        flush(q0, 0, 0, 0);
      } else {  // the first line of the call's super-blocks: its own bytes only
        std::memcpy(dest(q0, 0, 0, 0) + o * 4, slot(0, 0, 0) + o, static_cast<std::size_t>(U - o) * sizeof(float));
      }
    }
    if (c == U - 1 && off(0, 0) != 0)  // the starts of block 0's rows p >= 1 (row p - 1 of block U - 1 ends there)
      for (int64_t p = 1; p < R; ++p) flush(q0, 0, p, 0);
  }
  /// After the last super-block, which ended at point q1: the bytes of its last line.
  void done(int64_t q1) const {
    const int64_t o = off(0, 0);
    if (o != 0) std::memcpy(dest(q1, 0, 0, 0), slot(0, 0, 0), static_cast<std::size_t>(o) * sizeof(float));
  }
};

/// The emitter of the whole-line writer: one plane a of one output for block c of a super-block.
/// Features are collected as grad_femitter's, the first at stage slot off(c, a) (the row's
/// offset within its line), so that every unit of 16 slots is one aligned line of each of the
/// WF rows: transposed (grad_line_rows) and stored non-temporally straight into the output, the
/// row's first and last (partial) line into the shared-line slots (grad_line_edges).
struct grad_lemitter {
  using LO = vx::lines<float>;
  using LV = typename LO::LV;
  static constexpr std::size_t WF = width<float>;
  static constexpr int64_t U = kLineUnit, PF = static_cast<int64_t>(WF);
  float* st = nullptr;
  std::size_t cnt = 0;
  int64_t k = 0;              ///< feature of stage slot 0
  std::uintptr_t line = 0;    ///< the output line of stage slot 0, row 0
  std::uintptr_t rs = 0;      ///< bytes from a row to the next (whole lines)
  float* head = nullptr;      ///< slot of row 0's first line; row p's at head + p P U
  float* tail = nullptr;      ///< slot of row 0's last line (wrap: row p's is that of (0, p + 1, 0))
  float* E = nullptr;
  int64_t pstep = 0;          ///< floats between the slots of rows p and p + 1
  bool wrap = false;
  float* out = nullptr;       ///< non-null: the plane is written
  grad_lemitter() = default;
  grad_lemitter(float* stage, const grad_line_edges& ed, int64_t q0, int64_t c, int64_t a) : st(stage) {
    if (!ed.out) return;
    out = ed.out + (q0 + c) * ed.S + a * ed.K;
    const int64_t o = ed.off(c, a);
    cnt = static_cast<std::size_t>(o);
    k = -o;
    line = reinterpret_cast<std::uintptr_t>(out) - static_cast<std::uintptr_t>(o) * sizeof(float);
    rs = static_cast<std::uintptr_t>(U * ed.S) * sizeof(float);
    head = ed.slot(c, 0, a);
    E = ed.E;
    pstep = ed.P * U;
    if (a + 1 < ed.P) {
      tail = ed.slot(c, 0, a + 1);
    } else if (c + 1 < U) {
      tail = ed.slot(c + 1, 0, 0);
    } else {
      wrap = true;
    }
  }
  void put(std::size_t j, const vec<float>& v) { stu(st + (cnt + j) * WF, v); }
  void unit(const float* src) {
    LV v[WF];
    grad_line_rows(src, v);
    if (k < 0) {
      const uint32_t m = 0xFFFFu & ~((1u << static_cast<uint32_t>(-k)) - 1u);
      for (int64_t p = 0; p < PF; ++p) LO::masked(head + p * pstep, m, v[p]);
    } else {
      std::uintptr_t a = line;
      for (std::size_t p = 0; p < WF; ++p, a += rs) LO::full(reinterpret_cast<float*>(a), v[p], true);
    }
    k += U;
    line += 64;
  }
  void commit(std::size_t count) {
    cnt += count;
    std::size_t t = 0;
    for (; t + static_cast<std::size_t>(U) <= cnt; t += static_cast<std::size_t>(U)) unit(st + t * WF);
    if (t > 0) {
      for (std::size_t i = t; i < cnt; ++i) stu(st + (i - t) * WF, load(st + i * WF));
      cnt -= t;
    }
  }
  /// The row's last line (cnt < 16 features), into the slot of the next row's start.
  void finish() {
    if (cnt > 0) {
      LV v[WF];
      grad_line_rows(st, v);
      const uint32_t m = (1u << static_cast<uint32_t>(cnt)) - 1u;
      for (int64_t p = 0; p < PF; ++p)
        LO::masked(wrap ? E + ((p + 1) % PF) * pstep : tail + p * pstep, m, v[p]);
    }
    cnt = 0;
  }
};

/// Float32 values [n, K] (or nullptr) and gradients [n, 3, K] on the unit sphere
/// (P->flags without kSphSolid), scratch as sh_grad_impl's (grad_scratch).
template <class TI>
inline void sh_grad_f32_body(const sph_grad_plan* P, const TI* xyz, int64_t n, float* val, float* grad,
                             double* scr_in) {
  using VF = vec<float>;
  constexpr std::size_t WF = width<float>, H = vx::kHalves;
  constexpr int64_t Wd = static_cast<int64_t>(W), Wf = static_cast<int64_t>(WF);
  double* s = align64(scr_in);
  const int32_t L = P->lmax;
  const int64_t N = static_cast<int64_t>(L) + 1, K = N * N, R = grad_row_vecs(L);
  const int64_t c0 = static_cast<int64_t>(L) + 2;  // order 0 of a padded row
  // Scratch (inside grad_core_scratch: 5 H N W + H R W <= 4 N W + 8 R W doubles for H <= 2):
  // Legendre rows [H][2][N W], cos / sin (m phi) [H][2][N W] (float64), their float32 rounding
  // [2][N WF], two Y rows [2][R WF] (float32); the coefficient row and the stages as sh_grad_body.
  double* const yb = s;
  double* const dcs = s + 2 * static_cast<int64_t>(H) * N * Wd;
  float* const fcm = reinterpret_cast<float*>(dcs + 2 * static_cast<int64_t>(H) * N * Wd);
  float* const fsm = fcm + N * Wf;
  float* const Yr[2] = {fsm + N * Wf, fsm + N * Wf + R * Wf};
  double* const crow = s + 4 * N * Wd + 8 * R * Wd;
  float* const fstages = reinterpret_cast<float*>(crow + (5 * N + 7) / 8 * 8);
  const int64_t sdf = (2 * static_cast<int64_t>(L) + 1 + 2 * Wf) * Wf;  // floats of one stage
  const int64_t sd = stage_doubles(L);
  auto ybr = [&](std::size_t h, int64_t par) { return yb + (2 * static_cast<int64_t>(h) + par) * N * Wd; };
  auto cmr = [&](std::size_t h) { return dcs + 2 * static_cast<int64_t>(h) * N * Wd; };

  // Large outputs: whole super-blocks by the whole-line writer (below); the other blocks staged
  // in point-major lines (line_stream), as sh_grad_body (a block of WF float points takes the
  // bytes of a block of W double points, WF = kHalves W).
  float* const outs[2] = {val, grad};
  const int64_t ostride[2] = {K, 3 * K};
  const int stage_planes[2] = {1, 3};
  const int planes_used = (val ? 1 : 0) + (grad ? 3 : 0);
  int64_t need = 0;
  for (int a = 0; a < 2; ++a)
    if (outs[a]) need += grad_line_stage_doubles(L, stage_planes[a]);
  const int64_t pool = grad_stage_pool(L);
  const bool staged = P->stream != 0 && planes_used <= grad_stage_planes(L) && need <= pool;
  const bool deferred = staged && 2 * need <= pool;
  line_stream ls[2];
  int64_t share[2] = {0, 0};
  double* const pool0 = align64(reinterpret_cast<double*>(crow + (5 * N + 7) / 8 * 8) + 13 * sd);
  double* const ls_end = pool0 + pool;  // the whole-line writer's shared lines after the pool
  // then the ladder coefficients alpha, beta as floats: of every (l, m) where P->coef holds them
  // (converted once a call, not once a block), else one degree's row
  float* const abf = reinterpret_cast<float*>(align64(ls_end) + grad_f32_edge_doubles());
  float* const abrow = abf + N * (N + 1);
  if (P->coef)
    for (int64_t i = 0; i < N * (N + 1) / 2; ++i) {
      abf[2 * i] = static_cast<float>(P->coef[5 * i + 3]);
      abf[2 * i + 1] = static_cast<float>(P->coef[5 * i + 4]);
    }
  if (staged) {
    double* b = pool0;
    for (int a = 0; a < 2; ++a) {
      if (!outs[a]) continue;
      const int64_t d = grad_line_stage_doubles(L, stage_planes[a]);
      ls[a] = line_stream(b, true, deferred ? b + d : nullptr);
      b += deferred ? 2 * d : d;
      share[a] = grad_stage_share(Wf * ostride[a] * static_cast<int64_t>(sizeof(float)), L);
    }
  }
  const V one(1.0), zero(0.0);
  const VF fzero(0.0f);
  const double fy00 = 0.28209479177387814347;  // 1 / sqrt(4 pi)
  const V big(0x1p60), small(0x1p-60);

  // One block of np points first, first + pstep, ...: the recurrence, its features handed to
  // the emitters em[0..4) (values, d/dx, d/dy, d/dz; put / commit), degree_done(count) after
  // each degree's features; the caller finishes the emitters.
  auto run_block = [&](int64_t first, int64_t pstep, std::size_t np, auto* em, auto&& degree_done) POSENC_HOT_LAMBDA {
    // Set-up of each half in float64 (sh_grad_body's, the same expressions).
    V xh[H], xl[H], sth[H], uh[3][H], irh[H], ir2h[H], nzh[H];
    bool split_ir = false;
    for (std::size_t h = 0; h < H; ++h) {
      V X, Y, Z;
      {
        alignas(64) double xb[W], ybb[W], zb[W];
        for (std::size_t i = 0; i < W; ++i) {
          const std::size_t pi = h * W + i;
          if (pi < np) {
            const TI* q = xyz + 3 * (first + static_cast<int64_t>(pi) * pstep);
            xb[i] = static_cast<double>(q[0]);
            ybb[i] = static_cast<double>(q[1]);
            zb[i] = static_cast<double>(q[2]);
          } else {
            xb[i] = 0.0;
            ybb[i] = 0.0;
            zb[i] = 1.0;
          }
        }
        X = load(xb);
        Y = load(ybb);
        Z = load(zb);
      }
      const V mx = max(max(abs(X), abs(Y)), abs(Z));
      const auto zl = mx == zero;
      const V mxs = select(zl, one, mx);
      const V Xs = X / mxs, Ys = Y / mxs, Zs = select(zl, one, Z / mxs);
      const V rxy2 = Xs * Xs + Ys * Ys;
      const V rs = sqrt(rxy2 + Zs * Zs);
      const V irs = one / rs;
      uh[0][h] = Xs * irs;
      uh[1][h] = Ys * irs;
      uh[2][h] = Zs * irs;
      const V ct = min(max(uh[2][h], V(-1.0)), one);
      const V tpol = rxy2 / (rs * (rs + abs(Zs)));
      const auto nearp = abs(ct) > V(0.5);
      const V sgn = select(Zs < zero, V(-1.0), one);
      xh[h] = select(nearp, sgn, ct);
      xl[h] = select(nearp, zero - sgn * tpol, zero);
      const auto pos = rxy2 > zero;
      const V rxy = sqrt(rxy2);
      sth[h] = rxy * irs;
      const V irxy = one / select(pos, rxy, one);
      const V c1 = select(pos, Xs * irxy, one), s1 = select(pos, Ys * irxy, zero);
      const V ir = select(zl, zero, one / (mx * rs));
      nzh[h] = select(zl, zero, one);
      // 1 / |x| = irh * ir2h, ir2h = 1 inside [2^-60, 2^60], else 2^+-64 (exact scaling)
      const auto hi = ir > big, lo = (ir < small) & (ir > zero);
      ir2h[h] = select(hi, V(0x1p64), select(lo, V(0x1p-64), one));
      irh[h] = ir / ir2h[h];
      {
        alignas(64) double t[W];
        stu(t, ir2h[h]);
        for (std::size_t i = 0; i < W; ++i) split_ir = split_ir || t[i] != 1.0;
      }
      // cos / sin (m phi)
      double* const cm = cmr(h);
      double* const sm = cm + N * Wd;
      cos_sin_m_phi(c1, s1, N, Wd, cm, sm, zero);
      stu(ybr(h, 0), V(fy00));
      stu(ybr(h, 1), zero);
    }
    for (int64_t m = 0; m < N; ++m) {
      V c[H], sn[H];
      for (std::size_t h = 0; h < H; ++h) {
        c[h] = load(cmr(h) + m * Wd);
        sn[h] = load(cmr(h) + N * Wd + m * Wd);
      }
      stu(fcm + m * Wf, vx::narrow(c));
      stu(fsm + m * Wf, vx::narrow(sn));
    }
    const VF u[2] = {vx::narrow(uh[0]), vx::narrow(uh[1])};
    const VF ir = vx::narrow(irh), ir2 = vx::narrow(ir2h), nz = vx::narrow(nzh);

    // Degree 0.
    {
      float* Y0 = Yr[0] + c0 * Wf;
      for (int64_t j = -2; j <= 2; ++j) stu(Y0 + j * Wf, j == 0 ? VF(static_cast<float>(fy00)) : fzero);
      if (val) em[0].put(0, VF(static_cast<float>(fy00)));
      for (int a = 0; a < 3 && grad; ++a) em[1 + a].put(0, fzero);
      degree_done(1);
    }
    for (int32_t l = 1; l <= L; ++l) {
      const int64_t lw = l;
      const double* cr = P->coef ? P->coef + 5 * (lw * (lw + 1) / 2) : crow;
      const float* abl = P->coef ? abf + lw * (lw + 1) : abrow;
      if (!P->coef)
        for (int32_t m = 0; m <= l; ++m) {
          sph_grad_coef(l, m, crow + 5 * m);
          abrow[2 * m] = static_cast<float>(crow[5 * m + 3]);
          abrow[2 * m + 1] = static_cast<float>(crow[5 * m + 4]);
        }
      // One pass over the orders: Legendre row l of each half (float64, over row l-2, kept in
      // cur), Y row l in float32 (zero past |m| = l), the d/dz bracket and the ladder.
      float* Yc = Yr[l & 1] + c0 * Wf;
      const float* Yp = Yr[(l - 1) & 1] + c0 * Wf;
      const VF lv(static_cast<float>(l));
      auto at = [&](int64_t q) POSENC_HOT_LAMBDA { return load(Yp + q * Wf); };
      auto emit = [&](std::size_t j, const VF& y, const VF* g) POSENC_HOT_LAMBDA {
        if (val) em[0].put(j, nz * y);
        if (grad) {
          const VF ly = lv * y;
          const VF t[3] = {madd(fzero - ly, u[0], g[0]), madd(fzero - ly, u[1], g[1]), g[2]};  // g[2]: the z bracket already
          if (split_ir) {
            for (int a = 0; a < 3; ++a) em[1 + a].put(j, (t[a] * ir) * ir2);
          } else {
            for (int a = 0; a < 3; ++a) em[1 + a].put(j, t[a] * ir);
          }
        }
      };
      V luz[H];
      for (std::size_t h = 0; h < H; ++h) luz[h] = zero - V(static_cast<double>(l)) * uh[2][h];  // -l u_z
      for (int64_t m = 0; m <= lw; ++m) {
        const double* c = cr + 5 * m;
        // ybar_l^m and the d/dz bracket: G_z - l Y u_z = (cz ybar_{l-1}^m - l u_z ybar_l^m)
        // cos / sin (m phi), the bracket in float64 (near the poles its two terms nearly cancel:
        // each rounded to float32 alone, the difference carried ~100 eps of the block at l = 130).
        V yh[H], dh[H];
        for (std::size_t h = 0; h < H; ++h) {
          double* cur = ybr(h, l & 1);
          double* prv = ybr(h, (l - 1) & 1);
          V y, pm;
          if (m < lw) {
            pm = load(prv + m * Wd);  // a (xh + xl) p + nb pp, xh p exact near the poles
            y = madd(V(c[0]), madd(xl[h], pm, xh[h] * pm), V(c[1]) * load(cur + m * Wd));
          } else {
            y = load(prv + (lw - 1) * Wd) * (V(cr[5 * lw]) * sth[h]);
            pm = zero;  // row l - 1 at order l, kept zero for the next degree
            stu(prv + lw * Wd, zero);
          }
          stu(cur + m * Wd, y);
          yh[h] = y;
          dh[h] = madd(luz[h], y, V(c[2]) * pm);
        }
        const VF yf = vx::narrow(yh);
        const VF dz = vx::narrow(dh);
        const VF al(abl[2 * m]), be(abl[2 * m + 1]);
        VF gp[3], gn[3];
        if (m == 0) {
          stu(Yc, yf);
          gp[0] = fzero - be * at(1);
          gp[1] = fzero - be * at(-1);
          gp[2] = dz;
          emit(static_cast<std::size_t>(lw), yf, gp);
        } else {
          const VF cm = load(fcm + m * Wf), sm = load(fsm + m * Wf);
          const VF yp = yf * cm, yn = yf * sm;
          stu(Yc + m * Wf, yp);
          stu(Yc - m * Wf, yn);
          gp[2] = dz * cm;
          gn[2] = dz * sm;
          if (m == 1) {
            const VF y0 = at(0), ypp = at(2), ymm = at(-2);
            gp[0] = madd(al, y0, fzero - be * ypp);
            gp[1] = fzero - be * ymm;
            gn[0] = fzero - be * ymm;
            gn[1] = madd(al, y0, be * ypp);
          } else {
            const VF ap = at(m - 1), an = at(-(m - 1)), bp = at(m + 1), bn = at(-(m + 1));
            gp[0] = madd(al, ap, fzero - be * bp);
            gp[1] = fzero - madd(al, an, be * bn);
            gn[0] = madd(al, an, fzero - be * bn);
            gn[1] = madd(al, ap, be * bp);
          }
          emit(static_cast<std::size_t>(lw + m), yp, gp);
          emit(static_cast<std::size_t>(lw - m), yn, gn);
        }
      }
      for (int64_t j = lw + 1; j <= lw + 2; ++j) {
        stu(Yc + j * Wf, fzero);
        stu(Yc - j * Wf, fzero);
      }
      degree_done(static_cast<std::size_t>(2 * lw + 1));
    }
  };

  int64_t p0 = 0;
  // Large outputs (staged) of whole super-blocks: whole lines from the tiles (grad_lemitter).
  const bool lines = kGradLines && staged && K >= kLineUnit && n >= kGradLinePoints &&
                     (reinterpret_cast<std::uintptr_t>(val) | reinterpret_cast<std::uintptr_t>(grad)) % sizeof(float) == 0;
  if (lines) {
    float* const eb = reinterpret_cast<float*>(align64(ls_end));
    grad_line_edges ed[2] = {grad_line_edges(eb, val, K, 1),
                             grad_line_edges(eb + kGradLinePoints * kLineUnit, grad, K, 3)};
    for (; p0 + kGradLinePoints <= n; p0 += kGradLinePoints) {
      for (int64_t c = 0; c < kLineUnit; ++c) {
        grad_lemitter em[4] = {
            grad_lemitter(fstages, ed[0], p0, c, 0),
            grad_lemitter(fstages + 1 * sdf, ed[1], p0, c, 0),
            grad_lemitter(fstages + 2 * sdf, ed[1], p0, c, 1),
            grad_lemitter(fstages + 3 * sdf, ed[1], p0, c, 2),
        };
        run_block(p0 + c, kLineUnit, WF, em, [&](std::size_t count) POSENC_HOT_LAMBDA {
          for (int e = 0; e < 4; ++e)
            if (em[e].out) em[e].commit(count);
        });
        for (int e = 0; e < 4; ++e)
          if (em[e].out) em[e].finish();
        for (int a = 0; a < 2; ++a)
          if (outs[a]) ed[a].block_done(p0, c, p0 > 0);
      }
    }
    for (int a = 0; a < 2; ++a)
      if (outs[a]) ed[a].done(p0);
  }
  // The other blocks: WF consecutive points, through the line stages where staged.
  for (; p0 < n; p0 += Wf) {
    const std::size_t np = static_cast<std::size_t>(n - p0 < Wf ? n - p0 : Wf);
    float* bo[2];
    for (int a = 0; a < 2; ++a) {
      float* const d = outs[a] ? outs[a] + p0 * ostride[a] : nullptr;
      bo[a] = d && staged ? reinterpret_cast<float*>(ls[a].begin(d)) : d;
    }
    grad_femitter em[4] = {
        grad_femitter(fstages, bo[0], K, np),
        grad_femitter(fstages + 1 * sdf, bo[1], 3 * K, np),
        grad_femitter(fstages + 2 * sdf, bo[1] ? bo[1] + K : nullptr, 3 * K, np),
        grad_femitter(fstages + 3 * sdf, bo[1] ? bo[1] + 2 * K : nullptr, 3 * K, np),
    };
    run_block(p0, 1, np, em, [&](std::size_t count) POSENC_HOT_LAMBDA {
      grad_degree_done(em, 4, count, outs, 2, ls, share, deferred);
    });
    grad_block_done(em, 4, outs, ostride, 2, ls, staged, deferred, np);
  }
  grad_streams_done(outs, 2, ls, staged || lines);
}

/// posenc_sph_harm_real_grad_f32's kernel: sh_grad_f32_body for unit-sphere gradients without
/// Hessians where kGradF32Native and grad_f32_lanes(lmax); else sh_grad_impl (float64 compute,
/// every output rounded once).
inline void sh_grad_f32_impl(const sph_grad_plan* P, const float* xyz, int64_t n, float* val, float* grad, float* hess,
                             double* scr) {
  if constexpr (kGradF32Native) {
    if (grad != nullptr && hess == nullptr && (P->flags & kSphSolid) == 0 && grad_f32_lanes(P->lmax)) {
      sh_grad_f32_body(P, xyz, n, val, grad, scr);
      return;
    }
  }
  sh_grad_impl(P, xyz, n, val, grad, hess, scr);
}

}  // namespace sph
}  // namespace POSENC_NS
}  // namespace posenc
