#include "tensor/cpu/reduced_float.h"

#include "tensor/cpu/kernels.h"
#include "tensor/factories.h"

namespace torchlet::cpu {

Tensor float32_operand(const Tensor& t) {
  if (!t.defined() || !is_reduced_floating_point(t.dtype())) return t;
  Tensor out = empty(t.sizes(), t.options().dtype(kFloat32));
  copy(out, t);
  return out;
}

Tensor float32_result(const Tensor& out) {
  if (!out.defined() || !is_reduced_floating_point(out.dtype())) return out;
  return empty(out.sizes(), out.options().dtype(kFloat32));
}

void store_result(const Tensor& out, const Tensor& result) {
  if (out.defined() && out.dtype() != result.dtype()) copy(out, result);
}

bool any_reduced(std::initializer_list<const Tensor*> tensors) {
  for (const Tensor* t : tensors) {
    if (t->defined() && is_reduced_floating_point(t->dtype())) return true;
  }
  return false;
}

}  // namespace torchlet::cpu
