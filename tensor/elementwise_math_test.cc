// The elementwise math functions (sinh ... digamma, hypot ... copysign,
// lerp, addcmul, addcdiv, isclose, allclose, equal) against PyTorch 1.13:
// values from tools/gen_elementwise_golden.py, dtypes and error texts.
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/elementwise.h"
#include "tensor/tensor.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::all_close;
using testing::values;

const testing::GoldenFile& golden() {
  return testing::GoldenFile::get("tensor/testdata/elementwise_math_golden.txt");
}

// A fresh copy (the in-place tests write into it).
Tensor fixture(const std::string& name, DType dtype = kFloat64) {
  const Tensor& stored = golden().at(name);
  return stored.dtype() == dtype ? stored.clone() : stored.to(dtype);
}

// The fixture suffix and the tolerances of each dtype: float32 results may
// differ from PyTorch's in the last bits (their libm against ours).
struct Precision {
  DType dtype;
  const char* suffix;
  double rtol, atol;
};
const Precision kPrecisions[] = {{kFloat64, ".f64", 1e-13, 1e-14}, {kFloat32, ".f32", 2e-6, 1e-6}};

using Unary = std::function<Tensor(const Tensor&)>;

const std::map<std::string, std::pair<Unary, Unary>>& unary_ops() {
  // The method and the free function (erfinv has the method only).
#define TORCHLET_OP(name)                                                   \
  {                                                                         \
    #name, {[](const Tensor& t) { return t.name(); },                       \
            [](const Tensor& t) { return torchlet::name(t); } }             \
  }
  static const auto* ops = new std::map<std::string, std::pair<Unary, Unary>>{
      TORCHLET_OP(sinh),  TORCHLET_OP(cosh),  TORCHLET_OP(asin),   TORCHLET_OP(acos),
      TORCHLET_OP(atan),  TORCHLET_OP(asinh), TORCHLET_OP(acosh),  TORCHLET_OP(atanh),
      TORCHLET_OP(expm1), TORCHLET_OP(log2),  TORCHLET_OP(log10),  TORCHLET_OP(exp2),
      TORCHLET_OP(erfc),  TORCHLET_OP(lgamma), TORCHLET_OP(digamma),
      {"erfinv", {[](const Tensor& t) { return t.erfinv(); },
                  [](const Tensor& t) { return t.erfinv(); }}},
  };
#undef TORCHLET_OP
  return *ops;
}

TEST(ElementwiseMathTest, UnaryOpsMatchPyTorchAtDomainEdges) {
  for (const auto& [name, op] : unary_ops()) {
    for (const Precision& p : kPrecisions) {
      const Tensor in = fixture(name + ".in", p.dtype);
      const Tensor expected = fixture(name + p.suffix);
      EXPECT_EQ(op.first(in).dtype(), p.dtype) << name;
      EXPECT_TRUE(all_close(op.first(in), expected, p.rtol, p.atol)) << name << p.suffix;
      EXPECT_TRUE(all_close(op.second(in), expected, p.rtol, p.atol)) << name << p.suffix;
    }
  }
}

TEST(ElementwiseMathTest, UnaryOpsReadStridedInputs) {
  for (const auto& [name, op] : unary_ops()) {
    const Tensor in = fixture(name + ".in").view({1, -1});
    const Tensor expected = fixture(name + ".f64").view({1, -1});
    EXPECT_TRUE(all_close(op.first(testing::strided_copy(in)), expected, 1e-13, 1e-14)) << name;
    EXPECT_TRUE(all_close(op.first(testing::transposed_copy(in.t())), expected.t(), 1e-13, 1e-14))
        << name;
  }
}

TEST(ElementwiseMathTest, DomainEdgesGiveInfinitiesAndNaN) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(values(tensor({1.0, -1.0}).atanh()), (std::vector<double>{inf, -inf}));
  EXPECT_EQ(values(tensor({1.0, -1.0}).erfinv()), (std::vector<double>{inf, -inf}));
  EXPECT_EQ(values(tensor({1.0, -1.0}, kFloat64).asin()),
            (std::vector<double>{M_PI / 2, -M_PI / 2}));
  EXPECT_EQ(tensor({1.0}).acosh().item<float>(), 0.0f);
  EXPECT_EQ(values(tensor({0.0, -0.0}).digamma()), (std::vector<double>{-inf, inf}));
  EXPECT_TRUE(std::isnan(tensor({-2.0}).digamma().item<float>()));
  EXPECT_EQ(values(tensor({0.0, -1.0, -2.0}).lgamma()), (std::vector<double>{inf, inf, inf}));
  EXPECT_EQ(tensor({0.0}).log2().item<float>(), -inf);
  EXPECT_TRUE(std::isnan(tensor({-1.0}).log10().item<float>()));
}

// Deliberately more exact than PyTorch 1.13 there (see the generator).
TEST(ElementwiseMathTest, ErfinvKeepsItsDigitsInTheTails) {
  const Tensor in = fixture("erfinv_tail.in");
  const Tensor exact = fixture("erfinv_tail.exact");
  EXPECT_TRUE(all_close(in.erfinv(), exact, 1e-15, 0));
  EXPECT_TRUE(all_close(in.to(kFloat32).erfinv(), in.to(kFloat32).to(kFloat64).erfinv(), 1e-7, 0));
}

TEST(ElementwiseMathTest, TrigammaIsTheDerivativeOfDigamma) {
  const Tensor x = tensor({1.0, 0.5, -2.5, 12.0, 3.25}, kFloat64);
  const std::vector<double> t = values(trigamma(x));
  EXPECT_NEAR(t[0], M_PI * M_PI / 6, 1e-14);
  EXPECT_NEAR(t[1], M_PI * M_PI / 2, 1e-14);
  const double h = 1e-6;
  const std::vector<double> slope = values(((x + h).digamma() - (x - h).digamma()) / (2 * h));
  for (size_t i = 0; i < t.size(); ++i) EXPECT_NEAR(t[i], slope[i], 1e-6 * std::abs(t[i])) << i;
}

TEST(ElementwiseMathTest, UnaryOpsPromoteIntegersToFloat32) {
  const Tensor ints = tensor({1, 2, 3}, kInt64);
  for (const auto& [name, op] : unary_ops()) {
    const Tensor out = op.first(ints);
    EXPECT_EQ(out.dtype(), kFloat32) << name;
    EXPECT_TRUE(all_close(out, op.first(ints.to(kFloat32)), 0, 0)) << name;
  }
  EXPECT_EQ(tensor({true, false}).sinh().dtype(), kFloat32);
}

TEST(ElementwiseMathTest, UnaryOpsKeepEmptyAndZeroDimShapes) {
  const Tensor none = empty({0, 3}).digamma();
  EXPECT_EQ(none.dim(), 2);
  EXPECT_EQ(none.size(1), 3);
  EXPECT_EQ(none.numel(), 0);
  const Tensor scalar = scalar_tensor(0.5, kFloat64);
  EXPECT_EQ(scalar.erfinv().dim(), 0);
  EXPECT_DOUBLE_EQ(scalar.erfinv().item<double>(), 0.47693627620446987);
}

using InPlace = std::function<Tensor&(Tensor&)>;

const std::map<std::string, InPlace>& inplace_ops() {
#define TORCHLET_OP(name) {#name, [](Tensor& t) -> Tensor& { return t.name##_(); }}
  static const auto* ops = new std::map<std::string, InPlace>{
      TORCHLET_OP(sinh),  TORCHLET_OP(cosh),  TORCHLET_OP(asin),   TORCHLET_OP(acos),
      TORCHLET_OP(atan),  TORCHLET_OP(asinh), TORCHLET_OP(acosh),  TORCHLET_OP(atanh),
      TORCHLET_OP(expm1), TORCHLET_OP(log2),  TORCHLET_OP(log10),  TORCHLET_OP(exp2),
      TORCHLET_OP(erfc),  TORCHLET_OP(erfinv), TORCHLET_OP(lgamma), TORCHLET_OP(digamma),
  };
#undef TORCHLET_OP
  return *ops;
}

TEST(ElementwiseMathTest, InPlaceUnaryOpsWriteTheirResultIntoSelf) {
  for (const auto& [name, op] : inplace_ops()) {
    const Tensor in = fixture(name + ".in");
    Tensor t = testing::strided_copy(in.view({1, -1}));
    Tensor& result = op(t);
    EXPECT_TRUE(result.is_same(t)) << name;
    EXPECT_TRUE(all_close(t, fixture(name + ".f64").view({1, -1}), 1e-13, 1e-14)) << name;
  }
}

TEST(ElementwiseMathTest, InPlaceUnaryOpsRefuseIntegerTensors) {
  for (const auto& [name, op] : inplace_ops()) {
    Tensor ints = tensor({1, 2}, kInt64);
    EXPECT_THROW_MSG(op(ints), name + "_: result type Float can't be cast to the desired output "
                               "type Long");
  }
}

// ---- Binary ---------------------------------------------------------------------

using Binary = std::function<Tensor(const Tensor&, const Tensor&)>;

const std::map<std::string, Binary>& binary_ops() {
  static const auto* ops = new std::map<std::string, Binary>{
      {"hypot", [](const Tensor& a, const Tensor& b) { return a.hypot(b); }},
      {"logaddexp", [](const Tensor& a, const Tensor& b) { return a.logaddexp(b); }},
      {"logaddexp2", [](const Tensor& a, const Tensor& b) { return logaddexp2(a, b); }},
      {"xlogy", [](const Tensor& a, const Tensor& b) { return xlogy(a, b); }},
      {"copysign", [](const Tensor& a, const Tensor& b) { return a.copysign(b); }},
  };
  return *ops;
}

TEST(ElementwiseMathTest, BinaryOpsBroadcastAndMatchPyTorch) {
  for (const auto& [name, op] : binary_ops()) {
    for (const Precision& p : kPrecisions) {
      const Tensor a = fixture(name + ".a", p.dtype), b = fixture(name + ".b", p.dtype);
      const Tensor expected = fixture(name + p.suffix);
      EXPECT_TRUE(all_close(op(a, b), expected, p.rtol, p.atol)) << name << p.suffix;
      EXPECT_TRUE(all_close(op(testing::transposed_copy(a), b), expected, p.rtol, p.atol))
          << name << p.suffix;
      EXPECT_TRUE(all_close(op(testing::strided_copy(a), b), expected, p.rtol, p.atol))
          << name << p.suffix;
    }
  }
}

TEST(ElementwiseMathTest, XlogyOfZeroIsZeroUnlessTheLogIsNaN) {
  const std::vector<double> r = values(xlogy(tensor({0.0, 0.0, 0.0}), tensor({0.0, NAN, 1.0})));
  EXPECT_EQ(r[0], 0.0);
  EXPECT_TRUE(std::isnan(r[1]));
  EXPECT_EQ(r[2], 0.0);
}

TEST(ElementwiseMathTest, ScalarFormsMatchPyTorch) {
  for (const Precision& p : kPrecisions) {
    const Tensor xa = fixture("xlogy.a", p.dtype), xb = fixture("xlogy.b", p.dtype);
    EXPECT_TRUE(all_close(xa.xlogy(2.5), fixture(std::string("xlogy_other_scalar") + p.suffix),
                          p.rtol, p.atol));
    EXPECT_TRUE(all_close(xlogy(3, xb), fixture(std::string("xlogy_self_scalar") + p.suffix),
                          p.rtol, p.atol));
    EXPECT_TRUE(all_close(fixture("copysign.a", p.dtype).copysign(-1),
                          fixture(std::string("copysign_scalar") + p.suffix), 0, 0));
  }
}

TEST(ElementwiseMathTest, XlogyAndCopysignPromoteIntegersToFloat32) {
  const Tensor ints = tensor({1, 2, 3}, kInt64);
  EXPECT_EQ(xlogy(ints, ints).dtype(), kFloat32);
  EXPECT_EQ(xlogy(2, ints).dtype(), kFloat32);
  EXPECT_EQ(ints.xlogy(2).dtype(), kFloat32);
  EXPECT_EQ(ints.copysign(-1).dtype(), kFloat32);
  EXPECT_EQ(values(ints.copysign(-1)), (std::vector<double>{-1, -2, -3}));
  EXPECT_EQ(copysign(tensor({true, false}), tensor({true, true})).dtype(), kFloat32);
  EXPECT_EQ(hypot(ints, tensor({1.0f, 1.0f, 1.0f})).dtype(), kFloat32);
  EXPECT_EQ(xlogy(tensor({1.0f}), tensor({2.0}, kFloat64)).dtype(), kFloat64);
}

TEST(ElementwiseMathTest, FloatingOnlyBinaryOpsRefuseIntegers) {
  const Tensor ints = tensor({1, 2}, kInt64);
  EXPECT_THROW_MSG(hypot(ints, ints), "hypot: \"hypot_cpu\" not implemented for 'Long'");
  EXPECT_THROW_MSG(logaddexp(ints, ints), "\"logaddexp_cpu\" not implemented for 'Long'");
  EXPECT_THROW_MSG(logaddexp2(ints, ints), "\"logaddexp2_cpu\" not implemented for 'Long'");
  const Tensor flags = tensor({true});
  EXPECT_THROW_MSG(hypot(flags, flags), "\"hypot_cpu\" not implemented for 'Bool'");
}

TEST(ElementwiseMathTest, BinaryOpsRefuseShapesThatDoNotBroadcast) {
  EXPECT_THROW_MSG(hypot(ones({3}), ones({2})), "hypot: The size of tensor a (3) must match the "
                                                "size of tensor b (2) at non-singleton dimension 0");
}

TEST(ElementwiseMathTest, InPlaceBinaryOpsWriteIntoSelf) {
  const Tensor a = fixture("hypot.a"), b = fixture("hypot.b");
  Tensor t = a.clone();
  t.hypot_(b);
  EXPECT_TRUE(all_close(t, fixture("hypot.f64"), 1e-13, 1e-14));
  Tensor x = fixture("xlogy.a");
  x.xlogy_(fixture("xlogy.b"));
  EXPECT_TRUE(all_close(x, fixture("xlogy.f64"), 1e-13, 1e-14));
  Tensor xs = fixture("xlogy.a");
  xs.xlogy_(2.5);
  EXPECT_TRUE(all_close(xs, fixture("xlogy_other_scalar.f64"), 1e-13, 1e-14));
  Tensor c = fixture("copysign.a");
  c.copysign_(fixture("copysign.b"));
  EXPECT_TRUE(all_close(c, fixture("copysign.f64"), 0, 0));
  Tensor cs = fixture("copysign.a", kFloat32);
  cs.copysign_(-1);
  EXPECT_TRUE(all_close(cs, fixture("copysign_scalar.f32"), 0, 0));
  // A wider other is computed in its dtype and written back in self's.
  Tensor narrow = tensor({3.0f, 5.0f});
  narrow.hypot_(tensor({4.0, 12.0}, kFloat64));
  EXPECT_EQ(narrow.dtype(), kFloat32);
  EXPECT_EQ(values(narrow), (std::vector<double>{5, 13}));
}

TEST(ElementwiseMathTest, InPlaceBinaryOpsRefuseResultsSelfCannotHold) {
  Tensor ints = tensor({1, 2}, kInt64);
  const Tensor floats = tensor({1.0f, 2.0f});
  EXPECT_THROW_MSG(ints.hypot_(floats),
                   "hypot_: result type Float can't be cast to the desired output type Long");
  EXPECT_THROW_MSG(ints.hypot_(ints), "hypot_: \"hypot_cpu\" not implemented for 'Long'");
  EXPECT_THROW_MSG(ints.xlogy_(floats),
                   "xlogy_: result type Float can't be cast to the desired output type Long");
  EXPECT_THROW_MSG(ints.xlogy_(2), "xlogy_: result type Float can't be cast");
  EXPECT_THROW_MSG(ints.copysign_(floats),
                   "copysign_: result type Float can't be cast to the desired output type Long");
  Tensor small = ones({2});
  EXPECT_THROW_MSG(small.hypot_(ones({3, 2})),
                   "hypot_: output with shape [2] doesn't match the broadcast shape [3, 2]");
}

// ---- lerp -----------------------------------------------------------------------

TEST(ElementwiseMathTest, LerpMatchesPyTorchOnBothSidesOfOneHalf) {
  for (const Precision& p : kPrecisions) {
    const Tensor start = fixture("lerp.start", p.dtype), end = fixture("lerp.end", p.dtype);
    const Tensor weight = fixture("lerp.weight", p.dtype);
    EXPECT_TRUE(all_close(start.lerp(end, weight), fixture(std::string("lerp_tensor") + p.suffix),
                          p.rtol, p.atol));
    EXPECT_TRUE(all_close(lerp(start, end, testing::transposed_copy(weight)),
                          fixture(std::string("lerp_tensor") + p.suffix), p.rtol, p.atol));
    const Tensor scalar_expected = fixture(std::string("lerp_scalar") + p.suffix);
    const double weights[] = {0.3, 0.5, 0.7, -1.0, 2.0};
    for (int64_t i = 0; i < 5; ++i) {
      EXPECT_TRUE(all_close(lerp(start.expand({3, 4}), end, weights[i]), scalar_expected[i],
                            p.rtol, p.atol))
          << weights[i];
    }
  }
}

TEST(ElementwiseMathTest, InPlaceLerpWritesIntoSelf) {
  const Tensor start = fixture("lerp.start").expand({3, 4}).contiguous();
  Tensor t = start.clone();
  t.lerp_(fixture("lerp.end"), fixture("lerp.weight"));
  EXPECT_TRUE(all_close(t, fixture("lerp_tensor.f64"), 1e-13, 1e-14));
  Tensor s = start.clone();
  s.lerp_(fixture("lerp.end"), 0.7);
  EXPECT_TRUE(all_close(s, fixture("lerp_scalar.f64")[2], 1e-13, 1e-14));
}

TEST(ElementwiseMathTest, LerpRefusesMixedDtypes) {
  const Tensor f = ones({3}), d = ones({3}, kFloat64), i = ones({3}, kInt64);
  EXPECT_THROW_MSG(lerp(f, d, 0.5), "lerp: expected dtype float for `end` but got dtype double");
  EXPECT_THROW_MSG(lerp(f, i, 0.5), "expected dtype float for `end` but got dtype long int");
  EXPECT_THROW_MSG(lerp(f, f, d), "lerp: expected dtype float for `weight` but got dtype double");
  EXPECT_THROW_MSG(lerp(i, i, 0.5), "lerp: \"lerp_kernel_scalar\" not implemented for 'Long'");
  EXPECT_THROW_MSG(lerp(i, i, i), "lerp: \"lerp_kernel_tensor\" not implemented for 'Long'");
  Tensor self = ones({3});
  EXPECT_THROW_MSG(self.lerp_(d, 0.5), "lerp_: expected dtype float for `end`");
}

TEST(ElementwiseMathTest, LerpRefusesShapesThatDoNotBroadcastOrFitSelf) {
  EXPECT_THROW_MSG(lerp(ones({3}), ones({3}), ones({2})),
                   "lerp: The size of tensor a (3) must match the size of tensor b (2)");
  Tensor self = ones({3});
  EXPECT_THROW_MSG(self.lerp_(ones({3}), ones({2, 3})),
                   "lerp_: output with shape [3] doesn't match the broadcast shape [2, 3]");
  EXPECT_THROW_MSG(self.lerp_(ones({2, 3}), 0.5),
                   "lerp_: output with shape [3] doesn't match the broadcast shape [2, 3]");
}

// ---- addcmul and addcdiv --------------------------------------------------------------

TEST(ElementwiseMathTest, AddcmulAndAddcdivBroadcastAndMatchPyTorch) {
  for (const Precision& p : kPrecisions) {
    const Tensor self = fixture("addc.self", p.dtype), t1 = fixture("addc.tensor1", p.dtype);
    const Tensor t2 = fixture("addc.tensor2", p.dtype);
    EXPECT_TRUE(all_close(self.addcmul(t1, t2, 0.5), fixture(std::string("addcmul") + p.suffix),
                          p.rtol, p.atol));
    EXPECT_TRUE(all_close(addcdiv(self, t1, testing::transposed_copy(t2), -2),
                          fixture(std::string("addcdiv") + p.suffix), p.rtol, p.atol));
  }
  const Tensor ia = tensor({1, -2, 3, 4}, kInt64).view({2, 2}), ib = tensor({5, -6}, kInt64);
  const Tensor product = addcmul(ia, ib, ia, 3);
  EXPECT_EQ(product.dtype(), kInt64);
  EXPECT_TRUE(all_close(product, fixture("addcmul_int"), 0, 0));
}

TEST(ElementwiseMathTest, AddcmulPromotesOverItsThreeTensors) {
  const Tensor ints = tensor({1, 2}, kInt64);
  EXPECT_EQ(addcmul(ints, ones({2}), ints).dtype(), kFloat32);
  EXPECT_EQ(addcdiv(ints, ones({2}), ones({2})).dtype(), kFloat32);
  EXPECT_EQ(addcmul(ones({2}), ones({2}, kFloat64), ints).dtype(), kFloat64);
  // An integer result takes the value as an integer (0.5 -> 0), as PyTorch.
  EXPECT_EQ(values(addcmul(ints, ints, ints, 0.5)), (std::vector<double>{1, 2}));
}

TEST(ElementwiseMathTest, InPlaceAddcmulAndAddcdivWriteIntoSelf) {
  Tensor self = fixture("addc.self").expand({3, 4}).contiguous();
  Tensor other = self.clone();
  self.addcmul_(fixture("addc.tensor1"), fixture("addc.tensor2"), 0.5);
  EXPECT_TRUE(all_close(self, fixture("addcmul.f64"), 1e-13, 1e-14));
  other.addcdiv_(fixture("addc.tensor1"), fixture("addc.tensor2"), -2);
  EXPECT_TRUE(all_close(other, fixture("addcdiv.f64"), 1e-13, 1e-14));
  Tensor narrow = tensor({1.0f, 2.0f});
  narrow.addcmul_(tensor({2.0, 3.0}, kFloat64), tensor({0.5, 0.5}, kFloat64));
  EXPECT_EQ(narrow.dtype(), kFloat32);
  EXPECT_EQ(values(narrow), (std::vector<double>{2, 3.5}));
}

TEST(ElementwiseMathTest, AddcdivRefusesIntegerDivision) {
  const Tensor ints = tensor({1, 2}, kInt64);
  EXPECT_THROW_MSG(addcdiv(ints, ints, ints),
                   "addcdiv: Integer division with addcdiv is no longer supported, and in a "
                   "future  release addcdiv will perform a true division of tensor1 and tensor2.");
  EXPECT_THROW_MSG(addcdiv(ones({2}), ints, tensor({true, false})), "Integer division with addcdiv");
  EXPECT_NO_THROW(addcdiv(ints, ones({2}), ints));
  Tensor self = ones({2});
  EXPECT_THROW_MSG(self.addcdiv_(ints, ints), "addcdiv_: Integer division with addcdiv");
}

TEST(ElementwiseMathTest, AddcmulRefusesBoolAndResultsSelfCannotHold) {
  const Tensor flags = tensor({true, false});
  EXPECT_THROW_MSG(addcmul(flags, flags, flags),
                   "addcmul: \"addcmul_cpu_out\" not implemented for 'Bool'");
  Tensor ints = tensor({1, 2}, kInt64);
  EXPECT_THROW_MSG(ints.addcmul_(ones({2}), ones({2})),
                   "addcmul_: result type Float can't be cast to the desired output type Long");
  EXPECT_THROW_MSG(ints.addcdiv_(ones({2}), ones({2})),
                   "addcdiv_: result type Float can't be cast to the desired output type Long");
  Tensor small = ones({2});
  EXPECT_THROW_MSG(small.addcmul_(ones({3, 1}), ones({2})),
                   "addcmul_: output with shape [2] doesn't match the broadcast shape [3, 2]");
  EXPECT_THROW_MSG(addcmul(ones({2}), ones({3}), ones({3})),
                   "addcmul: The size of tensor a (2) must match the size of tensor b (3)");
}

// ---- isclose, allclose, equal -----------------------------------------------------------

TEST(ElementwiseMathTest, IscloseMatchesPyTorch) {
  for (const Precision& p : kPrecisions) {
    const Tensor a = fixture("isclose.a", p.dtype), b = fixture("isclose.b", p.dtype);
    auto expected = [&](const char* name) {
      return fixture(std::string(name) + p.suffix, kBool);
    };
    EXPECT_TRUE(a.isclose(b).equal(expected("isclose"))) << p.suffix;
    EXPECT_TRUE(isclose(a, b, 1e-05, 1e-08, true).equal(expected("isclose_equal_nan")));
    EXPECT_TRUE(isclose(a, b, 1e-3, 0.5).equal(expected("isclose_loose"))) << p.suffix;
    EXPECT_TRUE(isclose(a, b, 0, 0).equal(expected("isclose_exact"))) << p.suffix;
    EXPECT_EQ(a.isclose(b).dtype(), kBool);
  }
  const Tensor ints = isclose(tensor({1, 5, 100, -7}, kInt64), tensor({2, 5, 101, 7}, kInt64),
                              0.01, 0.5);
  EXPECT_TRUE(ints.equal(fixture("isclose_int", kBool)));
}

TEST(ElementwiseMathTest, IscloseBroadcasts) {
  const Tensor close = isclose(tensor({1.0f, 2.0f, 3.0f}), scalar_tensor(1.0, kFloat32));
  EXPECT_EQ(values(close), (std::vector<double>{1, 0, 0}));
}

TEST(ElementwiseMathTest, IscloseRefusesMixedDtypesAndNegativeTolerances) {
  EXPECT_THROW_MSG(isclose(ones({2}, kInt64), ones({2})), "isclose: Long did not match Float");
  EXPECT_THROW_MSG(allclose(ones({2}), ones({2}, kFloat64)), "Float did not match Double");
  EXPECT_THROW_MSG(isclose(ones({2}), ones({2}), -1),
                   "isclose: rtol must be greater than or equal to zero, but got -1");
  EXPECT_THROW_MSG(ones({2}).isclose(ones({2}), 1e-5, -1),
                   "isclose: atol must be greater than or equal to zero, but got -1");
}

TEST(ElementwiseMathTest, AllcloseIsTrueOnlyWhenEveryElementIsClose) {
  const Tensor a = tensor({1.0, 2.0}, kFloat64);
  EXPECT_TRUE(a.allclose(a + 1e-9));
  EXPECT_FALSE(a.allclose(a + tensor({0.0, 1e-3}, kFloat64)));
  EXPECT_TRUE(allclose(a, a + 0.5, 0, 0.5));
  EXPECT_FALSE(allclose(tensor({NAN}), tensor({NAN})));
  EXPECT_TRUE(allclose(tensor({NAN}), tensor({NAN}), 1e-5, 1e-8, true));
  EXPECT_TRUE(allclose(empty({0}), empty({0})));
}

TEST(ElementwiseMathTest, EqualComparesSizesAndValues) {
  const Tensor a = tensor({1.0f, 2.0f, 3.0f});
  EXPECT_TRUE(a.equal(a.clone()));
  EXPECT_TRUE(equal(a, tensor({1, 2, 3}, kInt64)));  // compared as numbers, as PyTorch
  EXPECT_FALSE(a.equal(a.slice(0, 0, 2)));
  EXPECT_FALSE(a.equal(a.view({1, 3})));
  EXPECT_FALSE(a.equal(tensor({1.0f, 2.0f, 4.0f})));
  EXPECT_FALSE(equal(tensor({NAN}), tensor({NAN})));
  EXPECT_TRUE(equal(empty({0, 2}), empty({0, 2})));
  EXPECT_TRUE(equal(testing::transposed_copy(a.view({1, 3})), a.view({1, 3})));
}

}  // namespace
}  // namespace torchlet
