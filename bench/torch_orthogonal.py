#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Orthogonal random features: posenc_rf_sample_f32(POSENC_RF_ORTHOGONAL) against performer-pytorch's
gaussian_orthogonal_random_matrix (torch.randn blocks, torch.linalg.qr, chi norms from the row
norms of a Gaussian matrix; the performer_pytorch 1.1 code, ported below), in one process, one
thread, CPU-time (process_time) median and best of --reps calls each, interleaved (run with
OPENBLAS_NUM_THREADS=1 so that the QR runs on one thread and CPU time is its whole cost).

usage: OPENBLAS_NUM_THREADS=1 POSENC_LIBRARY=build/release/libposenc.so PYTHONPATH=python /usr/bin/python3 bench/torch_orthogonal.py
"""
import argparse
import time

import numpy as np
import torch

import posenc


def orthogonal_matrix_chunk(cols):  # performer_pytorch.performer_pytorch.orthogonal_matrix_chunk
    unstructured_block = torch.randn((cols, cols))
    q, r = torch.linalg.qr(unstructured_block, mode="reduced")
    return q.t()


def gaussian_orthogonal_random_matrix(nb_rows, nb_columns):  # scaling = 0
    nb_full_blocks = nb_rows // nb_columns
    blocks = [orthogonal_matrix_chunk(nb_columns) for _ in range(nb_full_blocks)]
    rest = nb_rows - nb_full_blocks * nb_columns
    if rest > 0:
        blocks.append(orthogonal_matrix_chunk(nb_columns)[:rest])
    final_matrix = torch.cat(blocks)
    multiplier = torch.randn((nb_rows, nb_columns)).norm(dim=1)
    return torch.diag(multiplier) @ final_matrix


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=21)
    a = ap.parse_args()
    torch.set_num_threads(1)
    posenc.threads_set(1)
    out = {}
    for d, m in ((64, 256), (128, 512)):
        om = np.empty((m, d), np.float32)
        tp, tt = [], []
        for r in range(a.reps):
            t0 = time.process_time()
            posenc.rf_sample(posenc.RfSampling.ORTHOGONAL, d, m, seed=r, out=om)
            tp.append(time.process_time() - t0)
            t0 = time.process_time()
            gaussian_orthogonal_random_matrix(m, d)
            tt.append(time.process_time() - t0)
        out[(d, m)] = (np.median(tp), np.median(tt))
        print(f"d={d} m={m}: posenc median {1e3 * np.median(tp):.2f} ms (best {1e3 * min(tp):.2f}), "
              f"performer/torch median {1e3 * np.median(tt):.2f} ms (best {1e3 * min(tt):.2f}), "
              f"posenc/performer = {np.median(tp) / np.median(tt):.2f}")


if __name__ == "__main__":
    main()
