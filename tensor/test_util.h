#pragma once

// Test helpers for tensors (testonly).

#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/cuda/cuda_runtime.h"
#include "tensor/tensor.h"
#include "tensor/warning.h"

namespace torchlet::testing {

/// Skips the test, saying why, where no GPU is present.
#define REQUIRE_GPU()                       \
  if (::torchlet::cuda::device_count() == 0) \
  GTEST_SKIP() << "needs a GPU (none present, or built without --config=cuda)"

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

/// Collects the warnings emitted on this thread (and in work it hands to
/// others) while it lives.
class WarningCapture {
 public:
  WarningCapture() : guard_([this](const std::string& m) { messages_.push_back(m); }) {}
  const std::vector<std::string>& messages() const { return messages_; }

 private:
  std::vector<std::string> messages_;
  WarningHandlerGuard guard_;
};

/// Elements as doubles, row-major.
inline std::vector<double> values(const Tensor& t) { return t.to_vector<double>(); }

/// Same shape, and every element within atol + rtol * |expected| (NaNs and equal infinities match).
inline ::testing::AssertionResult all_close(const Tensor& actual, const Tensor& expected,
                                            double rtol = 1e-5, double atol = 1e-6) {
  if (actual.sizes() != expected.sizes()) {
    return ::testing::AssertionFailure() << "shape " << shape_str(actual.sizes()) << " vs "
                                         << shape_str(expected.sizes());
  }
  const std::vector<double> a = values(actual), e = values(expected);
  for (size_t i = 0; i < a.size(); ++i) {
    const bool same = (a[i] != a[i] && e[i] != e[i]) || a[i] == e[i];  // NaNs, infinities
    if (!same && !(std::abs(a[i] - e[i]) <= atol + rtol * std::abs(e[i]))) {
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

/// Golden tensors written by a generator under tools/ (run with PyTorch):
/// one per line as `name|d0,d1,...|v0 v1 ...` (float64 values, row-major).
/// `path` is relative to the workspace root (tests run there).
inline std::map<std::string, Tensor> load_golden(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "missing golden file " << path;
  std::map<std::string, Tensor> golden;
  std::string line;
  while (std::getline(in, line)) {
    std::stringstream fields(line);
    std::string name, shape_text, value_text;
    std::getline(fields, name, '|');
    std::getline(fields, shape_text, '|');
    std::getline(fields, value_text);
    std::vector<int64_t> shape;
    std::stringstream dims(shape_text);
    for (std::string d; std::getline(dims, d, ',');) shape.push_back(std::stoll(d));
    std::vector<double> vals;
    std::stringstream vs(value_text);
    for (std::string v; vs >> v;) vals.push_back(std::stod(v));
    golden[name] = from_vector(vals, shape);
  }
  return golden;
}

/// A golden file (see load_golden) read once per test binary and path:
/// `GoldenFile::get("tensor/testdata/x_golden.txt").at("sum")`. at(name)
/// reports a missing entry as a test failure naming the entry and the file,
/// and returns an empty float tensor, so that a missing entry fails the tests
/// that ask for it without crashing the binary.
class GoldenFile {
 public:
  /// The file at `path`, read on first use and kept for the binary's life.
  static const GoldenFile& get(const std::string& path) {
    static std::mutex mutex;
    static auto* files = new std::map<std::string, GoldenFile>();  // never destroyed
    const std::lock_guard<std::mutex> lock(mutex);
    return files->try_emplace(path, path).first->second;  // reads it only when new
  }

  /// Reads `path` now (uncached; prefer get()).
  explicit GoldenFile(const std::string& path) : path_(path), entries_(load_golden(path)) {}

  const std::string& path() const { return path_; }
  const std::map<std::string, Tensor>& entries() const { return entries_; }
  bool has(const std::string& name) const { return entries_.count(name) != 0; }
  const Tensor& at(const std::string& name) const {
    const auto it = entries_.find(name);
    if (it != entries_.end()) return it->second;
    ADD_FAILURE() << "no golden entry " << name << " in " << path_;
    static const Tensor missing = zeros({0}, kFloat32);
    return missing;
  }

 private:
  std::string path_;
  std::map<std::string, Tensor> entries_;
};

/// What `out << value` prints: a tensor's, module's or optimizer's repr.
template <typename T>
std::string printed(const T& value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace torchlet::testing
