#pragma once

// Holders (libtorch's TORCH_MODULE style) and the call of a module: hooks
// around forward. See Note [Calling a module].

#include <memory>
#include <ostream>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "nn/backward_hook.h"
#include "nn/module.h"

namespace torchlet::nn {

// Note [Calling a module]
// ~~~~~~~~~~~~~~~~~~~~~~~
// `call(module, args...)` is PyTorch's `module(*args)`: with no hooks it is
// exactly `module.forward(args...)`; with hooks it packs the arguments into a
// std::tuple of forward's parameter types (decayed), runs the pre-hooks on it,
// wraps its Variables for backward hooks, calls forward on its elements, runs
// the forward hooks on the output, then wraps the output's Variables. A
// holder's call operator (`layer(x)`) is call(*layer, x); Sequential calls its
// modules the same way, so every layer and user module runs its hooks.

namespace detail {

template <typename M, typename = void>
struct forward_params {
  using type = void;
};
template <typename M>
struct forward_params<M, std::void_t<decltype(&M::forward)>> {
  using type = typename callable_args<decltype(&M::forward)>::type;
};

/// std::tuple of forward's parameter types when forward is one function
/// taking as many arguments as given; else of the arguments' types.
template <typename Params, typename... Args>
struct call_inputs {
  using type = std::tuple<std::decay_t<Args>...>;
};
template <typename... P, typename... Args>
struct call_inputs<std::tuple<P...>, Args...> {
  using type = std::conditional_t<sizeof...(P) == sizeof...(Args), std::tuple<std::decay_t<P>...>,
                                  std::tuple<std::decay_t<Args>...>>;
};

template <typename M, typename Inputs>
auto forward_on(M& module, Inputs& inputs) {
  return std::apply([&module](auto&... xs) { return module.forward(xs...); }, inputs);
}

template <typename M, typename... Args>
auto call_with_hooks(M& module, Args&&... args) {
  using Inputs = typename call_inputs<typename forward_params<M>::type, Args...>::type;
  using Output = decltype(forward_on(module, std::declval<Inputs&>()));
  const auto pre_hooks = module.forward_pre_hooks().snapshot();
  const auto hooks = module.forward_hooks().snapshot();
  for (const auto& entry : *pre_hooks) {
    check_hook_fits(module, entry.second, typeid(Inputs), typeid(void), "forward pre-hook");
  }
  for (const auto& entry : *hooks) {
    check_hook_fits(module, entry.second, typeid(Inputs), typeid(Output), "forward hook");
  }
  Inputs inputs(std::forward<Args>(args)...);
  for (const auto& entry : *pre_hooks) entry.second.run(module, &inputs, nullptr);
  std::shared_ptr<BackwardHookState> backward;
  if (!module.backward_hooks().empty()) {
    backward = hook_inputs(module, inputs, module.backward_hooks().snapshot());
  }
  if constexpr (std::is_void_v<Output>) {
    forward_on(module, inputs);
  } else {
    Output output = forward_on(module, inputs);
    for (const auto& entry : *hooks) entry.second.run(module, &inputs, &output);
    if (backward) hook_outputs(backward, output);
    return output;
  }
}

}  // namespace detail

/// Calls `module` as PyTorch's `module(*args)`: hooks, then forward.
template <typename M, typename... Args>
auto call(M& module, Args&&... args) {
  if (!module.has_hooks()) {
    using Output = decltype(module.forward(std::forward<Args>(args)...));
    return static_cast<std::decay_t<Output>>(module.forward(std::forward<Args>(args)...));
  }
  return detail::call_with_hooks(module, std::forward<Args>(args)...);
}

/// A shared handle to a module of type Contained, used by value as libtorch's
/// holders are: `Linear fc(3, 4); fc->weight; fc(x); std::cout << fc;`.
/// TORCHLET_MODULE(Name) declares the holder `Name` over `NameImpl`.
template <typename Contained>
class ModuleHolder {
 public:
  using ContainedType = Contained;

  /// A default-constructed module.
  ModuleHolder() : impl_(std::make_shared<Contained>()) {}
  /// An empty holder.
  ModuleHolder(std::nullptr_t) {}  // NOLINT: implicit, as libtorch's
  /// Holds an existing module.
  ModuleHolder(std::shared_ptr<Contained> module) : impl_(std::move(module)) {}  // NOLINT
  /// Constructs the module from the arguments.
  template <typename Head, typename... Tail,
            typename = std::enable_if_t<(sizeof...(Tail) > 0) ||
                                        (!std::is_base_of_v<ModuleHolder, std::decay_t<Head>> &&
                                         !std::is_constructible_v<std::shared_ptr<Contained>, Head>)>>
  explicit ModuleHolder(Head&& head, Tail&&... tail)
      : impl_(std::make_shared<Contained>(std::forward<Head>(head), std::forward<Tail>(tail)...)) {}

  Contained* operator->() const { return get(); }
  Contained& operator*() const { return *get(); }
  Contained* get() const {
    TORCHLET_CHECK(impl_ != nullptr, "Accessing an empty ModuleHolder");
    return impl_.get();
  }
  const std::shared_ptr<Contained>& ptr() const { return impl_; }
  bool is_empty() const { return impl_ == nullptr; }
  explicit operator bool() const { return !is_empty(); }

  /// Indexes the module (containers: by position or by name).
  template <typename Index>
  decltype(auto) operator[](Index&& index) const {
    return (*get())[std::forward<Index>(index)];
  }

  /// Calls the module: hooks, then forward (Note [Calling a module]).
  template <typename... Args>
  auto operator()(Args&&... args) const {
    return call(*get(), std::forward<Args>(args)...);
  }

 private:
  std::shared_ptr<Contained> impl_;
};

template <typename Contained>
std::ostream& operator<<(std::ostream& out, const ModuleHolder<Contained>& holder) {
  return out << static_cast<const Module&>(*holder);
}

template <typename M>
std::shared_ptr<M> Module::register_module(std::string name, ModuleHolder<M> holder) {
  register_child(std::move(name), holder.ptr());
  return holder.ptr();
}

/// Any module, given as a holder or a shared_ptr (what containers take).
class ModuleRef {
 public:
  template <typename M>
  ModuleRef(const ModuleHolder<M>& holder) : module_(holder.ptr()) {}  // NOLINT: implicit
  template <typename M, typename = std::enable_if_t<std::is_base_of_v<Module, M>>>
  ModuleRef(std::shared_ptr<M> module) : module_(std::move(module)) {}  // NOLINT: implicit
  const std::shared_ptr<Module>& ptr() const { return module_; }

 private:
  std::shared_ptr<Module> module_;
};

}  // namespace torchlet::nn

/// Declares `Name`, a ModuleHolder over `NameImpl` (libtorch's TORCH_MODULE).
#define TORCHLET_MODULE(Name)                                        \
  class Name : public ::torchlet::nn::ModuleHolder<Name##Impl> {     \
   public:                                                           \
    using ::torchlet::nn::ModuleHolder<Name##Impl>::ModuleHolder;    \
    using Impl = Name##Impl;                                         \
  }
