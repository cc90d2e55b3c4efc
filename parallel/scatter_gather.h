#pragma once

// scatter, scatter_kwargs and gather over any value
// (torch/nn/parallel/scatter_gather.py). Variables and Tensors are split
// along `dim` (as Tensor::chunk splits them) and concatenated back;
// std::vector, std::tuple, std::pair, std::map<std::string, V> and
// std::optional are taken apart and rebuilt recursively, keeping their
// type; any other value is copied to every replica on scatter, and on
// gather taken from the first replica if it visibly holds no Variables (a
// number, a string: a class of the user's own fails to compile, as
// PyTorch's gather raises for an object it cannot take apart). Other
// containers of Variables or Tensors (std::unordered_map, std::array,
// std::list, std::deque, a map not keyed by strings) fail to compile rather
// than be copied whole. The loops over devices live in scatter_gather.cc; only the
// recursion over types is here.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <list>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "autograd/variable.h"

namespace torchlet::parallel {

/// The kwargs of a call that has none (what DataParallel's forward passes
/// when it is called without named arguments).
struct NoKwargs {};

namespace detail {

/// Scatter::apply of `v` (undefined: copied, as PyTorch copies None).
variable_list scatter_variable(const Variable& v, const std::vector<Device>& devices, int64_t dim);
/// Gather::apply of `outputs` (undefined when outputs[0] is).
Variable gather_variables(const variable_list& outputs, Device target_device, int64_t dim);
/// comm::scatter / comm::gather of raw Tensors (0-dim ones gathered into a
/// vector, with Gather's warning).
std::vector<Tensor> scatter_tensor(const Tensor& t, const std::vector<Device>& devices, int64_t dim);
Tensor gather_tensors(const std::vector<Tensor>& outputs, Device target_device, int64_t dim);
/// Gather's errors for maps of different keys (PyTorch's wording).
[[noreturn]] void throw_dict_size_mismatch();
[[noreturn]] void throw_missing_key(const std::string& key, size_t output);
[[noreturn]] void throw_missing_optional(size_t output);
/// scatter_kwargs's error when the shorter list's type has no empty value.
[[noreturn]] void throw_no_empty_value();

/// The shortest of `parts` (zip's length).
template <typename Parts>
size_t zip_length(const Parts& parts) {
  size_t n = parts.empty() ? 0 : parts[0].size();
  for (const auto& part : parts) n = std::min(n, part.size());
  return n;
}

/// Whether a T holds Variables or Tensors, at any depth of std containers
/// (those with a value_type, and tuples and pairs).
template <typename T, typename = void>
struct contains_variables
    : std::bool_constant<std::is_same_v<T, Variable> || std::is_same_v<T, Tensor>> {};
template <typename T>
struct contains_variables<T, std::void_t<typename T::value_type>>
    : contains_variables<std::remove_const_t<typename T::value_type>> {};
template <typename... E>
struct contains_variables<std::tuple<E...>>
    : std::bool_constant<(contains_variables<std::remove_const_t<E>>::value || ...)> {};
template <typename A, typename B>
struct contains_variables<std::pair<A, B>>
    : contains_variables<std::tuple<std::remove_const_t<A>, B>> {};

/// The std containers this file does not take apart.
template <typename T>
struct untaken_container : std::false_type {};
template <typename K, typename V, typename... R>
struct untaken_container<std::unordered_map<K, V, R...>> : std::true_type {};
template <typename K, typename V, typename... R>
struct untaken_container<std::map<K, V, R...>> : std::bool_constant<!std::is_same_v<K, std::string>> {};
template <typename V, size_t N>
struct untaken_container<std::array<V, N>> : std::true_type {};
template <typename V, typename A>
struct untaken_container<std::list<V, A>> : std::true_type {};
template <typename V, typename A>
struct untaken_container<std::deque<V, A>> : std::true_type {};

/// Whether T is such a container holding Variables or Tensors: scattering
/// it would copy every row to every replica, and gathering it would keep
/// replica 0's value alone.
template <typename T>
struct unsupported_holder_of_variables
    : std::bool_constant<untaken_container<T>::value && contains_variables<T>::value> {};

/// Whether gather may take a T whole from the first replica: a value that
/// visibly holds no Variables or Tensors (a number, an enum, a string, a
/// std container of such values). A class of the user's own may hold
/// Variables that gather cannot see, and taking replica 0's would silently
/// drop the other replicas' rows, where PyTorch's gather raises a
/// TypeError for an object it cannot take apart: such a type fails to
/// compile instead.
template <typename T, typename = void>
struct has_value_type : std::false_type {};
template <typename T>
struct has_value_type<T, std::void_t<typename T::value_type>> : std::true_type {};
template <typename T>
struct gathered_whole
    : std::bool_constant<std::is_arithmetic_v<T> || std::is_enum_v<T> ||
                         std::is_same_v<T, std::string> || std::is_same_v<T, NoKwargs> ||
                         (has_value_type<T>::value && !contains_variables<T>::value)> {};

/// Scatter and gather of a T: the primary template copies on scatter
/// (PyTorch's scatter copies non-tensor values the same way) and keeps the
/// first replica's value on gather, for the types gathered_whole admits.
template <typename T, typename = void>
struct ScatterGather {
  static_assert(!unsupported_holder_of_variables<T>::value,
                "DataParallel scatters and gathers Variables and Tensors inside std::vector, "
                "std::tuple, std::pair, std::map<std::string, V> and std::optional only: hold "
                "them in one of those");
  static std::vector<T> scatter(const T& value, const std::vector<Device>& devices, int64_t) {
    return std::vector<T>(devices.size(), value);
  }
  static T gather(const std::vector<T>& outputs, Device, int64_t) {
    static_assert(gathered_whole<T>::value,
                  "gather cannot take apart this type, which may hold Variables: return them "
                  "inside std::vector, std::tuple, std::pair, std::map<std::string, V> or "
                  "std::optional (other values gathered must be numbers, enums, strings or "
                  "std containers of those)");
    return outputs.front();
  }
};

template <>
struct ScatterGather<Variable> {
  static variable_list scatter(const Variable& v, const std::vector<Device>& devices, int64_t dim) {
    return scatter_variable(v, devices, dim);
  }
  static Variable gather(const variable_list& outputs, Device device, int64_t dim) {
    return gather_variables(outputs, device, dim);
  }
};

template <>
struct ScatterGather<Tensor> {
  static std::vector<Tensor> scatter(const Tensor& t, const std::vector<Device>& devices,
                                     int64_t dim) {
    return scatter_tensor(t, devices, dim);
  }
  static Tensor gather(const std::vector<Tensor>& outputs, Device device, int64_t dim) {
    return gather_tensors(outputs, device, dim);
  }
};

template <typename E>
struct ScatterGather<std::vector<E>> {
  using T = std::vector<E>;
  static std::vector<T> scatter(const T& value, const std::vector<Device>& devices, int64_t dim) {
    if (value.empty()) return std::vector<T>(devices.size(), value);
    std::vector<std::vector<E>> parts;
    parts.reserve(value.size());
    for (const E& e : value) parts.push_back(ScatterGather<E>::scatter(e, devices, dim));
    std::vector<T> out(zip_length(parts));
    for (size_t i = 0; i < out.size(); ++i) {
      for (auto& part : parts) out[i].push_back(std::move(part[i]));
    }
    return out;
  }
  static T gather(const std::vector<T>& outputs, Device device, int64_t dim) {
    T out;
    std::vector<E> column(outputs.size());
    for (size_t k = 0; k < zip_length(outputs); ++k) {
      for (size_t r = 0; r < outputs.size(); ++r) column[r] = outputs[r][k];
      out.push_back(ScatterGather<E>::gather(column, device, dim));
    }
    return out;
  }
};

template <typename... E>
struct ScatterGather<std::tuple<E...>> {
  using T = std::tuple<E...>;
  static std::vector<T> scatter(const T& value, const std::vector<Device>& devices, int64_t dim) {
    if constexpr (sizeof...(E) == 0) {
      return std::vector<T>(devices.size(), value);
    } else {
      return scatter_impl(value, devices, dim, std::index_sequence_for<E...>());
    }
  }
  static T gather(const std::vector<T>& outputs, Device device, int64_t dim) {
    return gather_impl(outputs, device, dim, std::index_sequence_for<E...>());
  }

 private:
  template <size_t... I>
  static std::vector<T> scatter_impl(const T& value, const std::vector<Device>& devices,
                                     int64_t dim, std::index_sequence<I...>) {
    auto parts = std::make_tuple(ScatterGather<E>::scatter(std::get<I>(value), devices, dim)...);
    const size_t n = std::min({std::get<I>(parts).size()...});
    std::vector<T> out;
    out.reserve(n);
    for (size_t i = 0; i < n; ++i) out.emplace_back(std::move(std::get<I>(parts)[i])...);
    return out;
  }
  template <size_t J>
  static auto column(const std::vector<T>& outputs) {
    std::vector<std::tuple_element_t<J, T>> out;
    out.reserve(outputs.size());
    for (const T& o : outputs) out.push_back(std::get<J>(o));
    return out;
  }
  template <size_t... I>
  static T gather_impl(const std::vector<T>& outputs, Device device, int64_t dim,
                       std::index_sequence<I...>) {
    return T(ScatterGather<E>::gather(column<I>(outputs), device, dim)...);
  }
};

template <typename A, typename B>
struct ScatterGather<std::pair<A, B>> {
  using T = std::pair<A, B>;
  using Tuple = std::tuple<A, B>;
  static std::vector<T> scatter(const T& value, const std::vector<Device>& devices, int64_t dim) {
    std::vector<T> out;
    for (Tuple& t : ScatterGather<Tuple>::scatter(Tuple(value.first, value.second), devices, dim)) {
      out.emplace_back(std::move(std::get<0>(t)), std::move(std::get<1>(t)));
    }
    return out;
  }
  static T gather(const std::vector<T>& outputs, Device device, int64_t dim) {
    std::vector<Tuple> tuples;
    tuples.reserve(outputs.size());
    for (const T& o : outputs) tuples.emplace_back(o.first, o.second);
    Tuple t = ScatterGather<Tuple>::gather(tuples, device, dim);
    return T(std::move(std::get<0>(t)), std::move(std::get<1>(t)));
  }
};

template <typename V, typename C, typename Alloc>
struct ScatterGather<std::map<std::string, V, C, Alloc>> {
  using T = std::map<std::string, V, C, Alloc>;
  static std::vector<T> scatter(const T& value, const std::vector<Device>& devices, int64_t dim) {
    if (value.empty()) return std::vector<T>(devices.size(), value);
    std::vector<std::vector<V>> parts;
    parts.reserve(value.size());
    for (const auto& entry : value) {
      parts.push_back(ScatterGather<V>::scatter(entry.second, devices, dim));
    }
    std::vector<T> out(zip_length(parts));
    for (size_t i = 0; i < out.size(); ++i) {
      size_t k = 0;
      for (const auto& entry : value) out[i].emplace(entry.first, std::move(parts[k++][i]));
    }
    return out;
  }
  static T gather(const std::vector<T>& outputs, Device device, int64_t dim) {
    for (const T& o : outputs) {
      if (o.size() != outputs[0].size()) throw_dict_size_mismatch();
    }
    T out;
    std::vector<V> column(outputs.size());
    for (const auto& entry : outputs[0]) {
      for (size_t r = 0; r < outputs.size(); ++r) {
        auto it = outputs[r].find(entry.first);
        if (it == outputs[r].end()) throw_missing_key(entry.first, r);
        column[r] = it->second;
      }
      out.emplace(entry.first, ScatterGather<V>::gather(column, device, dim));
    }
    return out;
  }
};

template <typename E>
struct ScatterGather<std::optional<E>> {
  using T = std::optional<E>;
  static std::vector<T> scatter(const T& value, const std::vector<Device>& devices, int64_t dim) {
    if (!value) return std::vector<T>(devices.size(), value);
    std::vector<T> out;
    for (E& e : ScatterGather<E>::scatter(*value, devices, dim)) out.emplace_back(std::move(e));
    return out;
  }
  static T gather(const std::vector<T>& outputs, Device device, int64_t dim) {
    if (!outputs[0]) return std::nullopt;
    std::vector<E> values;
    values.reserve(outputs.size());
    for (size_t r = 0; r < outputs.size(); ++r) {
      if (!outputs[r]) throw_missing_optional(r);
      values.push_back(*outputs[r]);
    }
    return ScatterGather<E>::gather(values, device, dim);
  }
};

/// Whether a call's positional inputs or kwargs are empty (Python's `if
/// inputs`): no arguments, an empty map, or NoKwargs.
template <typename T>
bool is_empty(const T&) {
  return false;
}
template <typename... E>
bool is_empty(const std::tuple<E...>&) {
  return sizeof...(E) == 0;
}
template <typename V, typename C, typename Alloc>
bool is_empty(const std::map<std::string, V, C, Alloc>& m) {
  return m.empty();
}
inline bool is_empty(const NoKwargs&) { return true; }

/// A value to pad the shorter list of scatter_kwargs with (Python's () and
/// {}); throws when T has none.
template <typename T>
T empty_value() {
  if constexpr (std::is_default_constructible_v<T>) {
    return T();
  } else {
    throw_no_empty_value();
  }
}
}  // namespace detail

/// `inputs` split across `devices` along `dim` (PyTorch's scatter): one
/// value of the same type per chunk. Variables are split as
/// Variable::chunk(devices.size(), dim) splits them, so there may be fewer
/// chunks than devices (9 rows over 4 devices: 3, 3, 3), and a container
/// yields as many values as its shortest member; non-tensor values are
/// copied once per device. Differentiable: a scattered Variable's gradient
/// flows back to its own device.
template <typename T>
std::vector<T> scatter(const T& inputs, const std::vector<Device>& devices, int64_t dim = 0) {
  return detail::ScatterGather<T>::scatter(inputs, devices, dim);
}

/// scatter of the positional inputs and of the named ones (kwargs), with
/// the shorter list padded with empty values (default-constructed inputs,
/// an empty kwargs map) to the longer one's length, as PyTorch's
/// scatter_kwargs does. Empty inputs or kwargs scatter to no values.
template <typename Inputs, typename Kwargs>
std::pair<std::vector<Inputs>, std::vector<Kwargs>> scatter_kwargs(
    const Inputs& inputs, const Kwargs& kwargs, const std::vector<Device>& devices,
    int64_t dim = 0) {
  std::vector<Inputs> in =
      detail::is_empty(inputs) ? std::vector<Inputs>() : scatter(inputs, devices, dim);
  std::vector<Kwargs> kw =
      detail::is_empty(kwargs) ? std::vector<Kwargs>() : scatter(kwargs, devices, dim);
  while (in.size() < kw.size()) in.push_back(detail::empty_value<Inputs>());
  while (kw.size() < in.size()) kw.push_back(detail::empty_value<Kwargs>());
  return {std::move(in), std::move(kw)};
}

/// The replicas' `outputs` concatenated along `dim` on `target_device`
/// (PyTorch's gather), keeping their type: containers are gathered
/// element-wise (vectors and tuples to the length of the shortest), maps
/// key by key (maps with different keys throw PyTorch's error), an empty
/// optional stays empty; numbers, enums, strings and std containers of
/// those are taken from the first replica, and any other type fails to
/// compile (detail::gathered_whole).
/// 0-dim Variables are gathered into a vector of one element per replica,
/// with PyTorch's warning (torchlet::warn). Differentiable to any order.
template <typename T>
T gather(const std::vector<T>& outputs, Device target_device, int64_t dim = 0) {
  TORCHLET_CHECK(!outputs.empty(), "gather: expected at least one output to gather");
  return detail::ScatterGather<T>::gather(outputs, target_device, dim);
}

}  // namespace torchlet::parallel
