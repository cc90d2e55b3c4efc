#!/usr/bin/python3
"""Times PyTorch on the work of BM_LstmFwdBwd (nn/nn_benchmark.cc), same name.

Run with Debian's python3-torch (/usr/bin/python3 tools/bench_pytorch_rnn.py
[threads]) or with PyTorch 2 through the anchors' run_pytorch2_bench.sh
--python. Prints the median of 3 repetitions, wall and process CPU time, in ms.
"""
import sys
import time

import torch


def bench(fn, min_time=1.0):
    """Median of 3 repetitions: (wall, process CPU) seconds per call."""
    fn()
    reps = []
    for _ in range(3):
        iters, start, cpu = 0, time.perf_counter(), time.process_time()
        while time.perf_counter() - start < min_time:
            fn()
            iters += 1
        reps.append(((time.perf_counter() - start) / iters, (time.process_time() - cpu) / iters))
    return sorted(reps)[1]


def lstm_fwd_bwd():
    torch.manual_seed(0)
    lstm = torch.nn.LSTM(256, 256)
    x = torch.randn(32, 64, 256)

    def step():
        lstm.zero_grad()
        lstm(x)[0].sum().backward()
    return step


if len(sys.argv) > 1:
    torch.set_num_threads(int(sys.argv[1]))
wall, cpu = bench(lstm_fwd_bwd())
print("%-40s %8.3f ms wall %8.3f ms CPU (threads %d, torch %s)" %
      ("BM_LstmFwdBwd", wall * 1e3, cpu * 1e3, torch.get_num_threads(), torch.__version__))
