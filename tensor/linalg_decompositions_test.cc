#include "tensor/linalg_decompositions.h"

#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "gtest/gtest.h"
#include "tensor/tensor.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::all_close;
using testing::transposed_copy;

// A fixture tensor (inputs are `in_<name>`) in `dtype`.
Tensor g(const std::string& name, DType dtype = kFloat64) {
  return testing::GoldenFile::get("tensor/testdata/linalg_decompositions_golden.txt")
      .at(name)
      .to(dtype);
}

// Tolerances of a result against PyTorch's float64 one.
double rtol(DType d) { return d == kFloat64 ? 1e-9 : 2e-4; }
double atol(DType d) { return d == kFloat64 ? 1e-10 : 2e-5; }

Tensor mT(const Tensor& t) { return t.transpose(-2, -1); }

// Identity matrices shaped like the product of t^T t.
Tensor eye_like(const Tensor& t, int64_t n) {
  SizeVec shape(t.sizes().begin(), t.sizes().end() - 2);
  shape.push_back(n);
  shape.push_back(n);
  return eye(n, t.options()).expand(shape);
}

class LinalgDTypeTest : public ::testing::TestWithParam<DType> {};
INSTANTIATE_TEST_SUITE_P(Floats, LinalgDTypeTest, ::testing::Values(kFloat32, kFloat64));

TEST_P(LinalgDTypeTest, InvMatchesPyTorch) {
  const DType d = GetParam();
  EXPECT_TRUE(all_close(linalg::inv(g("in_sq", d)), g("inv_sq", d), rtol(d), atol(d)));
  EXPECT_TRUE(all_close(linalg::inv(g("in_batch", d)), g("inv_batch", d), rtol(d) * 10, atol(d)));
  EXPECT_TRUE(all_close(g("in_sq", d).inverse(), g("inv_sq", d), rtol(d), atol(d)));
}

TEST_P(LinalgDTypeTest, InvReadsNonContiguousInput) {
  const DType d = GetParam();
  const Tensor a = transposed_copy(g("in_sq", d));
  ASSERT_FALSE(a.is_contiguous());
  EXPECT_TRUE(all_close(linalg::inv(a), g("inv_sq", d), rtol(d), atol(d)));
  const Tensor batch = g("in_batch", d).transpose(0, 1).contiguous().transpose(0, 1);
  ASSERT_FALSE(batch.is_contiguous());
  EXPECT_TRUE(all_close(linalg::inv(batch), g("inv_batch", d), rtol(d) * 10, atol(d)));
}

TEST_P(LinalgDTypeTest, DetSlogdetAndLogdetMatchPyTorch) {
  const DType d = GetParam();
  const Tensor a = g("in_batch", d);
  EXPECT_TRUE(all_close(linalg::det(a), g("det_batch", d), rtol(d), atol(d)));
  EXPECT_TRUE(all_close(a.det(), g("det_batch", d), rtol(d), atol(d)));
  EXPECT_TRUE(all_close(det(g("in_sq", d)), g("det_sq", d), rtol(d), atol(d)));
  auto [sign, logabsdet] = linalg::slogdet(a);
  EXPECT_TRUE(all_close(sign, g("slogdet_sign", d)));
  EXPECT_TRUE(all_close(logabsdet, g("slogdet_logabsdet", d), rtol(d), atol(d)));
  // One determinant is negative: its logdet is nan, as PyTorch's.
  EXPECT_TRUE(all_close(logdet(a), g("logdet_batch", d), rtol(d), atol(d)));
  EXPECT_TRUE(all_close(std::get<1>(a.slogdet()), g("slogdet_logabsdet", d), rtol(d), atol(d)));
}

TEST(LinalgTest, SlogdetOfSingularMatrixIsZeroSignAndMinusInf) {
  const Tensor a = tensor({{1.0, 2.0}, {2.0, 4.0}}, kFloat64);
  auto [sign, logabsdet] = linalg::slogdet(a);
  EXPECT_EQ(sign.item<double>(), 0.0);
  EXPECT_EQ(logabsdet.item<double>(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(linalg::det(a).item<double>(), 0.0);
  EXPECT_EQ(logdet(a).item<double>(), -std::numeric_limits<double>::infinity());
}

TEST(LinalgTest, DeterminantOfEmptyMatrixIsOne) {
  EXPECT_EQ(linalg::det(zeros({0, 0})).item<double>(), 1.0);
  EXPECT_EQ(linalg::det(zeros({0, 2, 2})).sizes(), IntArrayRef({0}));
  EXPECT_EQ(linalg::inv(zeros({3, 0, 0})).sizes(), IntArrayRef({3, 0, 0}));
  EXPECT_EQ(linalg::inv(zeros({0, 2, 2})).sizes(), IntArrayRef({0, 2, 2}));
}

TEST_P(LinalgDTypeTest, SolveBroadcastsBatchDimsAndVectors) {
  const DType d = GetParam();
  const Tensor a = g("in_batch", d);
  EXPECT_TRUE(all_close(linalg::solve(a, g("in_rhs", d)), g("solve_broadcast", d), rtol(d) * 10,
                        atol(d)));
  EXPECT_TRUE(all_close(linalg::solve(a, g("in_rhs_vec", d)), g("solve_vec", d), rtol(d) * 10,
                        atol(d)));
}

TEST(LinalgTest, SolveWithOneVectorGivesOneVector) {
  const Tensor a = tensor({{2.0, 0.0}, {0.0, 4.0}});
  EXPECT_TRUE(all_close(linalg::solve(a, tensor({2.0, 2.0})), tensor({1.0, 0.5})));
}

TEST_P(LinalgDTypeTest, CholeskyMatchesPyTorchBothTriangles) {
  const DType d = GetParam();
  const Tensor a = g("in_spd", d);
  EXPECT_TRUE(all_close(linalg::cholesky(a), g("cholesky_l", d), rtol(d), atol(d)));
  EXPECT_TRUE(all_close(linalg::cholesky(a, true), g("cholesky_u", d), rtol(d), atol(d)));
  EXPECT_TRUE(all_close(linalg::cholesky(transposed_copy(a[0])), g("cholesky_l", d)[0], rtol(d),
                        atol(d)));
}

TEST_P(LinalgDTypeTest, CholeskySolveAndInverseMatchPyTorch) {
  const DType d = GetParam();
  EXPECT_TRUE(all_close(cholesky_solve(g("in_rhs", d), g("cholesky_l", d)),
                        g("cholesky_solve", d), rtol(d), atol(d)));
  EXPECT_TRUE(all_close(g("in_rhs", d).cholesky_solve(g("cholesky_u", d), true),
                        g("cholesky_solve_u", d), rtol(d), atol(d)));
  EXPECT_TRUE(all_close(cholesky_inverse(g("cholesky_l", d)[0]), g("cholesky_inverse", d),
                        rtol(d), atol(d)));
  EXPECT_TRUE(all_close(g("cholesky_u", d)[0].cholesky_inverse(true), g("cholesky_inverse", d),
                        rtol(d), atol(d)));
}

TEST(LinalgTest, DeprecatedCholeskyWarnsAndFactors) {
  testing::WarningCapture capture;
  const Tensor a = g("in_spd");
  EXPECT_TRUE(all_close(a.cholesky(), g("cholesky_l"), 1e-9, 1e-10));
  ASSERT_FALSE(capture.messages().empty());
  EXPECT_NE(capture.messages()[0].find("torch.cholesky is deprecated"), std::string::npos);
}

TEST_P(LinalgDTypeTest, QrReconstructsInEveryMode) {
  const DType d = GetParam();
  for (const char* name : {"tall", "wide"}) {
    const Tensor a = g(std::string("in_") + name, d);
    const int64_t m = a.size(0), k = std::min(a.size(0), a.size(1));
    auto [q, r] = linalg::qr(a);
    EXPECT_EQ(q.sizes(), IntArrayRef({m, k}));
    EXPECT_TRUE(all_close(q.matmul(r), a, rtol(d), atol(d) * 10));
    EXPECT_TRUE(all_close(mT(q).matmul(q), eye(k, d), 0, atol(d) * 10));
    EXPECT_TRUE(all_close(r.abs(), g(std::string("qr_") + name + "_r_abs", d), rtol(d),
                          atol(d) * 10));
    auto [qc, rc] = linalg::qr(a, "complete");
    EXPECT_EQ(qc.sizes(), IntArrayRef({m, m}));
    EXPECT_EQ(rc.sizes(), IntArrayRef({m, a.size(1)}));
    EXPECT_TRUE(all_close(qc.matmul(rc), a, rtol(d), atol(d) * 10));
    EXPECT_TRUE(all_close(mT(qc).matmul(qc), eye(m, d), 0, atol(d) * 10));
    auto [qe, rr] = linalg::qr(a, "r");
    EXPECT_EQ(qe.numel(), 0);
    EXPECT_TRUE(all_close(rr, r));
  }
}

TEST(LinalgTest, TorchQrSomeChoosesReducedOrComplete) {
  const Tensor a = g("in_tall");
  EXPECT_EQ(std::get<0>(a.qr()).sizes(), IntArrayRef({5, 3}));
  EXPECT_EQ(std::get<0>(qr(a, false)).sizes(), IntArrayRef({5, 5}));
}

TEST_P(LinalgDTypeTest, EighReconstructsAndReadsTheChosenTriangle) {
  const DType d = GetParam();
  const Tensor a = g("in_sym_u", d);
  EXPECT_TRUE(all_close(linalg::eigvalsh(a), g("eigvalsh_l", d), rtol(d), atol(d) * 10));
  EXPECT_TRUE(all_close(linalg::eigvalsh(a, "U"), g("eigvalsh_u", d), rtol(d), atol(d) * 10));
  // in_sym_u's lower triangle is in_sym's; its upper one has 1 added.
  const Tensor from_lower = g("in_sym", d);
  const Tensor from_upper = from_lower.add(ones({4, 4}, d)).sub(eye(4, d));
  for (const auto& [uplo, expected] : {std::pair<std::string, Tensor>{"L", from_lower},
                                       std::pair<std::string, Tensor>{"U", from_upper}}) {
    auto [w, v] = linalg::eigh(a, uplo);
    EXPECT_TRUE(all_close(w, linalg::eigvalsh(a, uplo)));
    EXPECT_TRUE(all_close(v.mul(w.unsqueeze(-2)).matmul(mT(v)), expected, rtol(d),
                          atol(d) * 100)) << uplo;
    EXPECT_TRUE(all_close(mT(v).matmul(v), eye_like(v, 4), 0, atol(d) * 10));
  }
}

TEST_P(LinalgDTypeTest, SvdReconstructsAndMatchesSingularValues) {
  const DType d = GetParam();
  for (const char* name : {"tall", "wide"}) {
    const Tensor a = g(std::string("in_") + name, d);
    const int64_t m = a.size(0), n = a.size(1), k = std::min(m, n);
    EXPECT_TRUE(all_close(linalg::svdvals(a), g(std::string("svdvals_") + name, d), rtol(d),
                          atol(d)));
    auto [u, s, vh] = linalg::svd(a, false);
    EXPECT_EQ(u.sizes(), IntArrayRef({m, k}));
    EXPECT_EQ(vh.sizes(), IntArrayRef({k, n}));
    EXPECT_TRUE(all_close(u.mul(s.unsqueeze(-2)).matmul(vh), a, rtol(d), atol(d) * 10));
    auto [uf, sf, vhf] = linalg::svd(a);
    EXPECT_EQ(uf.sizes(), IntArrayRef({m, m}));
    EXPECT_EQ(vhf.sizes(), IntArrayRef({n, n}));
    EXPECT_TRUE(all_close(mT(uf).matmul(uf), eye(m, d), 0, atol(d) * 10));
    EXPECT_TRUE(all_close(vhf.matmul(mT(vhf)), eye(n, d), 0, atol(d) * 10));
    EXPECT_TRUE(all_close(sf, s));
  }
}

// U S Vh = a, U and Vh orthonormal, S descending and `expected`; for a
// thin and a full decomposition.
void expect_valid_svd(const Tensor& a, const Tensor& expected, DType d) {
  const int64_t m = a.size(-2), n = a.size(-1);
  const double scale = expected.max().item<double>();
  EXPECT_TRUE(all_close(linalg::svdvals(a), expected, rtol(d), atol(d) * scale));
  auto [u, s, vh] = linalg::svd(a, false);
  EXPECT_TRUE(all_close(s, expected, rtol(d), atol(d) * scale));
  EXPECT_TRUE(all_close(u.mul(s.unsqueeze(-2)).matmul(vh), a, rtol(d), atol(d) * 10 * scale));
  auto [uf, sf, vhf] = linalg::svd(a);
  EXPECT_TRUE(all_close(mT(uf).matmul(uf), eye(m, d), 0, atol(d) * 10));
  EXPECT_TRUE(all_close(vhf.matmul(mT(vhf)), eye(n, d), 0, atol(d) * 10));
  EXPECT_TRUE(all_close(sf, s));
}

TEST_P(LinalgDTypeTest, SvdPastSixteenColumnsMatchesPyTorch) {
  const DType d = GetParam();
  const Tensor a = g("in_svd_big", d);  // 40 x 24
  expect_valid_svd(a, g("svdvals_big", d), d);
  expect_valid_svd(mT(a), g("svdvals_big", d), d);
}

TEST_P(LinalgDTypeTest, SvdOfRankDeficientMatrixMatchesPyTorch) {
  const DType d = GetParam();
  const Tensor big = g("in_svd_big", d);
  const Tensor a = big.narrow(1, 0, 5).matmul(big.narrow(0, 0, 5));  // 40 x 24, rank 5
  expect_valid_svd(a, g("svdvals_rank5", d), d);
}

TEST_P(LinalgDTypeTest, SvdOfRepeatedSingularValuesAndZeroMatrix) {
  const DType d = GetParam();
  const Tensor stacked = cat({eye(20, d), eye(20, d)}, 0);  // 40 x 20, every value sqrt(2)
  expect_valid_svd(stacked, full({20}, std::sqrt(2.0), d), d);
  const Tensor z = zeros({24, 30}, d);
  auto [u, s, vh] = linalg::svd(z);
  EXPECT_EQ(s.abs().sum().item<double>(), 0.0);
  EXPECT_TRUE(all_close(mT(u).matmul(u), eye(24, d), 0, atol(d)));
  EXPECT_TRUE(all_close(vh.matmul(mT(vh)), eye(30, d), 0, atol(d)));
}

TEST_P(LinalgDTypeTest, SvdOfBatchSplitsAcrossThreadsPerMatrix) {
  const DType d = GetParam();
  const Tensor a = g("in_svd_big", d);
  const Tensor batch = stack({a, a.mul(2), a.neg()});
  const Tensor s = linalg::svdvals(batch);
  const Tensor expected = g("svdvals_big", d);
  EXPECT_TRUE(all_close(s, stack({expected, expected.mul(2), expected}), rtol(d), atol(d) * 20));
}

TEST(LinalgErrorsTest, SvdOfMatrixHoldingNaNFailsAsPyTorch) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor a = ones({20, 20});
  a[3][4].fill_(nan);
  const char* message =
      "The algorithm failed to converge because the input matrix contained non-finite values.";
  EXPECT_THROW_MSG(linalg::svd(a), std::string("linalg.svd: ") + message);
  EXPECT_THROW_MSG(linalg::svdvals(a.to(kFloat32)), std::string("linalg.svd: ") + message);
  EXPECT_THROW_MSG(linalg::pinv(a), std::string("linalg.svd: ") + message);
  EXPECT_THROW_MSG(linalg::svd(stack({ones({20, 20}), a})),
                   std::string("linalg.svd: (Batch element 1): ") + message);
}

TEST(LinalgTest, SvdOfMatrixHoldingInfinityIsNaNAsPyTorch) {
  Tensor a = ones({3, 2});
  a[1][0].fill_(std::numeric_limits<double>::infinity());
  auto [u, s, vh] = linalg::svd(a);
  EXPECT_TRUE(s.isnan().all().item<bool>());
  EXPECT_TRUE(u.isnan().all().item<bool>());
  EXPECT_TRUE(vh.isnan().all().item<bool>());
  // The other matrices of a batch are decomposed as usual.
  const Tensor s2 = linalg::svdvals(stack({a, eye(3).narrow(1, 0, 2)}));
  EXPECT_TRUE(s2[0].isnan().all().item<bool>());
  EXPECT_TRUE(all_close(s2[1], ones({2})));
}

TEST(LinalgTest, TorchSvdGivesVAndZerosWithoutVectors) {
  const Tensor a = g("in_tall");
  auto [u, s, v] = a.svd();
  EXPECT_EQ(v.sizes(), IntArrayRef({3, 3}));
  EXPECT_TRUE(all_close(u.mul(s.unsqueeze(-2)).matmul(mT(v)), a, 1e-9, 1e-10));
  auto [u0, s0, v0] = svd(a, true, false);
  EXPECT_EQ(u0.sizes(), IntArrayRef({5, 5}));
  EXPECT_EQ(v0.sizes(), IntArrayRef({3, 3}));
  EXPECT_EQ(u0.abs().sum().item<double>(), 0.0);
  EXPECT_TRUE(all_close(s0, g("svdvals_tall"), 1e-9, 1e-10));
}

TEST(LinalgTest, SvdOfMatrixWithoutColumnsHasIdentityU) {
  auto [u, s, vh] = linalg::svd(zeros({3, 0}));
  EXPECT_TRUE(all_close(u, eye(3)));
  EXPECT_EQ(s.numel(), 0);
  EXPECT_EQ(vh.sizes(), IntArrayRef({0, 0}));
}

TEST_P(LinalgDTypeTest, PinvMatchesPyTorch) {
  const DType d = GetParam();
  const double r = d == kFloat64 ? 1e-8 : 1e-3;
  EXPECT_TRUE(all_close(linalg::pinv(g("in_tall", d)), g("pinv_tall", d), r, atol(d) * 10));
  EXPECT_TRUE(all_close(g("in_tall", d).pinverse(), g("pinverse_tall", d), r, atol(d) * 10));
  EXPECT_TRUE(all_close(linalg::pinv(g("in_lowrank", d)), g("pinv_lowrank", d), r, atol(d) * 10));
  EXPECT_TRUE(all_close(linalg::pinv(g("in_lowrank", d), std::nullopt, 0.3),
                        g("pinv_lowrank_rtol", d), r, atol(d) * 10));
  EXPECT_TRUE(all_close(linalg::pinv(g("in_sym", d), std::nullopt, std::nullopt, true),
                        g("pinv_sym_hermitian", d), r, atol(d) * 100));
}

TEST_P(LinalgDTypeTest, MatrixRankMatchesPyTorch) {
  const DType d = GetParam();
  EXPECT_TRUE(all_close(linalg::matrix_rank(g("in_lowrank", d)), g("rank_lowrank")));
  EXPECT_TRUE(all_close(linalg::matrix_rank(g("in_sym", d), std::nullopt, std::nullopt, true),
                        g("rank_sym_hermitian")));
  EXPECT_TRUE(all_close(linalg::matrix_rank(g("in_tall", d), 1.5), g("rank_tall_atol")));
  EXPECT_EQ(linalg::matrix_rank(g("in_tall", d)).dtype(), kInt64);
}

// PyTorch's default rtol (eps * max(m, n)) applies unless a positive atol
// is given.
TEST(LinalgTest, MatrixRankTolerancesFollowPyTorchDefaults) {
  Tensor a = zeros({4, 5}, kFloat64);
  a.index_put_({0, 0}, 2.0);
  a.index_put_({1, 1}, 1.0);
  a.index_put_({2, 2}, 1e-15);
  EXPECT_EQ(linalg::matrix_rank(a).item<int64_t>(), 2);
  EXPECT_EQ(linalg::matrix_rank(a, 1e-20).item<int64_t>(), 3);
  EXPECT_EQ(linalg::matrix_rank(a, 0.0).item<int64_t>(), 2);
  EXPECT_EQ(linalg::matrix_rank(a, std::nullopt, 0.0).item<int64_t>(), 3);
  // pinv(a) a projects onto the kept singular directions: its trace is the rank.
  EXPECT_NEAR(linalg::pinv(a, 1e-20).matmul(a).mul(eye(5, kFloat64)).sum().item<double>(), 3.0,
              1e-9);
  EXPECT_NEAR(linalg::pinv(a).matmul(a).mul(eye(5, kFloat64)).sum().item<double>(), 2.0, 1e-9);
}

TEST_P(LinalgDTypeTest, LstsqMatchesPyTorchGelsy) {
  const DType d = GetParam();
  const linalg::LstsqResult r = linalg::lstsq(g("in_tall", d), g("in_lstsq_b", d));
  EXPECT_TRUE(all_close(r.solution, g("lstsq_tall", d), rtol(d) * 10, atol(d) * 10));
  EXPECT_TRUE(all_close(r.rank, g("lstsq_tall_rank")));
  EXPECT_EQ(r.rank.dtype(), kInt64);
  EXPECT_EQ(r.residuals.numel(), 0);
  EXPECT_EQ(r.singular_values.numel(), 0);
  const Tensor b0 = g("in_lstsq_b", d).select(1, 0);
  EXPECT_TRUE(all_close(linalg::lstsq(g("in_tall", d), b0).solution, g("lstsq_vec", d),
                        rtol(d) * 10, atol(d) * 10));
}

TEST(LinalgTest, LstsqOfRankDeficientMatrixReportsItsRank) {
  const Tensor a = g("in_lowrank");
  const linalg::LstsqResult r = linalg::lstsq(a, ones({4, 1}, kFloat64));
  EXPECT_EQ(r.rank.item<int64_t>(), 2);
  // The minimum-norm solution: the pseudoinverse's.
  EXPECT_TRUE(all_close(r.solution, linalg::pinv(a).matmul(ones({4, 1}, kFloat64)), 1e-8, 1e-9));
}

TEST_P(LinalgDTypeTest, MatrixPowerMatchesPyTorch) {
  const DType d = GetParam();
  EXPECT_TRUE(all_close(linalg::matrix_power(g("in_batch", d), 3), g("matrix_power_3", d),
                        rtol(d) * 10, atol(d) * 10));
  EXPECT_TRUE(all_close(g("in_sq", d).matrix_power(-2), g("matrix_power_m2", d), rtol(d) * 10,
                        atol(d)));
  EXPECT_TRUE(all_close(matrix_power(g("in_batch", d), 0), eye_like(g("in_batch", d), 3)));
  const Tensor one = linalg::matrix_power(g("in_sq", d), 1);
  EXPECT_TRUE(all_close(one, g("in_sq", d)));
  EXPECT_FALSE(one.shares_storage(g("in_sq", d)));
}

TEST_P(LinalgDTypeTest, MatrixExpMatchesPyTorch) {
  const DType d = GetParam();
  EXPECT_TRUE(all_close(linalg::matrix_exp(g("in_expm", d)), g("matrix_exp", d), rtol(d) * 10,
                        atol(d) * 10));
  const Tensor big = g("in_expm", d)[0].mul(5);
  EXPECT_TRUE(all_close(big.matrix_exp(), g("matrix_exp_big", d), rtol(d) * 100, atol(d) * 100));
  EXPECT_TRUE(all_close(matrix_exp(zeros({2, 2}, d)), eye(2, d)));
}

// A batch large enough to be split across the intra-op pool: each element
// must come out as it does alone.
TEST(LinalgTest, LargeBatchMatchesElementwiseResults) {
  const Tensor base = g("in_sq");
  const Tensor a = base.unsqueeze(0).expand({4000, 3, 3}).mul(
      arange(1, 4001, 1, kFloat64).view({4000, 1, 1}));
  const Tensor inv = linalg::inv(a);
  EXPECT_TRUE(all_close(inv[0], g("inv_sq"), 1e-9, 1e-10));
  EXPECT_TRUE(all_close(inv[3999].mul(4000), g("inv_sq"), 1e-9, 1e-10));
  const Tensor dets = linalg::det(a);
  EXPECT_NEAR(dets[1].item<double>(), 8 * g("det_sq").item<double>(), 1e-9);
}

// One large matrix: its right-hand sides (an inverse's identity columns)
// split across the pool, and every column block must be solved.
TEST(LinalgTest, LargeSingleMatrixInverseAndSolveCoverEveryColumn) {
  manual_seed(3);
  const Tensor a = randn({96, 96}, kFloat64).add(eye(96, kFloat64).mul(20));
  EXPECT_TRUE(all_close(a.matmul(linalg::inv(a)), eye(96, kFloat64), 1e-9, 1e-10));
  const Tensor b = randn({96, 70}, kFloat64);
  EXPECT_TRUE(all_close(a.matmul(linalg::solve(a, b)), b, 1e-9, 1e-10));
}

// ---- Errors, in PyTorch's words ----

TEST(LinalgErrorsTest, SingularInverseNamesTheZeroPivot) {
  const Tensor a = tensor({{1.0, 2.0}, {2.0, 4.0}}, kFloat64);
  EXPECT_THROW_MSG(linalg::inv(a),
                   "linalg.inv: The diagonal element 2 is zero, the inversion could not be "
                   "completed because the input matrix is singular.");
  EXPECT_THROW_MSG(linalg::matrix_power(a, -1), "linalg.inv: The diagonal element 2 is zero");
}

TEST(LinalgErrorsTest, SingularInverseInBatchNamesTheElement) {
  const Tensor a = stack({eye(2, kFloat64), tensor({{1.0, 2.0}, {2.0, 4.0}}, kFloat64)});
  EXPECT_THROW_MSG(linalg::inv(a),
                   "linalg.inv: (Batch element 1): The diagonal element 2 is zero, the inversion "
                   "could not be completed because the input matrix is singular.");
}

TEST(LinalgErrorsTest, SingularSolve) {
  const Tensor a = tensor({{1.0, 2.0}, {2.0, 4.0}}, kFloat64);
  EXPECT_THROW_MSG(linalg::solve(a, ones({2}, kFloat64)),
                   "torch.linalg.solve: The solver failed because the input matrix is singular.");
  EXPECT_THROW_MSG(linalg::solve(stack({eye(2, kFloat64), a}), ones({2, 2, 1}, kFloat64)),
                   "torch.linalg.solve: (Batch element 1): The solver failed because the input "
                   "matrix is singular.");
}

TEST(LinalgErrorsTest, CholeskyOfIndefiniteMatrix) {
  const Tensor a = tensor({{1.0, 2.0}, {2.0, 1.0}}, kFloat64);
  EXPECT_THROW_MSG(linalg::cholesky(a),
                   "linalg.cholesky: The factorization could not be completed because the input "
                   "is not positive-definite (the leading minor of order 2 is not "
                   "positive-definite).");
  EXPECT_THROW_MSG(linalg::cholesky(stack({eye(2, kFloat64), a})),
                   "linalg.cholesky: (Batch element 1): The factorization could not be completed "
                   "because the input is not positive-definite (the leading minor of order 2 is "
                   "not positive-definite).");
}

TEST(LinalgErrorsTest, NonSquareInputs) {
  const Tensor a = ones({2, 3});
  const char* tail = ": A must be batches of square matrices, but they are 2 by 3 matrices";
  EXPECT_THROW_MSG(linalg::inv(a), std::string("linalg.inv") + tail);
  EXPECT_THROW_MSG(linalg::det(a), std::string("linalg.det") + tail);
  EXPECT_THROW_MSG(linalg::slogdet(a), std::string("linalg.slogdet") + tail);
  EXPECT_THROW_MSG(logdet(a), std::string("logdet") + tail);
  EXPECT_THROW_MSG(linalg::cholesky(a), std::string("linalg.cholesky") + tail);
  EXPECT_THROW_MSG(linalg::solve(a, ones({2})), std::string("linalg.solve") + tail);
  EXPECT_THROW_MSG(cholesky_inverse(a), std::string("cholesky_inverse") + tail);
  EXPECT_THROW_MSG(linalg::matrix_power(a, 2), std::string("linalg.matrix_power") + tail);
  EXPECT_THROW_MSG(linalg::matrix_exp(a), std::string("linalg.matrix_exp") + tail);
  EXPECT_THROW_MSG(linalg::eigh(ones({3, 2})),
                   "linalg.eigh: A must be batches of square matrices, but they are 3 by 2 "
                   "matrices");
}

TEST(LinalgErrorsTest, InputsWithFewerThanTwoDims) {
  const Tensor v = ones({3});
  const char* tail = ": The input tensor A must have at least 2 dimensions.";
  EXPECT_THROW_MSG(linalg::inv(v), std::string("linalg.inv") + tail);
  EXPECT_THROW_MSG(linalg::det(v), std::string("linalg.det") + tail);
  EXPECT_THROW_MSG(linalg::qr(v), std::string("linalg.qr") + tail);
  EXPECT_THROW_MSG(linalg::svd(v), std::string("linalg.svd") + tail);
  EXPECT_THROW_MSG(linalg::svdvals(v), std::string("linalg.svd") + tail);
  EXPECT_THROW_MSG(linalg::eigvalsh(v), std::string("linalg.eigh") + tail);
  EXPECT_THROW_MSG(linalg::solve(v, v), std::string("linalg.solve") + tail);
  EXPECT_THROW_MSG(cholesky(v), std::string("cholesky") + tail);
  EXPECT_THROW_MSG(linalg::matrix_exp(v), std::string("linalg.matrix_exp") + tail);
  EXPECT_THROW_MSG(linalg::matrix_rank(v),
                   "torch.linalg.matrix_rank: The input tensor input must have at least 2 "
                   "dimensions.");
  EXPECT_THROW_MSG(linalg::pinv(v),
                   "linalg.pinv(Float{[3]}): expected a tensor with 2 or more dimensions of "
                   "float, double, cfloat or cdouble types");
}

TEST(LinalgErrorsTest, IntegerAndHalfInputs) {
  const Tensor l = ones({2, 2}, kInt64);
  const char* tail = ": Expected a floating point or complex tensor as input. Got Long";
  EXPECT_THROW_MSG(linalg::inv(l), std::string("linalg.inv") + tail);
  EXPECT_THROW_MSG(linalg::det(l), std::string("linalg.det") + tail);
  EXPECT_THROW_MSG(linalg::slogdet(l), std::string("linalg.slogdet") + tail);
  EXPECT_THROW_MSG(logdet(l), std::string("logdet") + tail);
  EXPECT_THROW_MSG(linalg::cholesky(l), std::string("linalg.cholesky") + tail);
  EXPECT_THROW_MSG(linalg::qr(l), std::string("linalg.qr") + tail);
  EXPECT_THROW_MSG(linalg::svd(l), std::string("linalg.svd") + tail);
  EXPECT_THROW_MSG(linalg::solve(l, ones({2}, kInt64)), std::string("linalg.solve") + tail);
  EXPECT_THROW_MSG(linalg::matrix_exp(l), std::string("matrix_exp") + tail);
  EXPECT_THROW_MSG(linalg::eigh(l), "\"linalg_eigh_cpu\" not implemented for 'Long'");
  EXPECT_THROW_MSG(linalg::matrix_rank(l),
                   "This function doesn't handle types other than float and double");
  EXPECT_THROW_MSG(linalg::pinv(l),
                   "linalg.pinv(Long{[2, 2]}): expected a tensor with 2 or more dimensions");
  EXPECT_THROW_MSG(cholesky_solve(l, l), "\"cholesky_solve_cpu\" not implemented for 'Long'");
  EXPECT_THROW_MSG(linalg::lstsq(l, l),
                   "This function doesn't handle types other than float and double");
  EXPECT_THROW_MSG(linalg::inv(ones({2, 2}, kFloat16)),
                   "linalg.inv: Low precision dtypes not supported. Got Half");
}

TEST(LinalgErrorsTest, SolveShapeAndDtypeMismatches) {
  const Tensor a = eye(2);
  EXPECT_THROW_MSG(linalg::solve(a, ones({3})),
                   "linalg.solve: Incompatible shapes of A and B for the equation AX = B (2x2 and "
                   "3x1)");
  EXPECT_THROW_MSG(linalg::solve(a, ones({5, 2})),
                   "linalg.solve: Incompatible shapes of A and B for the equation AX = B (2x2 and "
                   "5x2)");
  EXPECT_THROW_MSG(linalg::solve(a, ones({2}, kFloat64)),
                   "linalg.solve: Expected A and B to have the same dtype, but found A of type "
                   "Float and B of type Double instead");
  EXPECT_THROW_MSG(linalg::solve(eye(2).expand({3, 2, 2}), ones({4, 2, 2})),
                   "The size of tensor a (3) must match the size of tensor b (4) at "
                   "non-singleton dimension 0");
}

TEST(LinalgErrorsTest, OtherMissingDimensions) {
  EXPECT_THROW_MSG(linalg::solve(eye(2), tensor(1.0)),
                   "linalg.solve: The input tensor B must have at least 2 dimensions.");
  EXPECT_THROW_MSG(linalg::solve(eye(2, kFloat16), ones({2}, kFloat16)),
                   "\"lu_cpu\" not implemented for 'Half'");
  EXPECT_THROW_MSG(linalg::lstsq(ones({3, 2}), tensor(1.0)),
                   "torch.linalg.lstsq: other must have at least 1 dimension.");
  EXPECT_THROW_MSG(cholesky_solve(ones({2, 1}), ones({2})),
                   "u should have at least 2 dimensions, but has 1 dimensions instead");
  EXPECT_THROW_MSG(cholesky_inverse(ones({3})),
                   "cholesky_inverse: The input tensor A must have at least 2 dimensions.");
  EXPECT_THROW_MSG(cholesky_inverse(ones({2, 2}, kInt64)),
                   "\"cholesky_inverse_out_cpu\" not implemented for 'Long'");
  EXPECT_THROW_MSG(linalg::matrix_power(ones({3}), 2),
                   "linalg.matrix_power: The input tensor A must have at least 2 dimensions.");
}

TEST(LinalgErrorsTest, OperandsOnDifferentDevices) {
  set_cpu_device_count(2);
  const Tensor other = ones({2, 1}, Device(kCPU, 1));
  const char* tail = ": Expected all tensors to be on the same device, but found at least two "
                     "devices, cpu:0 and cpu:1!";
  EXPECT_THROW_MSG(linalg::solve(eye(2), other), std::string("linalg.solve") + tail);
  EXPECT_THROW_MSG(linalg::lstsq(eye(2), other), std::string("torch.linalg.lstsq") + tail);
  EXPECT_THROW_MSG(cholesky_solve(ones({2, 1}), eye(2, Device(kCPU, 1))),
                   "cholesky_solve: Expected all tensors to be on the same device");
  set_cpu_device_count(1);
}

TEST(LinalgErrorsTest, CholeskySolveShapeAndDtypeMismatches) {
  EXPECT_THROW_MSG(cholesky_solve(ones({2, 1}), ones({3, 3})),
                   "Incompatible matrix sizes for cholesky_solve: each A matrix is 3 by 3 but "
                   "each b matrix is 2 by 1");
  EXPECT_THROW_MSG(cholesky_solve(ones({2, 1}), ones({2, 2}, kFloat64)),
                   "Expected b and A to have the same dtype, but found b of type Float and A of "
                   "type Double instead.");
  EXPECT_THROW_MSG(cholesky_solve(ones({2}), ones({2, 2})),
                   "b should have at least 2 dimensions, but has 1 dimensions instead");
}

TEST(LinalgErrorsTest, BadModesAndDrivers) {
  EXPECT_THROW_MSG(linalg::qr(ones({3, 2}), "x"),
                   "qr received unrecognized mode 'x' but expected one of 'reduced' (default), "
                   "'r', or 'complete'");
  EXPECT_THROW_MSG(linalg::eigh(eye(3), "X"), "Expected UPLO argument to be 'L' or 'U', but got X");
  EXPECT_THROW_MSG(linalg::lstsq(ones({3, 2}), ones({3, 1}), std::nullopt, "foo"),
                   "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, "
                   "gelss)");
  EXPECT_THROW_MSG(linalg::lstsq(ones({3, 2}), ones({3, 1}), std::nullopt, "gelsd"),
                   "torch.linalg.lstsq: only the driver gelsy is implemented, got gelsd");
}

TEST(LinalgErrorsTest, LstsqShapeAndDtypeMismatches) {
  EXPECT_THROW_MSG(linalg::lstsq(ones({3, 2}), ones({4, 1})),
                   "torch.linalg.lstsq: input.size(-2) should match other.size(-2)");
  EXPECT_THROW_MSG(linalg::lstsq(ones({2, 5, 3}), ones({5, 2})),
                   "torch.linalg.lstsq: input.size(-2) should match other.size(-1)");
  EXPECT_THROW_MSG(linalg::lstsq(ones({3, 2}), ones({3, 1}, kFloat64)),
                   "torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
                   "input's dtype Float and other's dtype Double");
  EXPECT_THROW_MSG(linalg::lstsq(ones({3}), ones({3})),
                   "torch.linalg.lstsq: input must have at least 2 dimensions.");
}

}  // namespace
}  // namespace torchlet
