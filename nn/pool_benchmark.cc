// Benchmarks of pooling on LeNet-5's shapes: max_pool2d 2x2 stride 2 after
// each convolution ([64, 6, 28, 28] and [64, 16, 10, 10]), forward and
// backward as a training step runs them, and forward alone without grad.
// Arguments: the shape (0 or 1), then the intra-op threads (0: the
// default). tools/bench_pytorch_pool.py times PyTorch on the same shapes.

#include "benchmark/benchmark.h"
#include "nn/functional/pooling.h"
#include "nn/nn.h"

namespace torchlet::nn {
namespace {

SizeVec lenet_shape(int64_t which) {
  return which == 0 ? SizeVec{64, 6, 28, 28} : SizeVec{64, 16, 10, 10};
}

// Sets the intra-op threads for one benchmark run, restoring the default.
class ThreadsGuard {
 public:
  explicit ThreadsGuard(int64_t threads) { set_num_threads(static_cast<int>(threads)); }
  ~ThreadsGuard() { set_num_threads(0); }
};

void lenet_args(benchmark::internal::Benchmark* b) {
  for (int64_t shape : {0, 1}) {
    for (int64_t threads : {0, 1}) b->Args({shape, threads});
  }
}

void BM_MaxPool2dFwdBwd(benchmark::State& state) {
  manual_seed(0);
  const ThreadsGuard threads(state.range(1));
  const Variable x(randn(lenet_shape(state.range(0))), true);
  const MaxPool2dOptions options(2);
  const Variable seed(ones(functional::max_pool2d(x, options).sizes()));
  for (auto _ : state) {
    x.set_grad(Variable());
    functional::max_pool2d(x, options).backward(seed);
    benchmark::DoNotOptimize(x.grad().data().data_ptr());
  }
}
BENCHMARK(BM_MaxPool2dFwdBwd)->Apply(lenet_args)->UseRealTime()->Unit(benchmark::kMicrosecond);

void BM_MaxPool2dInference(benchmark::State& state) {
  manual_seed(0);
  const ThreadsGuard threads(state.range(1));
  const Variable x(randn(lenet_shape(state.range(0))));
  const MaxPool2dOptions options(2);
  NoGradGuard no_grad;
  for (auto _ : state) {
    const Variable out = functional::max_pool2d(x, options);
    benchmark::DoNotOptimize(out.data().data_ptr());
  }
}
BENCHMARK(BM_MaxPool2dInference)->Apply(lenet_args)->UseRealTime()->Unit(benchmark::kMicrosecond);

void BM_AvgPool2dFwdBwd(benchmark::State& state) {
  manual_seed(0);
  const ThreadsGuard threads(state.range(1));
  const Variable x(randn(lenet_shape(state.range(0))), true);
  const AvgPool2dOptions options(2);
  const Variable seed(ones(functional::avg_pool2d(x, options).sizes()));
  for (auto _ : state) {
    x.set_grad(Variable());
    functional::avg_pool2d(x, options).backward(seed);
    benchmark::DoNotOptimize(x.grad().data().data_ptr());
  }
}
BENCHMARK(BM_AvgPool2dFwdBwd)->Apply(lenet_args)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace torchlet::nn
