#pragma once

// Full backward hooks (PyTorch's register_full_backward_hook), built on
// custom autograd functions. See Note [Full backward hooks].

#include <array>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

#include "autograd/custom_function.h"
#include "nn/hooks.h"

namespace torchlet::nn {

// Note [Full backward hooks]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// As in PyTorch's BackwardHook, a call of a module with backward hooks wraps
// the Variable arguments of forward in one identity function and its
// Variable outputs in another; both share a per-call BackwardHookState. In
// backward, the output function's node runs first (it was recorded last) and
// stores grad_output; the input function's node then receives grad_input,
// runs the hooks — which may assign to grad_input — and passes on what they
// leave. As PyTorch 1.13 materializes the grads of its input function, an
// input that got no gradient (it does not require grad, or the outputs do not
// depend on it) appears in grad_input as zeros, and an input requiring grad
// receives those zeros; grad_output keeps undefined entries for outputs that
// got none (PyTorch's None). When no input requires grad, the input function
// records nothing, so the hooks run from the output node with undefined
// grad_input (None in PyTorch). The hooks are
// those registered when the module was called; a call's state is its own, so
// concurrent calls do not share anything mutable.

namespace detail {

/// What one call of a module with backward hooks shares between its two
/// identity functions.
class BackwardHookState : public std::enable_shared_from_this<BackwardHookState> {
 public:
  BackwardHookState(Module& module, std::shared_ptr<const HookList::Entries> hooks);

  variable_list forward_inputs(autograd::AutogradContext* ctx, variable_list inputs);
  variable_list forward_outputs(autograd::AutogradContext* ctx, variable_list outputs);
  static variable_list backward_inputs(autograd::AutogradContext* ctx, variable_list grads);
  static variable_list backward_outputs(autograd::AutogradContext* ctx, variable_list grads);
  /// Thrown when a module with backward hooks returns no Variables.
  [[noreturn]] void unsupported_output(const char* type_name) const;

 private:
  void run_hooks(variable_list& grad_input);

  std::shared_ptr<Module> module_;
  std::shared_ptr<const HookList::Entries> hooks_;
  size_t num_inputs_ = 0;
  bool run_at_output_ = true;
  variable_list grad_outputs_;
};

struct BackwardHookInputs : autograd::Function<BackwardHookInputs> {
  static constexpr const char* name = "BackwardHookFunctionBackward";
  template <typename... V>
  static variable_list forward(autograd::AutogradContext* ctx,
                               const std::shared_ptr<BackwardHookState>& state, const V&... xs) {
    return state->forward_inputs(ctx, {xs...});
  }
  static variable_list backward(autograd::AutogradContext* ctx, variable_list grads) {
    return BackwardHookState::backward_inputs(ctx, std::move(grads));
  }
};

struct BackwardHookOutputs : autograd::Function<BackwardHookOutputs> {
  static constexpr const char* name = "BackwardHookFunctionBackward";
  template <typename... V>
  static variable_list forward(autograd::AutogradContext* ctx,
                               const std::shared_ptr<BackwardHookState>& state, const V&... xs) {
    return state->forward_outputs(ctx, {xs...});
  }
  static variable_list backward(autograd::AutogradContext* ctx, variable_list grads) {
    return BackwardHookState::backward_outputs(ctx, std::move(grads));
  }
};

/// Positions of the Variable elements of std::tuple type `Tuple`.
template <typename Tuple, size_t... I>
constexpr auto variable_positions(std::index_sequence<I...>) {
  constexpr bool is_variable[] = {false, std::is_same_v<std::tuple_element_t<I, Tuple>, Variable>...};
  constexpr size_t count = (size_t{0} + ... + (is_variable[I + 1] ? 1 : 0));
  std::array<size_t, count> positions{};
  size_t k = 0;
  for (size_t i = 0; i < sizeof...(I); ++i) {
    if (is_variable[i + 1]) positions[k++] = i;
  }
  return positions;
}

template <typename Tuple>
inline constexpr auto kVariablePositions =
    variable_positions<Tuple>(std::make_index_sequence<std::tuple_size_v<Tuple>>());

/// Passes the Variable elements of `values` through function F, in place.
template <typename F, typename Tuple, size_t... J>
void wrap_variables(const std::shared_ptr<BackwardHookState>& state, Tuple& values,
                    std::index_sequence<J...>) {
  constexpr auto& positions = kVariablePositions<Tuple>;
  if constexpr (sizeof...(J) == 0) {
    (void)state;
    (void)values;
  } else {
    variable_list wrapped = F::apply(state, std::get<positions[J]>(values)...);
    ((std::get<positions[J]>(values) = std::move(wrapped[J])), ...);
  }
}

template <typename F, typename Tuple>
void wrap_variables(const std::shared_ptr<BackwardHookState>& state, Tuple& values) {
  wrap_variables<F>(state, values,
                    std::make_index_sequence<std::tuple_size_v<std::decay_t<decltype(
                        kVariablePositions<Tuple>)>>>());
}

template <typename T>
struct is_tuple : std::false_type {};
template <typename... T>
struct is_tuple<std::tuple<T...>> : std::true_type {};

/// Starts a call's backward hooks: wraps the Variable inputs.
template <typename Inputs>
std::shared_ptr<BackwardHookState> hook_inputs(Module& module, Inputs& inputs,
                                               std::shared_ptr<const HookList::Entries> hooks) {
  auto state = std::make_shared<BackwardHookState>(module, std::move(hooks));
  wrap_variables<BackwardHookInputs>(state, inputs);
  return state;
}

/// Finishes a call's backward hooks: wraps the Variable outputs.
template <typename Output>
void hook_outputs(const std::shared_ptr<BackwardHookState>& state, Output& output) {
  if constexpr (std::is_same_v<Output, Variable>) {
    output = BackwardHookOutputs::apply(state, output)[0];
  } else if constexpr (is_tuple<Output>::value) {
    if (kVariablePositions<Output>.size() == 0) state->unsupported_output(typeid(Output).name());
    wrap_variables<BackwardHookOutputs>(state, output);
  } else {
    state->unsupported_output(typeid(Output).name());
  }
}

}  // namespace detail
}  // namespace torchlet::nn
