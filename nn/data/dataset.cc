#include "nn/data/dataset.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "absl/strings/str_cat.h"

#include "tensor/factories.h"
#include "tensor/shape.h"
#include "tensor/warning.h"

namespace torchlet::data {

TensorDataset::TensorDataset(Tensor data, Tensor target)
    : data_(std::move(data)), target_(std::move(target)) {
  TORCHLET_CHECK(data_.defined() && target_.defined(), "TensorDataset: a tensor is undefined");
  TORCHLET_CHECK(data_.dim() > 0 && target_.dim() > 0,
                 "TensorDataset: expected tensors with at least one dimension, got shapes ",
                 shape_str(data_.sizes()), " and ", shape_str(target_.sizes()));
  TORCHLET_CHECK(data_.size(0) == target_.size(0),
                 "Size mismatch between tensors: ", shape_str(data_.sizes()), " and ",
                 shape_str(target_.sizes()));
}

int64_t TensorDataset::size() const { return data_.size(0); }

Example TensorDataset::get(int64_t index) const {
  TORCHLET_CHECK(index >= -size() && index < size(), "TensorDataset: index ", index,
                 " is out of bounds for dimension 0 with size ", size());
  if (index < 0) index += size();
  return {data_.select(0, index), target_.select(0, index)};
}

std::optional<Example> TensorDataset::get_batch(const std::vector<int64_t>& indices) const {
  const Tensor index = from_vector(indices, TensorOptions().device(data_.device()));
  return Example{data_.index_select(0, index), target_.index_select(0, index.to(target_.device()))};
}

namespace detail {

void check_subset_index(int64_t index, int64_t size) {
  TORCHLET_CHECK(index >= 0 && index < size, "Subset: index ", index,
                 " is out of range for a subset of size ", size);
}

void check_subset_indices(const std::vector<int64_t>& indices, int64_t dataset_size) {
  for (int64_t i : indices) {
    TORCHLET_CHECK(i >= 0 && i < dataset_size, "Subset: index ", i,
                   " is out of range for a dataset of size ", dataset_size);
  }
}

namespace {

/// Python's math.isclose(a, b) with its default tolerance.
bool is_close(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

/// Fractions summing to 1 as counts, as PyTorch 1.13: floors, then the
/// remainder one by one round-robin; warns of each empty split.
std::vector<int64_t> fraction_lengths(int64_t dataset_size, const std::vector<double>& fractions) {
  std::vector<int64_t> counts;
  for (size_t i = 0; i < fractions.size(); ++i) {
    TORCHLET_CHECK(fractions[i] >= 0 && fractions[i] <= 1, "Fraction at index ", i,
                   " is not between 0 and 1");
    counts.push_back(static_cast<int64_t>(std::floor(dataset_size * fractions[i])));
  }
  const int64_t remainder =
      dataset_size - std::accumulate(counts.begin(), counts.end(), int64_t{0});
  for (int64_t i = 0; i < remainder; ++i) ++counts[i % counts.size()];
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == 0) {
      warn(absl::StrCat("Length of split at index ", i,
                        " is 0. This might result in an empty dataset."));
    }
  }
  return counts;
}

}  // namespace

std::vector<int64_t> split_lengths(int64_t dataset_size, const std::vector<double>& lengths) {
  const double sum = std::accumulate(lengths.begin(), lengths.end(), 0.0);
  if (!lengths.empty() && is_close(sum, 1) && sum <= 1) {
    return fraction_lengths(dataset_size, lengths);
  }
  for (double length : lengths) {
    TORCHLET_CHECK(length >= 0, "random_split: lengths must be non-negative, got ", length);
    TORCHLET_CHECK(length == std::floor(length),
                   "random_split: lengths must be counts, or fractions summing to 1, got ",
                   length);
  }
  TORCHLET_CHECK(sum <= static_cast<double>(dataset_size),
                 "Sum of input lengths does not equal the length of the input dataset!");
  return std::vector<int64_t>(lengths.begin(), lengths.end());
}

std::vector<std::vector<int64_t>> split_indices(int64_t dataset_size,
                                                const std::vector<int64_t>& lengths,
                                                Generator& generator) {
  for (int64_t length : lengths) {
    TORCHLET_CHECK(length >= 0, "random_split: lengths must be non-negative, got ", length);
  }
  TORCHLET_CHECK(std::accumulate(lengths.begin(), lengths.end(), int64_t{0}) == dataset_size,
                 "Sum of input lengths does not equal the length of the input dataset!");
  const std::vector<int64_t> perm = generator.randperm(dataset_size);
  std::vector<std::vector<int64_t>> parts;
  auto start = perm.begin();
  for (int64_t length : lengths) {
    parts.emplace_back(start, start + length);
    start += length;
  }
  return parts;
}

std::vector<int64_t> cumulative_sizes(const std::vector<int64_t>& sizes) {
  TORCHLET_CHECK(!sizes.empty(), "datasets should not be an empty iterable");
  std::vector<int64_t> totals(sizes.size());
  std::partial_sum(sizes.begin(), sizes.end(), totals.begin());
  return totals;
}

std::pair<size_t, int64_t> locate_concat_index(const std::vector<int64_t>& cumulative_sizes,
                                               int64_t index) {
  const int64_t size = cumulative_sizes.back();
  if (index < 0) {
    TORCHLET_CHECK(index >= -size, "absolute value of index should not exceed dataset length");
    index += size;
  }
  TORCHLET_CHECK(index < size, "ConcatDataset: index ", index,
                 " is out of range for a dataset of size ", size);
  const auto dataset = static_cast<size_t>(
      std::upper_bound(cumulative_sizes.begin(), cumulative_sizes.end(), index) -
      cumulative_sizes.begin());
  return {dataset, dataset == 0 ? index : index - cumulative_sizes[dataset - 1]};
}

}  // namespace detail
}  // namespace torchlet::data
