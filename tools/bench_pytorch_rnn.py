#!/usr/bin/python3
"""Times PyTorch on the work of BM_LstmFwdBwd (nn/nn_benchmark.cc), same name.

Run with Debian's python3-torch (/usr/bin/python3 tools/bench_pytorch_rnn.py
[threads]) or with PyTorch 2 through the anchors' run_pytorch2_bench.sh
--python. Prints the median of 3 repetitions, wall and process CPU time, in ms.
"""
import sys

import torch

from pytorch_timing import median_of_3


def bench(fn, min_time=1.0):
    return median_of_3(fn, min_time)


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
