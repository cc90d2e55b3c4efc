// tensordot, kron, cross, vecdot, multi_dot, the norms and cdist against
// PyTorch (tools/gen_einsum_golden.py), and their errors.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/tensor.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::all_close;

constexpr double kInf = std::numeric_limits<double>::infinity();

const testing::GoldenFile& golden() {
  return testing::GoldenFile::get("tensor/testdata/products_golden.txt");
}

Tensor in(const std::string& name, int i, DType dtype = kFloat64) {
  return golden().at(name + ".in" + std::to_string(i)).to(dtype);
}
const Tensor& out(const std::string& name) { return golden().at(name + ".out"); }

// Checks `fn` on the case's inputs in float64 and float32.
template <typename Fn>
void expect_golden(const std::string& name, int operands, Fn fn) {
  for (DType dtype : {kFloat64, kFloat32}) {
    std::vector<Tensor> ops;
    for (int i = 0; i < operands; ++i) ops.push_back(in(name, i, dtype));
    const Tensor result = fn(ops);
    EXPECT_EQ(result.dtype(), dtype) << name;
    const double tol = dtype == kFloat64 ? 1e-10 : 1e-5;
    EXPECT_TRUE(all_close(result, out(name), tol, tol)) << name << " " << dtype;
  }
}

// ---- tensordot ----------------------------------------------------------------------------

TEST(TensordotTest, ContractsTheLastDimsOfTheFirstWithTheFirstOfTheSecond) {
  expect_golden("tensordot_2", 2, [](auto& t) { return tensordot(t[0], t[1], 2); });
}

TEST(TensordotTest, ZeroDimsIsTheOuterProduct) {
  expect_golden("tensordot_0", 2, [](auto& t) { return tensordot(t[0], t[1], 0); });
}

TEST(TensordotTest, ContractsListedDimsPairwise) {
  expect_golden("tensordot_lists", 2, [](auto& t) {
    return tensordot(t[0].transpose(0, 2).contiguous().transpose(0, 2), t[1], {1, 2}, {1, 0});
  });
}

TEST(TensordotTest, SumsAContractedDimOfSizeOneOnTheOtherSide) {
  expect_golden("tensordot_broadcast", 2, [](auto& t) { return tensordot(t[0], t[1], {0}, {0}); });
}

TEST(TensordotTest, RejectsNegativeDims) {
  EXPECT_THROW_MSG(tensordot(zeros({2, 3}), zeros({3, 2}), -1),
                   "tensordot expects dims >= 0, but got dims=-1");
}

TEST(TensordotTest, RejectsListsOfDifferentLengths) {
  EXPECT_THROW_MSG(tensordot(zeros({2, 3, 4}), zeros({4, 3, 5}), {1, 2}, {1}),
                   "both dimension lists should have same length");
}

TEST(TensordotTest, RejectsContractedDimsOfDifferentSizes) {
  EXPECT_THROW_MSG(tensordot(zeros({2, 3, 4}), zeros({3, 5, 5}), 2),
                   "contracted dimensions need to match, but first has size 4 in dim -1 and "
                   "second has size 5 in dim 1");
}

TEST(TensordotTest, RejectsARepeatedDim) {
  EXPECT_THROW_MSG(tensordot(zeros({3, 3}), zeros({3, 3}), {0, 0}, {0, 1}),
                   "dim 0 appears multiple times in the list of dims");
}

TEST(TensordotTest, RejectsADimOutOfRange) {
  EXPECT_THROW_MSG(tensordot(zeros({2, 3}), zeros({3, 2}), 3),
                   "Dimension out of range (expected to be in range of [-2, 1], but got -3)");
}

// ---- kron ------------------------------------------------------------------------------------

TEST(KronTest, MatchesPyTorch) {
  expect_golden("kron_2d", 2, [](auto& t) { return kron(t[0], t[1]); });
  expect_golden("kron_ranks", 2, [](auto& t) { return t[0].kron(t[1]); });
}

TEST(KronTest, OfIntegers) {
  const Tensor a = tensor({int64_t{1}, int64_t{2}}), b = tensor({int64_t{3}, int64_t{4}});
  EXPECT_EQ(kron(a, b).to_vector<int64_t>(), (std::vector<int64_t>{3, 4, 6, 8}));
}

// ---- cross --------------------------------------------------------------------------------

TEST(CrossTest, WithoutDimUsesTheFirstDimOfSizeThree) {
  expect_golden("cross_default", 2, [](auto& t) { return t[0].cross(t[1]); });
}

TEST(CrossTest, AlongAGivenDim) {
  expect_golden("cross_dim0", 2, [](auto& t) { return cross(t[0], t[1], 0); });
  expect_golden("cross_dim0", 2, [](auto& t) { return linalg::cross(t[0], t[1], -2); });
}

TEST(CrossTest, BroadcastsTheBatchDims) {
  expect_golden("linalg_cross_broadcast", 2, [](auto& t) { return linalg::cross(t[0], t[1]); });
}

TEST(CrossTest, RejectsInputsWithoutADimOfSizeThree) {
  EXPECT_THROW_MSG(cross(zeros({2, 4}), zeros({2, 4})), "no dimension of size 3 in input");
}

TEST(CrossTest, RejectsADimNotOfSizeThree) {
  EXPECT_THROW_MSG(cross(zeros({2, 4}), zeros({2, 4}), 1),
                   "linalg.cross: inputs dimension 1 must have length 3. Got 4 and 4");
  EXPECT_THROW_MSG(linalg::cross(zeros({3, 2}), zeros({3, 2})),
                   "linalg.cross: inputs dimension -1 must have length 3. Got 2 and 2");
}

TEST(CrossTest, RejectsInputsOfDifferentRanks) {
  EXPECT_THROW_MSG(linalg::cross(zeros({4, 3}), zeros({3})),
                   "linalg.cross: inputs must have the same number of dimensions.");
}

TEST(CrossTest, RejectsInputsOfDifferentDtypes) {
  EXPECT_THROW_MSG(linalg::cross(zeros({3}), zeros({3}, kFloat64)),
                   "linalg.cross: expected scalar type Float but found Double");
}

TEST(CrossTest, RejectsADimOutOfRange) {
  EXPECT_THROW_MSG(cross(zeros({2, 3}), zeros({2, 3}), 2),
                   "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

// ---- vecdot and multi_dot ------------------------------------------------------------------

TEST(VecdotTest, MatchesPyTorch) {
  expect_golden("vecdot", 2, [](auto& t) { return linalg::vecdot(t[0], t[1]); });
}

TEST(VecdotTest, RejectsIntegersAndMixedDtypes) {
  EXPECT_THROW_MSG(linalg::vecdot(zeros({3}, kInt64), zeros({3}, kInt64)),
                   "linalg.vecdot: Expected a floating point or complex tensor as input. Got Long");
  EXPECT_THROW_MSG(linalg::vecdot(zeros({3}), zeros({3}, kFloat64)),
                   "linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                   "Float and y of type Double instead");
}

TEST(MultiDotTest, MatchesPyTorchWithVectorsAtTheEnds) {
  expect_golden("multi_dot_vectors", 5, [](auto& t) { return linalg::multi_dot(t); });
}

TEST(MultiDotTest, MatchesPyTorchForThreeMatrices) {
  expect_golden("multi_dot_3", 3, [](auto& t) { return linalg::multi_dot(t); });
  expect_golden("multi_dot_3_right_first", 3, [](auto& t) { return linalg::multi_dot(t); });
}

TEST(MultiDotTest, RejectsFewerThanTwoTensors) {
  EXPECT_THROW_MSG(linalg::multi_dot({zeros({2, 3})}),
                   "multi_dot(): expected at least 2 tensors but got 1");
}

TEST(MultiDotTest, RejectsBadRanks) {
  EXPECT_THROW_MSG(linalg::multi_dot({zeros({2, 2, 3}), zeros({3, 3})}),
                   "multi_dot(): the first tensor must be 1D or 2D but got 3D");
  EXPECT_THROW_MSG(linalg::multi_dot({zeros({2, 3}), zeros({2, 3, 3})}),
                   "multi_dot(): the last tensor must be 1D or 2D but got 3D");
  EXPECT_THROW_MSG(linalg::multi_dot({zeros({2, 3}), zeros({3}), zeros({3, 3})}),
                   "multi_dot(): tensor 1 must be 2D but got 1D");
}

TEST(MultiDotTest, RejectsShapesThatCannotBeMultiplied) {
  EXPECT_THROW_MSG(linalg::multi_dot({zeros({2, 3}), zeros({4, 3})}),
                   "multi_dot(): tensors 0 and 1 with shapes [2, 3] and [4, 3] cannot be "
                   "multiplied");
}

TEST(MultiDotTest, RejectsTensorsOnDifferentDevices) {
  set_cpu_device_count(2);
  EXPECT_THROW_MSG(linalg::multi_dot({zeros({2, 3}), zeros({3, 3}).to(Device(kCPU, 1))}),
                   "multi_dot(): all tensors must be on the same device but tensor 0 is on cpu:0 "
                   "and tensor 1 on cpu:1");
}

TEST(MultiDotTest, RejectsMixedDtypes) {
  EXPECT_THROW_MSG(linalg::multi_dot({zeros({2, 3}), zeros({3, 3}, kFloat64)}),
                   "multi_dot(): all tensors must have be the same dtype but tensor 0 is float "
                   "and tensor 1 double");
}

// ---- Norms ------------------------------------------------------------------------------------

TEST(VectorNormTest, MatchesPyTorchForEveryOrder) {
  const std::vector<std::pair<std::string, double>> orders = {
      {"2", 2}, {"1", 1}, {"0", 0}, {"inf", kInf}, {"ninf", -kInf},
      {"3_5", 3.5}, {"0_5", 0.5}, {"n1", -1}};
  for (const auto& [name, ord] : orders) {
    const double o = ord;
    expect_golden("vector_norm_" + name, 1,
                  [o](auto& t) { return linalg::vector_norm(t[0], o); });
    expect_golden("vector_norm_dim1_" + name, 1,
                  [o](auto& t) { return linalg::vector_norm(t[0], o, {1}, true); });
  }
}

TEST(VectorNormTest, ComputesInTheGivenDtype) {
  const Tensor x = tensor({3.0f, 4.0f});
  const Tensor n = linalg::vector_norm(x, 2, {}, false, kFloat64);
  EXPECT_EQ(n.dtype(), kFloat64);
  EXPECT_DOUBLE_EQ(n.item<double>(), 5.0);
}

TEST(VectorNormTest, OfAnEmptyTensorIsZeroForPositiveOrders) {
  EXPECT_EQ(linalg::vector_norm(zeros({0, 3})).item<double>(), 0.0);
  EXPECT_EQ(linalg::vector_norm(zeros({0, 3}), kInf, {1}).sizes(), IntArrayRef({0}));
}

TEST(VectorNormTest, RejectsIntegerInputs) {
  EXPECT_THROW_MSG(linalg::vector_norm(zeros({3}, kInt64)),
                   "linalg.vector_norm: Expected a floating point or complex tensor as input. "
                   "Got Long");
}

TEST(VectorNormTest, RejectsIntegerAndNarrowingDtypes) {
  EXPECT_THROW_MSG(linalg::vector_norm(zeros({3}), 2, {}, false, kInt64),
                   "linalg.vector_norm: dtype should be floating point or complex, but got Long");
  EXPECT_THROW_MSG(linalg::vector_norm(zeros({3}, kFloat64), 2, {}, false, kFloat32),
                   "linalg.vector_norm: the dtype of the input (Double) should be convertible "
                   "without narrowing to the specified dtype (Float)");
}

TEST(VectorNormTest, RejectsOrdersWithoutIdentityOnEmptyTensors) {
  EXPECT_THROW_MSG(linalg::vector_norm(zeros({0, 3}), kInf),
                   "linalg.vector_norm cannot compute the inf norm on an empty tensor because "
                   "the operation does not have an identity");
  EXPECT_THROW_MSG(linalg::vector_norm(zeros({0, 3}), -1, {0}),
                   "linalg.vector_norm cannot compute the -1 norm on the dimension 0because "
                   "this dimension is empty and the operation does not have an identity");
}

TEST(MatrixNormTest, MatchesPyTorchForEveryOrder) {
  for (const std::string name : {"fro", "nuc"}) {
    expect_golden("matrix_norm_" + name, 1,
                  [name](auto& t) { return linalg::matrix_norm(t[0], name); });
    expect_golden("matrix_norm_dims_" + name, 1,
                  [name](auto& t) { return linalg::matrix_norm(t[0], name, {2, 0}, true); });
  }
  const std::vector<std::pair<std::string, double>> orders = {
      {"inf", kInf}, {"ninf", -kInf}, {"1", 1}, {"n1", -1}, {"2", 2}, {"n2", -2}};
  for (const auto& [name, ord] : orders) {
    const double o = ord;
    expect_golden("matrix_norm_" + name, 1, [o](auto& t) { return linalg::matrix_norm(t[0], o); });
    expect_golden("matrix_norm_dims_" + name, 1,
                  [o](auto& t) { return linalg::matrix_norm(t[0], o, {2, 0}, true); });
  }
}

TEST(MatrixNormTest, RejectsUnsupportedOrders) {
  EXPECT_THROW_MSG(linalg::matrix_norm(zeros({2, 3}), 3),
                   "linalg.matrix_norm: Order 3 not supported.");
  EXPECT_THROW_MSG(linalg::matrix_norm(zeros({2, 3}), "abc"),
                   "linalg.matrix_norm: Order abc not supported.");
}

TEST(MatrixNormTest, RejectsBadDims) {
  EXPECT_THROW_MSG(linalg::matrix_norm(zeros({2, 3}), "fro", {0}),
                   "linalg.matrix_norm: dim must be a 2-tuple. Got 0");
  EXPECT_THROW_MSG(linalg::matrix_norm(zeros({2, 3}), "fro", {0, -2}),
                   "linalg.matrix_norm: dims must be different. Got (0, 0)");
}

TEST(MatrixNormTest, RejectsVectorsAndIntegers) {
  EXPECT_THROW_MSG(linalg::matrix_norm(zeros({3})),
                   "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
  EXPECT_THROW_MSG(linalg::matrix_norm(zeros({2, 2}, kInt64)),
                   "linalg.matrix_norm: Expected a floating point or complex tensor as input. "
                   "Got Long");
}

TEST(LinalgNormTest, MatchesPyTorch) {
  expect_golden("linalg_norm_default", 1, [](auto& t) { return linalg::norm(t[0]); });
  expect_golden("linalg_norm_dim1", 1,
                [](auto& t) { return linalg::norm(t[0], 3.0, std::vector<int64_t>{1}); });
}

TEST(LinalgNormTest, RejectsAStringOrderWithMoreThanTwoDims) {
  // PyTorch's words, typo included.
  EXPECT_THROW_MSG(linalg::norm(zeros({2, 3, 4}), "fro", std::vector<int64_t>{0, 1, 2}),
                   "linalg.norm: If dim is specified, it mut be of length 1 or 2. Got [0, 1, 2]");
  EXPECT_THROW_MSG(linalg::norm(zeros({2, 3, 4}), "fro"),
                   "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                   "Got 3D.");
}

TEST(LinalgNormTest, RejectsAnOrderWithoutDimsBeyondTwoDims) {
  EXPECT_THROW_MSG(linalg::norm(zeros({2, 3, 4}), 2.0),
                   "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                   "Got 3D.");
  EXPECT_THROW_MSG(linalg::norm(zeros({2, 3, 4}), std::nullopt, std::vector<int64_t>{0, 1, 2}),
                   "linalg.norm: If dim is specified, it must be of length 1 or 2. Got [0, 1, 2]");
}

// ---- cdist ---------------------------------------------------------------------------------

TEST(CdistTest, MatchesPyTorchForEveryP) {
  const std::vector<std::pair<std::string, double>> ps = {
      {"0", 0}, {"1", 1}, {"2", 2}, {"inf", kInf}, {"0_5", 0.5}, {"3", 3}};
  for (const auto& [name, p] : ps) {
    const double pp = p;
    expect_golden("cdist_" + name, 2, [pp](auto& t) { return cdist(t[0], t[1], pp); });
  }
}

TEST(CdistTest, TakesTheMatrixProductPathForManyRows) {
  const Tensor x1 = in("cdist_mm", 0), x2 = in("cdist_mm", 1);
  EXPECT_TRUE(cdist_uses_mm(x1, x2, 2, "use_mm_for_euclid_dist_if_necessary"));
  EXPECT_FALSE(cdist_uses_mm(x1, x2, 2, "donot_use_mm_for_euclid_dist"));
  EXPECT_FALSE(cdist_uses_mm(x1.narrow(0, 0, 5), x2, 2, "use_mm_for_euclid_dist_if_necessary"));
  expect_golden("cdist_mm", 2, [](auto& t) { return cdist(t[0], t[1]); });
  EXPECT_TRUE(all_close(cdist(x1, x2, 2, "donot_use_mm_for_euclid_dist"), out("cdist_mm"), 1e-10,
                        1e-10));
}

TEST(CdistTest, BroadcastsBatchDims) {
  expect_golden("cdist_batch_broadcast", 2, [](auto& t) { return cdist(t[0], t[1], 1.5); });
}

TEST(CdistTest, OfEmptyInputs) {
  EXPECT_EQ(cdist(zeros({0, 3}), zeros({2, 3})).sizes(), IntArrayRef({0, 2}));
  EXPECT_TRUE(all_close(cdist(zeros({2, 0}), zeros({2, 0})), zeros({2, 2})));
}

TEST(CdistTest, RejectsBadInputs) {
  EXPECT_THROW_MSG(cdist(zeros({3}), zeros({3})),
                   "cdist only supports at least 2D tensors, X1 got: 1D");
  EXPECT_THROW_MSG(cdist(zeros({2, 3}), zeros({2, 4})),
                   "X1 and X2 must have the same number of columns. X1: 3 X2: 4");
  EXPECT_THROW_MSG(cdist(zeros({2, 3}), zeros({2, 3}), -1),
                   "cdist only supports non-negative p values");
  EXPECT_THROW_MSG(cdist(zeros({2, 3}, kInt64), zeros({2, 3}, kInt64)),
                   "cdist only supports floating-point dtypes, X1 got: Long");
  EXPECT_THROW_MSG(cdist(zeros({2, 3}), zeros({2, 3}), 2, "bad"),
                   "bad is not a valid value for compute_mode");
}

TEST(CdistTest, RejectsMixedDtypes) {
  EXPECT_THROW_MSG(cdist(zeros({2, 3}), zeros({2, 3}, kFloat64)),
                   "cdist: expected scalar type Float but found Double");
}

TEST(CdistTest, RejectsBatchDimsThatDoNotBroadcast) {
  EXPECT_THROW_MSG(cdist(zeros({2, 2, 3}), zeros({3, 2, 3})),
                   "The size of tensor a (2) must match the size of tensor b (3) at "
                   "non-singleton dimension 0");
}

TEST(CdistTest, OnNonContiguousInputs) {
  for (double p : {1.0, 2.0, 3.0}) {
    const Tensor x1 = in("cdist_mm", 0), x2 = in("cdist_mm", 1);
    const Tensor expected = cdist(x1, x2, p, "donot_use_mm_for_euclid_dist");
    EXPECT_TRUE(all_close(cdist(testing::transposed_copy(x1), testing::strided_copy(x2), p,
                                "donot_use_mm_for_euclid_dist"),
                          expected, 1e-12, 1e-12))
        << p;
  }
}

}  // namespace
}  // namespace torchlet
