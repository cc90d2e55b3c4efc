#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "tensor/tensor_body.h"

namespace torchlet {

/// Uninitialized memory.
Tensor empty(IntArrayRef sizes, TensorOptions options = {});
/// An uninitialized contiguous CPU tensor in page-locked memory
/// (torch.empty(..., pin_memory=True)): GPUs copy from and to it
/// asynchronously (to(device, non_blocking)). Needs a GPU.
Tensor empty_pinned(IntArrayRef sizes, DType dtype = kFloat32);
Tensor zeros(IntArrayRef sizes, TensorOptions options = {});
Tensor ones(IntArrayRef sizes, TensorOptions options = {});
/// Filled with `value`; the dtype defaults to the value's kind (float32,
/// int64 or bool), as torch.full does.
Tensor full(IntArrayRef sizes, Scalar value, TensorOptions options = {});
/// [start, end) in steps of `step`. int64 when every bound is an integer,
/// else float32 (torch.arange's rule).
Tensor arange(Scalar end, TensorOptions options = {});
Tensor arange(Scalar start, Scalar end, Scalar step = 1, TensorOptions options = {});
/// `steps` evenly spaced values from `start` to `end` inclusive.
Tensor linspace(double start, double end, int64_t steps, TensorOptions options = {});
/// The n x m identity (m defaults to n).
Tensor eye(int64_t n, TensorOptions options = {});
Tensor eye(int64_t n, int64_t m, TensorOptions options = {});

Tensor empty_like(const Tensor& t, TensorOptions options = {});
Tensor zeros_like(const Tensor& t, TensorOptions options = {});
Tensor ones_like(const Tensor& t, TensorOptions options = {});
Tensor full_like(const Tensor& t, Scalar value, TensorOptions options = {});

/// A 0-dim tensor holding `value` (dtype from the value unless given).
Tensor scalar_tensor(Scalar value, TensorOptions options = {});

/// Copies `values` into a new tensor of shape `sizes` (dtype from T).
template <typename T>
Tensor from_vector(const std::vector<T>& values, IntArrayRef sizes, TensorOptions options = {});
/// A 1-D tensor holding `values`.
template <typename T>
Tensor from_vector(const std::vector<T>& values, TensorOptions options = {}) {
  const int64_t n = static_cast<int64_t>(values.size());
  return from_vector(values, IntArrayRef(&n, 1), options);
}

/// Wraps memory the caller owns without copying (host memory, on a CPU
/// device). The memory must outlive every view unless `deleter` frees it.
Tensor from_blob(void* data, IntArrayRef sizes, TensorOptions options = {});
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, TensorOptions options = {},
                 Storage::Deleter deleter = nullptr);

/// A nested literal for `tensor()`: numbers, or braced lists of literals.
class TensorLiteral {
 public:
  TensorLiteral(double v) : value_(v), kind_(Scalar::Kind::kFloating) {}  // NOLINT
  TensorLiteral(float v) : TensorLiteral(static_cast<double>(v)) {}       // NOLINT
  TensorLiteral(int v) : value_(v), int_(v), kind_(Scalar::Kind::kIntegral) {}      // NOLINT
  TensorLiteral(int64_t v) : value_(static_cast<double>(v)), int_(v), kind_(Scalar::Kind::kIntegral) {}  // NOLINT
  TensorLiteral(bool v) : value_(v), int_(v), kind_(Scalar::Kind::kBool) {}  // NOLINT
  TensorLiteral(std::initializer_list<TensorLiteral> children);           // NOLINT

 private:
  friend Tensor tensor(const TensorLiteral&, TensorOptions);
  friend class LiteralReader;
  double value_ = 0;
  int64_t int_ = 0;
  Scalar::Kind kind_ = Scalar::Kind::kFloating;
  bool is_list_ = false;
  std::vector<TensorLiteral> children_;
};

/// torch.tensor: `tensor({{1, 2}, {3, 4}})` is int64, `tensor({1.5, 2})`
/// float32, `tensor({true, false})` bool, unless `options` names a dtype.
Tensor tensor(const TensorLiteral& literal, TensorOptions options = {});

}  // namespace torchlet
