// SPDX-License-Identifier: Apache-2.0 OR MIT
// bench/torch_op_floor.cpp — a trivial torch op with a C++ autograd Function (forward: two
// uninitialized outputs like q and k; backward: two uninitialized gradients), registered with
// TORCH_LIBRARY as torch.ops.posenc_floor.trivial. Not part of the CMake build: bench/torch_op_floor.py
// compiles it (needs libtorch-dev) to measure the floor of a C++ torch op at 1 token.
#include <torch/library.h>
#include <torch/csrc/autograd/custom_function.h>
#include <ATen/ATen.h>
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;
struct Trivial : torch::autograd::Function<Trivial> {
  static variable_list forward(AutogradContext*, const at::Tensor& q, const at::Tensor& k) {
    return {at::empty_like(q), at::empty_like(k)};
  }
  static variable_list backward(AutogradContext*, variable_list g) {
    return {at::empty_like(g[0]), at::empty_like(g[1])};
  }
};
std::tuple<at::Tensor, at::Tensor> trivial(const at::Tensor& q, const at::Tensor& k) {
  auto r = Trivial::apply(q, k);
  return {r[0], r[1]};
}
TORCH_LIBRARY(posenc_floor, m) { m.def("trivial", trivial); }
