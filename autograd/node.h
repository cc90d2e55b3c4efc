#pragma once

// The public face of the graph: a Variable's grad_fn() is a Node, and its
// next_edges() lead to the nodes of the op's inputs. How ops record nodes,
// save variables and keep a Variable's state is internal to //autograd
// (Note [Public graph, internal plumbing]).

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
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
  absl::InlinedVector<OutputMeta, 1> output_meta_;  // most nodes have one output
  uint32_t num_outputs_ = 1;
  Device device_;
  std::mutex hooks_mutex_;
  std::vector<std::pair<uint32_t, std::weak_ptr<VariableImpl>>> hooked_outputs_;
  // Set once hooked_outputs_ has an entry: most nodes never do, and their
  // backward skips the lock.
  std::atomic<bool> has_hooked_outputs_{false};
};

/// The edge a gradient for `v` flows along: its grad_fn, or its leaf's
/// AccumulateGrad (created once and shared), or none.
Edge gradient_edge(const Variable& v);

}  // namespace autograd
}  // namespace torchlet
