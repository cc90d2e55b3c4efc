"""PyTorch's time for the ops that //tensor:tensor_benchmark times under the
same names (BM_TriuMask … BM_LinalgEigh, BM_Einsum*): float32, the same
shapes, microseconds per call, the median of 3 repetitions.

Run: /usr/bin/python3 tools/bench_pytorch_ops.py [--threads N], or under
PyTorch 2 through the anchors' run_pytorch2_bench.sh --python.
"""
import argparse

import torch

from pytorch_timing import median_of_3


def cases():
    torch.manual_seed(0)
    x = torch.randn(256, 1024)
    for n in (512, 2048):
        yield "BM_TriuMask/%d" % n, lambda n=n: torch.full((n, n), float("-inf")).triu(1)
    yield "BM_FlipLastDim", lambda: x.flip(1)
    yield "BM_Roll", lambda: x.roll(7, 1)
    r = torch.randn(1024, 64)
    yield "BM_RepeatInterleave", lambda: r.repeat_interleave(4, 0)
    m = torch.randn(1024, 255)
    yield "BM_MedianDim", lambda: m.median(1)
    gx, gg = torch.randn(256, 1024) * 2, torch.randn(256, 1024)
    for arg, form in ((0, "none"), (1, "tanh")):
        yield "BM_GeluBackward/%d" % arg, lambda form=form: torch.ops.aten.gelu_backward(
            gg, gx, approximate=form)
    q = torch.randn(1024, 256)
    yield "BM_QuantileDim", lambda: q.quantile(0.9, 1)
    a, b = torch.randn(1024, 64), torch.randn(1024, 64)
    for p in (1, 2):
        yield "BM_Cdist/%d" % p, lambda p=p: torch.cdist(a, b, float(p))
    sa, sb = torch.randn(256, 16, 16) + torch.eye(16) * 4, torch.randn(256, 16, 4)
    yield "BM_LinalgSolveBatched", lambda: torch.linalg.solve(sa, sb)
    ia = torch.randn(256, 256) + torch.eye(256) * 4
    yield "BM_LinalgInv/256", lambda: torch.linalg.inv(ia)
    cr = torch.randn(64, 32, 32)
    ca = cr @ cr.transpose(1, 2) + torch.eye(32)
    yield "BM_LinalgCholeskyBatched", lambda: torch.linalg.cholesky(ca)
    for n in (64, 256):
        sv = torch.randn(n, n)
        yield "BM_LinalgSvd/%d" % n, lambda sv=sv: torch.linalg.svd(sv, full_matrices=False)
    er = torch.randn(128, 128)
    ea = er + er.t()
    yield "BM_LinalgEigh/128", lambda: torch.linalg.eigh(ea)
    for bsz, n in ((64, 8), (16, 64), (4, 256)):
        ex, ey = torch.randn(bsz, n, n), torch.randn(bsz, n, n)
        yield "BM_EinsumBmm/%d/%d" % (bsz, n), lambda ex=ex, ey=ey: torch.einsum("bij,bjk->bik", ex, ey)
        yield "BM_EinsumBmmReference/%d/%d" % (bsz, n), lambda ex=ex, ey=ey: torch.bmm(ex, ey)
    aq, ak = torch.randn(8, 8, 64, 32), torch.randn(8, 8, 64, 32)
    yield "BM_EinsumAttention", lambda: torch.einsum("bhqd,bhkd->bhqk", aq, ak)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--min-time", type=float, default=0.3)
    args = p.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    print("torch %s, %d threads" % (torch.__version__, torch.get_num_threads()))
    with torch.no_grad():
        for name, fn in cases():
            wall, _ = median_of_3(fn, args.min_time)
            print("%-32s %10.1f us" % (name, wall * 1e6))


if __name__ == "__main__":
    main()
