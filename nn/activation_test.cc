#include "nn/activation.h"

#include <functional>
#include <string>
#include <vector>

#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "nn/functional/activation.h"
#include "nn/module_golden.h"
#include "tensor/test_util.h"

namespace torchlet::nn {
namespace {

namespace F = functional;
using testing::ModuleCase;
using testing::printed;
using testing::pytorch_repr;

struct UnaryCase {
  std::string name;
  std::function<std::shared_ptr<Module>()> make;
  std::function<Variable(Module&, const Variable&)> call;
};

template <typename Holder>
UnaryCase unary(std::string name, Holder holder) {
  return {std::move(name), [holder] { return std::static_pointer_cast<Module>(holder.ptr()); },
          [](Module& module, const Variable& x) {
            return call(*module.as<typename Holder::Impl>(), x);
          }};
}

std::vector<UnaryCase> stateless_cases() {
  return {unary("relu", ReLU()),
          unary("relu6", ReLU6()),
          unary("leaky_relu", LeakyReLU(LeakyReLUOptions().negative_slope(0.2))),
          unary("elu", ELU(ELUOptions().alpha(1.5))),
          unary("selu", SELU()),
          unary("gelu", GELU()),
          unary("gelu_tanh", GELU(GELUOptions().approximate("tanh"))),
          unary("silu", SiLU()),
          unary("mish", Mish()),
          unary("hardtanh", Hardtanh(HardtanhOptions().min_val(-0.5).max_val(2.0))),
          unary("softplus", Softplus(SoftplusOptions().beta(2).threshold(3)))};
}

TEST(ActivationModuleTest, OutputsAndGradientsMatchPyTorch) {
  for (const UnaryCase& c : stateless_cases()) {
    ModuleCase golden(c.name);
    const std::shared_ptr<Module> module = c.make();
    golden.check(c.call(*module, golden.leaf("x")));
  }
}

TEST(ActivationModuleTest, ReprsMatchPyTorch) {
  for (const UnaryCase& c : stateless_cases()) {
    EXPECT_EQ(printed(*c.make()), pytorch_repr(c.name));
  }
}

TEST(ActivationModuleTest, ReprsOfDefaultsAndInplaceMatchPyTorch) {
  const std::vector<std::pair<std::string, std::shared_ptr<Module>>> modules = {
      {"relu_inplace", ReLU(true).ptr()},
      {"relu6_inplace", ReLU6(true).ptr()},
      {"leaky_relu_default", LeakyReLU().ptr()},
      {"leaky_relu_inplace", LeakyReLU(LeakyReLUOptions().negative_slope(0.2).inplace(true)).ptr()},
      {"elu_default", ELU().ptr()},
      {"elu_inplace", ELU(ELUOptions().inplace(true)).ptr()},
      {"selu_inplace", SELU(true).ptr()},
      {"gelu_default", GELU().ptr()},
      {"silu_inplace", SiLU(true).ptr()},
      {"hardtanh_default", Hardtanh().ptr()},
      {"hardtanh_inplace", Hardtanh(HardtanhOptions().inplace(true)).ptr()},
      {"softplus_default", Softplus().ptr()},
      {"softplus_float", Softplus(SoftplusOptions().beta(2.0).threshold(10.5)).ptr()},
      {"prelu_default", PReLU().ptr()}};
  for (const auto& [name, module] : modules) EXPECT_EQ(printed(*module), pytorch_repr(name));
}

TEST(ActivationModuleTest, ModuleAndFunctionalGiveIdenticalResults) {
  manual_seed(0);
  const Variable x(randn({3, 5}) * 4);
  const auto same = [&](const Variable& a, const Variable& b) {
    EXPECT_EQ(testing::values(a.data()), testing::values(b.data()));
  };
  same(LeakyReLU(LeakyReLUOptions().negative_slope(0.3))(x), F::leaky_relu(x, 0.3));
  same(ELU(ELUOptions().alpha(0.5))(x), F::elu(x, 0.5));
  same(GELU(GELUOptions().approximate("tanh"))(x), F::gelu(x, "tanh"));
  same(Hardtanh(HardtanhOptions().min_val(-2).max_val(3))(x), F::hardtanh(x, -2, 3));
  same(Softplus(SoftplusOptions().beta(0.5).threshold(4))(x), F::softplus(x, 0.5, 4));
  same(ReLU6()(x), F::relu6(x));
  same(SELU()(x), F::selu(x));
  same(SiLU()(x), F::silu(x));
  same(Mish()(x), F::mish(x));
}

TEST(ActivationModuleTest, InplaceOverwritesAndReturnsTheInput) {
  const Variable x(tensor({-1.0f, 2.0f, 7.0f}));
  const Variable out = ReLU6(true)(x);
  EXPECT_EQ(out.data().data_ptr(), x.data().data_ptr());
  EXPECT_EQ(testing::values(x.data()), (std::vector<double>{0, 2, 6}));
}

TEST(ActivationModuleTest, CloneKeepsTheOptions) {
  LeakyReLU layer(LeakyReLUOptions().negative_slope(0.2).inplace(true));
  const auto copy = layer->clone();
  EXPECT_EQ(printed(*copy), "LeakyReLU(negative_slope=0.2, inplace=True)");
}

TEST(ActivationModuleTest, GeluRefusesAnUnknownApproximation) {
  GELU layer(GELUOptions().approximate("fast"));
  EXPECT_THROW_MSG(layer(Variable(zeros({2}))),
                   "approximate argument must be either none or tanh.");
}

TEST(PReLUTest, PerChannelAndSharedWeightsMatchPyTorch) {
  for (const std::string name : {"prelu", "prelu_shared"}) {
    ModuleCase golden(name);
    PReLU layer(PReLUOptions().num_parameters(name == "prelu" ? 2 : 1));
    layer->to(kFloat64);
    golden.bind("weight", layer->weight);
    golden.check(layer(golden.leaf("x")));
    EXPECT_EQ(printed(*layer), pytorch_repr(name));
  }
}

TEST(PReLUTest, StartsAtInitForEveryParameter) {
  PReLU layer(PReLUOptions().num_parameters(3).init(0.1));
  EXPECT_EQ(layer->weight.sizes(), IntArrayRef({3}));
  for (const double w : testing::values(layer->weight.data())) EXPECT_FLOAT_EQ(w, 0.1);
  EXPECT_EQ(testing::values(PReLU()->weight.data()), (std::vector<double>{0.25}));
  EXPECT_EQ(PReLU()->named_parameters()[0].first, "weight");
}

TEST(PReLUTest, PassesGradcheckInInputAndWeight) {
  PReLU layer(PReLUOptions().num_parameters(3));
  EXPECT_TRUE(testing::gradcheck(
      [&](const variable_list& in) {
        layer->weight = Parameter(in[1]);
        return layer->forward(in[0]);
      },
      {Variable(randn({2, 3, 4}, kFloat64), true), Variable(randn({3}, kFloat64), true)}));
}

TEST(PReLUTest, ChannelMismatchIsRefusedAsPyTorch) {
  PReLU layer(PReLUOptions().num_parameters(3));
  EXPECT_THROW_MSG(layer(Variable(zeros({2, 4}))),
                   "Mismatch of parameter numbers and input channel size. Found parameter "
                   "numbers = 3 and channel size = 4.");
}

TEST(PReLUTest, NegativeNumParametersIsRefused) {
  EXPECT_THROW_MSG(PReLU(PReLUOptions().num_parameters(-1)),
                   "Trying to create tensor with negative dimension -1");
}

}  // namespace
}  // namespace torchlet::nn
