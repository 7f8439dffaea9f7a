# SPDX-License-Identifier: Apache-2.0 OR MIT
"""posenc.torch — PyTorch ops and modules over the posenc C ABI (optional: needs torch; plain
``import posenc`` never imports torch).

CPU tensors go to the C functions through ``data_ptr()`` (no NumPy round trip, no copy of inputs
that are already laid out as the C ABI reads them). CUDA tensors, sparse layouts and dtypes the
C ABI lacks raise `posenc.ArgumentError` naming the argument and the fix.

- `rope_apply` (autograd: backward = the transposed rotation), `RotaryEmbedding` (HF's rotary
  module from a config dict, with a fused ``apply(q, k, position_ids)``), `rope_params_from_hf`;
- `learned_add` (autograd: deterministic gradient scatter for the table), `learned_resample`
  (autograd: the adjoint of the resampling, posenc_learned_resample_backward_f32);
- `sph_harm_real` (autograd, twice differentiable: gradients and Hessians of the C ABI),
  `sph_harm_real_grad`, `SphericalHarmonics` (sphericart-torch's calculator; e3nn's conventions by option);
- `rf_sample`, `rf_features` (autograd w.r.t. x, omega, WPFF weights), `linear_attention` (causal or
  not), `softmax_attention` (autograd from the C backward functions), `FastAttention` (Performer);
- `laplacian_pe`, `rwse` (plain functions of a PyG edge_index).

Threads: posenc runs its kernels in its own TBB arena (``posenc.threads_set`` /
POSENC_NUM_THREADS), independent of torch's intra-op pool (``torch.set_num_threads``); the two do
not share threads, and results are bitwise identical for any posenc thread count. See
docs/TORCH.md.
"""
from __future__ import annotations

try:
    import torch as _torch  # noqa: F401
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError("posenc.torch needs PyTorch (pip install torch / apt install python3-torch); "
                      "the rest of posenc works without it") from e

from .rope import RotaryEmbedding, rope_apply, rope_params_from_hf
from .learned import learned_add, learned_resample
from .sphere import SphericalHarmonics, sph_harm_real, sph_harm_real_grad
from .features import FastAttention, linear_attention, rf_features, rf_sample, softmax_attention
from .graph import laplacian_pe, rwse

__all__ = ["RotaryEmbedding", "rope_apply", "rope_params_from_hf", "learned_add", "learned_resample", "sph_harm_real",
           "sph_harm_real_grad", "SphericalHarmonics", "rf_sample", "rf_features", "linear_attention", "softmax_attention",
           "FastAttention", "laplacian_pe", "rwse"]
