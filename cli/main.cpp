// posenc — command-line tool: `posenc info` (more subcommands: report, profile; see README).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "posenc/posenc.h"

namespace {

int cmd_info() {
  const posenc_isa all[] = {POSENC_ISA_SCALAR, POSENC_ISA_AVX2, POSENC_ISA_AVX512, POSENC_ISA_NEON};
  std::string compiled, runnable;
#if defined(__x86_64__)
  compiled = "scalar avx2 avx512";
#elif defined(__aarch64__)
  compiled = "scalar neon";
#else
  compiled = "scalar";
#endif
  for (posenc_isa i : all)
    if (posenc_isa_available() & i) runnable += std::string(runnable.empty() ? "" : " ") + posenc_isa_name(i);
  std::printf("posenc %s\n", posenc_version_string());
  std::printf("ISAs compiled:  %s\n", compiled.c_str());
  std::printf("ISAs runnable:  %s\n", runnable.c_str());
  std::printf("ISA active:     %s\n", posenc_isa_name(posenc_isa_active()));
  std::printf("threads:        %d\n", posenc_threads_get());
  float probe[2];
  const posenc_status s = posenc_sinusoidal_f32(nullptr, 1, 2, 10000.0, POSENC_SINUSOIDAL_HALVES, probe);
  if (s != POSENC_OK) {
    std::fprintf(stderr, "posenc: %s\n", posenc_last_error_message());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"posenc — positional-encoding kernels: info, report, profile"};
  app.require_subcommand(1);
  auto* info = app.add_subcommand("info", "version, ISAs compiled / runnable / active, threads");
  CLI11_PARSE(app, argc, argv);
  if (info->parsed()) return cmd_info();
  return 1;
}
