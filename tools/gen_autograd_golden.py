#!/usr/bin/python3
"""Writes autograd/testdata/autograd_golden.txt: outputs and gradients of composite
float64 expressions, from PyTorch.

Run with Debian's python3-torch (1.13): /usr/bin/python3 tools/gen_autograd_golden.py
Each line is `name|dim0,dim1,...|v0 v1 ...` with values printed to 17 significant
digits, so float64 round-trips exactly. For a case `c`:
  c.in.<x>    an input (float64 leaves from torch.manual_seed(0); index and mask
              inputs stored as numbers),
  c.out       the output,
  c.cot       the output's gradient seed, when the output is not a scalar,
  c.grad.<x>  the gradient of every float input.
autograd/golden_test.cc rebuilds each expression from the stored inputs.
"""
import math

import torch

from golden import write_golden

torch.manual_seed(0)
cases = {}


def randn(*shape):
    return torch.randn(*shape, dtype=torch.float64)


def record(case, fn, leaves, consts=None, cot=None):
    """Evaluates fn(**leaves, **consts), backpropagates (seeded with `cot` when the
    output is not a scalar) and stores inputs, output, seed and gradients."""
    consts = consts or {}
    xs = {k: v.clone().requires_grad_(True) for k, v in leaves.items()}
    out = fn(**xs, **consts)
    for k, v in leaves.items():
        cases["%s.in.%s" % (case, k)] = v
    for k, v in consts.items():
        cases["%s.in.%s" % (case, k)] = v
    cases[case + ".out"] = out.detach()
    if out.dim() > 0:
        cot = cot if cot is not None else randn(*out.shape)
        cases[case + ".cot"] = cot
    grads = torch.autograd.grad(out, list(xs.values()), cot)
    for k, g in zip(xs, grads):
        cases["%s.grad.%s" % (case, k)] = g


# Two-layer MLP with tanh, log_softmax and an NLL loss picked by gather.
def mlp(x, w1, b1, w2, b2, target):
    h = torch.tanh(x @ w1 + b1)
    logp = torch.log_softmax(h @ w2 + b2, dim=1)
    return -logp.gather(1, target.unsqueeze(1)).mean()


record("mlp", mlp, dict(x=randn(4, 3), w1=randn(3, 5), b1=randn(5), w2=randn(5, 3),
                        b2=randn(3)), dict(target=torch.tensor([2, 0, 1, 2])))


# Scaled dot-product attention.
def attention(q, k, v):
    return torch.softmax(q @ k.t() / math.sqrt(q.shape[1]), dim=1) @ v


record("attention", attention, dict(q=randn(3, 4), k=randn(5, 4), v=randn(5, 2)))


# Layer norm from mean, biased var and sqrt, with an affine transform.
def layer_norm(x, gamma, beta):
    mu = x.mean(-1, keepdim=True)
    var = x.var(-1, unbiased=False, keepdim=True)
    return (x - mu) / (var + 1e-5).sqrt() * gamma + beta


record("layer_norm", layer_norm, dict(x=randn(3, 5), gamma=randn(5), beta=randn(5)))


# A running sum clamped (some elements on each side of the range), then logsumexp.
def logsumexp_chain(x):
    y = x.cumsum(1).clamp(-1.0, 1.5)
    return y.logsumexp(1) * y.exp().mean(0).sum()


record("logsumexp_cumsum_clamp", logsumexp_chain, dict(x=randn(3, 6)))


# Broadcast mul/div/pow through expand, unsqueeze, permute and transpose views.
def broadcast_views(a, b, c, e):
    base = torch.sigmoid(a.expand(2, 3, 4) * b) / (1 + c.t().unsqueeze(-1).pow(2))
    return base.pow(e).permute(2, 0, 1).transpose(1, 2)


record("broadcast_views", broadcast_views,
       dict(a=randn(2, 3, 1), b=randn(1, 4), c=randn(3, 2), e=randn(4).abs() + 0.5))


# A loss from max(dim), topk and sort values (all values distinct).
def order_stats(x, w):
    top = x.topk(2, dim=1).values
    ranked = x.sort(dim=0, descending=True).values
    return (x.max(1).values.exp().sum() + (top * w).sum()
            + (ranked[0] - ranked[-1]).pow(2).sum() - x.min(0).values.sum())


record("max_topk_sort", order_stats, dict(x=randn(4, 5), w=randn(2)))


# Picking rows, gathering, scattering back and masking.
def index_chain(x, src, rows, cols, dest, mask):
    picked = x.index_select(0, rows).gather(1, cols)
    spread = x.scatter_add(0, dest, src * picked[:2])
    return spread.masked_fill(mask, 0.5) * x


record("index_chain", index_chain, dict(x=randn(4, 3), src=randn(2, 3)),
       dict(rows=torch.tensor([3, 1, 3]),
            cols=torch.tensor([[0, 2, 1], [1, 1, 0], [2, 0, 0]]),
            dest=torch.tensor([[1, 3, 1], [1, 0, 2]]),
            mask=torch.tensor([[False, True, False], [False, False, False],
                               [True, False, False], [False, False, True]])))


# gelu (exact and tanh) gated by sigmoid, branches chosen by where.
def gated(x, y):
    a = torch.nn.functional.gelu(x)
    b = torch.sigmoid(y)
    c = torch.nn.functional.gelu(y, approximate="tanh")
    return torch.where(x > 0, a * b, c - b * x)


record("gelu_sigmoid_where", gated, dict(x=randn(2, 5), y=randn(2, 5)))


# Gradient penalty: the squared norm of d(sum tanh(x @ w)^2)/dx, differentiated
# again (create_graph).
def gradient_penalty(x, w):
    y = torch.tanh(x @ w).pow(2).sum()
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    return (g * g).sum()


record("gradient_penalty", gradient_penalty, dict(x=randn(3, 2), w=randn(2, 4)))


# Second order through prod with one selected zero, masked_select and std.
def prod_penalty(x, mask):
    y = x.masked_select(mask).prod() + x.std(1).sum()
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    return (g * g).sum()


zeroed = randn(2, 4)
zeroed[1, 2] = 0.0
record("prod_masked_select_penalty", prod_penalty, dict(x=zeroed),
       dict(mask=torch.tensor([[True, False, True, True], [False, True, True, False]])))

# The division family with both tensor and number divisors.
def division_family(a, b):
    return (torch.remainder(a, b) + torch.fmod(a, b) * a + torch.atan2(a, b) * b
            + torch.remainder(a, 0.7) + torch.fmod(a, -0.9))


record("division_family", division_family, dict(a=randn(3, 4) * 3, b=randn(4)))


# Rounding ops (zero gradient) and frac (gradient 1) scaled by differentiable factors.
def rounding(x):
    whole = x.floor() + x.ceil() + x.round() + x.trunc() + x.round(decimals=1)
    return whole * x + x.frac() * x.exp()


record("rounding", rounding, dict(x=randn(2, 5) * 3))


# nan_to_num: the gradient passes only where the input was finite.
with_specials = randn(6)
with_specials[1] = float("nan")
with_specials[3] = float("inf")
with_specials[4] = -float("inf")
record("nan_to_num", lambda x, w: x.nan_to_num(1.0, 2.0, -3.0) * w,
       dict(x=with_specials, w=randn(6)))


# p-norms at zero elements and a zero row: 0 < p < 1, 1 < p < 2, p = 0, p = 3.
def norm_edges(x):
    return x.norm(1.5, 1) + x.norm(0.5, 1) + x.norm(0, 1) + x.norm(3, 1)


zero_elements = randn(3, 4)
zero_elements[0, 1] = 0.0
zero_elements[2] = 0.0
record("norm_edges", norm_edges, dict(x=zero_elements))


# pow(tensor, tensor) at 0^0 and 0^1.5: both gradients 0 there.
record("pow_zero_base", lambda a, b: a.pow(b),
       dict(a=torch.tensor([0.0, 0.0, 2.0, 0.5, 1.5], dtype=torch.float64),
            b=torch.tensor([0.0, 1.5, 0.0, 2.0, -0.5], dtype=torch.float64)))


# max() and min() over a tensor holding NaN: the gradient goes to the NaNs.
with_nan = randn(3, 4)
with_nan[1, 2] = float("nan")
with_nan[2, 0] = float("nan")
record("max_min_nan", lambda x: x.max() * 2 + x.min() * 3, dict(x=with_nan))

write_golden("autograd_golden.txt", cases, directory="autograd/testdata", digits=17)
