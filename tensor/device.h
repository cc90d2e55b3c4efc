#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

namespace torchlet {

enum class DeviceType : int8_t { kCPU = 0, kCUDA = 1 };
constexpr DeviceType kCPU = DeviceType::kCPU;
constexpr DeviceType kCUDA = DeviceType::kCUDA;

/// A device: `cpu:0`, `cpu:1`, `cuda:0`. CPU devices are virtual: they share
/// host memory but are distinct devices, so data parallelism runs (and is
/// tested) on any machine. See set_cpu_device_count().
struct Device {
  DeviceType type = kCPU;
  int16_t index = 0;

  constexpr Device() = default;
  constexpr Device(DeviceType type, int index = 0) : type(type), index(static_cast<int16_t>(index)) {}
  /// Parses "cpu", "cpu:1", "cuda", "cuda:0"; throws torchlet::Error otherwise.
  explicit Device(const std::string& spec);
  explicit Device(const char* spec) : Device(std::string(spec)) {}

  bool is_cpu() const { return type == kCPU; }
  bool is_cuda() const { return type == kCUDA; }
  /// "cpu:1", "cuda:0".
  std::string str() const;

  friend constexpr bool operator==(Device a, Device b) {
    return a.type == b.type && a.index == b.index;
  }
  friend constexpr bool operator!=(Device a, Device b) { return !(a == b); }
};

std::ostream& operator<<(std::ostream& out, Device device);

/// The number of virtual CPU devices. Initially $TORCHLET_CPU_DEVICES, else 1.
int cpu_device_count();
/// Sets the number of virtual CPU devices (>= 1). Callable at any time;
/// tensors already on a device beyond the new count keep their data.
void set_cpu_device_count(int count);
/// The number of CUDA devices; 0 without a GPU, a driver, or a CUDA build.
int cuda_device_count();
/// The number of devices of `type`.
int device_count(DeviceType type);

/// Throws torchlet::Error naming `op` unless `device` exists.
void check_device_exists(Device device, const char* op);

/// The thread's current device: where factories without an explicit device
/// allocate. Starts as cpu:0 on every thread.
Device current_device();

/// Sets the thread's current device for its lifetime (RAII).
class DeviceGuard {
 public:
  explicit DeviceGuard(Device device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  Device previous_;
};

}  // namespace torchlet
