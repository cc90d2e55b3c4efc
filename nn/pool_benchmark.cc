// Benchmarks of pooling on LeNet-5's shapes: max_pool2d 2x2 stride 2 after
// each convolution ([64, 6, 28, 28] and [64, 16, 10, 10]), forward and
// backward as a training step runs them, and forward alone without grad.

#include "benchmark/benchmark.h"
#include "nn/functional/pooling.h"
#include "nn/nn.h"

namespace torchlet::nn {
namespace {

SizeVec lenet_shape(int64_t which) {
  return which == 0 ? SizeVec{64, 6, 28, 28} : SizeVec{64, 16, 10, 10};
}

void BM_MaxPool2dFwdBwd(benchmark::State& state) {
  manual_seed(0);
  const Variable x(randn(lenet_shape(state.range(0))), true);
  const MaxPool2dOptions options(2);
  const Variable seed(ones(functional::max_pool2d(x, options).sizes()));
  for (auto _ : state) {
    x.set_grad(Variable());
    functional::max_pool2d(x, options).backward(seed);
    benchmark::DoNotOptimize(x.grad().data().data_ptr());
  }
}
BENCHMARK(BM_MaxPool2dFwdBwd)->Arg(0)->Arg(1)->UseRealTime()->Unit(benchmark::kMicrosecond);

void BM_MaxPool2dInference(benchmark::State& state) {
  manual_seed(0);
  const Variable x(randn(lenet_shape(state.range(0))));
  const MaxPool2dOptions options(2);
  NoGradGuard no_grad;
  for (auto _ : state) {
    const Variable out = functional::max_pool2d(x, options);
    benchmark::DoNotOptimize(out.data().data_ptr());
  }
}
BENCHMARK(BM_MaxPool2dInference)->Arg(0)->Arg(1)->UseRealTime()->Unit(benchmark::kMicrosecond);

void BM_AvgPool2dFwdBwd(benchmark::State& state) {
  manual_seed(0);
  const Variable x(randn(lenet_shape(state.range(0))), true);
  const AvgPool2dOptions options(2);
  const Variable seed(ones(functional::avg_pool2d(x, options).sizes()));
  for (auto _ : state) {
    x.set_grad(Variable());
    functional::avg_pool2d(x, options).backward(seed);
    benchmark::DoNotOptimize(x.grad().data().data_ptr());
  }
}
BENCHMARK(BM_AvgPool2dFwdBwd)->Arg(0)->Arg(1)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace torchlet::nn
