// LeNet-5 benchmarks, named after their twins in the libtorch anchor
// benchmarks so that the two compare side by side.

#include "benchmark/benchmark.h"
#include "examples/lenet.h"
#include "nn/functional/functional.h"
#include "nn/nn.h"
#include "nn/optim/optim.h"

namespace torchlet::examples {
namespace {

// One SGD step (momentum 0.9) as the anchor's TrainSteps times it:
// zero_grad, forward, cross-entropy, backward, step.
void BM_LenetStep(benchmark::State& state) {
  manual_seed(0);
  nn::Sequential net = make_lenet();
  const Variable x(randn({64, 1, 28, 28}));
  const Variable y(randint(0, 10, {64}));
  optim::SGD opt(net->parameters(), optim::SGDOptions(0.01).momentum(0.9));
  for (auto _ : state) {
    opt.zero_grad();
    const Variable loss = nn::functional::cross_entropy(net->forward(x), y);
    loss.backward();
    opt.step();
    benchmark::DoNotOptimize(loss.item<float>());
  }
}
BENCHMARK(BM_LenetStep)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_LenetInference(benchmark::State& state) {
  manual_seed(0);
  nn::Sequential net = make_lenet();
  net->eval();
  NoGradGuard no_grad;
  const Variable x(randn({256, 1, 28, 28}));
  for (auto _ : state) {
    const Variable out = net->forward(x);
    benchmark::DoNotOptimize(out.data().data_ptr());
  }
}
BENCHMARK(BM_LenetInference)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace torchlet::examples
