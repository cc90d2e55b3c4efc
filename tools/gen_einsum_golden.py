#!/usr/bin/python3
"""Writes tensor/testdata/einsum_golden.txt and products_golden.txt: einsum,
tensordot, kron, cross, the norms and cdist from PyTorch.

Run with Debian's python3-torch (1.13): /usr/bin/python3 tools/gen_einsum_golden.py
Each case `c` has inputs `c.in0`, `c.in1`, ... (float64, values with few
digits so float32 holds them exactly) and its result `c.out`, computed in
float64. tensor/einsum_test.cc and tensor/products_test.cc list the cases.
"""
import math
import torch

from golden import write_golden

gen = torch.Generator().manual_seed(0)


def rnd(*shape):
    """Values in [-2, 2] in steps of 1/8."""
    return (torch.randint(-16, 17, shape, generator=gen).double() / 8)


def case(cases, name, result, *inputs):
    for i, t in enumerate(inputs):
        cases["%s.in%d" % (name, i)] = t
    cases[name + ".out"] = result


EINSUM = [
    # name, equation, operand shapes
    ("matmul", "ij,jk->ik", [(2, 3), (3, 4)]),
    ("matmul_implicit", "ij,jk", [(2, 3), (3, 4)]),
    ("bmm", "bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("outer", "i,j->ij", [(3,), (4,)]),
    ("trace", "ii", [(3, 3)]),
    ("diagonal", "ii->i", [(3, 3)]),
    ("batch_diagonal", "bii->bi", [(2, 3, 3)]),
    ("repeated_implicit", "iij", [(3, 3, 2)]),
    ("transpose", "ij->ji", [(2, 3)]),
    ("sum_all", "ij->", [(2, 3)]),
    ("sum_rows", "ij->i", [(2, 3)]),
    ("bilinear", "bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("ellipsis_both", "...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("ellipsis_middle", "a...b->...ab", [(2, 3, 4, 5)]),
    ("ellipsis_dropped", "...i->i", [(2, 3, 4)]),
    ("ellipsis_implicit", "...ij,...j", [(2, 3, 4), (4,)]),
    ("implicit_sorted", "ba,ac", [(2, 3), (3, 4)]),
    ("implicit_upper_first", "bA,Ac", [(2, 3), (3, 4)]),
    ("broadcast_mul", "ij,ij->ij", [(2, 1), (1, 3)]),
    ("broadcast_batch", "bij,bjk->bik", [(1, 3, 4), (2, 4, 5)]),
    ("broadcast_contracted", "ij,jk->ik", [(2, 1), (3, 4)]),
    ("chain3", "ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("triple_dot", "i,i,i->", [(4,), (4,), (4,)]),
    ("outer3", "a,b,c->abc", [(2,), (3,), (4,)]),
    ("four_operands", "ab,bc,cd,de->ae", [(2, 3), (3, 2), (2, 4), (4, 3)]),
    ("one_side_sum", "ij,jk->i", [(2, 3), (3, 4)]),
    ("batch_keep_sum", "bij,bjk->b", [(2, 3, 4), (2, 4, 5)]),
    ("attention", "bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
    ("scalar_operand", ",ij->ij", [(), (2, 3)]),
    ("spaces", "i j , j k -> i k", [(2, 3), (3, 4)]),
    ("output_permuted", "ijk,jl->lki", [(2, 3, 4), (3, 5)]),
    ("empty_contracted", "ij,jk->ik", [(2, 0), (0, 3)]),
    ("empty_batch", "bij,bjk->bik", [(0, 2, 3), (0, 3, 4)]),
]


def einsum_cases():
    cases = {}
    for name, eq, shapes in EINSUM:
        ops = [rnd(*s) for s in shapes]
        case(cases, name, torch.einsum(eq, *ops), *ops)
    return cases


def product_cases():
    cases = {}
    a, b = rnd(2, 3, 4), rnd(3, 4, 5)
    case(cases, "tensordot_2", torch.tensordot(a, b, dims=2), a, b)
    x, y = rnd(2, 3), rnd(4)
    case(cases, "tensordot_0", torch.tensordot(x, y, dims=0), x, y)
    a, b = rnd(2, 3, 4), rnd(4, 3, 5)
    case(cases, "tensordot_lists", torch.tensordot(a, b, dims=([1, 2], [1, 0])), a, b)
    a, b = rnd(1, 3), rnd(2, 3)
    case(cases, "tensordot_broadcast", torch.tensordot(a, b, dims=([0], [0])), a, b)
    a, b = rnd(2, 3), rnd(4, 2)
    case(cases, "kron_2d", torch.kron(a, b), a, b)
    a, b = rnd(2, 3), rnd(4)
    case(cases, "kron_ranks", torch.kron(a, b), a, b)
    a, b = rnd(4, 3), rnd(4, 3)
    case(cases, "cross_default", torch.cross(a, b), a, b)
    a, b = rnd(3, 2), rnd(3, 2)
    case(cases, "cross_dim0", torch.linalg.cross(a, b, dim=0), a, b)
    a, b = rnd(4, 3), rnd(1, 3)
    case(cases, "linalg_cross_broadcast", torch.linalg.cross(a, b), a, b)
    a, b = rnd(2, 3), rnd(3)
    case(cases, "vecdot", torch.linalg.vecdot(a, b), a, b)
    mats = [rnd(3), rnd(3, 5), rnd(5, 2), rnd(2, 4), rnd(4)]
    case(cases, "multi_dot_vectors", torch.linalg.multi_dot(mats), *mats)
    mats = [rnd(2, 6), rnd(6, 3), rnd(3, 5)]
    case(cases, "multi_dot_3", torch.linalg.multi_dot(mats), *mats)
    mats = [rnd(5, 3), rnd(3, 6), rnd(6, 2)]
    case(cases, "multi_dot_3_right_first", torch.linalg.multi_dot(mats), *mats)
    v = rnd(3, 4)
    for ord_name, ord in [("2", 2), ("1", 1), ("0", 0), ("inf", math.inf), ("ninf", -math.inf),
                          ("3_5", 3.5), ("0_5", 0.5), ("n1", -1)]:
        case(cases, "vector_norm_" + ord_name, torch.linalg.vector_norm(v, ord), v)
        case(cases, "vector_norm_dim1_" + ord_name,
             torch.linalg.vector_norm(v, ord, dim=1, keepdim=True), v)
    m = rnd(2, 3, 4)
    for ord_name, ord in [("fro", "fro"), ("nuc", "nuc"), ("inf", math.inf),
                          ("ninf", -math.inf), ("1", 1), ("n1", -1), ("2", 2), ("n2", -2)]:
        case(cases, "matrix_norm_" + ord_name, torch.linalg.matrix_norm(m, ord), m)
        case(cases, "matrix_norm_dims_" + ord_name,
             torch.linalg.matrix_norm(m, ord, dim=(2, 0), keepdim=True), m)
    case(cases, "linalg_norm_default", torch.linalg.norm(m), m)
    case(cases, "linalg_norm_dim1", torch.linalg.norm(m, 3, dim=1), m)
    for p_name, p in [("0", 0.), ("1", 1.), ("2", 2.), ("inf", math.inf), ("0_5", 0.5),
                      ("3", 3.)]:
        x1, x2 = rnd(2, 3, 4), rnd(2, 5, 4)
        case(cases, "cdist_" + p_name, torch.cdist(x1, x2, p), x1, x2)
    x1, x2 = rnd(30, 4), rnd(5, 4)
    case(cases, "cdist_mm", torch.cdist(x1, x2), x1, x2)
    x1, x2 = rnd(2, 1, 3, 4), rnd(3, 5, 4)
    case(cases, "cdist_batch_broadcast", torch.cdist(x1, x2, 1.5), x1, x2)
    return cases


write_golden("einsum_golden.txt", einsum_cases(), digits=17)
write_golden("products_golden.txt", product_cases(), digits=17)
