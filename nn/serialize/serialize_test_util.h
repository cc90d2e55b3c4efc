#pragma once

// Helpers shared by the checkpoint formats' tests: files, directories and
// comparisons of tensors by their bytes.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "nn/serialize/state_dict.h"

namespace torchlet::testing {

/// The whole content of the file at `path` ("" when it cannot be read).
std::string read_file(const std::string& path);

/// Makes `bytes` the content of the file at `path`.
void write_file(const std::string& path, const std::string& bytes);

/// The names in directory `dir` that end with `suffix` (and are longer than
/// it), sorted; none when `dir` cannot be read.
std::vector<std::string> dir_names(const std::string& dir, const std::string& suffix = "");

/// The same dtype, shape and bytes.
::testing::AssertionResult identical(const Tensor& actual, const Tensor& expected);

/// The same names in the same order, each an identical() tensor.
void expect_identical(const StateDict& actual, const StateDict& expected);

/// A fixture holding a fresh directory, removed with its files after each test.
class TempDirTest : public ::testing::Test {
 protected:
  /// The directory's name begins with `prefix`.
  explicit TempDirTest(std::string prefix) : prefix_(std::move(prefix)) {}

  void SetUp() override;
  void TearDown() override;

  std::string path(const std::string& name) const { return dir_ + "/" + name; }

  /// The names in the test's directory, sorted.
  std::vector<std::string> files() const { return dir_names(dir_); }

  std::string dir_;

 private:
  std::string prefix_;
};

}  // namespace torchlet::testing
