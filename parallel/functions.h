#pragma once

// The differentiable collectives (torch/nn/parallel/_functions.py), as
// autograd functions over Variables. Each backward is another of them, so
// every one is differentiable to any order:
//
//   Broadcast           backward: ReduceAddCoalesced to the input device
//   ReduceAddCoalesced  backward: Broadcast to the input devices
//   Scatter             backward: Gather to the input device
//   Gather              backward: Scatter back to the input devices
//
// Call them with apply(): `Gather::apply(Device("cpu:0"), 0, outputs)`.

#include <cstdint>
#include <optional>
#include <vector>

#include "autograd/custom_function.h"

namespace torchlet::parallel {

/// `inputs` (all on one device) copied to each target device with
/// comm::broadcast_coalesced: apply(target_devices, inputs) returns
/// device-major results, output d * inputs.size() + i being input i on
/// target_devices[d]. The results on the inputs' own device share their
/// storage. Results of inputs that do not require grad are
/// non-differentiable.
struct Broadcast : autograd::Function<Broadcast> {
  static variable_list forward(autograd::AutogradContext* ctx,
                               const std::vector<Device>& target_devices,
                               const variable_list& inputs);
  static variable_list backward(autograd::AutogradContext* ctx, variable_list grad_outputs);
};

/// The inverse of Broadcast: apply(destination, num_inputs, grads) takes
/// device-major groups of `num_inputs` Variables (one group per device) and
/// returns the `num_inputs` sums over the groups, on `destination`.
struct ReduceAddCoalesced : autograd::Function<ReduceAddCoalesced> {
  static variable_list forward(autograd::AutogradContext* ctx, Device destination,
                               int64_t num_inputs, const variable_list& grads);
  static variable_list backward(autograd::AutogradContext* ctx, variable_list grad_outputs);
};

/// apply(target_devices, chunk_sizes, dim, input): comm::scatter of
/// `input` along `dim` (chunks as Tensor::chunk does unless `chunk_sizes`
/// is given); the gradient is gathered back to the input's device.
struct Scatter : autograd::Function<Scatter> {
  static variable_list forward(autograd::AutogradContext* ctx,
                               const std::vector<Device>& target_devices,
                               const std::optional<std::vector<int64_t>>& chunk_sizes,
                               int64_t dim, const Variable& input);
  static variable_list backward(autograd::AutogradContext* ctx, variable_list grad_outputs);
};

/// apply(target_device, dim, inputs): comm::gather of `inputs` along `dim`
/// on `target_device`; the gradient is scattered back to the inputs'
/// devices. When every input is 0-dim and dim is 0, they are gathered into
/// a vector, with PyTorch's warning (torchlet::warn).
struct Gather : autograd::Function<Gather> {
  static Variable forward(autograd::AutogradContext* ctx, Device target_device, int64_t dim,
                          const variable_list& inputs);
  static variable_list backward(autograd::AutogradContext* ctx, variable_list grad_outputs);
};

/// The warning Gather issues for 0-dim inputs (PyTorch's text).
extern const char* const kGatherScalarsWarning;

}  // namespace torchlet::parallel
