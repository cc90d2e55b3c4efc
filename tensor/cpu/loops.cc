#include "tensor/cpu/loops.h"

namespace torchlet::cpu {

namespace {

// The common case, without the general walk: every operand is contiguous
// with the loop's shape, or a single element broadcast to it. One flat run.
bool make_flat_loop(std::initializer_list<const Tensor*> operands, IntArrayRef shape,
                    StridedLoop& loop) {
  if (shape.empty()) return false;
  for (const Tensor* t : operands) {
    if (!(t->is_contiguous() && t->sizes() == shape) && t->numel() != 1) return false;
  }
  int64_t numel = 1;
  for (int64_t s : shape) numel *= s;
  loop.numel = numel;
  loop.shape.assign(1, numel);
  int op = 0;
  for (const Tensor* t : operands) {
    const bool whole = t->sizes() == shape && t->is_contiguous();
    loop.strides[op].assign(1, whole ? static_cast<int64_t>(t->element_size()) : 0);
    loop.data[op] = static_cast<char*>(t->data_ptr());
    ++op;
  }
  return true;
}

}  // namespace

StridedLoop make_loop(std::initializer_list<const Tensor*> operands, IntArrayRef shape) {
  StridedLoop loop;
  loop.operands = static_cast<int>(operands.size());
  TORCHLET_INTERNAL_ASSERT(loop.operands <= kMaxOperands);
  if (make_flat_loop(operands, shape, loop)) return loop;
  const int nd = static_cast<int>(shape.size());
  int op = 0;
  for (const Tensor* t : operands) {
    const int64_t esize = static_cast<int64_t>(t->element_size());
    const int offset = nd - static_cast<int>(t->dim());
    SizeVec strides(nd, 0);
    for (int d = offset; d < nd; ++d) {
      const int64_t size = t->sizes()[d - offset];
      strides[d] = size == 1 && shape[d] != 1 ? 0 : t->strides()[d - offset] * esize;
    }
    loop.strides[op] = std::move(strides);
    loop.data[op] = static_cast<char*>(t->data_ptr());
    ++op;
  }
  // Drop size-1 dims and merge dim d into d+1 where every operand is
  // contiguous across the pair.
  SizeVec out_shape;
  std::array<SizeVec, kMaxOperands> out_strides;
  for (int d = 0; d < nd; ++d) {
    loop.numel *= shape[d];
    if (shape[d] == 1) continue;
    bool merge = !out_shape.empty();
    for (int o = 0; o < loop.operands && merge; ++o) {
      merge = out_strides[o].back() == loop.strides[o][d] * shape[d];
    }
    if (merge) {
      out_shape.back() *= shape[d];
      for (int o = 0; o < loop.operands; ++o) out_strides[o].back() = loop.strides[o][d];
    } else {
      out_shape.push_back(shape[d]);
      for (int o = 0; o < loop.operands; ++o) out_strides[o].push_back(loop.strides[o][d]);
    }
  }
  loop.shape = std::move(out_shape);
  for (int o = 0; o < loop.operands; ++o) loop.strides[o] = std::move(out_strides[o]);
  return loop;
}

}  // namespace torchlet::cpu
