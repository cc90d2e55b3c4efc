// Tensor::index and Tensor::index_put_: PyTorch's t[...] and t[...] = v.
//
// Integers, slices, None and Ellipsis become views (select, slice,
// unsqueeze). At most one tensor index (int64 indices or a bool mask) is
// then applied to that view by a gather (index) or scatter (index_put_)
// loop over the element offsets it selects (tensor/cpu/index_kernels.cc).
#include "tensor/indexing.h"

#include <optional>
#include <vector>

#include "tensor/cpu/kernels.h"
#include "tensor/cuda/kernels.h"
#include "tensor/factories.h"
#include "tensor/op_utils.h"

namespace torchlet {
namespace {

using Kind = TensorIndex::Kind;

// The tensor after the basic indices, and where the tensor index (if any)
// applies to it.
struct IndexPlan {
  Tensor view;
  Tensor index;           // undefined when there is no tensor index
  int64_t view_dim = 0;   // first dim of `view` the tensor index covers
  int64_t self_dim = 0;   // the same dim of the indexed tensor, for messages
};

// Element offsets (from the view's first element) of the values an
// advanced index reads or writes, in row-major order of the result:
// outer dims x selected positions x inner dims; and the result's shape.
struct AdvancedIndex : cpu::OffsetIndex {
  SizeVec shape;
};

bool is_mask(const Tensor& index) { return index.dtype() == kBool; }

// A mask covers as many dims as it has; int64 indices cover one.
int64_t covered_dims(const Tensor& index) { return is_mask(index) ? index.dim() : 1; }

// How many dims of the indexed tensor an entry consumes.
int64_t dims_consumed(const TensorIndex& entry) {
  switch (entry.kind()) {
    case Kind::kInteger:
    case Kind::kSlice: return 1;
    case Kind::kTensor: return covered_dims(entry.tensor());
    case Kind::kNone:
    case Kind::kEllipsis: return 0;
  }
  return 0;
}

void check_entry(const Tensor& self, const TensorIndex& entry, const char* op) {
  if (entry.kind() == Kind::kSlice) {
    TORCHLET_CHECK(entry.slice().step() > 0, op, ": slice step must be positive, got ",
                   entry.slice().step(), " (tensor of shape ", shape_str(self.sizes()), ")");
  }
  if (entry.kind() != Kind::kTensor) return;
  check_defined(op, entry.tensor());
  const DType dtype = entry.tensor().dtype();
  TORCHLET_CHECK(dtype == kInt64 || dtype == kBool, op,
                 ": tensors used as indices must be int64 or bool tensors, got a ", dtype,
                 " tensor of shape ", shape_str(entry.tensor().sizes()));
}

// Validates the entries; returns how many dims they consume besides Ellipsis.
int64_t check_entries(const Tensor& self, const std::vector<TensorIndex>& indices,
                      const char* op) {
  int64_t consumed = 0, ellipses = 0, tensors = 0;
  for (const TensorIndex& entry : indices) {
    check_entry(self, entry, op);
    consumed += dims_consumed(entry);
    ellipses += entry.kind() == Kind::kEllipsis;
    tensors += entry.kind() == Kind::kTensor;
  }
  TORCHLET_CHECK(ellipses <= 1, op, ": an index can only have a single ellipsis ('...')");
  TORCHLET_CHECK(tensors <= 1, op, ": only one tensor index is supported, got ", tensors,
                 " (tensor of shape ", shape_str(self.sizes()), ")");
  TORCHLET_CHECK(consumed <= self.dim(), op, ": too many indices for tensor of dimension ",
                 self.dim(), " (shape ", shape_str(self.sizes()), ", indexed dims ", consumed,
                 ")");
  return consumed;
}

// `i` wrapped into [0, size of dim `d`), with PyTorch's indexing message when
// out of range.
int64_t checked_integer(const Tensor& self, int64_t d, int64_t i, const char* op) {
  const int64_t size = self.sizes()[d];
  TORCHLET_CHECK(i >= -size && i < size, op, ": index ", i, " is out of bounds for dimension ", d,
                 " with size ", size);
  return i < 0 ? i + size : i;
}

IndexPlan apply_basic(const Tensor& self, const std::vector<TensorIndex>& indices,
                      const char* op) {
  const int64_t ellipsis_dims = self.dim() - check_entries(self, indices, op);
  IndexPlan plan{self};
  int64_t view_dim = 0, self_dim = 0;
  for (const TensorIndex& entry : indices) {
    switch (entry.kind()) {
      case Kind::kInteger:
        plan.view =
            plan.view.select(view_dim, checked_integer(self, self_dim, entry.integer(), op));
        ++self_dim;
        break;
      case Kind::kSlice: {
        const indexing::Slice& s = entry.slice();
        plan.view = plan.view.slice(view_dim, s.start(), s.stop(), s.step());
        ++view_dim;
        ++self_dim;
        break;
      }
      case Kind::kNone:
        plan.view = plan.view.unsqueeze(view_dim);
        ++view_dim;
        break;
      case Kind::kEllipsis:
        view_dim += ellipsis_dims;
        self_dim += ellipsis_dims;
        break;
      case Kind::kTensor:
        plan.index = entry.tensor();
        plan.view_dim = view_dim;
        plan.self_dim = self_dim;
        view_dim += dims_consumed(entry);
        self_dim += dims_consumed(entry);
        break;
    }
  }
  return plan;
}

std::vector<int64_t> index_positions(const Tensor& self, const IndexPlan& plan, const char* op) {
  const int64_t size = plan.view.sizes()[plan.view_dim];
  const int64_t stride = plan.view.strides()[plan.view_dim];
  std::vector<int64_t> positions = plan.index.to_vector<int64_t>();
  const std::optional<int64_t> bad = cpu::indices_to_offsets(positions, size, stride);
  TORCHLET_CHECK(!bad, op, ": index ", *bad, " is out of bounds for dimension ", plan.self_dim,
                 " with size ", size, " (tensor of shape ", shape_str(self.sizes()), ")");
  return positions;
}

std::vector<int64_t> mask_positions(const Tensor& self, const IndexPlan& plan, const char* op) {
  const IntArrayRef covered = plan.view.sizes().subspan(plan.view_dim, plan.index.dim());
  TORCHLET_CHECK(covered == plan.index.sizes(), op, ": the shape of the mask ",
                 shape_str(plan.index.sizes()), " does not match the shape ", shape_str(covered),
                 " of the dims it indexes, starting at dimension ", plan.self_dim,
                 " (tensor of shape ", shape_str(self.sizes()), ")");
  const std::vector<int64_t> cells = element_offsets(
      covered, plan.view.strides().subspan(plan.view_dim, plan.index.dim()));
  return cpu::masked_offsets(cells, plan.index.to_vector<bool>());
}

AdvancedIndex resolve_advanced(const Tensor& self, const IndexPlan& plan, const char* op) {
  const IntArrayRef sizes = plan.view.sizes(), strides = plan.view.strides();
  const size_t d = plan.view_dim;
  const size_t end = d + covered_dims(plan.index);
  AdvancedIndex ix;
  ix.outer = element_offsets(sizes.subspan(0, d), strides.subspan(0, d));
  ix.inner = element_offsets(sizes.subspan(end), strides.subspan(end));
  ix.positions = is_mask(plan.index) ? mask_positions(self, plan, op)
                                     : index_positions(self, plan, op);
  ix.shape.assign(sizes.begin(), sizes.begin() + d);
  if (is_mask(plan.index)) {
    ix.shape.push_back(static_cast<int64_t>(ix.positions.size()));
  } else {
    ix.shape.insert(ix.shape.end(), plan.index.sizes().begin(), plan.index.sizes().end());
  }
  ix.shape.insert(ix.shape.end(), sizes.begin() + end, sizes.end());
  return ix;
}

bool broadcasts_to(IntArrayRef from, IntArrayRef to) {
  if (from.size() > to.size()) return false;
  const size_t lead = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i) {
    if (from[i] != 1 && from[i] != to[lead + i]) return false;
  }
  return true;
}

// Throws unless a value of shape `value` broadcasts to the indexing result.
void check_value_shape(IntArrayRef value, IntArrayRef result, const char* op) {
  TORCHLET_CHECK(broadcasts_to(value, result), op, ": shape mismatch: value tensor of shape ",
                 shape_str(value), " cannot be broadcast to indexing result of shape ",
                 shape_str(result));
}

Tensor index_advanced(const Tensor& self, const IndexPlan& plan) {
  const AdvancedIndex ix = resolve_advanced(self, plan, "index");
  Tensor out = empty(ix.shape, self.options());
  if (out.is_cuda()) {
    cuda::offset_gather(out, plan.view, ix);
  } else {
    cpu::offset_gather(out, plan.view, ix);
  }
  return out;
}

void index_put_advanced(const Tensor& self, const IndexPlan& plan, const Tensor& value,
                        bool accumulate) {
  const AdvancedIndex ix = resolve_advanced(self, plan, "index_put_");
  check_value_shape(value.sizes(), ix.shape, "index_put_");
  // A contiguous copy of the value: it may alias the written tensor.
  Tensor src = empty(ix.shape, self.options());
  src.copy_(value);
  if (self.is_cuda()) {
    cuda::offset_scatter(plan.view, src, ix, accumulate);
  } else {
    cpu::offset_scatter(plan.view, src, ix, accumulate);
  }
  self.bump_version();
}

IndexPlan plan_put(const Tensor& self, const std::vector<TensorIndex>& indices) {
  IndexPlan plan = apply_basic(self, indices, "index_put_");
  check_no_internal_overlap("index_put_", plan.view);
  return plan;
}

}  // namespace

Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const {
  return index(std::vector<TensorIndex>(indices));
}

Tensor Tensor::index(const std::vector<TensorIndex>& indices) const {
  const IndexPlan plan = apply_basic(*this, indices, "index");
  return plan.index.defined() ? index_advanced(*this, plan) : plan.view;
}

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Tensor& value,
                           bool accumulate) {
  return index_put_(std::vector<TensorIndex>(indices), value, accumulate);
}

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, Scalar value) {
  return index_put_(std::vector<TensorIndex>(indices), value);
}

Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, const Tensor& value,
                           bool accumulate) {
  check_defined("index_put_", value);
  IndexPlan plan = plan_put(*this, indices);
  if (plan.index.defined()) {
    index_put_advanced(*this, plan, value, accumulate);
  } else {
    check_value_shape(value.sizes(), plan.view.sizes(), "index_put_");
    if (accumulate) {
      plan.view.add_(value.dtype() == dtype() ? value : value.to(dtype()));
    } else {
      plan.view.copy_(value);
    }
  }
  return *this;
}

Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, Scalar value) {
  IndexPlan plan = plan_put(*this, indices);
  if (plan.index.defined()) {
    index_put_advanced(*this, plan, scalar_tensor(value, dtype()), /*accumulate=*/false);
  } else {
    plan.view.fill_(value);
  }
  return *this;
}

}  // namespace torchlet
