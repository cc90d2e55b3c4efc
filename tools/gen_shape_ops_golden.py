#!/usr/bin/python3
"""Writes tensor/testdata/shape_ops_golden.txt: shape-op and slice-index-op results from PyTorch.

Run with Debian's python3-torch (1.13): /usr/bin/python3 tools/gen_shape_ops_golden.py
Each line is `name|dim0,dim1,...|v0 v1 ...` (tools/golden.py). The inputs are rebuilt
identically, without randomness, by tensor/shape_ops_test.cc:
  x: 3x4 float32, x.flatten()[i] = ((7 * i) % 12 - 5.5) / 2 (distinct values);
  b: 2x3x4 float32, b.flatten()[i] = ((5 * i) % 24 - 11) / 4;
  v: the float32 vector [1.5, -2, 3];
  n: 3x4 int64 arange.
"""
import torch

from golden import write_golden

x = torch.tensor([((7 * i) % 12 - 5.5) / 2 for i in range(12)], dtype=torch.float32).reshape(3, 4)
b = torch.tensor([((5 * i) % 24 - 11) / 4 for i in range(24)], dtype=torch.float32).reshape(2, 3, 4)
v = torch.tensor([1.5, -2, 3])
n = torch.arange(12).reshape(3, 4)
src = torch.arange(12, dtype=torch.float32).reshape(3, 4) / 4 - 1
src2 = torch.tensor([[1.0, -2.0], [0.5, 4.0], [-3.0, 2.5]])

cases = {
    # Triangles.
    "tril": x.tril(),
    "tril_1": x.tril(1),
    "tril_m1": x.tril(-1),
    "tril_10": x.tril(10),
    "tril_m10": x.tril(-10),
    "triu": x.triu(),
    "triu_2": x.triu(2),
    "triu_m1": x.triu(-1),
    "tril_b_1": b.tril(1),
    "triu_b_m2": b.triu(-2),
    "tril_t": x.t().tril(-1),
    "tril_n": n.tril(1),
    "tril_indices_4_3_1": torch.tril_indices(4, 3, 1),
    "triu_indices_3_4_m1": torch.triu_indices(3, 4, -1),
    "tril_indices_3_3": torch.tril_indices(3, 3),
    "triu_indices_4_4_2": torch.triu_indices(4, 4, 2),
    # Flips, rolls, rotations.
    "flip_0": x.flip([0]),
    "flip_01": x.flip([0, 1]),
    "flip_b_m1_0": b.flip([-1, 0]),
    "fliplr": x.fliplr(),
    "flipud": x.flipud(),
    "flip_n": n.flip([1]),
    "roll_1_0": x.roll(1, 0),
    "roll_m1_1": x.roll(-1, 1),
    "roll_b_multi": b.roll([1, -2], [0, 2]),
    "roll_flat": x.roll(5),
    "roll_same_dim": x.roll([1, 1], [0, 0]),
    "roll_big": x.roll(13, 1),
    "roll_n": n.roll([2, 1], [1, 0]),
    "rot90_1": x.rot90(1),
    "rot90_2": x.rot90(2),
    "rot90_3": x.rot90(3),
    "rot90_m1": x.rot90(-1),
    "rot90_b_2_0": b.rot90(1, [2, 0]),
    # Diagonals.
    "diagonal": x.diagonal(),
    "diagonal_1": x.diagonal(1),
    "diagonal_m2": x.diagonal(-2),
    "diagonal_b_1_m1_0": b.diagonal(1, -1, 0),
    "diagonal_b_m1_2_1": b.diagonal(-1, 2, 1),
    "diag_v": v.diag(),
    "diag_v_2": v.diag(2),
    "diag_v_m1": v.diag(-1),
    "diag_x_1": x.diag(1),
    "diag_x_m2": x.diag(-2),
    "diag_embed": x.diag_embed(),
    "diag_embed_1_0_2": x.diag_embed(1, 0, 2),
    "diag_embed_m1_2_0": x.diag_embed(-1, 2, 0),
    "trace": x.trace(),
    "trace_n": n.trace(),
    # Repeats.
    "repeat_2_1": x.repeat(2, 1),
    "repeat_2_1_3": x.repeat(2, 1, 3),
    "repeat_b": b.repeat(1, 2, 1, 2),
    "tile_2": x.tile([2]),
    "tile_b": b.tile([2, 1, 1, 2]),
    "repeat_n": n.repeat(2, 2),
    "ri_2": x.repeat_interleave(2),
    "ri_2_1": x.repeat_interleave(2, 1),
    "ri_t_0": x.repeat_interleave(torch.tensor([1, 0, 2]), 0),
    "ri_t_m1": x.repeat_interleave(torch.tensor([2, 1, 0, 3]), -1),
    "ri_t_flat": x.repeat_interleave(torch.arange(12) % 3),
    "ri_index": torch.repeat_interleave(torch.tensor([2, 0, 3])),
    "ri_n": n.repeat_interleave(2, 0),
    # Moved dims and grids.
    "movedim_0_2": b.movedim(0, 2),
    "movedim_list": b.movedim([0, 1], [2, 0]),
    "moveaxis_m1_0": b.moveaxis(-1, 0),
    # Slice-wise index ops.
    "index_add_0": x.index_add(0, torch.tensor([2, 0, 2]), src, alpha=2),
    "index_add_1": x.index_add(1, torch.tensor([3, 3]), src2),
    "index_add_n": n.index_add(0, torch.tensor([1, 1]), n[:2] * 10),
    "index_copy_1": x.index_copy(1, torch.tensor([3, 0]), src2),
    "index_copy_0": x.index_copy(0, torch.tensor([2, 0]), src[:2]),
    "index_fill_0": x.index_fill(0, torch.tensor([-1, 0]), -7.5),
    "index_fill_1": x.index_fill(1, torch.tensor([2]), 9),
    "index_fill_n": n.index_fill(1, torch.tensor([0, 3]), -1),
    "take_along_dim_1": x.take_along_dim(x.argsort(1), 1),
    "take_along_dim_bcast": x.take_along_dim(torch.tensor([[0], [2]]), 0),
    "take_along_dim_flat": x.take_along_dim(torch.tensor([11, 0, 5])),
}
a = torch.tensor([1.0, 2, 3])
c = torch.tensor([4.0, 5])
for indexing in ["ij", "xy"]:
    for i, g in enumerate(torch.meshgrid(a, c, indexing=indexing)):
        cases["meshgrid_%s_%d" % (indexing, i)] = g

write_golden("shape_ops_golden.txt", cases)
