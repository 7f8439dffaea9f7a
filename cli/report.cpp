// SPDX-License-Identifier: Apache-2.0 OR MIT
// report.cpp — Report output helpers and the experiment registry.
#include "cli/report.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <cmath>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "posenc/posenc.h"

extern char** environ;

namespace posenc_cli {

std::string strf(const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

std::string Report::data_file(const std::string& name) const {
  const std::string p = data_ + "/" + name;
  std::ifstream f(p);
  if (!f) throw std::runtime_error("missing data file " + p + " (set --data DIR or POSENC_DATA)");
  return p;
}

void Report::table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  md_ << "\n|";
  for (const auto& h : header) md_ << ' ' << h << " |";
  md_ << "\n|";
  for (size_t i = 0; i < header.size(); ++i) md_ << "---|";
  md_ << '\n';
  for (const auto& r : rows) {
    md_ << '|';
    for (const auto& c : r) md_ << ' ' << c << " |";
    md_ << '\n';
  }
  md_ << '\n';
}

void Report::csv(const std::string& name, const std::vector<std::string>& header,
                 const std::vector<std::vector<double>>& columns) {
  const std::string path = out_ + "/" + name + ".csv";
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  for (size_t j = 0; j < header.size(); ++j) std::fprintf(f, "%s%s", j ? "," : "", header[j].c_str());
  std::fputc('\n', f);
  const size_t rows = columns.empty() ? 0 : columns[0].size();
  for (size_t i = 0; i < rows; ++i) {
    for (size_t j = 0; j < columns.size(); ++j)
      std::fprintf(f, "%s%.17g", j ? "," : "", i < columns[j].size() ? columns[j][i] : 0.0);
    std::fputc('\n', f);
  }
  if (std::fclose(f) != 0) throw std::runtime_error("write error on " + path);
  md_ << "Data: [" << name << ".csv](" << name << ".csv)\n\n";
}

void Report::plot(const std::string& name, const Plot& p) {
  nlohmann::ordered_json j;
  j["title"] = p.title, j["xlabel"] = p.xlabel, j["ylabel"] = p.ylabel;
  j["logx"] = p.logx, j["logy"] = p.logy, j["legend"] = p.legend;
  j["width"] = p.width, j["height"] = p.height;
  j["series"] = nlohmann::ordered_json::array();
  auto num = [](const std::vector<double>& v) {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (double x : v) a.push_back(std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json(nullptr));
    return a;
  };
  for (const Series& s : p.series)
    j["series"].push_back({{"name", s.name}, {"points", s.points}, {"x", num(s.x)}, {"y", num(s.y)}});
  const std::string path = out_ + "/" + name + ".plot.json";
  std::ofstream f(path);
  f << j.dump() << '\n';
  f.close();
  if (!f) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  plots_.emplace_back(name, p.title);
  md_ << "![" << p.title << "](" << name << ".png) ([SVG](" << name << ".svg))\n\n";
}

namespace {
/// posenc/report_plots.py: the source tree's python/, or the package installed next to this
/// executable (<prefix>/lib/python3*/{dist,site}-packages).
std::string report_plots_script() {
  namespace fs = std::filesystem;
  std::vector<fs::path> cands;
#ifdef POSENC_SOURCE_PYTHON_DIR
  cands.push_back(POSENC_SOURCE_PYTHON_DIR);
#endif
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path lib = exe.parent_path().parent_path() / "lib";
    for (const auto& d : fs::directory_iterator(lib, ec))
      if (d.path().filename().string().rfind("python3", 0) == 0)
        for (const char* sub : {"dist-packages", "site-packages"}) cands.push_back(d.path() / sub);
  }
  for (const auto& c : cands)
    if (fs::exists(c / "posenc" / "report_plots.py", ec)) return (c / "posenc" / "report_plots.py").string();
  return "";
}
}  // namespace

std::string Report::draw_plots() const {
  if (plots_.empty()) return "";
  const std::string script = report_plots_script();
  std::string why;
  if (script.empty()) {
    why = "posenc/report_plots.py was not found";
  } else {
    const char* env_py = std::getenv("POSENC_PYTHON");
    std::string py = env_py && *env_py ? env_py : (access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3");
    std::vector<std::string> args = {py, script, "--quiet", out_};
    std::vector<char*> av;
    for (auto& a : args) av.push_back(a.data());
    av.push_back(nullptr);
    pid_t pid;
    if (posix_spawnp(&pid, py.c_str(), nullptr, nullptr, av.data(), environ) != 0) {
      why = "cannot run " + py;
    } else {
      int status = 0;
      waitpid(pid, &status, 0);
      const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      if (rc == 3) why = "matplotlib is not installed for " + py;
      else if (rc != 0) why = py + " " + script + " failed (exit " + std::to_string(rc) + ")";
    }
  }
  if (!why.empty())
    std::fprintf(stderr, "posenc report: plots not drawn: %s; the CSVs and report.md are complete "
                         "(draw later: python3 -m posenc.report_plots %s)\n", why.c_str(), out_.c_str());
  return why;
}

std::string Report::with_plots(const std::string& md, const std::string& reason) const {
  std::string s = md;
  for (const auto& [name, title] : plots_) {
    const std::string img = "![" + title + "](" + name + ".png) ([SVG](" + name + ".svg))";
    std::error_code ec;
    if (std::filesystem::exists(out_ + "/" + name + ".png", ec)) continue;
    const std::string note = "_(plot " + name + " not drawn: " + (reason.empty() ? "no PNG" : reason) +
                             "; its description and data are in " + name + ".plot.json)_";
    for (size_t p = s.find(img); p != std::string::npos; p = s.find(img, p + note.size())) s.replace(p, img.size(), note);
  }
  return s;
}

void Report::summary(const std::string& experiment, const std::string& what, const std::string& value) {
  summary_.push_back({experiment, what, value});
}

void Report::progress(const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "  %s\n", buf);
  std::fflush(stderr);
}

struct Report::Phase::State {
  std::string what;
  double t0;
  bool tty;
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::thread ticker;
};

Report::Phase::Phase(std::string what) : s_(new State) {
  s_->what = std::move(what);
  s_->t0 = now_s();
  s_->tty = isatty(fileno(stderr)) != 0;
  std::fprintf(stderr, "  %s ...%s", s_->what.c_str(), s_->tty ? "" : "\n");
  std::fflush(stderr);
  State* s = s_;
  s_->ticker = std::thread([s] {
    std::unique_lock<std::mutex> lk(s->m);
    const auto step = std::chrono::milliseconds(s->tty ? 1000 : 10000);
    while (!s->cv.wait_for(lk, step, [s] { return s->done; })) {
      if (s->tty)
        std::fprintf(stderr, "\r  %s ... %.0f s", s->what.c_str(), now_s() - s->t0);
      else
        std::fprintf(stderr, "  %s: %.0f s so far\n", s->what.c_str(), now_s() - s->t0);
      std::fflush(stderr);
    }
  });
}

Report::Phase::~Phase() {
  {
    std::lock_guard<std::mutex> lk(s_->m);
    s_->done = true;
  }
  s_->cv.notify_all();
  s_->ticker.join();
  std::fprintf(stderr, "%s  %s: %s %.1f s\n", s_->tty ? "\r" : "", s_->what.c_str(),
               std::uncaught_exceptions() > 0 ? "stopped after" : "done in", now_s() - s_->t0);
  std::fflush(stderr);
  delete s_;
}

std::vector<Experiment>& experiments() {
  static std::vector<Experiment> v;
  return v;
}

}  // namespace posenc_cli
