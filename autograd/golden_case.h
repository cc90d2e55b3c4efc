#pragma once

// Golden cases (testonly): one call checked against what PyTorch computed,
// from a fixture written by a tools/gen_*_golden.py generator.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "autograd/variable.h"
#include "tensor/tensor.h"

namespace torchlet::testing {

/// The fixture at `path` (relative to the workspace root), loaded once per
/// path and kept for the test's life.
const std::map<std::string, Tensor>& golden_file(const std::string& path);

/// Tolerances of a comparison with PyTorch (see testing::all_close).
struct Tolerance {
  double rtol;
  double atol;
};

/// One case of a golden fixture: its inputs under `<name>.in.<input>`, the
/// output under `<name>.out`, the gradient the output is seeded with under
/// `<name>.cot` (for non-scalar outputs) and each input's gradient under
/// `<name>.grad.<input>`. A case rebuilds the call from its inputs and
/// check()s the output and every gradient PyTorch recorded.
class GoldenCase {
 public:
  /// Floating inputs and the comparison use `dtype`.
  GoldenCase(const std::map<std::string, Tensor>& golden, std::string name, DType dtype,
             Tolerance tolerance);

  /// The input as a fresh leaf requiring grad, of the case's dtype; check()
  /// compares its gradient.
  Variable leaf(const std::string& input);
  /// Sets `variable`'s data (a module's parameter, say) to the input, of the
  /// case's dtype, and has check() compare its gradient; returns it.
  Variable bind(const std::string& input, const Variable& variable);
  /// The input as a tensor of the case's dtype.
  Tensor constant(const std::string& input) const;
  /// The input as int64 (class indices, positions).
  Tensor index(const std::string& input) const;
  /// The input as bool.
  Tensor mask(const std::string& input) const;
  /// The stored entry `<name>.<key>` as stored (float64); a missing entry is
  /// a test failure.
  const Tensor& stored(const std::string& key) const;

  /// Compares `out` (of the case's dtype) and the gradient of every leaf
  /// PyTorch recorded one for with PyTorch's; every recorded gradient must
  /// belong to a leaf, and there must be at least one.
  void check(const Variable& out) const;

 private:
  const std::map<std::string, Tensor>& golden_;
  std::string name_;
  DType dtype_;
  Tolerance tolerance_;
  std::vector<std::pair<std::string, Variable>> leaves_;
};

}  // namespace torchlet::testing
