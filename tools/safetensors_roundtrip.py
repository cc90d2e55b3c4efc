"""Round trip between torchlet's safetensors files and Python's safetensors.

  python safetensors_roundtrip.py TOOL WORKDIR

TOOL is bazel-bin/nn/serialize/safetensors_tool. Checks, byte for byte:
1. Python reads what torchlet writes: `TOOL write` makes a file with every
   dtype; safetensors.torch.load_file and safetensors.numpy.load_file read it
   and its metadata is read with safe_open.
2. torchlet reads what Python writes: safetensors.torch.save_file (with
   metadata) writes a file; `TOOL print` loads it and prints the raw bytes.
Exits non-zero on any mismatch. Run it through tools/safetensors_roundtrip.sh.
"""
import os
import subprocess
import sys

import numpy as np
import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file

I64 = torch.iinfo(torch.int64)
I32 = torch.iinfo(torch.int32)

DTYPES = {
    "float32": torch.float32,
    "float64": torch.float64,
    "int64": torch.int64,
    "int32": torch.int32,
    "uint8": torch.uint8,
    "bool": torch.bool,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
}


def torchlet_fixture():
    """What `safetensors_tool write` writes (nn/serialize/safetensors_tool.cc)."""
    return {
        "f32": torch.tensor([[1.5, -0.0, float("inf")], [float("nan"), 3e-40, -2.0]]),
        "f64": torch.tensor([1e300, -1e-300, 0.1], dtype=torch.float64),
        "i64": torch.tensor([[I64.min], [I64.max], [-1]], dtype=torch.int64),
        "i32": torch.tensor([I32.min, 7], dtype=torch.int32),
        "u8": torch.tensor([[0, 128, 255]], dtype=torch.uint8),
        "bool": torch.tensor([True, False, True, True]),
        "f16": torch.tensor([1.5, -0.0, float("inf"), 65504.0, 2.0 ** -24], dtype=torch.float16),
        "bf16": torch.tensor([1.5, float("-inf"), 3e38], dtype=torch.bfloat16),
        "f16_transposed": torch.arange(6, dtype=torch.float16).view(2, 3).t(),
        "transposed": torch.arange(6, dtype=torch.float64).view(2, 3).t(),
        "scalar": torch.tensor(42, dtype=torch.int64),
        "empty": torch.zeros(0, 3),
    }


def python_fixture():
    """What Python writes for torchlet to read."""
    g = torch.Generator().manual_seed(0)
    return {
        "fc1.weight": torch.randn(4, 3, generator=g),
        "fc1.bias": torch.randn(4, generator=g, dtype=torch.float64),
        "steps": torch.tensor(1000, dtype=torch.int64),
        "ids": torch.tensor([[I32.max, -5]], dtype=torch.int32),
        "pixels": torch.arange(250, 256, dtype=torch.uint8).view(2, 3),
        "mask": torch.tensor([[True], [False]]),
        "nothing": torch.zeros(2, 0, dtype=torch.float64),
        "special": torch.tensor([float("nan"), -0.0, float("-inf")]),
        "half": torch.randn(3, 2, generator=g).half(),
        "half_special": torch.tensor([65504.0, -2.0 ** -24, float("nan"), float("inf")],
                                     dtype=torch.float16),
        "bfloat": torch.randn(5, generator=g).bfloat16(),
    }


failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def raw_bytes(t):
    """The bytes of a tensor's elements (numpy has no bfloat16: read as int16)."""
    t = t.contiguous()
    return (t.view(torch.int16) if t.dtype == torch.bfloat16 else t).numpy().tobytes()


def same(actual, expected):
    """Same dtype, shape and bytes."""
    return (actual.dtype == expected.dtype and tuple(actual.shape) == tuple(expected.shape)
            and raw_bytes(actual) == raw_bytes(expected))


def python_reads_torchlet(tool, path):
    subprocess.run([tool, "write", path], check=True)
    expected = torchlet_fixture()
    loaded = load_file(path)
    check(set(loaded) == set(expected), "torch: names %s" % sorted(loaded))
    for name, t in expected.items():
        check(name in loaded and same(loaded[name], t), "torch: %s %s %s" % (name, t.dtype, list(t.shape)))
    # numpy has no bfloat16: safe_open reads the other tensors one by one.
    with safe_open(path, framework="numpy") as f:
        arrays = {n: f.get_tensor(n) for n in f.keys() if expected[n].dtype != torch.bfloat16}
    for name, t in expected.items():
        if t.dtype == torch.bfloat16:
            continue
        a = arrays.get(name)
        e = t.contiguous().numpy()
        check(a is not None and a.dtype == e.dtype and a.shape == e.shape and a.tobytes() == e.tobytes(),
              "numpy: %s %s" % (name, e.dtype))
    with safe_open(path, framework="pt") as f:
        metadata = f.metadata()
    check(metadata == {"format": "pt", "writer": "torchlet"}, "metadata %s" % metadata)


def torchlet_reads_python(tool, path):
    expected = python_fixture()
    metadata = {"format": "pt", "epoch": "7", "note": "caf\u00e9 \"quoted\""}
    save_file(expected, path, metadata=metadata)
    out = subprocess.run([tool, "print", path], check=True, capture_output=True, text=True).stdout
    tensors, read_metadata = {}, {}
    for line in out.splitlines():
        fields = line.split("\t")
        if fields[0] == "tensor":
            tensors[fields[1]] = fields[2:]
        else:
            read_metadata[fields[1]] = fields[2]
    check(set(tensors) == set(expected), "torchlet: names %s" % sorted(tensors))
    for name, t in expected.items():
        dtype, shape, hex_bytes = tensors.get(name, ["?", "", ""])
        shape = tuple(int(d) for d in shape.split(",")) if shape else ()
        ok = (DTYPES.get(dtype) == t.dtype and shape == tuple(t.shape)
              and bytes.fromhex(hex_bytes) == raw_bytes(t))
        check(ok, "torchlet: %s %s %s" % (name, t.dtype, list(t.shape)))
    check(read_metadata == metadata, "torchlet: metadata %s" % read_metadata)


def main():
    tool, workdir = sys.argv[1], sys.argv[2]
    python_reads_torchlet(tool, os.path.join(workdir, "from_torchlet.safetensors"))
    torchlet_reads_python(tool, os.path.join(workdir, "from_python.safetensors"))
    if failures:
        print("%d mismatch(es)" % len(failures))
        sys.exit(1)
    print("safetensors round trip: all checks passed")


if __name__ == "__main__":
    main()
