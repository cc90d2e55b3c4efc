// Benchmarks of the autograd package. BM_TinyMlpStep times the anchor's tiny
// training step (Linear(16,16)-ReLU-Linear(16,4), batch 8, cross-entropy,
// backward, SGD lr 0.01) written with autograd ops directly: what the step
// costs in recording, the engine and the kernels, before any Module.
#include <malloc.h>

#include <cmath>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "benchmark/benchmark.h"

namespace torchlet {
namespace {

// A Linear layer's weight or bias, initialized as PyTorch's Linear does:
// uniform in [-1/sqrt(fan_in), 1/sqrt(fan_in)).
Variable linear_param(IntArrayRef shape, int64_t fan_in) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
  return Variable(rand(shape) * (2 * bound) - bound, /*requires_grad=*/true);
}

void BM_TinyMlpStep(benchmark::State& state) {
  manual_seed(0);
  Variable w1 = linear_param({16, 16}, 16), b1 = linear_param({16}, 16);
  Variable w2 = linear_param({4, 16}, 16), b2 = linear_param({4}, 16);
  const std::vector<Variable> params = {w1, b1, w2, b2};
  const Variable x(randn({8, 16}));
  const Tensor y = randint(0, 4, {8, 1}, kInt64);
  for (auto _ : state) {
    for (const Variable& p : params) {  // zero_grad
      if (Variable g = p.grad(); g.defined()) {
        Tensor t = g.data();
        t.zero_();
      }
    }
    const Variable hidden = addmm(b1, x, w1.t()).relu();
    const Variable logits = addmm(b2, hidden, w2.t());
    const Variable loss = -logits.log_softmax(1).gather(1, y).mean();  // cross-entropy
    loss.backward();
    {
      NoGradGuard no_grad;  // SGD step
      for (const Variable& p : params) {
        Tensor t = p.data();
        t.add_(p.grad().data(), -0.01);
      }
    }
    benchmark::DoNotOptimize(loss.item<float>());
  }
}
BENCHMARK(BM_TinyMlpStep)->UseRealTime();

// Recording and backward of a chain of N cheap ops on one element: the
// per-node cost of the graph and the engine, with almost no arithmetic.
void BM_BackwardChain(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Variable x(ones({1}), /*requires_grad=*/true);
  for (auto _ : state) {
    Variable y = x;
    for (int64_t i = 0; i < n; ++i) y = y * 1.0;
    y.backward();
  }
  state.counters["per_node"] = benchmark::Counter(
      static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate |
                                  benchmark::Counter::kInvert);
}
BENCHMARK(BM_BackwardChain)->Arg(10)->UseRealTime();

// Split a 1M-float tensor into N pieces, sum every piece and backward: the
// backward must cost O(numel), not O(pieces x numel).
void BM_SplitBackward(benchmark::State& state) {
  const int64_t pieces = state.range(0);
  const int64_t numel = int64_t{1} << 20;
  const Variable x(randn({numel}), /*requires_grad=*/true);
  for (auto _ : state) {
    const std::vector<Variable> parts = x.split(numel / pieces);
    Variable total = parts[0].sum();
    for (size_t i = 1; i < parts.size(); ++i) total = total + parts[i].sum();
    total.backward();
  }
}
BENCHMARK(BM_SplitBackward)->Arg(8)->Arg(32)->Arg(128)->UseRealTime();

// Bytes of heap in use (glibc: small blocks and mmapped ones).
double heap_in_use() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<double>(info.uordblks + info.hblkhd);
}

// Eight mm layers [512 x 256] @ [256 x 256], each followed by relu_ (nn's
// ReLU(inplace=True)), then backward. Counter graph_bytes: the heap the
// recorded graph holds after the forward (what an in-place ReLU should save).
void BM_ReluInplaceChain(benchmark::State& state) {
  manual_seed(0);
  const Variable x(randn({512, 256}), /*requires_grad=*/true);
  const Variable w(randn({256, 256}) * 0.06, /*requires_grad=*/true);
  double graph_bytes = 0;
  for (auto _ : state) {
    const double before = heap_in_use();
    Variable h = x;
    for (int layer = 0; layer < 8; ++layer) {
      h = h.mm(w);
      h.relu_();
    }
    const Variable loss = h.sum();
    graph_bytes = heap_in_use() - before;
    loss.backward();
  }
  state.counters["graph_bytes"] = graph_bytes;
}
BENCHMARK(BM_ReluInplaceChain)->UseRealTime();

// gelu forward and backward over [256, 1024] (a Transformer MLP's
// activation); Arg: 0 the exact form, 1 the tanh form.
void BM_GeluFwdBwd(benchmark::State& state) {
  manual_seed(0);
  const std::string approximate = state.range(0) == 0 ? "none" : "tanh";
  const Variable x(randn({256, 1024}) * 2, /*requires_grad=*/true);
  const Variable g(randn({256, 1024}));
  for (auto _ : state) {
    const Variable dx = autograd::grad({x.gelu(approximate)}, {x}, {g})[0];
    benchmark::DoNotOptimize(dx.data().data_ptr());
  }
}
BENCHMARK(BM_GeluFwdBwd)->Arg(0)->Arg(1)->UseRealTime();

}  // namespace
}  // namespace torchlet
