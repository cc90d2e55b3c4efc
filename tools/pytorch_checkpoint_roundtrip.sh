#!/usr/bin/env bash
# Checks, byte for byte, that PyTorch reads the checkpoints torchlet's
# save_pytorch writes and torchlet's load_pytorch reads the ones torch.save
# writes:
# 1. `pytorch_checkpoint_tool write` saves a state_dict of every dtype (with
#    non-contiguous, 0-dim, empty and tied tensors); torch.load, both plain
#    and with weights_only=True (PyTorch's own restricted unpickler), must
#    return an OrderedDict with the same names in the same order, dtypes,
#    shapes and bytes, the tied entries sharing one storage.
# 2. torch.save (pickle protocols 2 and 4) writes a state_dict of every dtype
#    with views of one storage; `pytorch_checkpoint_tool print` must load it
#    with the same names, dtypes, shapes and bytes.
# 3. A small Conv2d-BatchNorm2d-Linear net both ways: PyTorch's loads the
#    state_dict torchlet's saved (`pytorch_checkpoint_tool net-save`) with
#    load_state_dict(strict=True) and maps torchlet's input to torchlet's
#    output; torchlet's loads the state_dict (with its _metadata) PyTorch's
#    saved after three training steps (`net-check`) and maps PyTorch's input
#    to PyTorch's output.
#
# Needs Debian's /usr/bin/python3 with torch (python3-torch); builds
# //nn/serialize:pytorch_checkpoint_tool and exits non-zero on any mismatch.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bazel build //nn/serialize:pytorch_checkpoint_tool
workdir="$(mktemp -d)"
trap 'rm -rf "$workdir"' EXIT

/usr/bin/python3 - bazel-bin/nn/serialize/pytorch_checkpoint_tool "$workdir" <<'PY'
import collections
import os
import subprocess
import sys

import torch

tool, workdir = sys.argv[1], sys.argv[2]
I64, I32 = torch.iinfo(torch.int64), torch.iinfo(torch.int32)
INF = float("inf")
DTYPES = {"float32": torch.float32, "float64": torch.float64, "int64": torch.int64,
          "int32": torch.int32, "uint8": torch.uint8, "bool": torch.bool,
          "float16": torch.float16, "bfloat16": torch.bfloat16}
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def raw_bytes(t):
    t = t.contiguous()
    return (t.view(torch.int16) if t.dtype == torch.bfloat16 else t).numpy().tobytes()


def same(actual, expected):
    return (actual.dtype == expected.dtype and tuple(actual.shape) == tuple(expected.shape)
            and raw_bytes(actual) == raw_bytes(expected))


def torchlet_fixture():
    """What `pytorch_checkpoint_tool write` saves (nn/serialize/pytorch_checkpoint_tool.cc)."""
    tied = torch.arange(4, dtype=torch.bfloat16)
    return collections.OrderedDict([
        ("f32", torch.tensor([[1.5, -0.0, INF], [float("nan"), 3e-40, -2.0]])),
        ("f64", torch.tensor([1e300, -1e-300, 0.1], dtype=torch.float64)),
        ("i64", torch.tensor([[I64.min], [I64.max], [-1]], dtype=torch.int64)),
        ("i32", torch.tensor([I32.min, 7], dtype=torch.int32)),
        ("u8", torch.tensor([[0, 128, 255]], dtype=torch.uint8)),
        ("bool", torch.tensor([True, False, True, True])),
        ("f16", torch.tensor([1.5, -0.0, INF, 65504.0, 2.0 ** -24], dtype=torch.float16)),
        ("bf16", torch.tensor([1.5, -INF, 3e38], dtype=torch.bfloat16)),
        ("f16_transposed", torch.arange(6, dtype=torch.float16).view(2, 3).t()),
        ("expanded", torch.arange(3, dtype=torch.int32).unsqueeze(0).expand(2, 3)),
        ("row", torch.arange(12, dtype=torch.float64).view(3, 4)[2]),
        ("scalar", torch.tensor(42, dtype=torch.int64)),
        ("empty", torch.zeros(0, 3)),
        ("tied_a", tied),
        ("tied_b", tied),
    ])


def python_fixture():
    g = torch.Generator().manual_seed(0)
    base = torch.randn(12, generator=g, dtype=torch.float64)
    return collections.OrderedDict([
        ("fc1.weight", torch.randn(4, 3, generator=g)),
        ("fc1.bias", base[:4]),
        ("view_of_bias_storage", base[2:].view(2, 5).t()),
        ("bn.num_batches_tracked", torch.tensor(1000)),
        ("ids", torch.tensor([[I32.max, -5]], dtype=torch.int32)),
        ("pixels", torch.arange(250, 256, dtype=torch.uint8).view(2, 3)),
        ("mask", torch.tensor([[True], [False]])),
        ("nothing", torch.zeros(2, 0, dtype=torch.float64)),
        ("special", torch.tensor([float("nan"), -0.0, -INF])),
        ("half", torch.randn(3, 2, generator=g).half()),
        ("bfloat", torch.randn(5, generator=g).bfloat16()),
    ])


def python_reads_torchlet():
    path = os.path.join(workdir, "from_torchlet.pt")
    subprocess.run([tool, "write", path], check=True)
    expected = torchlet_fixture()
    for weights_only in (False, True):
        loaded = torch.load(path, weights_only=weights_only)
        how = "torch.load(weights_only=%s)" % weights_only
        check(type(loaded) is collections.OrderedDict, "%s: an OrderedDict" % how)
        check(list(loaded) == list(expected), "%s: names in order" % how)
        for name, t in expected.items():
            check(name in loaded and same(loaded[name], t),
                  "%s: %s %s %s" % (how, name, t.dtype, list(t.shape)))
        check(loaded["tied_a"].data_ptr() == loaded["tied_b"].data_ptr(), "%s: tied entries" % how)


def torchlet_reads_python():
    expected = python_fixture()
    for protocol in (2, 4):
        path = os.path.join(workdir, "from_python_p%d.pt" % protocol)
        torch.save(expected, path, pickle_protocol=protocol)
        out = subprocess.run([tool, "print", path], check=True, capture_output=True,
                             text=True).stdout
        rows = [line.split("\t") for line in out.splitlines()]
        check([r[0] for r in rows] == list(expected), "torchlet, protocol %d: names in order" % protocol)
        for name, dtype, shape, hex_bytes in rows:
            t = expected.get(name)
            shape = tuple(int(d) for d in shape.split(",")) if shape else ()
            ok = (t is not None and DTYPES.get(dtype) == t.dtype and shape == tuple(t.shape)
                  and bytes.fromhex(hex_bytes) == raw_bytes(t))
            check(ok, "torchlet, protocol %d: %s" % (protocol, name))


def small_net():
    """pytorch_checkpoint_tool's small_net()."""
    nn = torch.nn
    return nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(), nn.Flatten(),
                         nn.Linear(8, 3))


def nets_both_ways():
    ours = os.path.join(workdir, "torchlet_net")
    os.makedirs(ours)
    subprocess.run([tool, "net-save", ours], check=True)
    net = small_net()
    net.load_state_dict(torch.load(os.path.join(ours, "net.pt")), strict=True)
    counter = net[1].num_batches_tracked
    check(counter.dtype == torch.int64 and counter.item() == 2, "num_batches_tracked %s" % counter)
    io = torch.load(os.path.join(ours, "io.pt"))
    with torch.no_grad():
        error = (net.eval()(io["x"]) - io["y"]).abs().max().item()
    check(error <= 1e-5, "PyTorch loaded torchlet's net: max |y - expected| = %g" % error)

    theirs = os.path.join(workdir, "pytorch_net")
    os.makedirs(theirs)
    torch.manual_seed(0)
    net = small_net()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        net(torch.randn(4, 1, 4, 4)).pow(2).mean().backward()
        opt.step()
    net.eval()
    x = torch.randn(2, 1, 4, 4)
    with torch.no_grad():
        y = net(x)
    torch.save(net.state_dict(), os.path.join(theirs, "net.pt"))
    torch.save({"x": x, "y": y}, os.path.join(theirs, "io.pt"))
    done = subprocess.run([tool, "net-check", theirs])
    check(done.returncode == 0, "torchlet loaded PyTorch's net")


python_reads_torchlet()
torchlet_reads_python()
nets_both_ways()
if failures:
    print("%d mismatch(es)" % len(failures))
    sys.exit(1)
print("PyTorch checkpoint round trip: all checks passed")
PY
