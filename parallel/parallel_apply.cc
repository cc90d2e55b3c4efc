#include "parallel/parallel_apply.h"

#include <cxxabi.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <typeinfo>

#include "tensor/executor.h"

namespace torchlet::parallel::detail {
namespace {

std::string demangle(const char* mangled) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = status == 0 && demangled != nullptr ? demangled : mangled;
  std::free(demangled);
  return name;
}

/// PyTorch's ExceptionWrapper text for the exception `error` thrown by
/// replica `i` on `device`.
std::string describe(const std::exception_ptr& error, size_t i, Device device) {
  std::string type, message;
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    type = demangle(typeid(e).name());
    message = e.what();
  } catch (...) {
    const std::type_info* info = abi::__cxa_current_exception_type();
    type = info != nullptr ? demangle(info->name()) : "unknown exception";
  }
  return ::torchlet::detail::str_cat("Caught ", type, " in replica ", i, " on device ", device,
                                     ".\n", message);
}

/// The replicas still running, shared with every task so that the last one
/// can signal after the caller has stopped waiting.
struct Pending {
  explicit Pending(size_t n) : left(n), errors(n) {}
  std::atomic<size_t> left;
  std::vector<std::exception_ptr> errors;
  std::mutex mutex;
  std::condition_variable done;
};

void wait_for(Pending& pending) {
  if (Executor* executor = current_executor()) {
    executor->help_until([&pending] { return pending.left.load(std::memory_order_acquire) == 0; });
    return;
  }
  std::unique_lock<std::mutex> lock(pending.mutex);
  pending.done.wait(lock, [&pending] { return pending.left.load(std::memory_order_acquire) == 0; });
}

}  // namespace

Device module_device(const nn::Module& module) {
  for (const Variable& p : module.parameters()) {
    if (p.defined()) return p.device();
  }
  for (const Variable& b : module.buffers()) {
    if (b.defined()) return b.device();
  }
  return current_device();
}

void run_replicas(const std::vector<Device>& devices, const std::function<void(size_t)>& task) {
  TORCHLET_CHECK(!devices.empty(), "parallel_apply: Expected at least one replica");
  for (Device device : devices) check_device_exists(device, "parallel_apply");
  auto pending = std::make_shared<Pending>(devices.size());
  if (devices.size() == 1) {
    DeviceGuard guard(devices[0]);
    try {
      task(0);
    } catch (...) {
      pending->errors[0] = std::current_exception();
    }
  } else {
    Executor* waiting = current_executor();
    for (size_t i = 0; i < devices.size(); ++i) {
      device_executor(devices[i]).submit([pending, &task, i, waiting] {
        try {
          task(i);
        } catch (...) {
          pending->errors[i] = std::current_exception();
        }
        if (pending->left.fetch_sub(1, std::memory_order_acq_rel) == 1) {
          {
            std::lock_guard<std::mutex> lock(pending->mutex);
          }
          pending->done.notify_all();
          if (waiting != nullptr) waiting->wake();
        }
      });
    }
    wait_for(*pending);
  }
  for (size_t i = 0; i < devices.size(); ++i) {
    if (pending->errors[i]) {
      ::torchlet::detail::throw_error(describe(pending->errors[i], i, devices[i]));
    }
  }
}

}  // namespace torchlet::parallel::detail
