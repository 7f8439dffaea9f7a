#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_sinusoidal_f32 posenc_rope_cos_sin_f32 posenc_sph_harm_real_lonlat_f64 posenc_rf_features_f32 posenc_learned_spectrum_f32
"""posenc from Python (ctypes + NumPy): run from the repository with
    PYTHONPATH=python /usr/bin/python3 examples/quickstart.py
(the library is found in build/, an install prefix, or $POSENC_LIBRARY)."""
import numpy as np

import posenc

print("posenc", posenc.version_string(), "from", posenc.library_path(), "ISA", posenc.isa_active().name)

# Sinusoidal table [1024, 128]; positions beyond 2^24 stay exact.
table = posenc.sinusoidal(1024, 128)
print("sinusoidal", table.shape, table.dtype, table[5, :2], "vs", np.sin(5.0), np.cos(5.0))

# RoPE cos/sin for Llama-3.1-8B (llama3 scaling) at positions up to 128K.
p = posenc.rope_params(posenc.RopeType.LLAMA3, 128, 500000.0, factor=8.0, original_max_position=8192)
cos, sin = posenc.rope_cos_sin(p, np.array([0, 1, 131071], dtype=np.int64))
print("rope cos/sin", cos.shape, "row 131071 first cos", cos[2, 0])

# Spherical-harmonic encoding of three cities (lon, lat in degrees), L = 10 -> 121 channels.
lonlat = np.array([[2.35, 48.86], [139.69, 35.69], [151.21, -33.87]])
Y = posenc.sph_harm_real_lonlat(10, lonlat)
print("SH", Y.shape, "self inner product", (Y * Y).sum(1), "= 121/(4 pi) =", 121 / (4 * np.pi))

# Random Fourier features of those cities' unit vectors approximate the Gaussian kernel.
lo, la = np.radians(lonlat[:, 0]), np.radians(lonlat[:, 1])
x = np.stack([np.cos(la) * np.cos(lo), np.cos(la) * np.sin(lo), np.sin(la)], 1).astype(np.float32)
omega = posenc.rf_sample(posenc.RfSampling.QMC, 3, 2048, sigma=1.0, seed=7)
phi = posenc.rf_features(posenc.RfKind.TRIG, omega, x)
exact = np.exp(-0.5 * ((x[:, None] - x[None]) ** 2).sum(-1))
print("RFF kernel max error", np.abs(phi @ phi.T - exact).max())

# Effective rank of the sinusoidal table (as a learned table would be analysed).
s, erank = posenc.learned_spectrum(table)
print("sinusoidal [1024, 128] effective rank", round(erank, 2))

# Errors carry the status and the library's message.
try:
    posenc.sinusoidal(4, 7)
except posenc.Error as e:
    print("error:", e.status.name, "-", e.message)
