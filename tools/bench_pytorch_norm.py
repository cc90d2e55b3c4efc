#!/usr/bin/python3
"""Times PyTorch 1.13 on the work of nn/batchnorm_benchmark.cc, same names.

Run with Debian's python3-torch: /usr/bin/python3 tools/bench_pytorch_norm.py [threads]
(default: torch's own thread count). Prints the median of 3 repetitions, wall and
process CPU time, in ms.
"""
import sys
import time

import torch
import torch.nn as nn


def bench(fn, min_time=0.5):
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


def batch_norm_2d_fwd_bwd(n, c, hw):
    torch.manual_seed(0)
    bn = nn.BatchNorm2d(c)
    x = torch.randn(n, c, hw, hw, requires_grad=True)
    grad = torch.randn(n, c, hw, hw)

    def step():
        bn.zero_grad()
        bn(x).backward(grad)
    return step


if len(sys.argv) > 1:
    torch.set_num_threads(int(sys.argv[1]))
for args in [(64, 16, 10), (32, 64, 56)]:
    name = "BM_BatchNorm2dFwdBwd/%d/%d/%d" % args
    wall, cpu = bench(batch_norm_2d_fwd_bwd(*args))
    print("%-40s %8.3f ms wall %8.3f ms CPU (threads %d)" % (name, wall * 1e3, cpu * 1e3,
                                                            torch.get_num_threads()))
