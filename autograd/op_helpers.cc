#include "autograd/op_helpers.h"

#include "autograd/grad_mode.h"

namespace torchlet::autograd {

Variable sum_to(const Variable& grad, IntArrayRef shape, DType dtype) {
  Variable g = grad;
  const int64_t lead = g.dim() - static_cast<int64_t>(shape.size());
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < g.dim(); ++d) {
    if (d < lead || (shape[d - lead] == 1 && g.size(d) != 1)) dims.push_back(d);
  }
  if (!dims.empty()) g = g.sum(dims, /*keepdim=*/true);
  if (g.sizes() != shape) g = g.view(shape);
  if (g.dtype() != dtype) g = g.to(dtype);
  return g;
}

Variable snapshot(const Variable& self, bool copy_data) {
  auto impl = std::allocate_shared<VariableImpl>(CachedAllocator<VariableImpl>(), copy_data ? self.data().clone() : self.data());
  impl->requires_grad = self.requires_grad();
  if (!self.is_leaf()) {
    impl->grad_fn = self.grad_fn();
    impl->output_nr = self.output_nr();
  }
  return Variable(std::move(impl));
}

void adopt_history(const Variable& self, const Variable& result) {
  VariableImpl& impl = *self.impl();
  // Another thread may be reading this history (Variable::grad_fn, is_leaf):
  // the write goes through the history lock.
  const Edge history = read_history(*result.impl());
  write_history(impl, history.fn, history.input_nr);
  impl.requires_grad = impl.requires_grad || result.requires_grad();
}

}  // namespace torchlet::autograd
