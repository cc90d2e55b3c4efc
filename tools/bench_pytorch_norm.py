#!/usr/bin/python3
"""Times PyTorch 1.13 on the work of nn/batchnorm_benchmark.cc, same names.

Run with Debian's python3-torch: /usr/bin/python3 tools/bench_pytorch_norm.py [threads]
(default: torch's own thread count). Prints the median of 3 repetitions, wall and
process CPU time, in ms.
"""
import sys

import torch
import torch.nn as nn

from pytorch_timing import median_of_3


def bench(fn, min_time=0.5):
    return median_of_3(fn, min_time)


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
