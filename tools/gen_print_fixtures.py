"""Writes tensor/testdata/print_golden.txt: PyTorch's repr of the tensors
that tensor/print_test.cc builds, one case per `=== name` header.

Run with the interpreter that has torch 1.13:
    /usr/bin/python3 tools/gen_print_fixtures.py
"""

import math
import os

import torch
from torch._tensor_str import _add_suffixes, _tensor_str

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tensor",
                   "testdata", "print_golden.txt")
PREFIX = "tensor("


def on_cpu1(t):
    """repr(t) as if t lived on a non-default device `cpu:1`."""
    suffixes = ["device='cpu:1'"]
    if t.dtype not in (torch.float32, torch.int64, torch.bool):
        suffixes.append("dtype=" + str(t.dtype))
    return _add_suffixes(PREFIX + _tensor_str(t, len(PREFIX)), suffixes, len(PREFIX), False)


def cases():
    inf, nan = math.inf, math.nan
    yield "float_matrix_mixed", repr(torch.tensor([[1.5, -2.25, 3.125], [0.5, 10.0, -0.75]]))
    yield "integer_valued_floats", repr(torch.tensor([1.0, 2.0]))
    yield "integer_valued_floats_with_zero", repr(torch.tensor([[0.0, -3.0], [12.0, 5.0]]))
    yield "all_zero_floats", repr(torch.zeros(2, 2))
    yield "sci_mode_large_range", repr(torch.tensor([0.001, 1.0, 12345.678]))
    yield "sci_mode_tiny_values", repr(torch.tensor([1e-5, 2.5e-6]))
    yield "sci_mode_huge_integer_valued", repr(torch.tensor([1.0, 1e9]))
    yield "sci_mode_pads_nonfinite", repr(torch.tensor([nan, 1e-5, -inf, 1.0]))
    yield "negative_zero", repr(torch.tensor([-0.0, 1.5]))
    yield "scalar_zero", repr(torch.tensor(0.0))
    yield "negative_values", repr(torch.tensor([-1.5, -0.25, 3.0]))
    yield "nonfinite_mixed", repr(torch.tensor([inf, nan, -inf, 1.5]))
    yield "nonfinite_with_integer_values", repr(torch.tensor([inf, nan, 1.0, -2.0]))
    yield "nonfinite_only", repr(torch.tensor([nan, -inf]))
    yield "int64_matrix", repr(torch.tensor([[1, -20], [300, 4]]))
    yield "int32_vector", repr(torch.tensor([1, 2, 3], dtype=torch.int32))
    yield "uint8_vector", repr(torch.tensor([0, 128, 255], dtype=torch.uint8))
    yield "float64_vector", repr(torch.tensor([1.25, 2.5], dtype=torch.float64))
    yield "bool_vector", repr(torch.tensor([True, False, True]))
    yield "scalar_float", repr(torch.tensor(3.5))
    yield "scalar_int64", repr(torch.tensor(7))
    yield "empty_1d_float", repr(torch.zeros(0))
    yield "empty_1d_int64", repr(torch.zeros(0, dtype=torch.int64))
    yield "empty_2d_float", repr(torch.zeros(0, 3))
    yield "empty_3d_int32", repr(torch.zeros(2, 0, 3, dtype=torch.int32))
    yield "three_dims", repr(torch.arange(0, 12, 0.5).reshape(2, 3, 4))
    yield "long_vector_wraps", repr(torch.arange(0, 30, 0.25))
    yield "long_int64_vector_wraps", repr(torch.arange(100))
    yield "suffix_wraps_to_new_line", repr(torch.arange(0, 3.5, 0.25, dtype=torch.float64))
    yield "summarized_matrix", repr(torch.arange(2000.0).reshape(40, 50))
    yield "summarized_vector", repr(torch.arange(2000))
    yield "summarized_three_dims", repr(torch.arange(1200).reshape(10, 12, 10))
    yield "transposed", repr(torch.tensor([[1.5, 2.0, -3.0], [4.0, 5.25, 6.0]]).t())
    yield "device_cpu1", on_cpu1(torch.tensor([1.5, 2.0]))
    yield "device_cpu1_with_dtype", on_cpu1(torch.tensor([1, 2], dtype=torch.int32))
    yield "float16_vector", repr(torch.tensor([1.0, 2.5], dtype=torch.float16))
    yield "float16_integer_valued", repr(torch.tensor([[1.0, -2.0], [65504.0, 0.0]],
                                                      dtype=torch.float16))
    yield "float16_sci_mode", repr(torch.tensor([0.1, 1e-5, 60000.0], dtype=torch.float16))
    yield "float16_nonfinite", repr(torch.tensor([nan, -inf, 0.333], dtype=torch.float16))
    yield "bfloat16_matrix", repr(torch.tensor([[0.1, -1.5], [3e38, 2.0]], dtype=torch.bfloat16))
    yield "bfloat16_scalar", repr(torch.tensor(0.1, dtype=torch.bfloat16))
    yield "empty_float16", repr(torch.zeros(0, dtype=torch.float16))


def main():
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        for name, text in cases():
            f.write("=== " + name + "\n")
            f.write(text.replace("dtype=torch.", "dtype=torchlet.") + "\n")


if __name__ == "__main__":
    main()
