#pragma once

#include <optional>

#include "tensor/device.h"
#include "tensor/dtype.h"

namespace torchlet {

/// Where and of what type a factory makes its tensor:
/// `zeros({2, 3}, TensorOptions().dtype(kFloat64).device(Device("cpu:1")))`,
/// or just `zeros({2, 3}, kFloat64)`. Unset fields mean the default dtype
/// (float32, or the kind a factory implies) and the thread's current device.
class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(DType dtype) : dtype_(dtype) {}       // NOLINT(runtime/explicit)
  TensorOptions(Device device) : device_(device) {}   // NOLINT(runtime/explicit)
  TensorOptions(DeviceType type) : device_(Device(type)) {}  // NOLINT(runtime/explicit)

  TensorOptions dtype(DType dtype) const {
    TensorOptions out = *this;
    out.dtype_ = dtype;
    return out;
  }
  TensorOptions device(Device device) const {
    TensorOptions out = *this;
    out.device_ = device;
    return out;
  }

  bool has_dtype() const { return dtype_.has_value(); }
  bool has_device() const { return device_.has_value(); }
  DType dtype_or(DType fallback) const { return dtype_.value_or(fallback); }
  /// The requested device, else the thread's current device.
  Device device_or_current() const { return device_ ? *device_ : current_device(); }

 private:
  std::optional<DType> dtype_;
  std::optional<Device> device_;
};

}  // namespace torchlet
