// The functional ops against the anchors of the same names in
// ../shared/anchors/libtorch_bench.cc (libtorch 1.13 and PyTorch 2 doing the
// same work).
#include <benchmark/benchmark.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

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

// embedding_bag over weight [100000, 64] float32: 200,000 random indices in
// 10,000 bags of 20 ("uneven": one bag of 100,000 and 9,999 of about 10),
// forward, sum, backward into the dense weight gradient.
void embedding_bag_fwd_bwd(benchmark::State& state, const std::string& mode, bool uneven,
                           bool backward) {
  manual_seed(0);
  constexpr int64_t kRows = 100000, kDim = 64, kEntries = 200000, kBags = 10000;
  Variable weight(randn({kRows, kDim}), true);
  const Tensor input = randint(0, kRows, {kEntries}, kInt64);
  const Tensor offsets =
      uneven ? cat(std::vector<Tensor>{zeros({1}, kInt64),
                                       arange(kBags - 1, kInt64).mul(10).add(kEntries / 2)})
             : arange(kBags, kInt64).mul(kEntries / kBags);
  for (auto _ : state) {
    weight.set_grad(Variable());
    const Variable out = F::embedding_bag(input, weight, offsets, std::nullopt, 2.0, false, mode);
    if (backward) {
      out.sum().backward();
      benchmark::DoNotOptimize(weight.grad().data().data_ptr());
    } else {
      benchmark::DoNotOptimize(out.data().data_ptr());
    }
  }
}

void BM_EmbeddingBagFwdBwd(benchmark::State& state, const std::string& mode) {
  embedding_bag_fwd_bwd(state, mode, /*uneven=*/false, /*backward=*/true);
}
BENCHMARK_CAPTURE(BM_EmbeddingBagFwdBwd, sum, "sum")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EmbeddingBagFwdBwd, mean, "mean")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EmbeddingBagFwdBwd, max, "max")->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_EmbeddingBagFwdBwdUneven(benchmark::State& state, const std::string& mode) {
  embedding_bag_fwd_bwd(state, mode, /*uneven=*/true, /*backward=*/true);
}
BENCHMARK_CAPTURE(BM_EmbeddingBagFwdBwdUneven, max, "max")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

void BM_EmbeddingBagFwd(benchmark::State& state, const std::string& mode) {
  embedding_bag_fwd_bwd(state, mode, /*uneven=*/false, /*backward=*/false);
}
BENCHMARK_CAPTURE(BM_EmbeddingBagFwd, sum, "sum")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EmbeddingBagFwd, max, "max")->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace torchlet
