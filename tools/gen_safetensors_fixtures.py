"""Writes the safetensors fixtures of nn/serialize/testdata with Python's safetensors.

Needs `safetensors` beside Debian's torch: run it with the venv that
tools/safetensors_roundtrip.sh makes,
  ~/.cache/torchlet/safetensors-venv/bin/python tools/gen_safetensors_fixtures.py

- python_all_dtypes.safetensors: every dtype torchlet has, read back by
  nn/serialize/safetensors_test.cc (LoadsFileWrittenByPythonSafetensors).
- fuzz_corpus/*.safetensors: small real files, the seeds of the loader fuzzer
  (tools/fuzz_safetensors.sh) and of //nn/serialize:safetensors_fuzz_test.
"""
import os

import torch
from safetensors.torch import save_file

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
TESTDATA = os.path.join(ROOT, "nn", "serialize", "testdata")
CORPUS = os.path.join(TESTDATA, "fuzz_corpus")

I64 = torch.iinfo(torch.int64)
I32 = torch.iinfo(torch.int32)


def all_dtypes():
    return {
        "i64": torch.tensor([[I64.min], [I64.max], [-1]], dtype=torch.int64),
        "f64": torch.tensor([1e300, -1e-300, 0.1], dtype=torch.float64),
        "empty": torch.zeros(0, 3),
        "f32": torch.tensor([[1.5, -0.0], [float("inf"), -2.0]], dtype=torch.float32),
        "i32": torch.tensor([I32.min, 7], dtype=torch.int32),
        "u8": torch.tensor([[0, 128, 255]], dtype=torch.uint8),
        "bool": torch.tensor([True, False, True, True]),
        "scalar": torch.tensor(True),
        "f16": torch.tensor([1.5, -0.0, float("inf"), 65504.0, 2.0 ** -24], dtype=torch.float16),
        "bf16": torch.tensor([[1.5, float("-inf")], [3e38, -2.0 ** -133]], dtype=torch.bfloat16),
    }


def corpus():
    return {
        "all_dtypes": (all_dtypes(), {"format": "pt"}),
        "empty_dict": ({}, None),
        "metadata_only": ({}, {"format": "pt", "epoch": "3"}),
        "scalar_f64": ({"x": torch.tensor(2.5, dtype=torch.float64)}, None),
        "linear": ({"fc.weight": torch.arange(12, dtype=torch.float32).reshape(3, 4),
                    "fc.bias": torch.ones(3)}, {"format": "pt"}),
        "empty_tensors": ({"a": torch.zeros(0, dtype=torch.int64),
                           "b": torch.zeros(2, 0, dtype=torch.uint8),
                           "c": torch.zeros(0, dtype=torch.bool)}, None),
        "float16": ({"h": torch.ones(2, dtype=torch.float16)}, None),
        "half_and_bfloat16": ({"h": torch.tensor([[65504.0, -2.0 ** -24]], dtype=torch.float16),
                               "b": torch.tensor([1.5, float("nan")], dtype=torch.bfloat16),
                               "f": torch.ones(1)}, {"format": "pt"}),
        "mixed": ({"z": torch.tensor([1, 0], dtype=torch.bool),
                   "y": torch.tensor([3], dtype=torch.int32),
                   "x": torch.tensor([[1.0, 2.0]], dtype=torch.float64)}, {"k": "v"}),
    }


def main():
    os.makedirs(CORPUS, exist_ok=True)
    save_file(all_dtypes(), os.path.join(TESTDATA, "python_all_dtypes.safetensors"),
              metadata={"format": "pt", "writer": "safetensors.torch"})
    for name, (tensors, metadata) in corpus().items():
        save_file(tensors, os.path.join(CORPUS, name + ".safetensors"), metadata=metadata)


if __name__ == "__main__":
    main()
