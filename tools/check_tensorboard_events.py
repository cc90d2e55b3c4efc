"""Reads the event files nn/tensorboard:write_demo_events wrote with
tensorboard's own reader and checks their tags, steps and values, then checks
that a copy whose last record is cut short (a killed run) still reads up to
its last whole record. Exits non-zero on any mismatch.

Usage: python tools/check_tensorboard_events.py LOGDIR
(run by tools/check_tensorboard.sh, in a venv with `tensorboard` installed).
"""
import glob
import math
import os
import shutil
import sys
import tempfile

import numpy as np
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def close(a, b, rel=1e-6):
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-9)


def tensorflow_bins():
    # torch.utils.tensorboard.SummaryWriter's bins='tensorflow' (PyTorch 1.13).
    v = 1e-12
    buckets, neg_buckets = [], []
    while v < 1e20:
        buckets.append(v)
        neg_buckets.append(-v)
        v *= 1.1
    return neg_buckets[::-1] + [0] + buckets


def expected_histogram(values):
    # torch.utils.tensorboard.summary.make_histogram (PyTorch 1.13).
    values = np.asarray(values, dtype=np.float64)
    counts, limits = np.histogram(values, bins=tensorflow_bins())
    cum_counts = np.cumsum(np.greater(counts, 0).astype(np.int32))
    start, end = np.searchsorted(cum_counts, [0, cum_counts[-1] - 1], side="right")
    start, end = int(start), int(end) + 1
    counts = counts[start - 1:end] if start > 0 else np.concatenate([[0], counts[:end]])
    return dict(min=values.min(), max=values.max(), num=len(values), sum=values.sum(),
                sum_squares=values.dot(values), bucket_limit=limits[start:end + 1].tolist(),
                bucket=counts.tolist())


def check_scalars(acc, tag, expected):
    events = acc.Scalars(tag)
    check([e.step for e in events] == [s for s, _ in expected],
          f"{tag}: steps {[e.step for e in events]}")
    for e, (step, value) in zip(events, expected):
        check(close(e.value, value), f"{tag} step {step}: {e.value} != {value}")


def check_main_run(logdir):
    acc = EventAccumulator(logdir, size_guidance={"scalars": 0, "histograms": 0})
    acc.Reload()
    tags = acc.Tags()
    check(sorted(tags["scalars"]) == ["loss", "train/lr"], f"scalar tags {tags['scalars']}")
    check(tags["histograms"] == ["weights"], f"histogram tags {tags['histograms']}")
    check_scalars(acc, "loss", [(s, 1.0 / (s + 1)) for s in range(5)])
    check_scalars(acc, "train/lr", [(s, 0.01 * s) for s in range(5)])
    histograms = acc.Histograms("weights")
    check([h.step for h in histograms] == [0, 1], "histogram steps")
    for h in histograms:
        want = expected_histogram(np.arange(-5, 6) * (0.1 * (h.step + 1)))
        got = h.histogram_value
        for field in ("min", "max", "num", "sum", "sum_squares"):
            check(close(getattr(got, field), want[field]), f"histogram {field} at {h.step}")
        check(list(got.bucket) == want["bucket"], f"histogram buckets at {h.step}")
        check(len(got.bucket_limit) == len(want["bucket_limit"]) and
              all(close(a, b, 1e-12) for a, b in zip(got.bucket_limit, want["bucket_limit"])),
              f"histogram bucket limits at {h.step}")


def check_add_scalars_runs(logdir):
    for run, base in (("train", 0.5), ("test", 0.4)):
        acc = EventAccumulator(os.path.join(logdir, "accuracy_" + run))
        acc.Reload()
        check(acc.Tags()["scalars"] == ["accuracy"], f"{run}: tags {acc.Tags()['scalars']}")
        check_scalars(acc, "accuracy", [(s, base + 0.1 * s) for s in range(3)])


def check_truncated_copy(event_file):
    whole = list(EventFileLoader(event_file).Load())
    check(whole[0].file_version == "brain.Event:2", "first event is not the file version")
    with tempfile.TemporaryDirectory() as tmp:
        cut = os.path.join(tmp, os.path.basename(event_file))
        shutil.copy(event_file, cut)
        with open(cut, "r+b") as f:
            f.truncate(os.path.getsize(event_file) - 7)  # inside the last record
        events = list(EventFileLoader(cut).Load())
    check(len(events) == len(whole) - 1,
          f"truncated file: {len(events)} events, expected {len(whole) - 1}")
    check([e.step for e in events] == [e.step for e in whole[:-1]], "truncated file: steps")


def main():
    logdir = sys.argv[1]
    main_files = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
    check(len(main_files) == 1, f"event files in {logdir}: {main_files}")
    check_main_run(logdir)
    check_add_scalars_runs(logdir)
    if main_files:
        check_truncated_copy(main_files[0])
    for failure in failures:
        print("MISMATCH:", failure, file=sys.stderr)
    print("tensorboard check:", "FAILED" if failures else "ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
