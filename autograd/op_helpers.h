#pragma once

// Internal to //autograd: helpers the differentiable ops share.

#include <memory>

#include "autograd/grad_mode.h"
#include "autograd/internal/graph.h"

namespace torchlet::autograd {

/// `grad` summed over the dims that broadcasting expanded, back to `shape`,
/// and converted to `dtype` (the input's).
Variable sum_to(const Variable& grad, IntArrayRef shape, DType dtype);

/// An input's shape and dtype, saved so that its gradient can be given
/// back in that form (sum_to).
struct InputMeta {
  InputMeta() = default;
  explicit InputMeta(const Variable& input)
      : shape(input.sizes().begin(), input.sizes().end()), dtype(input.dtype()) {}
  SizeVec shape;
  DType dtype = kFloat32;
};

/// `grad` summed and converted back to the input `meta` describes.
inline Variable sum_to(const Variable& grad, const InputMeta& meta) {
  return sum_to(grad, meta.shape, meta.dtype);
}

/// The node of an op that saves nothing beyond its saved variables.
using PlainNode = OpNode<NoState>;

/// The state of an op that needs only its input's metadata.
struct InputMetaState {
  InputMeta input;
};

/// The common case: an op with these inputs producing `out`. Returns the
/// result Variable; `setup` (if recording) fills the node's state and saves
/// what the formula needs (Note [Named node state]).
template <typename Formula, typename Setup>
Variable record(const char* name, Formula formula, std::initializer_list<const Variable*> inputs,
                Tensor out, Setup&& setup) {
  auto node = record_op(name, formula, inputs, out.device());
  if (node) setup(*node);
  return make_result(std::move(out), std::move(node));
}

/// A constant (no history) Variable.
inline Variable constant(Tensor t) { return Variable(std::move(t), false); }
/// Constant zeros, the seed of most scatter-style backward formulas.
inline Variable constant_zeros(IntArrayRef shape, DType dtype, Device device) {
  return constant(zeros(shape, TensorOptions(dtype).device(device)));
}

/// Records that `result` (a view op's output) views `input`'s data, unless
/// the op had to copy.
void mark_view(const Variable& result, const Variable& input);

/// `out` (a view of x's storage with any geometry) as a differentiable view
/// of `x`: the gradient is summed back into x's elements.
Variable as_strided_view(const Variable& x, Tensor out);

/// Throws unless an in-place op may write to `self` (PyTorch's rules).
void check_inplace(const char* op, const Variable& self);
/// Makes `self` hold `result`'s value and history (in-place ops): copies the
/// data into self's storage and rebases self onto result's node. Through a
/// view, the base's history is rebased (CopySlices) and the view's follows.
void rebase_history(const Variable& self, const Variable& result);
/// A handle with self's history but its own data (a copy when `copy_data`),
/// so an in-place op can compute out of place from the old value.
Variable snapshot(const Variable& self, bool copy_data);

/// The shape every in-place op on Variables follows. Without recording it
/// writes straight into the data (optimizers run so); otherwise `op`
/// computes the result out of place from a snapshot of self (a copy of the
/// old value when the op's backward needs it) and self is rebased onto it.
template <typename Op, typename Raw>
Variable& inplace(const char* name, Variable& self, bool needs_old_value,
                  std::initializer_list<const Variable*> others, Op op, Raw raw) {
  check_inplace(name, self);
  bool record = self.requires_grad();
  for (const Variable* o : others) record = record || o->requires_grad();
  if (!record || !is_grad_enabled()) {
    Tensor data = self.data();
    raw(data);
    return self;
  }
  const Variable result = op(snapshot(self, needs_old_value));
  rebase_history(self, result);
  return self;
}

// Note [Truly in-place ops]
// An in-place op whose backward never reads the old value of self (relu_,
// add_, mul_ by a number, zero_, fill_, ...) writes straight into self's
// data even while recording, and the node is recorded with self's data as
// its output: no temporary of self's size, no copy back, and an op that
// saves its output (relu, sigmoid, exp) saves self's own storage, at the
// version the write left it. ReLU(inplace=True) then saves memory as in
// PyTorch. Through a tracked view the base's history must become
// CopySlices, so there the op writes into a copy that rebase_history()
// copies back.

/// Adopts `result`'s history for `self`, whose data `result` already holds.
void adopt_history(const Variable& self, const Variable& result);

/// The in-place op of the note above. `raw(Tensor&)` writes the op into a
/// tensor; `record_on(old, out)` records the out-of-place op on `old` (a
/// handle with self's history) with `out` as its already computed output.
template <typename Raw, typename RecordOn>
Variable& inplace_direct(const char* name, Variable& self,
                         std::initializer_list<const Variable*> others, Raw raw,
                         RecordOn record_on) {
  check_inplace(name, self);
  bool record = self.requires_grad();
  for (const Variable* o : others) record = record || o->requires_grad();
  Tensor data = self.data();
  if (!record || !is_grad_enabled()) {
    raw(data);
    return self;
  }
  const Variable old = snapshot(self, false);
  if (tracked_base(*self.impl()) != nullptr) {
    Tensor out = data.clone();
    raw(out);
    rebase_history(self, record_on(old, std::move(out)));
    return self;
  }
  raw(data);
  adopt_history(self, record_on(old, data));
  return self;
}

}  // namespace torchlet::autograd
