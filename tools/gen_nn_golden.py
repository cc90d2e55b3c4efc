#!/usr/bin/python3
"""Writes nn/testdata/nn_golden.txt: what torch.nn 1.13 computes for the cases
nn's tests rebuild.

Run with Debian's python3-torch (1.13): /usr/bin/python3 tools/gen_nn_golden.py
Each line is `name|dim0,dim1,...|v0 v1 ...` (see golden.py), float32 cases to 9
significant digits:
  linear2d.* / linear3d.*  Linear's inputs (x, weight, bias, cot), output and
                           the gradients of x, weight and bias after
                           out.backward(cot);
  hook.*                   a module computing a * b + a with a full backward
                           hook that doubles grad_input: the grad_input and
                           grad_output the hook saw and a's and b's gradients;
  gain.<nonlinearity>      init.calculate_gain (leaky_relu with slope 0.2 as
                           gain.leaky_relu_0.2);
  fans.<shape>             init._calculate_fan_in_and_fan_out: [fan_in, fan_out];
  bound.linear.<in>x<out>  Linear's default init bounds: [weight, bias].
"""
import math

import torch
from torch import nn

from golden import write_golden

torch.manual_seed(0)
cases = {}


def linear_case(name, x_shape):
    layer = nn.Linear(3, 4)
    x = torch.randn(*x_shape, requires_grad=True)
    out = layer(x)
    cot = torch.randn(*out.shape)
    out.backward(cot)
    cases[name + ".x"] = x.detach()
    cases[name + ".weight"] = layer.weight.detach()
    cases[name + ".bias"] = layer.bias.detach()
    cases[name + ".cot"] = cot
    cases[name + ".out"] = out.detach()
    cases[name + ".grad_x"] = x.grad
    cases[name + ".grad_weight"] = layer.weight.grad
    cases[name + ".grad_bias"] = layer.bias.grad


class MulAdd(nn.Module):
    def forward(self, a, b):
        return a * b + a


def hook_case():
    a = torch.randn(2, 3, requires_grad=True)
    b = torch.randn(2, 3, requires_grad=True)
    cot = torch.randn(2, 3)
    seen = {}

    def hook(module, grad_input, grad_output):
        seen["grad_input"] = grad_input
        seen["grad_output"] = grad_output
        return tuple(g * 2 for g in grad_input)

    module = MulAdd()
    module.register_full_backward_hook(hook)
    module(a, b).backward(cot)
    cases["hook.a"] = a.detach()
    cases["hook.b"] = b.detach()
    cases["hook.cot"] = cot
    cases["hook.grad_input0"] = seen["grad_input"][0]
    cases["hook.grad_input1"] = seen["grad_input"][1]
    cases["hook.grad_output0"] = seen["grad_output"][0]
    cases["hook.grad_a"] = a.grad
    cases["hook.grad_b"] = b.grad


linear_case("linear2d", (2, 3))
linear_case("linear3d", (2, 5, 3))
hook_case()
for name in ["linear", "conv2d", "sigmoid", "tanh", "relu", "leaky_relu", "selu"]:
    cases["gain." + name] = torch.tensor([nn.init.calculate_gain(name)], dtype=torch.float64)
cases["gain.leaky_relu_0.2"] = torch.tensor([nn.init.calculate_gain("leaky_relu", 0.2)],
                                            dtype=torch.float64)
for shape in [(4, 3), (64, 32, 3, 3), (5, 2, 7)]:
    fans = nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))
    cases["fans." + "x".join(map(str, shape))] = torch.tensor(fans, dtype=torch.float64)
for fan_in, fan_out in [(3, 4), (100, 10)]:
    # Linear: kaiming_uniform_(a=sqrt(5)) gives bound gain * sqrt(3 / fan_in).
    gain = nn.init.calculate_gain("leaky_relu", math.sqrt(5))
    cases["bound.linear.%dx%d" % (fan_in, fan_out)] = torch.tensor(
        [gain * math.sqrt(3.0 / fan_in), 1 / math.sqrt(fan_in)], dtype=torch.float64)

write_golden("nn_golden.txt", cases, directory="nn/testdata", digits=9)
