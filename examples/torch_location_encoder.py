#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_sph_harm_real_grad_f64 posenc_sph_harm_real_f64
"""A SatCLIP-style location encoder in PyTorch: real spherical harmonics of (longitude, latitude)
(posenc.torch.sph_harm_real) -> MLP, trained to predict the continent (the tz zone's first name
component: Europe, Asia, America, ...) of the 312 cities of tzdata's zone1970.tab shipped in
data/. Prints the loss curve (and plots it with --plot FILE when matplotlib is installed) for
SatCLIP's L = 10 and L = 40 (``legendre_polys``, i.e. degrees l < L: 100 and 1600 features).

    PYTHONPATH=python /usr/bin/python3 examples/torch_location_encoder.py [--steps 300] [--L 10 40]
        [--hidden 64] [--plot loss.png] [--small]

--small (the test suite) trains 40 steps. Cities are split 80 / 20 (fixed seed) into train and
held-out sets; the held-out accuracy shows that low degrees generalize while L = 40 memorizes.
The harmonics are computed once (the inputs are fixed); with trainable inputs (e.g. learned
offsets of the coordinates) gradients flow through sph_harm_real to the coordinates."""
import argparse
import math
import os

import torch

import posenc
import posenc.torch as pt

HERE = os.path.dirname(os.path.abspath(__file__))


def dms(s, deg_digits):
    """ISO 6709 +-DDMM[SS] / +-DDDMM[SS] -> degrees."""
    sign = -1.0 if s[0] == "-" else 1.0
    s = s[1:]
    d, rest = int(s[:deg_digits]), s[deg_digits:]
    mins = int(rest[:2])
    secs = int(rest[2:4]) if len(rest) >= 4 else 0
    return sign * (d + mins / 60 + secs / 3600)


def load_cities(path):
    lonlat, label = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cols = line.rstrip("\n").split("\t")
            coord, zone = cols[1], cols[2]
            i = max(coord.rfind("+"), coord.rfind("-"))
            lat, lon = dms(coord[:i], 2), dms(coord[i:], 3)
            lonlat.append((lon, lat))
            label.append(zone.split("/")[0])
    return torch.tensor(lonlat, dtype=torch.float64), label


class LocationEncoder(torch.nn.Module):
    """SH(lon, lat) up to degree L - 1 -> MLP (SatCLIP's spherical-harmonic positional encoder
    with an MLP instead of its SIREN)."""

    def __init__(self, L, hidden, classes):
        super().__init__()
        self.lmax = L - 1
        self.mlp = torch.nn.Sequential(torch.nn.Linear(L * L, hidden), torch.nn.ReLU(),
                                       torch.nn.Linear(hidden, hidden), torch.nn.ReLU(),
                                       torch.nn.Linear(hidden, classes))

    def encode(self, lonlat):
        lon, lat = torch.deg2rad(lonlat[:, 0]), torch.deg2rad(lonlat[:, 1])
        xyz = torch.stack((torch.cos(lat) * torch.cos(lon), torch.cos(lat) * torch.sin(lon), torch.sin(lat)), -1)
        return pt.sph_harm_real(xyz, self.lmax).float()

    def forward(self, lonlat):
        return self.mlp(self.encode(lonlat))


def train(L, lonlat, y, train_idx, test_idx, steps, hidden, classes):
    torch.manual_seed(0)
    model = LocationEncoder(L, hidden, classes)
    feats = model.encode(lonlat)  # fixed inputs: encode once
    opt = torch.optim.Adam(model.mlp.parameters(), lr=3e-3)
    curve = []
    for step in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model.mlp(feats[train_idx]), y[train_idx])
        loss.backward()
        opt.step()
        curve.append(loss.item())
    with torch.no_grad():
        pred = model(lonlat).argmax(-1)
    acc = lambda idx: (pred[idx] == y[idx]).double().mean().item()
    return curve, acc(train_idx), acc(test_idx)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--L", type=int, nargs="+", default=[10, 40])
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--plot", default=None, help="write the loss curves to this image (needs matplotlib)")
    ap.add_argument("--small", action="store_true", help="40 steps (the test suite)")
    ap.add_argument("--data", default=os.path.join(HERE, "..", "data", "zone1970.tab"))
    a = ap.parse_args()
    steps = 40 if a.small else a.steps
    lonlat, names = load_cities(a.data)
    classes = sorted(set(names))
    y = torch.tensor([classes.index(c) for c in names])
    perm = torch.randperm(len(y), generator=torch.Generator().manual_seed(1))
    cut = int(0.8 * len(y))
    train_idx, test_idx = perm[:cut], perm[cut:]
    print(f"posenc {posenc.__version__}: {len(y)} cities, {len(classes)} continents ({', '.join(classes)}), "
          f"{len(train_idx)} train / {len(test_idx)} held out, {steps} Adam steps")
    curves = {}
    for L in a.L:
        curve, tr, te = train(L, lonlat, y, train_idx, test_idx, steps, a.hidden, len(classes))
        curves[L] = curve
        pts = sorted(set([0] + list(range(0, steps, max(steps // 10, 1))) + [steps - 1]))
        print(f"L = {L:3d} ({L * L:5d} features): loss " + " ".join(f"{i}:{curve[i]:.3g}" for i in pts))
        print(f"          accuracy train {tr:.3f}, held out {te:.3f}")
        assert math.isfinite(curve[-1]) and curve[-1] < curve[0], "the loss did not decrease"
    if a.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        for L, c in curves.items():
            plt.plot(c, label=f"L = {L}")
        plt.xlabel("step")
        plt.ylabel("cross-entropy (train)")
        plt.yscale("log")
        plt.legend()
        plt.savefig(a.plot, dpi=100)
        print(f"loss curves written to {a.plot}")


if __name__ == "__main__":
    main()
