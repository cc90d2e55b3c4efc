#include "nn/backward_hook.h"

#include <cxxabi.h>

#include <cstdlib>
#include <string>

#include "nn/module.h"
#include "tensor/error.h"

namespace torchlet::nn::detail {
namespace {

const char kStateKey[] = "backward_hook_state";

BackwardHookState& state_of(autograd::AutogradContext* ctx) {
  return *ctx->get<std::shared_ptr<BackwardHookState>>(kStateKey);
}

std::shared_ptr<Module> handle_of(Module& module) {
  if (auto owned = module.weak_from_this().lock()) return owned;
  return std::shared_ptr<Module>(std::shared_ptr<Module>(), &module);
}

}  // namespace

BackwardHookState::BackwardHookState(Module& module,
                                     std::shared_ptr<const HookList::Entries> hooks)
    : module_(handle_of(module)), hooks_(std::move(hooks)) {}

variable_list BackwardHookState::forward_inputs(autograd::AutogradContext* ctx,
                                                variable_list inputs) {
  num_inputs_ = inputs.size();
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (ctx->needs_input_grad(i + 1)) run_at_output_ = false;
  }
  variable_list constant;
  for (const Variable& input : inputs) {
    if (!input.requires_grad()) constant.push_back(input);
  }
  ctx->mark_non_differentiable(constant);
  // Grads stay materialized (the default), as in PyTorch's
  // BackwardHookFunction: an input no gradient reached, whether or not it
  // requires grad, shows in grad_input as zeros of its shape and dtype.
  ctx->saved_data[kStateKey] = shared_from_this();
  return inputs;
}

variable_list BackwardHookState::forward_outputs(autograd::AutogradContext* ctx,
                                                 variable_list outputs) {
  ctx->set_materialize_grads(false);
  ctx->saved_data[kStateKey] = shared_from_this();
  return outputs;
}

variable_list BackwardHookState::backward_inputs(autograd::AutogradContext* ctx,
                                                 variable_list grads) {
  BackwardHookState& state = state_of(ctx);
  state.run_hooks(grads);
  grads.insert(grads.begin(), Variable());
  return grads;
}

variable_list BackwardHookState::backward_outputs(autograd::AutogradContext* ctx,
                                                  variable_list grads) {
  BackwardHookState& state = state_of(ctx);
  state.grad_outputs_ = grads;
  if (state.run_at_output_) {
    variable_list grad_input(state.num_inputs_);
    state.run_hooks(grad_input);
  }
  grads.insert(grads.begin(), Variable());
  return grads;
}

void BackwardHookState::run_hooks(variable_list& grad_input) {
  const size_t expected = grad_input.size();
  for (const auto& entry : *hooks_) {
    entry.second.run(*module_, &grad_input, &grad_outputs_);
    TORCHLET_CHECK(grad_input.size() == expected,
                   "Backward hook returned an invalid number of grad_input, got ",
                   grad_input.size(), ", but expected ", expected);
  }
}

void BackwardHookState::unsupported_output(const char* type_name) const {
  int status = 0;
  char* demangled = abi::__cxa_demangle(type_name, nullptr, nullptr, &status);
  const std::string name = status == 0 && demangled != nullptr ? demangled : type_name;
  std::free(demangled);
  ::torchlet::detail::throw_error(::torchlet::detail::str_cat(
      module_->name(),
      ": full backward hooks need forward to return a Variable or a std::tuple holding "
      "Variables, not ",
      name));
}

}  // namespace torchlet::nn::detail
