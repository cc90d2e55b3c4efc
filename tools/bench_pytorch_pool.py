"""PyTorch's time for max_pool2d and avg_pool2d 2x2 stride 2 on LeNet-5's
shapes ([64, 6, 28, 28] and [64, 16, 10, 10], float32): forward + backward
with a ones seed, and max_pool2d forward under no_grad. Compare with
//nn:pool_benchmark (same names, microseconds).

Run: /usr/bin/python3 tools/bench_pytorch_pool.py [--threads N]
"""
import argparse
import time

import torch
import torch.nn.functional as F


def per_call_us(fn, iters):
    fn()
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(iters):
            fn()
        best = min(best, (time.perf_counter() - start) / iters)
    return best * 1e6


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--iters", type=int, default=200)
    a = p.parse_args()
    if a.threads:
        torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    for arg, shape in enumerate([(64, 6, 28, 28), (64, 16, 10, 10)]):
        x = torch.randn(*shape, requires_grad=True)
        for name, pool in [("MaxPool2d", F.max_pool2d), ("AvgPool2d", F.avg_pool2d)]:
            seed = torch.ones_like(pool(x, 2))

            def step():
                x.grad = None
                pool(x, 2).backward(seed)

            print("BM_%sFwdBwd/%d  %.1f us" % (name, arg, per_call_us(step, a.iters)))
        with torch.no_grad():
            print("BM_MaxPool2dInference/%d  %.1f us" %
                  (arg, per_call_us(lambda: F.max_pool2d(x, 2), a.iters)))


if __name__ == "__main__":
    main()
