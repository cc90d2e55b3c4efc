#pragma once

#include <map>
#include <string>
#include <tuple>
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

/// PyTorch's `pin_memory` of a batch: every defined CPU tensor in it, in
/// an Example or inside std::vector, std::pair, std::tuple and
/// std::map<std::string, …>, copied into page-locked memory (needs a
/// GPU); anything else unchanged.
template <typename T>
T pin_memory(T batch);

namespace detail {
template <typename T>
struct IsVector : std::false_type {};
template <typename T, typename A>
struct IsVector<std::vector<T, A>> : std::true_type {};
template <typename T>
struct IsPair : std::false_type {};
template <typename A, typename B>
struct IsPair<std::pair<A, B>> : std::true_type {};
template <typename T>
struct IsTuple : std::false_type {};
template <typename... Ts>
struct IsTuple<std::tuple<Ts...>> : std::true_type {};
template <typename T>
struct IsStringMap : std::false_type {};
template <typename V, typename C, typename A>
struct IsStringMap<std::map<std::string, V, C, A>> : std::true_type {};
}  // namespace detail

template <typename T>
T pin_memory(T batch) {
  if constexpr (std::is_same_v<T, Tensor>) {
    return batch.defined() && batch.device().is_cpu() ? batch.pin_memory() : batch;
  } else if constexpr (std::is_same_v<T, Example>) {
    return Example{pin_memory(std::move(batch.data)), pin_memory(std::move(batch.target))};
  } else if constexpr (detail::IsVector<T>::value || detail::IsStringMap<T>::value) {
    for (auto& item : batch) {
      if constexpr (detail::IsStringMap<T>::value) {
        item.second = pin_memory(std::move(item.second));
      } else {
        item = pin_memory(std::move(item));
      }
    }
    return batch;
  } else if constexpr (detail::IsPair<T>::value) {
    return T(pin_memory(std::move(batch.first)), pin_memory(std::move(batch.second)));
  } else if constexpr (detail::IsTuple<T>::value) {
    return std::apply([](auto&&... items) { return T(pin_memory(std::move(items))...); },
                      std::move(batch));
  } else {
    return batch;
  }
}

}  // namespace torchlet::data
