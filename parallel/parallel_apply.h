#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "nn/module_holder.h"
#include "parallel/scatter_gather.h"

namespace torchlet::parallel {

namespace detail {

/// Runs task(i) for every i, on the executor of devices[i]; the task of the
/// caller's current device (or a single task, with devices[0] current) runs
/// on the calling thread. Returns when every
/// task has finished; then, if any threw, throws torchlet::Error for the
/// first that did: "Caught <type> in replica <i> on device <device>.\n"
/// followed by its message. Waiting on an executor's own thread helps that
/// executor (Note [Waiting executors help]).
void run_replicas(const std::vector<Device>& devices, const std::function<void(size_t)>& task);

/// The device of `module`'s first parameter (or buffer), else the current
/// device.
Device module_device(const nn::Module& module);

template <typename T>
struct is_tuple : std::false_type {};
template <typename... E>
struct is_tuple<std::tuple<E...>> : std::true_type {};

/// Calls `module` (hooks included) on `inputs` (a tuple's elements, or the
/// value itself), with `kwargs` as the last argument unless it is NoKwargs.
template <typename M, typename Inputs, typename Kwargs>
auto call_replica(M& module, const Inputs& inputs, const Kwargs& kwargs) {
  if constexpr (is_tuple<Inputs>::value) {
    return std::apply(
        [&](const auto&... args) {
          if constexpr (std::is_same_v<Kwargs, NoKwargs>) {
            return nn::call(module, args...);
          } else {
            return nn::call(module, args..., kwargs);
          }
        },
        inputs);
  } else {
    return call_replica(module, std::tuple<const Inputs&>(inputs), kwargs);
  }
}

}  // namespace detail

/// Runs modules[i] on inputs[i] (and kwargs[i]) on devices[i], all at once
/// (PyTorch's parallel_apply): each on its device's kept executor (the one on
/// the caller's current device on the calling thread), with the
/// caller's grad mode and the rest of its thread-local state, the device
/// current. An input that is a std::tuple is spread into the call's
/// arguments; a kwargs other than NoKwargs is passed as the last argument.
/// `kwargs` may be empty (no kwargs); `devices` defaults to each module's
/// first parameter's (or buffer's) device. If a replica throws, every
/// replica still finishes, then torchlet::Error "Caught <type> in replica
/// <i> on device <device>.\n<message>" is thrown for the first that did.
template <typename M, typename Inputs, typename Kwargs = NoKwargs>
auto parallel_apply(const std::vector<std::shared_ptr<M>>& modules,
                    const std::vector<Inputs>& inputs, const std::vector<Kwargs>& kwargs = {},
                    std::vector<Device> devices = {}) {
  using Output = std::decay_t<decltype(detail::call_replica(
      std::declval<M&>(), std::declval<const Inputs&>(), std::declval<const Kwargs&>()))>;
  static_assert(!std::is_void_v<Output>, "parallel_apply: forward must return a value");
  TORCHLET_CHECK(modules.size() == inputs.size(), "parallel_apply: got ", modules.size(),
                 " modules but ", inputs.size(), " inputs");
  TORCHLET_CHECK(kwargs.empty() || kwargs.size() == modules.size(), "parallel_apply: got ",
                 modules.size(), " modules but ", kwargs.size(), " kwargs");
  if (devices.empty()) {
    for (const auto& m : modules) devices.push_back(detail::module_device(*m));
  }
  TORCHLET_CHECK(devices.size() == modules.size(), "parallel_apply: got ", modules.size(),
                 " modules but ", devices.size(), " devices");
  std::vector<std::optional<Output>> results(modules.size());
  const Kwargs none{};
  detail::run_replicas(devices, [&](size_t i) {
    const Kwargs& kw = kwargs.empty() ? none : kwargs[i];
    results[i].emplace(detail::call_replica(*modules[i], inputs[i], kw));
  });
  std::vector<Output> outputs;
  outputs.reserve(results.size());
  for (auto& r : results) outputs.push_back(std::move(*r));
  return outputs;
}

}  // namespace torchlet::parallel
