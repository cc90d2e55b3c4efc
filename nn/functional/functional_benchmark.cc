// The functional ops against the anchors of the same names in
// ../shared/anchors/libtorch_bench.cc (libtorch 1.13 and PyTorch 2 doing the
// same work).
#include <benchmark/benchmark.h>

#include <cmath>

#include "nn/functional/functional.h"

namespace torchlet {
namespace {

namespace F = nn::functional;

// Linear(512, 512) on a batch of 128: forward, sum, backward (PyTorch's
// default uniform(-1/sqrt(in), 1/sqrt(in)) initialization).
void BM_LinearFwdBwd(benchmark::State& state) {
  manual_seed(0);
  const double bound = 1.0 / std::sqrt(512.0);
  Variable weight(rand({512, 512}).mul_(2 * bound).sub_(bound), true);
  Variable bias(rand({512}).mul_(2 * bound).sub_(bound), true);
  const Variable x(randn({128, 512}));
  for (auto _ : state) {
    weight.set_grad(Variable());
    bias.set_grad(Variable());
    F::linear(x, weight, bias).sum().backward();
    benchmark::DoNotOptimize(weight.grad().data().data_ptr());
  }
}
BENCHMARK(BM_LinearFwdBwd)->UseRealTime();

}  // namespace
}  // namespace torchlet
