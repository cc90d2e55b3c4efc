#include "autograd/node.h"

#include <limits>
#include <utility>

#include "autograd/grad_mode.h"
#include "autograd/internal/graph.h"

namespace torchlet::autograd {
namespace {
std::atomic<uint64_t> next_sequence_nr{0};

// Runs the hooks registered on `impl` (in registration order) on `grad`; a
// defined result replaces it. The hooks run outside the lock, on a copy, so
// a hook may register or remove hooks.
Variable run_variable_hooks(VariableImpl& impl, Variable grad) {
  std::map<int, Variable::Hook> hooks;
  {
    std::lock_guard<SpinLock> lock(impl.mutex);
    if (impl.hooks.empty()) return grad;
    hooks = impl.hooks;
  }
  for (const auto& [id, hook] : hooks) {
    Variable replaced = hook(grad);
    if (replaced.defined()) grad = std::move(replaced);
  }
  return grad;
}

}  // namespace

Node::Node() : sequence_nr_(next_sequence_nr++) {}

void Node::set_output_meta(uint32_t output_nr, const Tensor& t) {
  if (output_meta_.size() <= output_nr) output_meta_.resize(output_nr + 1);
  output_meta_[output_nr] = {SizeVec(t.sizes().begin(), t.sizes().end()), t.dtype(), t.device()};
}

Variable Node::zeros_for_output(uint32_t output_nr) const {
  const OutputMeta& m = output_meta_.at(output_nr);
  return Variable(zeros(m.shape, TensorOptions(m.dtype).device(m.device)));
}

void Node::add_hooked_output(uint32_t output_nr, const std::shared_ptr<VariableImpl>& impl) {
  std::lock_guard<std::mutex> lock(hooks_mutex_);
  for (const auto& [nr, weak] : hooked_outputs_) {
    if (nr == output_nr && weak.lock() == impl) return;
  }
  hooked_outputs_.emplace_back(output_nr, impl);
  has_hooked_outputs_.store(true, std::memory_order_release);
}

Variable Node::run_output_hooks(uint32_t output_nr, Variable grad) {
  if (!has_hooked_outputs_.load(std::memory_order_acquire)) return grad;
  std::vector<std::shared_ptr<VariableImpl>> owners;
  {
    std::lock_guard<std::mutex> lock(hooks_mutex_);
    if (hooked_outputs_.empty()) return grad;
    for (const auto& [nr, weak] : hooked_outputs_) {
      if (nr != output_nr) continue;
      if (auto impl = weak.lock()) owners.push_back(std::move(impl));
    }
  }
  for (const auto& impl : owners) {
    grad = run_variable_hooks(*impl, std::move(grad));
    std::lock_guard<SpinLock> lock(impl->mutex);
    if (impl->retains_grad) {
      impl->grad = impl->grad.defined() ? impl->grad + grad
                                        : Variable(grad.data().clone(), false);
    }
  }
  return grad;
}

// ---- SavedVariable ------------------------------------------------------------------

namespace {
constexpr const char* kSecondBackward =
    ": Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd::grad(). Specify retain_graph=true if you need to "
    "backward through the graph a second time.";
}  // namespace

// Note [Saving an output makes no cycle]
// A node that saves its own output (exp, tanh, sigmoid, softmax, ...) must
// not hold that output's grad_fn, which is the node itself: the node would
// own itself through its saved variable and never be freed. So an output is
// saved as its data, version and output number only (is_output_), and
// unpack() rebuilds the Variable with `owner` — the node doing the
// unpacking, which is alive because it is running — as its grad_fn. Inputs
// keep their history (grad_fn_ or grad_accumulator_), which points down the
// graph, never back up, so no cycle forms there either; the live Variable
// is held only weakly (Note [Saved variables are snapshots]).
SavedVariable::SavedVariable(const Variable& v, bool is_output) {
  if (!v.defined()) return;
  requires_grad_ = v.requires_grad();  // first: brings a view's history up to date
  data_ = v.data();
  version_ = data_.version();
  is_output_ = is_output;
  defined_ = true;
  Edge history = read_history(*v.impl());
  output_nr_ = history.input_nr;
  if (is_output) return;
  live_ = v.shared_impl();
  if (history.fn) {
    grad_fn_ = std::move(history.fn);
  } else if (requires_grad_) {
    grad_accumulator_ = gradient_edge(v).fn;
  }
}

bool SavedVariable::matches(VariableImpl& impl) const {
  if (!impl.data.is_same(data_) || impl.requires_grad != requires_grad_) return false;
  {
    std::lock_guard<SpinLock> lock(impl.history_lock);
    if (impl.grad_fn != grad_fn_ || impl.output_nr != output_nr_) return false;
  }
  if (!grad_accumulator_) return true;
  std::lock_guard<SpinLock> lock(impl.mutex);
  return impl.grad_accumulator.lock() == grad_accumulator_;
}

Variable SavedVariable::unpack(const Node& owner) const {
  TORCHLET_CHECK(!released_, owner.name(), kSecondBackward);
  if (!defined_) return Variable();
  TORCHLET_CHECK(data_.version() == version_,
                 "one of the variables needed for gradient computation has been modified by an "
                 "inplace operation: [", data_.dtype(), " ", shape_str(data_.sizes()),
                 "], which is saved by ", owner.name(), ", is at version ", data_.version(),
                 "; expected version ", version_, " instead.");
  if (!is_output_) {
    std::shared_ptr<VariableImpl> live = live_.lock();
    if (live && matches(*live)) return Variable(std::move(live));
  }
  auto impl = std::allocate_shared<VariableImpl>(CachedAllocator<VariableImpl>(), data_);
  impl->requires_grad = requires_grad_;
  impl->output_nr = output_nr_;
  if (is_output_) {
    impl->grad_fn = std::const_pointer_cast<Node>(owner.shared_from_this());
  } else {
    impl->grad_fn = grad_fn_;
    impl->grad_accumulator = grad_accumulator_;
  }
  return Variable(std::move(impl));
}

void SavedVariable::reset() {
  data_ = Tensor();
  live_.reset();
  grad_fn_ = nullptr;
  grad_accumulator_ = nullptr;
  released_ = true;
}

// ---- AccumulateGrad -------------------------------------------------------------------

AccumulateGrad::AccumulateGrad(std::shared_ptr<VariableImpl> leaf) : leaf_(std::move(leaf)) {
  sequence_nr_ = std::numeric_limits<uint64_t>::max();
  set_device(leaf_->data.device());
}

namespace {

// Note [Stealing the incoming gradient]
// A leaf without a grad takes the incoming gradient itself, no copy, when
// nothing else can see it: this is the only handle to its Variable and its
// tensor, no other tensor shares its storage, and it is dense and contiguous
// over exactly its own elements (PyTorch's AccumulateGrad does the same).
// One sharer is allowed: the view base that autograd keeps for a gradient
// made as a view (`sum_to`'s reshape, a transposed product), when that base
// is held by this gradient alone; it dies with the gradient. Any other
// gradient (one the engine also hands to another input, one the user passed
// to backward, a view into a buffer shared with other gradients) is cloned,
// so that accumulating in place later never writes into memory something
// else reads. A training step after zero_grad(set_to_none) thereby copies
// none of its gradients.
bool sole_owner(const Variable& grad) {
  const Tensor& t = grad.data();
  const TensorImpl* impl = t.impl();
  const std::shared_ptr<VariableImpl>& self = grad.shared_impl();
  if (self.use_count() != 1 || impl->use_count() != 1 || !impl->is_contiguous() ||
      impl->storage_offset() != 0 ||
      impl->storage()->nbytes() != static_cast<size_t>(t.numel()) * element_size(t.dtype())) {
    return false;
  }
  long sharers = 1;
  if (const std::shared_ptr<VariableImpl>& base = self->view_base) {
    const TensorImpl* base_impl = base->data.impl();
    if (base_impl != nullptr && base_impl->storage() == impl->storage()) {
      if (base.use_count() != 1 || base_impl->use_count() != 1) return false;
      sharers = 2;
    }
  }
  return impl->storage()->use_count() == sharers;
}

}  // namespace

variable_list AccumulateGrad::apply(variable_list&& grads) {
  Variable grad = std::move(grads.at(0));
  if (!grad.defined()) return {};
  grad = run_variable_hooks(*leaf_, std::move(grad));
  const Tensor& data = leaf_->data;
  TORCHLET_CHECK(grad.sizes() == data.sizes() && grad.dtype() == data.dtype() &&
                     grad.device() == data.device(),
                 "AccumulateGrad: the gradient (", grad.dtype(), " ", shape_str(grad.sizes()),
                 " on ", grad.device(), ") does not match the leaf (", data.dtype(), " ",
                 shape_str(data.sizes()), " on ", data.device(), ")");
  std::lock_guard<SpinLock> lock(leaf_->mutex);
  Variable& current = leaf_->grad;
  if (is_grad_enabled()) {
    // create_graph: the gradient keeps its history.
    current = current.defined() ? current + grad : grad;
  } else if (!current.defined()) {
    current = Variable(sole_owner(grad) ? grad.data() : grad.data().clone(), false);
  } else {
    Tensor accumulated = current.data();
    accumulated.add_(grad.data());
  }
  return {};
}

// ---- FunctionNode ------------------------------------------------------------------------

void FunctionNode::check_not_released() const {
  TORCHLET_CHECK(!released_, name_, kSecondBackward);
}

void FunctionNode::release_variables() {
  released_ = released_ || !saved.empty();
  for (SavedVariable& s : saved) s.reset();
}

// ---- Recording ---------------------------------------------------------------------------------

Edge read_history(const VariableImpl& impl) {
  std::lock_guard<SpinLock> lock(impl.history_lock);
  return {impl.grad_fn, impl.output_nr};
}

void write_history(VariableImpl& impl, std::shared_ptr<Node> grad_fn, uint32_t output_nr) {
  std::shared_ptr<Node> previous;  // released outside the lock
  std::lock_guard<SpinLock> lock(impl.history_lock);
  previous = std::exchange(impl.grad_fn, std::move(grad_fn));
  impl.output_nr = output_nr;
}

Edge gradient_edge(const Variable& v) {
  if (!v.defined() || !v.requires_grad()) return {};
  VariableImpl& impl = *v.impl();
  Edge history = read_history(impl);
  if (history.fn) return history;
  std::lock_guard<SpinLock> lock(impl.mutex);
  std::shared_ptr<Node> acc = impl.grad_accumulator.lock();
  if (!acc) {
    acc = std::allocate_shared<AccumulateGrad>(CachedAllocator<AccumulateGrad>(), v.shared_impl());
    impl.grad_accumulator = acc;
  }
  return {std::move(acc), 0};
}

bool should_record(std::initializer_list<const Variable*> inputs) {
  if (!is_grad_enabled()) return false;
  for (const Variable* v : inputs) {
    if (v->defined() && v->requires_grad()) return true;
  }
  return false;
}

bool should_record(const std::vector<Variable>& inputs) {
  if (!is_grad_enabled()) return false;
  for (const Variable& v : inputs) {
    if (v.defined() && v.requires_grad()) return true;
  }
  return false;
}

void connect(Node& node, std::initializer_list<const Variable*> inputs, Device device) {
  node.set_device(device);
  std::vector<Edge>& edges = node.mutable_next_edges();
  edges.reserve(inputs.size());
  for (const Variable* v : inputs) edges.push_back(gradient_edge(*v));
}

void connect(Node& node, const std::vector<Variable>& inputs, Device device) {
  node.set_device(device);
  std::vector<Edge>& edges = node.mutable_next_edges();
  edges.reserve(inputs.size());
  for (const Variable& v : inputs) edges.push_back(gradient_edge(v));
}

Variable make_result(Tensor data, std::shared_ptr<Node> node, uint32_t output_nr) {
  auto impl = std::allocate_shared<VariableImpl>(CachedAllocator<VariableImpl>(), std::move(data));
  if (node) {
    if (output_nr >= node->num_outputs()) node->set_num_outputs(output_nr + 1);
    node->set_output_meta(output_nr, impl->data);
    impl->requires_grad = true;
    impl->grad_fn = std::move(node);
    impl->output_nr = output_nr;
  }
  return Variable(std::move(impl));
}

}  // namespace torchlet::autograd
