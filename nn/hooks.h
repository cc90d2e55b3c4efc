#pragma once

// Module hooks with their argument types erased. See Note [Hook type erasure].

#include <functional>
#include <memory>
#include <tuple>
#include <type_traits>
#include <typeindex>
#include <utility>
#include <vector>

#include "autograd/variable.h"

namespace torchlet::nn {

class Module;
namespace detail {
class HookList;
}  // namespace detail

// Note [Hook type erasure]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// A forward signature is whatever a module's author wrote, so a hook is a
// typed callable whose parameter list names the inputs it expects:
//
//   pre-hook:     void(Module&, In&... inputs)            may assign to inputs
//   forward hook: void(Module&, const In&... inputs, Out& output)
//                                                          may assign to output
//
// Registration deduces In... and Out from the callable (a lambda or function
// pointer; not a generic lambda) and stores it behind one erased type: the
// type_index of std::tuple<In...> and of Out, and a thunk taking pointers to
// such a tuple and output. A call of the module packs its arguments into the
// tuple of the types its forward declares (or, for an overloaded or template
// forward, of the arguments given), so a hook fits when those types match;
// when they do not, the call throws torchlet::Error naming both signatures
// before anything runs. Backward hooks have one fixed signature
// (BackwardHook) and need no erasure.
//
// Each module holds its hooks in lists that are replaced, never mutated, on
// registration and removal (copy on write): a call takes a snapshot under a
// mutex and runs it without holding the lock, so replicas calling one module
// from several threads, or a hook removing itself, never race.

/// Removes the hook it was returned for (PyTorch's RemovableHandle).
class RemovableHandle {
 public:
  RemovableHandle() = default;
  /// Removes the hook; a no-op if it was already removed or the module is gone.
  void remove();

 private:
  friend class detail::HookList;
  RemovableHandle(std::weak_ptr<void> list, int id) : list_(std::move(list)), id_(id) {}
  std::weak_ptr<void> list_;
  int id_ = -1;
};

/// A full backward hook: sees the gradients of the module's Variable inputs
/// (`grad_input`, undefined where no gradient flows) given those of its
/// outputs, and may assign to grad_input to replace what flows on.
using BackwardHook =
    std::function<void(Module& module, variable_list& grad_input, const variable_list& grad_output)>;

namespace detail {

/// A hook behind one type: see Note [Hook type erasure].
struct ErasedHook {
  std::type_index inputs = typeid(void);
  std::type_index output = typeid(void);
  std::function<void(Module& module, void* inputs, void* output)> run;
};

/// An ordered, copy-on-write list of hooks (see Note [Hook type erasure]).
/// Copying a module copies its hooks into a new list.
class HookList {
 public:
  using Entries = std::vector<std::pair<int, ErasedHook>>;
  struct State;

  HookList();
  HookList(const HookList& other);
  HookList& operator=(const HookList& other);
  ~HookList();

  RemovableHandle add(ErasedHook hook);
  /// Makes this list one with `other`: hooks added to or removed from
  /// either are seen by both (DataParallel's replicas share the original's).
  void share(const HookList& other) { state_ = other.state_; }
  /// The hooks at this moment, in registration order.
  std::shared_ptr<const Entries> snapshot() const;
  bool empty() const;

 private:
  std::shared_ptr<State> state_;
};

/// Throws torchlet::Error unless `hook` takes `inputs` (and `output`).
void check_hook_fits(const Module& module, const ErasedHook& hook, std::type_index inputs,
                     std::type_index output, const char* kind);

template <typename F>
struct callable_args : callable_args<decltype(&F::operator())> {};
template <typename R, typename... A>
struct callable_args<R (*)(A...)> {
  using type = std::tuple<A...>;
};
template <typename C, typename R, typename... A>
struct callable_args<R (C::*)(A...)> {
  using type = std::tuple<A...>;
};
template <typename C, typename R, typename... A>
struct callable_args<R (C::*)(A...) const> {
  using type = std::tuple<A...>;
};

template <typename Args, size_t... I>
using hook_inputs_t = std::tuple<std::decay_t<std::tuple_element_t<I + 1, Args>>...>;

template <typename F, typename Args, size_t... I>
ErasedHook make_pre_hook(F f, std::index_sequence<I...>) {
  using Inputs = hook_inputs_t<Args, I...>;
  ErasedHook hook;
  hook.inputs = typeid(Inputs);
  hook.run = [f = std::move(f)](Module& module, void* inputs, void*) {
    auto& values = *static_cast<Inputs*>(inputs);
    f(module, std::get<I>(values)...);
  };
  return hook;
}

template <typename F, typename Args, size_t... I>
ErasedHook make_forward_hook(F f, std::index_sequence<I...>) {
  using Inputs = hook_inputs_t<Args, I...>;
  using Output = std::decay_t<std::tuple_element_t<sizeof...(I) + 1, Args>>;
  ErasedHook hook;
  hook.inputs = typeid(Inputs);
  hook.output = typeid(Output);
  hook.run = [f = std::move(f)](Module& module, void* inputs, void* output) {
    auto& values = *static_cast<Inputs*>(inputs);
    f(module, std::get<I>(values)..., *static_cast<Output*>(output));
  };
  return hook;
}

template <typename F>
ErasedHook erase_pre_hook(F f) {
  using Args = typename callable_args<std::decay_t<F>>::type;
  static_assert(std::tuple_size_v<Args> >= 1, "a forward pre-hook takes (Module&, inputs...)");
  return make_pre_hook<std::decay_t<F>, Args>(
      std::move(f), std::make_index_sequence<std::tuple_size_v<Args> - 1>());
}

template <typename F>
ErasedHook erase_forward_hook(F f) {
  using Args = typename callable_args<std::decay_t<F>>::type;
  static_assert(std::tuple_size_v<Args> >= 2,
                "a forward hook takes (Module&, inputs..., output)");
  return make_forward_hook<std::decay_t<F>, Args>(
      std::move(f), std::make_index_sequence<std::tuple_size_v<Args> - 2>());
}

}  // namespace detail
}  // namespace torchlet::nn
