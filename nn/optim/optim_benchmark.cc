// One optimizer step over the 784-512-512-10 MLP's parameters (669,706
// floats), the update BM_MlpStep ends with. bytes_per_second is the
// effective memory bandwidth: the bytes each fused pass reads and writes
// (SGD with momentum: param, grad, buffer read; param, buffer written;
// Adam: param, grad, exp_avg, exp_avg_sq read; param and both moments
// written) over the time. The argument is the number of intra-op threads.

#include <cstdint>
#include <vector>

#include "benchmark/benchmark.h"
#include "nn/optim/optim.h"
#include "tensor/parallel.h"
#include "tensor/factories.h"

namespace torchlet::optim {
namespace {

std::vector<Variable> mlp_params() {
  const std::vector<std::vector<int64_t>> shapes = {{512, 784}, {512}, {512, 512},
                                                    {512},      {10, 512}, {10}};
  std::vector<Variable> params;
  for (const auto& shape : shapes) {
    Variable p(randn(shape) * 0.01, true);
    p.set_grad(Variable(randn(shape) * 0.01));
    params.push_back(p);
  }
  return params;
}

int64_t numel(const std::vector<Variable>& params) {
  int64_t n = 0;
  for (const Variable& p : params) n += p.numel();
  return n;
}

// Times optimizer.step() on state.range(0) intra-op threads.
void run(benchmark::State& state, Optimizer& optimizer, int64_t elements, int64_t arrays) {
  set_num_threads(static_cast<int>(state.range(0)));
  optimizer.step();  // creates the state buffers
  for (auto _ : state) optimizer.step();
  set_num_threads(0);
  state.SetBytesProcessed(state.iterations() * elements * arrays * int64_t{sizeof(float)});
  state.counters["floats"] = static_cast<double>(elements);
}

void BM_SgdMomentumStep(benchmark::State& state) {
  const std::vector<Variable> params = mlp_params();
  SGD sgd(params, SGDOptions(0.01).momentum(0.9));
  run(state, sgd, numel(params), 5);
}
BENCHMARK(BM_SgdMomentumStep)->Arg(1)->Arg(2)->UseRealTime();

void BM_AdamStep(benchmark::State& state) {
  const std::vector<Variable> params = mlp_params();
  Adam adam(params, AdamOptions(1e-6));
  run(state, adam, numel(params), 7);
}
BENCHMARK(BM_AdamStep)->Arg(1)->Arg(2)->UseRealTime();

}  // namespace
}  // namespace torchlet::optim
