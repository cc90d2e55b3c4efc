#include "parallel/data_parallel.h"

#include <algorithm>
#include <thread>

#include "tensor/cuda/cuda_runtime.h"
#include "tensor/parallel.h"
#include "tensor/warning.h"

namespace torchlet::parallel {

const char* const kMinusOneIsCpuWarning =
    "Using -1 to represent CPU tensor is deprecated. Please use a device object or string "
    "instead, e.g., \"cpu\".";

DeviceId::DeviceId(int index) {
  if (index == -1) {
    // comm.gather's warning, which PyTorch gives where -1 reaches it (an
    // output_device of -1).
    warn(kMinusOneIsCpuWarning);
    device_ = Device(kCPU, 0);
  } else {
    device_ = Device(cuda_device_count() > 0 ? kCUDA : kCPU, index);
  }
}

void consume_prefix_in_state_dict_if_present(StateDict& state_dict, const std::string& prefix) {
  StateDict out;
  for (const auto& [key, value] : state_dict) {
    const bool has = key.compare(0, prefix.size(), prefix) == 0;
    out.insert(has ? key.substr(prefix.size()) : key, value);
  }
  state_dict = std::move(out);
}

namespace detail {
namespace {

/// Memory and cores of each device, for the balance check. CPU devices
/// share the host's memory and get equal shares of its cores.
void device_properties(const std::vector<Device>& devices, std::vector<double>& memory,
                       std::vector<double>& cores) {
  for (Device device : devices) {
    if (device.is_cuda()) {
      const cuda::DeviceProperties props = cuda::device_properties(device.index);
      memory.push_back(static_cast<double>(props.total_memory));
      cores.push_back(props.multiprocessor_count);
    } else {
      memory.push_back(1.0);
      cores.push_back(1.0);
    }
  }
}

std::optional<std::string> imbalance(const std::vector<Device>& devices,
                                     const std::vector<double>& values) {
  // The first smallest and the first largest, as Python's min() and max()
  // of enumerate() pick them (std::minmax_element's max is the last).
  const auto min = std::min_element(values.begin(), values.end());
  const auto max = std::max_element(values.begin(), values.end());
  if (*max <= 0 || *min / *max >= 0.75) return std::nullopt;
  const auto lo = static_cast<size_t>(min - values.begin());
  const auto hi = static_cast<size_t>(max - values.begin());
  // PyTorch's text, line breaks and indentation included.
  return ::torchlet::detail::str_cat(
      "\n    There is an imbalance between your GPUs. You may want to exclude GPU ",
      devices[lo].index, " which\n    has less than 75% of the memory or cores of GPU ",
      devices[hi].index,
      ". You can do so by setting\n    the device_ids argument to DataParallel, or by setting "
      "the CUDA_VISIBLE_DEVICES\n    environment variable.");
}

}  // namespace

std::vector<Device> resolve_device_ids(const std::vector<DeviceId>& ids) {
  std::vector<Device> devices;
  if (ids.empty()) {
    for (int i = 0; i < cuda_device_count(); ++i) devices.emplace_back(kCUDA, i);
    return devices;
  }
  for (const DeviceId& id : ids) {
    check_device_exists(id.device(), "DataParallel");
    TORCHLET_CHECK(id.device().type == ids[0].device().type,
                   "DataParallel: device_ids must all be of one device type, got ",
                   ids[0].device(), " and ", id.device());
    devices.push_back(id.device());
  }
  return devices;
}

std::optional<std::string> imbalance_warning(const std::vector<Device>& devices,
                                             const std::vector<double>& memory,
                                             const std::vector<double>& cores) {
  if (devices.empty()) return std::nullopt;
  if (auto warning = imbalance(devices, memory)) return warning;
  return imbalance(devices, cores);
}

DataParallelConfig configure_data_parallel(nn::Module& module,
                                           const std::vector<DeviceId>& device_ids,
                                           const std::optional<DeviceId>& output_device) {
  DataParallelConfig config;
  config.device_ids = resolve_device_ids(device_ids);
  if (config.device_ids.empty()) return config;
  config.output_device = output_device ? output_device->device() : config.device_ids[0];
  check_device_exists(config.output_device, "DataParallel");
  std::vector<double> memory, cores;
  device_properties(config.device_ids, memory, cores);
  if (auto warning = imbalance_warning(config.device_ids, memory, cores)) warn(*warning);
  if (config.device_ids.size() == 1) module.to(config.device_ids[0]);
  return config;
}

StepPolicy& shared_step_policy() {
  static auto* policy = new StepPolicy();
  return *policy;
}

}  // namespace detail
}  // namespace torchlet::parallel
