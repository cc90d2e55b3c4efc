#!/usr/bin/python3
"""Writes tensor/testdata/elementwise_golden.txt: elementwise results from PyTorch.

Run with Debian's python3-torch (1.13): /usr/bin/python3 tools/gen_elementwise_golden.py
Each line is `name|dim0,dim1,...|v0 v1 ...` with values printed to 9 significant digits.
The inputs are rebuilt identically by tensor/elementwise_test.cc.
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
