#pragma once

#include <functional>
#include <future>

#include "tensor/device.h"

namespace torchlet {

/// One thread per device that runs the work submitted for that device, in
/// submission order, with the device as its current device (DeviceGuard).
/// DataParallel's replicas and the autograd engine's per-device backward
/// passes run on these, so work for different devices runs at once while
/// each device's intra-op pool splits large ops (Note [Threading model]).
class Executor {
 public:
  virtual ~Executor() = default;
  /// Queues `fn`; the future becomes ready when it has run and carries any
  /// exception it threw.
  virtual std::future<void> submit(std::function<void()> fn) = 0;
  /// True on this executor's own thread.
  virtual bool is_current_thread() const = 0;
};

/// The executor of `device` (created on first use, kept for the process).
Executor& device_executor(Device device);

}  // namespace torchlet
