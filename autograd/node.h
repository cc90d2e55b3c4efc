#pragma once

// The graph: nodes (backward functions), edges, saved variables, and the
// state behind a Variable handle. Ops record through record_op() below.

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "autograd/variable.h"

namespace torchlet {

namespace autograd {

/// An input slot of a node: gradients flowing along it reach `fn`'s input
/// `input_nr`. A null `fn` is an input that needs no gradient.
struct Edge {
  std::shared_ptr<Node> fn;
  uint32_t input_nr = 0;
  bool valid() const { return fn != nullptr; }
};

/// A backward function: takes the gradients of the op's outputs and returns
/// those of its inputs (one per next edge; undefined where none flows).
class Node : public std::enable_shared_from_this<Node> {
 public:
  Node();
  virtual ~Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  virtual variable_list apply(variable_list&& grad_outputs) = 0;
  virtual std::string name() const = 0;
  /// Frees saved tensors (after a backward without retain_graph).
  virtual void release_variables() {}
  /// Whether the engine gives apply() zeros for outputs no gradient reached
  /// (true), or undefined Variables (custom functions, which materialize
  /// zeros themselves when their context asks for it).
  virtual bool materializes_grads() const { return true; }

  const std::vector<Edge>& next_edges() const { return next_edges_; }
  std::vector<Edge>& mutable_next_edges() { return next_edges_; }
  uint32_t num_outputs() const { return num_outputs_; }
  void set_num_outputs(uint32_t n) { num_outputs_ = n; }
  /// Order of recording; the engine runs later nodes first.
  uint64_t sequence_nr() const { return sequence_nr_; }
  /// Where this node's gradients live, and so where it runs.
  Device device() const { return device_; }
  void set_device(Device device) { device_ = device; }

  /// Records output `output_nr`'s shape, dtype and device (for zero grads).
  void set_output_meta(uint32_t output_nr, const Tensor& t);
  /// Zeros shaped like output `output_nr` (an output no gradient reached).
  Variable zeros_for_output(uint32_t output_nr) const;

  /// Variables (outputs of this node) with hooks or retain_grad: the engine
  /// runs their hooks on the incoming gradient of `output_nr`.
  void add_hooked_output(uint32_t output_nr, const std::shared_ptr<VariableImpl>& impl);
  /// Runs the hooks of output `output_nr`'s Variable (if any) on `grad`.
  Variable run_output_hooks(uint32_t output_nr, Variable grad);

 protected:
  uint64_t sequence_nr_;

 private:
  struct OutputMeta {
    SizeVec shape;
    DType dtype = kFloat32;
    Device device;
  };
  std::vector<Edge> next_edges_;
  std::vector<OutputMeta> output_meta_;
  uint32_t num_outputs_ = 1;
  Device device_;
  std::mutex hooks_mutex_;
  std::vector<std::pair<uint32_t, std::weak_ptr<VariableImpl>>> hooked_outputs_;
};

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

/// The node every built-in op records: saved variables and metadata, and a
/// backward formula written with Variable ops (so create_graph records it).
class FunctionNode : public Node {
 public:
  using Formula = variable_list (*)(FunctionNode& self, const variable_list& grads);
  FunctionNode(const char* name, Formula formula) : name_(name), formula_(formula) {}

  variable_list apply(variable_list&& grad_outputs) override;
  std::string name() const override { return name_; }
  void release_variables() override;

  /// Saved variables, in the order the op saved them.
  std::vector<SavedVariable> saved;
  /// Saved shapes, integers and numbers the formula needs.
  std::vector<SizeVec> shapes;
  std::vector<DType> dtypes;
  std::vector<int64_t> ints;
  std::vector<double> numbers;
  std::vector<Tensor> tensors;  // non-differentiable (indices, masks)
  Variable var(size_t i) const { return saved[i].unpack(*this); }
  /// Whether input i's gradient is needed (its edge leads somewhere).
  bool needs_input_grad(size_t i) const { return next_edges()[i].valid(); }

 private:
  const char* name_;
  Formula formula_;
  bool released_ = false;  // saved state was freed by a backward
};

}  // namespace autograd

namespace autograd {

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
  std::mutex mutex;  // guards grad, grad_accumulator and hooks
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

/// The edge a gradient for `v` flows along: its grad_fn, or its leaf's
/// AccumulateGrad (created once and shared), or none.
Edge gradient_edge(const Variable& v);

/// For a view whose base requires grad and whose storage was written since
/// its history was set: makes the view's history a fresh view of the base's
/// current history (PyTorch regenerates a view's grad_fn the same way).
void refresh_view(VariableImpl& impl);
/// The base `impl` is a tracked view of (null when it is none, or when set_data
/// gave either of them other storage).
VariableImpl* tracked_base(const VariableImpl& impl);

/// True when grad mode is on and some input requires grad.
bool should_record(std::initializer_list<const Variable*> inputs);

/// Wraps op results and, when `node` is set, connects them to it: the node
/// gets edges to `inputs` and becomes the outputs' grad_fn.
Variable make_result(Tensor data, const std::shared_ptr<FunctionNode>& node, uint32_t output_nr = 0);
/// Creates a FunctionNode for an op on `inputs` if recording is needed
/// (else null).
std::shared_ptr<FunctionNode> record_op(const char* name, FunctionNode::Formula formula,
                                        std::initializer_list<const Variable*> inputs,
                                        Device device);
std::shared_ptr<FunctionNode> record_op(const char* name, FunctionNode::Formula formula,
                                        const std::vector<Variable>& inputs, Device device);

}  // namespace autograd
}  // namespace torchlet
