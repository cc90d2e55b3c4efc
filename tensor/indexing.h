#pragma once

#include <cstdint>
#include <optional>

#include "tensor/tensor_body.h"

namespace torchlet {
namespace indexing {

/// Python's `None` in an index: a new axis of size 1; in a Slice, "omitted".
constexpr std::nullopt_t None = std::nullopt;

/// Python's `...`: as many full slices as needed.
struct EllipsisIndexType {};
constexpr EllipsisIndexType Ellipsis{};

/// Python's `start:stop:step`; omitted bounds are None.
class Slice {
 public:
  Slice(std::optional<int64_t> start = None, std::optional<int64_t> stop = None,
        int64_t step = 1)
      : start_(start), stop_(stop), step_(step) {}
  std::optional<int64_t> start() const { return start_; }
  std::optional<int64_t> stop() const { return stop_; }
  int64_t step() const { return step_; }

 private:
  std::optional<int64_t> start_;
  std::optional<int64_t> stop_;
  int64_t step_;
};

}  // namespace indexing

/// One entry of `t.index({...})`: an integer, a Slice, None, Ellipsis, or a
/// tensor of indices (int64) or a mask (bool).
class TensorIndex {
 public:
  enum class Kind { kInteger, kSlice, kNone, kEllipsis, kTensor };

  TensorIndex(int64_t i) : kind_(Kind::kInteger), integer_(i) {}  // NOLINT
  TensorIndex(int i) : TensorIndex(static_cast<int64_t>(i)) {}    // NOLINT
  TensorIndex(indexing::Slice s) : kind_(Kind::kSlice), slice_(s) {}  // NOLINT
  TensorIndex(std::nullopt_t) : kind_(Kind::kNone) {}                 // NOLINT
  TensorIndex(indexing::EllipsisIndexType) : kind_(Kind::kEllipsis) {}  // NOLINT
  TensorIndex(Tensor t) : kind_(Kind::kTensor), tensor_(std::move(t)) {}  // NOLINT

  Kind kind() const { return kind_; }
  int64_t integer() const { return integer_; }
  const indexing::Slice& slice() const { return slice_; }
  const Tensor& tensor() const { return tensor_; }

 private:
  Kind kind_;
  int64_t integer_ = 0;
  indexing::Slice slice_;
  Tensor tensor_;
};

}  // namespace torchlet
