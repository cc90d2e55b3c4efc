// Benchmarks of the tensor package. Names with a twin in the libtorch anchor
// benchmarks time the same work, so the two can be compared side by side.
#include <chrono>
#include <ctime>
#include <future>

#include "benchmark/benchmark.h"
#include "tensor/tensor.h"

namespace torchlet {
namespace {

// N x N x N float32 matrix product; counter GFLOPS.
void BM_Gemm(benchmark::State& state) {
  const int64_t n = state.range(0);
  Tensor a = randn({n, n});
  Tensor b = randn({n, n});
  for (auto _ : state) {
    Tensor c = mm(a, b);
    benchmark::DoNotOptimize(c.data_ptr());
  }
  state.counters["GFLOPS"] = benchmark::Counter(2.0 * n * n * n,
                                                benchmark::Counter::kIsIterationInvariantRate,
                                                benchmark::Counter::kIs1000);
}
BENCHMARK(BM_Gemm)->Arg(256)->Arg(512)->Arg(1024)->Arg(2048)->UseRealTime();

// The three products of a Linear layer's step, as nn's benchmarks make
// them: [m, k] @ [n, k]ᵀ (forward, the weight stored [out, in]), [m, n] @
// [n, k] (input gradient) and [m, n]ᵀ @ [m, k] (weight gradient). Args: m,
// n, k and which of the three (0, 1, 2).
void BM_GemmLinear(benchmark::State& state) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const int64_t which = state.range(3);
  const Tensor x = randn({m, k}), w = randn({n, k}), g = randn({m, n});
  for (auto _ : state) {
    Tensor c = which == 0 ? mm(x, w.t()) : which == 1 ? mm(g, w) : mm(g.t(), x);
    benchmark::DoNotOptimize(c.data_ptr());
  }
  state.counters["GFLOPS"] = benchmark::Counter(2.0 * m * n * k,
                                                benchmark::Counter::kIsIterationInvariantRate,
                                                benchmark::Counter::kIs1000);
}
BENCHMARK(BM_GemmLinear)
    ->Args({128, 512, 512, 0})
    ->Args({128, 512, 512, 1})
    ->Args({128, 512, 512, 2})
    ->Args({128, 512, 784, 0})
    ->Args({128, 512, 784, 2})
    ->Args({1024, 512, 512, 0})
    // A replica's share of the examples' batch of 64 on two devices.
    ->Args({32, 512, 784, 0})
    ->Args({32, 512, 784, 1})
    ->Args({32, 512, 784, 2})
    ->UseRealTime();

// Two virtual CPU devices each multiplying N x N float32 matrices at once on
// their executors (each device's pool gets half the cores). Counters: GFLOPS
// of both together, and cores_busy, the process's CPU time over wall time.
void BM_GemmTwoDevices(benchmark::State& state) {
  const int64_t n = state.range(0);
  set_cpu_device_count(2);
  const Device devices[] = {Device(kCPU, 0), Device(kCPU, 1)};
  Tensor a[2], b[2];
  for (int d = 0; d < 2; ++d) {
    a[d] = randn({n, n}, devices[d]);
    b[d] = randn({n, n}, devices[d]);
  }
  const std::clock_t cpu_start = std::clock();
  const auto wall_start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    std::future<void> done[2];
    for (int d = 0; d < 2; ++d) {
      done[d] = device_executor(devices[d]).submit([&, d] {
        Tensor c = mm(a[d], b[d]);
        benchmark::DoNotOptimize(c.data_ptr());
      });
    }
    for (auto& f : done) f.get();
  }
  const double cpu_s = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  state.counters["GFLOPS"] = benchmark::Counter(2 * 2.0 * n * n * n,
                                                benchmark::Counter::kIsIterationInvariantRate,
                                                benchmark::Counter::kIs1000);
  state.counters["cores_busy"] = cpu_s / wall_s;
  set_cpu_device_count(1);
}
BENCHMARK(BM_GemmTwoDevices)->Arg(1024)->UseRealTime();

// 8x8 + 8x8 float32: the per-op overhead of the framework.
void BM_AddSmall(benchmark::State& state) {
  Tensor a = randn({8, 8});
  Tensor b = randn({8, 8});
  for (auto _ : state) {
    Tensor c = a + b;
    benchmark::DoNotOptimize(c.data_ptr());
  }
}
BENCHMARK(BM_AddSmall)->UseRealTime();

// 1024x1024 + 1024x1024 float32: bandwidth and the intra-op pool.
void BM_AddLarge(benchmark::State& state) {
  Tensor a = randn({1024, 1024});
  Tensor b = randn({1024, 1024});
  for (auto _ : state) {
    Tensor c = a + b;
    benchmark::DoNotOptimize(c.data_ptr());
  }
  state.SetBytesProcessed(state.iterations() * 3 * a.numel() * 4);
}
BENCHMARK(BM_AddLarge)->UseRealTime();

// A transposed [n, n] float32 matrix made contiguous: the strided copy
// behind t().contiguous(), permute(...).contiguous() and transposed GEMM
// operands.
void BM_TransposeCopy(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Tensor a = randn({n, n});
  for (auto _ : state) {
    Tensor c = a.t().contiguous();
    benchmark::DoNotOptimize(c.data_ptr());
  }
  state.SetBytesProcessed(state.iterations() * 2 * a.numel() * 4);
}
BENCHMARK(BM_TransposeCopy)->Arg(512)->Arg(2048)->UseRealTime();

// 1024x1024 + 1024x1024 in float16 and bfloat16 (Arg: 0 float32, 1
// float16, 2 bfloat16): the cost of computing in float32 and rounding,
// against BM_AddLarge's float32 in the same run.
DType bench_dtype(int64_t arg) { return arg == 0 ? kFloat32 : arg == 1 ? kFloat16 : kBFloat16; }

void BM_AddLargeReduced(benchmark::State& state) {
  const DType d = bench_dtype(state.range(0));
  Tensor a = randn({1024, 1024}, d);
  Tensor b = randn({1024, 1024}, d);
  for (auto _ : state) {
    Tensor c = a + b;
    benchmark::DoNotOptimize(c.data_ptr());
  }
  state.SetLabel(dtype_name(d));
}
BENCHMARK(BM_AddLargeReduced)->Arg(0)->Arg(1)->Arg(2)->UseRealTime();

// The sum of 1024x1024 elements, per dtype as above.
void BM_SumLargeReduced(benchmark::State& state) {
  const DType d = bench_dtype(state.range(0));
  Tensor a = randn({1024, 1024}, d);
  for (auto _ : state) {
    Tensor s = a.sum();
    benchmark::DoNotOptimize(s.data_ptr());
  }
  state.SetLabel(dtype_name(d));
}
BENCHMARK(BM_SumLargeReduced)->Arg(0)->Arg(1)->Arg(2)->UseRealTime();

// float32 -> float16/bfloat16 conversion of 1024x1024 elements.
void BM_ToReduced(benchmark::State& state) {
  const DType d = bench_dtype(state.range(0));
  Tensor a = randn({1024, 1024});
  for (auto _ : state) {
    Tensor h = a.to(d);
    benchmark::DoNotOptimize(h.data_ptr());
  }
  state.SetLabel(dtype_name(d));
}
BENCHMARK(BM_ToReduced)->Arg(1)->Arg(2)->UseRealTime();

// A batch of 64 Fashion-MNIST images, uint8 to float32: the conversion a
// data loader makes every step.
void BM_ToFloatFromUint8(benchmark::State& state) {
  Tensor a = randint(0, 256, {64, 1, 28, 28}).to(kUInt8);
  for (auto _ : state) {
    Tensor f = a.to(kFloat32);
    benchmark::DoNotOptimize(f.data_ptr());
  }
  state.SetItemsProcessed(state.iterations() * a.numel());
}
BENCHMARK(BM_ToFloatFromUint8)->UseRealTime();

// 256x256 GEMM per dtype as above.
void BM_GemmReduced(benchmark::State& state) {
  const DType d = bench_dtype(state.range(0));
  Tensor a = randn({256, 256}, d);
  Tensor b = randn({256, 256}, d);
  for (auto _ : state) {
    Tensor c = mm(a, b);
    benchmark::DoNotOptimize(c.data_ptr());
  }
  state.SetLabel(dtype_name(d));
}
BENCHMARK(BM_GemmReduced)->Arg(0)->Arg(1)->Arg(2)->UseRealTime();

// A batched matrix product written as einsum beside the same bmm, to show
// einsum's overhead (parsing, planning, views) over bmm. Args: batch, n (each
// product n x n x n).
void BM_EinsumBmm(benchmark::State& state) {
  const int64_t b = state.range(0), n = state.range(1);
  Tensor x = randn({b, n, n});
  Tensor y = randn({b, n, n});
  for (auto _ : state) {
    Tensor c = einsum("bij,bjk->bik", {x, y});
    benchmark::DoNotOptimize(c.data_ptr());
  }
}
BENCHMARK(BM_EinsumBmm)->Args({64, 8})->Args({16, 64})->Args({4, 256})->UseRealTime();

void BM_EinsumBmmReference(benchmark::State& state) {
  const int64_t b = state.range(0), n = state.range(1);
  Tensor x = randn({b, n, n});
  Tensor y = randn({b, n, n});
  for (auto _ : state) {
    Tensor c = bmm(x, y);
    benchmark::DoNotOptimize(c.data_ptr());
  }
}
BENCHMARK(BM_EinsumBmmReference)->Args({64, 8})->Args({16, 64})->Args({4, 256})->UseRealTime();

// Attention scores, "bhqd,bhkd->bhqk": the heads fold into the bmm's batch
// and the key side is read transposed.
void BM_EinsumAttention(benchmark::State& state) {
  Tensor q = randn({8, 8, 64, 32});
  Tensor k = randn({8, 8, 64, 32});
  for (auto _ : state) {
    Tensor c = einsum("bhqd,bhkd->bhqk", {q, k});
    benchmark::DoNotOptimize(c.data_ptr());
  }
}
BENCHMARK(BM_EinsumAttention)->UseRealTime();

// The newer ops beside PyTorch's (tools/bench_pytorch_ops.py prints the same
// names): float32, both cores, microseconds per call.

// A Transformer's causal mask: -inf above the diagonal. Arg: n.
void BM_TriuMask(benchmark::State& state) {
  const int64_t n = state.range(0);
  for (auto _ : state) {
    Tensor m = full({n, n}, -INFINITY).triu(1);
    benchmark::DoNotOptimize(m.data_ptr());
  }
}
BENCHMARK(BM_TriuMask)->Arg(512)->Arg(2048)->UseRealTime();

void BM_FlipLastDim(benchmark::State& state) {
  Tensor x = randn({256, 1024});
  for (auto _ : state) {
    Tensor y = x.flip({1});
    benchmark::DoNotOptimize(y.data_ptr());
  }
}
BENCHMARK(BM_FlipLastDim)->UseRealTime();

void BM_Roll(benchmark::State& state) {
  Tensor x = randn({256, 1024});
  for (auto _ : state) {
    Tensor y = x.roll(7, 1);
    benchmark::DoNotOptimize(y.data_ptr());
  }
}
BENCHMARK(BM_Roll)->UseRealTime();

void BM_RepeatInterleave(benchmark::State& state) {
  Tensor x = randn({1024, 64});
  for (auto _ : state) {
    Tensor y = x.repeat_interleave(4, 0);
    benchmark::DoNotOptimize(y.data_ptr());
  }
}
BENCHMARK(BM_RepeatInterleave)->UseRealTime();

void BM_MedianDim(benchmark::State& state) {
  Tensor x = randn({1024, 255});
  for (auto _ : state) {
    auto [v, i] = x.median(1);
    benchmark::DoNotOptimize(v.data_ptr());
  }
}
BENCHMARK(BM_MedianDim)->UseRealTime();

// gelu's input gradient over [256, 1024]; Arg: 0 the exact form, 1 tanh.
void BM_GeluBackward(benchmark::State& state) {
  const std::string approximate = state.range(0) == 0 ? "none" : "tanh";
  Tensor x = randn({256, 1024}) * 2, g = randn({256, 1024});
  for (auto _ : state) {
    Tensor dx = gelu_backward(g, x, approximate);
    benchmark::DoNotOptimize(dx.data_ptr());
  }
}
BENCHMARK(BM_GeluBackward)->Arg(0)->Arg(1)->UseRealTime();

void BM_QuantileDim(benchmark::State& state) {
  Tensor x = randn({1024, 256});
  for (auto _ : state) {
    Tensor q = x.quantile(0.9, 1);
    benchmark::DoNotOptimize(q.data_ptr());
  }
}
BENCHMARK(BM_QuantileDim)->UseRealTime();

// Arg: p (2 takes the matrix-product path at these sizes).
void BM_Cdist(benchmark::State& state) {
  Tensor a = randn({1024, 64});
  Tensor b = randn({1024, 64});
  for (auto _ : state) {
    Tensor d = cdist(a, b, static_cast<double>(state.range(0)));
    benchmark::DoNotOptimize(d.data_ptr());
  }
}
BENCHMARK(BM_Cdist)->Arg(1)->Arg(2)->UseRealTime();

// 256 systems of 16 equations, 4 right-hand sides.
void BM_LinalgSolveBatched(benchmark::State& state) {
  Tensor a = randn({256, 16, 16}) + eye(16) * 4;
  Tensor b = randn({256, 16, 4});
  for (auto _ : state) {
    Tensor x = linalg::solve(a, b);
    benchmark::DoNotOptimize(x.data_ptr());
  }
}
BENCHMARK(BM_LinalgSolveBatched)->UseRealTime();

// Arg: n.
void BM_LinalgInv(benchmark::State& state) {
  const int64_t n = state.range(0);
  Tensor a = randn({n, n}) + eye(n) * 4;
  for (auto _ : state) {
    Tensor x = linalg::inv(a);
    benchmark::DoNotOptimize(x.data_ptr());
  }
}
BENCHMARK(BM_LinalgInv)->Arg(256)->UseRealTime();

void BM_LinalgCholeskyBatched(benchmark::State& state) {
  Tensor r = randn({64, 32, 32});
  Tensor a = bmm(r, r.transpose(1, 2)) + eye(32);
  for (auto _ : state) {
    Tensor l = linalg::cholesky(a);
    benchmark::DoNotOptimize(l.data_ptr());
  }
}
BENCHMARK(BM_LinalgCholeskyBatched)->UseRealTime();

// Arg: n; the reduced SVD of an n x n matrix.
void BM_LinalgSvd(benchmark::State& state) {
  const int64_t n = state.range(0);
  Tensor a = randn({n, n});
  for (auto _ : state) {
    auto [u, s, vh] = linalg::svd(a, false);
    benchmark::DoNotOptimize(s.data_ptr());
  }
}
BENCHMARK(BM_LinalgSvd)->Arg(64)->Arg(256)->UseRealTime();

// Arg: n.
void BM_LinalgEigh(benchmark::State& state) {
  const int64_t n = state.range(0);
  Tensor r = randn({n, n});
  Tensor a = r + r.t();
  for (auto _ : state) {
    auto [w, v] = linalg::eigh(a);
    benchmark::DoNotOptimize(w.data_ptr());
  }
}
BENCHMARK(BM_LinalgEigh)->Arg(128)->UseRealTime();

}  // namespace
}  // namespace torchlet
