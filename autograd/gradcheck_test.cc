// Every differentiable op's formula against finite differences (float64),
// on contiguous, non-contiguous and broadcast inputs; core ops also to
// second order.
#include "autograd/gradcheck.h"

#include <cmath>
#include <limits>
#include <string>

#include "autograd/autograd.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::gradcheck;
using testing::gradgradcheck;
using testing::VariableFn;

// A float64 leaf with distinct values in [lo, hi), not monotonic along any
// dim, away from 0 unless lo < 0 allows it.
Variable leaf(std::vector<int64_t> shape, double lo = -1.3, double hi = 1.7) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) {
    v[i] = lo + (hi - lo) * static_cast<double>((7 * i + 3) % (n * 7 + 1) % (n + 1)) / (n + 1) +
           0.01 * static_cast<double>(i) / n;
  }
  return Variable(from_vector(v, shape), true);
}

// A leaf whose data is transposed (non-contiguous).
Variable transposed_leaf(int64_t rows, int64_t cols) {
  Variable base = leaf({cols, rows});
  return Variable(base.data().t(), true);
}

struct Case {
  std::string name;
  VariableFn fn;
  variable_list inputs;
  bool second_order = false;
};

Variable in0(const variable_list& x) { return x[0]; }

std::vector<Case> cases() {
  const auto positive = [](std::vector<int64_t> s) { return leaf(std::move(s), 0.4, 2.1); };
  return {
      {"add_broadcast", [](const variable_list& x) { return x[0] + x[1] * 2.0; },
       {leaf({2, 3}), leaf({3})}, true},
      {"sub_alpha", [](const variable_list& x) { return x[0].sub(x[1], 0.5); },
       {transposed_leaf(3, 2), leaf({1, 2})}, true},
      {"mul", [](const variable_list& x) { return x[0] * x[1]; }, {leaf({2, 3}), leaf({2, 1})}, true},
      {"div", [](const variable_list& x) { return x[0] / x[1]; },
       {leaf({2, 3}), positive({3})}, true},
      {"scalar_forms",
       [](const variable_list& x) { return (2.0 - x[0]) * 3.0 / 2.0 + 1.0 / (x[0] + 3.0); },
       {leaf({4})}, true},
      {"pow_tensor", [](const variable_list& x) { return x[0].pow(x[1]); },
       {positive({2, 2}), leaf({2, 2})}, true},
      {"pow_scalar", [](const variable_list& x) { return x[0].pow(3.0); }, {leaf({5})}, true},
      {"maximum", [](const variable_list& x) { return x[0].maximum(x[1]); },
       {leaf({2, 3}), leaf({3}, -0.5, 0.5)}},
      {"minimum", [](const variable_list& x) { return x[0].minimum(x[1]); },
       {leaf({2, 3}), leaf({3}, -0.5, 0.5)}},
      {"neg_abs", [](const variable_list& x) { return (-x[0]).abs(); }, {leaf({6})}},
      {"exp", [](const variable_list& x) { return x[0].exp(); }, {transposed_leaf(2, 3)}, true},
      {"log", [](const variable_list& x) { return x[0].log(); }, {positive({4})}, true},
      {"sqrt", [](const variable_list& x) { return x[0].sqrt(); }, {positive({4})}, true},
      {"sin_cos", [](const variable_list& x) { return x[0].sin() * x[0].cos(); }, {leaf({5})}, true},
      {"relu", [](const variable_list& x) { return x[0].relu(); }, {leaf({7})}},
      {"sigmoid", [](const variable_list& x) { return x[0].sigmoid(); }, {leaf({5})}, true},
      {"tanh", [](const variable_list& x) { return x[0].tanh(); }, {leaf({5})}, true},
      {"gelu", [](const variable_list& x) { return x[0].gelu(); }, {leaf({6})}, true},
      {"gelu_tanh", [](const variable_list& x) { return x[0].gelu("tanh"); }, {leaf({6})}, true},
      {"clamp", [](const variable_list& x) { return x[0].clamp(-0.5, 0.8); }, {leaf({7})}},
      {"where", [](const variable_list& x) { return x[0].where(x[0].data().gt(0), x[1]); },
       {leaf({2, 3}), leaf({3})}},
      {"masked_fill", [](const variable_list& x) { return x[0].masked_fill(x[0].data().lt(0), 2); },
       {leaf({2, 3})}},
      {"view_reshape", [](const variable_list& x) { return x[0].view({3, 2}).reshape({6}) * 2.0; },
       {leaf({2, 3})}, true},
      {"permute_transpose", [](const variable_list& x) {
         return x[0].permute({2, 0, 1}).transpose(0, 2).exp();
       }, {leaf({2, 3, 2})}, true},
      {"slice_step", [](const variable_list& x) { return x[0].slice(1, 1, std::nullopt, 2).exp(); },
       {leaf({2, 5})}, true},
      {"narrow_select", [](const variable_list& x) { return x[0].narrow(0, 1, 2).select(1, -1); },
       {leaf({4, 3})}, true},
      {"expand", [](const variable_list& x) { return x[0].expand({3, 2, 4}).sin(); },
       {leaf({2, 1})}, true},
      {"squeeze_unsqueeze_flatten", [](const variable_list& x) {
         return x[0].unsqueeze(0).squeeze(0).unsqueeze(2).flatten() * x[0].flatten();
       }, {leaf({2, 3})}, true},
      {"split_chunk_unbind", [](const variable_list& x) {
         const auto parts = x[0].split(2, 1);
         const auto rows = x[0].unbind(0);
         return parts[0].sum() * parts[1].exp().sum() + rows[1].mul(rows[0]).sum() +
                x[0].chunk(2, 0)[1].pow(2.0).sum();
       }, {leaf({2, 4})}, true},
      {"sum_dims", [](const variable_list& x) { return x[0].sum({0, 2}, true).exp(); },
       {leaf({2, 3, 2})}, true},
      {"sum_all", [](const variable_list& x) { return x[0].pow(2.0).sum(); }, {transposed_leaf(2, 3)}, true},
      {"mean", [](const variable_list& x) { return x[0].mean({1}).exp(); }, {leaf({3, 4})}, true},
      {"prod", [](const variable_list& x) { return x[0].prod(); }, {leaf({5})}, true},
      {"amax_amin", [](const variable_list& x) { return x[0].amax({1}) + x[0].amin({0}).sum(); },
       {leaf({3, 4})}},
      {"max_min_all", [](const variable_list& x) { return x[0].max() * x[0].min(); }, {leaf({6})}},
      {"max_dim", [](const variable_list& x) { return std::get<0>(x[0].max(1, true)).exp(); },
       {leaf({3, 4})}},
      {"min_dim", [](const variable_list& x) { return std::get<0>(x[0].min(0)); }, {leaf({3, 4})}},
      {"var_std", [](const variable_list& x) { return x[0].var({1}) + x[0].std({}, false); },
       {leaf({3, 4})}, true},
      {"norm", [](const variable_list& x) { return x[0].norm() + x[0].norm(1) + x[0].norm(3); },
       {leaf({5})}},
      {"logsumexp", [](const variable_list& x) { return x[0].logsumexp({1}); }, {leaf({3, 4})}, true},
      {"softmax", [](const variable_list& x) { return x[0].softmax(1) * x[0]; }, {leaf({3, 4})}, true},
      {"log_softmax", [](const variable_list& x) { return x[0].log_softmax(0); },
       {transposed_leaf(3, 4)}, true},
      {"cumsum", [](const variable_list& x) { return x[0].cumsum(1).pow(2.0); }, {leaf({2, 4})}, true},
      {"sort", [](const variable_list& x) { return std::get<0>(x[0].sort(1, true)) * x[1]; },
       {leaf({2, 4}), leaf({4})}},
      {"topk", [](const variable_list& x) { return std::get<0>(x[0].topk(2, 0)); }, {leaf({4, 3})}},
      {"mm", [](const variable_list& x) { return mm(x[0], x[1]); },
       {leaf({2, 3}), transposed_leaf(3, 4)}, true},
      {"bmm", [](const variable_list& x) { return bmm(x[0], x[1]); },
       {leaf({2, 2, 3}), leaf({2, 3, 2})}, true},
      {"mv", [](const variable_list& x) { return mv(x[0], x[1]); }, {leaf({3, 2}), leaf({2})}, true},
      {"addmm", [](const variable_list& x) { return addmm(x[0], x[1], x[2], 0.5, 2); },
       {leaf({2}), leaf({2, 3}), leaf({3, 2})}, true},
      {"matmul_batched_broadcast", [](const variable_list& x) { return matmul(x[0], x[1]); },
       {leaf({2, 1, 2, 3}), leaf({3, 3, 2})}, true},
      {"matmul_folds_nd_by_matrix", [](const variable_list& x) {
         return matmul(x[0], x[1]).sum({3}) + matmul(x[0], x[2]);
       }, {leaf({2, 1, 3, 4}), leaf({4, 2}), leaf({4})}, true},
      {"matmul_vectors", [](const variable_list& x) {
         return matmul(x[0], x[1]) + matmul(x[1], x[2]).sum() + matmul(x[2], x[0]).sum();
       }, {leaf({3}), leaf({3}), leaf({3, 3})}, true},
      {"index_select_repeats", [](const variable_list& x) {
         return x[0].index_select(1, tensor({2, 0, 2}));
       }, {leaf({2, 3})}, true},
      {"gather", [](const variable_list& x) { return x[0].gather(1, tensor({{0, 0}, {2, 1}})); },
       {leaf({2, 3})}, true},
      {"scatter", [](const variable_list& x) {
         return x[0].scatter(1, tensor({{1, 0}, {2, 1}}), x[1]);
       }, {leaf({2, 3}), leaf({2, 2})}, true},
      {"scatter_add", [](const variable_list& x) {
         return x[0].scatter_add(0, tensor({{1, 1, 0}}), x[1]);
       }, {leaf({2, 3}), leaf({1, 3})}, true},
      {"masked_select", [](const variable_list& x) {
         return x[0].masked_select(tensor({true, false, true}));
       }, {leaf({2, 3})}},
      {"cat_stack", [](const variable_list& x) {
         return cat({x[0], x[1].t()}, 0).exp().sum({0}) + stack({x[0], x[0] * 2.0}, 1).sum({1}).sum({0});
       }, {leaf({2, 2}), leaf({2, 2})}, true},
      {"erf", [](const variable_list& x) { return x[0].erf(); }, {leaf({5})}, true},
      {"log1p", [](const variable_list& x) { return x[0].log1p(); }, {positive({4})}, true},
      {"rsqrt", [](const variable_list& x) { return x[0].rsqrt(); }, {positive({4})}, true},
      {"sign_has_zero_gradient", [](const variable_list& x) { return x[0].sign() * x[0]; },
       {leaf({5})}, true},
      {"clamp_min_max", [](const variable_list& x) {
         return x[0].clamp_min(-0.5) + x[0].clamp_max(0.8);
       }, {leaf({7})}},
      {"prod_dim", [](const variable_list& x) { return x[0].prod(1); }, {leaf({2, 3})}, true},
      {"prod_dim_keepdim_with_zeros", [](const variable_list& x) { return x[0].prod(0, true); },
       {Variable(tensor({{0.0, 2.0, 0.0}, {3.0, 0.5, 0.0}, {1.5, 0.0, -1.0}}, kFloat64), true)},
       true},
      {"norm_dims", [](const variable_list& x) { return x[0].norm(2, {1}); }, {leaf({3, 4})}, true},
      {"norm_p3_keepdim", [](const variable_list& x) { return x[0].norm(3, {0}, true); },
       {positive({3, 2})}, true},
      {"norm_p1", [](const variable_list& x) { return x[0].norm(1, {1}); }, {leaf({2, 3})}},
      {"norm_inf", [](const variable_list& x) { return x[0].norm(std::numeric_limits<double>::infinity(), {0}); }, {leaf({3, 2})}},
      {"cumprod", [](const variable_list& x) { return x[0].cumprod(1); }, {leaf({2, 4})}, true},
      {"cumprod_with_zeros", [](const variable_list& x) { return x[0].cumprod(0); },
       {Variable(tensor({{0.5, 2.0}, {0.0, -1.5}, {3.0, 0.0}, {1.25, 0.75}}, kFloat64), true)},
       true},
      {"kthvalue", [](const variable_list& x) { return std::get<0>(x[0].kthvalue(2, 1)); },
       {leaf({3, 4})}},
      {"take_repeats", [](const variable_list& x) { return x[0].take(tensor({{5, 0}, {-1, 2}})); },
       {leaf({2, 3})}, true},
      {"dot_outer", [](const variable_list& x) { return x[0].outer(x[1]) * x[0].dot(x[1]); },
       {leaf({3}), leaf({3})}, true},
      {"baddbmm", [](const variable_list& x) { return baddbmm(x[0], x[1], x[2], 0.5, 2); },
       {leaf({2, 1}), leaf({2, 2, 3}), leaf({2, 3, 1})}, true},
      {"split_with_sizes", [](const variable_list& x) {
         const std::vector<Variable> parts = x[0].split_with_sizes({1, 3}, 1);
         return parts[0] * parts[1].sum({1}, true);
       }, {leaf({2, 4})}, true},
      {"remainder_fmod", [](const variable_list& x) {
         return x[0].remainder(x[1]) + x[0].fmod(x[1]) * 2.0;
       }, {Variable(tensor({{2.3, -1.7, 0.9}, {-3.1, 4.4, -0.35}}, kFloat64), true),
           Variable(tensor({0.7, -1.3, 1.9}, kFloat64), true)}, true},
      {"remainder_fmod_number", [](const variable_list& x) {
         return x[0].remainder(0.7) * x[0].fmod(-0.9);
       }, {Variable(tensor({2.3, -1.7, 0.95, -0.35}, kFloat64), true)}, true},
      {"atan2", [](const variable_list& x) { return x[0].atan2(x[1]); },
       {leaf({2, 3}), transposed_leaf(1, 3)}, true},
      {"rounding_zero_gradient", [](const variable_list& x) {
         return (x[0].floor() + x[0].ceil() + x[0].round() + x[0].trunc() + x[0].round(1)) * x[0] +
                x[0].frac() * x[0];
       }, {Variable(tensor({0.33, -1.27, 2.61, -0.48}, kFloat64), true)}, true},
      {"nan_to_num_of_finite", [](const variable_list& x) { return x[0].nan_to_num() * x[0]; },
       {leaf({5})}, true},
      {"norm_fractional_p_with_zeros", [](const variable_list& x) {
         return x[0].norm(1.5, {1}) + x[0].norm(0.5, {1}) + x[0].norm(0, {1});
       }, {Variable(tensor({{0.5, -1.2, 2.0}, {1.1, 0.7, -0.3}}, kFloat64), true)}, true},
      {"chunk_with_an_unused_piece", [](const variable_list& x) {
         const std::vector<Variable> parts = x[0].chunk(3, 1);
         return parts[0] * parts[2].exp();
       }, {leaf({2, 6})}, true},
      {"unbind", [](const variable_list& x) {
         const std::vector<Variable> rows = x[0].unbind(0);
         return rows[0] * rows[2] + rows[1].sin();
       }, {transposed_leaf(3, 2)}, true},
      {"split_uneven", [](const variable_list& x) {
         const std::vector<Variable> parts = x[0].split(2, 0);
         return parts[2].sum() * parts[0].sum({0});
       }, {leaf({5, 2})}, true},
      {"as_strided_overlapping", [](const variable_list& x) {
         return x[0].as_strided({3, 2}, {1, 1}).pow(2.0);  // windows of 2 overlapping
       }, {leaf({4})}, true},
  };
}

TEST(GradcheckTest, EveryOpMatchesFiniteDifferences) {
  for (const Case& c : cases()) {
    EXPECT_TRUE(gradcheck(c.fn, c.inputs)) << c.name;
  }
}

TEST(GradcheckTest, CoreOpsMatchFiniteDifferencesToSecondOrder) {
  for (const Case& c : cases()) {
    if (c.second_order) {
      EXPECT_TRUE(gradgradcheck(c.fn, c.inputs, 1e-6, 1e-4, 1e-3)) << c.name;
    }
  }
}

TEST(GradcheckTest, AddmmWithZeroBetaIgnoresNonFiniteSelf) {
  Variable self(tensor({std::nan(""), std::numeric_limits<double>::infinity()}, kFloat64), true);
  Variable m1(tensor({{1.0, 2.0}}, kFloat64), true), m2(tensor({{3.0, 4.0}, {5.0, 6.0}}, kFloat64));
  Variable out = addmm(self, m1, m2, /*beta=*/0);
  EXPECT_TRUE(testing::all_close(out.data(), tensor({{13.0, 16.0}}, kFloat64)));
  out.sum().backward();
  EXPECT_TRUE(testing::all_close(self.grad().data(), zeros({2}, kFloat64)));
}

TEST(GradcheckTest, NormOfZeroVectorHasZeroGradient) {
  Variable x(zeros({3}, kFloat64), true);
  x.norm().backward();
  EXPECT_TRUE(testing::all_close(x.grad().data(), zeros({3}, kFloat64)));
}

TEST(GradcheckTest, InPlaceUnaryOpsMatchTheirOutOfPlaceGradients) {
  struct Case {
    const char* name;
    Variable& (Variable::*inplace)();
    Variable (Variable::*out_of_place)() const;
  };
  const std::vector<Case> cases = {
      {"neg", &Variable::neg_, &Variable::neg},         {"abs", &Variable::abs_, &Variable::abs},
      {"exp", &Variable::exp_, &Variable::exp},         {"log", &Variable::log_, &Variable::log},
      {"log1p", &Variable::log1p_, &Variable::log1p},   {"sqrt", &Variable::sqrt_, &Variable::sqrt},
      {"rsqrt", &Variable::rsqrt_, &Variable::rsqrt},   {"sin", &Variable::sin_, &Variable::sin},
      {"cos", &Variable::cos_, &Variable::cos},         {"sigmoid", &Variable::sigmoid_, &Variable::sigmoid},
      {"tanh", &Variable::tanh_, &Variable::tanh},      {"erf", &Variable::erf_, &Variable::erf},
      {"sign", &Variable::sign_, &Variable::sign},      {"floor", &Variable::floor_, &Variable::floor},
      {"ceil", &Variable::ceil_, &Variable::ceil},      {"trunc", &Variable::trunc_, &Variable::trunc},
      {"frac", &Variable::frac_, &Variable::frac},      {"relu", &Variable::relu_, &Variable::relu}};
  for (const Case& c : cases) {
    Variable a(tensor({0.5, 1.5, 2.5}, kFloat64), true), b(tensor({0.5, 1.5, 2.5}, kFloat64), true);
    Variable ya = a * 1.0;
    (ya.*c.inplace)();
    const Variable b1 = b * 1.0;
    const Variable yb = (b1.*c.out_of_place)();
    EXPECT_TRUE(testing::all_close(ya.data(), yb.data())) << c.name << "_";
    (ya * ya).sum().backward();
    (yb * yb).sum().backward();
    EXPECT_TRUE(testing::all_close(a.grad().data(), b.grad().data())) << c.name << "_";
  }
}

TEST(GradcheckTest, MatmulOfAnNdInputByAMatrixIsOneMm) {
  const Variable x = leaf({2, 3, 4}), w = leaf({4, 5});
  const Variable y = matmul(x, w);
  EXPECT_EQ(y.sizes(), IntArrayRef({2, 3, 5}));
  EXPECT_EQ(y.grad_fn()->next_edges()[0].fn->name(), "MmBackward0");
  const Variable expected = bmm(x, w.unsqueeze(0).expand({2, 4, 5}));
  EXPECT_TRUE(testing::all_close(y.data(), expected.data(), 1e-12, 1e-12));
}

TEST(GradcheckTest, DetectsAWrongFormula) {
  // A deliberately wrong derivative: the output uses x^3 but only x^2's
  // graph is recorded, so gradcheck must fail.
  const VariableFn wrong = [](const variable_list& x) {
    return x[0].pow(2.0) + Variable(x[0].data().pow(3));
  };
  EXPECT_FALSE(gradcheck(wrong, {leaf({3})}));
}

TEST(GradcheckTest, RejectsFloat32Inputs) {
  EXPECT_FALSE(gradcheck(in0, {Variable(ones({2}), true)}));
}

// prod's gradient where the input has zeros is the product of the other
// elements; it must itself differentiate correctly (one zero: the zero's
// neighbours see the product of the rest; two zeros: only the pair couples).
TEST(GradcheckTest, ProdWithZerosMatchesFiniteDifferencesToSecondOrder) {
  const auto prod = [](const variable_list& x) { return x[0].prod(); };
  const auto scaled_prod = [](const variable_list& x) { return x[0].prod() * x[0].sum(); };
  const std::vector<std::pair<std::string, Variable>> inputs = {
      {"one_zero", Variable(tensor({1.5, 0.0, -0.7, 1.2, 0.9}, kFloat64), true)},
      {"one_zero_first", Variable(tensor({0.0, 2.0, -0.5}, kFloat64), true)},
      {"two_zeros", Variable(tensor({1.5, 0.0, -0.7, 0.0, 1.1}, kFloat64), true)},
      {"three_zeros", Variable(tensor({0.0, 1.3, 0.0, 0.0}, kFloat64), true)},
      {"one_zero_2d_transposed",
       Variable(tensor({{0.8, 1.2}, {-1.1, 0.0}, {0.6, 1.4}}, kFloat64).t(), true)},
      {"two_zeros_2d", Variable(tensor({{0.0, 1.2, 0.7}, {-1.1, 0.0, 1.3}}, kFloat64), true)},
      {"zero_scalar", Variable(tensor(0.0, kFloat64), true)},
      {"single_zero", Variable(tensor({0.0}, kFloat64), true)},
  };
  for (const auto& [name, x] : inputs) {
    EXPECT_TRUE(gradcheck(prod, {x})) << name;
    EXPECT_TRUE(gradgradcheck(prod, {x}, 1e-6, 1e-4, 1e-3)) << name;
    EXPECT_TRUE(gradgradcheck(scaled_prod, {x}, 1e-6, 1e-4, 1e-3)) << name;
  }
}

TEST(GradcheckTest, ProdSecondDerivativeAtZerosIsTheProductOfTheRest) {
  // d2 prod / dx_i dx_j = product of the elements other than i and j.
  Variable x(tensor({0.0, 2.0, 3.0}, kFloat64), true);
  Variable g = autograd::grad({x.prod()}, {x}, {}, true, true)[0];
  EXPECT_TRUE(testing::all_close(g.data(), tensor({6.0, 0.0, 0.0}, kFloat64), 0, 1e-12));
  EXPECT_TRUE(testing::all_close(autograd::grad({g.sum()}, {x})[0].data(),
                                 tensor({5.0, 3.0, 2.0}, kFloat64), 0, 1e-12));
  Variable y(tensor({0.0, 2.0, 0.0, 5.0}, kFloat64), true);
  Variable gy = autograd::grad({y.prod()}, {y}, {}, true, true)[0];
  EXPECT_TRUE(testing::all_close(gy.data(), zeros({4}, kFloat64), 0, 0));
  // Only the two zeros are coupled: row sums of the Hessian are 10, 0, 10, 0.
  EXPECT_TRUE(testing::all_close(autograd::grad({gy.sum()}, {y})[0].data(),
                                 tensor({10.0, 0.0, 10.0, 0.0}, kFloat64), 0, 1e-12));
}

// Braced dims select dims (never `unbiased`), as x.var(1) does in PyTorch.
TEST(GradcheckTest, VarStdBracedDimsReduceThoseDims) {
  const Variable x = leaf({3, 4});
  using Dims = std::vector<int64_t>;
  EXPECT_TRUE(testing::all_close(x.var({1}).data(), x.data().var(Dims{1}), 0, 0));
  EXPECT_EQ(x.var({1}).sizes(), IntArrayRef(Dims{3}));
  EXPECT_EQ(x.std({0}).sizes(), IntArrayRef(Dims{4}));
  EXPECT_EQ(x.var({1}, false, true).sizes(), IntArrayRef(Dims{3, 1}));
  EXPECT_EQ(x.std({-1, 0}, true, true).sizes(), IntArrayRef(Dims{1, 1}));
  EXPECT_EQ(x.var().dim(), 0);
  EXPECT_TRUE(testing::all_close(x.std({}, false).data(), x.data().std(false), 0, 0));
  EXPECT_TRUE(testing::all_close(x.std({1}, false).data(), x.data().std(Dims{1}, false), 0, 0));
}

TEST(GradcheckTest, VarStdDimsKeepdimAndBiasMatchFiniteDifferencesToSecondOrder) {
  const std::vector<Case> var_cases = {
      {"var_dim", [](const variable_list& x) { return x[0].var({1}); }, {leaf({3, 4})}},
      {"var_neg_dim_keepdim", [](const variable_list& x) { return x[0].var({-1}, true, true); },
       {leaf({2, 3, 4})}},
      {"var_dims_biased", [](const variable_list& x) { return x[0].var({0, 2}, false); },
       {leaf({2, 3, 2})}},
      {"var_all_biased_keepdim", [](const variable_list& x) { return x[0].var({}, false, true); },
       {transposed_leaf(3, 2)}},
      {"std_dim", [](const variable_list& x) { return x[0].std({0}); }, {leaf({3, 4})}},
      {"std_dims_biased_keepdim", [](const variable_list& x) {
         return x[0].std({2, 0}, false, true);
       }, {leaf({2, 3, 2})}},
      {"std_all", [](const variable_list& x) { return x[0].std() * x[0].sum(); },
       {transposed_leaf(2, 3)}},
  };
  for (const Case& c : var_cases) {
    EXPECT_TRUE(gradcheck(c.fn, c.inputs)) << c.name;
    EXPECT_TRUE(gradgradcheck(c.fn, c.inputs, 1e-6, 1e-4, 1e-3)) << c.name;
  }
}

TEST(GradcheckTest, StdOfConstantSliceHasZeroGradient) {
  // sqrt's derivative is infinite at 0; PyTorch gives such slices a zero
  // gradient rather than nan.
  Variable x(tensor({{1.5, 1.5, 1.5}, {0.5, 1.0, 2.0}}, kFloat64), true);
  x.std({1}).sum().backward();
  const Tensor grad = x.grad().data();
  EXPECT_TRUE(testing::all_close(grad.select(0, 0), zeros({3}, kFloat64), 0, 0));
  EXPECT_TRUE(grad.select(0, 1).eq(grad.select(0, 1)).all().item<bool>());  // no nan
}

TEST(GradcheckTest, MaskedSelectMatchesFiniteDifferencesToSecondOrder) {
  const std::vector<Case> select_cases = {
      {"masked_select", [](const variable_list& x) {
         return x[0].masked_select(tensor({true, false, true})).pow(2.0);
       }, {leaf({2, 3})}},
      {"masked_select_broadcast_input", [](const variable_list& x) {
         return x[0].masked_select(tensor({{true, false}, {true, true}, {false, true}})) * x[1];
       }, {leaf({2}), leaf({4})}},
      {"masked_select_transposed", [](const variable_list& x) {
         return x[0].masked_select(x[0].data().gt(0)).exp();
       }, {transposed_leaf(3, 4)}},
  };
  for (const Case& c : select_cases) {
    EXPECT_TRUE(gradcheck(c.fn, c.inputs)) << c.name;
    EXPECT_TRUE(gradgradcheck(c.fn, c.inputs, 1e-6, 1e-4, 1e-3)) << c.name;
  }
}

TEST(GradcheckTest, MaskedSelectOfNothingHasZeroGradient) {
  Variable x = leaf({2, 3});
  Variable picked = x.masked_select(zeros({2, 3}, kBool));
  EXPECT_EQ(picked.numel(), 0);
  (picked.sum() + x.sum() * 0.0).backward();
  EXPECT_TRUE(testing::all_close(x.grad().data(), zeros({2, 3}, kFloat64), 0, 0));
}

}  // namespace
}  // namespace torchlet
