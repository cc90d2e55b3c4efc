// Benchmarks of nn, named after their twins in the libtorch anchor
// benchmarks so that the two compare side by side.

#include "benchmark/benchmark.h"
#include "nn/nn.h"

namespace torchlet::nn {
namespace {

void BM_LinearFwdBwd(benchmark::State& state) {
  manual_seed(0);
  Linear layer(512, 512);
  const Variable x(randn({128, 512}));
  for (auto _ : state) {
    layer->zero_grad();
    layer->forward(x).sum().backward();
    benchmark::DoNotOptimize(layer->weight.grad().data().data_ptr());
  }
}
BENCHMARK(BM_LinearFwdBwd)->UseRealTime();

}  // namespace
}  // namespace torchlet::nn
