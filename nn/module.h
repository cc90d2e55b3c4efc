#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "autograd/variable.h"
#include "nn/hooks.h"
#include "nn/parameter.h"
#include "nn/serialize/state_dict.h"

namespace torchlet::nn {

template <typename Contained>
class ModuleHolder;

/// What load_state_dict(strict = false) could not match (PyTorch's
/// _IncompatibleKeys).
struct IncompatibleKeys {
  std::vector<std::string> missing_keys;
  std::vector<std::string> unexpected_keys;
};

/// One registered parameter or buffer of a module tree (see
/// Note [Registered slots]).
struct Slot {
  std::string name;
  Variable variable;
  bool is_buffer = false;
};

// Note [Registered slots]
// ~~~~~~~~~~~~~~~~~~~~~~~
// A module registers its parameters and buffers by name, and keeps in its
// registry the very handle it returns: `weight = register_parameter(...)`
// leaves the member and the registry slot as two handles of one
// VariableImpl. Anything done through a slot — set_data(), to(), loading a
// state_dict, autograd's Variable::rebind() — is therefore seen by the
// member, and the other way round. Assigning a *new* Variable to the member
// would split the two, so replace data with set_data() (PyTorch's
// `p.data = ...`), never by assignment.
//
// DataParallel keeps one replica per device and, on every call, re-binds the
// replica's slots to the broadcast parameters. slots() lists them for a whole
// tree in one fixed order (named_parameters() order, then named_buffers()
// order, each Variable once), which is the same for a module and its clone()
// — so slot i of a replica corresponds to slot i of the original.
//
// Buffers are Variables too (not requiring grad) so that they can be
// re-bound the same way; state_dict() and buffers() hand out their data.

namespace detail {

/// A value kept with one module object and destroyed with it. Copying or
/// moving a module (clone() copy-constructs one) leaves the copy's empty
/// and the original's as it was: it belongs to that object alone.
class KeptWithModule {
 public:
  KeptWithModule() = default;
  KeptWithModule(const KeptWithModule&) noexcept {}
  KeptWithModule(KeptWithModule&&) noexcept {}
  KeptWithModule& operator=(const KeptWithModule&) noexcept { return *this; }
  KeptWithModule& operator=(KeptWithModule&&) noexcept { return *this; }
  std::shared_ptr<void> value;
};

/// Within its scope, clone() on this thread copies no gradients: the
/// clone's parameters and buffers have none. replicate() builds replicas
/// this way, since they would drop the gradients at once and another
/// thread's backward may be accumulating into the original's meanwhile.
class CloneWithoutGradients {
 public:
  CloneWithoutGradients();
  ~CloneWithoutGradients();
  CloneWithoutGradients(const CloneWithoutGradients&) = delete;
  CloneWithoutGradients& operator=(const CloneWithoutGradients&) = delete;

 private:
  bool previous_;
};

}  // namespace detail

/// The base of every layer, container and user module (torch.nn.Module).
///
/// A module registers its state in its constructor — parameters, buffers and
/// child modules, each by a name without dots — and implements `forward`
/// with any signature. Calling it through its holder (`layer(x)`) runs its
/// hooks around forward; calling forward() directly skips them.
class Module : public std::enable_shared_from_this<Module> {
 public:
  using NamedVariable = std::pair<std::string, Variable>;
  using NamedModule = std::pair<std::string, std::shared_ptr<Module>>;

  /// A module named after its class (see name()).
  Module() = default;
  /// A module whose repr and error messages use `name`.
  explicit Module(std::string name) : name_(std::move(name)) {}
  virtual ~Module() = default;
  Module(const Module&) = default;
  Module& operator=(const Module&) = default;
  Module(Module&&) = default;
  Module& operator=(Module&&) = default;

  /// The class name PyTorch would print: the one given to the constructor,
  /// else the C++ class name without namespaces and without a trailing
  /// "Impl" (LinearImpl prints as Linear).
  virtual std::string name() const;

  // ---- Registration --------------------------------------------------------
  /// Registers `data` as a new Parameter; returns it (keep it in a member).
  /// An undefined `data` registers PyTorch's None (skipped everywhere).
  Parameter register_parameter(std::string name, Tensor data, bool requires_grad = true);
  /// Registers the handle `parameter` itself (shared, not copied), setting
  /// its requires_grad.
  Parameter register_parameter(std::string name, Variable parameter, bool requires_grad = true);
  /// Registers a buffer: state that is not learned. Persistent buffers are
  /// part of state_dict().
  Variable register_buffer(std::string name, Tensor data, bool persistent = true);
  Variable register_buffer(std::string name, Variable buffer, bool persistent = true);
  /// Registers a child module; returns it. A module may be registered in
  /// several places (shared), but not below itself.
  template <typename M>
  std::shared_ptr<M> register_module(std::string name, std::shared_ptr<M> module) {
    register_child(std::move(name), module);
    return module;
  }
  /// Registers the holder's module; returns it (a holder converts from it).
  template <typename M>
  std::shared_ptr<M> register_module(std::string name, ModuleHolder<M> holder);

  // ---- Traversal (PyTorch's order) ----------------------------------------
  /// Own parameters in registration order, then each child's, depth first;
  /// a parameter registered twice appears once.
  std::vector<Variable> parameters(bool recurse = true) const;
  /// As parameters(), with dotted names. With `remove_duplicate` false
  /// (PyTorch 2's argument), a parameter appears once per registration:
  /// under each name, in each registration of a shared submodule.
  std::vector<NamedVariable> named_parameters(bool recurse = true,
                                              bool remove_duplicate = true) const;
  std::vector<Variable> buffers(bool recurse = true) const;
  std::vector<NamedVariable> named_buffers(bool recurse = true,
                                           bool remove_duplicate = true) const;
  std::vector<std::shared_ptr<Module>> children() const;
  std::vector<NamedModule> named_children() const;
  /// This module, then every descendant once (pre-order).
  std::vector<std::shared_ptr<Module>> modules() const;
  /// Starts with ("", this module); names are dotted paths. With
  /// `remove_duplicate` false, a submodule registered in several places
  /// appears once per registration, under each path (and so do its own
  /// submodules).
  std::vector<NamedModule> named_modules(const std::string& prefix = "",
                                         bool remove_duplicate = true) const;
  /// Every parameter then every buffer of the tree, each once, in a fixed
  /// order (see Note [Registered slots]).
  std::vector<Slot> slots() const;
  /// A number that changes whenever any module registers, replaces or drops
  /// a parameter, buffer or child: while it is unchanged, what modules(),
  /// parameters(), buffers() and slots() list (which Variables, of which
  /// modules) is unchanged too, so a cache of them stays valid. The
  /// Variables' data may still change (set_data, to()).
  static uint64_t registry_generation();

  /// The submodule, parameter or buffer at a dotted path ("" is this module).
  std::shared_ptr<Module> get_submodule(const std::string& target) const;
  Variable get_parameter(const std::string& target) const;
  Variable get_buffer(const std::string& target) const;

  /// This module as an M, or null when it is not one.
  template <typename M>
  M* as() {
    return dynamic_cast<M*>(this);
  }

  // ---- Modes and state -------------------------------------------------------
  /// Sets training mode on this module and every descendant.
  virtual void train(bool on = true);
  void eval() { train(false); }
  bool is_training() const { return training_; }
  /// Calls `fn` on every descendant, then on this module (PyTorch's order).
  void apply(const std::function<void(Module&)>& fn);
  /// Sets requires_grad on every parameter.
  void requires_grad_(bool requires_grad = true);
  /// Clears every parameter's gradient: set to undefined, or zeroed in place.
  /// The default follows PyTorch 2.0 (true), not 1.13 (false).
  void zero_grad(bool set_to_none = true);
  /// Moves every parameter, its gradient and every buffer to `device`, in
  /// place: each Variable keeps its identity.
  void to(Device device);
  /// Converts floating-point parameters, gradients and buffers to `dtype`
  /// (a floating dtype), in place.
  void to(DType dtype);

  /// Parameters and persistent buffers by dotted name, sharing storage.
  StateDict state_dict() const;
  /// Copies `state_dict`'s values into this module's tensors (keeping their
  /// device and dtype). All or nothing: on a missing or unexpected key
  /// (when `strict`) or a size mismatch (always), throws PyTorch's message
  /// listing every problem and changes nothing. Returns the keys that did
  /// not match.
  IncompatibleKeys load_state_dict(const StateDict& state_dict, bool strict = true);

  /// A deep copy (on `device` when given). Supported by modules derived from
  /// Cloneable<Derived> and by the containers; others throw.
  virtual std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const;

  // ---- Printing ----------------------------------------------------------------
  /// The text inside this module's parentheses (PyTorch's extra_repr).
  virtual std::string extra_repr() const { return ""; }
  /// PyTorch's repr: name, extra_repr and the children, indented.
  virtual std::string repr() const;

  // ---- Hooks (run when the module is called, not by forward()) --------------------
  /// `hook(Module&, In&... inputs)` runs before forward and may assign new
  /// inputs. See Note [Hook type erasure].
  template <typename F>
  RemovableHandle register_forward_pre_hook(F hook) {
    return forward_pre_hooks_.add(detail::erase_pre_hook(std::move(hook)));
  }
  /// `hook(Module&, const In&... inputs, Out& output)` runs after forward and
  /// may assign a new output.
  template <typename F>
  RemovableHandle register_forward_hook(F hook) {
    return forward_hooks_.add(detail::erase_forward_hook(std::move(hook)));
  }
  /// Runs `hook` when the gradients of the module's Variable inputs are
  /// computed (PyTorch's register_full_backward_hook).
  RemovableHandle register_full_backward_hook(BackwardHook hook);

  /// The hook lists, for the call machinery (nn/module_holder.h).
  const detail::HookList& forward_pre_hooks() const { return forward_pre_hooks_; }
  const detail::HookList& forward_hooks() const { return forward_hooks_; }
  const detail::HookList& backward_hooks() const { return backward_hooks_; }
  /// Makes this module's hook lists the very lists of `source` (not
  /// copies), so hooks registered on `source` later run here too. For
  /// replicas (DataParallel), which run the original's hooks.
  void share_hooks(const Module& source);
  /// What parallel::replicate() keeps for this module object between calls
  /// (Note [Kept replicas] in parallel/replicate.h): destroyed with the
  /// module, never copied to a clone. Callers synchronize access.
  std::shared_ptr<void>& kept_replicas() { return kept_replicas_.value; }
  bool has_hooks() const {
    return !forward_pre_hooks_.empty() || !forward_hooks_.empty() || !backward_hooks_.empty();
  }

 protected:
  /// For Cloneable: drops every registration (before reset() re-creates them).
  void clear_registrations();
  /// For Cloneable: copies `source`'s parameter and buffer values (and
  /// gradients) into this module's freshly registered ones, and makes each
  /// child a clone of `source`'s child of the same name.
  void copy_state_from(const Module& source, const std::optional<Device>& device);
  /// For containers, whose registry is their only state: gives this (copied)
  /// module new parameters and buffers holding copies of the values, and
  /// cloned children.
  void deep_copy_registry(const std::optional<Device>& device);
  /// Replaces this module's contents by those of a clone of `source` (same
  /// class), keeping this object: a parent's handle to it stays valid.
  virtual void clone_from(const Module& source, const std::optional<Device>& device);

  /// Registers (or, with `replace`, replaces) a child.
  void register_child(std::string name, std::shared_ptr<Module> module, bool replace = false);
  /// Drops every child (containers rebuilding their numbering).
  void clear_children();
  /// The registries, in registration order (undefined entries included).
  const std::vector<NamedModule>& registered_children() const { return children_; }
  const std::vector<NamedVariable>& registered_parameters() const { return parameters_; }
  /// This module as a shared_ptr (non-owning when it is not owned by one).
  std::shared_ptr<Module> self() const;

 private:
  struct Buffer {
    std::string name;
    Variable value;
    bool persistent = true;
  };

  void check_new_name(const std::string& name, const char* kind) const;
  bool has_member(const std::string& name) const;
  const Variable* find_parameter(const std::string& name) const;
  const Buffer* find_buffer(const std::string& name) const;
  std::shared_ptr<Module> find_child(const std::string& name) const;
  void collect_state(const std::string& prefix, StateDict& out) const;
  void collect_named_modules(const std::string& prefix, std::vector<NamedModule>& out,
                             std::unordered_set<const Module*>* seen) const;
  std::pair<const Module*, std::string> resolve_owner(const std::string& target) const;
  void for_each_tensor(const std::function<void(const Variable&)>& fn) const;

  std::string name_;
  bool training_ = true;
  std::vector<NamedVariable> parameters_;
  std::vector<Buffer> buffers_;
  std::vector<NamedModule> children_;
  detail::HookList forward_pre_hooks_;
  detail::HookList forward_hooks_;
  detail::HookList backward_hooks_;
  detail::KeptWithModule kept_replicas_;

  friend class LoadStateDict;
};

/// PyTorch's repr of `module` (nested, indented).
std::ostream& operator<<(std::ostream& out, const Module& module);

}  // namespace torchlet::nn
