# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_linear_attention_f32 posenc_linear_attention_step_f32
"""recurrent decoding steps against the causal linear attention and a float64 NumPy recurrence."""
import numpy as np
import pytest

import posenc


def test_steps_match_causal_linear_attention():
    rng = np.random.default_rng(2)
    n, F, dv = 200, 16, 5
    q, k = (rng.random((n, F)).astype(np.float32) for _ in range(2))
    v = rng.standard_normal((n, dv)).astype(np.float32)
    ref = posenc.linear_attention(q, k, v, causal=True, eps=1e-6)
    S, z = np.zeros((F, dv), np.float32), np.zeros(F, np.float32)
    S64, z64 = np.zeros((F, dv)), np.zeros(F)
    for i in range(n):
        out = posenc.linear_attention_step(q[i], k[i], v[i], S, z, eps=1e-6)
        S64 += np.outer(k[i], v[i]); z64 += k[i]
        o64 = q[i].astype(np.float64) @ S64 / (q[i] @ z64 + 1e-6)
        assert np.abs(out - ref[i]).max() <= 2e-5
        assert np.abs(out - o64).max() <= 2e-5
    assert np.abs(S - S64).max() <= 1e-3


def test_step_state_must_be_writable_float32():
    with pytest.raises(posenc.ArgumentError, match="state_s"):
        posenc.linear_attention_step(np.ones(3), np.ones(3), np.ones(2), np.zeros((3, 2)), np.zeros(3, np.float32))
