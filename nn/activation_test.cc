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

// ---- Hardswish, Hardsigmoid, LogSigmoid, Softsign, Tanhshrink, Threshold,
// Softshrink, Hardshrink, CELU, Softmin, GLU (their inputs hit each kink).

std::vector<UnaryCase> more_cases() {
  return {unary("hardswish", Hardswish()),
          unary("hardsigmoid", Hardsigmoid()),
          unary("logsigmoid", LogSigmoid()),
          unary("softsign", Softsign()),
          unary("tanhshrink", Tanhshrink()),
          unary("threshold", Threshold(ThresholdOptions(0.5, 20))),
          unary("softshrink", Softshrink(1)),
          unary("hardshrink", Hardshrink(0.5)),
          unary("celu", CELU(CELUOptions().alpha(0.5))),
          unary("softmin", Softmin(1)),
          unary("glu", GLU(1))};
}

TEST(MoreActivationModulesTest, OutputsAndGradientsMatchPyTorch) {
  for (const UnaryCase& c : more_cases()) {
    SCOPED_TRACE(c.name);
    ModuleCase golden(c.name);
    const std::shared_ptr<Module> module = c.make();
    golden.check(c.call(*module, golden.leaf("x")));
  }
}

TEST(MoreActivationModulesTest, ReprsMatchPyTorch) {
  for (const UnaryCase& c : more_cases()) EXPECT_EQ(printed(*c.make()), pytorch_repr(c.name));
  const std::vector<std::pair<std::string, std::shared_ptr<Module>>> modules = {
      {"hardswish_inplace", Hardswish(true).ptr()},
      {"hardsigmoid_inplace", Hardsigmoid(true).ptr()},
      {"threshold_inplace", Threshold(ThresholdOptions(1, 2.5).inplace(true)).ptr()},
      {"threshold_float", Threshold(ThresholdOptions(0.1, 20.0)).ptr()},
      {"softshrink_default", Softshrink().ptr()},
      {"hardshrink_default", Hardshrink().ptr()},
      {"hardshrink_int", Hardshrink(2).ptr()},
      {"glu_default", GLU().ptr()},
      {"softmin_default", Softmin().ptr()},
      {"celu_default", CELU().ptr()},
      {"celu_int_inplace", CELU(CELUOptions().alpha(2).inplace(true)).ptr()}};
  for (const auto& [name, module] : modules) EXPECT_EQ(printed(*module), pytorch_repr(name));
}

TEST(MoreActivationModulesTest, ModuleAndFunctionalGiveIdenticalResults) {
  manual_seed(0);
  const Variable x(randn({3, 4}) * 4);
  const auto same = [&](const Variable& a, const Variable& b) {
    EXPECT_EQ(testing::values(a.data()), testing::values(b.data()));
  };
  same(Hardswish()(x), F::hardswish(x));
  same(Hardsigmoid()(x), F::hardsigmoid(x));
  same(LogSigmoid()(x), F::logsigmoid(x));
  same(Softsign()(x), F::softsign(x));
  same(Tanhshrink()(x), F::tanhshrink(x));
  same(Threshold(ThresholdOptions(0.3, -2))(x), F::threshold(x, 0.3, -2));
  same(Softshrink(1.5)(x), F::softshrink(x, 1.5));
  same(Hardshrink(1.5)(x), F::hardshrink(x, 1.5));
  same(CELU(CELUOptions().alpha(0.7))(x), F::celu(x, 0.7));
  same(GLU()(x), F::glu(x, -1));
  same(GLU(1)(x), F::glu(x, 1));
  // Without a dim, Softmax's legacy choice: 1 for a 2-D input, 0 for 1-D.
  same(Softmin()(x), F::softmin(x, 1));
  same(Softmin()(x[0]), F::softmin(x[0], 0));
}

TEST(MoreActivationModulesTest, InplaceOptionsOverwriteTheInput) {
  const Variable x(tensor({-4.0f, 0.0f, 4.0f}));
  EXPECT_TRUE(Hardswish(true)(x).is_same(x));
  EXPECT_EQ(testing::values(x.data()), (std::vector<double>{0, 0, 4}));
  const Variable t(tensor({-4.0f, 0.5f, 4.0f}));
  EXPECT_TRUE(Threshold(ThresholdOptions(0.5, 9).inplace(true))(t).is_same(t));
  EXPECT_EQ(testing::values(t.data()), (std::vector<double>{9, 9, 4}));
  const Variable c(tensor({-1.0f, 2.0f}));
  EXPECT_TRUE(CELU(CELUOptions().inplace(true))(c).is_same(c));
}

TEST(MoreActivationModulesTest, ErrorsAreTorchs) {
  EXPECT_THROW_MSG(GLU()(Variable(zeros({2, 3}))),
                   "Halving dimension must be even, but dimension 1 is size 3");
  EXPECT_THROW_MSG(Softshrink(-1)(Variable(zeros({2}))),
                   "lambda must be greater or equal to 0, but found to be -1.");
  EXPECT_THROW_MSG(CELU(CELUOptions().alpha(0))(Variable(zeros({2}))),
                   "ZeroDivisionError: alpha cannot be 0 for CELU");
}

TEST(MoreActivationModulesTest, CloneKeepsTheOptions) {
  Threshold layer(ThresholdOptions(1, 2.5).inplace(true));
  EXPECT_EQ(printed(*layer->clone()), "Threshold(threshold=1, value=2.5, inplace=True)");
  GLU glu(0);
  EXPECT_EQ(printed(*glu->clone()), "GLU(dim=0)");
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
