// SPDX-License-Identifier: Apache-2.0 OR MIT
// RoPE of current models: M-RoPE at the Qwen2.5-VL-7B shape, fp16 storage at the Llama-3.1-8B
// shape (each against memcpy of the same bytes), and the one-token decode call with a plan
// against the same call with params and against apply_cached (bench/torch_rope_models.py holds
// the torch anchors).
#include "bench/bench_common.hpp"

#include <cstring>
#include <vector>

using namespace posenc_bench;

namespace {

int64_t tokens(benchmark::State& st) { return smoke() ? 16 : st.range(0); }

// Qwen2.5-VL-7B: 28 Q heads, 4 K heads, head_dim 128, mrope_section [16, 24, 24], theta 1e6.
constexpr int64_t kVlQ = 28, kVlK = 4, kHd = 128;

posenc_rope_params qwen25vl() {
  posenc_rope_params p;
  posenc_rope_params_init(&p, POSENC_ROPE_DEFAULT, 128, 1000000.0);
  p.axes = POSENC_ROPE_AXES_MROPE;
  p.sections[0] = 16;
  p.sections[1] = 24;
  p.sections[2] = 24;
  return p;
}

/// [3, T] positions of an image of 64-wide rows after a 16-token text prefix (as Qwen2-VL's
/// get_rope_index builds them: text tokens share one position on all three axes).
std::vector<int64_t> mrope_positions(int64_t T) {
  std::vector<int64_t> pos(static_cast<size_t>(3 * T));
  for (int64_t t = 0; t < T; ++t) {
    const bool text = t < 16;
    const int64_t i = t - 16;
    pos[t] = text ? t : 16;
    pos[T + t] = text ? t : 16 + i / 64;
    pos[2 * T + t] = text ? t : 16 + i % 64;
  }
  return pos;
}

// posenc_rope_apply_f32 with M-RoPE positions on q [T, 28, 128], k [T, 4, 128]. Args: tokens.
void BM_rope_mrope_apply_f32(benchmark::State& st) {
  const int64_t T = tokens(st);
  const auto p = qwen25vl();
  const auto pos = mrope_positions(T);
  std::vector<float> q(static_cast<size_t>(T * kVlQ * kHd), 1.0f), k(static_cast<size_t>(T * kVlK * kHd), 1.0f);
  int inverse = 0;
  for (auto _ : st) {
    if (!ok(st, posenc_rope_apply_f32(&p, POSENC_ROPE_NEOX, pos.data(), T, kHd, q.data(), kVlQ, 0, k.data(), kVlK, 0,
                                      inverse)))
      return;
    inverse ^= 1;
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(st.iterations() * 2 * T * (kVlQ + kVlK) * kHd * 4);  // read + write, as memcpy_anchor
  st.SetItemsProcessed(st.iterations() * T);
  label(st);
}
void BM_rope_mrope_memcpy(benchmark::State& st) {
  memcpy_anchor(st, static_cast<size_t>(tokens(st) * (kVlQ + kVlK) * kHd * 4));
}

// Llama-3.1-8B: 32 Q + 8 K heads, head_dim 128, llama3 scaling.
constexpr int64_t kQ = 32, kK = 8;
posenc_rope_params llama31() {
  posenc_rope_params p;
  posenc_rope_params_init(&p, POSENC_ROPE_LLAMA3, 128, 500000.0);
  p.factor = 8;
  p.original_max_position = 8192;
  return p;
}

// posenc_rope_apply_f16 (binary16 storage) on the Llama-3.1-8B shape. Args: tokens.
void BM_rope_apply_f16(benchmark::State& st) {
  const int64_t T = tokens(st);
  const auto p = llama31();
  std::vector<int64_t> pos(static_cast<size_t>(T));
  for (int64_t t = 0; t < T; ++t) pos[t] = t;
  std::vector<uint16_t> q(static_cast<size_t>(T * kQ * kHd), 0x3c00), k(static_cast<size_t>(T * kK * kHd), 0x3c00);
  int inverse = 0;
  for (auto _ : st) {
    if (!ok(st, posenc_rope_apply_f16(&p, POSENC_ROPE_NEOX, pos.data(), T, kHd, q.data(), kQ, 0, k.data(), kK, 0,
                                      inverse)))
      return;
    inverse ^= 1;
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(st.iterations() * 2 * T * (kQ + kK) * kHd * 2);
  st.SetItemsProcessed(st.iterations() * T);
  label(st);
}
void BM_rope_f16_memcpy(benchmark::State& st) { memcpy_anchor(st, static_cast<size_t>(tokens(st) * (kQ + kK) * kHd * 2)); }

// One decode token at position 70000 (past original_max_position), 32 Q + 8 K heads, float32:
// Arg 0 = posenc_rope_plan_apply with a plan made once; 1 = posenc_rope_apply_f32 with params
// (inv_freq derived in the call); 2 = posenc_rope_apply_cached_f32 from a precomputed row.
void BM_rope_decode_call(benchmark::State& st) {
  const int mode = static_cast<int>(st.range(0));
  const auto p = llama31();
  posenc_rope_plan* plan = nullptr;
  if (!ok(st, posenc_rope_plan_create(&p, &plan))) return;
  const int64_t pos = 70000, row0 = 0;
  std::vector<float> q(static_cast<size_t>(kQ * kHd), 1.0f), k(static_cast<size_t>(kK * kHd), 1.0f);
  std::vector<float> ct(64), sn(64);
  if (!ok(st, posenc_rope_cos_sin_f32(&p, &pos, 1, ct.data(), sn.data()))) return;
  posenc_rope_operand qo{q.data(), kQ, 0, 0, 0}, ko{k.data(), kK, 0, 0, 0};
  int inverse = 0;
  for (auto _ : st) {
    posenc_status s;
    if (mode == 0)
      s = posenc_rope_plan_apply(plan, POSENC_ROPE_F32, POSENC_ROPE_NEOX, &pos, 1, 1, 1, kHd, &qo, &ko, inverse);
    else if (mode == 1)
      s = posenc_rope_apply_f32(&p, POSENC_ROPE_NEOX, &pos, 1, kHd, q.data(), kQ, 0, k.data(), kK, 0, inverse);
    else
      s = posenc_rope_apply_cached_f32(ct.data(), sn.data(), 1, 128, POSENC_ROPE_NEOX, &row0, 1, kHd, q.data(), kQ, 0,
                                       k.data(), kK, 0, inverse);
    if (!ok(st, s)) break;
    inverse ^= 1;
    benchmark::ClobberMemory();
  }
  posenc_rope_plan_destroy(plan);
  st.SetLabel(mode == 0 ? "plan_apply" : mode == 1 ? "apply_f32(params)" : "apply_cached_f32");
}

// q [1, 32, T, 128] and k [1, 8, T, 128] in HF's transposed layout (views of [1, T, H*128]
// projections), float32, plan made once. Args: tokens, mode: 0 = posenc_rope_plan_apply in place;
// 1 = posenc_rope_plan_apply_out into packed [1, T, H, 128] outputs (what posenc.torch calls);
// 2 = memcpy of q and k into those outputs, then the in-place call on them (clone + in-place,
// the anchor the out-of-place call replaces).
void BM_rope_plan_apply_out(benchmark::State& st) {
  const int64_t T = tokens(st);
  const int mode = static_cast<int>(st.range(1));
  const auto p = llama31();
  posenc_rope_plan* plan = nullptr;
  if (!ok(st, posenc_rope_plan_create(&p, &plan))) return;
  std::vector<int64_t> pos(static_cast<size_t>(T));
  for (int64_t t = 0; t < T; ++t) pos[static_cast<size_t>(t)] = t;
  std::vector<float> q(static_cast<size_t>(T * kQ * kHd), 1.0f), k(static_cast<size_t>(T * kK * kHd), 1.0f);
  std::vector<float> qo(q.size(), 0.0f), ko(k.size(), 0.0f);  // written once here: no first touch timed
  const posenc_rope_operand qi{q.data(), kQ, kHd, kQ * kHd, 0}, ki{k.data(), kK, kHd, kK * kHd, 0};
  const posenc_rope_operand qp{qo.data(), kQ, 0, 0, 0}, kp{ko.data(), kK, 0, 0, 0};
  for (auto _ : st) {
    posenc_status s;
    if (mode == 0) {
      s = posenc_rope_plan_apply(plan, POSENC_ROPE_F32, POSENC_ROPE_NEOX, pos.data(), 1, 1, T, kHd, &qi, &ki, 0);
    } else if (mode == 1) {
      s = posenc_rope_plan_apply_out(plan, POSENC_ROPE_F32, POSENC_ROPE_NEOX, pos.data(), 1, 1, T, kHd, &qi, &ki, &qp,
                                     &kp, 0);
    } else {
      std::memcpy(qo.data(), q.data(), q.size() * sizeof(float));
      std::memcpy(ko.data(), k.data(), k.size() * sizeof(float));
      s = posenc_rope_plan_apply(plan, POSENC_ROPE_F32, POSENC_ROPE_NEOX, pos.data(), 1, 1, T, kHd, &qi, &ki, 0);
    }
    if (!ok(st, s)) break;
    benchmark::ClobberMemory();
  }
  posenc_rope_plan_destroy(plan);
  st.SetBytesProcessed(st.iterations() * T * (kQ + kK) * kHd * 4 * (mode == 0 ? 2 : mode == 1 ? 2 : 4));
  st.SetLabel(mode == 0 ? "in_place" : mode == 1 ? "out_of_place" : "memcpy+in_place");
}

}  // namespace

BENCHMARK(BM_rope_mrope_apply_f32)->Arg(4096)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_rope_mrope_memcpy)->Arg(4096)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_rope_apply_f16)->Arg(4096)->Arg(64)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_rope_f16_memcpy)->Arg(4096)->Arg(64)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_rope_decode_call)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_rope_plan_apply_out)->ArgsProduct({{1, 64, 4096}, {0, 1, 2}})->ArgNames({"T", "mode"})
    ->Unit(benchmark::kMicrosecond)->UseRealTime();
