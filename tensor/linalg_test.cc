#include "tensor/linalg.h"

#include <cmath>

#include "gtest/gtest.h"
#include "tensor/tensor.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::all_close;

// The reference: a triple loop in double precision.
Tensor naive_mm(const Tensor& a, const Tensor& b) {
  const std::vector<double> av = testing::values(a), bv = testing::values(b);
  const int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  std::vector<double> c(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j) c[i * n + j] += av[i * k + p] * bv[p * n + j];
  return from_vector(c, {m, n});
}

TEST(LinalgTest, MmMatchesTheReferenceForManyShapes) {
  manual_seed(1);
  for (auto [m, k, n] : {std::tuple{1, 1, 1}, {3, 5, 2}, {17, 33, 9}, {64, 128, 96}, {300, 70, 257}}) {
    Tensor a = randn({m, k}), b = randn({k, n});
    EXPECT_TRUE(all_close(mm(a, b), naive_mm(a, b), 1e-4, 1e-4)) << m << "x" << k << "x" << n;
  }
}

TEST(LinalgTest, MmOnNonContiguousOperands) {
  manual_seed(2);
  Tensor a = randn({8, 6}), b = randn({6, 5});
  const Tensor expected = naive_mm(a, b);
  EXPECT_TRUE(all_close(mm(testing::transposed_copy(a), b), expected, 1e-5, 1e-5));
  EXPECT_TRUE(all_close(mm(a, testing::strided_copy(b)), expected, 1e-5, 1e-5));
  Tensor row = randn({1, 6});
  EXPECT_TRUE(all_close(mm(row.expand({8, 6}), b), naive_mm(row.expand({8, 6}).contiguous(), b),
                        1e-5, 1e-5));
}

TEST(LinalgTest, MmReadsBroadcastOperandsInPlaceWithTheSameResult) {
  manual_seed(5);
  // Large enough to split across threads; each broadcast layout (a row
  // repeated, a column repeated, one value everywhere) on either side.
  set_num_threads(2);
  const Tensor a = randn({96, 70}), b = randn({70, 130});
  const std::vector<Tensor> lefts = {randn({1, 70}).expand({96, 70}),
                                     randn({96, 1}).expand({96, 70}),
                                     randn({1, 1}).expand({96, 70}),
                                     randn({70, 1}).expand({70, 96}).t()};
  const std::vector<Tensor> rights = {randn({1, 130}).expand({70, 130}),
                                      randn({70, 1}).expand({70, 130}),
                                      randn({}).expand({70, 130}),
                                      randn({1, 70}).expand({130, 70}).t()};
  for (const Tensor& l : lefts) {
    EXPECT_TRUE(all_close(mm(l, b), naive_mm(l.contiguous(), b), 1e-4, 1e-4))
        << shape_str(l.strides());
  }
  for (const Tensor& r : rights) {
    EXPECT_TRUE(all_close(mm(a, r), naive_mm(a, r.contiguous()), 1e-4, 1e-4))
        << shape_str(r.strides());
  }
  Tensor bias = randn({130});
  EXPECT_TRUE(all_close(addmm(bias, lefts[2], rights[0]),
                        add(naive_mm(lefts[2].contiguous(), rights[0].contiguous()), bias),
                        1e-4, 1e-4));
  set_num_threads(0);
}

// Note [Small products without blocking]: every width of the register
// tiles (n from 1 to 37 columns, m not a multiple of 4), B's rows contiguous
// or strided, A in either layout, in float and double.
TEST(LinalgTest, SmallProductsMatchTheReferenceInEveryLayout) {
  manual_seed(6);
  for (DType dtype : {kFloat32, kFloat64}) {
    for (int64_t m : {1, 3, 4, 7, 9}) {
      for (int64_t n : {1, 2, 3, 4, 5, 8, 9, 15, 16, 17, 31, 33, 37}) {
        for (int64_t k : {1, 6, 16}) {
          const Tensor a = randn({m, k}).to(dtype), b = randn({k, n}).to(dtype);
          const Tensor expected = naive_mm(a, b);
          const Tensor a_col = testing::transposed_copy(a), b_col = testing::transposed_copy(b);
          for (const Tensor& l : {a, a_col}) {
            for (const Tensor& r : {b, b_col, testing::strided_copy(b)}) {
              EXPECT_TRUE(all_close(mm(l, r), expected, 1e-5, 1e-5))
                  << dtype << " " << m << "x" << k << "x" << n << " strides "
                  << shape_str(l.strides()) << " " << shape_str(r.strides());
            }
          }
          const Tensor bias = randn({n}).to(dtype);
          EXPECT_TRUE(all_close(addmm(bias, a, b_col), add(expected, bias), 1e-5, 1e-5));
          EXPECT_TRUE(all_close(addmm(bias, a, b, 0.5), add(expected, mul(bias, 0.5)), 1e-5, 1e-5));
        }
      }
    }
  }
}

TEST(LinalgTest, MmInFloat64IsExactForIntegers) {
  Tensor a = arange(6, kFloat64).view({2, 3}), b = arange(6, kFloat64).view({3, 2});
  EXPECT_EQ(testing::values(mm(a, b)), (std::vector<double>{10, 13, 28, 40}));
}

TEST(LinalgTest, LargeMmSplitsAcrossThreads) {
  manual_seed(3);
  Tensor a = randn({513, 200}), b = randn({200, 129});
  Tensor short_a = a.narrow(0, 0, 40), wide_b = randn({200, 700});
  // Two threads whatever the machine's cores; mm's only parallel loop is the
  // GEMM split, so a chunk run by a pool worker means the product was split.
  set_num_threads(2);
  int64_t chunks_before = detail::pool_chunks_run();
  Tensor by_rows = mm(a, b);  // tall: a block of rows per thread
  const int64_t row_worker_chunks = detail::pool_chunks_run() - chunks_before;
  chunks_before = detail::pool_chunks_run();
  Tensor by_columns = mm(short_a, wide_b);  // too few rows: a block of columns per thread
  const int64_t column_worker_chunks = detail::pool_chunks_run() - chunks_before;
  set_num_threads(0);
  EXPECT_GT(row_worker_chunks, 0);
  EXPECT_GT(column_worker_chunks, 0);
  EXPECT_TRUE(all_close(by_rows, naive_mm(a, b), 1e-4, 1e-4));
  EXPECT_TRUE(all_close(by_columns, naive_mm(short_a, wide_b), 1e-4, 1e-4));
}

TEST(LinalgTest, EmptyInnerDimensionGivesZeros) {
  EXPECT_EQ(testing::values(mm(zeros({2, 0}), zeros({0, 3}))), std::vector<double>(6, 0.0));
  EXPECT_EQ(mm(zeros({0, 4}), zeros({4, 3})).sizes(), IntArrayRef({0, 3}));
}

TEST(LinalgTest, MmErrorsNameShapesAndDtypes) {
  EXPECT_THROW_MSG(mm(zeros({2, 3}), zeros({4, 5})),
                   "mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
  EXPECT_THROW_MSG(mm(zeros({2}), zeros({2, 2})), "mm: self must be a 2-D tensor, got a 1-D tensor");
  EXPECT_THROW_MSG(mm(zeros({2, 2}), zeros({2, 2}, kFloat64)),
                   "mm: expected both operands to have the same dtype, but got float32 and float64");
  EXPECT_THROW_MSG(mm(ones({2, 2}, kInt64), ones({2, 2}, kInt64)),
                   "mm: only float32 and float64 are supported, got int64");
}

TEST(LinalgTest, AddmmScalesAndBroadcastsSelf) {
  Tensor a = arange(4, kFloat32).view({2, 2}), b = eye(2);
  Tensor out = addmm(tensor({1.0, 2.0}), a, b, 0.5, 2.0);
  EXPECT_EQ(testing::values(out), (std::vector<double>{0.5, 3, 4.5, 7}));
  Tensor nan_self = full({2, 2}, NAN);
  EXPECT_EQ(testing::values(addmm(nan_self, a, b, 0, 1)), (std::vector<double>{0, 1, 2, 3}));
}

// A contiguous 1-D self on a small output is copied row by row; a strided
// one, a single element or a large output take the broadcasting copy. All
// give self broadcast over every row, plus the product.
TEST(LinalgTest, AddmmBroadcastsAOneDimensionalSelfOverEveryRowWhateverItsLayout) {
  manual_seed(5);
  for (int64_t rows : {int64_t{3}, int64_t{300}}) {
    const Tensor a = randn({rows, 4}), b = randn({4, 200});
    const Tensor product = mm(a, b);
    const Tensor bias = randn({200});
    const Tensor strided = randn({400}).slice(0, 0, 400, 2);
    for (const Tensor& self : {bias, strided, randn({1})}) {
      const Tensor expected = product + self.expand({rows, 200});
      EXPECT_TRUE(testing::all_close(addmm(self, a, b), expected, 1e-5, 1e-5))
          << "rows " << rows << ", self " << shape_str(self.sizes());
    }
  }
}

TEST(LinalgTest, AddmmRefusesSelfOfAnotherDtype) {
  const Tensor m = ones({2, 2});
  EXPECT_THROW_MSG(addmm(ones({2, 2}, kFloat64), m, m),
                   "addmm: self and mat2 must have the same dtype, but got float64 and float32");
}

TEST(LinalgTest, BmmAndBaddbmm) {
  manual_seed(4);
  Tensor a = randn({3, 4, 5}), b = randn({3, 5, 2});
  Tensor c = bmm(a, b);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(all_close(c[i], naive_mm(a[i], b[i]), 1e-5, 1e-5));
  Tensor d = baddbmm(ones({4, 2}), a, b, 1, 1);
  EXPECT_TRUE(all_close(d, c + 1, 1e-5, 1e-5));
  EXPECT_THROW_MSG(bmm(a, randn({2, 5, 2})), "bmm: batch1 and batch2 must have same number of batches");
  EXPECT_THROW_MSG(bmm(a, randn({3, 4, 2})), "bmm: Expected size for first two dimensions of batch2");
}

// Each product of a batch the kernel reads in place (row- or column-major
// matrices, a batch broadcast with stride 0) is the same bits as mm of its
// matrices; a batch it cannot read in place (every other column) too.
TEST(LinalgTest, BmmOfEveryLayoutEqualsMmOfEachProduct) {
  manual_seed(7);
  for (DType dtype : {kFloat32, kFloat64}) {
    const Tensor base = randn({5, 13, 9}, dtype);
    const std::vector<Tensor> lefts{
        base, randn({5, 9, 13}, dtype).transpose(1, 2), randn({1, 13, 9}, dtype).expand({5, 13, 9}),
        randn({5, 13, 18}, dtype).slice(2, 0, 18, 2)};
    const std::vector<Tensor> rights{
        randn({5, 9, 40}, dtype), randn({5, 40, 9}, dtype).transpose(1, 2),
        randn({1, 9, 40}, dtype).expand({5, 9, 40}), randn({5, 9, 80}, dtype).slice(2, 0, 80, 2)};
    for (size_t l = 0; l < lefts.size(); ++l) {
      for (size_t r = 0; r < rights.size(); ++r) {
        const Tensor c = bmm(lefts[l], rights[r]);
        const Tensor d = baddbmm(ones({13, 40}, dtype), lefts[l], rights[r], 0.5, -2);
        for (int64_t i = 0; i < 5; ++i) {
          const Tensor want = mm(lefts[l][i], rights[r][i]);
          EXPECT_TRUE(equal(c[i], want)) << dtype << " layouts " << l << ", " << r << ", batch " << i;
          EXPECT_TRUE(all_close(d[i], want * -2 + 0.5, 1e-6, 1e-6))
              << dtype << " layouts " << l << ", " << r << ", batch " << i;
        }
      }
    }
  }
}

TEST(LinalgTest, MatmulFollowsPyTorchShapeRules) {
  manual_seed(5);
  Tensor v = randn({4}), m = randn({4, 3}), b3 = randn({2, 5, 4});
  EXPECT_EQ(matmul(v, v).dim(), 0);
  EXPECT_EQ(matmul(v, m).sizes(), IntArrayRef({3}));
  EXPECT_EQ(matmul(m.t(), v).sizes(), IntArrayRef({3}));
  EXPECT_EQ(matmul(b3, m).sizes(), IntArrayRef({2, 5, 3}));
  EXPECT_EQ(matmul(b3, v).sizes(), IntArrayRef({2, 5}));
  EXPECT_EQ(matmul(v, randn({2, 4, 3})).sizes(), IntArrayRef({2, 3}));
  EXPECT_TRUE(all_close(matmul(b3, m)[1], naive_mm(b3[1], m), 1e-5, 1e-5));
}

TEST(LinalgTest, MatmulBroadcastsBatchDims) {
  manual_seed(6);
  Tensor a = randn({2, 1, 3, 4}), b = randn({5, 4, 2});
  Tensor c = matmul(a, b);
  EXPECT_EQ(c.sizes(), IntArrayRef({2, 5, 3, 2}));
  EXPECT_TRUE(all_close(c[1][3], naive_mm(a[1][0], b[3]), 1e-5, 1e-5));
  EXPECT_THROW_MSG(matmul(randn({2, 3, 4}), randn({3, 5, 2})), "matmul: The size of tensor a (2)");
}

TEST(LinalgTest, MatmulOfZeroDimIsAnError) {
  EXPECT_THROW_MSG(matmul(scalar_tensor(1.0), randn({2, 2})),
                   "matmul: both arguments to matmul need to be at least 1D, but they are 0D and 2D");
}

TEST(LinalgTest, MvDotOuter) {
  Tensor m = arange(6, kFloat32).view({2, 3}), v = tensor({1.0f, 0.0f, -1.0f});
  EXPECT_EQ(testing::values(mv(m, v)), (std::vector<double>{-2, -2}));
  EXPECT_EQ(dot(v, v).item<float>(), 2.0f);
  EXPECT_EQ(testing::values(outer(tensor({1, 2}), tensor({3, 4}))), (std::vector<double>{3, 4, 6, 8}));
  EXPECT_THROW_MSG(dot(v, tensor({1.0f})), "dot: inconsistent tensor size");
  EXPECT_THROW_MSG(mv(m, tensor({1.0f})),
                   "mv: size mismatch, got input (2), mat (2x3), vec (1)");
}

TEST(LinalgTest, DotRejectsNon1DOperands) {
  EXPECT_THROW_MSG(dot(ones({2, 2}), ones({2})),
                   "dot: 1D tensors expected, but got 2D and 1D tensors");
}

TEST(LinalgTest, OuterRejectsNon1DOperands) {
  EXPECT_THROW_MSG(outer(ones({2}), ones({2, 2})),
                   "outer: expected 1D tensors, but got 1D and 2D tensors");
}

TEST(LinalgTest, ProductsStayOnTheirVirtualDevice) {
  set_cpu_device_count(2);
  Tensor a = ones({3, 3}, Device("cpu:1"));
  EXPECT_EQ(mm(a, a).device(), Device("cpu:1"));
  EXPECT_THROW_MSG(mm(a, ones({3, 3})), "mm: Expected all tensors to be on the same device");
  set_cpu_device_count(1);
}

}  // namespace
}  // namespace torchlet
