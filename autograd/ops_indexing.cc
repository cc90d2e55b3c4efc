// Differentiable indexing: v.index({...}), v.index_put(...) and
// v.index_put_(...). The index list is kept in the node (integers and slice
// bounds as ints, index tensors as tensors) and replayed by the formulas:
// the gradient of an index is an accumulating index_put into zeros, and that
// of an index_put is the index of the gradient, so double backward works.
#include "autograd/op_helpers.h"

namespace torchlet {

using autograd::FunctionNode;
using autograd::constant;
using autograd::record;

namespace {

using Kind = TensorIndex::Kind;

// Five ints per entry: kind, then the integer, the index tensor's slot, or
// the slice's (has start, start, has stop, stop, step) packed into four.
constexpr size_t kIntsPerEntry = 5;

void save_indices(FunctionNode& n, const std::vector<TensorIndex>& indices) {
  for (const TensorIndex& entry : indices) {
    int64_t fields[kIntsPerEntry] = {static_cast<int64_t>(entry.kind()), 0, 0, 0, 0};
    switch (entry.kind()) {
      case Kind::kInteger: fields[1] = entry.integer(); break;
      case Kind::kTensor:
        fields[1] = static_cast<int64_t>(n.tensors.size());
        n.tensors.push_back(entry.tensor());
        break;
      case Kind::kSlice: {
        const indexing::Slice& s = entry.slice();
        fields[1] = (s.start().has_value() ? 1 : 0) | (s.stop().has_value() ? 2 : 0);
        fields[2] = s.start().value_or(0);
        fields[3] = s.stop().value_or(0);
        fields[4] = s.step();
        break;
      }
      case Kind::kNone:
      case Kind::kEllipsis: break;
    }
    n.ints.insert(n.ints.end(), fields, fields + kIntsPerEntry);
  }
}

// The index list saved from ints[first...].
std::vector<TensorIndex> load_indices(const FunctionNode& n, size_t first) {
  std::vector<TensorIndex> indices;
  for (size_t i = first; i + kIntsPerEntry <= n.ints.size(); i += kIntsPerEntry) {
    const int64_t* f = &n.ints[i];
    switch (static_cast<Kind>(f[0])) {
      case Kind::kInteger: indices.emplace_back(f[1]); break;
      case Kind::kTensor: indices.emplace_back(n.tensors[static_cast<size_t>(f[1])]); break;
      case Kind::kSlice:
        indices.emplace_back(indexing::Slice((f[1] & 1) ? std::optional<int64_t>(f[2]) : std::nullopt,
                                             (f[1] & 2) ? std::optional<int64_t>(f[3]) : std::nullopt,
                                             f[4]));
        break;
      case Kind::kNone: indices.emplace_back(indexing::None); break;
      case Kind::kEllipsis: indices.emplace_back(indexing::Ellipsis); break;
    }
  }
  return indices;
}

}  // namespace

Variable Variable::index(std::initializer_list<TensorIndex> indices) const {
  return index(std::vector<TensorIndex>(indices));
}

Variable Variable::index(const std::vector<TensorIndex>& indices) const {
  Variable result = record("IndexBackward0", [](FunctionNode& n, const variable_list& g)
                                                 -> variable_list {
    return {autograd::constant_zeros(n.shapes[0], g[0].dtype(), g[0].device()).index_put(load_indices(n, 0), g[0], true)};
  }, {this}, data().index(indices), [&](FunctionNode& n) {
    n.shapes.emplace_back(sizes().begin(), sizes().end());
    save_indices(n, indices);
  });
  autograd::mark_view(result, *this);  // only when no tensor index made a copy
  return result;
}

Variable Variable::index_put(const std::vector<TensorIndex>& indices, const Variable& value,
                             bool accumulate) const {
  Tensor out = data().clone();
  out.index_put_(indices, value.data(), accumulate);
  return record("IndexPutBackward0", [](FunctionNode& n, const variable_list& g)
                                          -> variable_list {
    const std::vector<TensorIndex> indices = load_indices(n, 1);
    variable_list grads(2);
    if (n.needs_input_grad(0)) {
      // Written positions lose their old value unless accumulating.
      grads[0] = n.ints[0] ? g[0] : g[0].index_put(indices, autograd::constant_zeros({}, g[0].dtype(), g[0].device()));
    }
    if (n.needs_input_grad(1)) {
      grads[1] = autograd::sum_to(g[0].index(indices), n.shapes[0], n.dtypes[0]);
    }
    return grads;
  }, {this, &value}, std::move(out), [&](FunctionNode& n) {
    autograd::save_meta(n, value);
    n.ints.push_back(accumulate ? 1 : 0);
    save_indices(n, indices);
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
