#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <vector>

#include "tensor/device.h"

namespace torchlet::parallel::detail {

/// Runs task(i) for every i at once, each on the kept executor of
/// devices[i] except the task of the caller's current device, which runs on
/// the calling thread (as does a single task, with devices[0] current;
/// Note [The caller runs its own device's task]), and returns when all have finished: the exception each threw,
/// null where none did. A caller that is itself an executor's thread helps
/// that executor while it waits (Note [Waiting executors help]), so tasks
/// queued there, or nested calls, cannot deadlock.
std::vector<std::exception_ptr> run_on_devices(const std::vector<Device>& devices,
                                               const std::function<void(size_t)>& task);

}  // namespace torchlet::parallel::detail
