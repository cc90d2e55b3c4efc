#!/usr/bin/python3
"""Writes tensor/testdata/index_golden.txt: sorting and index-op results from PyTorch.

Run with Debian's python3-torch (1.13): /usr/bin/python3 tools/gen_index_golden.py
Each line is `name|dim0,dim1,...|v0 v1 ...` with values printed to 9 significant digits
(indices as exact integers). The inputs are rebuilt identically, without randomness, by
tensor/sorting_test.cc and tensor/index_ops_test.cc:
  x: 4x5 float32, x.flatten()[i] = ((7 * i) % 20 - 9.5) / 2 (distinct values, so the
     order of ties never matters);
  idx0, idx1: int64 index tensors for dims 0 and 1 (duplicates included);
  src: 2x5 float32 arange.
"""
import torch

from golden import write_golden


x = torch.tensor([((7 * i) % 20 - 9.5) / 2 for i in range(20)], dtype=torch.float32).reshape(4, 5)
idx0 = torch.tensor([[3, 0, 1, 2, 0], [1, 0, 3, 0, 2]])  # 2x5, column 1 repeats row 0
idx1 = torch.tensor([[4, 4], [1, 2], [3, 2], [0, 4]])  # 4x2, row 0 repeats column 4
idx1_unique = torch.tensor([[4, 0], [1, 2], [3, 2], [0, 4]])
src = torch.arange(10, dtype=torch.float32).reshape(2, 5)

cases = {}


def add(name, result):
    if isinstance(result, tuple):
        cases[name + "_values"], cases[name + "_indices"] = result
    else:
        cases[name] = result


# sorting.h
add("sort_d0", x.sort(0))
add("sort_d1_desc", x.sort(1, descending=True))
add("argsort_d0_desc", x.argsort(0, descending=True))
add("topk_k3_d1", x.topk(3, 1))
add("topk_k2_d0_smallest", x.topk(2, 0, largest=False))
add("kthvalue_k2_d0_keepdim", x.kthvalue(2, 0, keepdim=True))
add("kthvalue_k3_d1", x.kthvalue(3, 1))
add("nonzero_gt1", (x > 1).nonzero())
# index_ops.h
add("index_select_d0", x.index_select(0, torch.tensor([3, 0, 3])))
add("index_select_d1", x.index_select(1, torch.tensor([4, 1, 1, 0])))
add("gather_d0", x.gather(0, idx0))
add("gather_d1", x.gather(1, idx1))
add("scatter_d1", x.scatter(1, idx1_unique, -src.t()[:, :2].contiguous()))
add("scatter_add_d0", x.scatter_add(0, idx0, src))
add("scatter_add_d1", x.scatter_add(1, idx1, src.t().contiguous()))
add("take", x.take(torch.tensor([[-1, 0], [7, -20]])))
add("masked_select_gt0", x.masked_select(x > 0))
add("cat_d0_promote", torch.cat([x, torch.arange(10).reshape(2, 5)], 0))
add("cat_d1", torch.cat([x, x[:, :2]], 1))
add("stack_d1", torch.stack([x, 2 * x], 1))

write_golden("index_golden.txt", cases)
