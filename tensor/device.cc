#include "tensor/device.h"

#include <atomic>
#include <cstdlib>
#include <ostream>

#include "tensor/cuda/cuda_runtime.h"
#include "tensor/error.h"
#include "tensor/thread_local_state.h"

namespace torchlet {
namespace {

int initial_cpu_device_count() {
  const char* env = std::getenv("TORCHLET_CPU_DEVICES");
  if (env == nullptr || *env == '\0') return 1;
  char* end = nullptr;
  const long n = std::strtol(env, &end, 10);
  TORCHLET_CHECK(*end == '\0' && n >= 1 && n <= 1024,
                 "TORCHLET_CPU_DEVICES must be an integer in [1, 1024], got '", env, "'");
  return static_cast<int>(n);
}

std::atomic<int>& cpu_count_slot() {
  static std::atomic<int> count{initial_cpu_device_count()};
  return count;
}

}  // namespace

Device::Device(const std::string& spec) {
  const size_t colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  if (kind == "cpu") {
    type = kCPU;
  } else if (kind == "cuda") {
    type = kCUDA;
  } else {
    detail::throw_error(detail::str_cat(
        "Expected one of cpu, cuda device type at start of device string: ", spec));
  }
  if (colon == std::string::npos) return;
  const std::string digits = spec.substr(colon + 1);
  bool ok = !digits.empty() && digits.size() <= 4;
  for (char c : digits) ok = ok && c >= '0' && c <= '9';
  TORCHLET_CHECK(ok, "Invalid device string: '", spec, "'");
  index = static_cast<int16_t>(std::stoi(digits));
}

std::string Device::str() const {
  return std::string(type == kCPU ? "cpu:" : "cuda:") + std::to_string(index);
}

std::ostream& operator<<(std::ostream& out, Device device) { return out << device.str(); }

int cpu_device_count() { return cpu_count_slot().load(std::memory_order_relaxed); }

void set_cpu_device_count(int count) {
  TORCHLET_CHECK(count >= 1 && count <= 1024,
                 "set_cpu_device_count: expected a count in [1, 1024], got ", count);
  cpu_count_slot().store(count, std::memory_order_relaxed);
}

int cuda_device_count() { return cuda::device_count(); }

int device_count(DeviceType type) {
  return type == kCPU ? cpu_device_count() : cuda_device_count();
}

void check_device_exists(Device device, const char* op) {
  const int count = device_count(device.type);
  TORCHLET_CHECK(device.index >= 0 && device.index < count, op, ": device ", device,
                 " does not exist (", count, device.is_cpu() ? " CPU" : " CUDA",
                 count == 1 ? " device" : " devices",
                 device.is_cpu() ? "; see set_cpu_device_count)" : " available)");
}

Device current_device() { return thread_local_state().device; }

DeviceGuard::DeviceGuard(Device device) : previous_(thread_local_state().device) {
  check_device_exists(device, "DeviceGuard");
  thread_local_state().device = device;
}

DeviceGuard::~DeviceGuard() { thread_local_state().device = previous_; }

}  // namespace torchlet
