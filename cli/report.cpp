// SPDX-License-Identifier: Apache-2.0 OR MIT
// report.cpp — Report output helpers and the experiment registry.
#include "cli/report.hpp"

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <thread>

#include "posenc/posenc.h"

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
  std::string err;
  if (!write_png_plot(out_ + "/" + name + ".png", p, &err)) throw std::runtime_error(err);
  md_ << "![" << p.title << "](" << name << ".png)\n\n";
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

std::vector<Experiment>& experiments() {
  static std::vector<Experiment> v;
  return v;
}

}  // namespace posenc_cli
