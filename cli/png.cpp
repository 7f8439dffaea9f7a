// SPDX-License-Identifier: Apache-2.0 OR MIT
// png.cpp — raster line plots written as PNG (IHDR, one zlib IDAT, IEND; CRCs from zlib).
#include "cli/png.hpp"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace posenc_cli {
namespace {

// Classic 5x7 ASCII font (columns, LSB = top row), characters 32..126.
const uint8_t kFont[95][5] = {
    {0x00, 0x00, 0x00, 0x00, 0x00}, {0x00, 0x00, 0x5F, 0x00, 0x00}, {0x00, 0x07, 0x00, 0x07, 0x00},
    {0x14, 0x7F, 0x14, 0x7F, 0x14}, {0x24, 0x2A, 0x7F, 0x2A, 0x12}, {0x23, 0x13, 0x08, 0x64, 0x62},
    {0x36, 0x49, 0x55, 0x22, 0x50}, {0x00, 0x05, 0x03, 0x00, 0x00}, {0x00, 0x1C, 0x22, 0x41, 0x00},
    {0x00, 0x41, 0x22, 0x1C, 0x00}, {0x08, 0x2A, 0x1C, 0x2A, 0x08}, {0x08, 0x08, 0x3E, 0x08, 0x08},
    {0x00, 0x50, 0x30, 0x00, 0x00}, {0x08, 0x08, 0x08, 0x08, 0x08}, {0x00, 0x60, 0x60, 0x00, 0x00},
    {0x20, 0x10, 0x08, 0x04, 0x02}, {0x3E, 0x51, 0x49, 0x45, 0x3E}, {0x00, 0x42, 0x7F, 0x40, 0x00},
    {0x42, 0x61, 0x51, 0x49, 0x46}, {0x21, 0x41, 0x45, 0x4B, 0x31}, {0x18, 0x14, 0x12, 0x7F, 0x10},
    {0x27, 0x45, 0x45, 0x45, 0x39}, {0x3C, 0x4A, 0x49, 0x49, 0x30}, {0x01, 0x71, 0x09, 0x05, 0x03},
    {0x36, 0x49, 0x49, 0x49, 0x36}, {0x06, 0x49, 0x49, 0x29, 0x1E}, {0x00, 0x36, 0x36, 0x00, 0x00},
    {0x00, 0x56, 0x36, 0x00, 0x00}, {0x08, 0x14, 0x22, 0x41, 0x00}, {0x14, 0x14, 0x14, 0x14, 0x14},
    {0x00, 0x41, 0x22, 0x14, 0x08}, {0x02, 0x01, 0x51, 0x09, 0x06}, {0x32, 0x49, 0x79, 0x41, 0x3E},
    {0x7E, 0x11, 0x11, 0x11, 0x7E}, {0x7F, 0x49, 0x49, 0x49, 0x36}, {0x3E, 0x41, 0x41, 0x41, 0x22},
    {0x7F, 0x41, 0x41, 0x22, 0x1C}, {0x7F, 0x49, 0x49, 0x49, 0x41}, {0x7F, 0x09, 0x09, 0x01, 0x01},
    {0x3E, 0x41, 0x41, 0x51, 0x32}, {0x7F, 0x08, 0x08, 0x08, 0x7F}, {0x00, 0x41, 0x7F, 0x41, 0x00},
    {0x20, 0x40, 0x41, 0x3F, 0x01}, {0x7F, 0x08, 0x14, 0x22, 0x41}, {0x7F, 0x40, 0x40, 0x40, 0x40},
    {0x7F, 0x02, 0x04, 0x02, 0x7F}, {0x7F, 0x04, 0x08, 0x10, 0x7F}, {0x3E, 0x41, 0x41, 0x41, 0x3E},
    {0x7F, 0x09, 0x09, 0x09, 0x06}, {0x3E, 0x41, 0x51, 0x21, 0x5E}, {0x7F, 0x09, 0x19, 0x29, 0x46},
    {0x46, 0x49, 0x49, 0x49, 0x31}, {0x01, 0x01, 0x7F, 0x01, 0x01}, {0x3F, 0x40, 0x40, 0x40, 0x3F},
    {0x1F, 0x20, 0x40, 0x20, 0x1F}, {0x7F, 0x20, 0x18, 0x20, 0x7F}, {0x63, 0x14, 0x08, 0x14, 0x63},
    {0x03, 0x04, 0x78, 0x04, 0x03}, {0x61, 0x51, 0x49, 0x45, 0x43}, {0x00, 0x7F, 0x41, 0x41, 0x00},
    {0x02, 0x04, 0x08, 0x10, 0x20}, {0x00, 0x41, 0x41, 0x7F, 0x00}, {0x04, 0x02, 0x01, 0x02, 0x04},
    {0x40, 0x40, 0x40, 0x40, 0x40}, {0x00, 0x01, 0x02, 0x04, 0x00}, {0x20, 0x54, 0x54, 0x54, 0x78},
    {0x7F, 0x48, 0x44, 0x44, 0x38}, {0x38, 0x44, 0x44, 0x44, 0x20}, {0x38, 0x44, 0x44, 0x48, 0x7F},
    {0x38, 0x54, 0x54, 0x54, 0x18}, {0x08, 0x7E, 0x09, 0x01, 0x02}, {0x0C, 0x52, 0x52, 0x52, 0x3E},
    {0x7F, 0x08, 0x04, 0x04, 0x78}, {0x00, 0x44, 0x7D, 0x40, 0x00}, {0x20, 0x40, 0x44, 0x3D, 0x00},
    {0x7F, 0x10, 0x28, 0x44, 0x00}, {0x00, 0x41, 0x7F, 0x40, 0x00}, {0x7C, 0x04, 0x18, 0x04, 0x78},
    {0x7C, 0x08, 0x04, 0x04, 0x78}, {0x38, 0x44, 0x44, 0x44, 0x38}, {0x7C, 0x14, 0x14, 0x14, 0x08},
    {0x08, 0x14, 0x14, 0x18, 0x7C}, {0x7C, 0x08, 0x04, 0x04, 0x08}, {0x48, 0x54, 0x54, 0x54, 0x20},
    {0x04, 0x3F, 0x44, 0x40, 0x20}, {0x3C, 0x40, 0x40, 0x20, 0x7C}, {0x1C, 0x20, 0x40, 0x20, 0x1C},
    {0x3C, 0x40, 0x30, 0x40, 0x3C}, {0x44, 0x28, 0x10, 0x28, 0x44}, {0x0C, 0x50, 0x50, 0x50, 0x3C},
    {0x44, 0x64, 0x54, 0x4C, 0x44}, {0x00, 0x08, 0x36, 0x41, 0x00}, {0x00, 0x00, 0x7F, 0x00, 0x00},
    {0x00, 0x41, 0x36, 0x08, 0x00}, {0x08, 0x04, 0x08, 0x10, 0x08}};

struct Rgb {
  uint8_t r, g, b;
};
const Rgb kPalette[8] = {{31, 119, 180}, {214, 39, 40},  {44, 160, 44},  {255, 127, 14},
                         {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {23, 190, 207}};

class Canvas {
 public:
  Canvas(int w, int h) : w_(w), h_(h), px_(size_t(w) * h * 3, 255) {}
  void set(int x, int y, Rgb c) {
    if (x < 0 || y < 0 || x >= w_ || y >= h_) return;
    uint8_t* p = &px_[(size_t(y) * w_ + x) * 3];
    p[0] = c.r, p[1] = c.g, p[2] = c.b;
  }
  void rect(int x0, int y0, int x1, int y1, Rgb c) {
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x) set(x, y, c);
  }
  void line(double x0, double y0, double x1, double y1, Rgb c, int thick) {
    const double len = std::max(std::fabs(x1 - x0), std::fabs(y1 - y0));
    const int steps = std::max(1, int(std::ceil(len)));
    for (int i = 0; i <= steps; ++i) {
      const double t = double(i) / steps;
      const int x = int(std::lround(x0 + t * (x1 - x0))), y = int(std::lround(y0 + t * (y1 - y0)));
      rect(x - thick / 2, y - thick / 2, x + (thick - 1) / 2, y + (thick - 1) / 2, c);
    }
  }
  // Text at (x, y) = top-left, 2x scaled 5x7 glyphs; vertical = rotated 90 degrees (bottom-up).
  void text(int x, int y, const std::string& s, Rgb c, int scale = 2, bool vertical = false) {
    int pos = 0;
    for (unsigned char ch : s) {
      const uint8_t* g = kFont[(ch >= 32 && ch < 127) ? ch - 32 : '?' - 32];
      for (int col = 0; col < 5; ++col)
        for (int row = 0; row < 7; ++row)
          if (g[col] >> row & 1)
            for (int a = 0; a < scale; ++a)
              for (int b = 0; b < scale; ++b) {
                const int u = (pos * 6 + col) * scale + a, v = row * scale + b;
                if (vertical) set(x + v, y - u, c);
                else set(x + u, y + v, c);
              }
      ++pos;
    }
  }
  static int text_width(const std::string& s, int scale = 2) { return int(s.size()) * 6 * scale; }
  bool write(const std::string& path, std::string* err) const {
    std::vector<uint8_t> raw;
    raw.reserve(size_t(h_) * (w_ * 3 + 1));
    for (int y = 0; y < h_; ++y) {
      raw.push_back(0);
      raw.insert(raw.end(), px_.begin() + size_t(y) * w_ * 3, px_.begin() + size_t(y + 1) * w_ * 3);
    }
    uLongf zlen = compressBound(uLong(raw.size()));
    std::vector<uint8_t> z(zlen);
    if (compress2(z.data(), &zlen, raw.data(), uLong(raw.size()), 6) != Z_OK) {
      *err = "zlib compress2 failed";
      return false;
    }
    z.resize(zlen);
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) {
      *err = "cannot open " + path + " for writing: " + std::strerror(errno);
      return false;
    }
    static const uint8_t sig[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    std::fwrite(sig, 1, 8, f);
    auto be32 = [](uint8_t* p, uint32_t v) { p[0] = v >> 24, p[1] = v >> 16, p[2] = v >> 8, p[3] = uint8_t(v); };
    auto chunk = [&](const char* type, const uint8_t* data, size_t n) {
      uint8_t hdr[8];
      be32(hdr, uint32_t(n));
      std::memcpy(hdr + 4, type, 4);
      std::fwrite(hdr, 1, 8, f);
      if (n) std::fwrite(data, 1, n, f);
      uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(type), 4);
      if (n) crc = crc32(crc, data, uInt(n));
      uint8_t c[4];
      be32(c, uint32_t(crc));
      std::fwrite(c, 1, 4, f);
    };
    uint8_t ihdr[13];
    be32(ihdr, uint32_t(w_));
    be32(ihdr + 4, uint32_t(h_));
    ihdr[8] = 8, ihdr[9] = 2, ihdr[10] = 0, ihdr[11] = 0, ihdr[12] = 0;  // 8-bit RGB
    chunk("IHDR", ihdr, 13);
    chunk("IDAT", z.data(), z.size());
    chunk("IEND", nullptr, 0);
    const bool ok = std::ferror(f) == 0;
    if (std::fclose(f) != 0 || !ok) {
      *err = "write error on " + path;
      return false;
    }
    return true;
  }

 private:
  int w_, h_;
  std::vector<uint8_t> px_;
};

std::string fmt_tick(double v) {
  char b[32];
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a >= 1e5 || a < 1e-3) std::snprintf(b, sizeof b, "%.3g", v);
  else std::snprintf(b, sizeof b, "%g", v);
  return b;
}

// "Nice" linear ticks covering [lo, hi].
std::vector<double> nice_ticks(double lo, double hi) {
  const double span = hi - lo;
  const double raw = span / 6;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  double step = p;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * p >= raw) {
      step = m * p;
      break;
    }
  std::vector<double> t;
  for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + 1e-9 * step; v += step)
    t.push_back(std::fabs(v) < 1e-12 * step ? 0.0 : v);
  return t;
}

}  // namespace

bool write_png_plot(const std::string& path, const Plot& plot, std::string* err) {
  const int W = plot.width, H = plot.height;
  const int left = 110, right = 24, top = 44, bottom = 70;
  Canvas cv(W, H);
  auto tx = [&](double v, bool lg) { return lg ? std::log10(v) : v; };
  auto usable = [&](double x, double y) {
    return std::isfinite(x) && std::isfinite(y) && (!plot.logx || x > 0) && (!plot.logy || y > 0);
  };
  double x0 = HUGE_VAL, x1 = -HUGE_VAL, y0 = HUGE_VAL, y1 = -HUGE_VAL;
  for (const Series& s : plot.series)
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
      if (usable(s.x[i], s.y[i])) {
        const double X = tx(s.x[i], plot.logx), Y = tx(s.y[i], plot.logy);
        x0 = std::min(x0, X), x1 = std::max(x1, X), y0 = std::min(y0, Y), y1 = std::max(y1, Y);
      }
  if (!(x0 <= x1)) x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  if (x1 - x0 < 1e-300) x0 -= 0.5, x1 += 0.5;
  if (y1 - y0 < 1e-300) y0 -= 0.5, y1 += 0.5;
  if (plot.logy) y0 = std::floor(y0), y1 = std::ceil(y1);
  else {
    const double pad = 0.05 * (y1 - y0);
    y0 -= pad, y1 += pad;
  }
  if (plot.logx) x0 = std::floor(x0), x1 = std::ceil(x1);
  const int pw = W - left - right, ph = H - top - bottom;
  auto X = [&](double v) { return left + (v - x0) / (x1 - x0) * pw; };
  auto Y = [&](double v) { return top + ph - (v - y0) / (y1 - y0) * ph; };
  const Rgb black{0, 0, 0}, grid{225, 225, 225}, gray{90, 90, 90};
  // grid + ticks
  auto ticks = [&](double lo, double hi, bool lg) {
    std::vector<double> t;
    if (lg) {
      const int step = std::max(1, int(std::ceil((hi - lo) / 8)));
      for (int e = int(lo); e <= int(hi); e += step) t.push_back(e);
    } else {
      t = nice_ticks(lo, hi);
    }
    return t;
  };
  for (double t : ticks(x0, x1, plot.logx)) {
    const double px = X(t);
    cv.line(px, top, px, top + ph, grid, 1);
    const std::string lab = fmt_tick(plot.logx ? std::pow(10.0, t) : t);
    cv.text(int(px) - Canvas::text_width(lab) / 2, top + ph + 8, lab, gray);
  }
  for (double t : ticks(y0, y1, plot.logy)) {
    const double py = Y(t);
    cv.line(left, py, left + pw, py, grid, 1);
    const std::string lab = fmt_tick(plot.logy ? std::pow(10.0, t) : t);
    cv.text(left - 8 - Canvas::text_width(lab), int(py) - 7, lab, gray);
  }
  if (!plot.logy && y0 < 0 && y1 > 0) cv.line(left, Y(0), left + pw, Y(0), gray, 1);
  // frame
  cv.line(left, top, left + pw, top, black, 1);
  cv.line(left, top + ph, left + pw, top + ph, black, 1);
  cv.line(left, top, left, top + ph, black, 1);
  cv.line(left + pw, top, left + pw, top + ph, black, 1);
  // curves
  for (size_t k = 0; k < plot.series.size(); ++k) {
    const Series& s = plot.series[k];
    const Rgb c = kPalette[k % 8];
    bool have = false;
    double px = 0, py = 0;
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!usable(s.x[i], s.y[i])) {
        have = false;
        continue;
      }
      const double qx = X(tx(s.x[i], plot.logx)), qy = Y(tx(s.y[i], plot.logy));
      if (s.points) cv.rect(int(qx) - 2, int(qy) - 2, int(qx) + 2, int(qy) + 2, c);
      else if (have) cv.line(px, py, qx, qy, c, 2);
      px = qx, py = qy, have = true;
    }
  }
  // labels
  cv.text((W - Canvas::text_width(plot.title)) / 2, 12, plot.title, black);
  cv.text(left + (pw - Canvas::text_width(plot.xlabel)) / 2, H - 28, plot.xlabel, black);
  cv.text(10, top + (ph + Canvas::text_width(plot.ylabel)) / 2, plot.ylabel, black, 2, true);
  // legend (top right, inside the frame)
  int lw = 0;
  for (const Series& s : plot.series) lw = std::max(lw, Canvas::text_width(s.name));
  if (!plot.series.empty()) {
    const int lh = 20 * int(plot.series.size()) + 6;
    const bool at_left = plot.legend == 2 || plot.legend == 3, at_bottom = plot.legend == 1 || plot.legend == 3;
    const int bx0 = at_left ? left + 8 : left + pw - 8 - lw - 50, bx1 = bx0 + lw + 50;
    const int by0 = at_bottom ? top + ph - 8 - lh : top + 8, by1 = by0 + lh;
    cv.rect(bx0, by0, bx1, by1, Rgb{255, 255, 255});
    cv.line(bx0, by0, bx1, by0, gray, 1), cv.line(bx0, by1, bx1, by1, gray, 1);
    cv.line(bx0, by0, bx0, by1, gray, 1), cv.line(bx1, by0, bx1, by1, gray, 1);
    for (size_t k = 0; k < plot.series.size(); ++k) {
      const int yy = by0 + 6 + 20 * int(k);
      const Rgb c = kPalette[k % 8];
      if (plot.series[k].points) cv.rect(bx0 + 14, yy + 5, bx0 + 20, yy + 11, c);
      else cv.line(bx0 + 6, yy + 8, bx0 + 34, yy + 8, c, 3);
      cv.text(bx0 + 42, yy + 1, plot.series[k].name, black);
    }
  }
  return cv.write(path, err);
}

}  // namespace posenc_cli
