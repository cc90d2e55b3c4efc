#!/usr/bin/python3
"""Writes tensor/testdata/reduction_golden.txt: reduction results from PyTorch.

Run with Debian's python3-torch (1.13): /usr/bin/python3 tools/gen_reduction_golden.py
Each line is `name|dim0,dim1,...|v0 v1 ...` with values printed to 9 significant digits
(nan, inf and -inf as such). The inputs are rebuilt identically by tensor/reduction_test.cc.
"""
import math
import torch

from golden import write_golden


inf = math.inf


def wavy(t):
    """A non-monotone polynomial of a linspace, so arg-reductions are not trivial."""
    return t * t * t - 3 * t


a = wavy(torch.linspace(-2, 3, 12, dtype=torch.float32).reshape(3, 4))
z = wavy(torch.linspace(-2, 3, 24, dtype=torch.float32).reshape(2, 3, 4))
# Large and infinite values: stability of logsumexp and softmax.
big = torch.tensor([[1000, 999, 998, 1], [-inf, -inf, -inf, -inf], [-1000, 0, 1, 2]])
soft = torch.tensor([[1000, 999, 998, 1], [-1000, 0, 1, 2], [-inf, 0, 1, -inf]])

cases = {
    "sum_all": a.sum(), "sum_d0": a.sum(0), "sum_d1_keep": a.sum(1, keepdim=True),
    "sum_z_02_keep": z.sum((0, 2), keepdim=True), "mean_all": a.mean(), "mean_d1": a.mean(1),
    "mean_z_m1_0": z.mean((-1, 0)), "prod_all": a.prod(), "prod_d0": a.prod(0),
    "prod_d1_keep": a.prod(1, keepdim=True),
    "max_d1_values": a.max(1).values, "max_d1_indices": a.max(1).indices,
    "min_d0_keep_values": a.min(0, keepdim=True).values,
    "min_d0_keep_indices": a.min(0, keepdim=True).indices,
    "max_all": a.max(), "min_all": a.min(), "amax_z_01": z.amax((0, 1)),
    "amin_z_12_keep": z.amin((1, 2), keepdim=True), "amax_z_20": z.amax((2, 0)),
    "argmax_all": a.argmax(), "argmax_d0": a.argmax(0), "argmin_d1_keep": a.argmin(1, True),
    "argmin_all": a.argmin(), "argmax_z_d2": z.argmax(2),
    "var_all": a.var(), "var_all_biased": a.var(unbiased=False), "var_d1": a.var(1),
    "var_d0_biased_keep": a.var(0, unbiased=False, keepdim=True), "std_all": a.std(),
    "std_d1_biased": a.std(1, unbiased=False), "var_z_02": z.var((0, 2)),
    "std_z_12_keep": z.std((1, 2), keepdim=True),
    "norm_p1": a.norm(1), "norm_p2": a.norm(), "norm_inf": a.norm(inf), "norm_p3": a.norm(3),
    "norm_p2_d1": a.norm(2, 1), "norm_p3_d0_keep": a.norm(3, 0, keepdim=True),
    "norm_inf_d1": a.norm(inf, 1), "norm_p1_z_12": z.norm(1, (1, 2)),
    "logsumexp_d1": a.logsumexp(1), "logsumexp_d0_keep": a.logsumexp(0, keepdim=True),
    "logsumexp_z_02": z.logsumexp((0, 2)), "logsumexp_big_d1": big.logsumexp(1),
    "logsumexp_big_d0": big.logsumexp(0),
    "softmax_d0": a.softmax(0), "softmax_d1": a.softmax(1), "log_softmax_d0": a.log_softmax(0),
    "log_softmax_d1": a.log_softmax(1), "softmax_z_d1": z.softmax(1),
    "softmax_soft_d0": soft.softmax(0), "softmax_soft_d1": soft.softmax(1),
    "log_softmax_soft_d0": soft.log_softmax(0), "log_softmax_soft_d1": soft.log_softmax(1),
    "cumsum_d0": a.cumsum(0), "cumsum_d1": a.cumsum(1), "cumprod_d0": a.cumprod(0),
    "cumprod_d1": a.cumprod(1), "cumsum_z_d2": z.cumsum(2),
    "all_all": (a > -3).all(), "all_d1": (a > -1).all(1), "any_all": (a > 20).any(),
    "any_d0_keep": (a > 1.5).any(0, keepdim=True),
}

write_golden("reduction_golden.txt", cases)
