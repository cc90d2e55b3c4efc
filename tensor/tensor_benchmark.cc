// Benchmarks of the tensor package. Names with a twin in the libtorch anchor
// benchmarks time the same work, so the two can be compared side by side.
#include "benchmark/benchmark.h"
#include "tensor/tensor.h"

namespace torchlet {
namespace {

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

}  // namespace
}  // namespace torchlet
