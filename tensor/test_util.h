#pragma once

// Test helpers for tensors (testonly).

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/tensor.h"

namespace torchlet::testing {

/// Asserts that `statement` throws torchlet::Error whose message contains
/// `substring`.
#define EXPECT_THROW_MSG(statement, substring)                                     \
  do {                                                                             \
    try {                                                                          \
      statement;                                                                   \
      ADD_FAILURE() << "expected torchlet::Error containing \"" << (substring)     \
                    << "\" but nothing was thrown";                                \
    } catch (const ::torchlet::Error& e) {                                         \
      EXPECT_NE(std::string(e.what()).find(substring), std::string::npos)          \
          << "message: " << e.what() << "\nexpected to contain: " << (substring);  \
    }                                                                              \
  } while (false)

/// Elements as doubles, row-major.
inline std::vector<double> values(const Tensor& t) { return t.to_vector<double>(); }

/// Same shape, and every element within atol + rtol * |expected| (NaNs match).
inline ::testing::AssertionResult all_close(const Tensor& actual, const Tensor& expected,
                                            double rtol = 1e-5, double atol = 1e-6) {
  if (actual.sizes() != expected.sizes()) {
    return ::testing::AssertionFailure() << "shape " << shape_str(actual.sizes()) << " vs "
                                         << shape_str(expected.sizes());
  }
  const std::vector<double> a = values(actual), e = values(expected);
  for (size_t i = 0; i < a.size(); ++i) {
    const bool both_nan = a[i] != a[i] && e[i] != e[i];
    if (!both_nan && !(std::abs(a[i] - e[i]) <= atol + rtol * std::abs(e[i]))) {
      return ::testing::AssertionFailure() << "element " << i << ": " << a[i] << " vs " << e[i]
                                           << "\nactual: " << actual << "\nexpected: " << expected;
    }
  }
  return ::testing::AssertionSuccess();
}

/// The non-contiguous forms every op is tested on: a transposed copy, a
/// slice with step 2, and an expanded (stride-0) view, each holding the
/// same values as `t` (2-D).
inline Tensor transposed_copy(const Tensor& t) { return t.t().contiguous().t(); }
inline Tensor strided_copy(const Tensor& t) {
  SizeVec shape(t.sizes().begin(), t.sizes().end());
  shape.back() *= 2;
  Tensor wide = zeros(shape, t.dtype());
  Tensor view = wide.slice(-1, 0, std::nullopt, 2);
  view.copy_(t);
  return view;
}

}  // namespace torchlet::testing
