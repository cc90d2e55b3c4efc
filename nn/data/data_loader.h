#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "nn/data/collate.h"
#include "nn/data/dataset.h"
#include "nn/data/generator.h"
#include "nn/data/prefetcher.h"
#include "nn/data/sampler.h"
#include "tensor/error.h"

namespace torchlet::data {

/// How a DataLoader batches (PyTorch's DataLoader arguments).
struct DataLoaderOptions {
  int64_t batch_size = 1;
  /// Draw a new order of the examples at the start of every epoch (a
  /// RandomSampler over the dataset).
  bool shuffle = false;
  /// The indices of each epoch, grouped into batches of batch_size (PyTorch's
  /// `sampler=`); mutually exclusive with shuffle. Unset: the dataset in
  /// order, or shuffled with `shuffle`.
  std::shared_ptr<Sampler> sampler;
  /// The batches of each epoch themselves (PyTorch's `batch_sampler=`);
  /// mutually exclusive with batch_size (other than 1), shuffle, sampler and
  /// drop_last.
  std::shared_ptr<BatchSamplerBase> batch_sampler;
  /// Leave out the last batch when it would be smaller than batch_size.
  bool drop_last = false;
  /// Threads making batches ahead of the loop; 0 makes them on the loop's
  /// thread. See Note [DataLoader threading].
  int64_t num_workers = 0;
  /// Batches each worker may make ahead (with num_workers > 0).
  int64_t prefetch_factor = 2;
  /// Seed of the loader's shuffling generator, seeded once when the loader
  /// is made: each epoch continues its sequence, whatever else draws random
  /// numbers (PyTorch's DataLoader(generator=...)). Unset, every epoch draws
  /// a fresh seed from the global generator when it starts, as PyTorch's
  /// RandomSampler does at each iter(): `manual_seed(s)` before an epoch
  /// fixes that epoch's order.
  std::optional<uint64_t> seed;
  /// Each batch's tensors copied into page-locked memory where the batch is
  /// made (a worker, with num_workers > 0), so that moving them to a GPU
  /// with `to(device, /*non_blocking=*/true)` returns at once (see
  /// data::pin_memory). Without a GPU, a warning, and batches as they are.
  bool pin_memory = false;
};

namespace detail {
void check_options(const DataLoaderOptions& options);
/// PyTorch's DataLoader.sampler: options.sampler, else a RandomSampler
/// (shuffle; seeded by options.seed) or a SequentialSampler over the dataset.
std::shared_ptr<Sampler> loader_sampler(int64_t dataset_size, const DataLoaderOptions& options);
/// PyTorch's DataLoader.batch_sampler: options.batch_sampler, else a
/// BatchSampler over `sampler` with batch_size and drop_last.
std::shared_ptr<BatchSamplerBase> loader_batch_sampler(std::shared_ptr<Sampler> sampler,
                                                       const DataLoaderOptions& options);
/// Whether batches are pinned: options.pin_memory and a GPU present (else
/// PyTorch's warning, once per DataLoader).
bool pins_batches(const DataLoaderOptions& options);
}  // namespace detail

/// Iterates over a dataset in batches (PyTorch's `torch.utils.data.DataLoader`
/// for map-style datasets):
///
///   auto dataset = std::make_shared<TensorDataset>(inputs, targets);
///   DataLoaderOptions options;
///   options.batch_size = 64;
///   options.shuffle = true;
///   options.seed = 1;
///   DataLoader<Example> loader(dataset, options);
///   for (Example& batch : loader) { ... batch.data [64, ...], batch.target [64] ... }
///
/// Each range-for (each begin()) is one epoch: it asks the batch sampler for
/// the epoch's batches of indices (options.sampler, options.batch_sampler, or
/// the dataset in order or shuffled), on the loop's thread, whatever
/// num_workers. `collate` turns the examples of a batch into a Batch; without
/// one, `default_collate` stacks them, and a dataset that can gather a batch
/// at once (TensorDataset, and a Subset of one) does so instead. A DataLoader
/// and its iterators belong to one thread.
template <typename ExampleT, typename Batch = ExampleT>
class DataLoader {
 public:
  using Collate = std::function<Batch(std::vector<ExampleT>)>;

  DataLoader(std::shared_ptr<const Dataset<ExampleT>> dataset, DataLoaderOptions options,
             Collate collate = nullptr)
      : dataset_(std::move(dataset)), options_(std::move(options)), collate_(std::move(collate)) {
    TORCHLET_CHECK(dataset_ != nullptr, "DataLoader: the dataset is null");
    detail::check_options(options_);
    sampler_ = detail::loader_sampler(dataset_->size(), options_);
    batch_sampler_ = detail::loader_batch_sampler(sampler_, options_);
    if constexpr (!std::is_same_v<Batch, ExampleT> || !has_default_collate_v<ExampleT>) {
      TORCHLET_CHECK(collate_ != nullptr,
                     "DataLoader: this example type has no default_collate; pass a collate "
                     "function");
    }
  }
  DataLoader(const DataLoader&) = delete;
  DataLoader& operator=(const DataLoader&) = delete;
  /// Stops the workers of every epoch still being iterated.
  ~DataLoader() {
    for (const std::weak_ptr<Epoch>& weak : epochs_) {
      if (std::shared_ptr<Epoch> epoch = weak.lock()) epoch->prefetcher.stop();
    }
  }

  /// The number of batches in an epoch (PyTorch's `len(loader)`): the batch
  /// sampler's size. Throws if it has none (a sampler that does not override
  /// size()).
  int64_t size() const { return batch_sampler_->size(); }
  const DataLoaderOptions& options() const { return options_; }
  /// The sampler of the indices (PyTorch's `loader.sampler`):
  /// options.sampler, or the default one over the dataset.
  const std::shared_ptr<Sampler>& sampler() const { return sampler_; }
  /// The sampler of the batches (PyTorch's `loader.batch_sampler`).
  const std::shared_ptr<BatchSamplerBase>& batch_sampler() const { return batch_sampler_; }

  class Iterator;
  /// Starts an epoch: draws its batches and, with workers, starts prefetching.
  Iterator begin() { return Iterator(start_epoch()); }
  Iterator end() { return Iterator(nullptr); }

 private:
  struct Epoch {
    Epoch(typename detail::Prefetcher<Batch>::MakeBatch make_batch, int64_t num_batches,
          const DataLoaderOptions& options)
        : num_batches(num_batches),
          prefetcher(std::move(make_batch), num_batches, options.num_workers,
                     options.prefetch_factor) {}
    const int64_t num_batches;
    detail::Prefetcher<Batch> prefetcher;
    std::optional<Batch> current;
  };

  std::shared_ptr<Epoch> start_epoch() {
    // The batches are drawn here, on the loop's thread, whatever num_workers.
    std::vector<std::vector<int64_t>> batches = batch_sampler_->epoch();
    const auto num_batches = static_cast<int64_t>(batches.size());
    auto make_batch = [dataset = dataset_, collate = collate_, batches = std::move(batches),
                       pin = pin_](int64_t b) {
      Batch batch = make(*dataset, collate, batches[b]);
      return pin ? pin_memory(std::move(batch)) : batch;
    };
    auto epoch = std::make_shared<Epoch>(std::move(make_batch), num_batches, options_);
    epochs_.erase(std::remove_if(epochs_.begin(), epochs_.end(),
                                 [](const std::weak_ptr<Epoch>& e) { return e.expired(); }),
                  epochs_.end());
    epochs_.push_back(epoch);
    return epoch;
  }

  static Batch make(const Dataset<ExampleT>& dataset, const Collate& collate,
                    const std::vector<int64_t>& indices) {
    if constexpr (std::is_same_v<Batch, ExampleT> && has_default_collate_v<ExampleT>) {
      if (!collate) {
        if (std::optional<ExampleT> batch = dataset.get_batch(indices)) return std::move(*batch);
      }
    }
    std::vector<ExampleT> examples;
    examples.reserve(indices.size());
    for (int64_t i : indices) examples.push_back(dataset.get(i));
    if constexpr (std::is_same_v<Batch, ExampleT> && has_default_collate_v<ExampleT>) {
      if (!collate) return default_collate(examples);
    }
    return collate(std::move(examples));
  }

  std::shared_ptr<const Dataset<ExampleT>> dataset_;
  DataLoaderOptions options_;
  bool pin_ = detail::pins_batches(options_);
  Collate collate_;
  std::shared_ptr<Sampler> sampler_;
  std::shared_ptr<BatchSamplerBase> batch_sampler_;
  std::vector<std::weak_ptr<Epoch>> epochs_;
};

/// An input iterator over one epoch's batches. Copies share the epoch; the
/// epoch (and its workers) stops when the last copy is destroyed. `*it` is
/// valid until the epoch moves on or stops: keep the iterator, or copy the
/// batch (`auto first = *loader.begin();`, not `auto& first = ...`).
template <typename ExampleT, typename Batch>
class DataLoader<ExampleT, Batch>::Iterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = Batch;
  using difference_type = std::ptrdiff_t;
  using pointer = Batch*;
  using reference = Batch&;

  Batch& operator*() const { return *epoch_->current; }
  Batch* operator->() const { return &*epoch_->current; }
  Iterator& operator++() {
    ++index_;
    fetch();
    return *this;
  }
  /// Iterators of one epoch at the same batch, or both past the end.
  bool operator==(const Iterator& other) const {
    return epoch_ == other.epoch_ && (epoch_ == nullptr || index_ == other.index_);
  }
  bool operator!=(const Iterator& other) const { return !(*this == other); }

 private:
  friend class DataLoader;
  explicit Iterator(std::shared_ptr<Epoch> epoch) : epoch_(std::move(epoch)) { fetch(); }

  void fetch() {
    if (epoch_ == nullptr) return;
    if (index_ >= epoch_->num_batches) {
      epoch_.reset();  // the epoch is over: stop its workers now
      return;
    }
    epoch_->current.reset();
    epoch_->current.emplace(epoch_->prefetcher.next(index_));
  }

  std::shared_ptr<Epoch> epoch_;  // null past the end
  int64_t index_ = 0;
};

}  // namespace torchlet::data
