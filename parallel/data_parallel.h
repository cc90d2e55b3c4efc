#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "autograd/grad_mode.h"
#include "nn/module_holder.h"
#include "parallel/device_tasks.h"
#include "parallel/parallel_apply.h"
#include "parallel/replicate.h"
#include "parallel/scatter_gather.h"

namespace torchlet::parallel {

extern const char* const kMinusOneIsCpuWarning;

/// A device as DataParallel takes it: an index, a Device or a string
/// ("cpu:1"). An index names a CUDA device when CUDA devices exist, else
/// the CPU device of that index; -1 names the CPU (cpu:0), as PyTorch's
/// output_device = -1 does, with its deprecation warning
/// (kMinusOneIsCpuWarning).
class DeviceId {
 public:
  DeviceId(int index);                   // NOLINT: implicit
  DeviceId(Device device) : device_(device) {}  // NOLINT: implicit
  DeviceId(const char* spec) : device_(spec) {}  // NOLINT: implicit
  DeviceId(const std::string& spec) : device_(spec) {}  // NOLINT: implicit
  Device device() const { return device_; }

 private:
  Device device_;
};

namespace detail {

/// Resolved DataParallel settings.
struct DataParallelConfig {
  std::vector<Device> device_ids;  // empty: run the module directly
  Device output_device;
};

/// PyTorch's DataParallel.__init__ checks: resolves the devices (default:
/// every CUDA device, none without one), warns on imbalance, moves the
/// module to a single device.
DataParallelConfig configure_data_parallel(nn::Module& module,
                                           const std::vector<DeviceId>& device_ids,
                                           const std::optional<DeviceId>& output_device);

/// The devices `ids` name; when empty, every CUDA device (none without
/// one). Throws on a device that does not exist or on mixed device types.
std::vector<Device> resolve_device_ids(const std::vector<DeviceId>& ids);

/// Throws unless every parameter and buffer of `module` is on `device`
/// (defined in replicate.cc: it reads the layout replicate() keeps).
void check_module_device(const std::shared_ptr<nn::Module>& module, Device device);

/// PyTorch's _check_balance on given properties: the warning text if some
/// device has under 75% of another's memory (checked first) or cores.
std::optional<std::string> imbalance_warning(const std::vector<Device>& devices,
                                             const std::vector<double>& memory,
                                             const std::vector<double>& cores);

/// The StepPolicy of data_parallel() calls, which keep nothing between
/// calls (Note [Receivers copy]).
StepPolicy& shared_step_policy();

/// The scatter, replicate, parallel_apply and gather of one call over
/// `device_ids` (at least one) with `inputs` (a tuple of the arguments) and
/// `kwargs`: PyTorch's DataParallel.forward after its checks.
template <typename M, typename Inputs, typename Kwargs>
auto data_parallel_call(const std::shared_ptr<M>& module, const Inputs& inputs,
                        const Kwargs& kwargs, const std::vector<Device>& device_ids,
                        Device output_device, int64_t dim, bool detach, StepPolicy& policy) {
  // Note [Receivers copy]: the other devices fill their chunks and
  // parameters themselves while this thread does the bookkeeping.
  std::optional<ReceiverCopies> receivers;
  if (device_ids.size() > 1) receivers.emplace(policy);
  auto [in, kw] = scatter_kwargs(inputs, kwargs, device_ids, dim);
  if constexpr (std::is_same_v<Inputs, std::tuple<>>) {
    if (in.empty() && kw.empty()) {
      in.emplace_back();
      kw.emplace_back(Kwargs{});
    }
  }
  if (device_ids.size() == 1) {
    DeviceGuard guard(device_ids[0]);
    return call_replica(*module, in[0], kw[0]);
  }
  const std::vector<Device> used(device_ids.begin(),
                                 device_ids.begin() + static_cast<std::ptrdiff_t>(in.size()));
  const std::vector<std::shared_ptr<M>> replicas = replicate(module, used, detach);
  if (receivers) receivers->finish();
  return gather(parallel_apply(replicas, in, kw, used), output_device, dim);
}

}  // namespace detail

// Note [DataParallel]
// ~~~~~~~~~~~~~~~~~~~
// torch.nn.DataParallel with PyTorch's semantics, over any forward
// signature: forward(args...) scatters the arguments (Variables inside any
// nesting of vector, tuple, pair, map and optional; other values copied)
// along `dim` across device_ids, replicates the module onto as many devices
// as there are chunks (Note [Kept replicas]), runs the replicas at once on
// their devices' executors (the caller's device's on the calling thread),
// and gathers the outputs on output_device. Named
// arguments (PyTorch's kwargs) go through forward_kwargs(kwargs, args...):
// `kwargs` (e.g. a std::map<std::string, Variable>) is scattered like the
// inputs and passed as the module's last argument. With one device the
// module runs directly on the scattered inputs (its output is not gathered,
// as in PyTorch); without devices (no CUDA device and none given) forward
// calls the module as it is. The replica on device_ids[0] shares storage
// with the module, so in-place buffer updates there (BatchNorm's running
// statistics) are kept; those on other devices are lost. Replicas are kept
// between calls (Note [Kept replicas]): a plain member changed after they
// were built (not a parameter, buffer or child) reaches them only through
// drop_replicas(module()).

/// torch.nn.DataParallel (see Note [DataParallel]). It is a Module whose one
/// child is the wrapped module, registered as "module": its state_dict keys
/// start with "module." (see consume_prefix_in_state_dict_if_present) and
/// it prints as PyTorch's does.
template <typename M>
class DataParallelImpl : public nn::Module {
 public:
  /// Wraps `module`. `device_ids` default to every CUDA device (none
  /// without one); `output_device` to device_ids[0]. Warns once if the
  /// devices are unbalanced; with a single device, moves the module to it.
  explicit DataParallelImpl(std::shared_ptr<M> module, std::vector<DeviceId> device_ids = {},
                            std::optional<DeviceId> output_device = std::nullopt,
                            int64_t dim = 0)
      : nn::Module("DataParallel"), module_(register_module("module", std::move(module))), dim_(dim) {
    config_ = detail::configure_data_parallel(*module_, device_ids, output_device);
  }

  /// The wrapped module.
  const std::shared_ptr<M>& module() const { return module_; }
  const std::vector<Device>& device_ids() const { return config_.device_ids; }
  Device output_device() const { return config_.output_device; }
  int64_t dim() const { return dim_; }

  /// The module's output on `args`, computed in parallel (Note
  /// [DataParallel]).
  template <typename... Args>
  auto forward(const Args&... args) {
    return forward_kwargs(NoKwargs{}, args...);
  }

  /// forward with named arguments: `kwargs` is scattered like the inputs and
  /// passed to the module as its last argument.
  template <typename Kwargs, typename... Args>
  auto forward_kwargs(const Kwargs& kwargs, const Args&... args) {
    const std::tuple<Args...> inputs(args...);
    if (config_.device_ids.empty()) return detail::call_replica(*module_, inputs, kwargs);
    detail::check_module_device(module_, config_.device_ids[0]);
    return detail::data_parallel_call(module_, inputs, kwargs, config_.device_ids,
                                      config_.output_device, dim_, !is_grad_enabled(), *policy_);
  }

 private:
  std::shared_ptr<M> module_;
  detail::DataParallelConfig config_;
  int64_t dim_;
  // How its steps send copies to the other devices and whether its replicas
  // help one another (Note [Receivers copy]).
  std::shared_ptr<detail::StepPolicy> policy_ = std::make_shared<detail::StepPolicy>();
};

/// Holder of a DataParallelImpl<M>: `DataParallel dp(net, {"cpu:0", "cpu:1"});
/// Variable y = dp(x);`.
template <typename M>
class DataParallel : public nn::ModuleHolder<DataParallelImpl<M>> {
 public:
  using Impl = DataParallelImpl<M>;
  DataParallel(std::shared_ptr<M> module, std::vector<DeviceId> device_ids = {},
               std::optional<DeviceId> output_device = std::nullopt, int64_t dim = 0)
      : nn::ModuleHolder<Impl>(std::make_shared<Impl>(std::move(module), std::move(device_ids),
                                                      std::move(output_device), dim)) {}
  DataParallel(const nn::ModuleHolder<M>& module, std::vector<DeviceId> device_ids = {},
               std::optional<DeviceId> output_device = std::nullopt, int64_t dim = 0)
      : DataParallel(module.ptr(), std::move(device_ids), std::move(output_device), dim) {}
};

template <typename M, typename... Rest>
DataParallel(std::shared_ptr<M>, Rest&&...) -> DataParallel<M>;
template <typename M, typename... Rest>
DataParallel(const nn::ModuleHolder<M>&, Rest&&...) -> DataParallel<M>;

/// Removes `prefix` from the start of every key of `state_dict` that has it
/// (PyTorch's consume_prefix_in_state_dict_if_present): a checkpoint saved
/// through DataParallel loads into the bare module after
/// consume_prefix_in_state_dict_if_present(sd, "module.").
void consume_prefix_in_state_dict_if_present(StateDict& state_dict, const std::string& prefix);

/// The functional DataParallel (torch.nn.parallel.data_parallel): `inputs`
/// (a std::tuple of the arguments, or one argument) scattered across
/// `device_ids`, the module replicated and run on each chunk, the outputs
/// gathered on `output_device` (default device_ids[0]; -1 is the CPU).
/// `module_kwargs`, unless NoKwargs, is scattered too and passed as the
/// last argument. Without device_ids and without CUDA devices, the module
/// is called as it is.
template <typename M, typename Inputs, typename Kwargs = NoKwargs>
auto data_parallel(const std::shared_ptr<M>& module, const Inputs& inputs,
                   const std::vector<DeviceId>& device_ids = {},
                   std::optional<DeviceId> output_device = std::nullopt, int64_t dim = 0,
                   const Kwargs& module_kwargs = {}) {
  using Args = std::conditional_t<detail::is_tuple<Inputs>::value, Inputs, std::tuple<Inputs>>;
  const Args args(inputs);
  std::vector<Device> devices = detail::resolve_device_ids(device_ids);
  if (devices.empty()) return detail::call_replica(*module, args, module_kwargs);
  const Device output = output_device ? output_device->device() : devices[0];
  detail::check_module_device(module, devices[0]);
  return detail::data_parallel_call(module, args, module_kwargs, devices, output, dim,
                                    /*detach=*/false, detail::shared_step_policy());
}

/// data_parallel of a holder's module.
template <typename M, typename Inputs, typename Kwargs = NoKwargs>
auto data_parallel(const nn::ModuleHolder<M>& module, const Inputs& inputs,
                   const std::vector<DeviceId>& device_ids = {},
                   std::optional<DeviceId> output_device = std::nullopt, int64_t dim = 0,
                   const Kwargs& module_kwargs = {}) {
  return data_parallel(module.ptr(), inputs, device_ids, output_device, dim, module_kwargs);
}

}  // namespace torchlet::parallel
