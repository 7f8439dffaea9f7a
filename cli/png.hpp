// SPDX-License-Identifier: Apache-2.0 OR MIT
// png.hpp — a small self-contained PNG line-plot writer (zlib deflate), so that `posenc report`
// needs no Python or plotting library at run time.
#pragma once

#include <string>
#include <vector>

namespace posenc_cli {

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

/// Renders `plot` as an 8-bit RGB PNG at `path`. Returns false and sets *err on failure.
bool write_png_plot(const std::string& path, const Plot& plot, std::string* err);

}  // namespace posenc_cli
