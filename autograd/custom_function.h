#pragma once

// Custom differentiable functions (torch.autograd.Function, libtorch's
// torch::autograd::Function<T>):
//
//   struct Square : Function<Square> {
//     static constexpr const char* name = "SquareBackward";  // optional
//     static Variable forward(AutogradContext* ctx, const Variable& x, double k) {
//       ctx->save_for_backward({x});
//       ctx->saved_data["k"] = k;
//       return x.mul(x).mul(k);
//     }
//     static variable_list backward(AutogradContext* ctx, variable_list grads) {
//       const Variable x = ctx->get_saved_variables()[0];
//       const double k = ctx->get<double>("k");
//       return {grads[0] * x * (2 * k), Variable()};  // one per forward argument
//     }
//   };
//   Variable y = Square::apply(x, 3.0);
//
// Arguments of type Variable become the node's inputs (with edges), and so
// does each element of a variable_list argument (as in libtorch), which lets
// a function take any number of inputs (Broadcast, Gather, ReduceAdd). Any
// other argument (numbers, strings, Tensors) is passed to forward unchanged
// and must get an undefined gradient. Positions count list elements one by
// one: forward(ctx, x, xs, k) with xs = {a, b} has arguments x=0, a=1, b=2,
// k=3, and backward returns four gradients.
// forward runs with grad mode off and returns a Variable or a variable_list;
// backward gets one gradient per forward output and returns one per forward
// argument. backward written with Variable ops is itself differentiable
// (create_graph), so double backward works.
//
// The node is named by T::name when T declares it, else by T's unqualified
// type name followed by "Backward" (grad_fn=<SquareBackward>). It runs on the
// device of the function's first output.

#include <any>
#include <cstddef>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "autograd/variable.h"

namespace torchlet::autograd {

class SavedVariable;

namespace detail {
class CustomFunctionNode;
class FunctionCall;
}  // namespace detail

/// What forward hands to backward, and how forward describes its outputs.
class AutogradContext {
 public:
  AutogradContext();
  ~AutogradContext();
  AutogradContext(const AutogradContext&) = delete;
  AutogradContext& operator=(const AutogradContext&) = delete;

  /// Arbitrary non-Variable state for backward (sizes, scalars, flags),
  /// by name. Prefer save_for_backward for Variables: those stored here are
  /// neither version-checked nor released after backward, and storing one of
  /// the function's outputs here keeps the graph alive (a reference cycle).
  std::unordered_map<std::string, std::any> saved_data;

  /// saved_data[key] as a V; throws torchlet::Error naming the key when it
  /// is missing or holds another type.
  template <typename V>
  const V& get(const std::string& key) const {
    const V* value = std::any_cast<V>(&saved_entry(key));
    if (value == nullptr) wrong_saved_type(key, typeid(V).name());
    return *value;
  }

  /// Saves Variables (inputs, outputs or intermediates) for backward. Called
  /// in forward; each is recorded with its version when forward returns.
  void save_for_backward(variable_list to_save);
  /// The saved Variables, in order. Throws if one was modified in place
  /// since forward, or if a backward without retain_graph freed them.
  variable_list get_saved_variables() const;
  /// Whether forward argument `i` (its position among all arguments) is a
  /// Variable whose gradient is needed; always false when nothing records.
  bool needs_input_grad(size_t i) const;
  /// Outputs that get no gradient: they do not require grad, and backward
  /// receives zeros (or undefined, see set_materialize_grads) for them.
  void mark_non_differentiable(const variable_list& outputs);
  /// Inputs forward modified in place and returns: they are rebased onto
  /// this function's node, as an in-place op would rebase them.
  void mark_dirty(const variable_list& inputs);
  /// Whether backward receives zeros (true, the default) or undefined
  /// Variables for outputs no gradient reached.
  void set_materialize_grads(bool value) { materialize_grads_ = value; }

 private:
  friend class detail::CustomFunctionNode;
  friend class detail::FunctionCall;

  const std::any& saved_entry(const std::string& key) const;
  [[noreturn]] static void wrong_saved_type(const std::string& key, const char* type);

  const detail::CustomFunctionNode* owner_ = nullptr;
  variable_list to_save_;  // until forward returns
  std::vector<SavedVariable> saved_variables_;
  bool has_freed_buffers_ = false;
  std::vector<bool> needs_input_grad_;
  std::unordered_set<const VariableImpl*> non_differentiable_;
  std::unordered_set<const VariableImpl*> dirty_inputs_;
  bool materialize_grads_ = true;
};


namespace detail {

using BackwardFn = variable_list (*)(AutogradContext* ctx, variable_list grad_outputs);

/// One Function<T>::apply call: collects the arguments, creates the node
/// whose context forward fills, and wraps forward's outputs.
class FunctionCall {
 public:
  FunctionCall(std::string name, BackwardFn backward);
  ~FunctionCall();
  FunctionCall(const FunctionCall&) = delete;
  FunctionCall& operator=(const FunctionCall&) = delete;

  void add_argument(const Variable& v) { add_variable(v); }
  /// Each element is an argument of its own.
  void add_argument(const variable_list& vs) { add_variables(vs); }
  template <typename U>
  void add_argument(const U&) {
    add_non_variable();
  }
  /// After the arguments: sets up recording; returns the context for forward.
  AutogradContext* begin();
  /// Connects forward's outputs to the node (when recording) and saves the
  /// context's Variables.
  Variable finish(Variable output);
  variable_list finish(variable_list outputs);

 private:
  void add_variable(const Variable& v);
  void add_variables(const variable_list& vs);
  void add_non_variable();

  std::shared_ptr<CustomFunctionNode> node_;
  variable_list inputs_;
  std::vector<bool> is_variable_;
  bool record_ = false;
};

/// T's unqualified, demangled type name + "Backward".
std::string default_function_name(const char* mangled_type_name);

template <typename T, typename = void>
struct has_name : std::false_type {};
template <typename T>
struct has_name<T, std::void_t<decltype(T::name)>> : std::true_type {};

template <typename T>
std::string function_name() {
  if constexpr (has_name<T>::value) {
    return std::string(T::name);
  } else {
    return default_function_name(typeid(T).name());
  }
}

template <typename T>
variable_list call_backward(AutogradContext* ctx, variable_list grad_outputs) {
  return T::backward(ctx, std::move(grad_outputs));
}

}  // namespace detail

/// Base of a custom function T (CRTP); see the top of this file.
template <class T>
struct Function {
  template <typename... Args>
  static auto apply(Args&&... args) {
    detail::FunctionCall call(detail::function_name<T>(), &detail::call_backward<T>);
    (call.add_argument(args), ...);
    AutogradContext* ctx = call.begin();
    using Output = decltype(T::forward(ctx, std::forward<Args>(args)...));
    static_assert(std::is_same_v<Output, Variable> || std::is_same_v<Output, variable_list>,
                  "forward must return a Variable or a variable_list");
    Output output;
    {
      AutoGradMode no_grad(false);
      output = T::forward(ctx, std::forward<Args>(args)...);
    }
    return call.finish(std::move(output));
  }
};

}  // namespace torchlet::autograd
