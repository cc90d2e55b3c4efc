// Benchmarks of nn, named after their twins in the libtorch anchor
// benchmarks so that the two compare side by side.

#include "benchmark/benchmark.h"
#include "nn/functional/functional.h"
#include "nn/nn.h"
#include "nn/optim/optim.h"

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

// Cross-entropy of 128 x 1000 logits at random classes, forward and backward.
void BM_CrossEntropyFwdBwd(benchmark::State& state) {
  manual_seed(0);
  CrossEntropyLoss loss;
  Variable logits(randn({128, 1000}), true);
  const Variable target(randint(0, 1000, {128}));
  for (auto _ : state) {
    logits.set_grad(Variable());
    loss(logits, target).backward();
    benchmark::DoNotOptimize(logits.grad().data().data_ptr());
  }
}
BENCHMARK(BM_CrossEntropyFwdBwd)->UseRealTime();

// One SGD training step as the anchor's TrainSteps times it: zero_grad,
// forward, cross-entropy, backward, step.
void train_steps(benchmark::State& state, Sequential& net, const Variable& x, const Variable& y,
                 double momentum) {
  optim::SGD opt(net->parameters(), optim::SGDOptions(0.01).momentum(momentum));
  for (auto _ : state) {
    opt.zero_grad();
    const Variable loss = functional::cross_entropy(net->forward(x), y);
    loss.backward();
    opt.step();
    benchmark::DoNotOptimize(loss.item<float>());
  }
}

void BM_TinyMlpStep(benchmark::State& state) {
  manual_seed(0);
  Sequential net(Linear(16, 16), ReLU(), Linear(16, 4));
  const Variable x(randn({8, 16}));
  const Variable y(randint(0, 4, {8}));
  train_steps(state, net, x, y, 0.0);
}
BENCHMARK(BM_TinyMlpStep)->UseRealTime();

void BM_MlpStep(benchmark::State& state) {
  manual_seed(0);
  Sequential net(Linear(784, 512), ReLU(), Linear(512, 512), ReLU(), Linear(512, 10));
  const Variable x(randn({128, 784}));
  const Variable y(randint(0, 10, {128}));
  train_steps(state, net, x, y, 0.9);
}
BENCHMARK(BM_MlpStep)->UseRealTime()->Unit(benchmark::kMillisecond);

// One sequence-first LSTM(256, 256) over 32 steps of a batch of 64, forward
// and backward of the outputs' sum (tools/bench_pytorch_rnn.py times the
// same in PyTorch).
void BM_LstmFwdBwd(benchmark::State& state) {
  manual_seed(0);
  LSTM lstm(LSTMOptions(256, 256));
  const Variable x(randn({32, 64, 256}));
  for (auto _ : state) {
    lstm->zero_grad();
    std::get<0>(lstm(x)).sum().backward();
    benchmark::DoNotOptimize(lstm->parameters()[0].grad().data().data_ptr());
  }
}
BENCHMARK(BM_LstmFwdBwd)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace torchlet::nn
