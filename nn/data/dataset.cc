#include "nn/data/dataset.h"

#include <numeric>

#include "tensor/factories.h"
#include "tensor/shape.h"

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
  TORCHLET_CHECK(index >= 0 && index < size(), "TensorDataset: index ", index,
                 " is out of bounds for dimension 0 with size ", size());
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

}  // namespace detail
}  // namespace torchlet::data
