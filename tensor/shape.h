#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"

namespace torchlet {

/// Sizes and strides live inline for ranks up to 6: no heap allocation per
/// tensor for ordinary shapes.
using SizeVec = absl::InlinedVector<int64_t, 6>;
/// A read-only view of sizes, strides or dims: accepts SizeVec, std::vector
/// and braced lists such as {2, 3}.
using IntArrayRef = absl::Span<const int64_t>;

namespace detail {
/// Overload guards: a parameter that takes exactly bool, or an integer that
/// is not bool (so var(1), var(false) and var({1}) each find their overload).
template <typename T>
using IfBool = std::enable_if_t<std::is_same_v<T, bool>, int>;
template <typename T>
using IfIndex = std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int>;
}  // namespace detail

/// "[2, 3]" — shapes in messages and reprs.
std::string shape_str(IntArrayRef sizes);

namespace detail {
/// Throws wrap_dim's error; out of line so that wrap_dim inlines.
[[noreturn]] void throw_dim_out_of_range(int64_t dim, int64_t ndim, const char* op);
}  // namespace detail

/// Wraps a possibly negative `dim` into [0, ndim), or throws PyTorch's
/// "Dimension out of range" error naming `op`. A 0-dim tensor takes 0 and
/// -1, as a 1-dim one does. Inline: every op with a dim argument calls it.
inline int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  const int64_t n = ndim > 0 ? ndim : 1;
  if (dim >= 0) {
    if (dim < n) return dim;
  } else if (dim >= -n) {
    return dim + n;
  }
  detail::throw_dim_out_of_range(dim, ndim, op);
}

/// The product of `sizes`; throws if a size is negative or the product
/// overflows int64.
int64_t checked_numel(IntArrayRef sizes, const char* op);

/// Row-major strides for `sizes`.
SizeVec contiguous_strides(IntArrayRef sizes);

/// True when `strides` are row-major for `sizes` (size-1 dims are ignored).
bool is_contiguous_layout(IntArrayRef sizes, IntArrayRef strides);

/// The broadcast of two shapes, or PyTorch's "The size of tensor a ..." error.
SizeVec broadcast_shapes(IntArrayRef a, IntArrayRef b, const char* op);

}  // namespace torchlet
