// SPDX-License-Identifier: Apache-2.0 OR MIT
// posenc — command-line tool.
//   posenc info                       version, ISAs compiled / runnable / active, threads
//   posenc report [--out DIR] [--quick] [--data DIR] [--only ID,...]
//                                     the experiments on real data -> DIR/report.md, CSV, PNG
//   posenc profile [--isa X] [--threads N] [--json FILE] [--quick] [--family F]
//                                     each family's kernels at standard sizes, vs machine peaks
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
  float probe[2];
  if (posenc_sinusoidal_f32(nullptr, 1, 2, 10000.0, POSENC_SINUSOIDAL_HALVES, probe) != POSENC_OK) {
    std::fprintf(stderr, "posenc: %s\n", posenc_last_error_message());
    return 1;
  }
  return 0;
}

// The first of --data, $POSENC_DATA, the source tree, the install prefix that has zone1970.tab.
std::string find_data_dir(const std::string& opt) {
  if (!opt.empty()) return opt;  // explicit: used as given (a missing file is then an error)
  std::vector<std::string> cands;
  if (const char* e = std::getenv("POSENC_DATA")) return e;
#ifdef POSENC_SOURCE_DATA_DIR
  cands.push_back(POSENC_SOURCE_DATA_DIR);
#endif
#ifdef POSENC_INSTALL_DATA_DIR
  cands.push_back(POSENC_INSTALL_DATA_DIR);
#endif
  for (const auto& c : cands)
    if (fs::exists(c + "/zone1970.tab")) return c;
  return cands.empty() ? std::string("data") : cands.front();
}

std::string fmt_si(double v, const char* unit) {
  const char* p[] = {"", "k", "M", "G", "T"};
  int i = 0;
  while (std::fabs(v) >= 1000 && i < 4) v /= 1000, ++i;
  return strf("%.3g %s%s", v, p[i], unit);
}

struct ProfileRow {
  ProfileResult r;
  double mem_frac, fma_frac;
  std::string bound;
};

std::vector<ProfileRow> profile_rows(const std::vector<ProfileResult>& res, const MachinePeaks& mp) {
  std::vector<ProfileRow> rows;
  for (const auto& r : res) {
    ProfileRow row{r, -1, -1, ""};
    if (r.bytes > 0) row.mem_frac = r.bytes / r.seconds / mp.memcpy_bytes_per_s;
    if (r.flops > 0) row.fma_frac = r.flops / r.seconds / (mp.fma_flops_per_s_f64 * (r.fp32 ? 2.0 : 1.0));
    if (row.mem_frac >= 0 || row.fma_frac >= 0) row.bound = row.mem_frac >= row.fma_frac ? "memory" : "compute";
    else row.bound = "n/a";
    rows.push_back(row);
  }
  return rows;
}

std::vector<std::string> profile_header() {
  return {"family", "kernel", "shape", "throughput", "time/call", "GB/s", "% memcpy", "GFLOP/s", "% FMA peak", "bound"};
}
std::vector<std::vector<std::string>> profile_table(const std::vector<ProfileRow>& rows) {
  std::vector<std::vector<std::string>> t;
  for (const auto& x : rows) {
    const ProfileResult& r = x.r;
    t.push_back({r.family, r.kernel, r.shape, fmt_si(r.items / r.seconds, (r.unit + "/s").c_str()),
                 strf("%.3g ms", r.seconds * 1e3), r.bytes > 0 ? strf("%.2f", r.bytes / r.seconds / 1e9) : "-",
                 x.mem_frac >= 0 ? strf("%.0f%%", 100 * x.mem_frac) : "-",
                 r.flops > 0 ? strf("%.2f", r.flops / r.seconds / 1e9) : "-",
                 x.fma_frac >= 0 ? strf("%.1f%%", 100 * x.fma_frac) : "-", x.bound});
  }
  return t;
}

void print_table(std::FILE* f, const std::vector<std::string>& h, const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> w(h.size());
  for (size_t j = 0; j < h.size(); ++j) w[j] = h[j].size();
  for (const auto& r : rows)
    for (size_t j = 0; j < r.size() && j < w.size(); ++j) w[j] = std::max(w[j], r[j].size());
  auto line = [&](const std::vector<std::string>& r) {
    for (size_t j = 0; j < w.size(); ++j)
      std::fprintf(f, "%s%-*s", j ? "  " : "", int(w[j]), j < r.size() ? r[j].c_str() : "");
    std::fputc('\n', f);
  };
  line(h);
  size_t tot = 0;
  for (size_t x : w) tot += x + 2;
  std::fprintf(f, "%s\n", std::string(tot - 2, '-').c_str());
  for (const auto& r : rows) line(r);
}

std::string profile_json(const std::vector<ProfileRow>& rows, const MachinePeaks& mp) {
  std::string s = "{\n";
  s += strf("  \"version\": \"%s\",\n  \"isa\": \"%s\",\n  \"threads\": %d,\n", posenc_version_string(),
            posenc_isa_name(posenc_isa_active()), posenc_threads_get());
  s += strf("  \"memcpy_bytes_per_s\": %.6g,\n  \"fma_peak_flops_per_s_f64\": %.6g,\n  \"fma_peak_how\": \"%s\",\n",
            mp.memcpy_bytes_per_s, mp.fma_flops_per_s_f64, mp.fma_how.c_str());
  s += "  \"kernels\": [\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i].r;
    s += strf("    {\"family\": \"%s\", \"kernel\": \"%s\", \"shape\": \"%s\", \"unit\": \"%s\", ", r.family.c_str(),
              r.kernel.c_str(), r.shape.c_str(), r.unit.c_str());
    s += strf("\"items_per_call\": %.6g, \"seconds_per_call\": %.6g, \"items_per_s\": %.6g, ", r.items, r.seconds,
              r.items / r.seconds);
    s += strf("\"bytes_per_call\": %.6g, \"flops_per_call\": %.6g, \"memcpy_fraction\": %s, \"fma_peak_fraction\": %s, ",
              r.bytes, r.flops, rows[i].mem_frac >= 0 ? strf("%.4f", rows[i].mem_frac).c_str() : "null",
              rows[i].fma_frac >= 0 ? strf("%.5f", rows[i].fma_frac).c_str() : "null");
    s += strf("\"flops_precision\": \"%s\", \"bound\": \"%s\", \"model\": \"%s\"}%s\n", r.fp32 ? "f32" : "f64",
              rows[i].bound.c_str(), r.note.c_str(),
              i + 1 < rows.size() ? "," : "");
  }
  s += "  ]\n}\n";
  return s;
}

// Experiment 7 of the report: the profile table for the active ISA.
void exp_throughput(Report& rep) {
  rep.progress("measuring memcpy bandwidth and FMA peak (%d threads)", posenc_threads_get());
  const MachinePeaks mp = measure_peaks(posenc_threads_get(), rep.quick());
  const auto rows = profile_rows(run_profile(rep.quick(), true), mp);
  rep.md() << strf("Active ISA **%s**, %d thread(s). memcpy: %.2f GB/s (read + write); FMA peak: %.1f GFLOP/s f64 (%s).\n",
                   posenc_isa_name(posenc_isa_active()), posenc_threads_get(), mp.memcpy_bytes_per_s / 1e9,
                   mp.fma_flops_per_s_f64 / 1e9, mp.fma_how.c_str());
  rep.md() << "The fraction is of memcpy bandwidth for memory-bound kernels and of the f64 FMA peak for "
              "compute-bound ones (float32 kernels against twice the f64 peak); the `bound` column is the larger "
              "fraction. Both peaks are measured at run time under the same load as the kernels; a memcpy "
              "fraction above 100% means the working set stays in cache (memcpy is measured on buffers far "
              "larger than the caches). Byte and flop models are in `posenc profile --json`.\n";
  rep.table(profile_header(), profile_table(rows));
  for (const auto& x : rows) {
    const auto& r = x.r;
    if (r.kernel == "sinusoidal_f32" || r.kernel == "rope_apply_f32" || r.kernel == "sph_harm_real_f64" ||
        r.kernel == "rf_features_f32" || r.kernel == "learned_add_f32" || r.kernel == "laplacian_pe_f64")
      rep.summary("7 throughput", r.kernel + " " + r.shape,
                  fmt_si(r.items / r.seconds, (r.unit + "/s").c_str()) +
                      (x.bound == "memory" ? strf(" (%.0f%% memcpy)", 100 * x.mem_frac)
                       : x.bound == "compute" ? strf(" (%.1f%% FMA peak)", 100 * x.fma_frac) : std::string()));
  }
}
RegisterExperiment reg_throughput(70, "throughput", "7. Throughput (posenc profile, active ISA)", exp_throughput);

int cmd_report(const std::string& out, bool quick, const std::string& data_opt, const std::string& only) {
  const double t0 = now_s();
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec || !fs::is_directory(out)) {
    std::fprintf(stderr, "posenc report: cannot create output folder '%s': %s\n", out.c_str(),
                 ec ? ec.message().c_str() : "not a directory");
    return 2;
  }
  const std::string md_path = out + "/report.md";
  {
    std::ofstream probe(md_path);
    if (!probe) {
      std::fprintf(stderr, "posenc report: cannot write '%s': %s\n", md_path.c_str(), std::strerror(errno));
      return 2;
    }
  }
  const std::string data = find_data_dir(data_opt);
  for (const char* f : {"zone1970.tab", "karate.edges", "debian-bookworm-depends.txt.gz"})
    if (!fs::exists(data + "/" + f)) {
      std::fprintf(stderr, "posenc report: missing data file %s/%s (use --data DIR or POSENC_DATA)\n", data.c_str(), f);
      return 2;
    }
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
  const double total = now_s() - t0;
  char date[64];
  std::time_t tt = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&tt));
  std::ofstream md(md_path);
  md << "# posenc report\n\n";
  md << strf("posenc %s, ISA %s (runnable: %s), %d thread(s), %s%s, total %.1f s. Data: `%s`.\n\n",
             posenc_version_string(), posenc_isa_name(posenc_isa_active()), isa_list(false).c_str(),
             posenc_threads_get(), date, quick ? ", --quick" : "", total, data.c_str());
  md << "## Summary\n\n| experiment | quantity | value |\n|---|---|---|\n";
  for (const auto& r : rep.summary_rows()) md << "| " << r[0] << " | " << r[1] << " | " << r[2] << " |\n";
  if (exps.empty()) md << "\n(no experiment is built into this posenc: its families have not landed)\n";
  md << "\n" << body.str();
  md.close();
  if (!md) {
    std::fprintf(stderr, "posenc report: write error on %s\n", md_path.c_str());
    return 2;
  }
  std::printf("posenc report — %s, ISA %s, %d thread(s)%s\n", posenc_version_string(),
              posenc_isa_name(posenc_isa_active()), posenc_threads_get(), quick ? ", --quick" : "");
  print_table(stdout, {"experiment", "quantity", "value"}, rep.summary_rows());
  std::printf("wrote %s (%.1f s)\n", md_path.c_str(), total);
  return failures ? 1 : 0;
}

int cmd_profile(const std::string& isa, int threads, const std::string& json, bool quick, const std::string& family) {
  if (!isa.empty()) {
    posenc_isa want;
    if (isa == "auto") want = POSENC_ISA_AUTO;
    else if (isa == "scalar") want = POSENC_ISA_SCALAR;
    else if (isa == "avx2") want = POSENC_ISA_AVX2;
    else if (isa == "avx512") want = POSENC_ISA_AVX512;
    else if (isa == "neon") want = POSENC_ISA_NEON;
    else {
      std::fprintf(stderr, "posenc profile: --isa must be one of auto scalar avx2 avx512 neon (got '%s')\n", isa.c_str());
      return 2;
    }
    if (posenc_isa_set(want) != POSENC_OK) {
      std::fprintf(stderr, "posenc profile: --isa %s: %s (runnable here: %s)\n", isa.c_str(),
                   posenc_last_error_message(), isa_list(false).c_str());
      return 2;
    }
  }
  if (threads >= 0 && posenc_threads_set(threads) != POSENC_OK) {
    std::fprintf(stderr, "posenc profile: --threads: %s\n", posenc_last_error_message());
    return 2;
  }
  std::FILE* jf = nullptr;
  if (!json.empty()) {
    jf = std::fopen(json.c_str(), "w");
    if (!jf) {
      std::fprintf(stderr, "posenc profile: cannot write --json '%s': %s\n", json.c_str(), std::strerror(errno));
      return 2;
    }
  }
  std::fprintf(stderr, "posenc profile: measuring memcpy bandwidth and FMA peak ...\n");
  const MachinePeaks mp = measure_peaks(posenc_threads_get(), quick);
  std::vector<ProfileRow> rows;
  try {
    rows = profile_rows(run_profile(quick, true, family), mp);
    if (rows.empty()) {
      std::fprintf(stderr, "posenc profile: --family '%s' has no kernels in this build (rope sphere graph features learned)\n", family.c_str());
      if (jf) std::fclose(jf);
      return 2;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "posenc profile: %s\n", e.what());
    if (jf) std::fclose(jf);
    return 1;
  }
  std::printf("posenc %s profile — ISA %s, %d thread(s)\n", posenc_version_string(),
              posenc_isa_name(posenc_isa_active()), posenc_threads_get());
  std::printf("memcpy %.2f GB/s (read + write); FMA peak %.1f GFLOP/s f64 (%s)\n\n", mp.memcpy_bytes_per_s / 1e9,
              mp.fma_flops_per_s_f64 / 1e9, mp.fma_how.c_str());
  print_table(stdout, profile_header(), profile_table(rows));
  if (jf) {
    const std::string s = profile_json(rows, mp);
    std::fputs(s.c_str(), jf);
    if (std::fclose(jf) != 0) {
      std::fprintf(stderr, "posenc profile: write error on %s\n", json.c_str());
      return 2;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"posenc — positional-encoding kernels: info, report, profile"};
  app.require_subcommand(1, 1);
  auto* info = app.add_subcommand("info", "version, ISAs compiled / runnable / active, threads");
  auto* report = app.add_subcommand("report", "run the experiments on real data; write DIR/report.md, CSVs and PNGs");
  std::string out = "report", data, only;
  bool quick = false;
  report->add_option("--out", out, "output folder (created if missing)")->capture_default_str();
  report->add_flag("--quick", quick, "smaller sizes: under 30 s (what CI runs)");
  report->add_option("--data", data, "folder with the shipped data (default: $POSENC_DATA, the source tree, the install prefix)");
  report->add_option("--only", only, "comma-separated experiment ids to run");
  auto* profile = app.add_subcommand("profile", "each family's kernels at standard sizes: throughput, % memcpy or % FMA peak");
  std::string isa, json;
  int threads = -1;
  bool pquick = false;
  profile->add_option("--isa", isa, "auto | scalar | avx2 | avx512 | neon");
  profile->add_option("--threads", threads, "worker threads (0 = all hardware threads)")->check(CLI::Range(0, 4096));
  profile->add_option("--json", json, "also write the results as JSON to FILE");
  profile->add_flag("--quick", pquick, "shorter timing runs, smaller sizes");
  std::string family;
  profile->add_option("--family", family, "only this family: rope | sphere | graph | features | learned");
  if (argc > 1 && argv[1][0] != '-') {
    const std::string cmd = argv[1];
    if (cmd != "info" && cmd != "report" && cmd != "profile") {
      std::fprintf(stderr, "posenc: unknown command '%s' (commands: info, report, profile)\n\n%s", cmd.c_str(),
                   app.help().c_str());
      return 2;
    }
  }
  CLI11_PARSE(app, argc, argv);
  try {
    if (info->parsed()) return cmd_info();
    if (report->parsed()) return cmd_report(out, quick, data, only);
    if (profile->parsed()) return cmd_profile(isa, threads, json, pquick, family);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "posenc: %s\n", e.what());
    return 1;
  }
  return 1;
}
