"""Writes the PyTorch checkpoint fixtures of nn/serialize/testdata/pytorch with torch.save.

Run with Debian's Python and torch 1.13:
  /usr/bin/python3 tools/gen_pytorch_checkpoint_fixtures.py

For nn/serialize/pytorch_checkpoint_test.cc:
- <name>.pt: checkpoints written by torch.save, and <name>.safetensors the
  values each must load as (contiguous, exact bits; written here without
  the safetensors package), for all_dtypes (every dtype torchlet has, with
  extreme values), views (non-contiguous and zero-stride tensors, views of
  one storage, tied entries, 0-dim and empty tensors), protocol4 (the same
  dict pickled with protocol 4), parameter (a plain dict holding an
  nn.Parameter), big_endian (all_dtypes with byteorder "big" and its data
  byte-swapped, as a big-endian machine writes it), zip64 (all_dtypes in an
  archive whose sizes and offsets are all in zip64 extra fields, which
  Debian's minizip does not read itself) and small_net.
- small_net.pt: the state_dict of a small Conv2d-BatchNorm2d-Linear net after
  three training steps (so num_batches_tracked is an int64 3, and the
  OrderedDict carries its _metadata).
- every_dtype.pt: torch.save of an OrderedDict equal to
  testing::every_dtype() (nn/serialize/every_dtype.cc): save_pytorch of the
  same dict must write the same data.pkl and data records.
- Files torchlet must refuse: int16.pt, legacy.pt (the format before 1.6),
  torchscript.pt (torch.jit.save), nested.pt (a checkpoint dict holding a
  state_dict and an epoch), eval.pt (a pickle calling builtins.eval).
- pytorch_fuzz_corpus/: the seeds of the loader fuzzer
  (tools/fuzz_pytorch_checkpoint.sh, //nn/serialize:pytorch_checkpoint_fuzz_test):
  small checkpoints, and bare data.pkl pickles (pickle_*) whose storages are
  the 64-byte records the fuzzer supplies.
"""
import collections
import io
import json
import os
import struct
import zipfile
import zlib

import torch
from torch import nn

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "nn", "serialize", "testdata", "pytorch")
CORPUS = os.path.join(ROOT, "nn", "serialize", "testdata", "pytorch_fuzz_corpus")

I64 = torch.iinfo(torch.int64)
I32 = torch.iinfo(torch.int32)
INF = float("inf")

SAFETENSORS_DTYPES = {
    torch.float32: "F32", torch.float64: "F64", torch.int64: "I64", torch.int32: "I32",
    torch.uint8: "U8", torch.bool: "BOOL", torch.float16: "F16", torch.bfloat16: "BF16",
}


def raw_bytes(t):
    """A tensor's elements, contiguous, as bytes (numpy lacks bfloat16)."""
    t = t.detach().contiguous()
    return (t.view(torch.int16) if t.dtype == torch.bfloat16 else t).numpy().tobytes()


def write_safetensors(path, tensors):
    """The safetensors format by hand: the values torchlet's load() reads back."""
    header, data = {}, b""
    for name, t in tensors.items():
        b = raw_bytes(t)
        header[name] = {"dtype": SAFETENSORS_DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [len(data), len(data) + len(b)]}
        data += b
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def all_dtypes():
    return collections.OrderedDict([
        ("f32", torch.tensor([[1.5, -0.0, INF], [float("nan"), 3e-40, -2.0]])),
        ("f64", torch.tensor([1e300, -1e-300, 0.1], dtype=torch.float64)),
        ("i64", torch.tensor([[I64.min], [I64.max], [-1]], dtype=torch.int64)),
        ("i32", torch.tensor([I32.min, 7], dtype=torch.int32)),
        ("u8", torch.tensor([[0, 128, 255]], dtype=torch.uint8)),
        ("bool", torch.tensor([True, False, True, True])),
        ("f16", torch.tensor([1.5, -0.0, INF, 65504.0, 2.0 ** -24], dtype=torch.float16)),
        ("bf16", torch.tensor([[1.5, -INF], [3e38, -2.0 ** -133]], dtype=torch.bfloat16)),
    ])


def views():
    base = torch.arange(10, dtype=torch.float64)
    tied = torch.tensor([[1, 2], [3, 4]], dtype=torch.int32)
    return collections.OrderedDict([
        ("transposed", torch.arange(6, dtype=torch.float32).view(2, 3).t()),
        ("head", base[:4]),
        ("tail", base[6:]),
        ("every_third", base[::3]),
        ("element", base[5]),
        ("past_the_end", base[10:]),
        ("expanded", torch.tensor([1, 2, 3], dtype=torch.int64).expand(2, 3)),
        ("scalar", torch.tensor(7, dtype=torch.int64)),
        ("empty", torch.zeros(0, 3)),
        ("tied_a", tied),
        ("tied_b", tied),
        ("column", torch.arange(12, dtype=torch.float16).view(3, 4)[:, 1]),
    ])


def small_net():
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(), nn.Flatten(),
                         nn.Linear(8, 3))


def every_dtype():
    """testing::every_dtype() of nn/serialize/every_dtype.cc."""
    return collections.OrderedDict([
        ("f32", torch.tensor([[1.5, -0.0, INF], [float("nan"), 3e-40, -2.0]])),
        ("f64", torch.tensor([1e300, -1e-300, 0.1], dtype=torch.float64)),
        ("i64", torch.tensor([[I64.min], [I64.max], [-1]], dtype=torch.int64)),
        ("i32", torch.tensor([I32.min, 7], dtype=torch.int32)),
        ("u8", torch.tensor([[0, 128, 255]], dtype=torch.uint8)),
        ("bool", torch.tensor([True, False, True, True])),
        ("f16", torch.tensor([1.5, -0.0, INF, 65504.0, 2.0 ** -24], dtype=torch.float16)),
        ("bf16", torch.tensor([1.5, -INF, 3e38], dtype=torch.bfloat16)),
    ])


def save_with_expected(name, tensors, **kwargs):
    torch.save(tensors, os.path.join(OUT, name + ".pt"), **kwargs)
    write_safetensors(os.path.join(OUT, name + ".safetensors"), tensors)


def rewrite_zip(src, dst, change, extra):
    """Copies the stored zip `src` to `dst`, each entry's bytes through
    change(name, bytes), then adds the entries of `extra`."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        entries = [(i.filename, change(i.filename, zin.read(i.filename))) for i in zin.infolist()]
        for name, data in entries + list(extra.items()):
            # A fixed date: the same fixture, the same bytes.
            zout.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)


def big_endian(src, dst):
    tensors = all_dtypes()
    pickled = torch.load(src)
    # Keys of the data records follow the dict's order: record i holds entry i.
    sizes = {str(i): t.element_size() for i, t in enumerate(pickled.values())}

    def change(name, data):
        if "/data/" not in name:
            return data
        size = sizes[name.split("/data/")[-1]]
        return b"".join(data[i:i + size][::-1] for i in range(0, len(data), size))

    rewrite_zip(src, dst, change, {"all_dtypes/byteorder": b"big"})
    assert list(pickled) == list(tensors)


def write_zip64(path, entries):
    """A stored zip archive of (name, bytes) written by hand, every size and
    offset in the zip64 extra fields (as torch.save writes them for entries of
    4 GiB or more, or past 4 GiB), with the zip64 end of central directory."""
    out, central = b"", b""
    for name, data in entries:
        nb, crc, offset = name.encode(), zlib.crc32(data), len(out)
        local_extra = struct.pack("<HHQQ", 1, 16, len(data), len(data))
        out += struct.pack("<IHHHHHIIIHH", 0x04034b50, 45, 0, 0, 0, 0x21, crc, 0xffffffff,
                           0xffffffff, len(nb), len(local_extra)) + nb + local_extra + data
        extra = struct.pack("<HHQQQ", 1, 24, len(data), len(data), offset)
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 45, 45, 0, 0, 0, 0x21, crc,
                               0xffffffff, 0xffffffff, len(nb), len(extra), 0, 0, 0, 0,
                               0xffffffff) + nb + extra
    directory = len(out)
    out += central
    end = len(out)
    out += struct.pack("<IQHHIIQQQQ", 0x06064b50, 44, 45, 45, 0, 0, len(entries), len(entries),
                       len(central), directory)
    out += struct.pack("<IIQI", 0x07064b50, 0, end, 1)
    out += struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 0xffff, 0xffff, 0xffffffff, 0xffffffff, 0)
    with open(path, "wb") as f:
        f.write(out)


class Eval:
    """Pickles as a call of builtins.eval, as a hostile checkpoint would."""

    def __reduce__(self):
        return (eval, ("1 + 1",))


def fuzz_pickles():
    """data.pkl pickles whose storages are 64-byte records "0" to "7"."""
    n = {torch.float32: 16, torch.float64: 8, torch.int64: 8, torch.int32: 16,
         torch.uint8: 64, torch.bool: 64, torch.float16: 32, torch.bfloat16: 32}
    dicts = {
        "pickle_every_dtype": collections.OrderedDict(
            (str(d).split(".")[1], torch.ones(k, dtype=d)) for d, k in n.items()),
        "pickle_views": collections.OrderedDict([
            ("a", torch.ones(16)[2:10].view(2, 4).t()),
            ("b", torch.ones(8, dtype=torch.float64)[3]),
            ("c", torch.ones(64, dtype=torch.uint8)[64:])]),
        "pickle_plain_dict": {"w": nn.Parameter(torch.ones(4, 4)), "n": torch.ones(8, dtype=torch.int64)},
    }
    out = {}
    for name, d in dicts.items():
        for protocol in (2, 4):
            buf = io.BytesIO()
            torch.save(d, buf, pickle_protocol=protocol)
            with zipfile.ZipFile(buf) as z:
                out["%s_p%d.pkl" % (name, protocol)] = z.read("archive/data.pkl")
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    os.makedirs(CORPUS, exist_ok=True)

    save_with_expected("all_dtypes", all_dtypes())
    save_with_expected("views", views())
    save_with_expected("protocol4", all_dtypes(), pickle_protocol=4)
    save_with_expected("parameter", {"p": nn.Parameter(torch.tensor([[0.5, -1.0]])),
                                     "n": torch.tensor([3, 4])})
    big_endian(os.path.join(OUT, "all_dtypes.pt"), os.path.join(OUT, "big_endian.pt"))
    with zipfile.ZipFile(os.path.join(OUT, "all_dtypes.pt")) as z:
        entries = [(name.replace("all_dtypes/", "zip64/"), z.read(name)) for name in z.namelist()]
    write_zip64(os.path.join(OUT, "zip64.pt"), entries)
    assert list(torch.load(os.path.join(OUT, "zip64.pt"))) == list(all_dtypes())

    net = small_net()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for _ in range(3):
        x = torch.randn(4, 1, 4, 4)
        opt.zero_grad()
        net(x).pow(2).mean().backward()
        opt.step()
    sd = net.state_dict()
    assert sd["1.num_batches_tracked"].dtype == torch.int64
    save_with_expected("small_net", sd)

    torch.save(every_dtype(), os.path.join(OUT, "every_dtype.pt"))

    torch.save({"w": torch.tensor([1, -2], dtype=torch.int16)}, os.path.join(OUT, "int16.pt"))
    torch.save({"w": torch.ones(2)}, os.path.join(OUT, "legacy.pt"),
               _use_new_zipfile_serialization=False)
    torch.jit.save(torch.jit.script(nn.Linear(1, 1)), os.path.join(OUT, "torchscript.pt"))
    torch.save({"model": collections.OrderedDict([("w", torch.ones(2))]), "epoch": 3},
               os.path.join(OUT, "nested.pt"))
    torch.save({"w": torch.ones(2), "x": Eval()}, os.path.join(OUT, "eval.pt"))

    for name in ["all_dtypes", "views", "protocol4", "parameter", "big_endian", "zip64"]:
        with open(os.path.join(OUT, name + ".pt"), "rb") as f:
            data = f.read()
        with open(os.path.join(CORPUS, name + ".pt"), "wb") as f:
            f.write(data)
    torch.save(collections.OrderedDict(), os.path.join(CORPUS, "empty_dict.pt"))
    for name, data in fuzz_pickles().items():
        with open(os.path.join(CORPUS, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
