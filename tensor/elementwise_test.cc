#include "tensor/elementwise.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "gtest/gtest.h"
#include "tensor/tensor.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::all_close;
using testing::values;

// Golden results exported from PyTorch by tools/gen_elementwise_golden.py.
const testing::GoldenFile& golden() {
  return testing::GoldenFile::get("tensor/testdata/elementwise_golden.txt");
}

Tensor x() { return linspace(-2, 2, 12).view({3, 4}); }
Tensor y() { return arange(4, kFloat32) + 0.5; }
Tensor pos(const Tensor& t) { return t.abs() + 0.1; }

// Every op runs on contiguous, transposed and step-sliced forms of x.
std::vector<Tensor> layouts(const Tensor& t) {
  return {t, testing::transposed_copy(t), testing::strided_copy(t)};
}

using Unary = std::function<Tensor(const Tensor&)>;
using Binary = std::function<Tensor(const Tensor&, const Tensor&)>;

const std::map<std::string, Unary>& unary_cases() {
  static const auto* cases = new std::map<std::string, Unary>{
      {"neg", [](const Tensor& t) { return -t; }},
      {"abs", [](const Tensor& t) { return t.abs(); }},
      {"sign", [](const Tensor& t) { return t.sign(); }},
      {"exp", [](const Tensor& t) { return t.exp(); }},
      {"erf", [](const Tensor& t) { return t.erf(); }},
      {"log", [](const Tensor& t) { return pos(t).log(); }},
      {"log1p", [](const Tensor& t) { return pos(t).log1p(); }},
      {"sqrt", [](const Tensor& t) { return pos(t).sqrt(); }},
      {"rsqrt", [](const Tensor& t) { return pos(t).rsqrt(); }},
      {"sin", [](const Tensor& t) { return t.sin(); }},
      {"cos", [](const Tensor& t) { return t.cos(); }},
      {"relu", [](const Tensor& t) { return t.relu(); }},
      {"sigmoid", [](const Tensor& t) { return t.sigmoid(); }},
      {"tanh", [](const Tensor& t) { return t.tanh(); }},
      {"gelu", [](const Tensor& t) { return t.gelu(); }},
      {"gelu_tanh", [](const Tensor& t) { return t.gelu("tanh"); }},
      {"clamp", [](const Tensor& t) { return t.clamp(-0.5, 1.0); }},
      {"pow_scalar", [](const Tensor& t) { return t.pow(2); }},
  };
  return *cases;
}

const std::map<std::string, Binary>& binary_cases() {
  static const auto* cases = new std::map<std::string, Binary>{
      {"add", [](const Tensor& a, const Tensor& b) { return a + b; }},
      {"add_alpha", [](const Tensor& a, const Tensor& b) { return add(a, b, 2.5); }},
      {"sub", [](const Tensor& a, const Tensor& b) { return a - b; }},
      {"mul", [](const Tensor& a, const Tensor& b) { return a * b; }},
      {"div", [](const Tensor& a, const Tensor& b) { return a / b; }},
      {"pow", [](const Tensor& a, const Tensor& b) { return pos(a).pow(b); }},
      {"maximum", [](const Tensor& a, const Tensor& b) { return maximum(a, b - 2); }},
      {"minimum", [](const Tensor& a, const Tensor& b) { return minimum(a, b - 2); }},
      {"lt", [](const Tensor& a, const Tensor& b) { return (a < b - 2).to(kFloat32); }},
      {"where", [](const Tensor& a, const Tensor& b) { return where(a > 0, a, b * 10); }},
  };
  return *cases;
}

TEST(ElementwiseTest, UnaryOpsMatchPyTorchOnEveryLayout) {
  for (const auto& [name, op] : unary_cases()) {
    for (const Tensor& input : layouts(x())) {
      EXPECT_TRUE(all_close(op(input), golden().at(name), 1e-5, 1e-6)) << name;
    }
  }
}

// Distance in units in the last place between two floats of the same sign.
int64_t ulps_between(float a, float b) {
  int32_t ia, ib;
  std::memcpy(&ia, &a, sizeof ia);
  std::memcpy(&ib, &b, sizeof ib);
  if (ia < 0) ia = std::numeric_limits<int32_t>::min() - ia;
  if (ib < 0) ib = std::numeric_limits<int32_t>::min() - ib;
  return std::abs(static_cast<int64_t>(ia) - ib);
}

// Floats from -100 to 100, dense near 0 and spread geometrically outside,
// with the edge cases; 100003 of them, so the last vector of 8 is partial.
std::vector<float> float_sweep() {
  std::vector<float> v = {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-8f, 0.625f, -0.625f, 0.62499994f,
                          88.0f, -88.0f, 100.0f, -100.0f};
  for (int i = 0; v.size() < 100003; ++i) {
    const float magnitude = std::pow(10.0f, -6.0f + 8.0f * (i % 50000) / 50000.0f);
    v.push_back(i < 50000 ? magnitude : -magnitude);
  }
  return v;
}

TEST(ElementwiseTest, Float32SigmoidAndTanhWithin3UlpOfTheExactResult) {
  const std::vector<float> inputs = float_sweep();
  const Tensor x = from_vector(inputs);
  const Tensor sigmoid = x.sigmoid(), tanh = x.tanh();
  const float* s = static_cast<const float*>(sigmoid.data_ptr());
  const float* t = static_cast<const float*>(tanh.data_ptr());
  int64_t worst_sigmoid = 0, worst_tanh = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const double in = inputs[i];
    const float exact_sigmoid = static_cast<float>(1.0 / (1.0 + std::exp(-in)));
    const float exact_tanh = static_cast<float>(std::tanh(in));
    // Subnormal sigmoids may flush to 0, as PyTorch's vectorized ones do.
    if (exact_sigmoid >= std::numeric_limits<float>::min() || s[i] != 0.0f) {
      worst_sigmoid = std::max(worst_sigmoid, ulps_between(s[i], exact_sigmoid));
    }
    worst_tanh = std::max(worst_tanh, ulps_between(t[i], exact_tanh));
    ASSERT_EQ(std::signbit(t[i]), std::signbit(in)) << "tanh(" << in << ")";
  }
  EXPECT_LE(worst_sigmoid, 3);
  EXPECT_LE(worst_tanh, 3);
}

TEST(ElementwiseTest, Float32ErfWithin3UlpAndGeluWithin8UlpOfTheExactResult) {
  std::vector<float> inputs = float_sweep();
  for (float& v : inputs) v = std::max(-13.0f, std::min(13.0f, v));  // gelu stays normal
  const Tensor x = from_vector(inputs);
  const Tensor erf = x.erf(), gelu = x.gelu();
  const float* e = static_cast<const float*>(erf.data_ptr());
  const float* g = static_cast<const float*>(gelu.data_ptr());
  int64_t worst_erf = 0, worst_gelu = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const double in = inputs[i];
    worst_erf = std::max(worst_erf, ulps_between(e[i], static_cast<float>(std::erf(in))));
    // x Phi(x), through erfc so that the negative tail is exact too.
    const double exact_gelu = 0.5 * in * std::erfc(-in / std::sqrt(2.0));
    worst_gelu = std::max(worst_gelu, ulps_between(g[i], static_cast<float>(exact_gelu)));
  }
  EXPECT_LE(worst_erf, 3);
  EXPECT_LE(worst_gelu, 8);
}

// sqrt and rsqrt (8 at a time), pow by a scalar 2 or 1 (a product or a
// copy, as in PyTorch) and clamp (branch-free) give the bits of the scalar
// definitions, on
// contiguous and strided inputs, NaN, infinities and signed zeros included.
TEST(ElementwiseTest, Float32SqrtSquareAndClampGiveTheScalarDefinitionsBits) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> inputs = float_sweep();
  inputs.insert(inputs.end(), {inf, -inf, std::nanf(""), -std::nanf(""), 4.0f, 2.0f, 0.5f});
  const Tensor dense = from_vector(inputs);
  const int64_t n = dense.numel();
  const Tensor strided = stack({dense, dense}, 1).select(1, 0);  // stride 2
  ASSERT_FALSE(strided.is_contiguous());
  auto same = [](float a, float b) {
    return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof(float)) == 0;
  };
  for (const Tensor& x : {dense, strided}) {
    const std::vector<float> sq = x.sqrt().to_vector<float>(), rs = x.rsqrt().to_vector<float>();
    const std::vector<float> p2 = x.pow(2).to_vector<float>(), p1 = x.pow(1).to_vector<float>();
    const std::vector<float> cl = x.clamp(-0.5, 3.0).to_vector<float>();
    const std::vector<float> lo = x.clamp_min(0).to_vector<float>();
    for (int64_t i = 0; i < n; ++i) {
      const float v = inputs[i];
      ASSERT_TRUE(same(sq[i], std::sqrt(v))) << "sqrt(" << v << ")";
      ASSERT_TRUE(same(rs[i], 1.0f / std::sqrt(v))) << "rsqrt(" << v << ")";
      // v * v is the correctly rounded square (and PyTorch's); libm's powf
      // is within an ulp of it.
      ASSERT_TRUE(same(p2[i], v * v)) << "pow(" << v << ", 2)";
      ASSERT_TRUE(same(p1[i], v)) << "pow(" << v << ", 1)";
      const float c = std::isnan(v) ? v : std::min(std::max(v, -0.5f), 3.0f);
      ASSERT_TRUE(same(cl[i], c)) << "clamp(" << v << ")";
      ASSERT_TRUE(same(lo[i], std::isnan(v) ? v : (v < 0 ? 0.0f : v))) << "clamp_min(" << v << ")";
    }
  }
  EXPECT_EQ(values(tensor({1.5, -3.0}, kFloat64).pow(2)), (std::vector<double>{2.25, 9.0}));
}

TEST(ElementwiseTest, Float32GeluKeepsItsNegativeTail) {
  // 1 + erf(x / sqrt 2) cancels to 0 there in a naive float formula.
  const std::vector<double> g = values(from_vector(std::vector<float>{-10.0f, -6.0f}).gelu());
  EXPECT_NEAR(g[0], -7.61985302e-23, 1e-28);
  EXPECT_NEAR(g[1], -5.91952587e-09, 1e-14);
}

TEST(ElementwiseTest, Float32SigmoidTanhErfAndGeluOfInfinitiesAndNan) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  const Tensor x = from_vector(std::vector<float>{inf, -inf, nan});
  const std::vector<double> s = values(x.sigmoid()), t = values(x.tanh());
  const std::vector<double> e = values(x.erf()), g = values(x.gelu());
  EXPECT_EQ(e[0], 1.0);
  EXPECT_EQ(e[1], -1.0);
  EXPECT_TRUE(std::isnan(e[2]));
  EXPECT_EQ(g[0], inf);
  EXPECT_TRUE(std::isnan(g[1]));  // -inf * 0, as PyTorch's
  EXPECT_TRUE(std::isnan(g[2]));
  EXPECT_EQ(s[0], 1.0);
  EXPECT_EQ(s[1], 0.0);
  EXPECT_TRUE(std::isnan(s[2]));
  EXPECT_EQ(t[0], 1.0);
  EXPECT_EQ(t[1], -1.0);
  EXPECT_TRUE(std::isnan(t[2]));
}

TEST(ElementwiseTest, Float32SigmoidTanhErfAndGeluGiveTheSameBitsOnEveryLayout) {
  const Tensor x = linspace(-9, 9, 7 * 13).view({7, 13});
  for (const Tensor& layout : layouts(x)) {
    EXPECT_EQ(values(layout.sigmoid()), values(x.sigmoid()));
    EXPECT_EQ(values(layout.tanh()), values(x.tanh()));
    EXPECT_EQ(values(layout.erf()), values(x.erf()));
    EXPECT_EQ(values(layout.gelu()), values(x.gelu()));
  }
  Tensor in_place = testing::transposed_copy(x);
  in_place.tanh_();
  EXPECT_EQ(values(in_place), values(x.tanh()));
}

// gelu_backward's exact derivatives in double: Phi(x) + x phi(x), and that
// of the tanh form x sigmoid(2u), s + 2 x s s' du (Note [AVX2 tanh-form
// gelu]); `scale`, the sum of the terms' magnitudes, bounds how far float
// rounding of the terms can move their sum.
struct GeluDerivative {
  double value, scale;
};
GeluDerivative exact_gelu_derivative(double x, bool tanh_form) {
  if (tanh_form) {
    const double k = std::sqrt(2.0 / M_PI), u = k * (x + 0.044715 * x * x * x);
    const double s = 1 / (1 + std::exp(-2 * u)), s_other = 1 / (1 + std::exp(2 * u));
    const double right = 2 * x * s * s_other * k * (1 + 3 * 0.044715 * x * x);
    return {s + right, std::abs(s) + std::abs(right)};
  }
  const double cdf = 0.5 * std::erfc(-x / std::sqrt(2.0));
  const double x_pdf = x * std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI);
  return {cdf + x_pdf, std::abs(cdf) + std::abs(x_pdf)};
}

// Within 8 ulp of the exact x sigmoid(2u), plus 4 |u| ulp: u is formed in
// float, from float constants, and exp(-2|u|) magnifies those few
// roundings by |2u| (as in PyTorch, which forms u in float too).
// The negative tail keeps its digits, where x (1 + tanh(u)) / 2 would
// round to 0 from x = -5 down.
TEST(ElementwiseTest, Float32TanhFormGeluIsWithinAFewUlpOfTheExactResult) {
  std::vector<float> inputs = float_sweep();
  for (float& v : inputs) v = std::max(-13.0f, std::min(13.0f, v));
  const std::vector<float> got = from_vector(inputs).gelu("tanh").to_vector<float>();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const double x = inputs[i], u = std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x);
    // Where exp(-2|u|) is subnormal the result may flush to 0.
    if (std::exp(-2 * std::abs(u)) < std::numeric_limits<float>::min()) continue;
    const float exact = static_cast<float>(x / (1 + std::exp(-2 * u)));
    ASSERT_LE(ulps_between(got[i], exact), 8 + 4 * std::abs(u)) << "gelu(" << x << ", tanh)";
  }
  EXPECT_LT(values(from_vector(std::vector<float>{-8.0f}).gelu("tanh"))[0], -3.1e-21);
}

TEST(ElementwiseTest, Float32GeluBackwardIsWithinAFewRoundingsOfTheExactDerivative) {
  std::vector<float> inputs = float_sweep();
  for (float& v : inputs) v = std::max(-13.0f, std::min(13.0f, v));
  const Tensor x = from_vector(inputs);
  const Tensor grad = full({x.numel()}, 1.5);
  for (const bool tanh_form : {false, true}) {
    const std::vector<float> got =
        gelu_backward(grad, x, tanh_form ? "tanh" : "none").to_vector<float>();
    for (size_t i = 0; i < inputs.size(); ++i) {
      const double u = std::sqrt(2.0 / M_PI) * (inputs[i] + 0.044715 * std::pow(inputs[i], 3));
      // Where exp(-2|u|) is subnormal the tanh form may flush to 0.
      if (tanh_form && std::exp(-2 * std::abs(u)) < std::numeric_limits<float>::min()) continue;
      const GeluDerivative d = exact_gelu_derivative(inputs[i], tanh_form);
      // The tanh form's u is formed in float: exp(-2|u|) magnifies its
      // rounding by |2u| (see the test above).
      const double magnified = tanh_form ? 1 + std::abs(u) : 1;
      const double tolerance =
          1.5 * (16 * std::numeric_limits<float>::epsilon() * d.scale * magnified + 1e-37);
      ASSERT_NEAR(got[i], 1.5 * d.value, tolerance)
          << (tanh_form ? "tanh" : "none") << " form at x = " << inputs[i];
    }
  }
}

TEST(ElementwiseTest, GeluBackwardMatchesPyTorchInFloat64) {
  const Tensor x = tensor({-9.0, -5.0, -1e-3, 0.0, 1.0, 2.5, 40.0}, kFloat64);
  const Tensor grad = tensor({1.0, 2.0, -1.0, 3.0, 0.5, 1.0, 2.0}, kFloat64);
  // torch.ops.aten.gelu_backward in PyTorch 1.13. Its 1 + erf(x / sqrt 2)
  // loses digits below x = -3 (at -9 all of Phi(-9) = 1.13e-19, where
  // torchlet's erfc(-x / sqrt 2) keeps them: -9.1389e-18, not -9.2518e-18),
  // and 1 + tanh(u) in the tanh form does too: hence 1e-9, not 1e-15.
  const std::vector<double> none = {-9.138937373906642e-18, -1.4293892003606929e-05,
                                    -0.4992021157051586, 1.5, 0.5416577352938432,
                                    1.037611085908145, 2.0};
  // The tanh form from sigmoid(2u) as torchlet computes it, keeping the
  // tail that PyTorch's 1 + tanh(u) rounds to 0 at -9.
  const std::vector<double> tanh = {-2.515735285067441e-27, -3.0927239759192454e-06,
                                    -0.499202115706475, 1.5, 0.5414820419228913,
                                    1.037951576212666, 2.0};
  const std::vector<double> got_none = values(gelu_backward(grad, x));
  const std::vector<double> got_tanh = values(gelu_backward(grad, x, "tanh"));
  for (size_t i = 0; i < none.size(); ++i) {
    EXPECT_NEAR(got_none[i], none[i], 1e-9 * std::abs(none[i])) << i;
    EXPECT_NEAR(got_tanh[i], tanh[i], 1e-9 * std::abs(tanh[i])) << i;
  }
}

TEST(ElementwiseTest, GeluBackwardGivesTheSameBitsOnEveryLayoutAndBroadcastGradient) {
  const Tensor x = linspace(-9, 9, 7 * 13).view({7, 13});
  const Tensor grad = linspace(-2, 3, 7 * 13).view({7, 13});
  for (const std::string approximate : {"none", "tanh"}) {
    const std::vector<double> expected = values(gelu_backward(grad, x, approximate));
    for (const Tensor& layout : layouts(x)) {
      EXPECT_EQ(values(gelu_backward(grad, layout, approximate)), expected) << approximate;
    }
    // A broadcast gradient (stride 0) takes the buffered path.
    const Tensor scalar_grad = full({1, 1}, 0.75);
    EXPECT_EQ(values(gelu_backward(scalar_grad, x, approximate)),
              values(gelu_backward(full({7, 13}, 0.75), x, approximate)))
        << approximate;
  }
}

TEST(ElementwiseTest, GeluBackwardOfInfinitiesAndNanIsNanAsInPyTorch) {
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor x = from_vector(std::vector<float>{inf, -inf, std::nanf("")});
  for (const std::string approximate : {"none", "tanh"}) {
    for (double g : values(gelu_backward(ones({3}), x, approximate))) {
      EXPECT_TRUE(std::isnan(g)) << approximate;
    }
  }
}

TEST(ElementwiseTest, GeluBackwardInFloat16RoundsTheFloat32Result) {
  const Tensor x = linspace(-4, 4, 33);
  const Tensor grad = linspace(1, 2, 33);
  const Tensor half = gelu_backward(grad.to(kFloat16), x.to(kFloat16));
  EXPECT_EQ(half.dtype(), kFloat16);
  EXPECT_EQ(values(half),
            values(gelu_backward(grad.to(kFloat16).to(kFloat32), x.to(kFloat16).to(kFloat32))
                       .to(kFloat16)));
}

TEST(ElementwiseTest, GeluBackwardRefusesIntegersAndUnknownApproximations) {
  EXPECT_THROW_MSG(gelu_backward(tensor({1, 2}), tensor({1, 2})),
                   "gelu_backward: \"GeluBackwardKernelImpl\" not implemented for 'Long'");
  EXPECT_THROW_MSG(gelu_backward(ones({2}), ones({2}), "exact"),
                   "gelu_backward: approximate argument must be either none or tanh, got 'exact'");
}

TEST(ElementwiseTest, BinaryOpsBroadcastAndMatchPyTorchOnEveryLayout) {
  for (const auto& [name, op] : binary_cases()) {
    for (const Tensor& input : layouts(x())) {
      EXPECT_TRUE(all_close(op(input, y()), golden().at(name), 1e-5, 1e-6)) << name;
    }
  }
}

TEST(ElementwiseTest, BinaryOpsAcceptExpandedInputs) {
  Tensor a = x().select(0, 0).unsqueeze(0).expand({3, 4});
  Tensor expected = x().select(0, 0).unsqueeze(0) * y();
  EXPECT_TRUE(all_close(a * y(), expected.expand({3, 4})));
}

TEST(ElementwiseTest, IntegerDivisionIsTrueDivision) {
  Tensor q = tensor({{7, -7}, {3, 0}}) / tensor({2, 4});
  EXPECT_EQ(q.dtype(), kFloat32);
  EXPECT_TRUE(all_close(q, golden().at("int_div")));
}

TEST(ElementwiseTest, ScalarOperandsOnEitherSide) {
  EXPECT_EQ(values(2 - tensor({1, 5})), (std::vector<double>{1, -3}));
  EXPECT_EQ(values(1.0 / tensor({2.0, 4.0})), (std::vector<double>{0.5, 0.25}));
  EXPECT_EQ(values(tensor({1, 2}) * 3), (std::vector<double>{3, 6}));
  EXPECT_EQ(values(pow(2, tensor({1, 3}))), (std::vector<double>{2, 8}));
}

TEST(ElementwiseTest, IntegerPowStaysIntegral) {
  Tensor p = tensor({2, 3, -2}).pow(3);
  EXPECT_EQ(p.dtype(), kInt64);
  EXPECT_EQ(values(p), (std::vector<double>{8, 27, -8}));
  EXPECT_THROW_MSG(tensor({2}).pow(-1), "pow: Integers to negative integer powers are not allowed.");
}

TEST(ElementwiseTest, FloatMathOnIntegersGivesFloat32) {
  EXPECT_EQ(tensor({1, 2}).exp().dtype(), kFloat32);
  EXPECT_EQ(tensor({-1, 2}).abs().dtype(), kInt64);
  EXPECT_EQ(values(tensor({-1, 2}).relu()), (std::vector<double>{0, 2}));
}

TEST(ElementwiseTest, NanPropagatesThroughMaximumAndClamp) {
  Tensor n = tensor({NAN, 1.0f});
  EXPECT_TRUE(std::isnan(maximum(n, tensor({0.0f, 0.0f})).to_vector<float>()[0]));
  EXPECT_TRUE(std::isnan(n.clamp(0, 0.5).to_vector<float>()[0]));
}

TEST(ElementwiseTest, ComparisonsGiveBool) {
  Tensor c = tensor({1, 2, 3}) >= 2;
  EXPECT_EQ(c.dtype(), kBool);
  EXPECT_EQ(c.to_vector<bool>(), (std::vector<bool>{false, true, true}));
  EXPECT_EQ((tensor({1.0, 2.0}) == tensor({1, 3})).to_vector<bool>(), (std::vector<bool>{true, false}));
  EXPECT_EQ(ne(tensor({1, 2}), 1).to_vector<bool>(), (std::vector<bool>{false, true}));
}

TEST(ElementwiseTest, LogicalOpsTreatNonzeroAsTrue) {
  Tensor a = tensor({0.0, 2.0, 0.0, -1.0});
  Tensor b = tensor({0, 0, 3, 1});
  EXPECT_EQ(logical_and(a, b).to_vector<bool>(), (std::vector<bool>{false, false, false, true}));
  EXPECT_EQ(logical_or(a, b).to_vector<bool>(), (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ(logical_not(a).to_vector<bool>(), (std::vector<bool>{true, false, true, false}));
}

TEST(ElementwiseTest, WhereBroadcastsAndPromotes) {
  Tensor w = where(tensor({true, false}), tensor({{1, 2}, {3, 4}}), 0.5);
  EXPECT_EQ(w.dtype(), kFloat32);
  EXPECT_EQ(values(w), (std::vector<double>{1, 0.5, 3, 0.5}));
  EXPECT_THROW_MSG(where(tensor({1.0}), tensor({1}), tensor({2})),
                   "where: where expected condition to be a boolean tensor, but got a tensor with "
                   "dtype float32");
}

TEST(ElementwiseTest, MaskedFillWritesWhereTheMaskHolds) {
  Tensor t = zeros({2, 2});
  Tensor filled = t.masked_fill(tensor({true, false}), 5);
  EXPECT_EQ(values(filled), (std::vector<double>{5, 0, 5, 0}));
  EXPECT_EQ(values(t), std::vector<double>(4, 0.0));
  t.masked_fill_(tensor({{false, true}, {true, false}}), scalar_tensor(-1.0));
  EXPECT_EQ(values(t), (std::vector<double>{0, -1, -1, 0}));
}

TEST(ElementwiseTest, MaskedFillErrors) {
  Tensor t = zeros({2});
  EXPECT_THROW_MSG(t.masked_fill_(tensor({1, 0}), 1), "masked_fill_ only supports boolean masks, "
                                                      "but got mask with dtype int64");
  EXPECT_THROW_MSG(t.masked_fill_(tensor({true, false}), zeros({2})),
                   "masked_fill_ only supports a 0-dimensional value tensor");
}

TEST(ElementwiseTest, InPlaceOpsWriteIntoSelf) {
  Tensor t = tensor({1.0, 2.0});
  Tensor alias = t;
  t.add_(1).mul_(2);
  t += tensor({1.0, 1.0});
  EXPECT_EQ(values(alias), (std::vector<double>{5, 7}));
  t.sqrt_();
  EXPECT_NEAR(values(alias)[0], std::sqrt(5.0), 1e-6);
}

TEST(ElementwiseTest, InPlaceOnNonContiguousSelf) {
  Tensor t = zeros({2, 3});
  Tensor view = t.t();
  view.add_(tensor({1, 2}));
  EXPECT_EQ(values(t), (std::vector<double>{1, 1, 1, 2, 2, 2}));
}

TEST(ElementwiseTest, InPlaceWithOverlappingInputIsCorrect) {
  Tensor a = arange(4, kFloat32).view({2, 2});
  a.add_(a.t());
  EXPECT_EQ(values(a), (std::vector<double>{0, 3, 3, 6}));
}

TEST(ElementwiseTest, InPlaceCannotChangeDtypeOrShape) {
  Tensor i = tensor({1, 2});
  EXPECT_THROW_MSG(i.add_(1.5), "add_: result type Float can't be cast to the desired output type "
                                "Long");
  EXPECT_THROW_MSG(i.exp_(), "exp_: result type Float can't be cast");
  EXPECT_THROW_MSG(zeros({3}).add_(zeros({2, 3})), "add_: output with shape [3] doesn't match the "
                                                   "broadcast shape [2, 3]");
}

TEST(ElementwiseTest, MismatchedShapesNameBothSizes) {
  EXPECT_THROW_MSG(zeros({2, 3}) + zeros({2, 4}),
                   "add: The size of tensor a (3) must match the size of tensor b (4) at "
                   "non-singleton dimension 1");
}

TEST(ElementwiseTest, BoolArithmeticErrors) {
  Tensor b = tensor({true, false});
  EXPECT_THROW_MSG(-b, "neg: Negation, the `-` operator, on a bool tensor is not supported.");
  EXPECT_THROW_MSG(b - b, "sub: Subtraction, the `-` operator, with two bool tensors is not "
                          "supported.");
  EXPECT_THROW_MSG(tensor({1, 2}).add(tensor({1, 2}), 0.5),
                   "add: For integral input tensors, argument alpha must not be a floating point "
                   "number.");
}

TEST(ElementwiseTest, AbsAndReluRefuseBool) {
  Tensor b = tensor({true, false});
  EXPECT_THROW_MSG(b.abs(), "abs: not implemented for 'Bool' tensors");
  EXPECT_THROW_MSG(b.relu(), "relu: not implemented for 'Bool' tensors");
  EXPECT_THROW_MSG(b.abs_(), "abs_: not implemented for 'Bool' tensors");
}

TEST(ElementwiseTest, ClampRefusesBool) {
  Tensor b = tensor({true, false});
  EXPECT_THROW_MSG(b.clamp(0, 1), "clamp: not implemented for 'Bool' tensors");
  EXPECT_THROW_MSG(b.clamp_(0, 1), "clamp: not implemented for 'Bool' tensors");
}

TEST(ElementwiseTest, ClampNeedsABound) {
  EXPECT_THROW_MSG(zeros({2}).clamp(std::nullopt, std::nullopt),
                   "clamp: At least one of 'min' or 'max' must not be None");
  EXPECT_THROW_MSG(zeros({2}).gelu("fast"), "gelu: approximate argument must be either none or tanh");
}

TEST(ElementwiseTest, ZeroSizeTensorsProduceZeroSizeResults) {
  Tensor e = zeros({0, 3}) + ones({3});
  EXPECT_EQ(e.sizes(), IntArrayRef({0, 3}));
  EXPECT_EQ(zeros({0}).exp().numel(), 0);
}

TEST(ElementwiseTest, LargeTensorsUseTheIntraOpPool) {
  Tensor a = arange(1 << 20, kFloat32);
  set_num_threads(2);  // a pool worker besides the caller, whatever the machine's cores
  const int64_t chunks_before = detail::pool_chunks_run();
  Tensor b = a * 2 + 1;
  const int64_t worker_chunks = detail::pool_chunks_run() - chunks_before;
  set_num_threads(0);
  EXPECT_GT(worker_chunks, 0);  // a worker, not only the calling thread, computed part of b
  std::vector<float> v = b.to_vector<float>();
  for (size_t i = 0; i < v.size(); i += 9973) ASSERT_EQ(v[i], 2.0f * i + 1) << i;
}

}  // namespace
}  // namespace torchlet

namespace torchlet {
namespace {

TEST(ScalarOperandTest, NumberTakesTheFloatingTensorsPrecision) {
  EXPECT_EQ((tensor({1.0f}) * 0.1).item<float>(), 0.1f);
  EXPECT_EQ((tensor({1.0f}) * 0.1).dtype(), kFloat32);
  const Tensor d = tensor({1.0}, kFloat64) + 1e-12;
  EXPECT_EQ(d.dtype(), kFloat64);
  EXPECT_EQ(d.item<double>(), 1.0 + 1e-12);
}

TEST(ScalarOperandTest, FloatNumberWithIntegerTensorPromotesToDefaultFloat) {
  const Tensor r = tensor({1, 2}) * 0.5;
  EXPECT_EQ(r.dtype(), kFloat32);
  EXPECT_EQ(values(r), (std::vector<double>{0.5, 1.0}));
}

TEST(ThresholdBackwardTest, PassesGradWhereSelfExceedsThreshold) {
  const Tensor grad = tensor({1.0f, 2.0f, 3.0f, 4.0f});
  const Tensor self = tensor({-1.0f, 0.0f, 0.5f, 2.0f});
  EXPECT_EQ(values(threshold_backward(grad, self, 0)), (std::vector<double>{0, 0, 3, 4}));
  EXPECT_EQ(values(threshold_backward(grad, self, 1)), (std::vector<double>{0, 0, 0, 4}));
}

TEST(ThresholdBackwardTest, ShapeMismatchNamesTheOp) {
  EXPECT_THROW_MSG(threshold_backward(ones({2, 3}), ones({2, 4}), 0),
                   "threshold_backward: The size of tensor a (3) must match the size of tensor b (4)");
}

// ---- Division family, rounding and float tests ---------------------------------

Tensor special() {
  return tensor({-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, NAN, INFINITY, -INFINITY, -0.0f, 1.25f,
                 -12345.678f});
}
Tensor int_a() { return tensor({7, -7, 7, -7, 0, 5, -5, 6}); }
Tensor int_b() { return tensor({2, 2, -2, -2, 3, -3, 3, 4}); }

TEST(ElementwiseTest, DivisionFamilyMatchesPyTorchOnEveryLayout) {
  const std::map<std::string, Binary> cases = {
      {"floor_divide", [](const Tensor& a, const Tensor& b) { return floor_divide(a, b); }},
      {"remainder", [](const Tensor& a, const Tensor& b) { return a.remainder(b); }},
      {"fmod", [](const Tensor& a, const Tensor& b) { return fmod(a, b); }},
  };
  for (const auto& [name, op] : cases) {
    for (const Tensor& input : layouts(x() * 3.1)) {
      EXPECT_TRUE(all_close(op(input, y() - 2), golden().at(name), 1e-5, 1e-5)) << name;
    }
  }
}

TEST(ElementwiseTest, Atan2MatchesPyTorch) {
  for (const Tensor& input : layouts(x())) {
    EXPECT_TRUE(all_close(atan2(input, y() - 2), golden().at("atan2")));
  }
}

TEST(ElementwiseTest, DivisionFamilyWithNumbersMatchesPyTorch) {
  const Tensor xs = x() * 3.1;
  EXPECT_TRUE(all_close(xs.floor_divide(-2.5), golden().at("floor_divide_scalar")));
  EXPECT_TRUE(all_close(xs.remainder(-2.5), golden().at("remainder_scalar"), 1e-5, 1e-5));
  EXPECT_TRUE(all_close(xs.fmod(2.5), golden().at("fmod_scalar"), 1e-5, 1e-5));
  EXPECT_TRUE(all_close(remainder(5, y() - 2), golden().at("remainder_scalar_tensor")));
}

TEST(ElementwiseTest, IntegerDivisionFamilyRoundsLikePython) {
  EXPECT_EQ(floor_divide(int_a(), int_b()).dtype(), kInt64);
  EXPECT_TRUE(all_close(floor_divide(int_a(), int_b()), golden().at("floor_divide_int")));
  EXPECT_TRUE(all_close(remainder(int_a(), int_b()), golden().at("remainder_int")));
  EXPECT_TRUE(all_close(fmod(int_a(), int_b()), golden().at("fmod_int")));
}

TEST(ElementwiseTest, Atan2OfIntegersGivesFloat32) {
  const Tensor angle = atan2(int_a(), int_b());
  EXPECT_EQ(angle.dtype(), kFloat32);
  EXPECT_TRUE(all_close(angle, golden().at("atan2_int")));
}

TEST(ElementwiseTest, FloatingDivisionFamilyByZeroGivesInfAndNan) {
  const Tensor a = tensor({7.0f, -7.0f, 0.0f});
  const Tensor zero = scalar_tensor(0.0);
  EXPECT_TRUE(all_close(stack({floor_divide(a, 0.0), remainder(a, zero.to(kFloat32)), fmod(a, 0.0)}),
                        golden().at("divide_by_zero")));
}

TEST(ElementwiseTest, IntegerDivisionByZeroThrowsZeroDivisionError) {
  EXPECT_THROW_MSG(floor_divide(int_a(), tensor({1, 0, 1, 1, 1, 1, 1, 1})),
                   "floor_divide: ZeroDivisionError");
  EXPECT_THROW_MSG(remainder(int_a(), 0), "remainder: ZeroDivisionError");
  EXPECT_THROW_MSG(fmod(int_a(), 0), "fmod: ZeroDivisionError");
  Tensor t = int_a();
  EXPECT_THROW_MSG(t.remainder_(0), "remainder_: ZeroDivisionError");
}

TEST(ElementwiseTest, DivisionFamilyRefusesBool) {
  const Tensor b = tensor({true, false});
  EXPECT_THROW_MSG(floor_divide(b, b), "floor_divide: \"div_floor_cpu\" not implemented for 'Bool'");
  EXPECT_THROW_MSG(remainder(b, b), "remainder: \"remainder_cpu\" not implemented for 'Bool'");
  EXPECT_THROW_MSG(fmod(b, b), "fmod: \"fmod_cpu\" not implemented for 'Bool'");
}

TEST(ElementwiseTest, InPlaceDivisionFamilyKeepsDtype) {
  Tensor t = tensor({7, -7});
  t.floor_divide_(2);
  EXPECT_EQ(values(t), (std::vector<double>{3, -4}));
  t.remainder_(tensor({2, 3}));
  EXPECT_EQ(values(t), (std::vector<double>{1, 2}));
  EXPECT_THROW_MSG(t.fmod_(2.5), "fmod_: result type Float can't be cast to the desired output "
                                 "type Long");
  EXPECT_THROW_MSG(t.atan2_(t), "atan2_: result type Float can't be cast to the desired output "
                                "type Long");
  Tensor f = tensor({1.0, -1.0});
  f.atan2_(tensor({-1.0, -1.0}));
  EXPECT_NEAR(values(f)[0], 3 * M_PI / 4, 1e-6);
}

TEST(ElementwiseTest, RoundingOpsMatchPyTorch) {
  const std::map<std::string, Unary> cases = {
      {"round", [](const Tensor& t) { return t.round(); }},
      {"round_1", [](const Tensor& t) { return round(t, 1); }},
      {"round_minus_2", [](const Tensor& t) { return t.round(-2); }},
      {"floor", [](const Tensor& t) { return floor(t); }},
      {"ceil", [](const Tensor& t) { return t.ceil(); }},
      {"trunc", [](const Tensor& t) { return trunc(t); }},
      {"frac", [](const Tensor& t) { return t.frac(); }},
      {"nan_to_num", [](const Tensor& t) { return nan_to_num(t); }},
      {"nan_to_num_values", [](const Tensor& t) { return t.nan_to_num(1.0, 2.0, -3.0); }},
  };
  for (const auto& [name, op] : cases) {
    EXPECT_TRUE(all_close(op(special()), golden().at(name))) << name;
  }
}

TEST(ElementwiseTest, RoundHalvesToEven) {
  EXPECT_EQ(values(tensor({0.5, 1.5, 2.5, -0.5, -2.5}).round()),
            (std::vector<double>{0, 2, 2, 0, -2}));
}

TEST(ElementwiseTest, FloatTestsMatchPyTorch) {
  EXPECT_EQ(special().isnan().dtype(), kBool);
  EXPECT_TRUE(all_close(special().isnan(), golden().at("isnan")));
  EXPECT_TRUE(all_close(isinf(special()), golden().at("isinf")));
  EXPECT_TRUE(all_close(isfinite(special()), golden().at("isfinite")));
}

TEST(ElementwiseTest, FloatTestsOnIntegersAreConstant) {
  EXPECT_EQ(int_a().isnan().to_vector<bool>(), std::vector<bool>(8, false));
  EXPECT_EQ(int_a().isinf().to_vector<bool>(), std::vector<bool>(8, false));
  EXPECT_EQ(int_a().isfinite().to_vector<bool>(), std::vector<bool>(8, true));
}

TEST(ElementwiseTest, RoundingIntegersGivesACopy) {
  const Tensor a = int_a();
  for (const Tensor& r : {a.floor(), a.ceil(), a.round(), a.trunc(), a.nan_to_num()}) {
    EXPECT_EQ(r.dtype(), kInt64);
    EXPECT_EQ(values(r), values(a));
    EXPECT_FALSE(r.shares_storage(a));
  }
}

TEST(ElementwiseTest, RoundingErrorsNameTheDtype) {
  EXPECT_THROW_MSG(tensor({true}).floor(), "floor: \"floor\" not implemented for 'Bool'");
  EXPECT_THROW_MSG(int_a().frac(), "frac: \"frac_cpu\" not implemented for 'Long'");
  EXPECT_THROW_MSG(int_a().round(1), "round: \"round_cpu\" not implemented for 'Long'");
}

TEST(ElementwiseTest, InPlaceRoundingWritesIntoSelf) {
  Tensor t = tensor({1.25, -2.75, NAN});
  Tensor alias = t;
  t.round_(1);
  EXPECT_TRUE(all_close(alias, tensor({1.2, -2.8, NAN})));
  t.floor_().nan_to_num_(7.0);
  EXPECT_EQ(values(alias), (std::vector<double>{1, -3, 7}));
  t.frac_();
  EXPECT_EQ(values(alias), (std::vector<double>{0, 0, 0}));
}

}  // namespace
}  // namespace torchlet
