// SPDX-License-Identifier: Apache-2.0 OR MIT
// report.hpp — the pieces shared by `posenc report` experiments: the output folder (report.md,
// CSVs, plots drawn by python/posenc/report_plots.py with matplotlib), the one-screen summary,
// progress on stderr, the registry that experiment files add themselves to, and the real-data
// loaders (cli/data.cpp). `posenc profile`: cli/profile.hpp.
//
// An experiment file cli/exp_<family>.cpp (or prof_<family>.cpp) starts with a line
// `// requires: posenc_a posenc_b ...`; cli/CMakeLists.txt stops the configure with an error
// naming the file and the function when no include/posenc/*.h declares one of them
// (a renamed function must not make a part of the report disappear).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>


namespace posenc_cli {

/// Wall-clock seconds since an arbitrary origin.
inline double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

/// One curve: (x[i], y[i]) joined by straight segments; non-finite points (and, on a log axis,
/// points <= 0) break the line. points = true draws markers instead of a line.
struct Series {
  std::string name;
  std::vector<double> x, y;
  bool points = false;
};

/// A 2-D line plot: title, axis labels, optional log10 axes, and its curves (up to 8 colors).
struct Plot {
  std::string title, xlabel, ylabel;
  bool logx = false, logy = false;
  std::vector<Series> series;
  int width = 900, height = 560;
  int legend = 0;  ///< legend corner: 0 top-right, 1 bottom-right, 2 top-left, 3 bottom-left
};

/// printf into a std::string.
std::string strf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

/// The state of one `posenc report` run.
class Report {
 public:
  Report(std::string out_dir, std::string data_dir, bool quick)
      : out_(std::move(out_dir)), data_(std::move(data_dir)), quick_(quick) {}
  bool quick() const { return quick_; }
  const std::string& out_dir() const { return out_; }
  /// Path of a shipped data file; throws std::runtime_error naming it if it is missing.
  std::string data_file(const std::string& name) const;

  /// Markdown text appended to report.md.
  std::ostringstream& md() { return md_; }
  /// A markdown table (header + rows) appended to report.md.
  void table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);
  /// DIR/<name>.csv with the given columns (all the same length); links it from report.md.
  void csv(const std::string& name, const std::vector<std::string>& header,
           const std::vector<std::vector<double>>& columns);
  /// DIR/<name>.plot.json (the plot and its data); report.md embeds DIR/<name>.png, which
  /// draw_plots() renders with matplotlib (PNG and SVG) after the experiments.
  void plot(const std::string& name, const Plot& p);
  /// Runs posenc/report_plots.py on the output folder. Returns "" when every plot was drawn,
  /// else the reason (said once on stderr); report.md then names the reason instead of the images.
  std::string draw_plots() const;
  /// Text of report.md with every plot that was not drawn replaced by a note naming `reason`.
  std::string with_plots(const std::string& md, const std::string& reason) const;
  /// One line of the one-screen summary (experiment, quantity, value).
  void summary(const std::string& experiment, const std::string& what, const std::string& value);
  const std::vector<std::vector<std::string>>& summary_rows() const { return summary_; }
  /// Progress line on stderr ("  <text>").
  void progress(const char* fmt, ...) __attribute__((format(printf, 2, 3)));

  /// A phase that may take more than a few seconds (a data load, an eigensolve): announces it on
  /// stderr, keeps showing the elapsed time while it runs (an updating line on a terminal, a line
  /// every 10 s otherwise) and prints "done in X s" when the object goes out of scope.
  class Phase {
   public:
    explicit Phase(std::string what);
    ~Phase();
    Phase(const Phase&) = delete;
    Phase& operator=(const Phase&) = delete;

   private:
    struct State;
    State* s_;
  };

 private:
  std::string out_, data_;
  bool quick_;
  std::ostringstream md_;
  std::vector<std::vector<std::string>> summary_;
  std::vector<std::pair<std::string, std::string>> plots_;  ///< (name, title)
};

/// An experiment of `posenc report`: runs, writes its section into the report, adds summary lines.
struct Experiment {
  int order;
  std::string id, title;
  std::function<void(Report&)> run;
};
std::vector<Experiment>& experiments();
struct RegisterExperiment {
  RegisterExperiment(int order, const char* id, const char* title, std::function<void(Report&)> fn) {
    experiments().push_back({order, id, title, std::move(fn)});
  }
};

// ------------------------------------------------------------------ real data (cli/data.cpp)
/// A city from tzdata's zone1970.tab: TZ name and geographic position in degrees.
struct City {
  std::string tz;
  double lon_deg, lat_deg;
};
/// Parses zone1970.tab (ISO 6709 ±DDMM[SS]±DDDMM[SS]); throws std::runtime_error on bad lines.
std::vector<City> load_zone1970(const std::string& path);
/// Undirected graph as an edge list with node names (names may be empty).
struct Graph {
  int64_t num_nodes = 0;
  std::vector<int64_t> src, dst;
  std::vector<std::string> names;
  std::string header;  ///< the '#' comment lines of the file
};
/// "u v" per line, '#' comments; num_nodes = 1 + max id.
Graph load_edge_list(const std::string& path);
/// The gzip graph format of data/debian-bookworm-depends.txt.gz (see data/README.md).
Graph load_gz_graph(const std::string& path);
/// Largest connected component, renumbered 0..n-1 in original order.
Graph largest_component(const Graph& g);

}  // namespace posenc_cli
