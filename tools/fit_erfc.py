"""Fits Q(t), the polynomial of torchlet's float32 erfc (Note [AVX2 erf and
gelu] in tensor/cpu/vector_math.h): erfc(a) = t Q(t) exp(-a^2) with
t = 2 / (2 + a), for 0 <= a <= 10. Q is fitted for relative error by
iteratively reweighted least squares on Chebyshev nodes; the script prints
the error of the fit, the error of Q evaluated in float32 by Horner's rule
with the float32 coefficients (the kernel's arithmetic), and the
coefficients, highest degree first.

Run: /usr/bin/python3 tools/fit_erfc.py [--degree 9]
"""
import argparse
import math

import numpy as np

A_MAX = 10.0  # the kernel holds a at 10, where exp(-a^2) is 0 in float


def target(t):
    a = 2 / t - 2
    return math.erfc(a) * math.exp(a * a) / t


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--degree", type=int, default=9)
    parser.add_argument("--a-min", type=float, default=0.0)
    args = parser.parse_args()
    lo, hi = 2 / (2 + A_MAX), 2 / (2 + args.a_min)
    n = 3000
    nodes = np.cos(np.pi * (np.arange(n) + 0.5) / n)
    t = (lo + hi) / 2 + (hi - lo) / 2 * nodes
    y = np.array([target(v) for v in t])
    weights = np.ones(n)
    for _ in range(40):
        rows = np.vander(t, args.degree + 1) * (weights / y)[:, None]
        coefficients, *_ = np.linalg.lstsq(rows, weights, rcond=None)
        error = np.abs(np.polyval(coefficients, t) / y - 1)
        weights *= np.sqrt(error / error.max() + 1e-3)
    single = coefficients.astype(np.float32)
    grid = np.linspace(lo, hi, 400001).astype(np.float32)
    exact = np.array([target(float(v)) for v in grid])
    q = np.full(grid.shape, single[0], dtype=np.float32)
    for c in single[1:]:  # an FMA: one rounding a step
        q = (q.astype(np.float64) * grid.astype(np.float64) + np.float64(c)).astype(np.float32)
    print("relative error of the fit: %.3e" % np.max(np.abs(np.polyval(coefficients, grid) / exact - 1)))
    print("relative error in float32: %.3e" % np.max(np.abs(q / exact - 1)))
    print("coefficients:", ", ".join("%.9e" % c for c in single))


if __name__ == "__main__":
    main()
