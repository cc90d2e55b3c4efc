#!/usr/bin/python3
"""Writes nn/functional/testdata/conv_golden.txt and nn/testdata/conv_golden.txt:
outputs and gradients of torch.nn.functional's convolutions and of the
convolution layers (with their drawn weights stored), in float32, from
PyTorch.

Run with Debian's python3-torch (1.13): /usr/bin/python3 tools/gen_conv_golden.py
For a case `c` (format of tools/golden.py):
  c.in.<x>    an input (float32 leaves from torch.manual_seed(0)),
  c.out       the output,
  c.cot       the output's gradient seed,
  c.grad.<x>  the gradient of every input.
nn/functional/conv_golden_test.cc and nn/conv_test.cc rebuild each case
from the stored inputs with the same arguments.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from golden import write_golden

torch.manual_seed(0)
cases = {}


def record(case, fn, **leaves):
    xs = {k: v.clone().requires_grad_(True) for k, v in leaves.items()}
    out = fn(**xs)
    for k, v in leaves.items():
        cases["%s.in.%s" % (case, k)] = v
    cases[case + ".out"] = out.detach()
    cot = torch.randn(*out.shape)
    cases[case + ".cot"] = cot
    grads = torch.autograd.grad(out, list(xs.values()), cot)
    for k, g in zip(xs, grads):
        cases["%s.grad.%s" % (case, k)] = g


def rn(*shape):
    return torch.randn(*shape)


# conv2d
record("conv2d_plain", lambda x, w, b: F.conv2d(x, w, b), x=rn(2, 3, 7, 6), w=rn(4, 3, 3, 3), b=rn(4))
record("conv2d_strided", lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=(1, 2),
                                                  dilation=(2, 1), groups=2),
       x=rn(2, 4, 9, 8), w=rn(6, 2, 3, 2), b=rn(6))
record("conv2d_depthwise", lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1, groups=3),
       x=rn(2, 3, 8, 7), w=rn(6, 1, 3, 3), b=rn(6))
record("conv2d_pointwise", lambda x, w: F.conv2d(x, w), x=rn(2, 4, 5, 5), w=rn(3, 4, 1, 1))
record("conv2d_unbatched", lambda x, w, b: F.conv2d(x, w, b, padding=1), x=rn(3, 6, 5),
       w=rn(2, 3, 3, 3), b=rn(2))
record("conv2d_same", lambda x, w, b: F.conv2d(x, w, b, padding="same", dilation=(1, 2)),
       x=rn(1, 2, 6, 7), w=rn(3, 2, 4, 3), b=rn(3))
record("conv2d_valid", lambda x, w: F.conv2d(x, w, padding="valid"), x=rn(2, 2, 5, 5),
       w=rn(2, 2, 2, 3))
# conv1d and conv3d
record("conv1d", lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1), x=rn(2, 3, 10),
       w=rn(4, 3, 3), b=rn(4))
record("conv1d_same", lambda x, w: F.conv1d(x, w, padding="same", groups=2), x=rn(2, 4, 9),
       w=rn(4, 2, 4))
record("conv3d", lambda x, w, b: F.conv3d(x, w, b, stride=(1, 2, 1), padding=(1, 0, 1)),
       x=rn(2, 2, 5, 6, 4), w=rn(3, 2, 2, 3, 2), b=rn(3))
record("conv3d_depthwise", lambda x, w: F.conv3d(x, w, padding=1, groups=2, dilation=(1, 2, 1)),
       x=rn(1, 2, 4, 5, 6), w=rn(2, 1, 3, 2, 3))
# transposed
record("conv_transpose2d", lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1,
                                                               output_padding=1),
       x=rn(2, 4, 5, 4), w=rn(4, 3, 3, 3), b=rn(3))
record("conv_transpose2d_groups", lambda x, w: F.conv_transpose2d(
    x, w, stride=(2, 3), padding=(1, 0), output_padding=(1, 2), groups=2, dilation=(2, 1)),
       x=rn(2, 4, 4, 5), w=rn(4, 1, 3, 2))
record("conv_transpose1d", lambda x, w, b: F.conv_transpose1d(x, w, b, stride=3, padding=2),
       x=rn(2, 3, 6), w=rn(3, 2, 4), b=rn(2))
record("conv_transpose3d", lambda x, w: F.conv_transpose3d(x, w, stride=(1, 2, 2),
                                                           output_padding=(0, 1, 0)),
       x=rn(1, 2, 3, 4, 3), w=rn(2, 3, 2, 2, 3))
record("conv_transpose2d_unbatched", lambda x, w: F.conv_transpose2d(x, w, padding=1),
       x=rn(2, 4, 4), w=rn(2, 3, 3, 3))


def layer(case, module, x):
    """A layer with its drawn weights stored: c.in.weight, c.in.bias."""
    params = dict(module.named_parameters())
    leaves = {"x": x}
    leaves.update({k: v.detach().clone() for k, v in params.items()})

    def run(x, **p):
        return torch.nn.utils.stateless.functional_call(module, p, (x,))
    record(case, run, **leaves)


write_golden("conv_golden.txt", cases, directory="nn/functional/testdata")
cases = {}

layer("Conv2d", nn.Conv2d(3, 4, 3, stride=2, padding=1), rn(2, 3, 7, 7))
layer("Conv2d_same_nobias", nn.Conv2d(2, 4, (2, 3), padding="same", groups=2, bias=False),
      rn(1, 2, 5, 6))
layer("Conv1d", nn.Conv1d(2, 3, 3, dilation=2), rn(2, 2, 9))
layer("Conv3d", nn.Conv3d(2, 2, 2, stride=(1, 1, 2)), rn(1, 2, 3, 4, 5))
layer("ConvTranspose2d", nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1),
      rn(2, 3, 4, 3))
layer("ConvTranspose1d", nn.ConvTranspose1d(2, 4, 2, groups=2, bias=False), rn(2, 2, 5))
layer("ConvTranspose3d", nn.ConvTranspose3d(2, 1, 2, stride=2), rn(1, 2, 2, 3, 2))

write_golden("conv_golden.txt", cases, directory="nn/testdata")
