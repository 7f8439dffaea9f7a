// SPDX-License-Identifier: Apache-2.0 OR MIT
// requires: posenc_sinusoidal_f32
// posenc profile: the sinusoidal table (rope family pilot).
#include <memory>
#include <vector>

#include "cli/profile.hpp"
#include "posenc/posenc.hpp"

namespace posenc_cli {
namespace {

RegisterProfile reg(10, "rope", "sinusoidal_f32", [](bool quick) {
  const int64_t n = quick ? 4096 : 16384;
  const int32_t dim = 1024;
  auto out = std::make_shared<std::vector<float>>(size_t(n) * dim);
  return ProfileCase{strf("n=%lld dim=%d", (long long)n, dim), double(n) * dim, "values", [=] {
                       posenc::check(posenc_sinusoidal_f32(nullptr, n, dim, 10000.0, POSENC_SINUSOIDAL_INTERLEAVED, out->data()));
                     }};
});

}  // namespace
}  // namespace posenc_cli
