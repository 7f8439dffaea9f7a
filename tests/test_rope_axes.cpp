// SPDX-License-Identifier: Apache-2.0 OR MIT
// rope family: position axes (M-RoPE chunked / interleaved, axial RoPE of vision transformers)
// against long-double re-implementations that follow each framework's own construction (HF
// split/cat of the channel axis, vLLM masks, EVA-02 / FLUX / Qwen-VL vision frequency tables),
// and the frequency knobs of vLLM, ggml and HF that posenc 0.1 lacked.
#include "tests/test_rope_common.hpp"

#include <array>

using namespace posenc_test;

namespace {

constexpr long double kPi = 3.141592653589793238462643383279502884L;

/// Qwen2.5-VL-style positions [3, T]: 6 text tokens, a 2 x 3 x 4 (t, h, w) image grid, 5 text
/// tokens after it (HF get_rope_index: text continues from max(position) + 1).
std::vector<int64_t> vl_positions(int64_t* T_out) {
  std::vector<int64_t> t, h, w;
  for (int64_t i = 0; i < 6; ++i) { t.push_back(i); h.push_back(i); w.push_back(i); }
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t b = 0; b < 3; ++b)
      for (int64_t c = 0; c < 4; ++c) { t.push_back(6 + a); h.push_back(6 + b); w.push_back(6 + c); }
  for (int64_t i = 0; i < 5; ++i) { t.push_back(10 + i); h.push_back(10 + i); w.push_back(10 + i); }
  *T_out = static_cast<int64_t>(t.size());
  std::vector<int64_t> pos(t);
  pos.insert(pos.end(), h.begin(), h.end());
  pos.insert(pos.end(), w.begin(), w.end());
  return pos;
}

/// Per-channel angles [T, rot] of HF's M-RoPE for NEOX heads: cos/sin of each axis built as
/// cat(freqs, freqs), then the channel axis cut by `mrope_section * 2` (chunked: chunk i takes
/// axis i % 3) or, interleaved (Qwen3-VL apply_interleaved_mrope), freqs_t[1::3] / [2::3] taken
/// from the h / w axes below 3 * section before the duplication.
std::vector<long double> hf_mrope_angles(const std::vector<int64_t>& pos, int64_t T, const std::vector<double>& inv,
                                         const int32_t* sec, bool interleaved) {
  const int half = static_cast<int>(inv.size()), rot = 2 * half;
  std::vector<long double> ang(static_cast<size_t>(T * rot));
  for (int64_t t = 0; t < T; ++t) {
    auto axis_pos = [&](int a) { return static_cast<long double>(pos[a * T + t]); };
    if (!interleaved) {
      const int chunks[6] = {sec[0], sec[1], sec[2], sec[0], sec[1], sec[2]};
      int c = 0;
      for (int i = 0; i < 6; ++i)
        for (int e = 0; e < chunks[i]; ++e, ++c) ang[t * rot + c] = axis_pos(i % 3) * inv[c % half];
    } else {
      std::vector<long double> f(half);
      for (int j = 0; j < half; ++j) f[j] = axis_pos(0) * inv[j];
      for (int dim = 1; dim <= 2; ++dim)
        for (int j = dim; j < sec[dim] * 3; j += 3) f[j] = axis_pos(dim) * inv[j];
      for (int c = 0; c < rot; ++c) ang[t * rot + c] = f[c % half];
    }
  }
  return ang;
}

/// q * cos + rotate_half(q) * sin for one NEOX head (HF apply_rotary_pos_emb) in float64.
void hf_rotate_half(const double* x, double* y, int64_t head_dim, int rot, const long double* ang, double A) {
  std::copy(x, x + head_dim, y);
  const int half = rot / 2;
  for (int c = 0; c < rot; ++c) {
    const double rh = c < half ? -x[c + half] : x[c - half];
    y[c] = x[c] * static_cast<double>(A * cosl(ang[c])) + rh * static_cast<double>(A * sinl(ang[c]));
  }
}

class RopeMrope : public IsaTest {};

TEST_P(RopeMrope, ChunkedAndInterleavedMatchHfOwnConstructionWithEveryScaling) {
  int64_t T = 0;
  const auto pos = vl_positions(&T);
  const int64_t Hq = 4, Hk = 2, D = 128;
  const int rot = 128;
  struct Case { posenc_rope_params p; bool interleaved; const char* what; };
  std::vector<Case> cases;
  auto qwen25 = make_params(POSENC_ROPE_DEFAULT, rot, 1e6);
  qwen25.axes = POSENC_ROPE_AXES_MROPE;
  qwen25.sections[0] = 16; qwen25.sections[1] = 24; qwen25.sections[2] = 24;
  cases.push_back({qwen25, false, "Qwen2.5-VL [16,24,24]"});
  auto yarn = qwen25;  // YaRN + M-RoPE (Qwen3.5 style; LightLLM #1582 got this wrong)
  yarn.type = POSENC_ROPE_YARN; yarn.factor = 4; yarn.original_max_position = 32768;
  cases.push_back({yarn, false, "YaRN + M-RoPE"});
  auto qwen3 = make_params(POSENC_ROPE_DEFAULT, rot, 5e6);
  qwen3.axes = POSENC_ROPE_AXES_MROPE_INTERLEAVED;
  qwen3.sections[0] = 24; qwen3.sections[1] = 20; qwen3.sections[2] = 20;
  cases.push_back({qwen3, true, "Qwen3-VL interleaved [24,20,20]"});
  auto l3 = qwen3;
  l3.type = POSENC_ROPE_LLAMA3; l3.factor = 8; l3.original_max_position = 8192;
  cases.push_back({l3, true, "llama3 + interleaved"});
  for (const auto& cs : cases) {
    auto flat = cs.p;
    flat.axes = POSENC_ROPE_AXES_1D;
    double A = 0;
    const auto inv = inv_of(flat, &A);  // M-RoPE must not change the frequencies
    const auto ang = hf_mrope_angles(pos, T, inv, cs.p.sections, cs.interleaved);
    for (int inverse : {0, 1}) {
      std::vector<float> q = random_f32(size_t(T * Hq * D), 1), k = random_f32(size_t(T * Hk * D), 2);
      const auto q0 = q, k0 = k;
      ASSERT_EQ(posenc_rope_apply_f32(&cs.p, POSENC_ROPE_NEOX, pos.data(), T, D, q.data(), Hq, 0, k.data(), Hk, 0,
                                      inverse),
                POSENC_OK)
          << cs.what << ": " << posenc_last_error_message();
      std::vector<long double> a(ang);
      if (inverse)
        for (auto& v : a) v = -v;
      double worst = 0;
      std::vector<double> in(D), ref(D);
      for (int which = 0; which < 2; ++which) {
        const auto& x0 = which ? k0 : q0;
        const auto& x = which ? k : q;
        const int64_t H = which ? Hk : Hq;
        for (int64_t t = 0; t < T; ++t)
          for (int64_t h = 0; h < H; ++h) {
            const size_t o = size_t((t * H + h) * D);
            for (int c = 0; c < D; ++c) in[c] = x0[o + c];
            hf_rotate_half(in.data(), ref.data(), D, rot, &a[size_t(t * rot)], A);
            worst = std::max(worst, pair_rel_err(in.data(), &x[o], ref.data(), rot, 0, A));
          }
      }
      EXPECT_LE(worst, 4e-7) << cs.what << " inverse " << inverse;
    }
  }
}

TEST_P(RopeMrope, GptjPairsCosSinTableAndTextOnlyEqualsOneAxis) {
  int64_t T = 0;
  const auto pos = vl_positions(&T);
  auto p = make_params(POSENC_ROPE_YARN, 64, 1e6);
  p.original_max_position = 4096; p.factor = 2;
  p.axes = POSENC_ROPE_AXES_MROPE;
  p.sections[0] = 8; p.sections[1] = 12; p.sections[2] = 12;
  auto flat = p;
  flat.axes = POSENC_ROPE_AXES_1D;
  double A = 0;
  const auto inv = inv_of(flat, &A);
  // vLLM MRotaryEmbedding.forward_native on GPT-J pairs: cos [T, half] = cat of
  // cos.split(mrope_section) taking chunk i from axis i, pairs (2j, 2j+1).
  std::vector<long double> ang(size_t(T * 32));
  for (int64_t t = 0; t < T; ++t)
    for (int j = 0; j < 32; ++j) ang[t * 32 + j] = static_cast<long double>(pos[(j < 8 ? 0 : j < 20 ? 1 : 2) * T + t]) * inv[j];
  std::vector<float> q = random_f32(size_t(T * 3 * 80), 3);
  const auto q0 = q;
  ASSERT_EQ(posenc_rope_apply_f32(&p, POSENC_ROPE_INTERLEAVED, pos.data(), T, 80, q.data(), 3, 0, nullptr, 0, 0, 0),
            POSENC_OK);
  double worst = 0;
  std::vector<double> in(80), ref(80);
  for (int64_t t = 0; t < T; ++t)
    for (int h = 0; h < 3; ++h) {
      const size_t o = size_t((t * 3 + h) * 80);
      for (int c = 0; c < 80; ++c) in[c] = q0[o + c];
      ref_rotate_head(in.data(), ref.data(), 80, &ang[size_t(t * 32)], 64, 1, A, false);
      worst = std::max(worst, pair_rel_err(in.data(), &q[o], ref.data(), 64, 1, A));
      for (int c = 64; c < 80; ++c) ASSERT_EQ(q[o + c], q0[o + c]);
    }
  EXPECT_LE(worst, 4e-7);
  // cos/sin table [T, half] with the per-pair selection applied.
  std::vector<float> c(size_t(T * 32)), s(c.size());
  ASSERT_EQ(posenc_rope_cos_sin_f32(&p, pos.data(), T, c.data(), s.data()), POSENC_OK);
  double err = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    err = std::max(err, std::fabs(c[i] - A * static_cast<double>(cosl(ang[i]))));
    err = std::max(err, std::fabs(s[i] - A * static_cast<double>(sinl(ang[i]))));
  }
  EXPECT_LE(err, 6.5e-8 * A);
  // Text only (t = h = w): bit-identical to one-axis RoPE (scattered positions: exact anchors).
  const auto sc = scattered_positions(40, 1 << 20, 9);
  std::vector<int64_t> three(sc);
  three.insert(three.end(), sc.begin(), sc.end());
  three.insert(three.end(), sc.begin(), sc.end());
  for (int axes : {POSENC_ROPE_AXES_MROPE, POSENC_ROPE_AXES_MROPE_INTERLEAVED}) {
    p.axes = static_cast<posenc_rope_axes>(axes);
    std::vector<float> a = random_f32(40 * 2 * 64, 4), b = a;
    ASSERT_EQ(posenc_rope_apply_f32(&p, POSENC_ROPE_NEOX, three.data(), 40, 64, a.data(), 2, 0, nullptr, 0, 0, 0),
              POSENC_OK);
    ASSERT_EQ(posenc_rope_apply_f32(&flat, POSENC_ROPE_NEOX, sc.data(), 40, 64, b.data(), 2, 0, nullptr, 0, 0, 0),
              POSENC_OK);
    EXPECT_TRUE(same_bits(a, b)) << "axes " << axes;
  }
}

TEST_P(RopeMrope, StridedBatchPositionsAreAxisMajorAndBf16F16Round) {
  // positions [3, batch, seq] (HF position_ids of Qwen2-VL); q in HF's [B, H, S, D] layout.
  int64_t T = 0;
  const auto one = vl_positions(&T);  // [3, T]
  const int64_t B = 2, S = T, H = 2, D = 64;
  std::vector<int64_t> pos(size_t(3 * B * S));
  for (int a = 0; a < 3; ++a)
    for (int64_t b = 0; b < B; ++b)
      for (int64_t s = 0; s < S; ++s) pos[size_t((a * B + b) * S + s)] = one[size_t(a * T + s)] + 100 * b;
  auto p = make_params(POSENC_ROPE_DEFAULT, 64, 1e6);
  p.axes = POSENC_ROPE_AXES_MROPE;
  p.sections[0] = 8; p.sections[1] = 12; p.sections[2] = 12;
  for (int64_t b = 0; b < B; ++b) {
    // Reference: the packed apply of row b (positions [3, S]).
    std::vector<int64_t> row;
    for (int a = 0; a < 3; ++a)
      row.insert(row.end(), pos.begin() + (a * B + b) * S, pos.begin() + (a * B + b + 1) * S);
    std::vector<float> all = random_f32(size_t(B * H * S * D), 5), packed(size_t(S * H * D));
    for (int64_t s = 0; s < S; ++s)
      for (int64_t h = 0; h < H; ++h)
        std::memcpy(&packed[size_t((s * H + h) * D)], &all[size_t(((b * H + h) * S + s) * D)], D * 4);
    const posenc_rope_operand qo{all.data(), H, S * D, D, H * S * D};
    ASSERT_EQ(posenc_rope_apply_strided(&p, POSENC_ROPE_F32, POSENC_ROPE_NEOX, pos.data(), 3, B, S, D, &qo, nullptr, 0),
              POSENC_OK)
        << posenc_last_error_message();
    ASSERT_EQ(posenc_rope_apply_f32(&p, POSENC_ROPE_NEOX, row.data(), S, D, packed.data(), H, 0, nullptr, 0, 0, 0),
              POSENC_OK);
    for (int64_t s = 0; s < S; ++s)
      for (int64_t h = 0; h < H; ++h)
        ASSERT_EQ(std::memcmp(&packed[size_t((s * H + h) * D)], &all[size_t(((b * H + h) * S + s) * D)], D * 4), 0)
            << "b " << b << " s " << s << " h " << h;
  }
  // bf16 / f16 storage: the float32 result rounded once.
  std::vector<float> f = random_f32(size_t(T * 2 * 64), 6);
  std::vector<uint16_t> h16(f.size()), b16(f.size());
  for (size_t i = 0; i < f.size(); ++i) {
    h16[i] = ref_f32_to_f16(f[i]);
    f[i] = ref_f16_to_f32(h16[i]);
    uint32_t u;
    std::memcpy(&u, &f[i], 4);
    b16[i] = static_cast<uint16_t>(u >> 16);  // a bf16 input: the truncated value
  }
  std::vector<float> fb(f.size());
  for (size_t i = 0; i < f.size(); ++i) {
    const uint32_t u = uint32_t(b16[i]) << 16;
    std::memcpy(&fb[i], &u, 4);
  }
  auto ff = f;
  ASSERT_EQ(posenc_rope_apply_f16(&p, POSENC_ROPE_NEOX, one.data(), T, 64, h16.data(), 2, 0, nullptr, 0, 0, 0), POSENC_OK);
  ASSERT_EQ(posenc_rope_apply_bf16(&p, POSENC_ROPE_NEOX, one.data(), T, 64, b16.data(), 2, 0, nullptr, 0, 0, 0), POSENC_OK);
  ASSERT_EQ(posenc_rope_apply_f32(&p, POSENC_ROPE_NEOX, one.data(), T, 64, ff.data(), 2, 0, nullptr, 0, 0, 0), POSENC_OK);
  ASSERT_EQ(posenc_rope_apply_f32(&p, POSENC_ROPE_NEOX, one.data(), T, 64, fb.data(), 2, 0, nullptr, 0, 0, 0), POSENC_OK);
  size_t bad = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    bad += h16[i] != ref_f32_to_f16(ff[i]);
    uint32_t u;
    std::memcpy(&u, &fb[i], 4);
    const uint32_t r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;  // RNE to bf16 (finite values)
    bad += b16[i] != r;
  }
  EXPECT_EQ(bad, 0u);
}

// ---------------------------------------------------------------- axial (ViT)
class RopeAxial : public IsaTest {};

/// Grid positions (row, col) of an R x C image, token-major [T, 2].
std::vector<int64_t> grid(int64_t R, int64_t C) {
  std::vector<int64_t> p;
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c) { p.push_back(r); p.push_back(c); }
  return p;
}

/// Checks posenc against per-pair angles ang [T, rot/2] of a framework (layout per framework).
void check_axial(const posenc_rope_params& p, posenc_rope_layout L, const std::vector<int64_t>& pos, int naxes,
                 int64_t T, int64_t D, const std::vector<long double>& ang, const char* what) {
  const int rot = p.rotary_dim, half = rot / 2;
  std::vector<float> q = random_f32(size_t(T * 2 * D), 8);
  const auto q0 = q;
  ASSERT_EQ(posenc_rope_apply_strided(&p, POSENC_ROPE_F32, L, pos.data(), naxes, 1, T, D,
                                      std::array<posenc_rope_operand, 1>{{{q.data(), 2, 0, 0, 0}}}.data(), nullptr, 0),
            POSENC_OK)
      << what << ": " << posenc_last_error_message();
  double worst = 0;
  std::vector<double> in(D), ref(D);
  for (int64_t t = 0; t < T; ++t)
    for (int h = 0; h < 2; ++h) {
      const size_t o = size_t((t * 2 + h) * D);
      for (int c = 0; c < D; ++c) in[c] = q0[o + c];
      ref_rotate_head(in.data(), ref.data(), D, &ang[size_t(t * half)], rot, L, 1.0, false);
      worst = std::max(worst, pair_rel_err(in.data(), &q[o], ref.data(), rot, L, 1.0));
    }
  EXPECT_LE(worst, 4e-7) << what;
}

TEST_P(RopeAxial, QwenVlVisionEva02AndFluxConventions) {
  // Qwen2-VL / Qwen2.5-VL vision tower (VisionRotaryEmbedding(head_dim / 2), theta 1e4):
  // inv = 1 / theta^(arange(0, dim, 2) / dim) with dim = head_dim / 2; per token
  // cat(inv * row, inv * col), duplicated, rotate_half over the whole head (NEOX).
  {
    const int64_t D = 80, R = 5, C = 7, T = R * C;
    const int dim = 40;
    auto p = make_params(POSENC_ROPE_DEFAULT, 80, 1e4);
    p.axes = POSENC_ROPE_AXES_AXIAL;
    p.sections[0] = 20; p.sections[1] = 20;
    const auto pos = grid(R, C);
    std::vector<long double> ang(size_t(T * 40));
    for (int64_t t = 0; t < T; ++t)
      for (int j = 0; j < 40; ++j) {
        const long double inv = 1.0L / powl(10000.0L, static_cast<long double>(2 * (j % 20)) / dim);
        ang[t * 40 + j] = static_cast<long double>(pos[2 * t + (j < 20 ? 0 : 1)]) * inv;
      }
    check_axial(p, POSENC_ROPE_NEOX, pos, 2, T, D, ang, "Qwen2-VL vision");
  }
  // EVA-02 (VisionRotaryEmbeddingFast, dim = head_dim / 2, freqs_for 'lang', theta 1e4):
  // freqs = 1 / theta^(arange(0, dim, 2)[:dim/2] / dim), each repeated twice ('(n r)'), row
  // then col concatenated; rotate_half pairs adjacent channels (INTERLEAVED).
  {
    const int64_t D = 64, R = 4, C = 6, T = R * C;
    const int dim = 32;
    auto p = make_params(POSENC_ROPE_DEFAULT, 64, 1e4);
    p.axes = POSENC_ROPE_AXES_AXIAL;
    p.sections[0] = 16; p.sections[1] = 16;
    const auto pos = grid(R, C);
    std::vector<long double> ang(size_t(T * 32));
    for (int64_t t = 0; t < T; ++t)
      for (int j = 0; j < 32; ++j) {
        const long double f = 1.0L / powl(10000.0L, static_cast<long double>(2 * (j % 16)) / dim);
        ang[t * 32 + j] = static_cast<long double>(pos[2 * t + (j < 16 ? 0 : 1)]) * f;
      }
    check_axial(p, POSENC_ROPE_INTERLEAVED, pos, 2, T, D, ang, "EVA-02");
    // A fine-tuned grid (pt_seq_len 16, ft_seq_len 24): positions t * 16 / 24 = LINEAR, factor 1.5.
    p.type = POSENC_ROPE_LINEAR;
    p.factor = 1.5;
    for (auto& a : ang) a /= 1.5L;
    check_axial(p, POSENC_ROPE_INTERLEAVED, pos, 2, T, D, ang, "EVA-02 pt 16 -> ft 24");
  }
  // FLUX (EmbedND, axes_dim (16, 56, 56), theta 1e4): per axis omega = 1/theta^(arange(0, d, 2)/d),
  // angles concatenated over the axes (text index, row, col), pairs (2j, 2j+1).
  {
    const int64_t D = 128, R = 3, C = 4, T = R * C;
    auto p = make_params(POSENC_ROPE_DEFAULT, 128, 1e4);
    p.axes = POSENC_ROPE_AXES_AXIAL;
    p.sections[0] = 8; p.sections[1] = 28; p.sections[2] = 28;
    std::vector<int64_t> pos;
    for (int64_t t = 0; t < T; ++t) { pos.push_back(3); pos.push_back(t / C); pos.push_back(t % C); }
    const int dims[3] = {16, 56, 56};
    std::vector<long double> ang;
    for (int64_t t = 0; t < T; ++t)
      for (int a = 0; a < 3; ++a)
        for (int i = 0; i < dims[a] / 2; ++i)
          ang.push_back(static_cast<long double>(pos[3 * t + a]) /
                        powl(10000.0L, static_cast<long double>(2 * i) / dims[a]));
    check_axial(p, POSENC_ROPE_INTERLEAVED, pos, 3, T, D, ang, "FLUX");
  }
}

TEST_P(RopeAxial, BadSectionsAxesAndPositionRankAreRejected) {
  std::vector<float> q = random_f32(4 * 64, 1), c(4 * 32), s(4 * 32);
  const auto q0 = q;
  poison(c);
  const std::vector<int64_t> pos(12, 1);
  auto check = [&](posenc_rope_params p, const char* needle, posenc_status st = POSENC_ERR_INVALID_ARGUMENT) {
    EXPECT_POSENC_ERROR(posenc_rope_apply_f32(&p, POSENC_ROPE_NEOX, pos.data(), 4, 64, q.data(), 1, 0, nullptr, 0, 0, 0),
                        st, needle);
    EXPECT_POSENC_ERROR(posenc_rope_cos_sin_f32(&p, pos.data(), 4, c.data(), s.data()), st, needle);
  };
  auto m = make_params(POSENC_ROPE_DEFAULT, 64, 1e4);
  m.axes = POSENC_ROPE_AXES_MROPE;
  m.sections[0] = 8; m.sections[1] = 12; m.sections[2] = 10;  // sums to 30, not 32
  check(m, "sections");
  m.sections[2] = 12; m.sections[3] = 1; m.sections[0] = 7;
  check(m, "sections");
  m.sections[3] = 0; m.sections[0] = -4; m.sections[1] = 24;
  check(m, "sections");
  auto x = make_params(POSENC_ROPE_DEFAULT, 64, 1e4);
  x.axes = POSENC_ROPE_AXES_AXIAL;
  x.sections[0] = 16; x.sections[2] = 16;  // a gap
  check(x, "sections");
  x.sections[1] = 16; x.sections[2] = 0; x.type = POSENC_ROPE_NTK; x.sections[0] = 31; x.sections[1] = 1;
  check(x, "sections[1]");
  x.axes = static_cast<posenc_rope_axes>(7);
  check(x, "axes");
  // Positions of the wrong kind or rank.
  auto ok = make_params(POSENC_ROPE_DEFAULT, 64, 1e4);
  ok.axes = POSENC_ROPE_AXES_MROPE;
  ok.sections[0] = 16; ok.sections[1] = 8; ok.sections[2] = 8;
  const posenc_rope_operand qo{q.data(), 1, 0, 0, 0};
  EXPECT_POSENC_ERROR(posenc_rope_apply_strided(&ok, POSENC_ROPE_F32, POSENC_ROPE_NEOX, pos.data(), 1, 1, 4, 64, &qo,
                                                nullptr, 0),
                      POSENC_ERR_INVALID_ARGUMENT, "position_axes");
  EXPECT_POSENC_ERROR(posenc_rope_apply_strided(&ok, POSENC_ROPE_F32, POSENC_ROPE_NEOX, nullptr, 3, 1, 4, 64, &qo,
                                                nullptr, 0),
                      POSENC_ERR_NULL_POINTER, "positions");
  EXPECT_POSENC_ERROR(posenc_rope_apply_f32(&ok, POSENC_ROPE_NEOX, nullptr, 4, 64, q.data(), 1, 0, nullptr, 0, 0, 0),
                      POSENC_ERR_NULL_POINTER, "positions");
  EXPECT_POSENC_ERROR(posenc_rope_cos_sin_f32(&ok, nullptr, 4, c.data(), s.data()), POSENC_ERR_NULL_POINTER,
                      "positions");
  auto big = pos;
  big[9] = int64_t(1) << 54;  // axis 2 of token 1
  EXPECT_POSENC_ERROR(posenc_rope_apply_f32(&ok, POSENC_ROPE_NEOX, big.data(), 4, 64, q.data(), 1, 0, nullptr, 0, 0, 0),
                      POSENC_ERR_INVALID_ARGUMENT, "positions[9]");
  EXPECT_TRUE(same_bits(q, q0));
  EXPECT_EQ(count_poison(c), c.size());
}

// ---------------------------------------------------------------- frequency knobs
class RopeKnobs : public IsaTest {};

/// Long-double ports of the formulas each knob comes from (named per case), inv [d/2] and A.
struct KnobRef { std::vector<long double> inv; long double af; };

long double base_inv(const posenc_rope_params& p, int j, long double theta) {
  const long double ff = p.freq_factors ? p.freq_factors[j] : 1.0L;
  return 1.0L / (powl(theta, 2.0L * j / p.rotary_dim) * ff);
}

void expect_inv(const posenc_rope_params& p, const KnobRef& r, const char* what) {
  double af = 0;
  const auto inv = inv_of(p, &af);
  ASSERT_EQ(inv.size(), r.inv.size()) << what;
  for (size_t j = 0; j < inv.size(); ++j) {
    if (r.inv[j] == 0) EXPECT_EQ(inv[j], 0.0) << what << " j=" << j;
    else EXPECT_NEAR(inv[j] / static_cast<double>(r.inv[j]), 1.0, 2e-14) << what << " j=" << j;
  }
  EXPECT_NEAR(af, static_cast<double>(r.af), 1e-15) << what;
}

TEST_P(RopeKnobs, VllmNtkMixedAndAlphaYarnExtrapolationAttnAndGgmlFreqFactors) {
  const int d = 128, h = 64;
  for (double s : {4.0, 0.5}) {
    // vLLM NTKScalingRotaryEmbedding: fixed (mixed_b None) and mixed.
    auto p = make_params(POSENC_ROPE_NTK_VLLM, d, 1e4);
    p.factor = s;
    KnobRef r{std::vector<long double>(h), 1};
    for (int j = 0; j < h; ++j) r.inv[j] = base_inv(p, j, 1e4L * s) / powl(s, 2.0L / d);
    expect_inv(p, r, "vllm ntk fixed");
    p.mixed_b = 0.75;
    for (int j = 0; j < h; ++j)
      r.inv[j] = base_inv(p, j, 1e4L) / expl(logl(s) / powl(d / 2.0L, 0.75L) * powl(j + 1.0L, 0.75L));
    expect_inv(p, r, "vllm ntk mixed");
  }
  // vLLM DynamicNTKAlphaRotaryEmbedding (Hunyuan): base * alpha^(d/(d-2)), any seq_len.
  auto da = make_params(POSENC_ROPE_DYNAMIC, d, 1e4);
  da.alpha = 1000;
  da.seq_len = 123456;
  KnobRef ra{std::vector<long double>(h), 1};
  for (int j = 0; j < h; ++j) ra.inv[j] = base_inv(da, j, 1e4L * powl(1000.0L, d / (d - 2.0L)));
  expect_inv(da, ra, "dynamic alpha");
  // YaRN with vLLM / ggml extrapolation_factor and attn_factor, and ggml rope_freqs.
  std::vector<double> ff(h);
  for (int j = 0; j < h; ++j) ff[j] = j < 40 ? 1.0 : 1.0 + 0.25 * (j - 39);
  for (double e : {1.0, 0.5, 0.0}) {
    for (bool with_ff : {false, true}) {
      auto y = make_params(POSENC_ROPE_YARN, d, 5e5);
      y.factor = 16; y.original_max_position = 8192; y.extrapolation_factor = e; y.attn_factor = 0.9;
      if (with_ff) y.freq_factors = ff.data();
      // ggml rope_yarn_corr_dims / rope_yarn: ramp on the pair index, theta_extrap = p base^(-2i/d) / ff.
      auto corr = [&](long double rot) { return d * logl(8192.0L / (rot * 2 * kPi)) / (2 * logl(5e5L)); };
      const long double lo = std::max(0.0L, floorl(corr(32))), hi = std::min(d - 1.0L, ceill(corr(1)));
      KnobRef ry{std::vector<long double>(h), 0.9L * (0.1L * logl(16.0L) + 1)};
      for (int j = 0; j < h; ++j) {
        const long double yv = (j - lo) / std::max(0.001L, hi - lo);
        const long double mix = (1 - std::min(1.0L, std::max(0.0L, yv))) * e;
        const long double ext = base_inv(y, j, 5e5L);
        ry.inv[j] = ext / 16 * (1 - mix) + ext * mix;
      }
      expect_inv(y, ry, with_ff ? "yarn ext/attn + freq_factors" : "yarn ext/attn");
    }
  }
  // freq_factors divide the base frequency of every type (llama.cpp's Llama-3 rope_freqs).
  auto lin = make_params(POSENC_ROPE_LINEAR, d, 5e5);
  lin.factor = 2;
  lin.freq_factors = ff.data();
  KnobRef rl{std::vector<long double>(h), 1};
  for (int j = 0; j < h; ++j) rl.inv[j] = base_inv(lin, j, 5e5L) / 2;
  expect_inv(lin, rl, "linear + freq_factors");
}

TEST_P(RopeKnobs, HfProportionalFactorBelowOneAndVllmEqualLlama3Factors) {
  // HF _compute_proportional_rope_parameters (Gemma 4 full attention: head_dim 512, 0.25, 1e6):
  // rope_angles = int(prf * head_dim // 2) frequencies theta^(-2j/head_dim), zeros after, / factor.
  for (double prf : {0.25, 0.5, 1.0, 0.0, 0.3}) {
    auto p = make_params(POSENC_ROPE_PROPORTIONAL, 512, 1e6);
    p.partial_rotary_factor = prf;
    p.factor = 2;
    const int angles = static_cast<int>(std::floor(prf * 512 / 2));
    KnobRef r{std::vector<long double>(256, 0.0L), 1};
    for (int j = 0; j < angles; ++j) r.inv[j] = base_inv(p, j, 1e6L) / 2;
    expect_inv(p, r, "proportional");
  }
  // The zero frequencies leave their channels bit-identical (cos 1, sin 0).
  auto g = make_params(POSENC_ROPE_PROPORTIONAL, 64, 1e6);
  g.partial_rotary_factor = 0.25;
  std::vector<float> q = random_f32(3 * 64, 1);
  const auto q0 = q;
  const int64_t pos[3] = {5, 77, 123456};
  ASSERT_EQ(posenc_rope_apply_f32(&g, POSENC_ROPE_NEOX, pos, 3, 64, q.data(), 1, 0, nullptr, 0, 0, 0), POSENC_OK);
  for (int t = 0; t < 3; ++t)
    for (int c = 0; c < 64; ++c)
      if (c % 32 >= 8) {
        EXPECT_EQ(q[t * 64 + c], q0[t * 64 + c]) << c;  // pairs 8..31 rotate by 0
      }
  // factor < 1, which HF accepts with a warning: every formula as written (attention factor 1).
  const int d = 64, h = 32;
  auto y = make_params(POSENC_ROPE_YARN, d, 1e4);
  y.factor = 0.5; y.original_max_position = 4096;
  double af = 0;
  inv_of(y, &af);
  EXPECT_EQ(af, 1.0) << "get_mscale(scale <= 1) = 1";
  std::vector<double> sf(h, 1.0);
  auto lr = make_params(POSENC_ROPE_LONGROPE, d, 1e4);
  lr.factor = 0.5; lr.original_max_position = 4096; lr.short_factor = sf.data(); lr.long_factor = sf.data();
  inv_of(lr, &af);
  EXPECT_EQ(af, 1.0);
  auto dyn = make_params(POSENC_ROPE_DYNAMIC, d, 1e4);
  dyn.factor = 0.5; dyn.original_max_position = 4096; dyn.seq_len = 8192;
  KnobRef rd{std::vector<long double>(h), 1};
  for (int j = 0; j < h; ++j) rd.inv[j] = base_inv(dyn, j, 1e4L * powl(0.5L * 2 + 0.5L, d / (d - 2.0L)));
  expect_inv(dyn, rd, "dynamic factor 0.5");
  // vLLM Llama3RotaryEmbedding with low_freq_factor == high_freq_factor: smooth = 0.
  auto l3 = make_params(POSENC_ROPE_LLAMA3, 128, 5e5);
  l3.factor = 8; l3.original_max_position = 8192; l3.low_freq_factor = 2; l3.high_freq_factor = 2;
  KnobRef r3{std::vector<long double>(64), 1};
  for (int j = 0; j < 64; ++j) {
    const long double inv = base_inv(l3, j, 5e5L), wl = 2 * kPi / inv;
    r3.inv[j] = wl < 8192.0L / 2 ? inv : inv / 8;  // the band between the two wavelengths is empty
  }
  expect_inv(l3, r3, "llama3 lf == hf");
}

TEST_P(RopeKnobs, AxialLaddersRestartPerSectionAndNewFieldsAreValidated) {
  // AXIAL: each section's frequencies are the type's ladder for rotary dim 2 * sections[a].
  auto p = make_params(POSENC_ROPE_LINEAR, 96, 1e4);
  p.factor = 3;
  p.axes = POSENC_ROPE_AXES_AXIAL;
  p.sections[0] = 8; p.sections[1] = 20; p.sections[2] = 20;
  KnobRef r{{}, 1};
  for (int s : {8, 20, 20})
    for (int i = 0; i < s; ++i) r.inv.push_back(1.0L / powl(1e4L, 2.0L * i / (2 * s)) / 3);
  expect_inv(p, r, "axial ladders");
  std::vector<double> inv(48);
  poison(inv);
  auto bad = [&](posenc_rope_params q, const char* needle) {
    EXPECT_POSENC_ERROR(posenc_rope_inv_freq(&q, inv.data(), nullptr), POSENC_ERR_INVALID_ARGUMENT, needle);
  };
  auto y = make_params(POSENC_ROPE_YARN, 96, 1e4);
  y.original_max_position = 4096;
  auto t = y; t.extrapolation_factor = -1; bad(t, "extrapolation_factor");
  t = y; t.attn_factor = 0; bad(t, "attn_factor");
  t = make_params(POSENC_ROPE_PROPORTIONAL, 96, 1e4); t.partial_rotary_factor = 1.5; bad(t, "partial_rotary_factor");
  t = make_params(POSENC_ROPE_NTK_VLLM, 96, 1e4); t.mixed_b = -0.5; bad(t, "mixed_b");
  t = make_params(POSENC_ROPE_DYNAMIC, 96, 1e4); t.alpha = NAN; bad(t, "alpha");
  std::vector<double> ff(48, 1.0);
  ff[7] = 0;
  t = make_params(POSENC_ROPE_DEFAULT, 96, 1e4); t.freq_factors = ff.data(); bad(t, "freq_factors[7]");
  t = make_params(POSENC_ROPE_DEFAULT, 96, 1e4); t.seq_len_from_positions = 2; bad(t, "seq_len_from_positions");
  EXPECT_EQ(count_poison(inv), inv.size());
}

}  // namespace

POSENC_INSTANTIATE_ISA(RopeMrope);
POSENC_INSTANTIATE_ISA(RopeAxial);
POSENC_INSTANTIATE_ISA(RopeKnobs);
