#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "nn/data/generator.h"
#include "tensor/error.h"
#include "tensor/tensor_body.h"

namespace torchlet::data {

/// An (input, target) pair: what a TensorDataset returns for one index and,
/// stacked along a new first dimension, for a batch.
struct Example {
  Tensor data;
  Tensor target;
};

/// A map-style dataset (PyTorch's `torch.utils.data.Dataset`): `size()`
/// examples, read by index. `ExampleT` is whatever one example is.
template <typename ExampleT>
class Dataset {
 public:
  using ExampleType = ExampleT;

  virtual ~Dataset() = default;
  virtual int64_t size() const = 0;
  /// The example at `index` (0 <= index < size()). Called from DataLoader's
  /// worker threads at once: must be safe to call concurrently.
  virtual ExampleT get(int64_t index) const = 0;
  /// The examples at `indices` already collated, when the dataset can gather
  /// them in one pass (a TensorDataset does an index_select per tensor);
  /// nullopt otherwise. DataLoader's default collate tries this first.
  virtual std::optional<ExampleT> get_batch(const std::vector<int64_t>& indices) const {
    (void)indices;
    return std::nullopt;
  }
};

/// Rows of two tensors sharing their first dimension (PyTorch's
/// `TensorDataset(inputs, targets)`): example i is {data[i], target[i]}.
class TensorDataset : public Dataset<Example> {
 public:
  TensorDataset(Tensor data, Tensor target);

  int64_t size() const override;
  /// As PyTorch indexes the tensors, a negative index (>= -size()) counts
  /// from the end: get(-1) is the last example.
  Example get(int64_t index) const override;
  /// {data.index_select(0, indices), target.index_select(0, indices)}.
  std::optional<Example> get_batch(const std::vector<int64_t>& indices) const override;

  const Tensor& data() const { return data_; }
  const Tensor& targets() const { return target_; }

 private:
  Tensor data_;
  Tensor target_;
};

namespace detail {
void check_subset_index(int64_t index, int64_t size);
void check_subset_indices(const std::vector<int64_t>& indices, int64_t dataset_size);
std::vector<int64_t> split_lengths(int64_t dataset_size, const std::vector<double>& lengths);
std::vector<std::vector<int64_t>> split_indices(int64_t dataset_size,
                                                const std::vector<int64_t>& lengths,
                                                Generator& generator);
/// Running totals of `sizes` (PyTorch's ConcatDataset.cumsum); throws for
/// no sizes.
std::vector<int64_t> cumulative_sizes(const std::vector<int64_t>& sizes);
/// Which dataset of a ConcatDataset holds `index` (negative counts from the
/// end), and the index within it.
std::pair<size_t, int64_t> locate_concat_index(const std::vector<int64_t>& cumulative_sizes,
                                               int64_t index);
}  // namespace detail

/// The examples of `dataset` at `indices`, in that order (PyTorch's `Subset`).
template <typename ExampleT>
class Subset : public Dataset<ExampleT> {
 public:
  /// Throws unless every index is within the dataset.
  Subset(std::shared_ptr<const Dataset<ExampleT>> dataset, std::vector<int64_t> indices)
      : dataset_(std::move(dataset)), indices_(std::move(indices)) {
    TORCHLET_CHECK(dataset_ != nullptr, "Subset: the dataset is null");
    detail::check_subset_indices(indices_, dataset_->size());
  }

  int64_t size() const override { return static_cast<int64_t>(indices_.size()); }
  ExampleT get(int64_t index) const override {
    detail::check_subset_index(index, size());
    return dataset_->get(indices_[index]);
  }
  std::optional<ExampleT> get_batch(const std::vector<int64_t>& indices) const override {
    std::vector<int64_t> mapped;
    mapped.reserve(indices.size());
    for (int64_t i : indices) {
      detail::check_subset_index(i, size());
      mapped.push_back(indices_[i]);
    }
    return dataset_->get_batch(mapped);
  }

  const std::vector<int64_t>& indices() const { return indices_; }
  const std::shared_ptr<const Dataset<ExampleT>>& dataset() const { return dataset_; }

 private:
  std::shared_ptr<const Dataset<ExampleT>> dataset_;
  std::vector<int64_t> indices_;
};

/// The datasets one after another (PyTorch's `ConcatDataset`): index i is in
/// the first dataset whose cumulative size exceeds it, and a negative index
/// (>= -size()) counts from the end.
template <typename ExampleT>
class ConcatDataset : public Dataset<ExampleT> {
 public:
  /// Throws for no datasets or a null one.
  explicit ConcatDataset(std::vector<std::shared_ptr<const Dataset<ExampleT>>> datasets)
      : datasets_(std::move(datasets)) {
    std::vector<int64_t> sizes;
    for (size_t i = 0; i < datasets_.size(); ++i) {
      TORCHLET_CHECK(datasets_[i] != nullptr, "ConcatDataset: dataset ", i, " is null");
      sizes.push_back(datasets_[i]->size());
    }
    cumulative_sizes_ = detail::cumulative_sizes(sizes);
  }

  int64_t size() const override { return cumulative_sizes_.back(); }
  ExampleT get(int64_t index) const override {
    const auto [d, i] = detail::locate_concat_index(cumulative_sizes_, index);
    return datasets_[d]->get(i);
  }
  /// The batch gathered by the one dataset holding all of `indices`; nullopt
  /// (per-example collation) when they span several.
  std::optional<ExampleT> get_batch(const std::vector<int64_t>& indices) const override {
    std::optional<size_t> dataset;
    std::vector<int64_t> local;
    local.reserve(indices.size());
    for (int64_t index : indices) {
      const auto [d, i] = detail::locate_concat_index(cumulative_sizes_, index);
      if (dataset && *dataset != d) return std::nullopt;
      dataset = d;
      local.push_back(i);
    }
    if (!dataset) return std::nullopt;
    return datasets_[*dataset]->get_batch(local);
  }

  const std::vector<std::shared_ptr<const Dataset<ExampleT>>>& datasets() const {
    return datasets_;
  }
  /// Running totals of the datasets' sizes (PyTorch's `cumulative_sizes`).
  const std::vector<int64_t>& cumulative_sizes() const { return cumulative_sizes_; }

 private:
  std::vector<std::shared_ptr<const Dataset<ExampleT>>> datasets_;
  std::vector<int64_t> cumulative_sizes_;
};

/// Splits `dataset` into non-overlapping random subsets of the given lengths
/// (PyTorch 1.13's `random_split`): a permutation of all indices drawn from
/// `generator`, cut in order. `lengths` are either counts (whole numbers
/// summing to the dataset's size) or fractions summing to 1, each in
/// [0, 1]: those become floor(fraction * size) items, the remainder added
/// one by one to the splits in turn, and a split left empty is warned about
/// (torchlet::warn).
template <typename ExampleT>
std::vector<std::shared_ptr<Subset<ExampleT>>> random_split(
    const std::shared_ptr<const Dataset<ExampleT>>& dataset, const std::vector<double>& lengths,
    Generator& generator) {
  TORCHLET_CHECK(dataset != nullptr, "random_split: the dataset is null");
  const std::vector<int64_t> counts = detail::split_lengths(dataset->size(), lengths);
  std::vector<std::shared_ptr<Subset<ExampleT>>> subsets;
  for (auto& indices : detail::split_indices(dataset->size(), counts, generator)) {
    subsets.push_back(std::make_shared<Subset<ExampleT>>(dataset, std::move(indices)));
  }
  return subsets;
}

}  // namespace torchlet::data
