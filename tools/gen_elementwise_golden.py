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

write_golden("elementwise_golden.txt", cases)
