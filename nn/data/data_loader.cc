#include "nn/data/data_loader.h"

#include <memory>
#include <utility>

#include "tensor/cuda/cuda_runtime.h"
#include "tensor/warning.h"

namespace torchlet::data::detail {

// In PyTorch's order: a batch_sampler with batch_size=0 is reported as
// exclusive of batch_size.
void check_options(const DataLoaderOptions& options) {
  TORCHLET_CHECK(options.num_workers >= 0,
                 "num_workers option should be non-negative; use num_workers=0 to disable "
                 "multiprocessing.");
  TORCHLET_CHECK(options.prefetch_factor > 0,
                 "prefetch_factor option should be a positive integer, but got prefetch_factor=",
                 options.prefetch_factor);
  TORCHLET_CHECK(!(options.sampler && options.shuffle),
                 "sampler option is mutually exclusive with shuffle");
  TORCHLET_CHECK(!options.batch_sampler || (options.batch_size == 1 && !options.shuffle &&
                                            !options.sampler && !options.drop_last),
                 "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                 "and drop_last");
  TORCHLET_CHECK(
      options.batch_size > 0,
      "batch_size should be a positive integer value, but got batch_size=", options.batch_size);
}

std::shared_ptr<Sampler> loader_sampler(int64_t dataset_size, const DataLoaderOptions& options) {
  if (options.sampler) return options.sampler;
  if (!options.shuffle) return std::make_shared<SequentialSampler>(dataset_size);
  // Seeded once here, each epoch continues the generator's sequence;
  // unseeded, each epoch draws from the global generator.
  std::shared_ptr<Generator> generator =
      options.seed ? std::make_shared<Generator>(*options.seed) : nullptr;
  return std::make_shared<RandomSampler>(dataset_size, /*replacement=*/false, std::nullopt,
                                         std::move(generator));
}

std::shared_ptr<BatchSamplerBase> loader_batch_sampler(std::shared_ptr<Sampler> sampler,
                                                       const DataLoaderOptions& options) {
  if (options.batch_sampler) return options.batch_sampler;
  return std::make_shared<BatchSampler>(std::move(sampler), options.batch_size,
                                        options.drop_last);
}

bool pins_batches(const DataLoaderOptions& options) {
  if (!options.pin_memory) return false;
  if (cuda::device_count() > 0) return true;
  warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
       "memory won't be used.");
  return false;
}

}  // namespace torchlet::data::detail
