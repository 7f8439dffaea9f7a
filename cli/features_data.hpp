// SPDX-License-Identifier: Apache-2.0 OR MIT
// features_data.hpp — the real vectors of the features experiments of `posenc report`
// (cli/exp_features.cpp, cli/exp_features_wpff.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/report.hpp"

namespace posenc_cli {

/// Rows of a [n, d] float32 matrix with a display name and a short label.
struct Points {
  std::string name, label;
  int32_t d;
  std::vector<float> x;  // [n, d]
  int64_t n() const { return int64_t(x.size()) / d; }
};

/// City unit vectors x 1.5 (d = 3) and the unit-normalized spherical PE of the cities
/// (defined in cli/exp_features.cpp).
std::vector<Points> feature_datasets(Report& rep);

}  // namespace posenc_cli
