// SPDX-License-Identifier: Apache-2.0 OR MIT
// requires: posenc_rf_sample_f32 posenc_rf_features_f32 posenc_linear_attention_f32 posenc_softmax_attention_f32 posenc_learned_add_f32 posenc_learned_spectrum_f32 posenc_laplacian_pe_f64
// posenc from C++: posenc.hpp's posenc::check turns a failed status into a posenc::error
// exception. Random-feature linear attention vs exact softmax attention, a learned table's
// effective rank, and the Laplacian PE of a ring graph.
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include <posenc/posenc.hpp>

int main() {
  try {
    std::printf("posenc %s, ISA %s\n", posenc::version_string(), posenc::isa_name(posenc::isa_active()));
    // 1. Performer-style attention: FAVOR+ positive features of q and k, then linear attention.
    const int64_t n = 512;
    const int32_t d = 32, dv = 16, m = 256;
    std::mt19937 rng(1);
    std::normal_distribution<float> g(0.f, 1.f);
    std::vector<float> q(n * d), k(n * d), v(n * dv);
    for (auto* M : {&q, &k})
      for (int64_t i = 0; i < n; ++i) {  // unit-norm rows
        float s = 0;
        for (int j = 0; j < d; ++j) s += ((*M)[i * d + j] = g(rng)) * (*M)[i * d + j];
        for (int j = 0; j < d; ++j) (*M)[i * d + j] /= std::sqrt(s);
      }
    for (auto& x : v) x = g(rng);
    std::vector<float> omega(m * d), pq(n * m), pk(n * m), lin(n * dv), soft(n * dv);
    posenc::check(posenc_rf_sample_f32(POSENC_RF_ORTHOGONAL, d, m, 1.0, 42, omega.data()));
    posenc::check(posenc_rf_features_f32(POSENC_RF_POSITIVE, POSENC_RF_SHIFT_OVERFLOW, omega.data(), m, d, nullptr, q.data(), n, pq.data()));
    posenc::check(posenc_rf_features_f32(POSENC_RF_POSITIVE, POSENC_RF_SHIFT_OVERFLOW, omega.data(), m, d, nullptr, k.data(), n, pk.data()));
    posenc::check(posenc_linear_attention_f32(pq.data(), pk.data(), v.data(), n, m, dv, 0, 1e-6f, lin.data()));
    posenc::check(posenc_softmax_attention_f32(q.data(), k.data(), v.data(), n, d, dv, 0, 1.0f, soft.data()));
    double num = 0, den = 0;
    for (size_t i = 0; i < lin.size(); ++i) num += (lin[i] - soft[i]) * (lin[i] - soft[i]), den += soft[i] * soft[i];
    std::printf("linear vs softmax attention, n=%lld: relative error %.3f\n", (long long)n, std::sqrt(num / den));
    if (!(std::sqrt(num / den) < 0.5)) return 1;

    // 2. A learned table: add its rows to activations, then its singular spectrum.
    const int64_t rows = 64;
    const int32_t dim = 16;
    std::vector<float> table(rows * dim), x(4 * dim, 0.f);
    for (auto& t : table) t = 0.02f * g(rng);
    const int64_t pos[4] = {0, 5, 5, 63};
    posenc::check(posenc_learned_add_f32(table.data(), rows, dim, pos, 4, x.data()));
    std::vector<double> s(dim);
    double erank = 0;
    posenc::check(posenc_learned_spectrum_f32(table.data(), rows, dim, s.data(), &erank));
    std::printf("random table [64, 16]: effective rank %.2f, s0 = %.4f\n", erank, s[0]);

    // 3. Laplacian PE of a 12-node ring: eigenvalues 1 - cos(2 pi j / 12), each twice but the ends.
    std::vector<int64_t> src(12), dst(12);
    for (int i = 0; i < 12; ++i) src[i] = i, dst[i] = (i + 1) % 12;
    std::vector<double> vals(4), vecs(12 * 4);
    posenc::check(posenc_laplacian_pe_f64(12, src.data(), dst.data(), nullptr, 12, POSENC_LAPLACIAN_SYM, 4, vals.data(), vecs.data()));
    std::printf("ring(12) L_sym eigenvalues: %.6f %.6f %.6f %.6f (1 - cos(pi/6) = %.6f)\n", vals[0], vals[1], vals[2],
                vals[3], 1 - std::cos(M_PI / 6));
    if (std::fabs(vals[1] - (1 - std::cos(M_PI / 6))) > 1e-10) return 1;

    // 4. Errors become exceptions carrying the status and the message.
    try {
      posenc::check(posenc_learned_add_f32(table.data(), rows, dim, pos, -1, x.data()));
      return 1;
    } catch (const posenc::error& e) {
      std::printf("n = -1 -> %s: %s\n", posenc_status_string(e.status()), e.what());
    }
    return 0;
  } catch (const posenc::error& e) {
    std::fprintf(stderr, "posenc error: %s\n", e.what());
    return 1;
  }
}
