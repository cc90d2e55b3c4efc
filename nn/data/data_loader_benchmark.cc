// One epoch of a Fashion-MNIST-sized training set ([60000, 784] float32 and
// int64 labels) in shuffled batches of 64: the gathered batches of a
// TensorDataset against per-example copies and a stack, and with a prefetching
// worker. Run: bazel run -c opt //nn/data:data_loader_benchmark.
#include <memory>

#include "benchmark/benchmark.h"
#include "nn/data/data.h"
#include "tensor/tensor.h"

namespace torchlet::data {
namespace {

constexpr int64_t kExamples = 60000;

std::shared_ptr<TensorDataset> fashion_mnist_sized() {
  static auto dataset =
      std::make_shared<TensorDataset>(rand({kExamples, 784}), randint(10, {kExamples}));
  return dataset;
}

// The same examples without get_batch: DataLoader copies each and stacks.
class PerExample : public Dataset<Example> {
 public:
  int64_t size() const override { return inner_->size(); }
  Example get(int64_t index) const override { return inner_->get(index); }

 private:
  std::shared_ptr<TensorDataset> inner_ = fashion_mnist_sized();
};

void run_epochs(benchmark::State& state, std::shared_ptr<const Dataset<Example>> dataset,
                int64_t num_workers) {
  DataLoaderOptions options;
  options.batch_size = 64;
  options.shuffle = true;
  options.seed = 1;
  options.num_workers = num_workers;
  DataLoader<Example> loader(std::move(dataset), options);
  for (auto _ : state) {
    for (Example& batch : loader) benchmark::DoNotOptimize(batch.data.data_ptr());
  }
  state.SetItemsProcessed(state.iterations() * kExamples);
}

void BM_DataLoaderEpochGather(benchmark::State& state) {
  run_epochs(state, fashion_mnist_sized(), 0);
}
BENCHMARK(BM_DataLoaderEpochGather)->Unit(benchmark::kMillisecond);

void BM_DataLoaderEpochPerExample(benchmark::State& state) {
  run_epochs(state, std::make_shared<PerExample>(), 0);
}
BENCHMARK(BM_DataLoaderEpochPerExample)->Unit(benchmark::kMillisecond);

void BM_DataLoaderEpochGatherOneWorker(benchmark::State& state) {
  run_epochs(state, fashion_mnist_sized(), 1);
}
BENCHMARK(BM_DataLoaderEpochGatherOneWorker)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace torchlet::data
