#include "autograd/golden_case.h"

#include <memory>

#include "autograd/engine.h"
#include "gtest/gtest.h"
#include "tensor/test_util.h"

namespace torchlet::testing {

const std::map<std::string, Tensor>& golden_file(const std::string& path) {
  return GoldenFile::get(path).entries();
}

GoldenCase::GoldenCase(const std::map<std::string, Tensor>& golden, std::string name, DType dtype,
                       Tolerance tolerance)
    : golden_(golden), name_(std::move(name)), dtype_(dtype), tolerance_(tolerance) {}

const Tensor& GoldenCase::stored(const std::string& key) const {
  const auto it = golden_.find(name_ + "." + key);
  if (it == golden_.end()) {
    ADD_FAILURE() << "no golden entry " << name_ << "." << key;
    static const Tensor* missing = new Tensor(zeros({0}, kFloat64));
    return *missing;
  }
  return it->second;
}

Variable GoldenCase::leaf(const std::string& input) {
  leaves_.emplace_back(input, Variable(constant(input), true));
  return leaves_.back().second;
}

Variable GoldenCase::bind(const std::string& input, const Variable& variable) {
  variable.set_data(constant(input));
  leaves_.emplace_back(input, variable);
  return variable;
}

Tensor GoldenCase::constant(const std::string& input) const {
  return stored("in." + input).to(dtype_).clone();
}

Tensor GoldenCase::index(const std::string& input) const {
  return stored("in." + input).to(kInt64);
}

Tensor GoldenCase::mask(const std::string& input) const { return stored("in." + input).to(kBool); }

void GoldenCase::check(const Variable& out) const {
  SCOPED_TRACE(name_);
  const auto [rtol, atol] = tolerance_;
  EXPECT_EQ(out.dtype(), dtype_);
  EXPECT_TRUE(all_close(out.data(), stored("out"), rtol, atol)) << "output";
  variable_list inputs, seed;
  for (const auto& [input, v] : leaves_) inputs.push_back(v);
  if (out.dim() > 0) seed.push_back(Variable(stored("cot").to(dtype_)));
  const variable_list grads = autograd::grad({out}, inputs, seed);
  size_t checked = 0;
  for (size_t i = 0; i < leaves_.size(); ++i) {
    const auto it = golden_.find(name_ + ".grad." + leaves_[i].first);
    if (it == golden_.end()) continue;
    ++checked;
    EXPECT_TRUE(all_close(grads[i].data(), it->second, rtol, atol))
        << "gradient of " << leaves_[i].first;
  }
  size_t expected = 0;
  const std::string prefix = name_ + ".grad.";
  for (const auto& [key, value] : golden_) expected += key.rfind(prefix, 0) == 0 ? 1 : 0;
  EXPECT_EQ(checked, expected) << "gradients PyTorch recorded that no leaf stands for";
  EXPECT_GT(checked, 0u);
}

}  // namespace torchlet::testing
