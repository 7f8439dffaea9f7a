// SPDX-License-Identifier: Apache-2.0 OR MIT
// posenc — command-line tool.
//   posenc --version                  the library version
//   posenc info                       version, ISAs compiled / runnable / active, threads
//   posenc report [--out DIR] [--quick] [--data DIR] [--only ID,...]
//                                     the experiments on real data -> DIR/report.md, CSV, PNG/SVG
//   posenc profile [--isa X|all] [--threads N] [--out DIR] [--json FILE] [--quick] [--family F,..]
//                  [--rounds N]       each family's kernels at standard sizes on every ISA and
//                                     thread count: tables, DIR/profile.json, roofline CSV + plot
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli/profile.hpp"
#include "cli/report.hpp"
#include "posenc/posenc.hpp"

namespace fs = std::filesystem;
using namespace posenc_cli;

namespace {

std::string isa_list(bool compiled) {
  if (compiled) {
#if defined(__x86_64__)
    return "scalar avx2 avx512";
#elif defined(__aarch64__)
    return "scalar neon";
#else
    return "scalar";
#endif
  }
  std::string s;
  for (posenc_isa i : {POSENC_ISA_SCALAR, POSENC_ISA_AVX2, POSENC_ISA_AVX512, POSENC_ISA_NEON})
    if (posenc_isa_available() & i) s += std::string(s.empty() ? "" : " ") + posenc_isa_name(i);
  return s;
}

int cmd_info() {
  std::printf("posenc %s\n", posenc_version_string());
  std::printf("ISAs compiled:  %s\n", isa_list(true).c_str());
  std::printf("ISAs runnable:  %s\n", isa_list(false).c_str());
  std::printf("ISA active:     %s\n", posenc_isa_name(posenc_isa_active()));
  std::printf("threads:        %d\n", posenc_threads_get());
  return 0;
}

// POSENC_ISA and POSENC_NUM_THREADS are read by the library: a value it cannot use makes every
// kernel call fail with one message naming the variable. The tool asks once, before any command
// prints or writes anything, and prints that message alone.
int check_environment() {
  float probe[2];
  if (posenc_sinusoidal_f32(nullptr, 1, 2, 10000.0, POSENC_SINUSOIDAL_HALVES, probe) != POSENC_OK) {
    std::fprintf(stderr, "posenc: %s\n", posenc_last_error_message());
    return 2;
  }
  return 0;
}

// The folder of the running executable (/proc/self/exe), "" if it cannot be read.
std::string exe_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

// The first of --data, $POSENC_DATA, the install's data folder found relative to the executable
// (<prefix>/bin/posenc -> <prefix>/share/posenc/data, wherever the prefix was moved), and, for a
// binary in the build tree, the source tree's data/.
std::string find_data_dir(const std::string& opt) {
  if (!opt.empty()) return opt;  // explicit: used as given (a missing file is then an error)
  if (const char* e = std::getenv("POSENC_DATA")) return e;
  std::vector<std::string> cands;
#ifdef POSENC_DATA_DIR_FROM_BIN
  const std::string bin = exe_dir();
  if (!bin.empty()) cands.push_back((fs::path(bin) / POSENC_DATA_DIR_FROM_BIN).lexically_normal().string());
#endif
#ifdef POSENC_SOURCE_DATA_DIR
  cands.push_back(POSENC_SOURCE_DATA_DIR);
#endif
  for (const auto& c : cands)
    if (fs::exists(c + "/zone1970.tab")) return c;
  return cands.empty() ? std::string("data") : cands.front();
}

int cmd_report(const std::string& out, bool quick, const std::string& data_opt, const std::string& only) {
  const double t0 = now_s();
  // Everything is validated before the output folder is touched: a bad --only or --data leaves
  // an existing DIR/report.md as it was.
  auto exps = experiments();
  std::stable_sort(exps.begin(), exps.end(), [](const Experiment& a, const Experiment& b) { return a.order < b.order; });
  if (!only.empty()) {
    std::vector<Experiment> sel;
    std::stringstream ss(only);
    std::string id;
    while (std::getline(ss, id, ',')) {
      auto it = std::find_if(exps.begin(), exps.end(), [&](const Experiment& e) { return e.id == id; });
      if (it == exps.end()) {
        std::string ids;
        for (const auto& e : exps) ids += " " + e.id;
        std::fprintf(stderr, "posenc report: --only: unknown experiment '%s' (available:%s)\n", id.c_str(), ids.c_str());
        return 2;
      }
      sel.push_back(*it);
    }
    exps = sel;
  }
  const std::string data = find_data_dir(data_opt);
  for (const char* f : {"zone1970.tab", "karate.edges", "debian-bookworm-depends.txt.gz"})
    if (!fs::exists(data + "/" + f)) {
      std::fprintf(stderr, "posenc report: missing data file %s/%s (use --data DIR or POSENC_DATA)\n", data.c_str(), f);
      return 2;
    }
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec || !fs::is_directory(out)) {
    std::fprintf(stderr, "posenc report: cannot create output folder '%s': %s\n", out.c_str(),
                 ec ? ec.message().c_str() : "not a directory");
    return 2;
  }
  // report.md is written to a temporary file in DIR and renamed over report.md at the end: a
  // reader sees the old report or the new one, never a truncated file.
  const std::string md_path = out + "/report.md", md_tmp = out + "/.report.md.tmp";
  {
    std::ofstream probe(md_tmp);
    if (!probe) {
      std::fprintf(stderr, "posenc report: cannot write '%s': %s\n", md_tmp.c_str(), std::strerror(errno));
      return 2;
    }
  }
  Report rep(out, data, quick);
  std::ostringstream body;
  int failures = 0;
  for (size_t i = 0; i < exps.size(); ++i) {
    const auto& e = exps[i];
    std::fprintf(stderr, "[%zu/%zu] %s\n", i + 1, exps.size(), e.title.c_str());
    const double a = now_s();
    rep.md().str("");
    std::string failure;
    try {
      e.run(rep);
    } catch (const std::exception& ex) {
      failure = ex.what();
    }
    const double dt = now_s() - a;
    body << "## " << e.title << "\n\n" << rep.md().str();
    if (!failure.empty()) {
      ++failures;
      body << "\n**FAILED:** " << failure << "\n";
      rep.summary(e.title.substr(0, e.title.find('.') + 1) + " " + e.id, "FAILED", failure);
      std::fprintf(stderr, "  FAILED: %s\n", failure.c_str());
    }
    body << strf("\n_(%.2f s)_\n\n", dt);
    std::fprintf(stderr, "  done in %.2f s\n", dt);
  }
  const std::string plot_failure = rep.draw_plots();
  const double total = now_s() - t0;
  char date[64];
  std::time_t tt = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&tt));
  std::ofstream md(md_tmp, std::ios::trunc);
  md << "# posenc report\n\n";
  md << strf("posenc %s, ISA %s (runnable: %s), %d thread(s), %s%s, total %.1f s. Data: `%s`.\n\n",
             posenc_version_string(), posenc_isa_name(posenc_isa_active()), isa_list(false).c_str(),
             posenc_threads_get(), date, quick ? ", --quick" : "", total, data.c_str());
  md << "## Summary\n\n| experiment | quantity | value |\n|---|---|---|\n";
  for (const auto& r : rep.summary_rows()) md << "| " << r[0] << " | " << r[1] << " | " << r[2] << " |\n";
  if (exps.empty()) md << "\n(no experiment is built into this posenc: its families have not landed)\n";
  md << "\n" << rep.with_plots(body.str(), plot_failure);
  md.close();
  if (!md || (fs::rename(md_tmp, md_path, ec), ec)) {
    std::fprintf(stderr, "posenc report: write error on %s%s%s\n", md_path.c_str(), ec ? ": " : "",
                 ec ? ec.message().c_str() : "");
    std::remove(md_tmp.c_str());
    return 2;
  }
  std::printf("posenc report — %s, ISA %s, %d thread(s)%s\n", posenc_version_string(),
              posenc_isa_name(posenc_isa_active()), posenc_threads_get(), quick ? ", --quick" : "");
  print_table(stdout, {"experiment", "quantity", "value"}, rep.summary_rows());
  std::printf("wrote %s (%.1f s)\n", md_path.c_str(), total);
  return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"posenc — positional-encoding kernels: info, report, profile"};
  app.require_subcommand(1, 1);
  // The library's run-time version; a CLI built against another header says so.
  std::string version = std::string("posenc ") + posenc_version_string();
  if (std::strcmp(posenc_version_string(), POSENC_VERSION_STRING) != 0)
    version += std::string(" (built against posenc.h ") + POSENC_VERSION_STRING + ")";
  app.set_version_flag("--version", version, "print the version and exit");
  auto* info = app.add_subcommand("info", "version, ISAs compiled / runnable / active, threads");
  auto* report = app.add_subcommand("report", "run the experiments on real data; write DIR/report.md, CSVs and plots (PNG, SVG)");
  std::string out = "report", data, only;
  bool quick = false;
  report->add_option("--out", out, "output folder (created if missing)")->capture_default_str();
  report->add_flag("--quick", quick, "smaller sizes: under 30 s (what CI runs)");
  report->add_option("--data", data, "folder with the shipped data (default: $POSENC_DATA, the source tree, the install prefix)");
  report->add_option("--only", only, "comma-separated experiment ids to run");
  auto* profile = app.add_subcommand("profile",
                                     "each family's kernels at standard sizes: thread scaling, ISA comparison, % of the "
                                     "measured memcpy bandwidth and FMA peak, roofline plot");
  ProfileOptions popt;
  for (int i = 0; i < argc; ++i) popt.argv.push_back(argv[i]);
  profile->add_option("--isa", popt.isa, "all (default: every runnable ISA) | auto | scalar | avx2 | avx512 | neon");
  profile->add_option("--threads", popt.threads, "only this thread count (0 = all hardware threads; default: 1, 2, 4, ... all)")
      ->check(CLI::Range(0, 4096));
  profile->add_option("--out", popt.out, "output folder: profile.json, roofline.csv, roofline.png")->capture_default_str();
  profile->add_option("--json", popt.json, "also write the JSON to FILE");
  profile->add_flag("--quick", popt.quick, "shorter timing runs, smaller sizes");
  profile->add_option("--rounds", popt.rounds, "rounds of (peaks, every kernel) per configuration")->capture_default_str();
  profile->add_option("--family", popt.family, "only these families, comma-separated: rope,sphere,graph,features,learned");
  if (argc > 1 && argv[1][0] != '-') {
    const std::string cmd = argv[1];
    if (cmd != "info" && cmd != "report" && cmd != "profile") {
      std::fprintf(stderr, "posenc: unknown command '%s' (commands: info, report, profile)\n\n%s", cmd.c_str(),
                   app.help().c_str());
      return 2;
    }
  }
  CLI11_PARSE(app, argc, argv);
  if (int rc = check_environment()) return rc;
  try {
    if (info->parsed()) return cmd_info();
    if (report->parsed()) return cmd_report(out, quick, data, only);
    if (profile->parsed()) return cmd_profile(popt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "posenc: %s\n", e.what());
    return 1;
  }
  return 1;
}
