// Finite-difference checks (float64) of einsum, tensordot, kron, cross,
// vecdot, multi_dot, the norms and cdist on Variables, and their forward
// values against the Tensor ops.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::all_close;
using testing::gradcheck;
using testing::gradgradcheck;
using testing::VariableFn;

constexpr double kInf = std::numeric_limits<double>::infinity();

// A float64 leaf with irregular, distinct values.
Variable leaf(std::vector<int64_t> shape, double phase = 0.3) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return Variable(arange(n, kFloat64).mul(1.7).add(phase).sin().view(shape), true);
}

// A float64 leaf whose matrices have full rank and distinct singular values
// (leaf()'s rows, sines of one progression, span only two dimensions).
Variable full_rank_leaf(std::vector<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return Variable(arange(n, kFloat64).pow(2).mul(0.37).sin().view(shape), true);
}

// ---- einsum ------------------------------------------------------------------------------

::testing::AssertionResult einsum_gradcheck(const std::string& equation,
                                            const variable_list& inputs) {
  std::vector<Tensor> data;
  for (const Variable& v : inputs) data.push_back(v.data());
  const Tensor expected = einsum(equation, data);
  const Variable forward = einsum(equation, inputs);
  if (!all_close(forward.data(), expected, 1e-12, 1e-12)) {
    return ::testing::AssertionFailure() << equation << ": forward differs from the Tensor op";
  }
  return gradcheck([equation](const variable_list& x) { return einsum(equation, x); }, inputs);
}

TEST(EinsumGradTest, Matmul) { EXPECT_TRUE(einsum_gradcheck("ij,jk->ik", {leaf({2, 3}), leaf({3, 4}, 1.1)})); }

TEST(EinsumGradTest, BatchedMatmul) {
  EXPECT_TRUE(einsum_gradcheck("bij,bjk->bik", {leaf({2, 3, 4}), leaf({2, 4, 2}, 0.7)}));
}

TEST(EinsumGradTest, TraceAndDiagonal) {
  EXPECT_TRUE(einsum_gradcheck("ii", {leaf({3, 3})}));
  EXPECT_TRUE(einsum_gradcheck("bii->bi", {leaf({2, 3, 3})}));
}

TEST(EinsumGradTest, DiagonalOfANonContiguousView) {
  const Variable x = leaf({4, 4});
  EXPECT_TRUE(gradcheck(
      [](const variable_list& v) { return einsum("ii->i", {v[0].t().narrow(0, 1, 3).narrow(1, 0, 3)}); },
      {x}));
}

TEST(EinsumGradTest, Bilinear) {
  EXPECT_TRUE(einsum_gradcheck("bn,anm,bm->ba",
                               {leaf({2, 3}), leaf({4, 3, 2}, 0.9), leaf({2, 2}, 1.4)}));
}

TEST(EinsumGradTest, EllipsisAndBroadcastSizeOneDims) {
  EXPECT_TRUE(einsum_gradcheck("...ij,...jk->...ik", {leaf({2, 1, 2, 3}), leaf({3, 3, 2}, 0.5)}));
  EXPECT_TRUE(einsum_gradcheck("ij,ij->ij", {leaf({2, 1}), leaf({1, 3}, 0.5)}));
}

TEST(EinsumGradTest, SumsAndImplicitOutput) {
  EXPECT_TRUE(einsum_gradcheck("ij,jk->i", {leaf({2, 3}), leaf({3, 4}, 1.1)}));
  EXPECT_TRUE(einsum_gradcheck("ba,ac", {leaf({2, 3}), leaf({3, 4}, 1.1)}));
  EXPECT_TRUE(einsum_gradcheck("ij->", {leaf({2, 3})}));
}

TEST(EinsumGradTest, ThreeAndFourOperands) {
  EXPECT_TRUE(einsum_gradcheck("ij,jk,kl->il", {leaf({2, 3}), leaf({3, 2}, 0.4), leaf({2, 2}, 0.8)}));
  EXPECT_TRUE(einsum_gradcheck("i,i,i->", {leaf({3}), leaf({3}, 0.4), leaf({3}, 0.8)}));
}

TEST(EinsumGradTest, SecondDerivatives) {
  EXPECT_TRUE(gradgradcheck([](const variable_list& x) { return einsum("bij,bjk->bik", x); },
                            {leaf({2, 2, 3}), leaf({2, 3, 2}, 0.7)}));
}

// ---- tensordot, kron, cross, vecdot, multi_dot ----------------------------------------------

TEST(ProductsGradTest, Tensordot) {
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return tensordot(x[0], x[1], 2); },
                        {leaf({2, 3, 2}), leaf({3, 2, 2}, 0.6)}));
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return tensordot(x[0], x[1], {1, 0}, {0, 2}); },
                        {leaf({2, 3, 2}), leaf({3, 2, 2}, 0.6)}));
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return tensordot(x[0], x[1], {0}, {0}); },
                        {leaf({1, 3}), leaf({2, 3}, 0.6)}));
}

TEST(ProductsGradTest, Kron) {
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return x[0].kron(x[1]); },
                        {leaf({2, 3}), leaf({2}, 0.6)}));
}

TEST(ProductsGradTest, CrossAlongEachDimAndBroadcast) {
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return x[0].cross(x[1]); },
                        {leaf({4, 3}), leaf({4, 3}, 0.6)}));
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return linalg::cross(x[0], x[1], 0); },
                        {leaf({3, 2}), leaf({3, 2}, 0.6)}));
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return linalg::cross(x[0], x[1]); },
                        {leaf({4, 3}), leaf({1, 3}, 0.6)}));
  EXPECT_TRUE(gradgradcheck([](const variable_list& x) { return linalg::cross(x[0], x[1]); },
                            {leaf({2, 3}), leaf({2, 3}, 0.6)}));
}

TEST(ProductsGradTest, CrossMatchesTheTensorOp) {
  const Variable a = leaf({4, 3}), b = leaf({4, 3}, 0.6);
  EXPECT_TRUE(all_close(a.cross(b).data(), a.data().cross(b.data()), 0, 0));
}

TEST(ProductsGradTest, Vecdot) {
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return linalg::vecdot(x[0], x[1], 0); },
                        {leaf({3, 2}), leaf({3, 1}, 0.6)}));
}

TEST(ProductsGradTest, MultiDot) {
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return linalg::multi_dot(x); },
                        {leaf({3}), leaf({3, 4}, 0.6), leaf({4, 2}, 0.9), leaf({2, 3}, 1.2)}));
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return linalg::multi_dot(x); },
                        {leaf({2, 3}), leaf({3, 4}, 0.6), leaf({4, 2}, 0.9)}));
}

// ---- Norms -----------------------------------------------------------------------------------

TEST(NormGradTest, VectorNormForEveryOrder) {
  for (double ord : {2.0, 1.0, 3.5, 1.5, 0.5, -1.0, kInf, -kInf}) {
    EXPECT_TRUE(gradcheck([ord](const variable_list& x) { return linalg::vector_norm(x[0], ord); },
                          {leaf({2, 3})}))
        << ord;
    EXPECT_TRUE(gradcheck(
        [ord](const variable_list& x) { return linalg::vector_norm(x[0], ord, {-1}, true); },
        {leaf({2, 3})}))
        << ord;
  }
}

TEST(NormGradTest, VectorNormOfZeroHasAZeroSubgradient) {
  const Variable x(zeros({3}, kFloat64), true);
  linalg::vector_norm(x, 2).backward();
  EXPECT_TRUE(all_close(x.grad().data(), zeros({3}, kFloat64)));
  const Variable y(tensor({0.0, 2.0, -1.0}, kFloat64), true);
  linalg::vector_norm(y, 1).backward();
  EXPECT_TRUE(all_close(y.grad().data(), tensor({0.0, 1.0, -1.0}, kFloat64)));
}

TEST(NormGradTest, InfNormSplitsTiesEvenly) {
  const Variable x(tensor({3.0, -3.0, 1.0}, kFloat64), true);
  linalg::vector_norm(x, kInf).backward();
  EXPECT_TRUE(all_close(x.grad().data(), tensor({0.5, -0.5, 0.0}, kFloat64)));
}

TEST(NormGradTest, VectorNormInADtype) {
  const Variable x(tensor({3.0f, 4.0f}), true);
  const Variable n = linalg::vector_norm(x, 2, {}, false, kFloat64);
  EXPECT_EQ(n.dtype(), kFloat64);
  n.backward();
  EXPECT_EQ(x.grad().dtype(), kFloat32);
  EXPECT_TRUE(all_close(x.grad().data(), tensor({0.6f, 0.8f})));
}

TEST(NormGradTest, MatrixNorms) {
  for (const std::string ord : {"fro", "nuc"}) {
    EXPECT_TRUE(gradcheck([ord](const variable_list& x) { return linalg::matrix_norm(x[0], ord); },
                          {full_rank_leaf({2, 3, 4})}))
        << ord;
  }
  for (double ord : {1.0, -1.0, kInf, -kInf, 2.0, -2.0}) {
    EXPECT_TRUE(gradcheck(
        [ord](const variable_list& x) { return linalg::matrix_norm(x[0], ord, {2, 0}, true); },
        {full_rank_leaf({3, 2, 4})}))
        << ord;
  }
}

TEST(NormGradTest, LinalgNorm) {
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return linalg::norm(x[0]); }, {leaf({2, 3, 2})}));
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return linalg::norm(x[0], 1.0); }, {leaf({3, 3})}));
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return linalg::norm(x[0], "fro"); }, {leaf({3, 3})}));
}

// ---- cdist ----------------------------------------------------------------------------------

TEST(CdistGradTest, EveryP) {
  for (double p : {1.0, 2.0, 3.0, 1.5, 0.5, kInf}) {
    EXPECT_TRUE(gradcheck([p](const variable_list& x) { return cdist(x[0], x[1], p); },
                          {leaf({2, 3, 4}), leaf({2, 2, 4}, 0.8)}))
        << p;
  }
}

TEST(CdistGradTest, ZeroPHasZeroGradient) {
  const Variable x1 = leaf({3, 2}), x2 = leaf({2, 2}, 0.8);
  cdist(x1, x2, 0).sum().backward();
  EXPECT_TRUE(all_close(x1.grad().data(), zeros({3, 2}, kFloat64)));
  EXPECT_TRUE(all_close(x2.grad().data(), zeros({2, 2}, kFloat64)));
}

TEST(CdistGradTest, MatrixProductPath) {
  EXPECT_TRUE(gradcheck(
      [](const variable_list& x) { return cdist(x[0], x[1], 2, "use_mm_for_euclid_dist"); },
      {leaf({3, 4}), leaf({2, 4}, 0.8)}));
  // More than 25 rows takes it by default.
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return cdist(x[0], x[1]); },
                        {leaf({27, 2}), leaf({2, 2}, 0.8)}));
}

TEST(CdistGradTest, BroadcastBatchDims) {
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return cdist(x[0], x[1], 1.5); },
                        {leaf({2, 1, 3, 2}), leaf({3, 2, 2}, 0.8)}));
}

TEST(CdistGradTest, CoincidentRowsGetZeroGradient) {
  // A zero distance: p = 2's gradient there is 0, not nan.
  const Variable x1(tensor({{1.0, 2.0}}, kFloat64), true);
  const Variable x2(tensor({{1.0, 2.0}}, kFloat64), true);
  cdist(x1, x2).sum().backward();
  EXPECT_TRUE(all_close(x1.grad().data(), zeros({1, 2}, kFloat64)));
}

}  // namespace
}  // namespace torchlet
