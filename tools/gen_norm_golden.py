#!/usr/bin/python3
"""Writes the golden fixtures of torchlet's normalization layers, from PyTorch.

Run with Debian's python3-torch (1.13) and Python's safetensors, the venv that
tools/safetensors_roundtrip.sh makes:
  ~/.cache/torchlet/safetensors-venv/bin/python tools/gen_norm_golden.py

- nn/functional/testdata/norm_golden.txt (format of tools/golden.py), read by
  nn/functional/batchnorm_test.cc. For a case `c`:
    c.in.<x>      an input (float32; running statistics before the call),
    c.out         the output, c.cot its gradient seed,
    c.grad.<x>    the gradient of every float input that requires grad,
    c.running_mean, c.running_var   the running statistics after the call.
- nn/testdata/norm_modules_golden.txt, read by nn/batchnorm_test.cc and
  nn/normalization_test.cc: a module's buffers after several training steps
  (inputs c.step<i>), and its eval output on c.eval_in.
- nn/testdata/batchnorm2d_state.safetensors: a trained BatchNorm2d(3)'s
  state_dict (saved with safetensors), and in norm_modules_golden.txt the
  eval output it gives (loaded_bn2d.in, loaded_bn2d.out).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import save_file

from golden import ROOT, write_golden

torch.manual_seed(0)
cases = {}


def randn(*shape):
    return torch.randn(*shape)


def record_batch_norm(case, x, weight, bias, running, training, momentum=0.1, eps=1e-5):
    """F.batch_norm on float32 leaves; running = (mean, var) or None."""
    leaves = {"x": x}
    if weight is not None:
        leaves["w"] = weight
    if bias is not None:
        leaves["b"] = bias
    xs = {k: v.clone().requires_grad_(True) for k, v in leaves.items()}
    rm, rv = (None, None) if running is None else (running[0].clone(), running[1].clone())
    for k, v in leaves.items():
        cases["%s.in.%s" % (case, k)] = v
    if running is not None:
        cases[case + ".in.running_mean"] = running[0]
        cases[case + ".in.running_var"] = running[1]
    out = F.batch_norm(xs["x"], rm, rv, xs.get("w"), xs.get("b"), training, momentum, eps)
    cot = randn(*out.shape)
    cases[case + ".out"] = out.detach()
    cases[case + ".cot"] = cot
    grads = torch.autograd.grad(out, list(xs.values()), cot)
    for k, g in zip(xs, grads):
        cases["%s.grad.%s" % (case, k)] = g
    if running is not None:
        cases[case + ".running_mean"] = rm
        cases[case + ".running_var"] = rv


def stats(c):
    return (randn(c) * 0.5, torch.rand(c) + 0.5)


record_batch_norm("bn_train_1d", randn(5, 3), randn(3), randn(3), stats(3), True)
record_batch_norm("bn_train_1d_len", randn(2, 3, 5), randn(3), randn(3), stats(3), True)
record_batch_norm("bn_train_2d", randn(2, 3, 4, 5) * 2 + 1, randn(3), randn(3), stats(3), True)
record_batch_norm("bn_train_3d", randn(2, 3, 3, 2, 3), randn(3), randn(3), stats(3), True,
                  momentum=0.3, eps=1e-3)
record_batch_norm("bn_train_no_affine", randn(3, 4, 5), None, None, stats(4), True)
record_batch_norm("bn_train_no_stats", randn(2, 3, 3, 3), randn(3), randn(3), None, True)
record_batch_norm("bn_eval_1d", randn(4, 3), randn(3), randn(3), stats(3), False)
record_batch_norm("bn_eval_2d", randn(2, 3, 4, 5), randn(3), randn(3), stats(3), False)
record_batch_norm("bn_eval_3d_no_affine", randn(2, 2, 3, 2, 3), None, None, stats(2), False)


def record(case, fn, leaves, consts=None):
    """fn(**leaves, **consts) on float32 leaves; the constants are stored too
    (running statistics before the call) and read back after it."""
    consts = consts or {}
    xs = {k: v.clone().requires_grad_(True) for k, v in leaves.items()}
    cs = {k: v.clone() for k, v in consts.items()}
    for k, v in list(leaves.items()) + list(consts.items()):
        cases["%s.in.%s" % (case, k)] = v
    out = fn(**xs, **cs)
    cot = randn(*out.shape)
    cases[case + ".out"] = out.detach()
    cases[case + ".cot"] = cot
    for k, g in zip(xs, torch.autograd.grad(out, list(xs.values()), cot)):
        cases["%s.grad.%s" % (case, k)] = g
    for k, v in cs.items():
        cases["%s.%s" % (case, k)] = v


record("in_train", lambda x, w, b, running_mean, running_var:
       F.instance_norm(x, running_mean, running_var, w, b, True, 0.2, 1e-5),
       dict(x=randn(2, 3, 5) * 2 + 1, w=randn(3), b=randn(3)),
       dict(running_mean=stats(3)[0], running_var=stats(3)[1]))
record("in_plain_2d", lambda x: F.instance_norm(x), dict(x=randn(3, 2, 3, 4)))
record("in_eval_3d", lambda x, running_mean, running_var:
       F.instance_norm(x, running_mean, running_var, use_input_stats=False),
       dict(x=randn(2, 2, 2, 3, 2)), dict(running_mean=stats(2)[0], running_var=stats(2)[1]))
record("gn", lambda x, w, b: F.group_norm(x, 2, w, b), dict(x=randn(2, 4, 3, 3), w=randn(4), b=randn(4)))
record("gn_plain_1d", lambda x: F.group_norm(x, 3, eps=1e-3), dict(x=randn(3, 6, 5)))
record("gn_one_group", lambda x, w: F.group_norm(x, 1, w), dict(x=randn(2, 3, 4), w=randn(3)))
record("lrn_3d", lambda x: F.local_response_norm(x, 3), dict(x=randn(2, 5, 4)))
record("lrn_4d", lambda x: F.local_response_norm(x, 2, alpha=0.1, beta=0.5, k=2.0),
       dict(x=randn(2, 4, 3, 3)))
record("lrn_5d", lambda x: F.local_response_norm(x, 4, alpha=0.5), dict(x=randn(1, 6, 2, 2, 3)))
write_golden("norm_golden.txt", cases, directory="nn/functional/testdata")

modules = {}


def train_steps(case, module, shape, steps=3):
    module.train()
    for i in range(steps):
        x = randn(*shape) * 1.5 + 0.5
        modules["%s.step%d" % (case, i)] = x
        module(x)
    for name, buf in module.named_buffers():
        modules["%s.%s" % (case, name)] = buf.double()
    module.eval()
    x = randn(*shape)
    modules[case + ".eval_in"] = x
    modules[case + ".eval_out"] = module(x).detach()


train_steps("bn1d", nn.BatchNorm1d(4), (6, 4))
train_steps("bn1d_cumulative", nn.BatchNorm1d(3, momentum=None), (2, 3, 4))
train_steps("bn2d", nn.BatchNorm2d(3, momentum=0.2), (2, 3, 4, 4), steps=4)
train_steps("bn3d_no_affine", nn.BatchNorm3d(2, affine=False), (2, 2, 2, 3, 2))

trained = nn.BatchNorm2d(3)
with torch.no_grad():
    trained.weight.copy_(randn(3))
    trained.bias.copy_(randn(3))
trained.train()
for _ in range(2):
    trained(randn(4, 3, 2, 2) * 2 - 1)
trained.eval()
x = randn(2, 3, 2, 2)
modules["loaded_bn2d.in"] = x
modules["loaded_bn2d.out"] = trained(x).detach()
save_file(trained.state_dict(), ROOT + "/nn/testdata/batchnorm2d_state.safetensors")
train_steps("in1d_tracked", nn.InstanceNorm1d(3, affine=True, track_running_stats=True), (2, 3, 5))
train_steps("in2d_unbatched", nn.InstanceNorm2d(2, track_running_stats=True, momentum=0.3), (2, 3, 4))
write_golden("norm_modules_golden.txt", modules, directory="nn/testdata")
