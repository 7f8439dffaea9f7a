// SPDX-License-Identifier: Apache-2.0 OR MIT
// profile.hpp — `posenc profile`: the registry of profiled kernels (cli/prof_<family>.cpp add
// themselves), the run over ISAs, thread counts and rounds, and its tables, JSON, CSV and plot.
//
// A kernel gives its shape and one call; its bytes, flops and path come from the library's record
// of that call (posenc_last_call_info), so the roofline counts the work of the path actually
// taken. Machine peaks come from posenc_roofline_measure, measured in every round next to the
// kernels (the same load), and every fraction is reported per round and as min / median / max.
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "cli/report.hpp"
#include "posenc/posenc.h"

namespace posenc_cli {

/// One set-up kernel: its shape, items per call and the call itself (inputs allocated).
struct ProfileCase {
  std::string shape;  ///< e.g. "n=16384 dim=1024"
  double items = 0;   ///< items per call, in `unit`
  std::string unit;   ///< e.g. "values", "points", "tokens"
  std::function<void()> call;
};

/// A profiled kernel; setup(quick) allocates the inputs (only for the selected families).
struct ProfileKernel {
  int order;
  std::string family, kernel;
  std::function<ProfileCase(bool quick)> setup;
};
std::vector<ProfileKernel>& profile_kernels();
struct RegisterProfile {
  RegisterProfile(int order, const char* family, const char* kernel, std::function<ProfileCase(bool)> setup) {
    profile_kernels().push_back({order, family, kernel, std::move(setup)});
  }
};

/// Median seconds per call of fn: a warm-up call, then calls for about `budget_s` (>= 3 calls).
double time_median(const std::function<void()>& fn, double budget_s);

/// "1.23 G<unit>" style.
std::string fmt_si(double v, const char* unit);
/// A text table with a header and a rule.
void print_table(std::FILE* f, const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);

/// `posenc profile`; argv is kept in the JSON. Returns the exit status.
struct ProfileOptions {
  std::string isa;       ///< "" = every runnable ISA, else one name
  int threads = -1;      ///< -1 = 1, 2, 4, ... up to the hardware threads; else this count
  std::string json;      ///< also write the JSON here ("" = only DIR/profile.json)
  std::string out = "profile";
  std::string family;    ///< comma-separated families ("" = all)
  bool quick = false;
  int rounds = 3;
  std::vector<std::string> argv;
};
int cmd_profile(const ProfileOptions& opt);

}  // namespace posenc_cli
