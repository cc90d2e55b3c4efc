"""PyTorch's side of tests/cuda_benchmark.cc, on the same GPU in the same call.

Times BM_Gemm/4096/0 (float32, TF32 off as in torchlet), BM_Gemm/4096/1
(bfloat16), BM_Gemm/4096/2 (bfloat16, reduced-precision sums off where
this PyTorch has the switch), BM_AddLarge, BM_CopyLarge and BM_LenetStep
(LeNet-5, batch 64, SGD with momentum 0.9), each the median of several timed runs synchronized
with the device, and prints them in Google Benchmark's units (ms) beside
torchlet's names:

    python3 tools/bench_pytorch_cuda.py

BENCH_DEVICE=cpu and BENCH_SIZE=256 run it, small, without a GPU (a smoke
test of the script itself).
"""
import os
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

DEVICE = torch.device(os.environ.get("BENCH_DEVICE", "cuda:0"))
SIZE = int(os.environ.get("BENCH_SIZE", "4096"))


def sync():
    if DEVICE.type == "cuda":
        torch.cuda.synchronize()
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def timed(step, warmup=3, runs=20, repeats=5):
    for _ in range(warmup):
        step()
    sync()
    medians = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(runs):
            step()
        sync()
        medians.append((time.perf_counter() - start) / runs)
    return statistics.median(medians)


def set_bf16_reduction(allow):
    # PyTorch 2's switch; 1.13 always allows them.
    try:
        torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = allow
    except AssertionError:
        pass


def lenet():
    return nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
        nn.Linear(84, 10))


def main():
    torch.manual_seed(0)
    results = {}
    n = SIZE
    for arg, dtype in ((0, torch.float32), (1, torch.bfloat16), (2, torch.bfloat16)):
        set_bf16_reduction(arg != 2)
        a = torch.randn(n, n, device=DEVICE, dtype=dtype)
        b = torch.randn(n, n, device=DEVICE, dtype=dtype)
        t = timed(lambda: a @ b)
        results[f"BM_Gemm/{n}/{arg}"] = (t, f"{2 * n ** 3 / t / 1e12:.1f} TFLOP/s")
    set_bf16_reduction(True)
    large = 1 << 26 if DEVICE.type == "cuda" else 1 << 20
    x = torch.ones(large, device=DEVICE)
    y = torch.full((large,), 2.0, device=DEVICE)
    out = torch.empty(large, device=DEVICE)
    t = timed(lambda: torch.add(x, y, out=out))
    results["BM_AddLarge"] = (t, f"{large * 4 * 3 / t / 1e9:.0f} GB/s")
    t = timed(lambda: out.copy_(x))
    results["BM_CopyLarge"] = (t, f"{large * 4 * 2 / t / 1e9:.0f} GB/s")
    net = lenet().to(DEVICE)
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    data = torch.randn(64, 1, 28, 28, device=DEVICE)
    target = torch.randint(0, 10, (64,), device=DEVICE)

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(net(data), target)
        loss.backward()
        opt.step()
        loss.item()

    results["BM_LenetStep"] = (timed(step), "")
    # A dense 3x3 convolution (64 to 64 channels, 56x56, batch 32, 4 or 1),
    # forward and both gradients, through cuDNN with TF32 off.
    for batch in (32, 4, 1):
        cx = torch.randn(batch, 64, 56, 56, device=DEVICE)
        cw = torch.randn(64, 64, 3, 3, device=DEVICE)
        cg = torch.randn(batch, 64, 56, 56, device=DEVICE)

        def conv():
            F.conv2d(cx, cw, padding=1)
            torch.nn.grad.conv2d_weight(cx, cw.shape, cg, padding=1)
            F.conv_transpose2d(cg, cw, padding=1)

        results[f"BM_Conv2dFwdBwd/1/{batch}"] = (timed(conv), "")
    name = torch.cuda.get_device_name(0) if DEVICE.type == "cuda" else "cpu"
    print(f"PyTorch {torch.__version__} on {name}")
    for name, (seconds, extra) in results.items():
        print(f"{name:<24} {seconds * 1e3:10.3f} ms  {extra}")


if __name__ == "__main__":
    main()
