#include "tensor/shape.h"

#include <algorithm>

#include "tensor/error.h"

namespace torchlet {

std::string shape_str(IntArrayRef sizes) {
  std::string out = "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(sizes[i]);
  }
  return out + "]";
}

namespace detail {

void throw_dim_out_of_range(int64_t dim, int64_t ndim, const char* op) {
  const int64_t lo = ndim > 0 ? -ndim : -1;
  const int64_t hi = ndim > 0 ? ndim - 1 : 0;
  throw_error(str_cat(op, ": Dimension out of range (expected to be in range of [", lo, ", ", hi,
                      "], but got ", dim, ")"));
}

}  // namespace detail

namespace {

// The error checked_numel found, named as it found it: walks the sizes in
// order again, so that the first bad one is the one reported.
[[noreturn]] __attribute__((noinline, cold)) void throw_bad_numel(IntArrayRef sizes, const char* op) {
  int64_t n = 1;
  for (int64_t s : sizes) {
    TORCHLET_CHECK(s >= 0, op, ": Trying to create tensor with negative dimension ", s, ": ",
                   shape_str(sizes));
    TORCHLET_CHECK(!__builtin_mul_overflow(n, s, &n), op, ": the number of elements of shape ",
                   shape_str(sizes), " overflows int64");
  }
  TORCHLET_CHECK(false, op, ": invalid shape ", shape_str(sizes));
  __builtin_unreachable();
}

}  // namespace

int64_t checked_numel(IntArrayRef sizes, const char* op) {
  int64_t n = 1;
  bool bad = false;
  for (int64_t s : sizes) bad |= (s < 0) | __builtin_mul_overflow(n, s, &n);
  if (__builtin_expect(bad, 0)) throw_bad_numel(sizes, op);
  return n;
}

SizeVec contiguous_strides(IntArrayRef sizes) {
  SizeVec strides(sizes.size());
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = s;
    s *= std::max<int64_t>(sizes[i], 1);
  }
  return strides;
}

bool is_contiguous_layout(IntArrayRef sizes, IntArrayRef strides) {
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 0) return true;
    if (sizes[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

SizeVec broadcast_shapes(IntArrayRef a, IntArrayRef b, const char* op) {
  const size_t n = std::max(a.size(), b.size());
  SizeVec out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    TORCHLET_CHECK(da == db || da == 1 || db == 1, op, ": The size of tensor a (", da,
                   ") must match the size of tensor b (", db, ") at non-singleton dimension ", i,
                   " (shapes ", shape_str(a), " and ", shape_str(b), ")");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

}  // namespace torchlet
