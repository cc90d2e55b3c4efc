#include "parallel/functions.h"

#include <utility>

#include "parallel/comm.h"
#include "tensor/warning.h"

namespace torchlet::parallel {
namespace {

std::vector<Tensor> data_of(const variable_list& vs) {
  std::vector<Tensor> out;
  out.reserve(vs.size());
  for (const Variable& v : vs) out.push_back(v.data());
  return out;
}

variable_list wrap(std::vector<Tensor> ts) {
  variable_list out;
  out.reserve(ts.size());
  for (Tensor& t : ts) out.emplace_back(std::move(t));
  return out;
}

/// Undefined gradients for the `n` non-Variable arguments, then `grads`.
variable_list after_nones(size_t n, variable_list grads) {
  variable_list out(n);
  out.insert(out.end(), std::make_move_iterator(grads.begin()),
             std::make_move_iterator(grads.end()));
  return out;
}

}  // namespace

const char* const kGatherScalarsWarning =
    "Was asked to gather along dimension 0, but all input tensors were scalars; will instead "
    "unsqueeze and return a vector.";

variable_list Broadcast::forward(autograd::AutogradContext* ctx,
                                 const std::vector<Device>& target_devices,
                                 const variable_list& inputs) {
  ctx->saved_data["num_inputs"] = static_cast<int64_t>(inputs.size());
  if (inputs.empty()) return {};
  ctx->saved_data["input_device"] = inputs[0].device();
  const std::vector<std::vector<Tensor>> copies =
      comm::broadcast_coalesced(data_of(inputs), target_devices);
  variable_list outputs;
  outputs.reserve(copies.size() * inputs.size());
  variable_list non_differentiable;
  for (const std::vector<Tensor>& on_device : copies) {
    for (size_t i = 0; i < on_device.size(); ++i) {
      outputs.emplace_back(on_device[i]);
      if (!ctx->needs_input_grad(i + 1)) non_differentiable.push_back(outputs.back());
    }
  }
  ctx->mark_non_differentiable(non_differentiable);
  return outputs;
}

variable_list Broadcast::backward(autograd::AutogradContext* ctx, variable_list grad_outputs) {
  const int64_t num_inputs = ctx->get<int64_t>("num_inputs");
  if (num_inputs == 0) return {Variable()};
  return after_nones(1, ReduceAddCoalesced::apply(ctx->get<Device>("input_device"), num_inputs,
                                                  grad_outputs));
}

variable_list ReduceAddCoalesced::forward(autograd::AutogradContext* ctx, Device destination,
                                          int64_t num_inputs, const variable_list& grads) {
  TORCHLET_CHECK(num_inputs > 0 && grads.size() % static_cast<size_t>(num_inputs) == 0,
                 "ReduceAddCoalesced: expected a multiple of num_inputs = ", num_inputs,
                 " gradients, got ", grads.size());
  const size_t n = static_cast<size_t>(num_inputs);
  std::vector<Device> target_devices;
  std::vector<std::vector<Tensor>> groups;
  for (size_t start = 0; start < grads.size(); start += n) {
    target_devices.push_back(grads[start].device());
    groups.emplace_back();
    for (size_t i = start; i < start + n; ++i) groups.back().push_back(grads[i].data());
  }
  ctx->saved_data["target_devices"] = target_devices;
  return wrap(comm::reduce_add_coalesced(groups, destination));
}

variable_list ReduceAddCoalesced::backward(autograd::AutogradContext* ctx,
                                           variable_list grad_outputs) {
  return after_nones(2, Broadcast::apply(ctx->get<std::vector<Device>>("target_devices"),
                                         grad_outputs));
}

variable_list Scatter::forward(autograd::AutogradContext* ctx,
                               const std::vector<Device>& target_devices,
                               const std::optional<std::vector<int64_t>>& chunk_sizes,
                               int64_t dim, const Variable& input) {
  ctx->saved_data["dim"] = dim;
  ctx->saved_data["input_device"] = input.device();
  return wrap(comm::scatter(input.data(), target_devices, chunk_sizes, dim));
}

variable_list Scatter::backward(autograd::AutogradContext* ctx, variable_list grad_outputs) {
  return after_nones(3, {Gather::apply(ctx->get<Device>("input_device"), ctx->get<int64_t>("dim"),
                                       grad_outputs)});
}

Variable Gather::forward(autograd::AutogradContext* ctx, Device target_device, int64_t dim,
                         const variable_list& inputs) {
  TORCHLET_CHECK(!inputs.empty(), "Gather: Expected at least one tensor to gather from");
  for (const Variable& v : inputs) TORCHLET_CHECK(v.defined(), "Gather: an input is undefined");
  std::vector<Tensor> tensors = data_of(inputs);
  bool all_scalars = true;
  for (const Tensor& t : tensors) all_scalars = all_scalars && t.dim() == 0;
  const bool unsqueezed = all_scalars && dim == 0;
  if (unsqueezed) {
    for (Tensor& t : tensors) t = t.view({1});
    warn(kGatherScalarsWarning);
  }
  std::vector<Device> input_devices;
  std::vector<int64_t> input_sizes;
  for (const Tensor& t : tensors) {
    input_devices.push_back(t.device());
    input_sizes.push_back(t.size(dim));
  }
  ctx->saved_data["dim"] = dim;
  ctx->saved_data["input_devices"] = std::move(input_devices);
  ctx->saved_data["input_sizes"] = std::move(input_sizes);
  ctx->saved_data["unsqueezed"] = unsqueezed;
  return Variable(comm::gather(tensors, dim, target_device));
}

variable_list Gather::backward(autograd::AutogradContext* ctx, variable_list grad_outputs) {
  variable_list grads = Scatter::apply(ctx->get<std::vector<Device>>("input_devices"),
                                       std::optional<std::vector<int64_t>>(
                                           ctx->get<std::vector<int64_t>>("input_sizes")),
                                       ctx->get<int64_t>("dim"), grad_outputs[0]);
  if (ctx->get<bool>("unsqueezed")) {
    for (Variable& g : grads) g = g.select(0, 0);
  }
  return after_nones(2, std::move(grads));
}

}  // namespace torchlet::parallel
