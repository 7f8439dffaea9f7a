// SPDX-License-Identifier: Apache-2.0 OR MIT
/*
 * posenc/rope.h — the C ABI of posenc, rope section:
 * S¹: RoPE frequencies, cos/sin, rotation, sinusoidal tables, decay.
 *
 * posenc/posenc.h includes this header with the others; its opening comment states the
 * conventions every section follows. This header compiles alone, as C99 and as C++.
 */
#ifndef POSENC_ROPE_H
#define POSENC_ROPE_H

#include "posenc/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================================== */
/* rope — S¹: RoPE frequencies, cos/sin, rotation, sinusoidal tables, decay                  */
/* ======================================================================================== */

/* @@ROPE-BEGIN@@ (section owned by the rope family) */

/** Layout of a sinusoidal table row. */
typedef enum {
  POSENC_SINUSOIDAL_INTERLEAVED = 0, /**< Vaswani et al. 2017 §3.5: out[p, 2i] = sin(p w_i),
                                          out[p, 2i+1] = cos(p w_i) */
  POSENC_SINUSOIDAL_HALVES = 1,      /**< tensor2tensor / fairseq: [sin(p w_0..) | cos(p w_0..)] */
  POSENC_SINUSOIDAL_LAYOUT_MAX_ENUM_ = 0x7fffffff /**< not a layout: makes the enum 32-bit wide */
} posenc_sinusoidal_layout;

/** Sinusoidal absolute position table (Vaswani et al. 2017, §3.5).
 *
 *  out: [n, dim] float32, row i for position positions[i] (or i when positions is NULL);
 *  w_i = base^(-2i/dim) radians per position, i = 0 .. dim/2-1, evaluated in float64.
 *  The phase p*w_i is formed exactly (double-double product, reduction modulo 2*pi in turns) and
 *  sin/cos are evaluated by a polynomial on the reduced argument in float64, then rounded to
 *  float32; runs of consecutive positions (e.g. positions NULL) take float64 angle-addition steps
 *  from exact anchors re-taken at least every 16 positions (<= ~1e-14 before rounding).
 *  Accuracy: max abs error <= 2e-7 (observed <= 6e-8, i.e. float32 rounding) against
 *  float64 sin/cos of the exactly reduced phase, for |position| <= 2^24; positions up to 2^53
 *  remain exact in the phase. Unlike fp32-phase implementations (error 1e-2 at 128K, see
 *  docs/ACCURACY.md) the error does not grow with the position.
 *
 *  Errors: NULL_POINTER (out NULL while n > 0); INVALID_ARGUMENT (n < 0, dim odd or <= 0,
 *  base <= 0 or not finite, layout not a posenc_sinusoidal_layout); SIZE_OVERFLOW (n * dim
 *  overflows). n == 0 is a no-op. */
POSENC_API posenc_status posenc_sinusoidal_f32(const int64_t* positions, int64_t n, int32_t dim,
                                               double base, posenc_sinusoidal_layout layout,
                                               float* out);

/** RoPE frequency scaling types (HF transformers `modeling_rope_utils.py` ROPE_INIT_FUNCTIONS,
 *  plus the vLLM forms HF lacks). Each defines inv_freq_j (radians per position, j = 0 ..
 *  rotary_dim/2-1) and an attention_factor that multiplies cos and sin. See
 *  posenc_rope_inv_freq for the formulas. */
typedef enum {
  POSENC_ROPE_DEFAULT = 0,  /**< Su et al. 2021 (RoFormer, arXiv 2104.09864): theta^(-2j/d) */
  POSENC_ROPE_LINEAR = 1,   /**< position interpolation (Chen et al. 2023, arXiv 2306.15595) */
  POSENC_ROPE_NTK = 2,      /**< static NTK-aware base (bloc97 2023) */
  POSENC_ROPE_DYNAMIC = 3,  /**< dynamic NTK (HF "dynamic"), or vLLM's dynamic alpha */
  POSENC_ROPE_YARN = 4,     /**< YaRN (Peng et al. 2023, arXiv 2309.00071) */
  POSENC_ROPE_LONGROPE = 5, /**< LongRoPE / Phi-3 (Ding et al. 2024, arXiv 2402.13753) */
  POSENC_ROPE_LLAMA3 = 6,   /**< Llama 3.1 band-wise scaling (Meta, HF "llama3") */
  POSENC_ROPE_PROPORTIONAL = 7, /**< HF "proportional" partial rotary (Gemma 4 full-attention layers) */
  POSENC_ROPE_NTK_VLLM = 8, /**< vLLM "ntk" (NTKScalingRotaryEmbedding: fixed, or mixed with mixed_b) */
  POSENC_ROPE_TYPE_MAX_ENUM_ = 0x7fffffff /**< not a value: makes the enum 32-bit wide */
} posenc_rope_type;

/** Which channels of a head form a rotation pair. */
typedef enum {
  POSENC_ROPE_NEOX = 0,       /**< pairs (x[j], x[j + rotary_dim/2]): HF rotate_half, vLLM is_neox=True,
                                   FlashAttention interleaved=False */
  POSENC_ROPE_INTERLEAVED = 1, /**< pairs (x[2j], x[2j+1]): GPT-J, Meta's Llama reference, ggml NORMAL */
  POSENC_ROPE_LAYOUT_MAX_ENUM_ = 0x7fffffff /**< not a value: makes the enum 32-bit wide */
} posenc_rope_layout;

/** Position axes: which position of a token rotates rotary pair j (j = 0 .. rotary_dim/2-1).
 *  The frequency of pair j is inv_freq_j of the scaling type in every mode except AXIAL. */
typedef enum {
  POSENC_ROPE_AXES_1D = 0,    /**< one position per token: positions [num_tokens] */
  /** M-RoPE, chunked sections (Qwen2-VL, Qwen2.5-VL; HF apply_multimodal_rotary_pos_emb, vLLM
   *  MRotaryEmbedding with mrope_interleaved=False): positions [3, num_tokens] (temporal, height,
   *  width); pair j takes axis 0 for j < sections[0], axis 1 for j < sections[0] + sections[1],
   *  axis 2 otherwise. sections[0..2] >= 0 sum to rotary_dim/2, sections[3] == 0. */
  POSENC_ROPE_AXES_MROPE = 1,
  /** M-RoPE, interleaved sections (Qwen3-VL; HF apply_interleaved_mrope, vLLM
   *  mrope_interleaved=True): positions [3, num_tokens]; pair j takes axis 1 when j % 3 == 1 and
   *  j < 3 sections[1], axis 2 when j % 3 == 2 and j < 3 sections[2], axis 0 otherwise. Sections
   *  as for AXES_MROPE. */
  POSENC_ROPE_AXES_MROPE_INTERLEAVED = 2,
  /** Axial RoPE of vision transformers: positions [num_tokens, n] (n = number of leading
   *  non-zero sections, 1..4; for images (row, col)); pairs come in n consecutive sections of
   *  sections[a] pairs, all of section a rotated by axis a, and each section has its own
   *  frequency ladder: the scaling type's inv_freq for rotary_dim 2*sections[a], indexed from 0
   *  within the section (arrays such as freq_factors stay indexed by the global pair j).
   *  Conventions: Qwen2-VL / Qwen2.5-VL vision tower: NEOX over the whole head,
   *  sections (head_dim/4, head_dim/4), theta 10000; EVA-02: INTERLEAVED, sections
   *  (head_dim/4, head_dim/4), fine-tuned grids as LINEAR with factor ft_seq_len/pt_seq_len;
   *  FLUX: INTERLEAVED, three axes (text index, row, col) with axes_dim/2 = (8, 28, 28). */
  POSENC_ROPE_AXES_AXIAL = 3,
  POSENC_ROPE_AXES_MAX_ENUM_ = 0x7fffffff /**< not a value: makes the enum 32-bit wide */
} posenc_rope_axes;

/** RoPE parameters. Fill with posenc_rope_params_init, then set the fields of the chosen type.
 *  Lengths are in positions (tokens). Field names follow HF transformers' rope_scaling config.
 *  ABI: the struct only grows at the end. A caller compiled against posenc 0.1, whose struct
 *  ends after long_factor (struct_size == POSENC_ROPE_PARAMS_SIZE_V1, 128 bytes on LP64), keeps
 *  working: the fields it does not have take their defaults. */
typedef struct {
  uint32_t struct_size;          /**< set by _init: sizeof(posenc_rope_params), or
                                      POSENC_ROPE_PARAMS_SIZE_V1 from a 0.1 caller */
  posenc_rope_type type;         /**< scaling type */
  int32_t rotary_dim;            /**< d: rotated channels per head, even, > 0 (> 2 for NTK/DYNAMIC);
                                      for PROPORTIONAL the whole head_dim */
  double theta;                  /**< base, finite, > 0 (> 1 for YARN) */
  double factor;                 /**< s, finite, > 0 (HF accepts s < 1 with a warning); default 1
                                      (unused by DEFAULT) */
  int64_t original_max_position; /**< L: original context (YARN, LONGROPE >= 2, LLAMA3), or
                                      max_position_embeddings (DYNAMIC); > 0 where used; default 0 */
  int64_t seq_len;               /**< current length (DYNAMIC, LONGROPE); 0 = L; >= 0 */
  double low_freq_factor;        /**< LLAMA3; default 1; finite, > 0 */
  double high_freq_factor;       /**< LLAMA3; default 4; finite, >= low_freq_factor (equal: vLLM's
                                      rule, the smooth band is empty) */
  double beta_fast;              /**< YARN; default 32; finite, > beta_slow */
  double beta_slow;              /**< YARN; default 1; finite, > 0 */
  double mscale;                 /**< YARN; default 0 = unused; finite, >= 0 */
  double mscale_all_dim;         /**< YARN; default 0 = unused; finite, >= 0 */
  double attention_factor;       /**< 0 = derive from type; else (finite, > 0) used as given */
  int32_t truncate;              /**< YARN: 1 (default) floors/ceils the correction range, 0 does not */
  const double* short_factor;    /**< LONGROPE: [rotary_dim/2] finite > 0, used when seq_len <= L */
  const double* long_factor;     /**< LONGROPE: [rotary_dim/2] finite > 0, used when seq_len > L */
  /* ---- added in posenc 0.2 (absent when struct_size == POSENC_ROPE_PARAMS_SIZE_V1) ---- */
  posenc_rope_axes axes;         /**< position axes; default POSENC_ROPE_AXES_1D */
  int32_t sections[4];           /**< pairs per axis for M-RoPE / AXIAL (see posenc_rope_axes);
                                      default 0; ignored for AXES_1D */
  double partial_rotary_factor;  /**< PROPORTIONAL: fraction of the head rotated, in [0, 1]; default 1 */
  double extrapolation_factor;   /**< YARN: vLLM extrapolation_factor / ggml ext_factor, finite,
                                      >= 0; default 1 (HF: always 1) */
  double attn_factor;            /**< YARN: vLLM / ggml attn_factor, multiplies the derived
                                      attention factor; finite, > 0; default 1 */
  double mixed_b;                /**< NTK_VLLM: 0 (default) = fixed NTK, > 0 = mixed NTK exponent b */
  double alpha;                  /**< DYNAMIC: 0 (default) = HF dynamic NTK; > 0 = vLLM / Hunyuan
                                      DynamicNTKAlpha, theta' = theta alpha^(d/(d-2)); finite, >= 0 */
  const double* freq_factors;    /**< NULL (default) or [rotary_dim/2] finite > 0: ggml rope_freqs,
                                      divides theta^(-2j/d) before the type's scaling (all types) */
  int32_t seq_len_from_positions; /**< 1: each apply / cos_sin call sets seq_len = max(position) + 1
                                      over its positions (HF dynamic_rope_update, DYNAMIC and
                                      LONGROPE); 0 (default): seq_len as given */
} posenc_rope_params;

/** struct_size of a posenc 0.1 caller's posenc_rope_params (the fields up to long_factor). */
#define POSENC_ROPE_PARAMS_SIZE_V1 ((uint32_t)offsetof(posenc_rope_params, axes))

/** Fills *p with the defaults of every field (factor 1, original_max_position 0, seq_len 0,
 *  low/high_freq_factor 1/4, beta_fast/slow 32/1, mscale/mscale_all_dim/attention_factor 0,
 *  truncate 1, short/long_factor NULL, axes 1D, sections 0, partial_rotary_factor 1,
 *  extrapolation_factor 1, attn_factor 1, mixed_b 0, alpha 0, freq_factors NULL,
 *  seq_len_from_positions 0) and the given type, rotary_dim and theta.
 *  Errors: NULL_POINTER (p NULL); INVALID_ARGUMENT (type not a posenc_rope_type, rotary_dim odd
 *  or <= 0, theta not finite or <= 0). On error *p is untouched. */
POSENC_API posenc_status posenc_rope_params_init(posenc_rope_params* p, posenc_rope_type type,
                                                 int32_t rotary_dim, double theta);

/** RoPE frequencies and attention factor, in float64, as HF transformers
 *  modeling_rope_utils.py (_compute_*_parameters) and, where named, vLLM's rotary_embedding/.
 *  With d = rotary_dim, j = 0 .. d/2-1, inv_j = theta^(-2j/d) / ff_j (evaluated as
 *  1 / (theta^(2j/d) ff_j); ff = freq_factors, 1 when NULL), s = factor, L = original_max_position:
 *   - DEFAULT:  inv_j;                                   attention_factor 1
 *   - LINEAR:   inv_j / s;                               1
 *   - NTK:      theta' = theta * s^(d/(d-2));            1
 *   - DYNAMIC:  L' = max(seq_len, L), theta' = theta * (s L'/L - (s-1))^(d/(d-2));  1.
 *               With alpha > 0 (vLLM DynamicNTKAlphaRotaryEmbedding): theta' = theta
 *               alpha^(d/(d-2)) for every seq_len (factor unused)
 *   - YARN:     corr(r) = d ln(L/(2 pi r)) / (2 ln theta); low = floor(corr(beta_fast)),
 *               high = ceil(corr(beta_slow)) (no rounding when truncate = 0), clamped to
 *               [0, d-1]; high += 0.001 when low == high; ramp_j = clamp((j-low)/(high-low), 0, 1);
 *               mask_j = (1 - ramp_j) e with e = extrapolation_factor (vLLM; HF: e = 1);
 *               inv'_j = (inv_j/s)(1 - mask_j) + inv_j mask_j;
 *               attention_factor = a mscale(s, mscale)/mscale(s, mscale_all_dim) when both are
 *               set, else a mscale(s, 1), with mscale(s, m) = 0.1 m ln s + 1 (1 when s <= 1) and
 *               a = attn_factor (vLLM, ggml; HF: a = 1)
 *   - LONGROPE: inv'_j = 1 / (ext_j theta^(2j/d) ff_j), ext = long_factor if seq_len > L else
 *               short_factor; attention_factor sqrt(1 + ln s / ln L) (1 when s <= 1)
 *   - LLAMA3:   wavelen_j = 2 pi / inv_j; kept when wavelen_j < L/high_freq_factor, divided by s
 *               when wavelen_j > L/low_freq_factor, else with smooth = (L/wavelen_j - lf)/(hf - lf)
 *               (0 when lf == hf, vLLM) inv'_j = (1 - smooth) inv_j/s + smooth inv_j;
 *               attention_factor 1
 *   - PROPORTIONAL: n = floor(partial_rotary_factor d / 2) rotated pairs: inv'_j = inv_j / s for
 *               j < n, 0 (cos 1, sin 0: channels unchanged) for j >= n; attention_factor 1.
 *               d is the whole head_dim (HF _compute_proportional_rope_parameters)
 *   - NTK_VLLM: mixed_b = 0: inv'_j = (theta s)^(-2j/d) / (s^(2/d) ff_j); mixed_b = b > 0:
 *               inv'_j = inv_j / s^(((j+1)/(d/2))^b)  (vLLM NTKScalingRotaryEmbedding); 1
 *  For AXES_AXIAL the formula runs once per section a with d = 2 sections[a] (see
 *  posenc_rope_axes). A non-zero p->attention_factor replaces the derived one for every type.
 *  inv_freq: [rotary_dim/2] radians per position. attention_factor may be NULL.
 *  Accuracy: a few ulp of float64 evaluation of the formulas above.
 *  Errors: NULL_POINTER (p or inv_freq NULL); INVALID_ARGUMENT (struct_size neither
 *  sizeof(posenc_rope_params) nor POSENC_ROPE_PARAMS_SIZE_V1, any field out of the range
 *  documented in posenc_rope_params, longrope factors or freq_factors missing or not finite > 0,
 *  sections that do not sum to rotary_dim/2); the message names the field. Nothing is written
 *  on error. */
POSENC_API posenc_status posenc_rope_inv_freq(const posenc_rope_params* p, double* inv_freq,
                                              double* attention_factor);

/** cos/sin table for RoPE: cos_out[i, j] = a * cos(x_ij * inv_freq_j),
 *  sin_out[i, j] = a * sin(x_ij * inv_freq_j), a = attention_factor, both [n, rotary_dim/2]
 *  float32 row-major (the vLLM/FlashInfer cos_sin_cache layout split in two arrays; for M-RoPE
 *  the per-pair selection of HF / vLLM already applied), x_ij = the position of row i on the
 *  axis of pair j (posenc_rope_axes). positions: [n] (AXES_1D; NULL = 0 .. n-1), [3, n] (M-RoPE)
 *  or [n, axes] (AXIAL); every |position| <= 2^53. With p->seq_len_from_positions, seq_len =
 *  max(position) + 1 over this call's positions.
 *  Method: inv_freq in float64 (posenc_rope_inv_freq), phase reduced exactly in turns
 *  (double-double), float64 polynomial; for AXES_1D, runs of consecutive positions use float64
 *  angle-addition steps from exact anchors taken at least every 16 positions. Accuracy: max abs
 *  error <= 2e-7 * a for |position| <= 2^24 (observed <= 6e-8 * a, the float32 rounding),
 *  against float64 cos/sin of the exactly reduced phase; positions up to 2^53 stay exact in the
 *  phase.
 *  Errors: those of posenc_rope_inv_freq; INVALID_ARGUMENT (n < 0, |position| > 2^53);
 *  NULL_POINTER (cos_out/sin_out NULL while n > 0, positions NULL with M-RoPE / AXIAL);
 *  SIZE_OVERFLOW (n * rotary_dim/2). */
POSENC_API posenc_status posenc_rope_cos_sin_f32(const posenc_rope_params* p, const int64_t* positions,
                                                 int64_t n, float* cos_out, float* sin_out);

/** Rotary position embedding applied in place (Su et al. 2021, RoFormer eq. 34; HF
 *  apply_rotary_pos_emb; M-RoPE: HF apply_multimodal_rotary_pos_emb, vLLM MRotaryEmbedding).
 *  q: [num_tokens, num_q_heads, head_dim], k: [num_tokens, num_k_heads, head_dim] (GQA: any
 *  num_k_heads), token i of q at q + i*q_token_stride (elements; 0 = packed =
 *  num_q_heads*head_dim, else >= num_q_heads*head_dim: e.g. rows of a fused QKV buffer), same
 *  for k; heads of a token are head_dim apart (posenc_rope_apply_strided takes any head, token
 *  and batch strides). k may be NULL (then num_k_heads must be 0). positions: [num_tokens]
 *  (AXES_1D), [3, num_tokens] (M-RoPE) or [num_tokens, axes] (AXIAL), see posenc_rope_axes.
 *  Channels [0, rotary_dim) of each head are rotated in pairs given by layout (rotary_dim =
 *  p->rotary_dim <= head_dim), channels >= rotary_dim are untouched. Each pair (a, b) at angle
 *  t = x*inv_freq_j (x the pair's position) becomes (a c - b s, a s + b c) with c = A cos t,
 *  s = A sin t, A = attention_factor, both rounded to float32 first; inverse != 0 uses -s
 *  instead (the transpose: the backward pass, FlashAttention conjugate=True; with A = 1 it
 *  undoes the forward rotation, in general it multiplies by A^2; posenc_rope_plan_rerotate
 *  divides by A). cos/sin are computed once per token (as posenc_rope_cos_sin_f32) and shared by
 *  all Q and K heads; each token's Q and K are rotated in the same pass. q and k must not overlap.
 *  Accuracy: float32 arithmetic on float32 cos/sin within 6e-8*A of exact: |error| <=
 *  4e-7 (|a| + |b|) max(A, 1) per element against a float64 rotation (asserted by the tests).
 *  Errors: those of posenc_rope_inv_freq; INVALID_ARGUMENT (layout, num_tokens < 0, head_dim
 *  < rotary_dim, heads < 0, stride < 0 or 0 < stride < heads*head_dim, |position| > 2^53);
 *  NULL_POINTER (positions or q NULL while needed, k NULL with num_k_heads > 0);
 *  SIZE_OVERFLOW (buffer extents). On error q and k are untouched. */
POSENC_API posenc_status posenc_rope_apply_f32(const posenc_rope_params* p, posenc_rope_layout layout,
                                               const int64_t* positions, int64_t num_tokens,
                                               int64_t head_dim, float* q, int64_t num_q_heads,
                                               int64_t q_token_stride, float* k, int64_t num_k_heads,
                                               int64_t k_token_stride, int32_t inverse);

/** As posenc_rope_apply_f32 with cos/sin rows read from a caller's table (vLLM / FlashInfer
 *  cos_sin_cache style): cos_table, sin_table [table_rows, rotary_dim/2] float32, row r holding
 *  the (already scaled) cos/sin of position r; token i uses row positions[i]. rotary_dim: even,
 *  > 0, <= head_dim. With a table from posenc_rope_cos_sin_f32 the result equals
 *  posenc_rope_apply_f32's bit for bit whenever both computed the same cos/sin values (always
 *  for non-consecutive positions and for runs starting at multiples of 16; else within one
 *  float32 ulp of cos/sin).
 *  Errors: INVALID_ARGUMENT (a position outside [0, table_rows), table_rows < 0, rotary_dim odd,
 *  <= 0 or > head_dim, and the apply rules above); NULL_POINTER (tables NULL while num_tokens >
 *  0). Positions are all checked before anything is touched. */
POSENC_API posenc_status posenc_rope_apply_cached_f32(const float* cos_table, const float* sin_table,
                                                      int64_t table_rows, int32_t rotary_dim,
                                                      posenc_rope_layout layout, const int64_t* positions,
                                                      int64_t num_tokens, int64_t head_dim, float* q,
                                                      int64_t num_q_heads, int64_t q_token_stride, float* k,
                                                      int64_t num_k_heads, int64_t k_token_stride,
                                                      int32_t inverse);

/** As posenc_rope_apply_f32 on bfloat16 storage: q and k hold bf16 bit patterns (the upper 16
 *  bits of an IEEE float32). Each element is widened to float32 exactly, rotated in float32 with
 *  the same float32 cos/sin, and rounded back to bf16 to nearest, ties to even (NaN stays a quiet
 *  NaN). Accuracy: the float32 result rounded once (<= 2^-9 relative per element).
 *  Errors and arguments: as posenc_rope_apply_f32. */
POSENC_API posenc_status posenc_rope_apply_bf16(const posenc_rope_params* p, posenc_rope_layout layout,
                                                const int64_t* positions, int64_t num_tokens,
                                                int64_t head_dim, uint16_t* q, int64_t num_q_heads,
                                                int64_t q_token_stride, uint16_t* k, int64_t num_k_heads,
                                                int64_t k_token_stride, int32_t inverse);

/** As posenc_rope_apply_f32 on IEEE 754 binary16 storage (fp16 bit patterns: torch.float16,
 *  numpy.float16, ggml F16). Each element is widened to float32 exactly (subnormals, infinities
 *  and NaNs included), rotated in float32 with the same float32 cos/sin, and rounded back to
 *  binary16 to nearest, ties to even (overflow to +-infinity, gradual underflow; a NaN stays a
 *  quiet NaN). The conversions are the hardware ones (VCVTPH2PS / VCVTPS2PH: F16C, which the
 *  AVX2 path requires and every AVX2 CPU has, and AVX-512F; no AVX-512-FP16; FCVTL/FCVTN on NEON;
 *  integer bit operations on the scalar path) and are exact under flush-to-zero modes.
 *  Accuracy: the float32 result rounded once (<= 2^-11 relative per element in the normal range).
 *  Errors and arguments: as posenc_rope_apply_f32. */
POSENC_API posenc_status posenc_rope_apply_f16(const posenc_rope_params* p, posenc_rope_layout layout,
                                               const int64_t* positions, int64_t num_tokens,
                                               int64_t head_dim, uint16_t* q, int64_t num_q_heads,
                                               int64_t q_token_stride, uint16_t* k, int64_t num_k_heads,
                                               int64_t k_token_stride, int32_t inverse);

/** Storage type of q and k in the strided / plan functions. */
typedef enum {
  POSENC_ROPE_F32 = 0,  /**< IEEE binary32 (float) */
  POSENC_ROPE_BF16 = 1, /**< bfloat16 bit patterns (uint16_t), as posenc_rope_apply_bf16 */
  POSENC_ROPE_F16 = 2,  /**< IEEE binary16 bit patterns (uint16_t), as posenc_rope_apply_f16 */
  POSENC_ROPE_DTYPE_MAX_ENUM_ = 0x7fffffff /**< not a value: makes the enum 32-bit wide */
} posenc_rope_dtype;

/** One strided Q or K operand of [batch, seq, num_heads, head_dim] logical shape: element
 *  (b, s, h, c) is at data + b*batch_stride + s*token_stride + h*head_stride + c (elements of
 *  the dtype; channels are contiguous). A zero stride means packed: head_stride 0 = head_dim,
 *  token_stride 0 = num_heads * head_stride, batch_stride 0 = seq * token_stride (after
 *  resolving the inner ones). Examples with B, S, H, D: [B, S, H, D] contiguous: all 0;
 *  HF's [B, H, S, D] (after transpose): head_stride S*D, token_stride D, batch_stride H*S*D;
 *  a fused QKV buffer [T, (Hq + 2 Hk) D] (batch 1, seq T): q = buf, k = buf + Hq*D, both with
 *  token_stride (Hq + 2 Hk) D. Strides must be >= 0 and, sorted by size, each at least the
 *  extent of the dimensions inside it (no two elements of the operand share an address). */
typedef struct {
  void* data;           /**< element (0, 0, 0, 0); may be NULL only when num_heads == 0 */
  int64_t num_heads;    /**< >= 0 */
  int64_t head_stride;  /**< elements between heads; 0 = head_dim */
  int64_t token_stride; /**< elements between consecutive tokens of a sequence; 0 = packed */
  int64_t batch_stride; /**< elements between sequences; 0 = packed */
} posenc_rope_operand;

/** A reusable RoPE plan: the validated parameters with inv_freq, its double-double phase
 *  increments and the attention factor derived once (per regime for LONGROPE), so that an
 *  apply call only computes cos/sin and rotates. Immutable after creation: one plan may be
 *  used by many threads at once. Opaque; create with posenc_rope_plan_create. */
typedef struct posenc_rope_plan posenc_rope_plan;

/** Creates a plan from *p (copied, including the arrays short_factor, long_factor and
 *  freq_factors: *p and its arrays may be freed after the call). *plan receives the new plan;
 *  release it with posenc_rope_plan_destroy.
 *  Errors: those of posenc_rope_inv_freq; NULL_POINTER (p or plan NULL); OUT_OF_MEMORY.
 *  On error *plan is untouched. */
POSENC_API posenc_status posenc_rope_plan_create(const posenc_rope_params* p, posenc_rope_plan** plan);

/** Releases a plan. NULL is a no-op. */
POSENC_API void posenc_rope_plan_destroy(posenc_rope_plan* plan);

/** The plan's inv_freq [rotary_dim/2] and attention factor for the regime of its seq_len
 *  (as posenc_rope_inv_freq on the params it was made from). attention_factor may be NULL.
 *  Errors: NULL_POINTER (plan or inv_freq NULL). */
POSENC_API posenc_status posenc_rope_plan_inv_freq(const posenc_rope_plan* plan, double* inv_freq,
                                                   double* attention_factor);

/** RoPE in place on strided Q/K of logical shape [batch, seq, heads, head_dim] (see
 *  posenc_rope_operand), any storage dtype, with a plan. The rotation, its accuracy and the
 *  meaning of layout and inverse are those of posenc_rope_apply_f32 (_bf16, _f16 for the other
 *  dtypes): results are bit-identical to those functions on the same values.
 *  positions: AXES_1D: [batch, seq] (NULL: every sequence has positions 0 .. seq-1); M-RoPE:
 *  [3, batch, seq]; AXIAL: [batch, seq, axes]. position_axes: the number of axes the caller's
 *  positions array has, which must be 1, 3 or the plan's number of sections respectively (a
 *  guard against passing one kind of positions to a plan of another). q or k may be NULL (no
 *  operand) or have num_heads 0. With seq_len_from_positions, seq_len = max(position) + 1 over
 *  all of this call's positions.
 *  Errors: INVALID_ARGUMENT (dtype, layout, position_axes, batch < 0, seq < 0, head_dim <
 *  rotary_dim, num_heads < 0, a stride < 0, strides that make two elements of an operand share
 *  an address (the message names the stride), |position| > 2^53); NULL_POINTER (plan NULL,
 *  positions NULL for M-RoPE / AXIAL, data NULL with num_heads > 0); SIZE_OVERFLOW (extents).
 *  On error q and k are untouched. */
POSENC_API posenc_status posenc_rope_plan_apply(const posenc_rope_plan* plan, posenc_rope_dtype dtype,
                                                posenc_rope_layout layout, const int64_t* positions,
                                                int32_t position_axes, int64_t batch, int64_t seq,
                                                int64_t head_dim, const posenc_rope_operand* q,
                                                const posenc_rope_operand* k, int32_t inverse);

/** RoPE out of place: q and k are read (never written) and their rotations written to q_out and
 *  k_out, with a plan. Every operand is strided as posenc_rope_operand describes, independently
 *  (e.g. q HF's transposed view [B, H, S, D], q_out packed [B, S, H, D]); all have the dtype,
 *  batch, seq and head_dim of the call, and q_out / k_out the num_heads of q / k. The rotation,
 *  positions, position_axes, layout, inverse and accuracy are those of posenc_rope_plan_apply,
 *  and the results are bit-identical to posenc_rope_plan_apply run in place on a copy of q and k
 *  (any ISA path, any thread count); the channels [rotary_dim, head_dim) of each head are copied
 *  unchanged. q_out must be given exactly when q is (NULL with q NULL), likewise k_out with k.
 *  Aliasing: an output may be exactly its input (same data, and the same strides wherever the
 *  extent is > 1): that operand is rotated in place as posenc_rope_plan_apply does. Otherwise
 *  the address range of an output (first to last element) must not intersect that of q, k or
 *  the other output: such calls are rejected (INVALID_ARGUMENT naming both operands), including
 *  disjoint interleavings such as q_out and k_out inside one fused buffer.
 *  Cost: one read of the inputs and one write of the outputs (no copy pass): the autograd ops of
 *  posenc.torch return new tensors this way.
 *  Errors: those of posenc_rope_plan_apply for q, k, q_out and k_out (the message names the
 *  operand); NULL_POINTER (q_out NULL with q given, k_out NULL with k given); INVALID_ARGUMENT
 *  (q_out given with q NULL, k_out with k NULL, num_heads of an output differing from its
 *  input's, outputs overlapping as above). On error nothing is written. */
POSENC_API posenc_status posenc_rope_plan_apply_out(const posenc_rope_plan* plan, posenc_rope_dtype dtype,
                                                    posenc_rope_layout layout, const int64_t* positions,
                                                    int32_t position_axes, int64_t batch, int64_t seq,
                                                    int64_t head_dim, const posenc_rope_operand* q,
                                                    const posenc_rope_operand* k, const posenc_rope_operand* q_out,
                                                    const posenc_rope_operand* k_out, int32_t inverse);

/** As posenc_rope_plan_apply with the parameters given directly (a plan is made for the call).
 *  Errors: those of posenc_rope_plan_create and posenc_rope_plan_apply. */
POSENC_API posenc_status posenc_rope_apply_strided(const posenc_rope_params* p, posenc_rope_dtype dtype,
                                                   posenc_rope_layout layout, const int64_t* positions,
                                                   int32_t position_axes, int64_t batch, int64_t seq,
                                                   int64_t head_dim, const posenc_rope_operand* q,
                                                   const posenc_rope_operand* k, int32_t inverse);

/** Re-rotation in one pass: Q/K that were rotated with plan `from` become rotated with plan
 *  `to`, x <- (A_to / A_from) R(theta_to - theta_from) x, where R(theta) is the forward rotation
 *  of posenc_rope_apply_f32 and A the attention factors: the exact inverse of `from` followed by
 *  `to`, fused. The angle x*(inv_to_j - inv_from_j) is the difference of the two exactly
 *  reduced phases, rotated once in float32 (one rounding of the data instead of two). This is
 *  the LongRoPE regime switch: when a sequence grows past original_max_position, K cached with
 *  the short factors must be re-rotated with the long ones (transformers #33129, vLLM #27431,
 *  llama.cpp #24875): from = the LONGROPE params with seq_len <= L, to = with seq_len > L. Each
 *  plan uses its own seq_len (seq_len_from_positions is not applied here).
 *  Arguments as posenc_rope_plan_apply; both plans must have the same rotary_dim, axes and
 *  sections. Accuracy: as one posenc_rope_apply_f32 with A = A_to/A_from, against the float64
 *  composition of the two rotations.
 *  Errors: those of posenc_rope_plan_apply; INVALID_ARGUMENT (plans that differ in rotary_dim,
 *  axes or sections). On error q and k are untouched. */
POSENC_API posenc_status posenc_rope_plan_rerotate(const posenc_rope_plan* from, const posenc_rope_plan* to,
                                                   posenc_rope_dtype dtype, posenc_rope_layout layout,
                                                   const int64_t* positions, int32_t position_axes,
                                                   int64_t batch, int64_t seq, int64_t head_dim,
                                                   const posenc_rope_operand* q, const posenc_rope_operand* k);

/** Long-range decay of RoPE (seed theory; RoFormer arXiv 2104.09864 §3.4.3):
 *  f[i] = sum_{j<num_freqs} cos(n_i * inv_freq[j]) with n_i = n_begin + i*n_step, i < count, and,
 *  if bound is not NULL, bound[i] = (1/num_freqs) * sum_{j=1..num_freqs} |S_j(n_i)|,
 *  S_j(n) = sum_{k<j} exp(i n inv_freq[k]) (RoFormer's plotted bound (2/d) sum |S_j|).
 *  inv_freq: [num_freqs] radians per unit n (e.g. from posenc_rope_inv_freq), finite.
 *  f, bound: [count] float64.
 *  Method: n is cut into tiles of 512 values (independent of the thread count: results are
 *  bitwise identical for any thread count); per tile and frequency an exact anchor (phase
 *  reduced exactly in turns) and a SIMD rotation recurrence by the exactly computed step angle.
 *  f alone uses the Chebyshev recurrence c_{k+1} = 2 cos(n_step w) c_k - c_{k-1} across
 *  frequency lanes; with the bound, lanes are consecutive n and frequencies run in order (prefix
 *  sums), with complex rotations and one square root per term (~13x the time of f alone; f then
 *  comes from that pass and may differ from the f-only result in the last bits).
 *  Accuracy: max abs error <= 1e-9 * num_freqs (observed 2.8e-11 for num_freqs 4096).
 *  Errors: INVALID_ARGUMENT (num_freqs <= 0, count < 0, inv_freq not finite, any |n_i| > 2^53
 *  or n_begin + (count-1)*n_step overflowing); NULL_POINTER (inv_freq NULL, f NULL while
 *  count > 0); SIZE_OVERFLOW (count * 8 bytes beyond the address space). Nothing is written on
 *  error. */
POSENC_API posenc_status posenc_rope_decay_f64(const double* inv_freq, int32_t num_freqs, int64_t n_begin,
                                               int64_t n_step, int64_t count, double* f, double* bound);

/* @@ROPE-END@@ */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* POSENC_ROPE_H */
