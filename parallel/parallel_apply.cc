#include "parallel/parallel_apply.h"

#include <cxxabi.h>

#include <cstdlib>
#include <exception>
#include <string>
#include <typeinfo>

#include "parallel/device_tasks.h"

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
  const std::vector<std::exception_ptr> errors = run_on_devices(devices, task);
  for (size_t i = 0; i < devices.size(); ++i) {
    if (errors[i]) ::torchlet::detail::throw_error(describe(errors[i], i, devices[i]));
  }
}

}  // namespace torchlet::parallel::detail
