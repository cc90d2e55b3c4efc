// Custom functions: the context, the node that runs T::backward, and the
// checks PyTorch applies to what backward returns (CppNode::apply and the
// engine's validate_outputs).
#include "autograd/custom_function.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>

#include "autograd/op_helpers.h"

namespace torchlet::autograd {
namespace detail {

/// The backward node of one custom function call. It owns the context
/// forward filled, so saved Variables live as long as the graph does.
class CustomFunctionNode : public Node {
 public:
  CustomFunctionNode(std::string name, BackwardFn backward)
      : name_(std::move(name)), backward_(backward) {
    ctx_.owner_ = this;
  }

  variable_list apply(variable_list&& grad_outputs) override;
  std::string name() const override { return name_; }
  void release_variables() override;
  bool materializes_grads() const override { return false; }

  AutogradContext ctx_;
  /// Per forward argument: whether it was a Variable (and so has an edge).
  std::vector<bool> is_variable_input_;
  struct Meta {
    SizeVec shape;
    DType dtype = kFloat32;
    Device device;
  };
  /// Per edge: the input as forward saw it (what its gradient must match).
  std::vector<Meta> input_meta_;
  /// Per output: its metadata, for zeros; none for an undefined output.
  std::vector<std::optional<Meta>> outputs_info_;

 private:
  variable_list validate(variable_list grads) const;

  const std::string name_;
  const BackwardFn backward_;
  std::mutex mutex_;  // one apply or release at a time (several graph tasks may share the node)
};

namespace {

CustomFunctionNode::Meta meta_of(const Tensor& t) {
  return {SizeVec(t.sizes().begin(), t.sizes().end()), t.dtype(), t.device()};
}

// Whether `shape` broadcasts to `target` (PyTorch's is_expandable_to).
bool is_expandable_to(IntArrayRef shape, IntArrayRef target) {
  if (shape.size() > target.size()) return false;
  const size_t lead = target.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] != target[lead + i] && shape[i] != 1) return false;
  }
  return true;
}

// A Variable sharing `v`'s data, with no history and no requires_grad.
std::shared_ptr<VariableImpl> alias_of(const Variable& v) {
  return std::allocate_shared<VariableImpl>(CachedAllocator<VariableImpl>(), v.data());
}

}  // namespace

variable_list CustomFunctionNode::apply(variable_list&& grad_outputs) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (ctx_.materialize_grads_) {
    for (size_t i = 0; i < grad_outputs.size() && i < outputs_info_.size(); ++i) {
      if (grad_outputs[i].defined() || !outputs_info_[i]) continue;
      const Meta& m = *outputs_info_[i];
      grad_outputs[i] = Variable(zeros(m.shape, TensorOptions(m.dtype).device(m.device)));
    }
  }
  variable_list grads = backward_(&ctx_, std::move(grad_outputs));

  // Extra trailing gradients are tolerated when undefined (as PyTorch does).
  const size_t num_args = is_variable_input_.size();
  if (grads.size() > num_args) {
    bool all_undefined = true;
    for (size_t i = num_args; i < grads.size(); ++i) all_undefined = all_undefined && !grads[i].defined();
    if (all_undefined) grads.resize(num_args);
  }
  TORCHLET_CHECK(grads.size() == num_args, "function ", name_,
                 " returned an incorrect number of gradients (expected ", num_args, ", got ",
                 grads.size(), ")");
  variable_list results;
  results.reserve(input_meta_.size());
  for (size_t i = 0; i < num_args; ++i) {
    if (is_variable_input_[i]) {
      results.push_back(std::move(grads[i]));
      continue;
    }
    TORCHLET_CHECK(!grads[i].defined(), "function ", name_,
                   " returned a gradient different that is defined at position ", i + 1,
                   ", but the corresponding forward input was not a Variable");
  }
  return validate(std::move(results));
}

// The engine's validate_outputs: a gradient whose shape the input broadcasts
// to is summed back to the input's shape; a dtype mismatch is converted; a
// device mismatch is moved for 0-dim gradients and an error otherwise.
// Gradients of inputs that need none are dropped.
variable_list CustomFunctionNode::validate(variable_list grads) const {
  const std::vector<Edge>& edges = next_edges();
  for (size_t i = 0; i < grads.size(); ++i) {
    Variable& grad = grads[i];
    if (!edges[i].valid()) {
      grad = Variable();
      continue;
    }
    if (!grad.defined()) continue;
    const Meta& meta = input_meta_[i];
    if (grad.sizes() != IntArrayRef(meta.shape)) {
      TORCHLET_CHECK(is_expandable_to(meta.shape, grad.sizes()), "Function ", name_,
                     " returned an invalid gradient at index ", i, " - got ",
                     shape_str(grad.sizes()), " but expected shape compatible with ",
                     shape_str(meta.shape));
      grad = sum_to(grad, meta.shape, grad.dtype());
    }
    if (grad.dtype() != meta.dtype) grad = grad.to(meta.dtype);
    if (grad.device() != meta.device) {
      TORCHLET_CHECK(grad.dim() == 0, "Function ", name_, " returned an invalid gradient at index ",
                     i, " - expected device ", meta.device, " but got ", grad.device());
      grad = grad.to(meta.device);
    }
  }
  return grads;
}

void CustomFunctionNode::release_variables() {
  std::lock_guard<std::mutex> lock(mutex_);
  ctx_.saved_variables_.clear();
  ctx_.has_freed_buffers_ = true;
}

// ---- FunctionCall ----------------------------------------------------------------

FunctionCall::FunctionCall(std::string name, BackwardFn backward)
    : node_(std::make_shared<CustomFunctionNode>(std::move(name), backward)) {}

FunctionCall::~FunctionCall() = default;

void FunctionCall::add_variable(const Variable& v) {
  inputs_.push_back(v);
  is_variable_.push_back(true);
}

void FunctionCall::add_variables(const variable_list& vs) {
  for (const Variable& v : vs) add_variable(v);
}

void FunctionCall::add_non_variable() {
  inputs_.emplace_back();
  is_variable_.push_back(false);
}

AutogradContext* FunctionCall::begin() {
  record_ = false;
  if (is_grad_enabled()) {
    for (size_t i = 0; i < inputs_.size(); ++i) {
      record_ = record_ || (is_variable_[i] && inputs_[i].defined() && inputs_[i].requires_grad());
    }
  }
  CustomFunctionNode& node = *node_;
  node.is_variable_input_ = is_variable_;
  node.ctx_.needs_input_grad_.assign(inputs_.size(), false);
  if (!record_) return &node.ctx_;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (!is_variable_[i]) continue;
    const Variable& v = inputs_[i];
    Edge edge = gradient_edge(v);
    node.ctx_.needs_input_grad_[i] = edge.valid();
    node.mutable_next_edges().push_back(std::move(edge));
    node.input_meta_.push_back(v.defined() ? meta_of(v.data()) : CustomFunctionNode::Meta{});
  }
  return &node.ctx_;
}

Variable FunctionCall::finish(Variable output) {
  variable_list outputs = finish(variable_list{std::move(output)});
  return std::move(outputs[0]);
}

variable_list FunctionCall::finish(variable_list outputs) {
  CustomFunctionNode& node = *node_;
  AutogradContext& ctx = node.ctx_;
  // Sorted vectors, not hash sets: a call with many inputs and outputs
  // (DataParallel's Broadcast of every parameter) allocates once per set.
  const auto sorted_impls = [](const variable_list& vs) {
    std::vector<const VariableImpl*> impls;
    impls.reserve(vs.size());
    for (const Variable& v : vs) {
      if (v.defined()) impls.push_back(v.impl());
    }
    std::sort(impls.begin(), impls.end());
    return impls;
  };
  const auto contains = [](const std::vector<const VariableImpl*>& impls, const VariableImpl* impl) {
    return std::binary_search(impls.begin(), impls.end(), impl);
  };
  const std::vector<const VariableImpl*> input_impls = sorted_impls(inputs_);
  if (!ctx.dirty_inputs_.empty()) {
    const std::vector<const VariableImpl*> output_impls = sorted_impls(outputs);
    for (const VariableImpl* impl : ctx.dirty_inputs_) {
      TORCHLET_CHECK(!contains(input_impls, impl) || contains(output_impls, impl), node.name(),
                     ": Some elements marked as dirty during the forward method were not "
                     "returned as output. The inputs that are modified inplace must all be "
                     "outputs of the Function.");
    }
  }
  if (record_) {
    node.set_num_outputs(static_cast<uint32_t>(outputs.size()));
    node.outputs_info_.resize(outputs.size());
    node.set_device(current_device());
    for (const Variable& out : outputs) {
      if (!out.defined()) continue;
      node.set_device(out.device());
      break;
    }
  }
  const std::string& name = node.name();
  for (size_t i = 0; i < outputs.size(); ++i) {
    Variable& out = outputs[i];
    if (!out.defined()) continue;
    const auto output_nr = static_cast<uint32_t>(i);
    if (record_) {
      node.outputs_info_[i] = meta_of(out.data());
      node.set_output_meta(output_nr, out.data());
    }
    const VariableImpl* impl = out.impl();
    const bool is_input = contains(input_impls, impl);
    // Marking a non-input dirty changes nothing (PyTorch only warns).
    const bool is_dirty = is_input && ctx.dirty_inputs_.count(impl) > 0;
    const bool differentiable =
        record_ && ctx.non_differentiable_.count(impl) == 0 && out.is_floating_point();
    if (!differentiable) {
      // Never change the state of a Variable the caller already holds.
      if ((is_input && !is_dirty) || out.requires_grad()) out = Variable(alias_of(out));
      continue;
    }
    std::shared_ptr<VariableImpl> target;
    if (is_dirty) {
      // Modified in place: the input itself takes this node as its history.
      check_inplace(name.c_str(), out);
      if (tracked_base(*out.impl()) != nullptr) {
        // Through a view: the base is rebased, as an in-place op would.
        auto result = alias_of(out);
        result->requires_grad = true;
        result->grad_fn = node_;
        result->output_nr = output_nr;
        rebase_history(out, Variable(std::move(result)));
        continue;
      }
      target = out.shared_impl();
    } else if (is_input || !out.is_leaf() || out.requires_grad()) {
      target = alias_of(out);
      out = Variable(target);
    } else {
      target = out.shared_impl();  // a fresh result of forward
    }
    target->requires_grad = true;
    write_history(*target, node_, output_nr);
  }
  if (record_) {
    // An output saved for backward is saved as one (its data only), so the
    // node does not keep itself alive through its own outputs.
    for (const Variable& v : ctx.to_save_) {
      const bool is_output = v.defined() && v.grad_fn() == node_;
      ctx.saved_variables_.emplace_back(v, is_output);
    }
  }
  ctx.to_save_.clear();
  ctx.non_differentiable_.clear();
  ctx.dirty_inputs_.clear();
  return outputs;
}

std::string default_function_name(const char* mangled_type_name) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled_type_name, nullptr, nullptr, &status);
  std::string full = status == 0 && demangled != nullptr ? demangled : mangled_type_name;
  std::free(demangled);
  // Drop namespaces and enclosing classes ("(anonymous namespace)::Square"),
  // but not "::" inside template arguments.
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i + 1 < full.size(); ++i) {
    const char c = full[i];
    if (c == '<' || c == '(') ++depth;
    if (c == '>' || c == ')') --depth;
    if (depth == 0 && c == ':' && full[i + 1] == ':') start = i + 2;
  }
  return full.substr(start) + "Backward";
}

}  // namespace detail

// ---- AutogradContext -------------------------------------------------------------

AutogradContext::AutogradContext() = default;
AutogradContext::~AutogradContext() = default;

void AutogradContext::save_for_backward(variable_list to_save) { to_save_ = std::move(to_save); }

variable_list AutogradContext::get_saved_variables() const {
  TORCHLET_CHECK(!has_freed_buffers_, owner_->name(),
                 ": Trying to backward through the graph a second time (or directly access saved "
                 "tensors after they have already been freed). Saved intermediate values of the "
                 "graph are freed when you call .backward() or autograd::grad(). Specify "
                 "retain_graph=true if you need to backward through the graph a second time or "
                 "if you need to access saved tensors after calling backward.");
  variable_list out;
  out.reserve(saved_variables_.size());
  for (const SavedVariable& s : saved_variables_) out.push_back(s.unpack(*owner_));
  return out;
}

bool AutogradContext::needs_input_grad(size_t i) const {
  TORCHLET_CHECK(i < needs_input_grad_.size(), "needs_input_grad: index ", i,
                 " is out of range for a function of ", needs_input_grad_.size(), " arguments");
  return needs_input_grad_[i];
}

void AutogradContext::mark_non_differentiable(const variable_list& outputs) {
  for (const Variable& v : outputs) {
    if (v.defined()) non_differentiable_.insert(v.impl());
  }
}

void AutogradContext::mark_dirty(const variable_list& inputs) {
  for (const Variable& v : inputs) {
    if (v.defined()) dirty_inputs_.insert(v.impl());
  }
}

const std::any& AutogradContext::saved_entry(const std::string& key) const {
  auto it = saved_data.find(key);
  TORCHLET_CHECK(it != saved_data.end(), "saved_data has no entry \"", key, "\"");
  return it->second;
}

void AutogradContext::wrong_saved_type(const std::string& key, const char* type) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(type, nullptr, nullptr, &status);
  const std::string wanted = status == 0 && demangled != nullptr ? demangled : type;
  std::free(demangled);
  ::torchlet::detail::throw_error(
      ::torchlet::detail::str_cat("saved_data[\"", key, "\"] does not hold a ", wanted));
}


}  // namespace torchlet::autograd
