#pragma once

// Test fixtures and small modules for the parallel tests (testonly).

#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "parallel/parallel.h"

namespace torchlet::parallel::testing {

/// A test run on 2, 3 and 4 CPU devices: GetParam() devices exist, and
/// devices() lists them.
class OnDevices : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    set_cpu_device_count(GetParam());
    reset_warning_registry();
  }
  void TearDown() override { set_cpu_device_count(1); }
  int count() const { return GetParam(); }
  std::vector<Device> devices() const {
    std::vector<Device> out;
    for (int i = 0; i < GetParam(); ++i) out.emplace_back(kCPU, i);
    return out;
  }
  std::vector<DeviceId> device_ids() const {
    std::vector<DeviceId> out;
    for (int i = 0; i < GetParam(); ++i) out.emplace_back(Device(kCPU, i));
    return out;
  }
};

/// A float64 leaf of distinct values.
inline Variable leaf(std::vector<int64_t> shape, bool requires_grad = true, double start = 0.5) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = start + 0.37 * i - 0.011 * i * i;
  return Variable(from_vector(v, shape), requires_grad);
}

/// Linear, then a buffer updated in place in forward from the batch (as
/// BatchNorm updates its running mean): `running = 0.5 * running + 0.5 *
/// mean(x)` per feature, counted in `calls`.
class BufferNetImpl : public nn::Cloneable<BufferNetImpl> {
 public:
  BufferNetImpl() { reset(); }
  void reset() override {
    fc = register_module("fc", nn::Linear(3, 2));
    running = register_buffer("running", zeros({3}));
    calls = register_buffer("calls", zeros({1}));
  }
  Variable forward(const Variable& x) {
    {
      NoGradGuard no_grad;
      Tensor r = running.data();
      r.mul_(0.5).add_(x.data().mean({0}).mul(0.5));
      Tensor c = calls.data();
      c.add_(1);
    }
    return fc(x);
  }
  nn::Linear fc{nullptr};
  Variable running;
  Variable calls;
};
TORCHLET_MODULE(BufferNet);

/// forward(a, b) = fc(a) * b.
class TwoInputsImpl : public nn::Cloneable<TwoInputsImpl> {
 public:
  TwoInputsImpl() { reset(); }
  void reset() override { fc = register_module("fc", nn::Linear(3, 2)); }
  Variable forward(const Variable& a, const Variable& b) { return fc(a) * b; }
  nn::Linear fc{nullptr};
};
TORCHLET_MODULE(TwoInputs);

using Kwargs = std::map<std::string, Variable>;

/// forward(x, kwargs) = fc(x) * kwargs["scale"] (+ kwargs["shift"] when
/// present); kwargs-only forward(kwargs) uses kwargs["x"].
class KwargsNetImpl : public nn::Cloneable<KwargsNetImpl> {
 public:
  KwargsNetImpl() { reset(); }
  void reset() override { fc = register_module("fc", nn::Linear(3, 2)); }
  Variable forward(const Variable& x, const Kwargs& kwargs) {
    Variable y = fc(x) * kwargs.at("scale");
    auto shift = kwargs.find("shift");
    return shift == kwargs.end() ? y : y + shift->second;
  }
  Variable forward(const Kwargs& kwargs) { return fc(kwargs.at("x")); }
  nn::Linear fc{nullptr};
};
TORCHLET_MODULE(KwargsNet);

/// Nested output: (fc(x), [x * 2, x.sum(1)], {"double": x * 2, "square": x * x}).
using Nested = std::tuple<Variable, std::vector<Variable>, std::map<std::string, Variable>>;
class NestedNetImpl : public nn::Cloneable<NestedNetImpl> {
 public:
  NestedNetImpl() { reset(); }
  void reset() override { fc = register_module("fc", nn::Linear(3, 2)); }
  Nested forward(const std::vector<Variable>& xs, const std::pair<Variable, double>& scaled) {
    const Variable x = xs[0] + xs[1] * scaled.second + scaled.first;
    return {fc(x), {x * 2, x.sum({1})}, {{"double", x * 2}, {"square", x * x}}};
  }
  nn::Linear fc{nullptr};
};
TORCHLET_MODULE(NestedNet);

/// forward(x) = fc(x).sum(): a 0-dim output per replica.
class ScalarNetImpl : public nn::Cloneable<ScalarNetImpl> {
 public:
  ScalarNetImpl() { reset(); }
  void reset() override { fc = register_module("fc", nn::Linear(3, 2)); }
  Variable forward(const Variable& x) { return fc(x).sum(); }
  nn::Linear fc{nullptr};
};
TORCHLET_MODULE(ScalarNet);

/// forward() with no inputs: the weight's sum, on the device it runs on.
class NoInputNetImpl : public nn::Cloneable<NoInputNetImpl> {
 public:
  NoInputNetImpl() { reset(); }
  void reset() override { fc = register_module("fc", nn::Linear(3, 2)); }
  Variable forward() { return fc->weight.sum({1}); }
  nn::Linear fc{nullptr};
};
TORCHLET_MODULE(NoInputNet);

/// Throws a std::invalid_argument from the replicas whose device is in
/// `failing` (by index); records the grad mode and device each forward saw.
class ThrowingNetImpl : public nn::Cloneable<ThrowingNetImpl> {
 public:
  explicit ThrowingNetImpl(std::vector<int> failing = {}) : failing_(std::move(failing)) {
    reset();
  }
  void reset() override { fc = register_module("fc", nn::Linear(3, 2)); }
  Variable forward(const Variable& x) {
    for (int index : failing_) {
      if (x.device().index == index) throw std::invalid_argument("bad replica input");
    }
    return fc(x);
  }
  nn::Linear fc{nullptr};

 private:
  std::vector<int> failing_;
};
TORCHLET_MODULE(ThrowingNet);

}  // namespace torchlet::parallel::testing
