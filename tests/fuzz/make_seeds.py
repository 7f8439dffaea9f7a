#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Writes the seed corpora tests/fuzz/corpus/<family>/: for every function selector of a target
# and both thread counts, inputs of deterministic pseudo-random bytes (which the targets decode
# mostly into valid, small arguments). Run from anywhere: python3 tests/fuzz/make_seeds.py
import os
import random

OPS = {"rope": 10, "sphere": 10, "features": 12, "graph": 10, "learned": 6}
def op_byte(family, op):
    """The selector byte of function op (fuzz_graph ops 5.., fuzz_features ops 8.. are selected by bytes 128..)."""
    first = {"graph": 5, "features": 8}.get(family)
    return 128 + op - first if first is not None and op >= first else op


here = os.path.dirname(os.path.abspath(__file__))
for family, ops in OPS.items():
    d = os.path.join(here, "corpus", family)
    os.makedirs(d, exist_ok=True)
    rng = random.Random(family)
    for op in range(ops):
        for variant in range(2):
            isa_threads = rng.randrange(16) | (variant << 4)  # bit 4: two threads
            body = bytes(rng.randrange(224) if i % 3 else rng.randrange(256) for i in range(400))
            with open(os.path.join(d, f"op{op}_{variant}"), "wb") as f:
                f.write(bytes([isa_threads, op_byte(family, op)]) + body)
