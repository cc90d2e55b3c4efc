"""PyTorch's time for one shuffled epoch of batches of 64 over a
Fashion-MNIST-sized training set ([60000, 784] float32, int64 labels): the
DataLoader over a TensorDataset (per-example __getitem__ + default_collate),
and the index gather the anchor (pytorch_fashion_mnist.py) uses. Compare with
//nn/data:data_loader_benchmark.

Run: /usr/bin/python3 tools/bench_pytorch_dataloader.py [--threads N]
"""
import argparse
import time

import torch
from torch.utils.data import DataLoader, TensorDataset


def best_of(runs, fn):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--runs", type=int, default=3)
    a = p.parse_args()
    if a.threads:
        torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    x, y = torch.rand(60000, 784), torch.randint(10, (60000,))
    loader = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True,
                        generator=torch.Generator().manual_seed(1))

    def dataloader_epoch():
        for xb, yb in loader:
            pass

    def gather_epoch():
        perm = torch.randperm(len(x))
        for i in range(0, len(x), 64):
            idx = perm[i:i + 64]
            xb, yb = x[idx], y[idx]

    print(f"DataLoader(TensorDataset) epoch: {1e3 * best_of(a.runs, dataloader_epoch):.1f} ms")
    print(f"index gather epoch (anchor):      {1e3 * best_of(a.runs, gather_epoch):.1f} ms")


if __name__ == "__main__":
    main()
