// SPDX-License-Identifier: Apache-2.0 OR MIT
// bench/verbose_overhead.cpp — what profiling costs per call, on a one-token RoPE apply
// (Llama-3.1-8B: 32 query heads, 8 KV heads, head_dim 128, position 4096, one thread):
//   level 0 (off), level 1 (the call is recorded, no line), level 2 (a line written to stderr,
//   redirected to /dev/null here) and a running trace, interleaved in rounds of calls; medians.
// With --baseline LIB, the same call of another libposenc (e.g. one built without the profiling
// hooks) is loaded in its own namespace (dlmopen) and interleaved too: level 0 / baseline is the
// cost of the hooks when profiling is off.
// --check fails (exit 1) if level 2 costs more than 5 us per call over level 0, or, with a
// baseline, if level 0 is more than 1 % slower than it.
//
//   posenc_verbose_overhead [--baseline /path/libposenc.so.0] [--rounds N] [--check]
#include "posenc/posenc.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using apply_fn = decltype(&posenc_rope_apply_f32);
using params_fn = decltype(&posenc_rope_params_init);
using threads_fn = decltype(&posenc_threads_set);

struct Lib {
  apply_fn apply;
  params_fn params;
  threads_fn threads;
};

constexpr int kCalls = 2000;  // calls per round

struct Bench {
  posenc_rope_params p{};
  std::vector<float> q = std::vector<float>(32 * 128, 0.5f), k = std::vector<float>(8 * 128, 0.25f);
  int64_t pos = 4096;

  /// Nanoseconds per call over one round.
  double round(const Lib& lib) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kCalls; ++i)
      if (lib.apply(&p, POSENC_ROPE_NEOX, &pos, 1, 128, q.data(), 32, 0, k.data(), 8, 0, i & 1) != POSENC_OK) {
        std::fprintf(stderr, "verbose_overhead: apply failed\n");
        std::exit(2);
      }
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / kCalls;
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::string baseline;
  int rounds = 41;
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--baseline" && i + 1 < argc) baseline = argv[++i];
    else if (a == "--rounds" && i + 1 < argc) rounds = std::max(3, std::atoi(argv[++i]));
    else if (a == "--check") check = true;
    else {
      std::fprintf(stderr, "usage: %s [--baseline LIB] [--rounds N] [--check]\n", argv[0]);
      return 2;
    }
  }
  const Lib self{&posenc_rope_apply_f32, &posenc_rope_params_init, &posenc_threads_set};
  Lib base{};
  if (!baseline.empty()) {
    void* h = dlmopen(LM_ID_NEWLM, baseline.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      std::fprintf(stderr, "verbose_overhead: cannot load %s: %s\n", baseline.c_str(), dlerror());
      return 2;
    }
    base.apply = reinterpret_cast<apply_fn>(dlsym(h, "posenc_rope_apply_f32"));
    base.params = reinterpret_cast<params_fn>(dlsym(h, "posenc_rope_params_init"));
    base.threads = reinterpret_cast<threads_fn>(dlsym(h, "posenc_threads_set"));
    if (!base.apply || !base.params || !base.threads) {
      std::fprintf(stderr, "verbose_overhead: %s lacks the RoPE functions\n", baseline.c_str());
      return 2;
    }
    base.threads(1);
  }
  posenc_threads_set(1);
  Bench b;
  posenc_rope_params_init(&b.p, POSENC_ROPE_DEFAULT, 128, 5e5);
  const int devnull = open("/dev/null", O_WRONLY);
  const int saved = dup(2);
  // Warm-up: caches, and the level-2 roofline measurement (once per ISA and thread count).
  posenc_verbose_set(2);
  dup2(devnull, 2);
  b.round(self);
  posenc_verbose_set(0);  // writes what is buffered (to /dev/null)
  dup2(saved, 2);
  if (base.apply) b.round(base);
  std::vector<double> t0, t1, t2, tt, tb;
  const std::string trace = "/dev/null";
  for (int r = 0; r < rounds; ++r) {
    if (base.apply) tb.push_back(b.round(base));
    posenc_verbose_set(0);
    t0.push_back(b.round(self));
    posenc_verbose_set(1);
    t1.push_back(b.round(self));
    posenc_verbose_set(2);
    std::fflush(stderr);
    dup2(devnull, 2);
    t2.push_back(b.round(self));
    posenc_verbose_set(0);
    dup2(saved, 2);
    posenc_trace_start(trace.c_str());
    tt.push_back(b.round(self));
    posenc_trace_stop();
  }
  const double m0 = median(t0), m1 = median(t1), m2 = median(t2), mt = median(tt);
  std::printf("one-token RoPE apply (32q+8k heads x 128, 1 thread, ISA %s), median of %d rounds x %d calls:\n",
              posenc_isa_name(posenc_isa_active()), rounds, kCalls);
  if (base.apply) {
    const double mb = median(tb);
    std::printf("  baseline library   %8.1f ns/call\n", mb);
    std::printf("  level 0            %8.1f ns/call  (%+.2f%% vs baseline)\n", m0, 100.0 * (m0 / mb - 1.0));
  } else {
    std::printf("  level 0            %8.1f ns/call\n", m0);
  }
  std::printf("  level 1 (record)   %8.1f ns/call  (+%.0f ns)\n", m1, m1 - m0);
  std::printf("  level 2 (line)     %8.1f ns/call  (+%.0f ns)\n", m2, m2 - m0);
  std::printf("  trace (/dev/null)  %8.1f ns/call  (+%.0f ns)\n", mt, mt - m0);
  int rc = 0;
  if (check && m2 - m0 > 5000.0) {
    std::printf("FAIL: level 2 costs %.0f ns > 5 us per call\n", m2 - m0);
    rc = 1;
  }
  if (check && base.apply && m0 > 1.01 * median(tb)) {
    std::printf("FAIL: level 0 is %.2f%% slower than the baseline (> 1%%)\n", 100.0 * (m0 / median(tb) - 1.0));
    rc = 1;
  }
  return rc;
}
