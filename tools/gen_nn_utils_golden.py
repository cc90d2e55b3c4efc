#!/usr/bin/python3
"""Writes nn/utils/testdata/utils_golden.txt: torch.nn.utils 1.13's gradient
clipping on float32 gradients (see golden.py for the format, 9 digits):

  grad.a, grad.b                  the gradients of two parameters;
  norm.<p>.total                  clip_grad_norm_(max_norm=1, norm_type=p)'s
                                  return value (p in 2, 1, 3, inf);
  norm.<p>.a, norm.<p>.b          the gradients it leaves;
  norm.large.total/.a/.b          the same with max_norm=100 (no clipping);
  value.a, value.b                the gradients clip_grad_value_(0.5) leaves.

Run with Debian's python3-torch (1.13): /usr/bin/python3 tools/gen_nn_utils_golden.py
"""
import math

import torch
from torch.nn import utils

from golden import write_golden

torch.manual_seed(0)
cases = {}
grad_a = torch.randn(3) * 2
grad_b = torch.randn(2, 2)
cases["grad.a"] = grad_a
cases["grad.b"] = grad_b


def clipped(name, clip):
    a = torch.zeros(3, requires_grad=True)
    b = torch.zeros(2, 2, requires_grad=True)
    a.grad = grad_a.clone()
    b.grad = grad_b.clone()
    total = clip([a, b])
    if total is not None:
        cases[name + ".total"] = total.reshape(1)
    cases[name + ".a"] = a.grad
    cases[name + ".b"] = b.grad


for label, p in [("2", 2.0), ("1", 1.0), ("3", 3.0), ("inf", math.inf)]:
    clipped("norm." + label, lambda params: utils.clip_grad_norm_(params, 1.0, p))
clipped("norm.large", lambda params: utils.clip_grad_norm_(params, 100.0))
clipped("value", lambda params: utils.clip_grad_value_(params, 0.5))

write_golden("utils_golden.txt", cases, directory="nn/utils/testdata")
