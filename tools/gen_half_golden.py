#!/usr/bin/python3
"""Writes the float16 and bfloat16 fixtures of tensor/half_test.cc and
tensor/half_ops_test.cc, from PyTorch.

Run with Debian's python3-torch (1.13): /usr/bin/python3 tools/gen_half_golden.py

tensor/testdata/half_rounding.txt: one float32 per line as
`float32_bits float16_bits bfloat16_bits` (hex): how PyTorch rounds the
edge cases of float -> half conversion (ties, overflow, subnormals, NaN).

tensor/testdata/half_promotion.txt: `a b result` dtype names, PyTorch's
promote_types over every pair of torchlet's dtypes.

tensor/testdata/half_golden.txt: golden tensors (golden.py's format),
each named `<case>_<dtype>`; the inputs x, y, big are stored too. Every
result is PyTorch's in that dtype; where PyTorch 1.13's CPU has no kernel
for the dtype (most float16 math, float16 GEMM) it is the float32 result
rounded once, which is what its kernels compute where they exist.
"""
import math
import os
import random

import torch

from golden import ROOT, write_golden

DTYPES = [torch.float32, torch.float64, torch.int64, torch.int32, torch.uint8, torch.bool,
          torch.float16, torch.bfloat16]


def name(dtype):
    return str(dtype).replace("torch.", "")


def float_bits(values):
    return torch.tensor(values, dtype=torch.float32).view(torch.int32).tolist()


def rounding_cases():
    f = lambda bits: torch.tensor([bits], dtype=torch.int64).to(torch.int32).view(torch.float32)
    cases = []
    # Every tie between neighbouring halves in [1, 2), around the subnormal
    # range and at the top, plus each tie's neighbours one float ulp away.
    for h in list(range(0x3c00, 0x3c40)) + list(range(0x0000, 0x0010)) + list(range(0x03f0, 0x0410)) \
            + list(range(0x7bf0, 0x7bff)):
        lo = torch.tensor([h], dtype=torch.int16).view(torch.float16).float()
        hi = torch.tensor([h + 1], dtype=torch.int16).view(torch.float16).float()
        mid = (lo.double() + hi.double()) / 2
        bits = mid.float().view(torch.int32).item()
        cases += [bits - 1, bits, bits + 1]
        cases += [b | 0x80000000 for b in (bits - 1, bits, bits + 1)]
    # bfloat16 ties in [1, 2) and their neighbours.
    for b in range(0x3f80, 0x3f90):
        mid = (b << 16) | 0x8000
        cases += [mid - 1, mid, mid + 1]
    specials = [0.0, -0.0, 65504.0, 65519.0, 65519.996, 65520.0, 65536.0, 1e10, -65520.0,
                2.0 ** -24, 2.0 ** -25, 2.0 ** -25 * 1.0000001, 2.0 ** -26, 3 * 2.0 ** -26,
                2.0 ** -14, 2.0 ** -14 * (1 - 2.0 ** -12), 3.4028235e38, 1.1754944e-38,
                1e-45, math.inf, -math.inf]
    cases += float_bits(specials)
    cases += [0x7f800001, 0x7fc00000, 0xffc00000, 0x7fbfffff, 0xff812345, 0x7f7fffff]
    rng = random.Random(0)
    cases += [rng.getrandbits(32) for _ in range(2000)]
    # Random values in half's range, where rounding is most exercised.
    cases += [rng.getrandbits(31) % 0x47800000 | (rng.getrandbits(1) << 31) for _ in range(2000)]
    out = []
    for bits in cases:
        bits &= 0xFFFFFFFF
        x = f(bits)
        h = x.half().view(torch.int16).item() & 0xFFFF
        b = x.bfloat16().view(torch.int16).item() & 0xFFFF
        out.append("%08x %04x %04x" % (bits, h, b))
    return out


def write_lines(path, lines):
    with open(os.path.join(ROOT, path), "w") as f:
        f.write("\n".join(lines) + "\n")


def promotion_lines():
    return ["%s %s %s" % (name(a), name(b), name(torch.promote_types(a, b)))
            for a in DTYPES for b in DTYPES]


def in_dtype(fn, dtype, *args):
    """fn(*args) in `dtype`, or in float32 and rounded where 1.13 has no kernel."""
    try:
        return fn(*args)
    except RuntimeError as e:
        if "not implemented for" not in str(e):
            raise
        return fn(*[a.float() if a.dtype == dtype else a for a in args]).to(dtype)


def op_cases(dtype):
    suffix = "_" + name(dtype)
    x = (torch.linspace(-2, 2, 12, dtype=torch.float32).reshape(3, 4) * 1.37).to(dtype)
    y = (torch.arange(4, dtype=torch.float32) * 0.7 + 0.3).to(dtype)
    big = torch.tensor([[60000.0, 30000.0, 1000.0, -2.5]], dtype=torch.float32).to(dtype)
    cases = {"x": x, "y": y, "big": big}
    # Operands that are themselves results, each rounded to `dtype` first.
    one = lambda fn, t: in_dtype(fn, dtype, t)
    pos = one(lambda a: a + 0.1, one(lambda a: a.abs(), x))
    y_minus_1, y_times_10, x_times_10 = one(lambda a: a - 1, y), one(lambda a: a * 10, y), \
        one(lambda a: a * 10, x)
    ops = {
        "neg": (lambda x: -x, (x,)),
        "abs": (lambda x: x.abs(), (x,)),
        "exp": (lambda x: x.exp(), (x,)),
        "log": (lambda p: p.log(), (pos,)),
        "sqrt": (lambda p: p.sqrt(), (pos,)),
        "sin": (lambda x: x.sin(), (x,)),
        "tanh": (lambda x: x.tanh(), (x,)),
        "sigmoid": (lambda x: x.sigmoid(), (x,)),
        "relu": (lambda x: x.relu(), (x,)),
        "gelu": (lambda x: torch.nn.functional.gelu(x), (x,)),
        "erf": (lambda x: x.erf(), (x,)),
        "floor": (lambda x: x.floor(), (x,)),
        "round": (lambda x: x.round(), (x,)),
        "add": (lambda x, y: x + y, (x, y,)),
        "sub": (lambda x, y: x - y, (x, y,)),
        "add_alpha": (lambda x, y: torch.add(x, y, alpha=1.7), (x, y)),
        "sub_alpha": (lambda x, y: torch.sub(x, y, alpha=0.1), (x, y)),
        "mul": (lambda x, y: x * y, (x, y,)),
        "div": (lambda x, y: x / y, (x, y,)),
        "pow": (lambda p, y: p.pow(y), (pos, y)),
        "maximum": (lambda x, y1: torch.maximum(x, y1), (x, y_minus_1)),
        "add_scalar": (lambda x: x + 0.1, (x,)),
        "mul_scalar": (lambda x: x * 3, (x,)),
        "lt": (lambda x, y1: (x < y1).to(x.dtype), (x, y_minus_1)),
        "clamp": (lambda x: x.clamp(-0.55, 1.1), (x,)),
        "where": (lambda x, y10: torch.where(x > 0, x, y10), (x, y_times_10)),
        "big_add": (lambda b: b + b, (big,)),
        "big_mul": (lambda b: b * 2, (big,)),
        "sum_all": (lambda x: x.sum(), (x,)),
        "sum_d1": (lambda x: x.sum(1), (x,)),
        "sum_big": (lambda b: b.sum(), (big,)),
        "mean_all": (lambda x: x.mean(), (x,)),
        "mean_big": (lambda b: b.mean(), (big,)),
        "mean_d0": (lambda x: x.mean(0), (x,)),
        "prod_d1": (lambda x: x.prod(1), (x,)),
        "max_d1": (lambda x: x.max(1).values, (x,)),
        "argmax_d1": (lambda x: x.argmax(1).to(x.dtype), (x,)),
        "min_all": (lambda x: x.min(), (x,)),
        "var_d1": (lambda x: x.var(1), (x,)),
        "std_all": (lambda x: x.std(), (x,)),
        "norm_all": (lambda x: x.norm(), (x,)),
        "norm_p1_d0": (lambda x: x.norm(1, 0), (x,)),
        "softmax_d1": (lambda x: x.softmax(1), (x,)),
        "log_softmax_d0": (lambda x: x.log_softmax(0), (x,)),
        "logsumexp_d1": (lambda x: x.logsumexp(1), (x,)),
        "cumsum_d1": (lambda x: x.cumsum(1), (x,)),
        "to_int64": (lambda x10: x10.to(torch.int64).to(x10.dtype), (x_times_10,)),
        "mm": (lambda x: x @ x.t(), (x,)),
    }
    for key, (fn, args) in ops.items():
        cases[key] = in_dtype(fn, dtype, *args)
    cases["add_int_tensor"] = x + torch.tensor([1, 2, 3, 4])
    cases["add_float32"] = x + y.float()
    return {k + suffix: v for k, v in cases.items()}


def main():
    write_lines("tensor/testdata/half_rounding.txt", rounding_cases())
    write_lines("tensor/testdata/half_promotion.txt", promotion_lines())
    cases = {}
    for dtype in (torch.float16, torch.bfloat16):
        cases.update(op_cases(dtype))
    write_golden("half_golden.txt", cases)


if __name__ == "__main__":
    main()
