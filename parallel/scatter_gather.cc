#include "parallel/scatter_gather.h"

#include "autograd/grad_mode.h"
#include "parallel/comm.h"
#include "parallel/functions.h"

namespace torchlet::parallel::detail {

variable_list scatter_variable(const Variable& v, const std::vector<Device>& devices,
                               int64_t dim) {
  if (!v.defined()) return variable_list(devices.size());
  return Scatter::apply(devices, std::optional<std::vector<int64_t>>(), dim, v);
}

Variable gather_variables(const variable_list& outputs, Device target_device, int64_t dim) {
  if (!outputs[0].defined()) return Variable();
  return Gather::apply(target_device, dim, outputs);
}

std::vector<Tensor> scatter_tensor(const Tensor& t, const std::vector<Device>& devices,
                                   int64_t dim) {
  if (!t.defined()) return std::vector<Tensor>(devices.size());
  return comm::scatter(t, devices, std::nullopt, dim);
}

Tensor gather_tensors(const std::vector<Tensor>& outputs, Device target_device, int64_t dim) {
  if (!outputs[0].defined()) return Tensor();
  variable_list wrapped;
  wrapped.reserve(outputs.size());
  for (const Tensor& t : outputs) wrapped.emplace_back(t);
  NoGradGuard no_grad;
  return Gather::apply(target_device, dim, wrapped).data();
}

void throw_dict_size_mismatch() {
  ::torchlet::detail::throw_error("gather: All dicts must have the same number of keys");
}

void throw_missing_key(const std::string& key, size_t output) {
  ::torchlet::detail::throw_error(::torchlet::detail::str_cat("gather: KeyError: '", key, "' (output ", output,
                                      " has no such key, output 0 has)"));
}

void throw_missing_optional(size_t output) {
  ::torchlet::detail::throw_error(::torchlet::detail::str_cat("gather: output ", output,
                                      " is an empty optional, but output 0 holds a value"));
}

void throw_no_empty_value() {
  ::torchlet::detail::throw_error(
      "scatter_kwargs: the inputs and kwargs split into different numbers of chunks, and the "
      "shorter one's type has no empty (default-constructed) value to pad it with");
}

}  // namespace torchlet::parallel::detail
