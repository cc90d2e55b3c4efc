#pragma once

// Internal to //autograd: the graph plumbing behind node.h. How built-in ops
// record their nodes and save state for backward, the state behind a
// Variable handle, and the history lock. No header of the public API
// includes this one (Note [Public graph, internal plumbing]).

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "autograd/node.h"
#include "autograd/variable.h"
#include "tensor/storage.h"

// Note [Public graph, internal plumbing]
// Users see the graph through node.h: a Variable's grad_fn() is a Node with
// a name() and next_edges(), custom functions (custom_function.h) record
// their own nodes, and Variable::rebind re-binds a Variable's data and
// history. Everything that builds the graph lives here and is compiled
// only into //autograd: VariableImpl (the state behind a handle), the
// history lock, SavedVariable, AccumulateGrad, the built-in ops' nodes
// (FunctionNode, OpNode) and record_op/make_result. nn and parallel need
// none of it (they hold a VariableImpl* only as an identity key, for which
// the forward declaration in variable.h is enough), so a change to how ops
// record or what a node saves recompiles //autograd alone, and no user code
// can come to depend on it.

namespace torchlet {

namespace autograd {

// Note [Saved variables are snapshots]
// A SavedVariable records what the Variable was when it was saved: its data
// (with the version it had: using it after an in-place change throws),
// requires_grad, and its history: grad_fn and output_nr for a non-leaf, the
// gradient accumulator for a leaf that requires grad. Re-binding the
// Variable (Variable::rebind) or set_data() after the forward therefore
// changes nothing in a graph already recorded, which is what lets
// DataParallel re-bind a kept replica's parameters on every call.
// unpack() hands back the Variable itself while it is alive and still
// matches the snapshot (the common case, no allocation), else a new Variable
// rebuilt from the snapshot. The Variable itself is held weakly, so a
// Variable re-bound to a result computed from itself (v.rebind(v * 2)) makes
// no reference cycle. Saving an op's own output keeps only its data (no
// reference cycle) and rebuilds the Variable with the node as grad_fn.

/// A Variable saved for backward, as it was when saved (Note [Saved
/// variables are snapshots]).
class SavedVariable {
 public:
  SavedVariable() = default;
  SavedVariable(const Variable& v, bool is_output);
  /// The saved Variable; `owner` is the node that saved it.
  Variable unpack(const Node& owner) const;
  void reset();
  bool defined() const { return defined_; }

 private:
  /// Whether `live` still has the data and history that were saved.
  bool matches(VariableImpl& live) const;

  Tensor data_;
  std::weak_ptr<VariableImpl> live_;  // inputs only: the Variable itself
  std::shared_ptr<Node> grad_fn_;  // a saved input's history (non-leaf)
  std::shared_ptr<Node> grad_accumulator_;  // a saved leaf's that requires grad
  uint32_t version_ = 0;
  uint32_t output_nr_ = 0;
  bool requires_grad_ = false;
  bool is_output_ = false;
  bool defined_ = false;
  bool released_ = false;
};

/// Accumulates the gradient of a leaf into its grad().
class AccumulateGrad : public Node {
 public:
  explicit AccumulateGrad(std::shared_ptr<VariableImpl> leaf);
  variable_list apply(variable_list&& grad_outputs) override;
  std::string name() const override { return "AccumulateGrad"; }
  /// An undefined gradient (a formula that gives none for this input)
  /// leaves the leaf's grad as it is, as in PyTorch; no zeros are made.
  bool materializes_grads() const override { return false; }
  const std::shared_ptr<VariableImpl>& leaf() const { return leaf_; }

 private:
  std::shared_ptr<VariableImpl> leaf_;
};

/// The base of the nodes built-in ops record: a name and the Variables
/// saved for backward. Each op's own state lives in OpNode<State>.
class FunctionNode : public Node {
 public:
  std::string name() const override { return name_; }
  void release_variables() override;

  /// Saved variables, in the order the op saved them; ops name the slots.
  absl::InlinedVector<SavedVariable, 2> saved;  // most ops save one or two
  Variable var(size_t i) const { return saved[i].unpack(*this); }
  /// Whether input i's gradient is needed (its edge leads somewhere).
  bool needs_input_grad(size_t i) const { return next_edges()[i].valid(); }

 protected:
  explicit FunctionNode(const char* name) : name_(name) {}
  /// Throws when a backward without retain_graph freed the saved state.
  void check_not_released() const;
  bool released_ = false;  // saved state was freed by a backward

 private:
  const char* name_;
};

// Note [Named node state]
// A backward formula reads what its op saved by name: `n.state.dims`,
// `n.state.keepdim`, `n.state.input_shape`. Each op (or family of ops) has a
// small State struct with named members, held inline in its OpNode<State>,
// so recording allocates one node as before, and the formula receives the
// node typed with its State (record_op deduces it from the formula's
// parameter). A State that holds Tensors (indices, masks) declares
// `bool release()`, which frees them after a backward without retain_graph,
// as the saved variables are freed, and returns whether it freed anything:
// a node whose state was freed refuses another backward.

/// An op with nothing to save beyond its saved variables.
struct NoState {};

template <class State, class = void>
struct has_release : std::false_type {};
template <class State>
struct has_release<State, std::void_t<decltype(std::declval<State&>().release())>>
    : std::true_type {};

/// The node of a built-in op: its backward formula and its named state.
template <class State>
class OpNode final : public FunctionNode {
 public:
  using Formula = variable_list (*)(OpNode& self, const variable_list& grads);
  OpNode(const char* name, Formula formula) : FunctionNode(name), formula_(formula) {}

  variable_list apply(variable_list&& grad_outputs) override {
    check_not_released();
    return formula_(*this, grad_outputs);
  }
  void release_variables() override {
    FunctionNode::release_variables();
    if constexpr (has_release<State>::value) {
      if (state.release()) released_ = true;
    }
  }

  State state;

 private:
  Formula formula_;
};

// Note [History lock]
// A Variable's history (grad_fn, output_nr) is read by every op that takes
// it as an input, possibly on several threads at once, and rewritten by
// refresh_view, rebase_history, detach_, rebind and custom functions. A
// shared_ptr read while another thread assigns it is a data race (the reader
// may copy a freed control block), so once a VariableImpl is visible to
// other code its history is read with read_history() and written with
// write_history(), both under its history lock: a spin lock, because the
// critical section is one shared_ptr copy and readers are on the hot path
// of every op. A fresh VariableImpl no one else can see yet may be written
// directly. requires_grad is an atomic for the same reason.
class SpinLock {
 public:
  void lock() {
    while (locked_.exchange(true, std::memory_order_acquire)) {
      while (locked_.load(std::memory_order_relaxed)) std::this_thread::yield();
    }
  }
  void unlock() { locked_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> locked_{false};
};

}  // namespace autograd

/// The state shared by every handle to one Variable.
struct VariableImpl {
  explicit VariableImpl(Tensor d) : data(std::move(d)) {}
  Tensor data;
  std::atomic<bool> requires_grad{false};
  bool retains_grad = false;
  /// grad_fn and output_nr: see Note [History lock].
  std::shared_ptr<autograd::Node> grad_fn;
  uint32_t output_nr = 0;
  mutable autograd::SpinLock history_lock;
  /// Guards grad, grad_accumulator, retains_grad and hooks: a spin lock too
  /// (Note [History lock]); an optimizer takes it for every parameter it
  /// reads or clears the grad of, and the engine for every leaf it reaches.
  autograd::SpinLock mutex;
  Variable grad;
  std::weak_ptr<autograd::Node> grad_accumulator;
  std::map<int, Variable::Hook> hooks;
  int next_hook_id = 0;
  /// Set on a view op's result: the Variable (never itself a view) whose
  /// storage it shares. An in-place write through the view rebases the
  /// base's history; the view's own history is regenerated from the base's
  /// whenever the storage's version moved past `view_version` (the base or
  /// another of its views was written since).
  std::shared_ptr<VariableImpl> view_base;
  std::atomic<uint32_t> view_version{0};
};

namespace autograd {

/// `impl`'s grad_fn and output_nr, read together (Note [History lock]).
Edge read_history(const VariableImpl& impl);
/// Sets `impl`'s grad_fn and output_nr (Note [History lock]).
void write_history(VariableImpl& impl, std::shared_ptr<Node> grad_fn, uint32_t output_nr);

/// For a view whose base requires grad and whose storage was written since
/// its history was set: makes the view's history a fresh view of the base's
/// current history (PyTorch regenerates a view's grad_fn the same way).
void refresh_view(VariableImpl& impl);
/// The base `impl` is a tracked view of (null when it is none, or when set_data
/// gave either of them other storage).
VariableImpl* tracked_base(const VariableImpl& impl);

/// True when grad mode is on and some input requires grad.
bool should_record(std::initializer_list<const Variable*> inputs);
/// True when grad mode is on and some input requires grad.
bool should_record(const std::vector<Variable>& inputs);

/// Wraps op results and, when `node` is set, connects them to it: the node
/// gets edges to `inputs` and becomes the outputs' grad_fn.
Variable make_result(Tensor data, std::shared_ptr<Node> node, uint32_t output_nr = 0);

/// Gives `node` its device and one edge per input.
void connect(Node& node, std::initializer_list<const Variable*> inputs, Device device);
void connect(Node& node, const std::vector<Variable>& inputs, Device device);

template <class State>
std::shared_ptr<OpNode<State>> new_op_node(const char* name,
                                           variable_list (*formula)(OpNode<State>&,
                                                                    const variable_list&)) {
  return std::allocate_shared<OpNode<State>>(CachedAllocator<OpNode<State>>(), name, formula);
}

/// Creates the node of an op on `inputs` if recording is needed (else
/// null). `formula` is a function or captureless lambda taking
/// `OpNode<State>&`; the node holds a State (Note [Named node state]) that
/// the op fills right after.
template <class Formula>
auto record_op(const char* name, Formula formula, std::initializer_list<const Variable*> inputs,
               Device device) -> decltype(new_op_node(name, +formula)) {
  if (!should_record(inputs)) return nullptr;
  auto node = new_op_node(name, +formula);
  connect(*node, inputs, device);
  return node;
}
template <class Formula>
auto record_op(const char* name, Formula formula, const std::vector<Variable>& inputs,
               Device device) -> decltype(new_op_node(name, +formula)) {
  if (!should_record(inputs)) return nullptr;
  auto node = new_op_node(name, +formula);
  connect(*node, inputs, device);
  return node;
}

}  // namespace autograd
}  // namespace torchlet
