#include "nn/data/data_loader.h"

#include "tensor/cuda/cuda_runtime.h"
#include "tensor/warning.h"

namespace torchlet::data::detail {

void check_options(const DataLoaderOptions& options) {
  TORCHLET_CHECK(
      options.batch_size > 0,
      "batch_size should be a positive integer value, but got batch_size=", options.batch_size);
  TORCHLET_CHECK(options.num_workers >= 0,
                 "num_workers option should be non-negative; use num_workers=0 to disable "
                 "multiprocessing.");
  TORCHLET_CHECK(options.prefetch_factor > 0,
                 "prefetch_factor option should be a positive integer, but got prefetch_factor=",
                 options.prefetch_factor);
}

void check_shuffled_size(int64_t dataset_size) {
  TORCHLET_CHECK(dataset_size > 0,
                 "num_samples should be a positive integer value, but got num_samples=",
                 dataset_size);
}

bool pins_batches(const DataLoaderOptions& options) {
  if (!options.pin_memory) return false;
  if (cuda::device_count() > 0) return true;
  warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
       "memory won't be used.");
  return false;
}

int64_t num_batches(int64_t dataset_size, int64_t batch_size, bool drop_last) {
  return drop_last ? dataset_size / batch_size : (dataset_size + batch_size - 1) / batch_size;
}

}  // namespace torchlet::data::detail
