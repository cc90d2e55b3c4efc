#include "nn/module.h"

#include <cxxabi.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <ostream>
#include <sstream>
#include <unordered_set>

#include "autograd/grad_mode.h"
#include "tensor/error.h"

namespace torchlet::nn {
namespace {

std::string class_name(const std::type_info& type) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  std::string name = status == 0 && demangled != nullptr ? demangled : type.name();
  std::free(demangled);
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<') ++depth;
    if (name[i] == '>') --depth;
    if (depth == 0 && name.compare(i, 2, "::") == 0) start = i + 2;
  }
  name = name.substr(start);
  const std::string suffix = "Impl";
  if (name.size() > suffix.size() &&
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
    name.resize(name.size() - suffix.size());
  }
  return name;
}

/// PyTorch's _addindent: indents every line but the first.
std::string add_indent(const std::string& text, int spaces) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '\n') out.append(spaces, ' ');
  }
  return out;
}

/// Python's text.split('\n'): n newlines make n + 1 lines, so a trailing
/// newline leaves an empty last line (PyTorch's __repr__ keeps it).
std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back(text.substr(start, end - start));
  }
  lines.push_back(text.substr(start));
  return lines;
}

/// A shape as PyTorch prints a torch.Size: "torch.Size([4, 2])".
std::string torch_size(IntArrayRef sizes) { return "torch.Size(" + shape_str(sizes) + ")"; }

std::string join_keys(const std::vector<std::string>& keys) {
  std::string out;
  for (size_t i = 0; i < keys.size(); ++i) out += (i ? ", \"" : "\"") + keys[i] + "\"";
  return out;
}

Tensor moved(const Tensor& t, const std::optional<Device>& device) {
  return device ? t.to(*device).clone() : t.clone();
}

}  // namespace

std::string Module::name() const { return name_.empty() ? class_name(typeid(*this)) : name_; }

// ---- Registration ------------------------------------------------------------

bool Module::has_member(const std::string& name) const {
  return find_parameter(name) != nullptr || find_buffer(name) != nullptr ||
         find_child(name) != nullptr || name == "training";
}

void Module::check_new_name(const std::string& name, const char* kind) const {
  TORCHLET_CHECK(name.find('.') == std::string::npos, kind, " name can't contain \".\"",
                 std::string(kind) == "module" ? ", got: " + name : "");
  TORCHLET_CHECK(!name.empty(), kind, " name can't be empty string \"\"");
  TORCHLET_CHECK(!has_member(name), "attribute '", name, "' already exists");
}

namespace {

// Module::registry_generation(): bumped after every change to any module's
// registries.
std::atomic<uint64_t> registry_generation_counter{0};

void registries_changed() { registry_generation_counter.fetch_add(1, std::memory_order_release); }

}  // namespace

uint64_t Module::registry_generation() {
  return registry_generation_counter.load(std::memory_order_acquire);
}

Parameter Module::register_parameter(std::string name, Tensor data, bool requires_grad) {
  Variable parameter = data.defined() ? Variable(std::move(data)) : Variable();
  return register_parameter(std::move(name), std::move(parameter), requires_grad);
}

Parameter Module::register_parameter(std::string name, Variable parameter, bool requires_grad) {
  check_new_name(name, "parameter");
  TORCHLET_CHECK(!parameter.defined() || parameter.is_leaf(), "Cannot assign non-leaf Tensor to "
                 "parameter '", name, "'. Model parameters must be created explicitly. To "
                 "express '", name, "' as a function of another Tensor, compute the value in "
                 "the forward() method.");
  if (parameter.defined()) parameter.requires_grad_(requires_grad);
  parameters_.emplace_back(std::move(name), parameter);
  registries_changed();
  return Parameter(parameter);
}

Variable Module::register_buffer(std::string name, Tensor data, bool persistent) {
  Variable buffer = data.defined() ? Variable(std::move(data)) : Variable();
  return register_buffer(std::move(name), std::move(buffer), persistent);
}

Variable Module::register_buffer(std::string name, Variable buffer, bool persistent) {
  check_new_name(name, "buffer");
  buffers_.push_back(Buffer{std::move(name), buffer, persistent});
  registries_changed();
  return buffer;
}

void Module::register_child(std::string name, std::shared_ptr<Module> module, bool replace) {
  TORCHLET_CHECK(module != nullptr, "register_module: module '", name, "' is null");
  // A module below itself would make every walk of the tree endless.
  for (const auto& m : module->modules()) {
    TORCHLET_CHECK(m.get() != this, "register_module: cannot register ", module->name(), " as '",
                   name, "' of ", this->name(), ", which is ",
                   module.get() == this ? "that module itself" : "one of its submodules");
  }
  if (replace) {
    for (auto& child : children_) {
      if (child.first == name) {
        child.second = std::move(module);
        registries_changed();
        return;
      }
    }
  }
  check_new_name(name, "module");
  children_.emplace_back(std::move(name), std::move(module));
  registries_changed();
}

void Module::clear_children() {
  children_.clear();
  registries_changed();
}

RemovableHandle Module::register_full_backward_hook(BackwardHook hook) {
  detail::ErasedHook erased;
  erased.inputs = typeid(variable_list);
  erased.run = [hook = std::move(hook)](Module& module, void* grad_input, void* grad_output) {
    hook(module, *static_cast<variable_list*>(grad_input),
         *static_cast<const variable_list*>(grad_output));
  };
  return backward_hooks_.add(std::move(erased));
}

void Module::share_hooks(const Module& source) {
  forward_pre_hooks_.share(source.forward_pre_hooks_);
  forward_hooks_.share(source.forward_hooks_);
  backward_hooks_.share(source.backward_hooks_);
}

// ---- Lookup --------------------------------------------------------------------

const Variable* Module::find_parameter(const std::string& name) const {
  for (const auto& p : parameters_) {
    if (p.first == name) return &p.second;
  }
  return nullptr;
}

const Module::Buffer* Module::find_buffer(const std::string& name) const {
  for (const auto& b : buffers_) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

std::shared_ptr<Module> Module::find_child(const std::string& name) const {
  for (const auto& c : children_) {
    if (c.first == name) return c.second;
  }
  return nullptr;
}

std::shared_ptr<Module> Module::self() const {
  std::shared_ptr<const Module> owned = weak_from_this().lock();
  Module* me = const_cast<Module*>(this);
  if (owned) return std::shared_ptr<Module>(owned, me);
  return std::shared_ptr<Module>(std::shared_ptr<Module>(), me);
}

std::shared_ptr<Module> Module::get_submodule(const std::string& target) const {
  std::shared_ptr<Module> module = self();
  if (target.empty()) return module;
  std::stringstream path(target);
  for (std::string item; std::getline(path, item, '.');) {
    std::shared_ptr<Module> child = module->find_child(item);
    TORCHLET_CHECK(child != nullptr || !module->has_member(item), "`", item,
                   "` is not an nn.Module");
    TORCHLET_CHECK(child != nullptr, module->name(), " has no attribute `", item, "`");
    module = std::move(child);
  }
  return module;
}

std::pair<const Module*, std::string> Module::resolve_owner(const std::string& target) const {
  const size_t dot = target.rfind('.');
  if (dot == std::string::npos) return {this, target};
  return {get_submodule(target.substr(0, dot)).get(), target.substr(dot + 1)};
}

Variable Module::get_parameter(const std::string& target) const {
  const auto [owner, name] = resolve_owner(target);
  const Variable* parameter = owner->find_parameter(name);
  TORCHLET_CHECK(parameter != nullptr || !owner->has_member(name), "`", name,
                 "` is not an nn.Parameter");
  TORCHLET_CHECK(parameter != nullptr, owner->name(), " has no attribute `", name, "`");
  return *parameter;
}

Variable Module::get_buffer(const std::string& target) const {
  const auto [owner, name] = resolve_owner(target);
  const Buffer* buffer = owner->find_buffer(name);
  TORCHLET_CHECK(buffer != nullptr || !owner->has_member(name), "`", name, "` is not a buffer");
  TORCHLET_CHECK(buffer != nullptr, owner->name(), " has no attribute `", name, "`");
  return buffer->value;
}

// ---- Traversal -------------------------------------------------------------------

void Module::collect_named_modules(const std::string& prefix, std::vector<NamedModule>& out,
                                   std::unordered_set<const Module*>* seen) const {
  if (seen != nullptr && !seen->insert(this).second) return;
  out.emplace_back(prefix, self());
  for (const auto& [name, child] : children_) {
    child->collect_named_modules(prefix.empty() ? name : prefix + "." + name, out, seen);
  }
}

std::vector<Module::NamedModule> Module::named_modules(const std::string& prefix,
                                                      bool remove_duplicate) const {
  std::vector<NamedModule> out;
  std::unordered_set<const Module*> seen;
  collect_named_modules(prefix, out, remove_duplicate ? &seen : nullptr);
  return out;
}

std::vector<std::shared_ptr<Module>> Module::modules() const {
  std::vector<std::shared_ptr<Module>> out;
  for (auto& named : named_modules()) out.push_back(std::move(named.second));
  return out;
}

std::vector<Module::NamedModule> Module::named_children() const {
  std::vector<NamedModule> out;
  std::vector<const Module*> seen;
  for (const auto& child : children_) {
    if (std::find(seen.begin(), seen.end(), child.second.get()) != seen.end()) continue;
    seen.push_back(child.second.get());
    out.push_back(child);
  }
  return out;
}

std::vector<std::shared_ptr<Module>> Module::children() const {
  std::vector<std::shared_ptr<Module>> out;
  for (auto& named : named_children()) out.push_back(std::move(named.second));
  return out;
}

std::vector<Module::NamedVariable> Module::named_parameters(bool recurse,
                                                           bool remove_duplicate) const {
  std::vector<NamedVariable> out;
  std::unordered_set<const VariableImpl*> seen;
  const std::vector<NamedModule> owners =
      recurse ? named_modules("", remove_duplicate) : std::vector<NamedModule>{{"", self()}};
  for (const auto& [prefix, module] : owners) {
    for (const auto& [name, p] : module->parameters_) {
      if (!p.defined() || (remove_duplicate && !seen.insert(p.impl()).second)) continue;
      out.emplace_back(prefix.empty() ? name : prefix + "." + name, p);
    }
  }
  return out;
}

std::vector<Variable> Module::parameters(bool recurse) const {
  std::vector<Variable> out;
  for (auto& named : named_parameters(recurse)) out.push_back(std::move(named.second));
  return out;
}

std::vector<Module::NamedVariable> Module::named_buffers(bool recurse,
                                                        bool remove_duplicate) const {
  std::vector<NamedVariable> out;
  std::unordered_set<const VariableImpl*> seen;
  const std::vector<NamedModule> owners =
      recurse ? named_modules("", remove_duplicate) : std::vector<NamedModule>{{"", self()}};
  for (const auto& [prefix, module] : owners) {
    for (const Buffer& b : module->buffers_) {
      if (!b.value.defined() || (remove_duplicate && !seen.insert(b.value.impl()).second)) {
        continue;
      }
      out.emplace_back(prefix.empty() ? b.name : prefix + "." + b.name, b.value);
    }
  }
  return out;
}

std::vector<Variable> Module::buffers(bool recurse) const {
  std::vector<Variable> out;
  for (auto& named : named_buffers(recurse)) out.push_back(std::move(named.second));
  return out;
}

std::vector<Slot> Module::slots() const {
  std::vector<Slot> out;
  for (auto& [name, p] : named_parameters()) out.push_back(Slot{name, p, false});
  for (auto& [name, b] : named_buffers()) out.push_back(Slot{name, b, true});
  return out;
}

// ---- Modes and state -----------------------------------------------------------------

void Module::train(bool on) {
  training_ = on;
  for (auto& child : children_) child.second->train(on);
}

void Module::apply(const std::function<void(Module&)>& fn) {
  for (auto& child : children()) child->apply(fn);
  fn(*this);
}

void Module::requires_grad_(bool requires_grad) {
  for (const Variable& p : parameters()) p.requires_grad_(requires_grad);
}

void Module::zero_grad(bool set_to_none) {
  NoGradGuard no_grad;
  for (const Variable& p : parameters()) {
    Variable grad = p.grad();
    if (!grad.defined()) continue;
    if (set_to_none) {
      p.set_grad(Variable());
    } else {
      grad.detach_();
      Tensor data = grad.data();
      data.zero_();
    }
  }
}

void Module::for_each_tensor(const std::function<void(const Variable&)>& fn) const {
  for (const Slot& slot : slots()) {
    fn(slot.variable);
    const Variable grad = slot.variable.grad();
    if (grad.defined()) fn(grad);
  }
}

void Module::to(Device device) {
  NoGradGuard no_grad;
  for_each_tensor([device](const Variable& v) { v.set_data(v.data().to(device)); });
}

void Module::to(DType dtype) {
  TORCHLET_CHECK(is_floating_point(dtype),
                 "nn.Module.to only accepts floating point or complex dtypes, but got desired "
                 "dtype=torch.",
                 dtype);
  NoGradGuard no_grad;
  for_each_tensor([dtype](const Variable& v) {
    if (v.is_floating_point()) v.set_data(v.data().to(dtype));
  });
}

void Module::collect_state(const std::string& prefix, StateDict& out) const {
  for (const auto& [name, p] : parameters_) {
    if (p.defined()) out.insert(prefix + name, p.data());
  }
  for (const Buffer& b : buffers_) {
    if (b.value.defined() && b.persistent) out.insert(prefix + b.name, b.value.data());
  }
  for (const auto& [name, child] : children_) child->collect_state(prefix + name + ".", out);
}

StateDict Module::state_dict() const {
  StateDict out;
  collect_state("", out);
  return out;
}

/// One load_state_dict pass: PyTorch's _load_from_state_dict over the tree,
/// collecting every problem before anything is copied.
class LoadStateDict {
 public:
  explicit LoadStateDict(const StateDict& source) : source_(source) {}

  void visit(const Module& module, const std::string& prefix) {
    std::vector<std::pair<std::string, Variable>> local;
    for (const auto& [name, p] : module.parameters_) {
      if (p.defined()) local.emplace_back(name, p);
    }
    for (const Module::Buffer& b : module.buffers_) {
      if (b.value.defined() && b.persistent) local.emplace_back(b.name, b.value);
    }
    for (const auto& [name, target] : local) match(prefix + name, target);
    for (const auto& [key, value] : source_) {
      if (key.compare(0, prefix.size(), prefix) != 0) continue;
      const std::string rest = key.substr(prefix.size());
      const std::string first = rest.substr(0, rest.find('.'));
      const bool known = module.find_child(first) != nullptr ||
                         std::any_of(local.begin(), local.end(),
                                     [&](const auto& entry) { return entry.first == first; });
      if (!known) unexpected_.push_back(key);
    }
    for (const auto& [name, child] : module.children_) visit(*child, prefix + name + ".");
  }

  IncompatibleKeys finish(const Module& module, bool strict) {
    std::vector<std::string> errors = size_errors_;
    if (strict && !unexpected_.empty()) {
      errors.insert(errors.begin(),
                    "Unexpected key(s) in state_dict: " + join_keys(unexpected_) + ". ");
    }
    if (strict && !missing_.empty()) {
      errors.insert(errors.begin(), "Missing key(s) in state_dict: " + join_keys(missing_) + ". ");
    }
    std::string message = "Error(s) in loading state_dict for " + module.name() + ":";
    for (const std::string& error : errors) message += "\n\t" + error;
    TORCHLET_CHECK(errors.empty(), message);
    NoGradGuard no_grad;
    for (auto& [target, value] : copies_) {
      Tensor data = target.data();
      data.copy_(value);
    }
    return IncompatibleKeys{missing_, unexpected_};
  }

 private:
  void match(const std::string& key, const Variable& target) {
    const Tensor* value = source_.find(key);
    if (value == nullptr) {
      missing_.push_back(key);
    } else if (value->sizes() != target.sizes()) {
      size_errors_.push_back("size mismatch for " + key + ": copying a param with shape " +
                             torch_size(value->sizes()) +
                             " from checkpoint, the shape in current model is " +
                             torch_size(target.sizes()) + ".");
    } else {
      copies_.emplace_back(target, *value);
    }
  }

  const StateDict& source_;
  std::vector<std::string> missing_;
  std::vector<std::string> unexpected_;
  std::vector<std::string> size_errors_;
  std::vector<std::pair<Variable, Tensor>> copies_;
};

IncompatibleKeys Module::load_state_dict(const StateDict& state_dict, bool strict) {
  LoadStateDict load(state_dict);
  load.visit(*this, "");
  return load.finish(*this, strict);
}

// ---- Copies ----------------------------------------------------------------------------

std::shared_ptr<Module> Module::clone(const std::optional<Device>&) const {
  ::torchlet::detail::throw_error(::torchlet::detail::str_cat(
      "clone: ", name(), " does not support clone(); derive it from nn::Cloneable<", name(),
      "> and register its members in reset()"));
}

void Module::clone_from(const Module& source, const std::optional<Device>& device) {
  // Cloneable overrides this; for any other module, clone() throws.
  source.clone(device);
}

void Module::clear_registrations() {
  parameters_.clear();
  buffers_.clear();
  children_.clear();
  registries_changed();
}

namespace {

thread_local bool clone_without_gradients = false;

/// Gives `to` a copy of `from`'s gradient, unless clone() is copying none
/// on this thread (detail::CloneWithoutGradients).
void copy_gradient(const Variable& from, const Variable& to, const std::optional<Device>& device) {
  if (clone_without_gradients) return;
  const Variable grad = from.grad();
  if (grad.defined()) to.set_grad(Variable(moved(grad.data(), device)));
}

void copy_variable(const Variable& from, const Variable& to, const std::optional<Device>& device) {
  to.set_data(moved(from.data(), device));
  if (from.is_leaf()) to.requires_grad_(from.requires_grad());
  copy_gradient(from, to, device);
}

/// A new leaf with copies of `from`'s data and gradient.
Variable deep_copy(const Variable& from, const std::optional<Device>& device) {
  Variable copy(moved(from.data(), device), from.requires_grad());
  copy_gradient(from, copy, device);
  return copy;
}

}  // namespace

namespace detail {

CloneWithoutGradients::CloneWithoutGradients() : previous_(clone_without_gradients) {
  clone_without_gradients = true;
}

CloneWithoutGradients::~CloneWithoutGradients() { clone_without_gradients = previous_; }

}  // namespace detail

void Module::copy_state_from(const Module& source, const std::optional<Device>& device) {
  NoGradGuard no_grad;
  training_ = source.training_;
  for (const auto& [name, p] : source.parameters_) {
    const Variable* mine = find_parameter(name);
    TORCHLET_CHECK(mine != nullptr, "clone: reset() of ", this->name(), " did not register ",
                   "parameter `", name, "`");
    if (p.defined() && mine->defined()) copy_variable(p, *mine, device);
  }
  for (const Buffer& b : source.buffers_) {
    const Buffer* mine = find_buffer(b.name);
    TORCHLET_CHECK(mine != nullptr, "clone: reset() of ", this->name(), " did not register buffer `",
                   b.name, "`");
    if (b.value.defined() && mine->value.defined()) copy_variable(b.value, mine->value, device);
  }
  for (const auto& [name, child] : source.children_) {
    std::shared_ptr<Module> mine = find_child(name);
    TORCHLET_CHECK(mine != nullptr, "clone: reset() of ", this->name(),
                   " did not register module `", name, "`");
    mine->clone_from(*child, device);
  }
}

void Module::deep_copy_registry(const std::optional<Device>& device) {
  NoGradGuard no_grad;
  for (auto& entry : parameters_) {
    if (entry.second.defined()) entry.second = deep_copy(entry.second, device);
  }
  for (Buffer& b : buffers_) {
    if (b.value.defined()) b.value = deep_copy(b.value, device);
  }
  for (auto& child : children_) child.second = child.second->clone(device);
  registries_changed();
}

// ---- Printing ------------------------------------------------------------------------------

std::string Module::repr() const {
  const std::string extra = extra_repr();
  const std::vector<std::string> extra_lines =
      extra.empty() ? std::vector<std::string>{} : split_lines(extra);
  std::vector<std::string> lines = extra_lines;
  for (const auto& [name, child] : children_) {
    lines.push_back("(" + name + "): " + add_indent(child->repr(), 2));
  }
  std::string out = name() + "(";
  if (extra_lines.size() == 1 && children_.empty()) {
    out += extra_lines[0];
  } else if (!lines.empty()) {
    out += "\n";
    for (const std::string& line : lines) out += "  " + line + "\n";
  }
  return out + ")";
}

std::ostream& operator<<(std::ostream& out, const Module& module) { return out << module.repr(); }

}  // namespace torchlet::nn
