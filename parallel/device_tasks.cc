#include "parallel/device_tasks.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <utility>

#include "tensor/error.h"
#include "tensor/executor.h"
#include "tensor/spin_wait.h"

namespace torchlet::parallel::detail {
namespace {

/// The tasks still running, shared with every task so that the last one
/// can signal after the caller has stopped waiting.
struct Pending {
  explicit Pending(size_t n) : left(n), errors(n) {}
  std::atomic<size_t> left;
  std::vector<std::exception_ptr> errors;
  std::mutex mutex;
  std::condition_variable done;
};

void wait_for(Pending& pending) {
  const auto finished = [&pending] { return pending.left.load(std::memory_order_acquire) == 0; };
  if (Executor* executor = current_executor()) {
    executor->help_until(finished);
    return;
  }
  // Note [Spin before sleeping]: the other replicas usually finish within
  // microseconds of the caller's own, at worst a replica's imbalance later.
  if (spin_until(finished, kSpinBetweenTasks)) return;
  std::unique_lock<std::mutex> lock(pending.mutex);
  pending.done.wait(lock, finished);
}

}  // namespace

std::vector<std::exception_ptr> run_on_devices(const std::vector<Device>& devices,
                                               const std::function<void(size_t)>& task) {
  for (Device device : devices) check_device_exists(device, "run_on_devices");
  auto pending = std::make_shared<Pending>(devices.size());
  const auto run = [&pending, &task](size_t i) {
    try {
      task(i);
    } catch (...) {
      pending->errors[i] = std::current_exception();
    }
  };
  // Note [The caller runs its own device's task]: the task of the caller's
  // current device runs on the calling thread, as the engine runs that
  // device's backward nodes there. Handing it to the device's executor
  // instead would leave three threads (caller, two executors) taking turns
  // on two cores, and the scheduler, which places a woken thread beside the
  // one that woke it, then stacks two busy threads on one core for
  // milliseconds while the other idles.
  if (devices.size() == 1) {
    DeviceGuard guard(devices[0]);
    run(0);
    return pending->errors;
  }
  const auto here = std::find(devices.begin(), devices.end(), current_device());
  const size_t inline_index = static_cast<size_t>(here - devices.begin());
  Executor* const waiting = current_executor();
  for (size_t i = 0; i < devices.size(); ++i) {
    if (i == inline_index) continue;
    device_executor(devices[i]).submit([pending, &task, i, waiting] {
      try {
        task(i);
      } catch (...) {
        pending->errors[i] = std::current_exception();
      }
      if (pending->left.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        { std::lock_guard<std::mutex> lock(pending->mutex); }
        pending->done.notify_all();
        if (waiting != nullptr) waiting->wake();
      }
    });
  }
  if (inline_index < devices.size()) {
    run(inline_index);
    pending->left.fetch_sub(1, std::memory_order_acq_rel);
  }
  wait_for(*pending);
  // Take the exceptions out rather than copy them: a task's closure may
  // release `pending` after this returns, and must not hold the last
  // reference to an exception the caller is reading.
  return std::move(pending->errors);
}

}  // namespace torchlet::parallel::detail
