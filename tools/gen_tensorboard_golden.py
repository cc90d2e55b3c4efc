"""Prints the serialized Event messages that nn/tensorboard/event_test.cc
compares its encoder with, as written by tensorboard's own protobuf classes
and PyTorch's histogram code.

Run: ~/.cache/torchlet/venv/bin/python tools/gen_tensorboard_golden.py
(the venv tools/check_tensorboard.sh sets up, with `tensorboard` installed).
"""
import numpy as np
from tensorboard.compat.proto.event_pb2 import Event
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary


def tensorflow_bins():
    # torch.utils.tensorboard.SummaryWriter.__init__ (PyTorch 1.13).
    v = 1e-12
    buckets, neg_buckets = [], []
    while v < 1e20:
        buckets.append(v)
        neg_buckets.append(-v)
        v *= 1.1
    return neg_buckets[::-1] + [0] + buckets


def make_histogram(values, bins):
    """torch.utils.tensorboard.summary.make_histogram (PyTorch 1.13) without
    max_bins; its np.greater(..., dtype=np.int32) fails on numpy >= 1.24."""
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    counts, limits = np.histogram(values, bins=bins)
    cum_counts = np.cumsum(np.greater(counts, 0).astype(np.int32))
    start, end = np.searchsorted(cum_counts, [0, cum_counts[-1] - 1], side="right")
    start, end = int(start), int(end) + 1
    counts = counts[start - 1:end] if start > 0 else np.concatenate([[0], counts[:end]])
    limits = limits[start:end + 1]
    return HistogramProto(min=values.min(), max=values.max(), num=len(values),
                          sum=values.sum(), sum_squares=values.dot(values),
                          bucket_limit=limits.tolist(), bucket=counts.tolist())


def scalar(tag, value, step, wall_time):
    return Event(wall_time=wall_time, step=step,
                 summary=Summary(value=[Summary.Value(tag=tag, simple_value=value)]))


def histogram(tag, values, step, wall_time):
    histo = make_histogram(values, tensorflow_bins())
    return Event(wall_time=wall_time, step=step,
                 summary=Summary(value=[Summary.Value(tag=tag, histo=histo)]))


CASES = {
    "kFileVersion": Event(wall_time=1.5, file_version="brain.Event:2"),
    "kScalar": scalar("loss", 0.25, 3, 1.5),
    "kScalarZeros": scalar("z", 0.0, 0, 0.0),
    "kScalarNegativeStep": scalar("a/b", -2.0, -1, 1700000000.25),
    "kHistogram": histogram("w", [0.5, 0.625, 0.75, 0.75], 7, 2.0),
    "kHistogramAtZero": histogram("zero", [0.0, 0.0], 1, 2.0),
}

for name, event in CASES.items():
    print(f'const char {name}[] = "{event.SerializeToString().hex()}";')
