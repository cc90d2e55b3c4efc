// Benchmarks of the normalization layers. tools/bench_pytorch_norm.py times
// the same work on PyTorch, under the same names.

#include "benchmark/benchmark.h"
#include "nn/nn.h"

namespace torchlet::nn {
namespace {

// BatchNorm2d in training on [N, C, HW, HW]: forward (with the running
// statistics' update), then backward from a fixed output gradient to the
// input, weight and bias. The CPU column is the process's (every thread's),
// which on a loaded machine compares more stably than wall time.
void BM_BatchNorm2dFwdBwd(benchmark::State& state) {
  manual_seed(0);
  const int64_t n = state.range(0), c = state.range(1), hw = state.range(2);
  BatchNorm2d bn(c);
  const Variable x(randn({n, c, hw, hw}), true);
  const Variable grad(randn({n, c, hw, hw}));
  for (auto _ : state) {
    bn->zero_grad();
    bn(x).backward(grad);
    benchmark::DoNotOptimize(bn->weight.grad().data().data_ptr());
  }
  state.SetItemsProcessed(state.iterations() * n * c * hw * hw);
}
BENCHMARK(BM_BatchNorm2dFwdBwd)
    ->Args({64, 16, 10})
    ->Args({32, 64, 56})
    ->MeasureProcessCPUTime()
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace torchlet::nn
