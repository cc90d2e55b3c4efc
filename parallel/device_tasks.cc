#include "parallel/device_tasks.h"

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <utility>

#include "tensor/error.h"
#include "tensor/executor.h"

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
  std::unique_lock<std::mutex> lock(pending.mutex);
  pending.done.wait(lock, finished);
}

}  // namespace

std::vector<std::exception_ptr> run_on_devices(const std::vector<Device>& devices,
                                               const std::function<void(size_t)>& task) {
  for (Device device : devices) check_device_exists(device, "run_on_devices");
  auto pending = std::make_shared<Pending>(devices.size());
  if (devices.size() == 1) {
    try {
      DeviceGuard guard(devices[0]);
      task(0);
    } catch (...) {
      pending->errors[0] = std::current_exception();
    }
    return pending->errors;
  }
  Executor* const waiting = current_executor();
  for (size_t i = 0; i < devices.size(); ++i) {
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
  wait_for(*pending);
  // Take the exceptions out rather than copy them: a task's closure may
  // release `pending` after this returns, and must not hold the last
  // reference to an exception the caller is reading.
  return std::move(pending->errors);
}

}  // namespace torchlet::parallel::detail
