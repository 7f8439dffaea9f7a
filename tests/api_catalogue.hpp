// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/api_catalogue.hpp — one small, valid call of every computing function of posenc.h, with the
// buffers it may write. Shared by the fault-injection test (tests/test_oom.cpp: every allocation of
// each call failed in turn) and the concurrency test (tests/test_concurrency.cpp: the calls run
// from many threads at once). Each ApiCall owns its buffers: make_api_calls() gives a fresh set.
// The calls of each family live in tests/api_catalogue_<family>.hpp, the types in
// tests/api_catalogue_common.hpp.
#pragma once

#include "tests/api_catalogue_common.hpp"
#include "tests/api_catalogue_features.hpp"
#include "tests/api_catalogue_graph.hpp"
#include "tests/api_catalogue_learned.hpp"
#include "tests/api_catalogue_rope.hpp"
#include "tests/api_catalogue_sphere.hpp"

namespace posenc_test {

/// A fresh set of calls (every computing function of posenc.h except the runtime, profiling and
/// trace functions, which the tests exercise separately), in the order rope, sphere, features,
/// graph, learned.
inline std::vector<ApiCall> make_api_calls() {
  std::vector<ApiCall> calls;
  add_rope_calls(calls);
  add_sphere_calls(calls);
  add_features_calls(calls);
  add_graph_calls(calls);
  add_learned_calls(calls);
  return calls;
}

}  // namespace posenc_test
