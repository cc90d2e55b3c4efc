#!/usr/bin/python3
"""Writes tensor/testdata/elementwise_golden.txt and elementwise_math_golden.txt:
elementwise results from PyTorch.

Run with Debian's python3-torch (1.13): /usr/bin/python3 tools/gen_elementwise_golden.py
Each line is `name|dim0,dim1,...|v0 v1 ...` with values printed to 9 significant digits
(17 in elementwise_math_golden.txt). The inputs of elementwise_golden.txt are rebuilt
identically by tensor/elementwise_test.cc; elementwise_math_golden.txt holds its inputs
(`<case>.in`, `.a`, `.b`, ...) beside the float32 and float64 results (`.f32`, `.f64`),
read by tensor/elementwise_math_test.cc.
"""
import os

import torch

from golden import write_golden


x = torch.linspace(-2, 2, 12, dtype=torch.float32).reshape(3, 4)
y = torch.arange(4, dtype=torch.float32) + 0.5
pos = x.abs() + 0.1

cases = {
    "neg": -x, "abs": x.abs(), "sign": x.sign(), "exp": x.exp(), "erf": x.erf(), "log": pos.log(),
    "log1p": pos.log1p(), "sqrt": pos.sqrt(), "rsqrt": pos.rsqrt(), "sin": x.sin(),
    "cos": x.cos(), "relu": x.relu(), "sigmoid": x.sigmoid(), "tanh": x.tanh(),
    "gelu": torch.nn.functional.gelu(x),
    "gelu_tanh": torch.nn.functional.gelu(x, approximate="tanh"),
    "clamp": x.clamp(-0.5, 1.0), "add": x + y, "add_alpha": torch.add(x, y, alpha=2.5),
    "sub": x - y, "mul": x * y, "div": x / y, "pow": pos.pow(y), "pow_scalar": x.pow(2),
    "maximum": torch.maximum(x, y - 2), "minimum": torch.minimum(x, y - 2),
    "lt": (x < y - 2).float(), "where": torch.where(x > 0, x, y * 10),
    "int_div": torch.tensor([[7, -7], [3, 0]]) / torch.tensor([2, 4]),
}

# Rounding, division-like ops and float tests: negatives, ties, NaN, infinities.
xs = x * 3.1
d = y - 2
special = torch.tensor([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, float("nan"), float("inf"),
                        -float("inf"), -0.0, 1.25, -12345.678])
ia = torch.tensor([7, -7, 7, -7, 0, 5, -5, 6])
ib = torch.tensor([2, 2, -2, -2, 3, -3, 3, 4])
cases.update({
    "floor_divide": torch.floor_divide(xs, d), "remainder": torch.remainder(xs, d),
    "fmod": torch.fmod(xs, d), "atan2": torch.atan2(x, d),
    "floor_divide_scalar": torch.floor_divide(xs, -2.5),
    "remainder_scalar": torch.remainder(xs, -2.5), "fmod_scalar": torch.fmod(xs, 2.5),
    "remainder_scalar_tensor": torch.remainder(5, d),
    "floor_divide_int": torch.floor_divide(ia, ib), "remainder_int": torch.remainder(ia, ib),
    "fmod_int": torch.fmod(ia, ib), "atan2_int": torch.atan2(ia, ib),
    "divide_by_zero": torch.stack([torch.floor_divide(torch.tensor([7.0, -7.0, 0.0]), 0.0),
                                   torch.remainder(torch.tensor([7.0, -7.0, 0.0]), 0.0),
                                   torch.fmod(torch.tensor([7.0, -7.0, 0.0]), 0.0)]),
    "round": special.round(), "round_1": special.round(decimals=1),
    "round_minus_2": special.round(decimals=-2), "floor": special.floor(),
    "ceil": special.ceil(), "trunc": special.trunc(), "frac": special.frac(),
    "isnan": special.isnan().double(), "isinf": special.isinf().double(),
    "isfinite": special.isfinite().double(), "nan_to_num": special.nan_to_num(),
    "nan_to_num_values": special.nan_to_num(1.0, 2.0, -3.0),
})

write_golden("elementwise_golden.txt", cases)


# ---- elementwise_math_golden.txt: special functions at their domain edges ----
inf, nan = float("inf"), float("nan")
wide = [-inf, -30.0, -5.0, -1.0, -0.25, -0.0, 0.0, 1e-8, 0.25, 1.0, 5.0, 30.0, 100.0, inf, nan]
unit = [-1.5, -1.0, -0.999, -0.5, -1e-9, -0.0, 0.0, 0.3, 0.5, 0.99, 1.0, 1.5, nan]
positive = [-1.0, -0.0, 0.0, 1e-30, 0.5, 1.0, 2.0, 3.0, 1024.0, 1e30, inf, nan]
gamma = [-inf, -3.0, -2.5, -2.0, -1.0, -0.5, -1e-30, -0.0, 0.0, 1e-8, 0.5, 1.0, 1.5, 2.0,
         3.5, 10.0, 100.0, 1e10, inf, nan]
unary_domains = {
    "sinh": wide, "cosh": wide, "asin": unit, "acos": unit, "atan": wide, "asinh": wide,
    "acosh": [-1.0, 0.5, 1.0, 1.0001, 2.0, 10.0, 1e10, inf, nan],
    "atanh": unit, "expm1": wide + [1e-10, -1e-10, 50.0, 200.0],
    "log2": positive, "log10": positive, "exp2": wide + [-200.0, 200.0],
    "erfc": wide + [3.0, 10.0],
    "erfinv": unit + [-0.999, 1e-10, 0.7, -0.7, 0.9],
    "lgamma": gamma, "digamma": gamma + [1.4616321449683622, -1.25, -100.5],
}
math_cases = {}
for name, domain in unary_domains.items():
    x64 = torch.tensor(domain, dtype=torch.float64)
    math_cases[name + ".in"] = x64
    math_cases[name + ".f64"] = getattr(torch, name)(x64)
    math_cases[name + ".f32"] = getattr(torch, name)(x64.float())

# erfinv's far tails, where PyTorch's own erfinv loses digits (1.6e-11 relative in
# float64 at 1 - 1e-7, 4e-6 in float32): exact values from mpmath instead.
import mpmath  # noqa: E402

mpmath.mp.dps = 40
tail = torch.tensor([-0.9999999, 0.999999, 0.999999999999, 1 - 2.0 ** -53, 0.99999988079071045],
                    dtype=torch.float64)
math_cases["erfinv_tail.in"] = tail
math_cases["erfinv_tail.exact"] = torch.tensor([float(mpmath.erfinv(mpmath.mpf(v)))
                                                for v in tail.tolist()], dtype=torch.float64)

# Binary ops: a [3, 4] against b [4] (broadcast), special values in both.
edge_a = torch.tensor([[-inf, -3.0, -1.0, -0.0], [0.0, 0.5, 2.0, inf],
                       [nan, 1e30, -1e-30, 7.0]], dtype=torch.float64)
edge_b = torch.tensor([0.0, -2.0, 3.0, inf], dtype=torch.float64)
binary_inputs = {
    "hypot": (edge_a, edge_b),
    "logaddexp": (edge_a, torch.tensor([-inf, 1000.0, 3.0, inf], dtype=torch.float64)),
    "logaddexp2": (edge_a, torch.tensor([-inf, -2.0, 200.0, inf], dtype=torch.float64)),
    "xlogy": (torch.tensor([[0.0, 0.0, 0.0, 0.0], [1.0, -2.0, 0.5, 3.0],
                            [nan, 2.0, -0.0, 1e-30]], dtype=torch.float64),
              torch.tensor([0.0, nan, 2.5, inf], dtype=torch.float64)),
    "copysign": (edge_a, torch.tensor([-0.0, 0.0, -inf, 2.0], dtype=torch.float64)),
}
for name, (a, b) in binary_inputs.items():
    math_cases[name + ".a"] = a
    math_cases[name + ".b"] = b
    math_cases[name + ".f64"] = getattr(torch, name)(a, b)
    math_cases[name + ".f32"] = getattr(torch, name)(a.float(), b.float())
xa, xb = binary_inputs["xlogy"]
for dtype, suffix in ((torch.float64, ".f64"), (torch.float32, ".f32")):
    math_cases["xlogy_other_scalar" + suffix] = torch.xlogy(xa.to(dtype), 2.5)
    math_cases["xlogy_self_scalar" + suffix] = torch.xlogy(3, xb.to(dtype))
    math_cases["copysign_scalar" + suffix] = torch.copysign(edge_a.to(dtype), -1)

# lerp: start [3, 1], end [4], weights on both sides of 0.5 and outside [0, 1].
start = torch.tensor([[-2.0], [0.5], [1e8]], dtype=torch.float64)
end = torch.tensor([1.0, -3.0, 0.1, 1e-8], dtype=torch.float64)
weight = torch.tensor([[0.0, 0.3, 0.49, 0.5], [0.51, 1.0, -1.0, 2.0],
                       [0.7, 0.25, 1.5, -0.5]], dtype=torch.float64)
math_cases.update({"lerp.start": start, "lerp.end": end, "lerp.weight": weight})
for dtype, suffix in ((torch.float64, ".f64"), (torch.float32, ".f32")):
    s_, e_, w_ = start.to(dtype), end.to(dtype), weight.to(dtype)
    math_cases["lerp_tensor" + suffix] = torch.lerp(s_, e_, w_)
    math_cases["lerp_scalar" + suffix] = torch.stack(
        [torch.lerp(s_.expand(3, 4), e_, w) for w in (0.3, 0.5, 0.7, -1.0, 2.0)])

# addcmul and addcdiv: self [3, 1], tensor1 [4], tensor2 [3, 4] (zeros divide).
t1 = torch.tensor([1.5, -2.0, 0.0, 3.0], dtype=torch.float64)
t2 = torch.tensor([[2.0, 0.5, -1.0, 0.0], [1e-3, -4.0, 2.0, 1.0],
                   [3.0, 7.0, -0.0, 0.25]], dtype=torch.float64)
math_cases.update({"addc.self": start, "addc.tensor1": t1, "addc.tensor2": t2})
for dtype, suffix in ((torch.float64, ".f64"), (torch.float32, ".f32")):
    s_, a_, b_ = start.to(dtype), t1.to(dtype), t2.to(dtype)
    math_cases["addcmul" + suffix] = torch.addcmul(s_, a_, b_, value=0.5)
    math_cases["addcdiv" + suffix] = torch.addcdiv(s_, a_, b_, value=-2)
ia_, ib_ = torch.tensor([[1, -2], [3, 4]]), torch.tensor([5, -6])
math_cases["addcmul_int"] = torch.addcmul(ia_, ib_, ia_, value=3)

# isclose: near values, NaN, infinities, tolerances.
close_a = torch.tensor([1.0, 1.0, 1.0, 0.0, 1e-9, nan, nan, inf, inf, -inf, 100.0, 1e10],
                       dtype=torch.float64)
close_b = torch.tensor([1.0, 1.00001, 1.0001, 1e-8, 0.0, nan, 1.0, inf, -inf, -inf, 100.001,
                        1.00001e10], dtype=torch.float64)
math_cases.update({"isclose.a": close_a, "isclose.b": close_b})
for dtype, suffix in ((torch.float64, ".f64"), (torch.float32, ".f32")):
    a_, b_ = close_a.to(dtype), close_b.to(dtype)
    math_cases["isclose" + suffix] = torch.isclose(a_, b_)
    math_cases["isclose_equal_nan" + suffix] = torch.isclose(a_, b_, equal_nan=True)
    math_cases["isclose_loose" + suffix] = torch.isclose(a_, b_, rtol=1e-3, atol=0.5)
    math_cases["isclose_exact" + suffix] = torch.isclose(a_, b_, rtol=0, atol=0)
math_cases["isclose_int"] = torch.isclose(torch.tensor([1, 5, 100, -7]),
                                          torch.tensor([2, 5, 101, 7]), rtol=0.01, atol=0.5)

write_golden("elementwise_math_golden.txt", math_cases, digits=17)
