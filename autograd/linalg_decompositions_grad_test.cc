// Finite-difference checks of the decompositions' and solvers' backward
// formulas (float64), on well-conditioned inputs: distinct eigenvalues and
// singular values, and losses invariant to the sign of eigen- and singular
// vectors (as PyTorch's own tests use them).
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "tensor/test_matrices.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::gradcheck;
using testing::gradgradcheck;
using testing::VariableFn;

// A float64 leaf of irregular, distinct values (testing::wavy).
Variable leaf(std::vector<int64_t> shape, double diagonal = 0.0, double phase = 0.3) {
  return Variable(testing::wavy(std::move(shape), diagonal, phase), true);
}

Variable mT(const Variable& x) { return x.transpose(-2, -1); }

// Flattens several outputs into one vector, for gradcheck.
Variable flat(const std::vector<Variable>& parts) {
  std::vector<Variable> flats;
  for (const Variable& p : parts) flats.push_back(p.reshape({-1}));
  return cat(flats, 0);
}

// A symmetric positive-definite matrix made from any square x.
Variable spd(const Variable& x) {
  return x.matmul(mT(x)) + Variable(eye(x.size(-1), kFloat64).mul(3.0));
}

// A symmetric matrix made from any square x.
Variable sym(const Variable& x) { return x + mT(x); }

TEST(LinalgGradTest, Inv) {
  const VariableFn fn = [](const variable_list& x) { return linalg::inv(x[0]); };
  EXPECT_TRUE(gradcheck(fn, {leaf({2, 3, 3}, 3.0)}));
  EXPECT_TRUE(gradgradcheck(fn, {leaf({3, 3}, 3.0)}));
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return x[0].inverse(); },
                        {leaf({3, 3}, 3.0)}));
}

TEST(LinalgGradTest, DetAndSlogdet) {
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return linalg::det(x[0]); },
                        {leaf({2, 3, 3}, 1.0)}));
  EXPECT_TRUE(gradgradcheck([](const variable_list& x) { return x[0].det(); },
                            {leaf({3, 3}, 1.0)}));
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return std::get<1>(linalg::slogdet(x[0])); },
                        {leaf({2, 3, 3}, 1.0)}));
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return logdet(spd(x[0])); },
                        {leaf({2, 3, 3})}));
}

// At a singular matrix the gradient of det is the transposed adjugate,
// taken through the SVD.
TEST(LinalgGradTest, DetOfSingularMatrix) {
  Variable a(tensor({{1.0, 2.0, 3.0}, {0.0, 0.0, 0.0}, {4.0, 5.0, 7.0}}, kFloat64), true);
  ASSERT_EQ(linalg::det(a).item<double>(), 0.0);
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return linalg::det(x[0]); }, {a}));
  Variable batch(stack({a.data(), eye(3, kFloat64)}), true);
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return x[0].det(); }, {batch}));
}

TEST(LinalgGradTest, SolveBroadcastsGradientsBack) {
  const VariableFn fn = [](const variable_list& x) { return linalg::solve(x[0], x[1]); };
  // B [3, 2] is broadcast over A's batch: its gradient sums over it.
  EXPECT_TRUE(gradcheck(fn, {leaf({2, 3, 3}, 3.0), leaf({3, 2})}));
  // A batch of vectors.
  EXPECT_TRUE(gradcheck(fn, {leaf({2, 3, 3}, 3.0), leaf({2, 3})}));
  // One vector.
  EXPECT_TRUE(gradcheck(fn, {leaf({3, 3}, 3.0), leaf({3})}));
  EXPECT_TRUE(gradgradcheck(fn, {leaf({3, 3}, 3.0), leaf({3, 2})}));
}

TEST(LinalgGradTest, CholeskyBothTriangles) {
  for (bool upper : {false, true}) {
    EXPECT_TRUE(gradcheck([upper](const variable_list& x) {
      return linalg::cholesky(spd(x[0]), upper);
    }, {leaf({2, 3, 3})})) << upper;
    EXPECT_TRUE(gradcheck([upper](const variable_list& x) {
      return spd(x[0]).cholesky(upper);
    }, {leaf({3, 3})})) << upper;
  }
  EXPECT_TRUE(gradgradcheck([](const variable_list& x) { return linalg::cholesky(spd(x[0])); },
                            {leaf({3, 3})}));
}

TEST(LinalgGradTest, CholeskySolveAndInverse) {
  for (bool upper : {false, true}) {
    EXPECT_TRUE(gradcheck([upper](const variable_list& x) {
      return cholesky_solve(x[0], linalg::cholesky(spd(x[1]), upper), upper);
    }, {leaf({2, 3, 2}), leaf({3, 3})})) << upper;
    EXPECT_TRUE(gradcheck([upper](const variable_list& x) {
      return cholesky_inverse(linalg::cholesky(spd(x[0]), upper), upper);
    }, {leaf({2, 3, 3})})) << upper;
  }
}

TEST(LinalgGradTest, QrReducedAndCompleteWhereDifferentiable) {
  const auto qr_fn = [](const std::string& mode) -> VariableFn {
    return [mode](const variable_list& x) {
      auto [q, r] = linalg::qr(x[0], mode);
      return flat({q, r});
    };
  };
  EXPECT_TRUE(gradcheck(qr_fn("reduced"), {leaf({5, 3})}));
  EXPECT_TRUE(gradcheck(qr_fn("reduced"), {leaf({2, 3, 3}, 1.0)}));
  EXPECT_TRUE(gradcheck(qr_fn("reduced"), {leaf({3, 5})}));
  EXPECT_TRUE(gradcheck(qr_fn("complete"), {leaf({3, 5})}));
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return std::get<1>(x[0].qr()); },
                        {leaf({4, 3})}));
}

TEST(LinalgGradTest, QrBackwardRefusesModesWithoutTheDerivative) {
  Variable a = leaf({4, 3});
  EXPECT_THROW_MSG(std::get<1>(linalg::qr(a, "r")).sum().backward(),
                   "The derivative of linalg.qr depends on Q, which is not computed when "
                   "mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to "
                   "differentiate through linalg.qr.");
  EXPECT_THROW_MSG(std::get<0>(linalg::qr(a, "complete")).sum().backward(),
                   "The QR decomposition is not differentiable when mode='complete' and nrows > "
                   "ncols.");
}

TEST(LinalgGradTest, EighWithSignInvariantLoss) {
  for (const char* uplo : {"L", "U"}) {
    EXPECT_TRUE(gradcheck([uplo](const variable_list& x) {
      auto [w, v] = linalg::eigh(sym(x[0]), uplo);
      return flat({w, v.mul(v)});
    }, {leaf({2, 4, 4})})) << uplo;
    EXPECT_TRUE(gradcheck([uplo](const variable_list& x) {
      return linalg::eigvalsh(sym(x[0]), uplo);
    }, {leaf({4, 4})})) << uplo;
  }
}

TEST(LinalgGradTest, SvdWithSignInvariantLoss) {
  for (const auto& shape : {std::vector<int64_t>{5, 3}, std::vector<int64_t>{3, 5},
                            std::vector<int64_t>{2, 3, 3}}) {
    for (bool full : {false, true}) {
      EXPECT_TRUE(gradcheck([full](const variable_list& x) {
        auto [u, s, vh] = linalg::svd(x[0], full);
        const int64_t k = s.size(-1);
        // U diag(f(S)) Vh and the squared vectors do not depend on signs.
        const Variable uk = u.narrow(-1, 0, k), vhk = vh.narrow(-2, 0, k);
        return flat({s, uk.mul(s.mul(s).unsqueeze(-2)).matmul(vhk), uk.mul(uk), vhk.mul(vhk)});
      }, {leaf(shape)})) << shape.size() << " " << full;
    }
    EXPECT_TRUE(gradcheck([](const variable_list& x) { return linalg::svdvals(x[0]); },
                          {leaf(shape)}));
  }
  EXPECT_TRUE(gradcheck([](const variable_list& x) {
    auto [u, s, v] = x[0].svd();
    return flat({s, u.mul(u), u.matmul(mT(v))});
  }, {leaf({4, 3})}));
}

TEST(LinalgGradTest, Pinv) {
  const VariableFn fn = [](const variable_list& x) { return linalg::pinv(x[0]); };
  EXPECT_TRUE(gradcheck(fn, {leaf({5, 3})}));
  EXPECT_TRUE(gradcheck(fn, {leaf({3, 5})}));
  EXPECT_TRUE(gradcheck(fn, {leaf({2, 3, 3}, 1.0)}));
  EXPECT_TRUE(gradgradcheck(fn, {leaf({4, 3})}));
  EXPECT_TRUE(gradcheck([](const variable_list& x) {
    return linalg::pinv(sym(x[0]), std::nullopt, std::nullopt, true);
  }, {leaf({3, 3}, 1.0)}));
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return x[0].pinverse(); }, {leaf({4, 3})}));
}

TEST(LinalgGradTest, LstsqSolution) {
  const VariableFn fn = [](const variable_list& x) {
    return linalg::lstsq(x[0], x[1]).solution;
  };
  EXPECT_TRUE(gradcheck(fn, {leaf({5, 3}), leaf({5, 2}, 0.0, 1.1)}));
  EXPECT_TRUE(gradcheck(fn, {leaf({2, 5, 3}), leaf({1, 5, 2}, 0.0, 1.1)}));
  EXPECT_TRUE(gradcheck(fn, {leaf({5, 3}), leaf({5}, 0.0, 1.1)}));
}

TEST(LinalgGradTest, MatrixPower) {
  for (int64_t n : {0, 1, 3, -2}) {
    EXPECT_TRUE(gradcheck([n](const variable_list& x) { return linalg::matrix_power(x[0], n); },
                          {leaf({2, 3, 3}, 2.0)})) << n;
  }
}

TEST(LinalgGradTest, MatrixExp) {
  const VariableFn fn = [](const variable_list& x) { return linalg::matrix_exp(x[0]); };
  EXPECT_TRUE(gradcheck(fn, {leaf({2, 3, 3})}));
  EXPECT_TRUE(gradgradcheck(fn, {leaf({3, 3})}));
  // A norm that needs squarings.
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return x[0].mul(4.0).matrix_exp(); },
                        {leaf({3, 3})}));
}

// The formulas are themselves differentiable (create_graph).
TEST(LinalgGradTest, DecompositionsToSecondOrder) {
  EXPECT_TRUE(gradgradcheck([](const variable_list& x) {
    auto [q, r] = linalg::qr(x[0]);
    return flat({q, r});
  }, {leaf({4, 3})}));
  EXPECT_TRUE(gradgradcheck([](const variable_list& x) {
    auto [w, v] = linalg::eigh(sym(x[0]));
    return flat({w, v.mul(v)});
  }, {leaf({3, 3})}));
  EXPECT_TRUE(gradgradcheck([](const variable_list& x) {
    auto [u, s, vh] = linalg::svd(x[0], false);
    return flat({s, u.mul(u), vh.mul(vh)});
  }, {leaf({4, 3})}));
  EXPECT_TRUE(gradgradcheck([](const variable_list& x) {
    return cholesky_solve(x[0], linalg::cholesky(spd(x[1])));
  }, {leaf({3, 2}), leaf({3, 3})}));
  EXPECT_TRUE(gradgradcheck([](const variable_list& x) {
    return cholesky_inverse(linalg::cholesky(spd(x[0])));
  }, {leaf({3, 3})}));
  EXPECT_TRUE(gradgradcheck([](const variable_list& x) {
    return linalg::lstsq(x[0], x[1]).solution;
  }, {leaf({4, 3}), leaf({4, 2}, 0.0, 1.1)}));
}

// Leaves whose data is laid out transposed.
TEST(LinalgGradTest, NonContiguousInputs) {
  Variable a(leaf({3, 3}, 3.0).data().t().contiguous().t(), true);
  Variable b(leaf({2, 3}).data().t(), true);
  ASSERT_FALSE(a.data().is_contiguous());
  ASSERT_FALSE(b.data().is_contiguous());
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return linalg::solve(x[0], x[1]); },
                        {a, b}));
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return linalg::svdvals(x[0]); }, {b}));
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return linalg::inv(x[0]); }, {a}));
}

TEST(LinalgGradTest, EmptyBatchGivesEmptyGradient) {
  Variable a(zeros({0, 3, 3}, kFloat64), true);
  linalg::inv(a).sum().backward();
  ASSERT_TRUE(a.grad().defined());
  EXPECT_EQ(a.grad().sizes(), IntArrayRef({0, 3, 3}));
}

TEST(LinalgGradTest, NodesHavePyTorchNames) {
  Variable a = leaf({3, 3}, 3.0);
  EXPECT_EQ(linalg::inv(a).grad_fn()->name(), "LinalgInvExBackward0");
  EXPECT_EQ(linalg::det(a).grad_fn()->name(), "LinalgDetBackward0");
  EXPECT_EQ(std::get<1>(linalg::slogdet(a)).grad_fn()->name(), "LinalgSlogdetBackward0");
  EXPECT_EQ(linalg::solve(a, a).grad_fn()->name(), "LinalgSolveExBackward0");
  EXPECT_EQ(std::get<0>(linalg::qr(a)).grad_fn()->name(), "LinalgQrBackward0");
  EXPECT_EQ(std::get<1>(linalg::svd(a)).grad_fn()->name(), "LinalgSvdBackward0");
  EXPECT_EQ(linalg::svdvals(a).grad_fn()->name(), "LinalgSvdBackward0");
  EXPECT_EQ(linalg::eigvalsh(a).grad_fn()->name(), "LinalgEighBackward0");
  EXPECT_EQ(linalg::pinv(a).grad_fn()->name(), "LinalgPinvBackward0");
  EXPECT_EQ(linalg::lstsq(a, a).solution.grad_fn()->name(), "LinalgLstsqBackward0");
  EXPECT_EQ(linalg::matrix_exp(a).grad_fn()->name(), "LinalgMatrixExpBackward0");
}

TEST(LinalgGradTest, WithoutGradModeNothingIsRecorded) {
  Variable a = leaf({3, 3}, 3.0);
  NoGradGuard guard;
  EXPECT_EQ(linalg::inv(a).grad_fn(), nullptr);
  EXPECT_EQ(linalg::svdvals(a).grad_fn(), nullptr);
  EXPECT_TRUE(testing::all_close(linalg::eigvalsh(sym(a)).data(),
                                 linalg::eigvalsh(sym(a).data())));
}

}  // namespace
}  // namespace torchlet
