// Variable's autograd state: data, requires_grad, grad, history, hooks.
#include "autograd/variable.h"

#include <ostream>

#include "autograd/engine.h"
#include "autograd/internal/graph.h"
#include "tensor/print.h"

namespace torchlet {

Variable::Variable(Tensor data, bool requires_grad) {
  TORCHLET_CHECK(data.defined(), "Variable: the data tensor is undefined");
  impl_ = std::allocate_shared<VariableImpl>(CachedAllocator<VariableImpl>(), std::move(data));
  if (requires_grad) requires_grad_(true);
}

void Variable::throw_undefined() {
  detail::throw_error("Variable: called on an undefined Variable");
}

const Tensor& Variable::data() const { return checked().data; }

void Variable::set_data(const Tensor& data) const {
  checked();
  TORCHLET_CHECK(data.defined(), "set_data: the new data tensor is undefined");
  impl_->data = data;
}

const VariableImpl& Variable::history() const {
  const VariableImpl& impl = checked();
  if (impl.view_base) autograd::refresh_view(*impl_);
  return impl;
}

bool Variable::requires_grad() const { return history().requires_grad; }

const Variable& Variable::requires_grad_(bool requires_grad) const {
  if (!is_leaf()) {
    TORCHLET_CHECK(requires_grad,
                   "requires_grad_: you can only change requires_grad flags of leaf variables. If "
                   "you want to use a computed variable in a subgraph that doesn't require "
                   "differentiation use var_no_grad = var.detach().");
    return *this;
  }
  TORCHLET_CHECK(!requires_grad || impl_->data.is_floating_point(),
                 "requires_grad_: only Tensors of floating point dtype can require gradients, "
                 "got ", impl_->data.dtype());
  impl_->requires_grad = requires_grad;
  return *this;
}

Variable Variable::grad() const {
  checked();
  std::lock_guard<autograd::SpinLock> lock(impl_->mutex);
  return impl_->grad;
}

void Variable::set_grad(const Variable& grad) const {
  checked();
  if (grad.defined()) {
    TORCHLET_CHECK(grad.sizes() == sizes() && grad.dtype() == dtype() && grad.device() == device(),
                   "set_grad: assigned grad (", grad.dtype(), " ", shape_str(grad.sizes()), " on ",
                   grad.device(), ") does not match the Variable (", dtype(), " ",
                   shape_str(sizes()), " on ", device(), ")");
  }
  std::lock_guard<autograd::SpinLock> lock(impl_->mutex);
  impl_->grad = grad;
}

std::shared_ptr<autograd::Node> Variable::grad_fn() const {
  return autograd::read_history(history()).fn;
}

uint32_t Variable::output_nr() const { return autograd::read_history(history()).input_nr; }

bool Variable::is_leaf() const {
  const VariableImpl& impl = history();
  std::lock_guard<autograd::SpinLock> lock(impl.history_lock);
  return impl.grad_fn == nullptr;
}

Variable Variable::detach() const { return Variable(data(), false); }

const Variable& Variable::detach_() const {
  const VariableImpl* base = autograd::tracked_base(checked());
  TORCHLET_CHECK(base == nullptr || !base->requires_grad,
                 "detach_: Can't detach views in-place. Use detach() instead.");
  autograd::write_history(*impl_, nullptr, 0);
  impl_->requires_grad = false;
  return *this;
}

// Note [Re-binding a Variable]
// rebind() is DataParallel's way to point a kept replica's parameter slot
// (held by the module's own member, so it cannot be replaced) at a fresh
// broadcast output on each call. Afterwards the Variable is, through every
// handle, what `src` is: its data, requires_grad, history and view relation.
// What belonged to the old binding goes: the leaf gradient accumulator (a
// new one is made if the Variable is now a leaf, so gradients accumulate
// into this Variable's grad()), and a retained non-leaf gradient. Hooks stay:
// those of a leaf run in its accumulator, those of a non-leaf are attached
// to the new grad_fn's output. Graphs recorded before keep what they saved
// (Note [Saved variables are snapshots]). Nothing is allocated unless the
// Variable has hooks; like set_data(), it must not race with other uses of
// the same Variable.
void Variable::rebind(const Variable& src) const {
  checked();
  TORCHLET_CHECK(src.defined(), "rebind: the source Variable is undefined");
  if (is_same(src)) return;
  const VariableImpl& from = src.history();
  TORCHLET_CHECK(from.view_base != impl_, "rebind: the source is a view of this Variable");
  autograd::Edge history = autograd::read_history(from);
  VariableImpl& impl = *impl_;
  impl.data = from.data;
  impl.requires_grad = from.requires_grad.load();
  impl.view_base = from.view_base;
  impl.view_version = from.view_version.load();
  bool hooked;
  {
    std::lock_guard<autograd::SpinLock> lock(impl.mutex);
    impl.grad_accumulator.reset();
    if (impl.retains_grad) impl.grad = Variable();
    impl.retains_grad = false;
    hooked = !impl.hooks.empty();
  }
  if (hooked && history.fn) history.fn->add_hooked_output(history.input_nr, impl_);
  autograd::write_history(impl, std::move(history.fn), history.input_nr);
}

void Variable::retain_grad() const {
  TORCHLET_CHECK(requires_grad(),
                 "retain_grad: can't retain_grad on Tensor that has requires_grad=False");
  const autograd::Edge history = autograd::read_history(*impl_);
  if (!history.valid()) return;
  {
    std::lock_guard<autograd::SpinLock> lock(impl_->mutex);
    impl_->retains_grad = true;
  }
  history.fn->add_hooked_output(history.input_nr, impl_);
}

bool Variable::retains_grad() const { return checked().retains_grad; }

void Variable::backward(const Variable& gradient, bool retain_graph, bool create_graph) const {
  autograd::backward({*this}, {gradient}, retain_graph || create_graph, create_graph);
}

Variable::HookHandle Variable::register_hook(Hook hook) const {
  TORCHLET_CHECK(requires_grad(),
                 "register_hook: cannot register a hook on a tensor that doesn't require gradient");
  int id;
  {
    std::lock_guard<autograd::SpinLock> lock(impl_->mutex);
    id = impl_->next_hook_id++;
    impl_->hooks.emplace(id, std::move(hook));
  }
  const autograd::Edge history = autograd::read_history(*impl_);
  if (history.valid()) history.fn->add_hooked_output(history.input_nr, impl_);
  return HookHandle(impl_, id);
}

void Variable::HookHandle::remove() {
  if (auto impl = impl_.lock()) {
    std::lock_guard<autograd::SpinLock> lock(impl->mutex);
    impl->hooks.erase(id_);
  }
  impl_.reset();
}

std::string Variable::str() const {
  std::vector<std::string> suffixes;
  if (const auto fn = grad_fn()) {
    suffixes.push_back("grad_fn=<" + fn->name() + ">");
  } else if (requires_grad()) {
    suffixes.push_back("requires_grad=True");
  }
  return tensor_repr(data(), suffixes);
}

std::ostream& operator<<(std::ostream& out, const Variable& v) {
  return out << (v.defined() ? v.str() : std::string("[ undefined Variable ]"));
}

}  // namespace torchlet
