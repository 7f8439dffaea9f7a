// SPDX-License-Identifier: Apache-2.0 OR MIT
// posenc_bench entry point: strips --isa=X, --threads=N and --smoke before Google Benchmark
// parses the rest.
#include "bench/bench_common.hpp"

#include <cstdio>
#include <string>

namespace posenc_bench {
namespace {
bool g_smoke = false;
}
bool smoke() { return g_smoke; }

void label(benchmark::State& st) {
  std::string l = std::string(posenc_isa_name(posenc_isa_active())) + "/t" + std::to_string(posenc_threads_get());
  st.SetLabel(l);
}

void memcpy_anchor(benchmark::State& st, size_t bytes) {
  std::vector<char> a(bytes, 1), b(bytes, 0);
  for (auto _ : st) {
    std::memcpy(b.data(), a.data(), bytes);
    benchmark::DoNotOptimize(b.data());
    benchmark::ClobberMemory();
  }
  // Same accounting as the kernels: bytes read + bytes written.
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations()) * static_cast<int64_t>(2 * bytes));
}
}  // namespace posenc_bench

int main(int argc, char** argv) {
  std::vector<char*> rest;
  rest.push_back(argv[0]);
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--isa=", 0) == 0) {
      std::string v = a.substr(6);
      posenc_isa isa = POSENC_ISA_AUTO;
      if (v == "scalar") isa = POSENC_ISA_SCALAR;
      else if (v == "avx2") isa = POSENC_ISA_AVX2;
      else if (v == "avx512") isa = POSENC_ISA_AVX512;
      else if (v == "neon") isa = POSENC_ISA_NEON;
      else if (v != "auto") { std::fprintf(stderr, "unknown --isa=%s\n", v.c_str()); return 2; }
      if (posenc_isa_set(isa) != POSENC_OK) {
        std::fprintf(stderr, "%s\n", posenc_last_error_message());
        return 2;
      }
    } else if (a.rfind("--threads=", 0) == 0) {
      if (posenc_threads_set(std::stoi(a.substr(10))) != POSENC_OK) {
        std::fprintf(stderr, "%s\n", posenc_last_error_message());
        return 2;
      }
    } else if (a == "--smoke") {
      posenc_bench::g_smoke = true;
    } else {
      rest.push_back(argv[i]);
    }
  }
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  if (benchmark::ReportUnrecognizedArguments(n, rest.data())) return 1;
  std::fprintf(stderr, "posenc %s, isa %s, threads %d%s\n", posenc_version_string(),
               posenc_isa_name(posenc_isa_active()), posenc_threads_get(), posenc_bench::g_smoke ? " (smoke)" : "");
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
