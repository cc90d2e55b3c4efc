// Convolution benchmarks. BM_Conv2d is named after its twin in the libtorch
// anchor benchmarks and times the same work, so the two compare side by side.

#include "benchmark/benchmark.h"
#include "nn/nn.h"
#include "tensor/conv.h"

namespace torchlet::nn {
namespace {

// Conv2d forward without grad, batch 32: arguments are in channels, out
// channels, height and width, kernel size, groups (padding k / 2).
void BM_Conv2d(benchmark::State& state) {
  manual_seed(0);
  const int64_t cin = state.range(0), cout = state.range(1), hw = state.range(2),
                k = state.range(3), groups = state.range(4);
  Conv2d conv(Conv2dOptions(cin, cout, k).padding(k / 2).groups(groups));
  NoGradGuard no_grad;
  const Variable x(randn({32, cin, hw, hw}));
  for (auto _ : state) {
    const Variable out = conv->forward(x);
    benchmark::DoNotOptimize(out.data().data_ptr());
  }
  state.counters["GFLOPS"] = benchmark::Counter(
      2.0 * 32 * cout * hw * hw * (cin / groups) * k * k,
      benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}
BENCHMARK(BM_Conv2d)
    ->Args({1, 6, 28, 5, 1})
    ->Args({64, 64, 56, 3, 1})
    ->Args({64, 64, 56, 3, 64})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// The same layers' forward and backward (input, weight and bias gradients):
// three times the forward's multiply-adds.
void BM_Conv2dFwdBwd(benchmark::State& state) {
  manual_seed(0);
  const int64_t cin = state.range(0), cout = state.range(1), hw = state.range(2),
                k = state.range(3), groups = state.range(4);
  Conv2d conv(Conv2dOptions(cin, cout, k).padding(k / 2).groups(groups));
  const Variable x(randn({32, cin, hw, hw}), true);
  for (auto _ : state) {
    conv->zero_grad();
    conv->forward(x).sum().backward();
    benchmark::DoNotOptimize(conv->weight.grad().data().data_ptr());
  }
  state.counters["GFLOPS"] = benchmark::Counter(
      3 * 2.0 * 32 * cout * hw * hw * (cin / groups) * k * k,
      benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}
BENCHMARK(BM_Conv2dFwdBwd)
    ->Args({1, 6, 28, 5, 1})
    ->Args({64, 64, 56, 3, 1})
    ->Args({64, 64, 56, 3, 64})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// LeNet-5's second layer (6 -> 16 channels, 5x5, 14x14 input) at batch 32
// on one thread, what each replica of a two-device DataParallel step over
// the examples' batch of 64 runs, taken apart: the forward (0), the input
// gradient (1) and the weight gradient (2). GFLOPS counts each as one
// forward's multiply-adds.
void BM_Conv2dLenetSecondLayer(benchmark::State& state) {
  manual_seed(0);
  set_num_threads(1);
  const int64_t part = state.range(0);
  const Tensor x = randn({32, 6, 14, 14}), w = randn({16, 6, 5, 5});
  const Tensor grad = randn({32, 16, 10, 10});
  ConvParams params{{1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 1};
  ConvParams transposed = params;
  transposed.transposed = true;
  for (auto _ : state) {
    Tensor out;
    if (part == 0) out = convolution(x, w, Tensor(), params);
    if (part == 1) out = convolution(grad, w, Tensor(), transposed);
    if (part == 2) out = convolution_backward_weight(x, grad, {16, 6, 5, 5}, params);
    benchmark::DoNotOptimize(out.data_ptr());
  }
  state.SetLabel(part == 0 ? "forward" : part == 1 ? "input gradient" : "weight gradient");
  state.counters["GFLOPS"] =
      benchmark::Counter(2.0 * 32 * 16 * 10 * 10 * 6 * 5 * 5,
                         benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
  set_num_threads(0);
}
BENCHMARK(BM_Conv2dLenetSecondLayer)->DenseRange(0, 2)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace torchlet::nn
