// SPDX-License-Identifier: Apache-2.0 OR MIT
// profile.cpp — `posenc profile` (see profile.hpp): every selected kernel on every configuration
// (each runnable ISA at the full thread count; the best ISA at 1, 2, 4, ... threads), in rounds
// that interleave the machine peaks with the kernels; tables, JSON, roofline CSV and plot.
#include "cli/profile.hpp"

#include <nlohmann/json.hpp>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

extern char** environ;

namespace posenc_cli {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

std::vector<ProfileKernel>& profile_kernels() {
  static std::vector<ProfileKernel> v;
  return v;
}

double time_median(const std::function<void()>& fn, double budget_s) {
  fn();  // warm-up (page faults, caches, thread start)
  std::vector<double> t;
  const double start = now_s();
  while (t.size() < 3 || (now_s() - start < budget_s && t.size() < 1000)) {
    const double a = now_s();
    fn();
    t.push_back(now_s() - a);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

std::string fmt_si(double v, const char* unit) {
  const char* p[] = {"", "k", "M", "G", "T"};
  int i = 0;
  while (std::fabs(v) >= 1000 && i < 4) v /= 1000, ++i;
  return strf("%.3g %s%s", v, p[i], unit);
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

namespace {

const posenc_isa kIsaOrder[] = {POSENC_ISA_SCALAR, POSENC_ISA_AVX2, POSENC_ISA_AVX512, POSENC_ISA_NEON};

struct Config {
  posenc_isa isa;
  int threads;
};

struct Stats {
  double min = 0, median = 0, max = 0;
};
Stats stats(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.min = v.front();
  s.max = v.back();
  s.median = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  return s;
}

/// One kernel on one configuration, over the rounds.
struct Result {
  std::string path;
  double bytes = 0, flops = 0;
  bool f32 = false;
  int64_t tiles = 0;
  std::vector<double> seconds, mem_frac, fma_frac, roof_frac;
  bool memory_bound = true;
};

struct Run {
  std::vector<ProfileKernel> kernels;
  std::vector<ProfileCase> cases;
  std::vector<Config> configs;
  size_t main = 0;                                  // the configuration of the main table
  std::vector<std::vector<posenc_roofline>> peaks;  // [config][round]
  std::vector<Result> results;                      // [kernel * configs + config]
  int rounds = 3;
  bool quick = false;
  Result& at(size_t k, size_t c) { return results[k * configs.size() + c]; }
};

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string x;
  while (std::getline(ss, x, ','))
    if (!x.empty()) out.push_back(x);
  return out;
}

std::string runnable_names() {
  std::string s;
  for (posenc_isa i : kIsaOrder)
    if (posenc_isa_available() & i) s += std::string(s.empty() ? "" : " ") + posenc_isa_name(i);
  return s;
}

/// The library's record of one call of pc: path, modelled bytes and flops, tiles.
void probe(const ProfileCase& pc, Result& r) {
  const int32_t level = posenc_verbose_get();
  if (level < 1) posenc_verbose_set(1);  // records calls (and writes error lines only)
  posenc_call_info info;
  std::memset(&info, 0, sizeof info);  // not posenc_call_info_init: that call would be the last one
  info.struct_size = sizeof info;
  posenc_status st = POSENC_ERR_INTERNAL;
  try {
    pc.call();
    st = posenc_last_call_info(&info);
  } catch (...) {
    if (level < 1) posenc_verbose_set(level);
    throw;
  }
  if (level < 1) posenc_verbose_set(level);
  if (st != POSENC_OK) throw std::runtime_error(std::string("posenc_last_call_info: ") + posenc_last_error_message());
  r.path = info.path;
  r.bytes = info.bytes;
  r.flops = info.flops;
  r.f32 = info.flops_f32 != 0;
  r.tiles = info.tiles;
}

void set_config(const Config& c) {
  if (posenc_isa_set(c.isa) != POSENC_OK || posenc_threads_set(c.threads) != POSENC_OK)
    throw std::runtime_error(std::string("cannot select the configuration: ") + posenc_last_error_message());
}

void measure_round(Run& run, int round) {
  const double budget = run.quick ? 0.02 : 0.15;
  for (size_t c = 0; c < run.configs.size(); ++c) {
    const Config& cfg = run.configs[c];
    set_config(cfg);
    std::fprintf(stderr, "  round %d/%d: %s, %d thread(s): peaks", round + 1, run.rounds, posenc_isa_name(cfg.isa),
                 cfg.threads);
    std::fflush(stderr);
    posenc_roofline rl;
    posenc_roofline_init(&rl);
    if (posenc_roofline_measure(cfg.isa, cfg.threads, &rl) != POSENC_OK)
      throw std::runtime_error(std::string("posenc_roofline_measure: ") + posenc_last_error_message());
    run.peaks[c].push_back(rl);
    for (size_t k = 0; k < run.kernels.size(); ++k) {
      std::fprintf(stderr, ", %s", run.kernels[k].kernel.c_str());
      std::fflush(stderr);
      Result& r = run.at(k, c);
      if (round == 0) probe(run.cases[k], r);
      const double s = time_median(run.cases[k].call, budget);
      r.seconds.push_back(s);
      const double peak = r.f32 ? rl.fma_flops_per_s_f32 : rl.fma_flops_per_s_f64;
      r.mem_frac.push_back(r.bytes > 0 ? r.bytes / s / rl.memcpy_bytes_per_s : -1);
      r.fma_frac.push_back(r.flops > 0 ? r.flops / s / peak : -1);
      // Memory-bound when the intensity times the bandwidth stays under the compute peak.
      r.memory_bound = r.flops <= 0 || (r.bytes > 0 && r.flops / r.bytes * rl.memcpy_bytes_per_s < peak);
      r.roof_frac.push_back(r.bytes <= 0 && r.flops <= 0 ? -1 : r.memory_bound ? r.mem_frac.back() : r.fma_frac.back());
    }
    std::fprintf(stderr, "\n");
  }
}

std::string pct(const std::vector<double>& v) {
  if (v.empty() || v[0] < 0) return "-";
  const Stats s = stats(v);
  if (v.size() == 1) return strf("%.1f%%", 100 * s.median);
  return strf("%.1f%% [%.1f-%.1f]", 100 * s.median, 100 * s.min, 100 * s.max);
}
std::string ms(double s) { return strf("%.3g ms", s * 1e3); }
std::string bound_of(const Result& r) {
  return r.bytes <= 0 && r.flops <= 0 ? "n/a" : r.memory_bound ? "memory" : "compute";
}

// ---------------------------------------------------------------- tables
void print_tables(Run& run) {
  std::vector<std::vector<std::string>> t;
  for (size_t c = 0; c < run.configs.size(); ++c) {
    std::vector<double> bw, f64, f32;
    for (const auto& p : run.peaks[c]) bw.push_back(p.memcpy_bytes_per_s * 1e-9), f64.push_back(p.fma_flops_per_s_f64 * 1e-9), f32.push_back(p.fma_flops_per_s_f32 * 1e-9);
    auto col = [](const std::vector<double>& v) {
      const Stats s = stats(v);
      return strf("%.3g [%.3g-%.3g]", s.median, s.min, s.max);
    };
    t.push_back({posenc_isa_name(run.configs[c].isa), strf("%d", run.configs[c].threads), col(bw), col(f64), col(f32)});
  }
  std::printf("machine (median [min-max] of %d rounds):\n", run.rounds);
  print_table(stdout, {"isa", "threads", "memcpy GB/s", "FMA f64 GFLOP/s", "FMA f32 GFLOP/s"}, t);

  const Config& m = run.configs[run.main];
  t.clear();
  for (size_t k = 0; k < run.kernels.size(); ++k) {
    const Result& r = run.at(k, run.main);
    const ProfileCase& pc = run.cases[k];
    const Stats s = stats(r.seconds);
    t.push_back({run.kernels[k].family, run.kernels[k].kernel, pc.shape, r.path,
                 fmt_si(pc.items / s.median, (pc.unit + "/s").c_str()),
                 strf("%s (%+.0f%%)", ms(s.median).c_str(), 100 * (s.max / s.min - 1)),
                 r.bytes > 0 ? strf("%.2f", r.bytes / s.median * 1e-9) : "-", pct(r.mem_frac),
                 r.flops > 0 ? strf("%.2f", r.flops / s.median * 1e-9) : "-", pct(r.fma_frac), bound_of(r)});
  }
  std::printf("\nkernels (ISA %s, %d thread(s); time: median (max/min - 1); fractions: median [min-max] over rounds,\n"
              "each against the peak measured in the same round):\n",
              posenc_isa_name(m.isa), m.threads);
  print_table(stdout, {"family", "kernel", "shape", "path", "throughput", "time/call", "GB/s", "% memcpy", "GFLOP/s",
                       "% FMA peak", "bound"}, t);

  std::vector<size_t> sc;  // thread scaling: the main ISA at every thread count
  for (size_t c = 0; c < run.configs.size(); ++c)
    if (run.configs[c].isa == m.isa) sc.push_back(c);
  std::sort(sc.begin(), sc.end(), [&](size_t a, size_t b) { return run.configs[a].threads < run.configs[b].threads; });
  if (sc.size() > 1) {
    std::vector<std::string> h = {"kernel"};
    for (size_t c : sc) h.push_back(strf("%d thr", run.configs[c].threads));
    h.push_back("speedup");
    h.push_back("efficiency");
    t.clear();
    for (size_t k = 0; k < run.kernels.size(); ++k) {
      std::vector<std::string> row = {run.kernels[k].kernel};
      for (size_t c : sc) row.push_back(ms(stats(run.at(k, c).seconds).median));
      const double sp = stats(run.at(k, sc.front()).seconds).median / stats(run.at(k, sc.back()).seconds).median;
      row.push_back(strf("%.2fx", sp));
      row.push_back(strf("%.0f%%", 100 * sp / (run.configs[sc.back()].threads / double(run.configs[sc.front()].threads))));
      t.push_back(row);
    }
    std::printf("\nthread scaling (ISA %s; median time per call; efficiency = speedup / thread ratio):\n",
                posenc_isa_name(m.isa));
    print_table(stdout, h, t);
  }

  std::vector<size_t> ic;  // ISA comparison at the main thread count
  for (size_t c = 0; c < run.configs.size(); ++c)
    if (run.configs[c].threads == m.threads) ic.push_back(c);
  if (ic.size() > 1) {
    std::vector<std::string> h = {"kernel"};
    for (size_t c : ic) h.push_back(posenc_isa_name(run.configs[c].isa));
    h.push_back(strf("%s vs %s", posenc_isa_name(run.configs[ic.back()].isa), posenc_isa_name(run.configs[ic.front()].isa)));
    t.clear();
    for (size_t k = 0; k < run.kernels.size(); ++k) {
      std::vector<std::string> row = {run.kernels[k].kernel};
      for (size_t c : ic) {
        const Result& r = run.at(k, c);
        const std::string roof = pct(r.roof_frac);
        row.push_back(ms(stats(r.seconds).median) + (roof == "-" ? "" : " (" + strf("%.0f%%", 100 * stats(r.roof_frac).median) + ")"));
      }
      row.push_back(strf("%.2fx", stats(run.at(k, ic.front()).seconds).median / stats(run.at(k, ic.back()).seconds).median));
      t.push_back(row);
    }
    std::printf("\nISA comparison (%d thread(s); median time per call (%% of the roofline of that ISA)):\n", m.threads);
    print_table(stdout, h, t);
  }
}

// ---------------------------------------------------------------- JSON and CSV
ojson stats_json(const std::vector<double>& v) {
  if (v.empty() || v[0] < 0) return nullptr;
  const Stats s = stats(v);
  return ojson{{"min", s.min}, {"median", s.median}, {"max", s.max}};
}
ojson rounds_json(const std::vector<double>& v) {
  if (v.empty() || v[0] < 0) return nullptr;
  return ojson(v);
}

ojson build_json(Run& run, const ProfileOptions& opt, int hw) {
  const Config& m = run.configs[run.main];
  std::vector<double> bw, f64, f32;
  for (const auto& p : run.peaks[run.main])
    bw.push_back(p.memcpy_bytes_per_s), f64.push_back(p.fma_flops_per_s_f64), f32.push_back(p.fma_flops_per_s_f32);
  ojson j;
  j["command"] = opt.argv;
  j["version"] = posenc_version_string();
  j["quick"] = opt.quick;
  j["rounds"] = run.rounds;
  j["hardware_threads"] = hw;
  j["isa"] = posenc_isa_name(m.isa);
  j["threads"] = m.threads;
  j["memcpy_bytes_per_s"] = stats(bw).median;
  j["fma_peak_flops_per_s_f64"] = stats(f64).median;
  j["fma_peak_flops_per_s_f32"] = stats(f32).median;
  j["fma_peak_how"] = "posenc_roofline_measure: 12 multiply-add chains per thread at the ISA's vector width, best of 5; "
                      "memcpy of 32 MiB split over the threads, best of 5; measured once per round next to the kernels";
  ojson machine = ojson::array();
  for (size_t c = 0; c < run.configs.size(); ++c) {
    ojson rounds = ojson::array();
    std::vector<double> b, d, f;
    for (const auto& p : run.peaks[c]) {
      rounds.push_back({{"memcpy_bytes_per_s", p.memcpy_bytes_per_s}, {"fma_flops_per_s_f64", p.fma_flops_per_s_f64},
                        {"fma_flops_per_s_f32", p.fma_flops_per_s_f32}, {"seconds", p.seconds}});
      b.push_back(p.memcpy_bytes_per_s), d.push_back(p.fma_flops_per_s_f64), f.push_back(p.fma_flops_per_s_f32);
    }
    machine.push_back({{"isa", posenc_isa_name(run.configs[c].isa)}, {"threads", run.configs[c].threads},
                       {"rounds", rounds}, {"memcpy_bytes_per_s", stats_json(b)}, {"fma_flops_per_s_f64", stats_json(d)},
                       {"fma_flops_per_s_f32", stats_json(f)}});
  }
  j["machine"] = machine;
  auto result_json = [&](size_t k, size_t c) {
    const Result& r = run.at(k, c);
    const ProfileCase& pc = run.cases[k];
    const double s = stats(r.seconds).median;
    ojson e{{"family", run.kernels[k].family}, {"kernel", run.kernels[k].kernel}, {"shape", pc.shape},
            {"isa", posenc_isa_name(run.configs[c].isa)}, {"threads", run.configs[c].threads}, {"path", r.path},
            {"unit", pc.unit}, {"items_per_call", pc.items}, {"seconds_per_call", s}, {"items_per_s", pc.items / s},
            {"bytes_per_call", r.bytes}, {"flops_per_call", r.flops}, {"flops_precision", r.f32 ? "f32" : "f64"},
            {"tiles", r.tiles}, {"seconds_per_round", r.seconds}, {"seconds", stats_json(r.seconds)},
            {"memcpy_fraction", r.mem_frac[0] < 0 ? ojson(nullptr) : ojson(stats(r.mem_frac).median)},
            {"fma_peak_fraction", r.fma_frac[0] < 0 ? ojson(nullptr) : ojson(stats(r.fma_frac).median)},
            {"memcpy_fraction_per_round", rounds_json(r.mem_frac)}, {"fma_peak_fraction_per_round", rounds_json(r.fma_frac)},
            {"roofline_fraction", stats_json(r.roof_frac)}, {"bound", bound_of(r)},
            {"model", r.bytes > 0 || r.flops > 0 ? "bytes and flops of path '" + r.path +
                                                        "' from the library's work() model (posenc_last_call_info)"
                                                  : "no byte/flop model"}};
    return e;
  };
  ojson kernels = ojson::array(), results = ojson::array();
  for (size_t k = 0; k < run.kernels.size(); ++k) {
    kernels.push_back(result_json(k, run.main));
    for (size_t c = 0; c < run.configs.size(); ++c) results.push_back(result_json(k, c));
  }
  j["kernels"] = kernels;
  j["results"] = results;
  ojson scaling = ojson::array(), isas = ojson::array();
  for (size_t k = 0; k < run.kernels.size(); ++k) {
    ojson th = ojson::array(), sec = ojson::array(), is = ojson::array(), isec = ojson::array(), paths = ojson::array();
    std::vector<std::pair<int, double>> ts;
    for (size_t c = 0; c < run.configs.size(); ++c) {
      if (run.configs[c].isa == m.isa) ts.push_back({run.configs[c].threads, stats(run.at(k, c).seconds).median});
      if (run.configs[c].threads == m.threads) {
        is.push_back(posenc_isa_name(run.configs[c].isa));
        isec.push_back(stats(run.at(k, c).seconds).median);
        paths.push_back(run.at(k, c).path);
      }
    }
    std::sort(ts.begin(), ts.end());
    for (auto& x : ts) th.push_back(x.first), sec.push_back(x.second);
    const double sp = ts.front().second / ts.back().second;
    scaling.push_back({{"kernel", run.kernels[k].kernel}, {"isa", posenc_isa_name(m.isa)}, {"threads", th},
                       {"seconds_per_call", sec}, {"speedup", sp},
                       {"efficiency", sp / (double(ts.back().first) / ts.front().first)}});
    isas.push_back({{"kernel", run.kernels[k].kernel}, {"threads", m.threads}, {"isas", is}, {"seconds_per_call", isec},
                    {"paths", paths}});
  }
  j["thread_scaling"] = scaling;
  j["isa_comparison"] = isas;
  return j;
}

std::string roofline_csv(Run& run) {
  std::string s = "family,kernel,isa,threads,path,intensity_flops_per_byte,gflops_per_s,gbytes_per_s,flops_precision,"
                  "memcpy_gbytes_per_s,fma_gflops_per_s_f64,fma_gflops_per_s_f32\n";
  std::vector<double> bw, f64, f32;
  for (const auto& p : run.peaks[run.main])
    bw.push_back(p.memcpy_bytes_per_s), f64.push_back(p.fma_flops_per_s_f64), f32.push_back(p.fma_flops_per_s_f32);
  const Config& m = run.configs[run.main];
  for (size_t k = 0; k < run.kernels.size(); ++k) {
    const Result& r = run.at(k, run.main);
    const double t = stats(r.seconds).median;
    s += strf("%s,%s,%s,%d,%s,%.6g,%.6g,%.6g,%s,%.6g,%.6g,%.6g\n", run.kernels[k].family.c_str(),
              run.kernels[k].kernel.c_str(), posenc_isa_name(m.isa), m.threads, r.path.c_str(),
              r.bytes > 0 ? r.flops / r.bytes : 0.0, r.flops / t * 1e-9, r.bytes / t * 1e-9, r.f32 ? "f32" : "f64",
              stats(bw).median * 1e-9, stats(f64).median * 1e-9, stats(f32).median * 1e-9);
  }
  return s;
}

/// Writes text to path through a temporary file and a rename (never a half-written file).
void write_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    f << text;
    f.close();
    if (!f) throw std::runtime_error("write error on " + tmp);
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) throw std::runtime_error("cannot rename " + tmp + " to " + path + ": " + ec.message());
}

// ---------------------------------------------------------------- the plot
/// The folder that holds posenc/roofline_plot.py: the source tree's python/, or the package
/// installed next to this executable (<prefix>/lib/python3*/...-packages).
std::string plot_script() {
  std::vector<fs::path> cands;
#ifdef POSENC_SOURCE_PYTHON_DIR
  cands.push_back(POSENC_SOURCE_PYTHON_DIR);
#endif
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path lib = exe.parent_path().parent_path() / "lib";
    cands.push_back(lib / "python3" / "dist-packages");
    for (const auto& d : fs::directory_iterator(lib, ec))
      if (d.path().filename().string().rfind("python3", 0) == 0)
        for (const char* sub : {"dist-packages", "site-packages"}) cands.push_back(d.path() / sub);
  }
  for (const auto& c : cands)
    if (fs::exists(c / "posenc" / "roofline_plot.py", ec)) return (c / "posenc" / "roofline_plot.py").string();
  return "";
}

/// Runs the plotting script; says once on stderr why there is no plot. The data stays either way.
void draw_plot(const std::string& csv, const std::string& png) {
  const std::string script = plot_script();
  const std::string later = "the data is in " + csv + "; draw it later with: python3 -m posenc.roofline_plot " + csv + " " + png;
  if (script.empty()) {
    std::fprintf(stderr, "posenc profile: no roofline plot: posenc/roofline_plot.py not found (%s)\n", later.c_str());
    return;
  }
  const char* env_py = std::getenv("POSENC_PYTHON");
  std::string py = env_py && *env_py ? env_py : (access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3");
  std::vector<std::string> args = {py, script, "--quiet", csv, png};  // --quiet: the one message is ours
  std::vector<char*> av;
  for (auto& a : args) av.push_back(a.data());
  av.push_back(nullptr);
  pid_t pid;
  if (posix_spawnp(&pid, py.c_str(), nullptr, nullptr, av.data(), environ) != 0) {
    std::fprintf(stderr, "posenc profile: no roofline plot: cannot run %s (%s)\n", py.c_str(), later.c_str());
    return;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (rc == 0) std::printf("\nroofline plot: %s (data: %s)\n", png.c_str(), csv.c_str());
  else if (rc == 3) std::fprintf(stderr, "posenc profile: no roofline plot: matplotlib is not installed for %s (%s)\n", py.c_str(), later.c_str());
  else std::fprintf(stderr, "posenc profile: no roofline plot: %s %s failed (exit %d; %s)\n", py.c_str(), script.c_str(), rc, later.c_str());
}

/// Selected kernels (sorted by order) set up, configurations and results sized.
void prepare(Run& run, const std::vector<std::string>& families) {
  auto ks = profile_kernels();
  std::stable_sort(ks.begin(), ks.end(), [](const ProfileKernel& a, const ProfileKernel& b) { return a.order < b.order; });
  for (const auto& k : ks)
    if (families.empty() || std::find(families.begin(), families.end(), k.family) != families.end())
      run.kernels.push_back(k);
  run.peaks.resize(run.configs.size());
  run.results.resize(run.kernels.size() * run.configs.size());
}

// Experiment 7 of `posenc report`: the kernel table of the active ISA and thread count, one round.
void exp_throughput(Report& rep) {
  Run run;
  run.rounds = 1;
  run.quick = rep.quick();
  run.configs.push_back({posenc_isa_active(), posenc_threads_get()});
  prepare(run, {});
  for (const auto& k : run.kernels) run.cases.push_back(k.setup(run.quick));
  measure_round(run, 0);
  const posenc_roofline& p = run.peaks[0][0];
  rep.md() << strf("Active ISA **%s**, %d thread(s). memcpy: %.2f GB/s (read + write); FMA peak: %.1f GFLOP/s f64, "
                   "%.1f f32 (posenc_roofline_measure, in the same run as the kernels).\n",
                   posenc_isa_name(p.isa), p.threads, p.memcpy_bytes_per_s / 1e9, p.fma_flops_per_s_f64 / 1e9,
                   p.fma_flops_per_s_f32 / 1e9);
  rep.md() << "Bytes and flops are the library's model of the path each call took (`posenc_last_call_info`); the "
              "fraction is of the memcpy bandwidth for memory-bound calls and of the FMA peak of the call's precision "
              "for compute-bound ones. A memcpy fraction above 100% means the working set stays in cache. "
              "`posenc profile` adds rounds with their spread, thread scaling, the ISA comparison and the roofline "
              "plot.\n";
  std::vector<std::vector<std::string>> t;
  for (size_t k = 0; k < run.kernels.size(); ++k) {
    const Result& r = run.at(k, 0);
    const ProfileCase& pc = run.cases[k];
    const double s = r.seconds[0];
    t.push_back({run.kernels[k].family, run.kernels[k].kernel, pc.shape, "`" + r.path + "`",
                 fmt_si(pc.items / s, (pc.unit + "/s").c_str()), ms(s), pct(r.mem_frac), pct(r.fma_frac), bound_of(r)});
    const std::string& kn = run.kernels[k].kernel;
    if (kn == "sinusoidal_f32" || kn == "rope_apply_f32" || kn == "sph_harm_real_f64" || kn == "rf_features_f32" ||
        kn == "learned_add_f32" || kn == "laplacian_pe_f64")
      rep.summary("7 throughput", kn + " " + pc.shape,
                  fmt_si(pc.items / s, (pc.unit + "/s").c_str()) +
                      (bound_of(r) == "memory"    ? strf(" (%.0f%% memcpy)", 100 * r.mem_frac[0])
                       : bound_of(r) == "compute" ? strf(" (%.1f%% FMA peak)", 100 * r.fma_frac[0])
                                                  : std::string()));
  }
  rep.table({"family", "kernel", "shape", "path", "throughput", "time/call", "% memcpy", "% FMA peak", "bound"}, t);
}
RegisterExperiment reg_throughput(70, "throughput", "7. Throughput (posenc profile, active ISA)", exp_throughput);

}  // namespace

int cmd_profile(const ProfileOptions& opt) {
  // 1. Validate every argument before any set-up.
  std::vector<posenc_isa> isas;
  if (opt.isa.empty() || opt.isa == "all") {
    for (posenc_isa i : kIsaOrder)
      if (posenc_isa_available() & i) isas.push_back(i);
  } else if (opt.isa == "auto") {
    isas.push_back(posenc_isa_active());
  } else {
    bool known = false;
    for (posenc_isa i : kIsaOrder)
      if (opt.isa == posenc_isa_name(i)) known = true, isas.push_back(i);
    if (!known) {
      std::fprintf(stderr, "posenc profile: --isa must be one of all auto scalar avx2 avx512 neon (got '%s')\n", opt.isa.c_str());
      return 2;
    }
    if (!(posenc_isa_available() & isas[0])) {
      std::fprintf(stderr, "posenc profile: --isa %s is not runnable here (runnable: %s)\n", opt.isa.c_str(), runnable_names().c_str());
      return 2;
    }
  }
  std::set<std::string> families;
  for (const auto& k : profile_kernels()) families.insert(k.family);
  const std::vector<std::string> want = split_list(opt.family);
  for (const auto& f : want)
    if (!families.count(f)) {
      std::string have;
      for (const auto& x : families) have += " " + x;
      std::fprintf(stderr, "posenc profile: --family: unknown family '%s' (families with kernels in this build:%s)\n",
                   f.c_str(), have.c_str());
      return 2;
    }
  if (opt.rounds < 1 || opt.rounds > 100) {
    std::fprintf(stderr, "posenc profile: --rounds must be in [1, 100] (got %d)\n", opt.rounds);
    return 2;
  }
  if (!opt.json.empty()) {
    std::ofstream probe_json(opt.json + ".tmp");
    if (!probe_json) {
      std::fprintf(stderr, "posenc profile: cannot write --json '%s': %s\n", opt.json.c_str(), std::strerror(errno));
      return 2;
    }
    probe_json.close();
    std::remove((opt.json + ".tmp").c_str());
  }
  std::error_code ec;
  fs::create_directories(opt.out, ec);
  if (ec || !fs::is_directory(opt.out) || access(opt.out.c_str(), W_OK) != 0) {
    std::fprintf(stderr, "posenc profile: cannot create output folder '%s': %s\n", opt.out.c_str(),
                 ec ? ec.message().c_str() : "not a writable directory");
    return 2;
  }
  posenc_threads_set(0);
  const int hw = posenc_threads_get();
  std::vector<int> threads;
  if (opt.threads >= 0) {
    threads.push_back(opt.threads == 0 ? hw : opt.threads);
  } else {
    for (int t = 1; t < hw; t *= 2) threads.push_back(t);
    threads.push_back(hw);
  }

  // 2. Set up the selected kernels only.
  Run run;
  run.rounds = opt.rounds;
  run.quick = opt.quick;
  const posenc_isa main_isa = isas.back();
  const int main_threads = threads.back();
  for (posenc_isa i : isas) run.configs.push_back({i, main_threads});
  run.main = run.configs.size() - 1;
  for (int t : threads)
    if (t != main_threads) run.configs.push_back({main_isa, t});
  prepare(run, want);
  if (run.kernels.empty()) {
    std::fprintf(stderr, "posenc profile: no kernel is built into this posenc\n");
    return 2;
  }
  std::fprintf(stderr, "posenc profile: setting up %zu kernel(s), %zu configuration(s) x %d round(s)\n", run.kernels.size(),
               run.configs.size(), run.rounds);
  for (const auto& k : run.kernels) run.cases.push_back(k.setup(opt.quick));

  // 3. Measure: every round visits every configuration (peaks first, then each kernel).
  for (int r = 0; r < run.rounds; ++r) measure_round(run, r);
  set_config(run.configs[run.main]);

  // 4. Report.
  std::printf("posenc %s profile — ISAs %s, threads", posenc_version_string(), [&] {
    std::string s;
    for (posenc_isa i : isas) s += std::string(s.empty() ? "" : " ") + posenc_isa_name(i);
    return s;
  }().c_str());
  for (int t : threads) std::printf(" %d", t);
  std::printf(" (hardware %d), %d round(s)%s\n\n", hw, run.rounds, opt.quick ? ", --quick" : "");
  print_tables(run);
  const std::string json = build_json(run, opt, hw).dump(2) + "\n";
  const std::string csv = (fs::path(opt.out) / "roofline.csv").string(), png = (fs::path(opt.out) / "roofline.png").string();
  write_file((fs::path(opt.out) / "profile.json").string(), json);
  write_file(csv, roofline_csv(run));
  if (!opt.json.empty()) write_file(opt.json, json);
  std::printf("\nwrote %s/profile.json and %s\n", opt.out.c_str(), csv.c_str());
  draw_plot(csv, png);
  return 0;
}

}  // namespace posenc_cli
