"""LeNet-5 checkpoints between torchlet and PyTorch, through safetensors.

  python lenet_interchange.py TOOL WORKDIR

TOOL is bazel-bin/examples/lenet_interchange. Checks:
1. PyTorch loads torchlet's LeNet: `TOOL save` writes a state_dict and an
   input/output pair; PyTorch's LeNet (the same Sequential, so the same key
   names) loads it strictly and maps the input to the same output.
2. torchlet loads PyTorch's LeNet: PyTorch saves a freshly initialized
   LeNet's state_dict and an input/output pair; `TOOL check` loads and
   compares. Exits non-zero on any mismatch. Run through
   tools/safetensors_roundtrip.sh.
"""
import os
import subprocess
import sys

import torch
from safetensors.torch import load_file, save_file
from torch import nn


def lenet():
    return nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))


def main():
    tool, work = sys.argv[1], sys.argv[2]
    ours = os.path.join(work, "torchlet")
    os.makedirs(ours)
    subprocess.run([tool, "save", ours], check=True)
    net = lenet().eval()
    net.load_state_dict(load_file(os.path.join(ours, "model.safetensors")), strict=True)
    io = load_file(os.path.join(ours, "io.safetensors"))
    with torch.no_grad():
        error = (net(io["x"]) - io["y"]).abs().max().item()
    print("PyTorch loaded torchlet's LeNet: max |y - expected| = %g" % error)
    if error > 1e-5:
        sys.exit("PyTorch's output differs from torchlet's")

    theirs = os.path.join(work, "pytorch")
    os.makedirs(theirs)
    torch.manual_seed(1)
    net = lenet().eval()
    x = torch.randn(4, 1, 28, 28)
    with torch.no_grad():
        y = net(x)
    save_file({k: v.contiguous() for k, v in net.state_dict().items()},
              os.path.join(theirs, "model.safetensors"))
    save_file({"x": x, "y": y}, os.path.join(theirs, "io.safetensors"))
    subprocess.run([tool, "check", theirs], check=True)


if __name__ == "__main__":
    main()
