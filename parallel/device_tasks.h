#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <vector>

#include "tensor/device.h"

namespace torchlet::parallel::detail {

/// Runs task(i) for every i at once, each on the kept executor of
/// devices[i] (a single task runs on the calling thread with devices[0]
/// current), and returns when all have finished: the exception each threw,
/// null where none did. A caller that is itself an executor's thread helps
/// that executor while it waits (Note [Waiting executors help]), so tasks
/// queued there, or nested calls, cannot deadlock.
std::vector<std::exception_ptr> run_on_devices(const std::vector<Device>& devices,
                                               const std::function<void(size_t)>& task);

}  // namespace torchlet::parallel::detail
