// SPDX-License-Identifier: Apache-2.0 OR MIT
// data.cpp — loaders for the real data shipped in data/ (see data/README.md).
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "cli/report.hpp"

namespace posenc_cli {
namespace {

constexpr size_t kMaxGraphTextBytes = size_t(64) << 20;  // decompressed graph text (15x the shipped one)
constexpr size_t kMaxGraphLineBytes = 4096;

// Parses "±DDMM", "±DDMMSS" (deg_digits = 2) or "±DDDMM", "±DDDMMSS" (3) at s[pos..]; advances pos.
double iso6709_part(const std::string& s, size_t& pos, int deg_digits, const std::string& where) {
  if (pos >= s.size() || (s[pos] != '+' && s[pos] != '-'))
    throw std::runtime_error(where + ": ISO 6709 coordinate must start with + or -: '" + s + "'");
  const double sign = s[pos] == '-' ? -1.0 : 1.0;
  size_t end = pos + 1;
  while (end < s.size() && std::isdigit(static_cast<unsigned char>(s[end]))) ++end;
  const std::string d = s.substr(pos + 1, end - pos - 1);
  if (d.size() != size_t(deg_digits + 2) && d.size() != size_t(deg_digits + 4))
    throw std::runtime_error(where + ": bad ISO 6709 coordinate '" + s + "'");
  const double deg = std::atof(d.substr(0, deg_digits).c_str());
  const double min = std::atof(d.substr(deg_digits, 2).c_str());
  const double sec = d.size() == size_t(deg_digits + 4) ? std::atof(d.substr(deg_digits + 2, 2).c_str()) : 0.0;
  if (min >= 60 || sec >= 60) throw std::runtime_error(where + ": minutes/seconds >= 60 in '" + s + "'");
  pos = end;
  return sign * (deg + min / 60.0 + sec / 3600.0);
}

}  // namespace

std::vector<City> load_zone1970(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot open " + path);
  std::vector<City> out;
  std::string line;
  int lineno = 0;
  while (std::getline(f, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols;
    std::stringstream ss(line);
    std::string c;
    while (std::getline(ss, c, '\t')) cols.push_back(c);
    const std::string where = path + ":" + std::to_string(lineno);
    if (cols.size() < 3) throw std::runtime_error(where + ": expected >= 3 tab-separated columns");
    size_t pos = 0;
    const double lat = iso6709_part(cols[1], pos, 2, where);
    const double lon = iso6709_part(cols[1], pos, 3, where);
    if (pos != cols[1].size() || std::abs(lat) > 90 || std::abs(lon) > 180)
      throw std::runtime_error(where + ": bad coordinate '" + cols[1] + "'");
    out.push_back({cols[2], lon, lat});
  }
  if (out.empty()) throw std::runtime_error(path + ": no zones found");
  return out;
}

Graph load_edge_list(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot open " + path);
  Graph g;
  std::string line;
  int lineno = 0;
  while (std::getline(f, line)) {
    ++lineno;
    if (line.empty()) continue;
    if (line[0] == '#') {
      g.header += line + "\n";
      continue;
    }
    std::istringstream ss(line);
    long long u, v;
    if (!(ss >> u >> v) || u < 0 || v < 0)
      throw std::runtime_error(path + ":" + std::to_string(lineno) + ": expected 'u v' (non-negative ids)");
    g.src.push_back(u), g.dst.push_back(v);
    g.num_nodes = std::max<int64_t>(g.num_nodes, std::max(u, v) + 1);
  }
  return g;
}

Graph load_gz_graph(const std::string& path) {
  gzFile z = gzopen(path.c_str(), "rb");
  if (!z) throw std::runtime_error("cannot open " + path);
  // A hostile or corrupt file must fail fast with a reason, not inflate until the machine gives
  // out: the decompressed text and every line are capped (the shipped graph is 4.2 MB, lines
  // <= 83 bytes), and the node and edge counts must fit in the text that holds them.
  std::string text;
  char buf[1 << 16];
  int n;
  bool too_big = false;
  while ((n = gzread(z, buf, sizeof buf)) > 0) {
    if (text.size() + size_t(n) > kMaxGraphTextBytes) {
      too_big = true;
      break;
    }
    text.append(buf, size_t(n));
  }
  int zerr = Z_OK;
  gzerror(z, &zerr);  // a truncated or corrupt stream ends the loop with n == 0 and Z_BUF_ERROR
  const bool bad = n < 0 || (zerr != Z_OK && zerr != Z_STREAM_END);
  gzclose(z);
  if (too_big)
    throw std::runtime_error(path + ": decompresses to more than " + std::to_string(kMaxGraphTextBytes >> 20) +
                             " MiB (a graph file is a few MB; refusing a gzip bomb)");
  if (bad) throw std::runtime_error(path + ": gzip decompression failed (corrupt or truncated file)");
  {
    size_t start = 0, lineno = 1;
    for (size_t i = 0; i <= text.size(); ++i) {
      if (i == text.size() || text[i] == '\n') {
        if (i - start > kMaxGraphLineBytes)
          throw std::runtime_error(path + ":" + std::to_string(lineno) + ": line longer than " +
                                   std::to_string(kMaxGraphLineBytes) + " bytes");
        start = i + 1, ++lineno;
      }
    }
  }
  std::istringstream in(text);
  Graph g;
  std::string line, word;
  while (std::getline(in, line) && !line.empty() && line[0] == '#') g.header += line + "\n";
  long long nn = -1, ne = -1;
  {
    std::istringstream ss(line);
    if (!(ss >> word >> nn) || word != "nodes" || nn < 0) throw std::runtime_error(path + ": expected 'nodes N'");
  }
  if (static_cast<unsigned long long>(nn) > text.size())
    throw std::runtime_error(path + ": 'nodes " + std::to_string(nn) + "' is more than the file's " +
                             std::to_string(text.size()) + " bytes can hold");
  g.num_nodes = nn;
  g.names.resize(size_t(nn));
  for (long long i = 0; i < nn; ++i)
    if (!std::getline(in, g.names[size_t(i)])) throw std::runtime_error(path + ": truncated node list");
  if (!std::getline(in, line)) throw std::runtime_error(path + ": expected 'edges M'");
  {
    std::istringstream ss(line);
    if (!(ss >> word >> ne) || word != "edges" || ne < 0) throw std::runtime_error(path + ": expected 'edges M'");
  }
  if (static_cast<unsigned long long>(ne) > text.size() / 4)
    throw std::runtime_error(path + ": 'edges " + std::to_string(ne) + "' is more than the file's " +
                             std::to_string(text.size()) + " bytes can hold");
  g.src.resize(size_t(ne)), g.dst.resize(size_t(ne));
  for (long long e = 0; e < ne; ++e) {
    long long u, v;
    if (!(in >> u >> v) || u < 0 || v < 0 || u >= nn || v >= nn)
      throw std::runtime_error(path + ": bad edge " + std::to_string(e));
    g.src[size_t(e)] = u, g.dst[size_t(e)] = v;
  }
  return g;
}

Graph largest_component(const Graph& g) {
  std::vector<int64_t> parent(static_cast<size_t>(g.num_nodes));
  for (int64_t i = 0; i < g.num_nodes; ++i) parent[size_t(i)] = i;
  auto find = [&](int64_t x) {
    while (parent[size_t(x)] != x) x = parent[size_t(x)] = parent[size_t(parent[size_t(x)])];
    return x;
  };
  for (size_t e = 0; e < g.src.size(); ++e) {
    const int64_t a = find(g.src[e]), b = find(g.dst[e]);
    if (a != b) parent[size_t(std::max(a, b))] = std::min(a, b);
  }
  std::vector<int64_t> size(size_t(g.num_nodes), 0);
  for (int64_t i = 0; i < g.num_nodes; ++i) ++size[size_t(find(i))];
  const int64_t root = int64_t(std::max_element(size.begin(), size.end()) - size.begin());
  std::vector<int64_t> id(size_t(g.num_nodes), -1);
  Graph h;
  h.header = g.header;
  for (int64_t i = 0; i < g.num_nodes; ++i)
    if (find(i) == root) {
      id[size_t(i)] = h.num_nodes++;
      if (!g.names.empty()) h.names.push_back(g.names[size_t(i)]);
    }
  for (size_t e = 0; e < g.src.size(); ++e)
    if (id[size_t(g.src[e])] >= 0) h.src.push_back(id[size_t(g.src[e])]), h.dst.push_back(id[size_t(g.dst[e])]);
  return h;
}

}  // namespace posenc_cli
