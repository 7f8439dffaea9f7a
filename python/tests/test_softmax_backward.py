# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_softmax_attention_f32 posenc_softmax_attention_backward_f32
"""softmax attention backward (FlashAttention-2 recomputation) against torch autograd in float64."""
import numpy as np
import pytest
import torch

import posenc


@pytest.mark.parametrize("causal", [False, True])
def test_softmax_attention_backward_vs_torch_autograd(causal):
    rng = np.random.default_rng(3 + causal)
    n, d, dv = 333, 16, 12  # 6 query blocks, 2 key blocks
    q, k = (rng.standard_normal((n, d)).astype(np.float32) for _ in range(2))
    v, g = (rng.standard_normal((n, dv)).astype(np.float32) for _ in range(2))
    gq, gk, gv = posenc.softmax_attention_backward(q, k, v, g, causal=causal)
    tq, tk, tv = (torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in (q, k, v))
    s = (tq @ tk.T) / np.sqrt(d)
    if causal:
        s = s.masked_fill(torch.triu(torch.ones(n, n, dtype=torch.bool), 1), float("-inf"))
    (torch.softmax(s, -1) @ tv * torch.tensor(g, dtype=torch.float64)).sum().backward()
    for got, ref in ((gq, tq.grad), (gk, tk.grad), (gv, tv.grad)):
        ref = ref.numpy()
        assert np.abs(got - ref).max() <= 2e-4 * (1 + np.abs(ref).max())


def test_softmax_backward_errors():
    a = np.ones((3, 2), np.float32)
    with pytest.raises(posenc.ArgumentError, match="grad_out"):
        posenc.softmax_attention_backward(a, a, a, np.ones((3, 5), np.float32))
    with pytest.raises(posenc.Error, match="scale"):
        posenc.softmax_attention_backward(a, a, a, a, scale=float("nan"))
