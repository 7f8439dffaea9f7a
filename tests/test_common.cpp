// SPDX-License-Identifier: Apache-2.0 OR MIT
#include "tests/test_common.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace posenc_test {

std::vector<posenc_isa> test_isas() {
  std::vector<posenc_isa> out;
  if (const char* env = std::getenv("POSENC_ISA")) {
    std::string v;
    for (const char* c = env; *c; ++c) v.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(*c))));
    const posenc_isa all[] = {POSENC_ISA_SCALAR, POSENC_ISA_AVX2, POSENC_ISA_AVX512, POSENC_ISA_NEON};
    for (posenc_isa i : all)
      if (v == posenc_isa_name(i)) return {i};  // forced: test exactly that path (fails if unavailable)
  }
  const uint32_t mask = posenc_isa_available();
  const posenc_isa all[] = {POSENC_ISA_SCALAR, POSENC_ISA_AVX2, POSENC_ISA_AVX512, POSENC_ISA_NEON};
  for (posenc_isa i : all)
    if (mask & static_cast<uint32_t>(i)) out.push_back(i);
  return out;
}

std::string isa_param_name(const ::testing::TestParamInfo<posenc_isa>& info) {
  return posenc_isa_name(info.param);
}

std::string c_header_text(const std::string& include_dir) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(include_dir, ec))
    if (e.path().extension() == ".h") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::string text;
  for (const auto& p : files) {
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    text += ss.str();
  }
  return text;
}

}  // namespace posenc_test
