#pragma once

#include <type_traits>
#include <utility>
#include <vector>

#include "nn/data/dataset.h"
#include "tensor/tensor_body.h"

namespace torchlet::data {

/// PyTorch's `default_collate` for tensors: stacks the examples along a new
/// first dimension ([B, ...]; 0-dim targets become [B]).
Tensor default_collate(const std::vector<Tensor>& examples);
/// Stacks the inputs and the targets separately: {[B, ...], [B, ...]}.
Example default_collate(const std::vector<Example>& examples);

namespace detail {
template <typename T, typename = void>
struct HasDefaultCollate : std::false_type {};
template <typename T>
struct HasDefaultCollate<T, std::void_t<decltype(default_collate(std::declval<std::vector<T>>()))>>
    : std::true_type {};
}  // namespace detail

/// True when `default_collate` turns a vector of T into a T.
template <typename T>
constexpr bool has_default_collate_v = detail::HasDefaultCollate<T>::value;

}  // namespace torchlet::data
