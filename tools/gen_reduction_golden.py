#!/usr/bin/python3
"""Writes tensor/testdata/reduction_golden.txt (reduction results from PyTorch) and
tensor/testdata/statistics_golden.txt (statistics, scans and searches, with their inputs).

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

# ---- Statistics, scans and searches: tensor/statistics_test.cc, tensor/search_test.cc ----
# The inputs are written too (as "in_*"), float32-exact, so the tests read them
# rather than rebuild them.
nan = math.nan
g = torch.Generator().manual_seed(0)
x = torch.tensor([[1, nan, 3, 2, 2.5], [4, 0.5, -1, nan, nan], [2, 2, 2, 5, -3],
                  [nan, nan, nan, nan, nan]], dtype=torch.float64)
y = torch.randint(-4, 5, (4, 6), generator=g).double() * 0.5  # ties
d = (torch.randperm(24, generator=g).double() * 0.25 - 3).reshape(4, 6)  # distinct
k = torch.tensor([[0, 3, 0, 1], [2, 0, 0, 0], [1, 1, 1, 0]])
big = torch.tensor([[1000, 999, -998, 1], [-inf, -inf, 2, -inf], [-1000, 0, 1, 2]],
                   dtype=torch.float64)
qs = torch.tensor([0, 0.25, 0.5, 0.9, 1], dtype=torch.float64)
seq = torch.tensor([1, 3, 3, 5, 7], dtype=torch.float64)
vals = torch.tensor([[0, 3, 4], [7, 8, 3]], dtype=torch.float64)
rows = y.sort(1).values
row_vals = torch.tensor([[0, 1, -2], [2, 2, 0.5], [-1, 3, 9], [0, -9, 1.5]], dtype=torch.float64)
unsorted = torch.tensor([5, 1, 3, 3, 7], dtype=torch.float64)
counts_in = torch.tensor([1, 1, 3, 0, 7, 3, 3])
weights = torch.tensor([0.5, 1, 2, -1, 0.25, 3, 1], dtype=torch.float64)
runs = torch.tensor([1, 1, 2, 2, 3, 1, 1, 2])
runs2 = torch.tensor([[1, 1, 2, 2], [1, 1, 2, 2], [3, 3, 2, 2]])

stats = {"in_x": x, "in_y": y, "in_d": d, "in_k": k, "in_big": big, "in_qs": qs,
         "in_seq": seq, "in_vals": vals, "in_rows": rows, "in_row_vals": row_vals,
         "in_unsorted": unsorted, "in_counts": counts_in, "in_weights": weights,
         "in_runs": runs, "in_runs2": runs2}


def put(name, result):
    if isinstance(result, tuple):
        for i, r in enumerate(result):
            stats["%s_%d" % (name, i)] = r
    else:
        stats[name] = result


put("nansum_x", x.nansum())
put("nansum_x_d0", x.nansum(0))
put("nansum_x_d1_keep", x.nansum(1, keepdim=True))
put("nansum_y_m1", y.nansum(-1))
put("nanmean_x", x.nanmean())
put("nanmean_x_d1", x.nanmean(1))
put("nanmean_x_d0_keep", x.nanmean(0, keepdim=True))
put("nanmean_x_m1_0", x.nanmean((-1, 0)))
put("std_mean_y", torch.std_mean(y))
put("std_mean_y_d1_biased_keep", torch.std_mean(y, 1, unbiased=False, keepdim=True))
put("var_mean_y_d0", torch.var_mean(y, 0))
put("var_mean_y_01_biased", torch.var_mean(y, (0, 1), unbiased=False))
put("aminmax_y", tuple(torch.aminmax(y)))
put("aminmax_y_d1", tuple(torch.aminmax(y, dim=1)))
put("aminmax_y_d0_keep", tuple(torch.aminmax(y, dim=0, keepdim=True)))
put("aminmax_x_m1", tuple(torch.aminmax(x, dim=-1)))
put("count_nonzero_k", k.count_nonzero())
put("count_nonzero_k_d0", k.count_nonzero(0))
put("count_nonzero_k_m1", k.count_nonzero(-1))
put("count_nonzero_k_01", k.count_nonzero((0, 1)))
put("median_d", d.median())
put("median_y", y.median())
put("median_x", x.median())
put("median_d_d1", tuple(d.median(1)))
put("median_d_d0_keep", tuple(d.median(0, keepdim=True)))
put("median_x_d1", tuple(x.median(1)))
put("nanmedian_x", x.nanmedian())
put("nanmedian_x_d1", tuple(x.nanmedian(1)))
put("nanmedian_d_m2_keep", tuple(d.nanmedian(-2, keepdim=True)))
put("quantile_d_03", d.quantile(0.3))
put("quantile_d_qs_d0", d.quantile(qs, dim=0))
put("quantile_x_qs_d1", x.quantile(qs, dim=1))
for mode in ["linear", "lower", "higher", "midpoint", "nearest"]:
    put("quantile_d_qs_d1_keep_" + mode, d.quantile(qs, dim=1, keepdim=True, interpolation=mode))
    put("nanquantile_x_qs_d1_" + mode, x.nanquantile(qs, dim=1, interpolation=mode))
put("quantile_y_qs_keep", y.quantile(qs, keepdim=True))
put("nanquantile_x_04", x.nanquantile(0.4))
put("nanquantile_x_07_d0_keep", x.nanquantile(0.7, dim=0, keepdim=True))
put("cummax_x_d1", tuple(x.cummax(1)))
put("cummin_x_d1", tuple(x.cummin(1)))
put("cummax_y_d0", tuple(y.cummax(0)))
put("cummin_y_m1", tuple(y.cummin(-1)))
put("cummax_k_d1", tuple(k.cummax(1)))
put("logcumsumexp_d_d1", d.logcumsumexp(1))
put("logcumsumexp_y_d0", y.logcumsumexp(0))
put("logcumsumexp_big_d1", big.logcumsumexp(1))
put("logcumsumexp_x_m1", x.logcumsumexp(-1))
put("searchsorted_left", torch.searchsorted(seq, vals))
put("searchsorted_right", torch.searchsorted(seq, vals, right=True))
put("searchsorted_side_right", torch.searchsorted(seq, vals, side="right"))
put("searchsorted_batched", torch.searchsorted(rows, row_vals))
put("searchsorted_batched_right", torch.searchsorted(rows, row_vals, right=True))
put("searchsorted_sorter", torch.searchsorted(unsorted, vals, sorter=unsorted.argsort()))
put("searchsorted_scalar", torch.searchsorted(seq, 3))
put("searchsorted_scalar_right", torch.searchsorted(seq, 3.0, right=True))
put("bucketize", torch.bucketize(vals, seq))
put("bucketize_right", torch.bucketize(vals, seq, right=True))
put("bincount", counts_in.bincount())
put("bincount_minlength", counts_in.bincount(minlength=10))
put("bincount_weights", counts_in.bincount(weights))
put("histc_y", y.histc(5))
put("histc_y_range", y.histc(4, -1, 1))
put("histc_d", d.histc(7, 0, 0))
put("histc_x", x.nan_to_num(0).histc(3, -1, 4))
put("unique_consecutive_runs", torch.unique_consecutive(runs, return_inverse=True,
                                                        return_counts=True))
put("unique_consecutive_runs2_d0", torch.unique_consecutive(runs2, return_inverse=True,
                                                            return_counts=True, dim=0))
put("unique_consecutive_runs2_d1", torch.unique_consecutive(runs2, return_inverse=True,
                                                            return_counts=True, dim=1))
put("unique_consecutive_runs2", torch.unique_consecutive(runs2, return_inverse=True,
                                                         return_counts=True))

write_golden("statistics_golden.txt", stats)
