#!/usr/bin/python3
"""Times PyTorch on the work of BM_EmbeddingBagFwdBwd, BM_EmbeddingBagFwdBwdUneven
and BM_EmbeddingBagFwd (nn/functional/functional_benchmark.cc), same names.

weight [100000, 64] float32, 200,000 random indices in 10,000 bags of 20
("uneven": one bag of 100,000 and 9,999 of about 10); forward, sum,
backward into the dense weight gradient (or the forward alone, recording
the graph, as torchlet's benchmark does).

Run with Debian's python3-torch (/usr/bin/python3
tools/bench_pytorch_embedding_bag.py [threads]) or with PyTorch 2 through the
anchors' run_pytorch2_bench.sh --python. Prints the median of 3 repetitions,
wall and process CPU time, in ms.
"""
import sys

import torch
import torch.nn.functional as F

from pytorch_timing import median_of_3

ROWS, DIM, ENTRIES, BAGS = 100000, 64, 200000, 10000


def bench(fn, min_time=1.0):
    return median_of_3(fn, min_time)


def embedding_bag(mode, uneven=False, backward=True):
    torch.manual_seed(0)
    weight = torch.randn(ROWS, DIM, requires_grad=True)
    input = torch.randint(0, ROWS, (ENTRIES,))
    if uneven:
        offsets = torch.cat([torch.zeros(1, dtype=torch.long),
                             torch.arange(BAGS - 1) * 10 + ENTRIES // 2])
    else:
        offsets = torch.arange(BAGS) * (ENTRIES // BAGS)

    def step():
        weight.grad = None
        out = F.embedding_bag(input, weight, offsets, mode=mode)
        if backward:
            out.sum().backward()
    return step


if len(sys.argv) > 1:
    torch.set_num_threads(int(sys.argv[1]))
cases = [("BM_EmbeddingBagFwdBwd/%s" % mode, embedding_bag(mode))
         for mode in ("sum", "mean", "max")]
cases.append(("BM_EmbeddingBagFwdBwdUneven/max", embedding_bag("max", uneven=True)))
cases += [("BM_EmbeddingBagFwd/%s" % mode, embedding_bag(mode, backward=False))
          for mode in ("sum", "max")]
for name, fn in cases:
    wall, cpu = bench(fn)
    print("%-40s %8.3f ms wall %8.3f ms CPU (threads %d, torch %s)" %
          (name, wall * 1e3, cpu * 1e3, torch.get_num_threads(), torch.__version__))
