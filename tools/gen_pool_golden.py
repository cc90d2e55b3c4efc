#!/usr/bin/python3
"""Writes nn/functional/testdata/pool_golden.txt: outputs, indices and input
gradients of torch.nn.functional's pooling and resampling ops, in float64,
from PyTorch.

Run with Debian's python3-torch (1.13): /usr/bin/python3 tools/gen_pool_golden.py
For a case `c` (format of tools/golden.py, 17 digits):
  c.in.x   the input (from torch.manual_seed(0)),
  c.in.indices  max_unpool2d's indices input,
  c.out    the output,
  c.idx    max pooling's indices,
  c.cot    the output's gradient seed,
  c.grad.x the input's gradient.
nn/functional/pooling_test.cc calls each case with the same arguments.
"""
import torch
import torch.nn.functional as F

from golden import write_golden

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)
cases = {}


def record(case, fn, x):
    leaf = x.clone().requires_grad_(True)
    result = fn(leaf)
    out, idx = result if isinstance(result, tuple) else (result, None)
    cases[case + ".in.x"] = x
    cases[case + ".out"] = out.detach()
    if idx is not None:
        cases[case + ".idx"] = idx
    cot = torch.randn(*out.shape)
    cases[case + ".cot"] = cot
    (grad,) = torch.autograd.grad(out, [leaf], cot)
    cases[case + ".grad.x"] = grad


def ties(*shape):
    """Small integers: many windows hold their maximum twice."""
    return torch.randint(0, 3, shape).double()


def with_nans(*shape):
    x = torch.randn(*shape)
    x.view(-1)[::7] = float("nan")
    x.view(-1)[3::11] = float("nan")
    return x


# Max pooling: defaults, padding, dilation, ceil_mode, rectangular windows,
# unbatched input, ties and NaN; the 2x2 stride-2 fast path on even and odd
# sizes.
record("mp2d_default", lambda x: F.max_pool2d(x, 2, return_indices=True), torch.randn(2, 3, 6, 7))
record("mp2d_odd", lambda x: F.max_pool2d(x, 2, return_indices=True), torch.randn(1, 2, 7, 9))
record("mp2d_pad_dil_ceil",
       lambda x: F.max_pool2d(x, 3, 2, 1, 2, ceil_mode=True, return_indices=True),
       torch.randn(1, 2, 9, 8))
record("mp2d_rect",
       lambda x: F.max_pool2d(x, (2, 3), (1, 2), (1, 0), return_indices=True),
       torch.randn(2, 2, 5, 7))
record("mp2d_unbatched",
       lambda x: F.max_pool2d(x, 3, 2, ceil_mode=True, return_indices=True), torch.randn(2, 5, 6))
record("mp2d_ties", lambda x: F.max_pool2d(x, 3, 1, 1, return_indices=True), ties(1, 2, 6, 6))
record("mp2d_ties_2x2", lambda x: F.max_pool2d(x, 2, return_indices=True), ties(1, 3, 6, 8))
record("mp2d_nan", lambda x: F.max_pool2d(x, 3, 2, 1, return_indices=True), with_nans(1, 2, 7, 7))
record("mp2d_nan_2x2", lambda x: F.max_pool2d(x, 2, return_indices=True), with_nans(1, 2, 6, 6))
record("mp1d",
       lambda x: F.max_pool1d(x, 3, 2, 1, 2, ceil_mode=True, return_indices=True),
       torch.randn(2, 3, 10))
record("mp1d_unbatched", lambda x: F.max_pool1d(x, 2, return_indices=True), torch.randn(3, 9))
record("mp3d",
       lambda x: F.max_pool3d(x, (2, 3, 2), (2, 1, 2), (1, 1, 0), (1, 1, 2), ceil_mode=True,
                              return_indices=True),
       torch.randn(1, 2, 5, 6, 5))
record("mp3d_unbatched", lambda x: F.max_pool3d(x, 2, return_indices=True), torch.randn(2, 4, 4, 5))

# Average pooling: padding counted or not, ceil_mode, divisor_override.
record("ap2d_default", lambda x: F.avg_pool2d(x, 2), torch.randn(1, 2, 6, 7))
record("ap2d_pad_ceil", lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True), torch.randn(2, 3, 7, 6))
record("ap2d_exclude_pad",
       lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
       torch.randn(2, 3, 7, 6))
record("ap2d_divisor",
       lambda x: F.avg_pool2d(x, (2, 3), (2, 1), (1, 1), divisor_override=5),
       torch.randn(1, 2, 5, 6))
record("ap2d_unbatched", lambda x: F.avg_pool2d(x, 2, 1), torch.randn(3, 4, 5))
record("ap1d",
       lambda x: F.avg_pool1d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
       torch.randn(2, 3, 9))
record("ap3d",
       lambda x: F.avg_pool3d(x, (2, 3, 3), (2, 2, 1), (1, 1, 0), ceil_mode=True,
                              count_include_pad=False),
       torch.randn(1, 2, 5, 6, 7))
record("ap3d_divisor", lambda x: F.avg_pool3d(x, 2, divisor_override=3), torch.randn(2, 4, 4, 5))

# Adaptive pools: windows that overlap (in not a multiple of out), grow and
# shrink; unbatched input.
record("aap1d", lambda x: F.adaptive_avg_pool1d(x, 4), torch.randn(2, 3, 10))
record("aap2d", lambda x: F.adaptive_avg_pool2d(x, (3, 4)), torch.randn(2, 2, 7, 5))
record("aap2d_unbatched", lambda x: F.adaptive_avg_pool2d(x, 3), torch.randn(2, 8, 8))
record("aap3d", lambda x: F.adaptive_avg_pool3d(x, (2, 3, 2)), torch.randn(1, 2, 5, 4, 3))
record("amp1d", lambda x: F.adaptive_max_pool1d(x, 4, return_indices=True), torch.randn(2, 3, 10))
record("amp2d", lambda x: F.adaptive_max_pool2d(x, (3, 4), return_indices=True),
       torch.randn(2, 2, 7, 5))
record("amp2d_ties", lambda x: F.adaptive_max_pool2d(x, 3, return_indices=True), ties(2, 7, 7))

# max_unpool2d of max_pool2d's indices, with the default and a given size.
pooled, pool_idx = F.max_pool2d(torch.randn(1, 2, 4, 6), 2, return_indices=True)
cases["unpool.in.indices"] = pool_idx
record("unpool", lambda x: F.max_unpool2d(x, pool_idx, 2), pooled)
odd_pooled, odd_idx = F.max_pool2d(torch.randn(2, 5, 5), 2, return_indices=True)
cases["unpool_size.in.indices"] = odd_idx
record("unpool_size", lambda x: F.max_unpool2d(x, odd_idx, 2, output_size=(5, 5)), odd_pooled)

# lp_pool2d, as PyTorch's Python computes it.
record("lp2", lambda x: F.lp_pool2d(x, 2, 2), torch.randn(1, 2, 6, 5))
record("lp1_5", lambda x: F.lp_pool2d(x, 1.5, (2, 3), stride=(1, 2), ceil_mode=True),
       torch.rand(1, 2, 5, 7) + 0.1)

# pixel_shuffle and pixel_unshuffle, one extra batch dim.
record("shuffle", lambda x: F.pixel_shuffle(x, 2), torch.randn(2, 3, 8, 2, 3))
record("unshuffle", lambda x: F.pixel_unshuffle(x, 3), torch.randn(2, 2, 6, 3))

# interpolate: nearest in 1-D, 2-D and 3-D by size and by scale factor
# (integer, fractional, shrinking); bilinear with and without align_corners.
record("near1d_size", lambda x: F.interpolate(x, size=7), torch.randn(2, 2, 3))
record("near1d_scale", lambda x: F.interpolate(x, scale_factor=2), torch.randn(1, 2, 4))
record("near2d_scale", lambda x: F.interpolate(x, scale_factor=(2, 3)), torch.randn(1, 2, 3, 4))
record("near2d_frac", lambda x: F.interpolate(x, scale_factor=1.5), torch.randn(1, 2, 3, 5))
record("near2d_size", lambda x: F.interpolate(x, size=(5, 7)), torch.randn(2, 1, 3, 4))
record("near2d_down", lambda x: F.interpolate(x, size=(2, 3)), torch.randn(1, 2, 5, 7))
record("near3d_size", lambda x: F.interpolate(x, size=(3, 5, 4)), torch.randn(1, 2, 2, 3, 2))
record("bilinear_scale", lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"),
       torch.randn(1, 2, 3, 4))
record("bilinear_corners",
       lambda x: F.interpolate(x, size=(5, 7), mode="bilinear", align_corners=True),
       torch.randn(2, 1, 3, 4))
record("bilinear_down", lambda x: F.interpolate(x, size=(2, 3), mode="bilinear"),
       torch.randn(1, 2, 5, 7))
record("bilinear_frac", lambda x: F.interpolate(x, scale_factor=1.7, mode="bilinear"),
       torch.randn(1, 1, 4, 3))

# ---- interpolate: linear, trilinear, bicubic, area, nearest-exact and
# recompute_scale_factor (added after the cases above so their values stay
# as they were). Cases ending in _f32 run in float32 (inputs, output,
# cotangent and gradient float32 values).
def record_f32(case, fn, x):
    leaf = x.float().clone().requires_grad_(True)
    out = fn(leaf)
    cases[case + ".in.x"] = leaf.detach()
    cases[case + ".out"] = out.detach()
    cot = torch.randn(*out.shape).float()
    cases[case + ".cot"] = cot
    (grad,) = torch.autograd.grad(out, [leaf], cot)
    cases[case + ".grad.x"] = grad


interp = F.interpolate
record("linear_size", lambda x: interp(x, size=7, mode="linear"), torch.randn(2, 2, 4))
record("linear_corners", lambda x: interp(x, size=6, mode="linear", align_corners=True),
       torch.randn(1, 2, 4))
record("linear_frac", lambda x: interp(x, scale_factor=1.7, mode="linear"), torch.randn(1, 2, 5))
record("linear_down", lambda x: interp(x, size=3, mode="linear"), torch.randn(1, 1, 7))
record("linear_recompute",
       lambda x: interp(x, scale_factor=1.7, mode="linear", recompute_scale_factor=True),
       torch.randn(1, 2, 5))
record("trilinear_scale", lambda x: interp(x, scale_factor=(1.5, 2, 0.7), mode="trilinear"),
       torch.randn(1, 2, 3, 4, 5))
record("trilinear_corners",
       lambda x: interp(x, size=(4, 5, 3), mode="trilinear", align_corners=True),
       torch.randn(2, 1, 2, 3, 4))
record("trilinear_recompute",
       lambda x: interp(x, scale_factor=1.5, mode="trilinear", recompute_scale_factor=True),
       torch.randn(1, 1, 3, 3, 5))
record("bicubic_scale", lambda x: interp(x, scale_factor=2, mode="bicubic"),
       torch.randn(1, 2, 3, 4))
record("bicubic_corners", lambda x: interp(x, size=(5, 7), mode="bicubic", align_corners=True),
       torch.randn(2, 1, 3, 4))
record("bicubic_frac", lambda x: interp(x, scale_factor=1.7, mode="bicubic"),
       torch.randn(1, 1, 4, 3))
record("bicubic_down", lambda x: interp(x, size=(2, 3), mode="bicubic"), torch.randn(1, 2, 5, 7))
record("bicubic_recompute",
       lambda x: interp(x, scale_factor=(1.3, 0.6), mode="bicubic", recompute_scale_factor=True),
       torch.randn(1, 1, 5, 6))
record("area1d", lambda x: interp(x, size=3, mode="area"), torch.randn(2, 2, 7))
record("area2d_scale", lambda x: interp(x, scale_factor=0.5, mode="area"), torch.randn(1, 2, 5, 7))
record("area3d", lambda x: interp(x, size=(2, 3, 2), mode="area"), torch.randn(1, 2, 3, 5, 4))
record("area_up", lambda x: interp(x, size=(5, 4), mode="area"), torch.randn(1, 1, 3, 2))
record("exact1d", lambda x: interp(x, size=7, mode="nearest-exact"), torch.randn(2, 2, 3))
record("exact2d_frac", lambda x: interp(x, scale_factor=1.5, mode="nearest-exact"),
       torch.randn(1, 2, 3, 5))
record("exact2d_down", lambda x: interp(x, size=(2, 3), mode="nearest-exact"),
       torch.randn(1, 2, 5, 7))
record("exact3d", lambda x: interp(x, size=(3, 5, 4), mode="nearest-exact"),
       torch.randn(1, 2, 2, 3, 2))
record("exact_scale", lambda x: interp(x, scale_factor=0.7, mode="nearest-exact"),
       torch.randn(1, 1, 10))
record("near2d_recompute",
       lambda x: interp(x, scale_factor=1.5, recompute_scale_factor=True), torch.randn(1, 2, 3, 5))
record("bilinear_same_size", lambda x: interp(x, scale_factor=1.1, mode="bilinear"),
       torch.randn(1, 1, 4, 4))
record_f32("linear_f32", lambda x: interp(x, scale_factor=2.3, mode="linear"), torch.randn(1, 2, 5))
record_f32("trilinear_f32",
           lambda x: interp(x, size=(3, 5, 4), mode="trilinear", align_corners=True),
           torch.randn(1, 2, 2, 3, 3))
record_f32("bicubic_f32", lambda x: interp(x, scale_factor=1.6, mode="bicubic"),
           torch.randn(1, 2, 4, 5))
record_f32("bicubic_corners_f32",
           lambda x: interp(x, size=(6, 4), mode="bicubic", align_corners=True),
           torch.randn(1, 1, 3, 5))
record_f32("exact_f32", lambda x: interp(x, size=(5, 3), mode="nearest-exact"),
           torch.randn(1, 2, 3, 7))
record_f32("area_f32", lambda x: interp(x, size=(3, 2), mode="area"), torch.randn(1, 2, 7, 5))
# ---- end of the interpolate section.

write_golden("pool_golden.txt", cases, directory="nn/functional/testdata", digits=17)
