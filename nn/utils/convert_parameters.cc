#include "nn/utils/convert_parameters.h"

#include <optional>

#include "autograd/functions.h"

namespace torchlet::nn::utils {
namespace {

/// PyTorch's _check_param_device: every parameter on the first one's device.
void check_param_device(const Variable& param, std::optional<Device>& first) {
  if (!first) {
    first = param.device();
    return;
  }
  TORCHLET_CHECK(param.device() == *first,
                 "Found two parameters on different devices, this is currently not supported. "
                 "(", first->str(), " and ", param.device().str(), ")");
}

}  // namespace

Variable parameters_to_vector(const std::vector<Variable>& parameters) {
  std::optional<Device> device;
  std::vector<Variable> flat;
  flat.reserve(parameters.size());
  for (const Variable& param : parameters) {
    check_param_device(param, device);
    flat.push_back(param.view({-1}));
  }
  return cat(flat);
}

void vector_to_parameters(const Variable& vec, const std::vector<Variable>& parameters) {
  TORCHLET_CHECK(vec.defined(), "expected torch.Tensor, but got: None");
  std::optional<Device> device;
  int64_t pointer = 0;
  for (const Variable& param : parameters) {
    check_param_device(param, device);
    const int64_t numel = param.numel();
    param.set_data(vec.data().slice(0, pointer, pointer + numel).view(param.sizes()));
    pointer += numel;
  }
}

}  // namespace torchlet::nn::utils
