#include "nn/serialize/serialize_test_util.h"

#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

#include "tensor/tensor.h"

namespace torchlet::testing {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::vector<std::string> dir_names(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* entry = ::readdir(d)) {
      const std::string name = entry->d_name;
      if (name != "." && name != ".." && name.size() > suffix.size() &&
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
        names.push_back(name);
      }
    }
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

::testing::AssertionResult identical(const Tensor& actual, const Tensor& expected) {
  if (actual.dtype() != expected.dtype() || actual.sizes() != expected.sizes()) {
    return ::testing::AssertionFailure() << actual.dtype() << shape_str(actual.sizes()) << " vs "
                                         << expected.dtype() << shape_str(expected.sizes());
  }
  const Tensor a = actual.contiguous(), e = expected.contiguous();
  const size_t bytes = static_cast<size_t>(e.numel()) * e.element_size();
  if (bytes > 0 && std::memcmp(a.data_ptr(), e.data_ptr(), bytes) != 0) {
    return ::testing::AssertionFailure() << "values differ:\n" << actual << "\nvs\n" << expected;
  }
  return ::testing::AssertionSuccess();
}

void expect_identical(const StateDict& actual, const StateDict& expected) {
  ASSERT_EQ(actual.keys(), expected.keys());
  for (const auto& [name, t] : expected) EXPECT_TRUE(identical(actual.at(name), t)) << name;
}

void TempDirTest::SetUp() {
  std::string pattern = ::testing::TempDir() + prefix_ + "_XXXXXX";
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
  dir_ = pattern;
}

void TempDirTest::TearDown() {
  for (const std::string& name : files()) ::unlink(path(name).c_str());
  ::rmdir(dir_.c_str());
}

}  // namespace torchlet::testing
