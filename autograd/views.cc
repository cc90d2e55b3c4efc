// Views and in-place writes through them (PyTorch's CopySlices).
//
// A view op's result remembers its base. Writing in place through a view
// changes the base's value, so the base's history is rebased onto a
// "CopySlices" node: the old base's gradient with the view's region zeroed,
// plus the gradient of the new region routed to the op that wrote it. The
// view's own history then becomes a view of the base's new history, and any
// other view of the base regenerates its history the same way the next time
// it is used (the storage's version tells it the base changed).
//
// The geometry of base and view (sizes, strides, offsets into their shared
// storage) is all the two nodes keep; the map from view elements to base
// elements is rebuilt when their formula runs, so nothing is released after a
// backward and the nodes stay usable.
#include "autograd/op_helpers.h"

#include <algorithm>

#include "autograd/grad_mode.h"

namespace torchlet::autograd {
namespace {

// Where a tensor lies in its storage.
struct Geometry {
  Geometry() = default;
  explicit Geometry(const Tensor& t)
      : sizes(t.sizes().begin(), t.sizes().end()),
        strides(t.strides().begin(), t.strides().end()),
        offset(t.storage_offset()) {}
  SizeVec sizes;
  SizeVec strides;
  int64_t offset = 0;
};

// The state of AsStridedBackward0 and CopySlices: base and view geometry.
struct ViewGeometry {
  Geometry base;
  Geometry view;
};
using GeometryNode = OpNode<ViewGeometry>;

void save_geometry(GeometryNode& n, const Tensor& base, const Tensor& view) {
  n.state = {Geometry(base), Geometry(view)};
}

// One past the last storage element a geometry reaches (0 when empty).
int64_t extent(IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  int64_t last = offset;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return 0;
    last += (sizes[d] - 1) * strides[d];
  }
  return last + 1;
}

// For each element of the view (row-major), the row-major index of the same
// storage element in the base: a 1-D int64 tensor on `device`.
Tensor view_positions(const ViewGeometry& g, Device device) {
  const Geometry &base = g.base, &view = g.view;
  const int64_t span = std::max(extent(base.sizes, base.strides, base.offset),
                                extent(view.sizes, view.strides, view.offset));
  const TensorOptions cpu_long = TensorOptions(kInt64).device(Device(kCPU, 0));
  Tensor map = full({span}, -1, cpu_long);
  int64_t base_numel = 1;
  for (int64_t s : base.sizes) base_numel *= s;
  if (base_numel > 0) {
    map.as_strided(base.sizes, base.strides, base.offset)
        .copy_(arange(base_numel, cpu_long).view(base.sizes));
  }
  Tensor flat = map.as_strided(view.sizes, view.strides, view.offset).reshape({-1});
  TORCHLET_INTERNAL_ASSERT(flat.numel() == 0 || flat.min().item<int64_t>() >= 0,
                           "a view reaches storage outside its base");
  return flat.device() == device ? flat : flat.to(device);
}

// The view's gradient scattered (summed where the view repeats an element)
// into zeros shaped like the base.
variable_list as_strided_backward(GeometryNode& n, const variable_list& g) {
  const Tensor flat = view_positions(n.state, g[0].device());
  const SizeVec& base_sizes = n.state.base.sizes;
  int64_t base_numel = 1;
  for (int64_t s : base_sizes) base_numel *= s;
  const Variable zero = constant_zeros({base_numel}, g[0].dtype(), g[0].device());
  return {zero.scatter_add(0, flat, g[0].reshape({-1})).view(base_sizes)};
}

// Inputs {old base, written region}: the base's gradient with the region
// zeroed, and the region's gradient picked out of the base's.
variable_list copy_slices_backward(GeometryNode& n, const variable_list& g) {
  const Tensor flat = view_positions(n.state, g[0].device());
  variable_list grads(2);
  if (n.needs_input_grad(0)) {
    Tensor mask = zeros({g[0].numel()}, g[0].options().dtype(kBool));
    mask.index_put_({flat}, true);
    grads[0] = g[0].masked_fill(mask.view(n.state.base.sizes), 0);
  }
  if (n.needs_input_grad(1)) {
    grads[1] = g[0].reshape({-1}).gather(0, flat).view(n.state.view.sizes);
  }
  return grads;
}

// Makes `view` a view of its base's current history.
void set_view_history(VariableImpl& view, const Variable& base) {
  auto node = record_op("AsStridedBackward0", as_strided_backward, {&base}, view.data.device());
  if (!node) return;
  save_geometry(*node, base.data(), view.data);
  node->set_output_meta(0, view.data);
  write_history(view, std::move(node), 0);
  view.requires_grad = true;
}

}  // namespace

Variable as_strided_view(const Variable& x, Tensor out) {
  const Tensor view = out;  // `out` moves into the result
  return record("AsStridedBackward0", as_strided_backward, {&x}, std::move(out),
                [&](GeometryNode& n) { save_geometry(n, x.data(), view); });
}

VariableImpl* tracked_base(const VariableImpl& impl) {
  VariableImpl* base = impl.view_base.get();
  if (base == nullptr || !base->data.shares_storage(impl.data)) return nullptr;
  return base;
}

void refresh_view(VariableImpl& impl) {
  if (!impl.view_base) return;
  const uint32_t version = impl.data.version();
  if (version == impl.view_version || !impl.view_base->requires_grad) return;
  if (tracked_base(impl) == nullptr) return;
  EnableGradGuard grad_mode;  // the view's history is recorded whatever the mode
  std::lock_guard<SpinLock> lock(impl.mutex);
  if (impl.view_version == version) return;
  set_view_history(impl, Variable(impl.view_base));
  impl.view_version = version;
}

void mark_view(const Variable& result, const Variable& input) {
  VariableImpl& out = *result.impl();
  const VariableImpl& in = *input.impl();
  if (!out.data.shares_storage(in.data)) return;  // reshape copied
  out.view_base = in.view_base ? in.view_base : input.shared_impl();
  out.view_version = out.data.version();
}

void check_inplace(const char* op, const Variable& self) {
  if (!is_grad_enabled()) return;
  TORCHLET_CHECK(!(self.is_leaf() && self.requires_grad()), op,
                 ": a leaf Variable that requires grad is being used in an in-place operation.");
  const VariableImpl* base = tracked_base(*self.impl());
  if (base == nullptr) return;
  TORCHLET_CHECK(!(!read_history(*base).valid() && base->requires_grad), op,
                 ": a view of a leaf Variable that requires grad is being used in an in-place "
                 "operation.");
  TORCHLET_CHECK(!base->requires_grad || self.requires_grad(), op,
                 ": a view was created in no_grad mode and is being modified inplace with grad "
                 "mode enabled. This view is of a Variable that requires grad; create the view "
                 "with grad mode enabled or use the out-of-place form.");
}

void rebase_history(const Variable& self, const Variable& result) {
  VariableImpl& impl = *self.impl();
  Tensor data = impl.data;
  VariableImpl* base_impl = tracked_base(impl);
  if (base_impl == nullptr) {
    data.copy_(result.data());
    Edge history = read_history(*result.impl());
    if (history.valid()) history.fn->set_output_meta(history.input_nr, data);
    write_history(impl, std::move(history.fn), history.input_nr);
    impl.requires_grad = impl.requires_grad || result.requires_grad();
    return;
  }
  // Through a view: the base's history becomes CopySlices(old base, result).
  const Variable base(impl.view_base);
  auto node = record_op("CopySlices", copy_slices_backward, {&base, &result}, data.device());
  data.copy_(result.data());  // throws before any history changes if it cannot write
  if (!node) return;
  save_geometry(*node, base.data(), data);
  node->set_output_meta(0, base.data());
  write_history(*base_impl, std::move(node), 0);
  base_impl->requires_grad = true;
  std::lock_guard<SpinLock> lock(impl.mutex);
  set_view_history(impl, base);
  impl.view_version = data.version();
}

}  // namespace torchlet::autograd
