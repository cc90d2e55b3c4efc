#!/usr/bin/python3
"""Writes tensor/testdata/linalg_decompositions_golden.txt: torch.linalg's decompositions and
solvers from PyTorch, with their inputs.

Run with Debian's python3-torch (1.13): /usr/bin/python3 tools/gen_linalg_golden.py
Each line is `name|dim0,dim1,...|v0 v1 ...`. Inputs (prefixed `in_`) are written
to 17 digits so that tensor/linalg_decompositions_test.cc reads them exactly;
results are computed in float64. Decompositions that are unique only up to
signs (qr's R rows, eigenvectors, singular vectors) are tested through
reconstructions and invariants, with these values as the reference.
"""
import torch

from golden import write_golden

torch.manual_seed(0)
d = torch.float64


def well_conditioned(*shape):
    """Random square matrices with a dominant diagonal."""
    n = shape[-1]
    return torch.randn(*shape, dtype=d) + 3 * torch.eye(n, dtype=d)


def spd(*shape):
    a = torch.randn(*shape, dtype=d)
    return a @ a.mT + shape[-1] * torch.eye(shape[-1], dtype=d)


inputs = {
    "sq": well_conditioned(3, 3),
    "batch": torch.randn(2, 3, 3, dtype=d),  # one negative determinant at least
    "rhs": torch.randn(3, 2, dtype=d),
    "rhs_vec": torch.randn(2, 3, dtype=d),
    "spd": spd(2, 3, 3),
    "tall": torch.randn(5, 3, dtype=d),
    "wide": torch.randn(3, 5, dtype=d),
    "sym": (lambda s: s + s.mT)(torch.randn(2, 4, 4, dtype=d)),
    "lowrank": torch.randn(4, 2, dtype=d) @ torch.randn(2, 5, dtype=d),
    "expm": 0.8 * torch.randn(2, 3, 3, dtype=d),
}
assert (torch.linalg.det(inputs["batch"]) < 0).any() and (torch.linalg.det(inputs["batch"]) > 0).any()
inputs["lstsq_b"] = torch.randn(5, 2, dtype=d)
# Past 16 columns, where the SVD divides and conquers rather than running
# Jacobi rotations; and a product of rank 5 from it (many zero singular values).
inputs["svd_big"] = torch.randn(40, 24, dtype=d)
svd_rank5 = inputs["svd_big"][:, :5] @ inputs["svd_big"][:5, :]
# The upper triangle of sym differs from its lower one: UPLO must matter.
inputs["sym_u"] = inputs["sym"] + torch.triu(torch.ones(4, 4, dtype=d), 1)

x = inputs
sign, logabsdet = torch.linalg.slogdet(x["batch"])
spd_l = torch.linalg.cholesky(x["spd"])
spd_u = torch.linalg.cholesky(x["spd"], upper=True)
cases = {"in_" + k: v for k, v in inputs.items()}
cases.update({
    "inv_sq": torch.linalg.inv(x["sq"]),
    "inv_batch": torch.linalg.inv(x["batch"]),
    "det_batch": torch.linalg.det(x["batch"]),
    "det_sq": torch.linalg.det(x["sq"]),
    "slogdet_sign": sign,
    "slogdet_logabsdet": logabsdet,
    "logdet_batch": torch.logdet(x["batch"]),
    "solve_broadcast": torch.linalg.solve(x["batch"], x["rhs"]),
    "solve_vec": torch.linalg.solve(x["batch"], x["rhs_vec"]),
    "cholesky_l": spd_l,
    "cholesky_u": spd_u,
    "cholesky_solve": torch.cholesky_solve(x["rhs"], spd_l),
    "cholesky_solve_u": torch.cholesky_solve(x["rhs"], spd_u, upper=True),
    "cholesky_inverse": torch.cholesky_inverse(spd_l[0]),
    "qr_tall_r_abs": torch.linalg.qr(x["tall"])[1].abs(),
    "qr_wide_r_abs": torch.linalg.qr(x["wide"])[1].abs(),
    "eigvalsh_l": torch.linalg.eigvalsh(x["sym_u"]),
    "eigvalsh_u": torch.linalg.eigvalsh(x["sym_u"], UPLO="U"),
    "svdvals_tall": torch.linalg.svdvals(x["tall"]),
    "svdvals_wide": torch.linalg.svdvals(x["wide"]),
    "svdvals_big": torch.linalg.svdvals(x["svd_big"]),
    "svdvals_rank5": torch.linalg.svdvals(svd_rank5),
    "pinv_tall": torch.linalg.pinv(x["tall"]),
    "pinv_lowrank": torch.linalg.pinv(x["lowrank"]),
    "pinv_sym_hermitian": torch.linalg.pinv(x["sym"], hermitian=True),
    "pinv_lowrank_rtol": torch.linalg.pinv(x["lowrank"], rtol=0.3),
    "pinverse_tall": torch.pinverse(x["tall"]),
    "rank_lowrank": torch.linalg.matrix_rank(x["lowrank"]),
    "rank_sym_hermitian": torch.linalg.matrix_rank(x["sym"], hermitian=True),
    "rank_tall_atol": torch.linalg.matrix_rank(x["tall"], atol=1.5),
    "lstsq_tall": torch.linalg.lstsq(x["tall"], x["lstsq_b"]).solution,
    "lstsq_tall_rank": torch.linalg.lstsq(x["tall"], x["lstsq_b"]).rank,
    "lstsq_vec": torch.linalg.lstsq(x["tall"], x["lstsq_b"][:, 0]).solution,
    "matrix_power_3": torch.linalg.matrix_power(x["batch"], 3),
    "matrix_power_m2": torch.linalg.matrix_power(x["sq"], -2),
    "matrix_exp": torch.linalg.matrix_exp(x["expm"]),
    "matrix_exp_big": torch.linalg.matrix_exp(5 * x["expm"][0]),
})
write_golden("linalg_decompositions_golden.txt", cases, digits=17)
