#pragma once

#include <optional>
#include <string>

#include "tensor/tensor_body.h"

namespace torchlet {

// Searching and counting: torch.searchsorted, torch.bucketize,
// torch.bincount and torch.histc. None is differentiable.

/// For each element of `values`, the index where it would be inserted into
/// the innermost dim of `sorted_sequence` (1-D, or with the leading dims of
/// `values`) to keep it sorted: the first such index, or the last with
/// `right` (or `side` "right"; `side` wins over `right`, and the two must
/// not disagree). `sorter` (int64, the sequence's shape) gives the order of
/// an unsorted sequence. int64 results, or int32 with `out_int32`.
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, bool out_int32 = false,
                    bool right = false, std::optional<std::string> side = std::nullopt,
                    const Tensor& sorter = Tensor());
/// One scalar value: a 0-dim result.
Tensor searchsorted(const Tensor& sorted_sequence, Scalar value, bool out_int32 = false,
                    bool right = false, std::optional<std::string> side = std::nullopt,
                    const Tensor& sorter = Tensor());
/// The bucket of each element of `input` among the 1-D sorted `boundaries`:
/// boundaries[i-1] < x <= boundaries[i], or boundaries[i-1] <= x <
/// boundaries[i] with `right`.
Tensor bucketize(const Tensor& input, const Tensor& boundaries, bool out_int32 = false,
                 bool right = false);
Tensor bucketize(Scalar input, const Tensor& boundaries, bool out_int32 = false,
                 bool right = false);
Tensor bincount(const Tensor& input, const Tensor& weights = Tensor(), int64_t minlength = 0);
Tensor histc(const Tensor& input, int64_t bins = 100, Scalar min = 0, Scalar max = 0);

}  // namespace torchlet
