// SPDX-License-Identifier: Apache-2.0 OR MIT
// requires: posenc_sinusoidal_f32
// posenc profile: the sinusoidal table (rope family pilot).
#include <memory>
#include <vector>

#include "cli/report.hpp"
#include "posenc/posenc.hpp"

namespace posenc_cli {
namespace {

RegisterProfile reg(10, [](ProfileResult& r, bool quick) -> std::function<void()> {
  const int64_t n = quick ? 4096 : 16384;
  const int32_t dim = 1024;
  auto out = std::make_shared<std::vector<float>>(size_t(n) * dim);
  r.family = "rope";
  r.kernel = "sinusoidal_f32";
  r.shape = strf("n=%lld dim=%d", (long long)n, dim);
  r.items = double(n) * dim;
  r.unit = "values";
  r.bytes = 4.0 * n * dim;
  r.note = "bytes = float32 output written";
  return [=] { posenc::check(posenc_sinusoidal_f32(nullptr, n, dim, 10000.0, POSENC_SINUSOIDAL_INTERLEAVED, out->data())); };
});

}  // namespace
}  // namespace posenc_cli
