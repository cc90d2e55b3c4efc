// Differentiable indexing: v.index({...}), v.index_put(...) and
// v.index_put_(...). The index list is kept in the node and replayed by the
// formulas: the gradient of an index is an accumulating index_put into
// zeros, and that of an index_put is the index of the gradient, so double
// backward works.
#include <algorithm>

#include "autograd/op_helpers.h"

namespace torchlet {

using autograd::InputMeta;
using autograd::OpNode;
using autograd::constant;
using autograd::record;

namespace {

// Frees an index list that holds index tensors (the node then refuses
// another backward); a list of integers and slices holds no tensor and is
// kept, so such a node may run again.
bool release_index_tensors(std::vector<TensorIndex>& indices) {
  const bool has_tensor =
      std::any_of(indices.begin(), indices.end(),
                  [](const TensorIndex& i) { return i.kind() == TensorIndex::Kind::kTensor; });
  if (has_tensor) indices.clear();
  return has_tensor;
}

// The index list, kept as given.
struct IndexState {
  SizeVec input_shape;
  std::vector<TensorIndex> indices;
  bool release() { return release_index_tensors(indices); }
};
struct IndexPutState {
  InputMeta value;
  bool accumulate = false;
  std::vector<TensorIndex> indices;
  bool release() { return release_index_tensors(indices); }
};

}  // namespace

Variable Variable::index(std::initializer_list<TensorIndex> indices) const {
  return index(std::vector<TensorIndex>(indices));
}

Variable Variable::index(const std::vector<TensorIndex>& indices) const {
  Variable result = record("IndexBackward0", [](OpNode<IndexState>& n, const variable_list& g)
                                                 -> variable_list {
    const IndexState& s = n.state;
    return {autograd::constant_zeros(s.input_shape, g[0].dtype(), g[0].device())
                .index_put(s.indices, g[0], true)};
  }, {this}, data().index(indices), [&](OpNode<IndexState>& n) {
    n.state = {SizeVec(sizes().begin(), sizes().end()), indices};
  });
  autograd::mark_view(result, *this);  // only when no tensor index made a copy
  return result;
}

Variable Variable::index_put(const std::vector<TensorIndex>& indices, const Variable& value,
                             bool accumulate) const {
  Tensor out = data().clone();
  out.index_put_(indices, value.data(), accumulate);
  return record("IndexPutBackward0", [](OpNode<IndexPutState>& n, const variable_list& g)
                                          -> variable_list {
    const IndexPutState& s = n.state;
    variable_list grads(2);
    if (n.needs_input_grad(0)) {
      // Written positions lose their old value unless accumulating.
      grads[0] = s.accumulate ? g[0]
                              : g[0].index_put(s.indices, autograd::constant_zeros(
                                                              {}, g[0].dtype(), g[0].device()));
    }
    if (n.needs_input_grad(1)) grads[1] = autograd::sum_to(g[0].index(s.indices), s.value);
    return grads;
  }, {this, &value}, std::move(out), [&](OpNode<IndexPutState>& n) {
    n.state = {InputMeta(value), accumulate, indices};
  });
}

Variable& Variable::index_put_(std::initializer_list<TensorIndex> indices, const Variable& value,
                               bool accumulate) {
  return index_put_(std::vector<TensorIndex>(indices), value, accumulate);
}

Variable& Variable::index_put_(const std::vector<TensorIndex>& indices, const Variable& value,
                               bool accumulate) {
  return autograd::inplace("index_put_", *this, false, {&value}, [&](const Variable& old) {
    return old.index_put(indices, value, accumulate);
  }, [&](Tensor& t) { t.index_put_(indices, value.data(), accumulate); });
}

Variable& Variable::index_put_(std::initializer_list<TensorIndex> indices, Scalar value) {
  return index_put_(std::vector<TensorIndex>(indices), value);
}

Variable& Variable::index_put_(const std::vector<TensorIndex>& indices, Scalar value) {
  const Variable v = constant(scalar_tensor(value, options()));
  return index_put_(indices, v);
}

}  // namespace torchlet
