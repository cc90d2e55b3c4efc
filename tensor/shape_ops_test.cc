#include "tensor/shape_ops.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/tensor.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::all_close;
using testing::values;
using Vec = std::vector<double>;

// Golden results exported from PyTorch by tools/gen_shape_ops_golden.py.
const testing::GoldenFile& golden() {
  return testing::GoldenFile::get("tensor/testdata/shape_ops_golden.txt");
}

// The generator's inputs (see its docstring).
struct Inputs {
  Tensor x, b, v, n, src, src2;
};

// Layout 0: contiguous; 1: transposed copies (the first and last dims
// swapped in memory); 2: step-sliced copies; 3: float64 (floating inputs).
Tensor lay(const Tensor& t, int layout) {
  switch (layout) {
    case 1:
      return t.dim() < 2 ? testing::strided_copy(t)
                         : t.transpose(0, -1).contiguous().transpose(0, -1);
    case 2:
      return testing::strided_copy(t);
    case 3:
      return t.is_floating_point() ? t.to(kFloat64) : t;
    default:
      return t;
  }
}

Inputs inputs(int layout) {
  std::vector<float> x, b;
  for (int i = 0; i < 12; ++i) x.push_back(((7 * i) % 12 - 5.5f) / 2);
  for (int i = 0; i < 24; ++i) b.push_back(((5 * i) % 24 - 11) / 4.0f);
  return {lay(from_vector(x, {3, 4}), layout),
          lay(from_vector(b, {2, 3, 4}), layout),
          lay(tensor({1.5, -2.0, 3.0}), layout),
          lay(arange(12).view({3, 4}), layout),
          lay(arange(12, kFloat32).view({3, 4}) / 4 - 1, layout),
          lay(tensor({{1.0, -2.0}, {0.5, 4.0}, {-3.0, 2.5}}), layout)};
}

using Case = std::function<Tensor(const Inputs&)>;

// Checks each named case on every layout against its golden result.
void expect_golden(const std::map<std::string, Case>& cases) {
  for (int layout = 0; layout < 4; ++layout) {
    const Inputs in = inputs(layout);
    for (const auto& [name, fn] : cases) {
      ASSERT_TRUE(golden().has(name)) << name;
      const Tensor result = fn(in);
      EXPECT_TRUE(all_close(result, golden().at(name))) << name << " layout " << layout;
    }
  }
}

TEST(ShapeOpsGoldenTest, TrianglesMatchPyTorch) {
  expect_golden({
      {"tril", [](const Inputs& in) { return in.x.tril(); }},
      {"tril_1", [](const Inputs& in) { return in.x.tril(1); }},
      {"tril_m1", [](const Inputs& in) { return tril(in.x, -1); }},
      {"tril_10", [](const Inputs& in) { return in.x.tril(10); }},
      {"tril_m10", [](const Inputs& in) { return in.x.tril(-10); }},
      {"triu", [](const Inputs& in) { return in.x.triu(); }},
      {"triu_2", [](const Inputs& in) { return triu(in.x, 2); }},
      {"triu_m1", [](const Inputs& in) { return in.x.triu(-1); }},
      {"tril_b_1", [](const Inputs& in) { return in.b.tril(1); }},
      {"triu_b_m2", [](const Inputs& in) { return in.b.triu(-2); }},
      {"tril_t", [](const Inputs& in) { return in.x.t().tril(-1); }},
      {"tril_n", [](const Inputs& in) { return in.n.tril(1); }},
  });
}

TEST(ShapeOpsGoldenTest, TriangleIndicesMatchPyTorch) {
  expect_golden({
      {"tril_indices_4_3_1", [](const Inputs&) { return tril_indices(4, 3, 1); }},
      {"triu_indices_3_4_m1", [](const Inputs&) { return triu_indices(3, 4, -1); }},
      {"tril_indices_3_3", [](const Inputs&) { return tril_indices(3, 3); }},
      {"triu_indices_4_4_2", [](const Inputs&) { return triu_indices(4, 4, 2); }},
  });
}

TEST(ShapeOpsGoldenTest, FlipsRollsAndRotationsMatchPyTorch) {
  expect_golden({
      {"flip_0", [](const Inputs& in) { return in.x.flip({0}); }},
      {"flip_01",
       [](const Inputs& in) {
         return flip(in.x, {0, 1});
       }},
      {"flip_b_m1_0",
       [](const Inputs& in) {
         return in.b.flip({-1, 0});
       }},
      {"fliplr", [](const Inputs& in) { return fliplr(in.x); }},
      {"flipud", [](const Inputs& in) { return in.x.flipud(); }},
      {"flip_n", [](const Inputs& in) { return in.n.flip({1}); }},
      {"roll_1_0", [](const Inputs& in) { return in.x.roll(1, 0); }},
      {"roll_m1_1", [](const Inputs& in) { return in.x.roll(-1, 1); }},
      {"roll_b_multi",
       [](const Inputs& in) {
         return roll(in.b, {1, -2}, {0, 2});
       }},
      {"roll_flat", [](const Inputs& in) { return in.x.roll(5); }},
      {"roll_same_dim",
       [](const Inputs& in) {
         return in.x.roll({1, 1}, {0, 0});
       }},
      {"roll_big", [](const Inputs& in) { return in.x.roll(13, 1); }},
      {"roll_n",
       [](const Inputs& in) {
         return in.n.roll({2, 1}, {1, 0});
       }},
      {"rot90_1", [](const Inputs& in) { return in.x.rot90(); }},
      {"rot90_2", [](const Inputs& in) { return rot90(in.x, 2); }},
      {"rot90_3", [](const Inputs& in) { return in.x.rot90(3); }},
      {"rot90_m1", [](const Inputs& in) { return in.x.rot90(-1); }},
      {"rot90_b_2_0",
       [](const Inputs& in) {
         return in.b.rot90(1, {2, 0});
       }},
  });
}

TEST(ShapeOpsGoldenTest, DiagonalsMatchPyTorch) {
  expect_golden({
      {"diagonal", [](const Inputs& in) { return in.x.diagonal(); }},
      {"diagonal_1", [](const Inputs& in) { return in.x.diagonal(1); }},
      {"diagonal_m2", [](const Inputs& in) { return diagonal(in.x, -2); }},
      {"diagonal_b_1_m1_0", [](const Inputs& in) { return in.b.diagonal(1, -1, 0); }},
      {"diagonal_b_m1_2_1", [](const Inputs& in) { return in.b.diagonal(-1, 2, 1); }},
      {"diag_v", [](const Inputs& in) { return in.v.diag(); }},
      {"diag_v_2", [](const Inputs& in) { return diag(in.v, 2); }},
      {"diag_v_m1", [](const Inputs& in) { return in.v.diag(-1); }},
      {"diag_x_1", [](const Inputs& in) { return in.x.diag(1); }},
      {"diag_x_m2", [](const Inputs& in) { return in.x.diag(-2); }},
      {"diag_embed", [](const Inputs& in) { return in.x.diag_embed(); }},
      {"diag_embed_1_0_2", [](const Inputs& in) { return diag_embed(in.x, 1, 0, 2); }},
      {"diag_embed_m1_2_0", [](const Inputs& in) { return in.x.diag_embed(-1, 2, 0); }},
      {"trace", [](const Inputs& in) { return in.x.trace(); }},
      {"trace_n", [](const Inputs& in) { return trace(in.n); }},
  });
}

TEST(ShapeOpsGoldenTest, RepeatsMatchPyTorch) {
  expect_golden({
      {"repeat_2_1",
       [](const Inputs& in) {
         return in.x.repeat({2, 1});
       }},
      {"repeat_2_1_3",
       [](const Inputs& in) {
         return in.x.repeat({2, 1, 3});
       }},
      {"repeat_b",
       [](const Inputs& in) {
         return in.b.repeat({1, 2, 1, 2});
       }},
      {"tile_2", [](const Inputs& in) { return in.x.tile({2}); }},
      {"tile_b",
       [](const Inputs& in) {
         return tile(in.b, {2, 1, 1, 2});
       }},
      {"repeat_n",
       [](const Inputs& in) {
         return in.n.repeat({2, 2});
       }},
      {"ri_2", [](const Inputs& in) { return in.x.repeat_interleave(2); }},
      {"ri_2_1", [](const Inputs& in) { return repeat_interleave(in.x, 2, 1); }},
      {"ri_t_0",
       [](const Inputs& in) {
         return in.x.repeat_interleave(tensor({1, 0, 2}), 0);
       }},
      {"ri_t_m1",
       [](const Inputs& in) {
         return in.x.repeat_interleave(tensor({2, 1, 0, 3}), -1);
       }},
      {"ri_t_flat",
       [](const Inputs& in) { return in.x.repeat_interleave(arange(12).remainder(3)); }},
      {"ri_index",
       [](const Inputs&) {
         return repeat_interleave(tensor({2, 0, 3}));
       }},
      {"ri_n", [](const Inputs& in) { return in.n.repeat_interleave(2, 0); }},
  });
}

TEST(ShapeOpsGoldenTest, MovedDimsAndGridsMatchPyTorch) {
  expect_golden({
      {"movedim_0_2", [](const Inputs& in) { return in.b.movedim(0, 2); }},
      {"movedim_list",
       [](const Inputs& in) {
         return movedim(in.b, {0, 1}, {2, 0});
       }},
      {"moveaxis_m1_0", [](const Inputs& in) { return in.b.moveaxis(-1, 0); }},
      {"meshgrid_ij_0",
       [](const Inputs&) {
         return meshgrid({tensor({1.0, 2.0, 3.0}), tensor({4.0, 5.0})}, "ij")[0];
       }},
      {"meshgrid_ij_1",
       [](const Inputs&) {
         return meshgrid({tensor({1.0, 2.0, 3.0}), tensor({4.0, 5.0})}, "ij")[1];
       }},
      {"meshgrid_xy_0",
       [](const Inputs&) {
         return meshgrid({tensor({1.0, 2.0, 3.0}), tensor({4.0, 5.0})}, "xy")[0];
       }},
      {"meshgrid_xy_1",
       [](const Inputs&) {
         return meshgrid({tensor({1.0, 2.0, 3.0}), tensor({4.0, 5.0})}, "xy")[1];
       }},
  });
}

TEST(ShapeOpsGoldenTest, SliceIndexOpsMatchPyTorch) {
  expect_golden({
      {"index_add_0",
       [](const Inputs& in) {
         return in.x.index_add(0, tensor({2, 0, 2}), in.src, 2);
       }},
      {"index_add_1",
       [](const Inputs& in) {
         return index_add(in.x, 1, tensor({3, 3}), in.src2);
       }},
      {"index_add_n",
       [](const Inputs& in) {
         return in.n.index_add(0, tensor({1, 1}), in.n.narrow(0, 0, 2) * 10);
       }},
      {"index_copy_1",
       [](const Inputs& in) {
         return in.x.index_copy(1, tensor({3, 0}), in.src2);
       }},
      {"index_copy_0",
       [](const Inputs& in) {
         return index_copy(in.x, 0, tensor({2, 0}), in.src.narrow(0, 0, 2));
       }},
      {"index_fill_0",
       [](const Inputs& in) {
         return in.x.index_fill(0, tensor({-1, 0}), -7.5);
       }},
      {"index_fill_1", [](const Inputs& in) { return index_fill(in.x, 1, tensor({2}), 9); }},
      {"index_fill_n",
       [](const Inputs& in) {
         return in.n.index_fill(1, tensor({0, 3}), -1);
       }},
      {"take_along_dim_1",
       [](const Inputs& in) { return in.x.take_along_dim(in.x.argsort(1), 1); }},
      {"take_along_dim_bcast",
       [](const Inputs& in) {
         return take_along_dim(in.x, tensor({{0}, {2}}), 0);
       }},
      {"take_along_dim_flat",
       [](const Inputs& in) {
         return in.x.take_along_dim(tensor({11, 0, 5}));
       }},
  });
}

// ---- Dtypes, views and in-place forms ---------------------------------------------------------

TEST(ShapeOpsTest, IntegerInputsKeepTheirDtype) {
  const Tensor n = arange(12).view({3, 4});
  EXPECT_EQ(n.tril().dtype(), kInt64);
  EXPECT_EQ(n.flip({0}).dtype(), kInt64);
  EXPECT_EQ(n.roll(1).dtype(), kInt64);
  EXPECT_EQ(n.repeat({2, 1}).dtype(), kInt64);
  EXPECT_EQ(n.to(kInt32).trace().dtype(), kInt64);  // trace sums, as PyTorch does
}

TEST(ShapeOpsTest, TriangleAndFlipMoveEveryElementSize) {
  const Tensor mask = tensor({{true, true}, {true, true}});
  EXPECT_EQ(values(mask.tril()), (Vec{1, 0, 1, 1}));
  const Tensor half = tensor({{1.0, 2.0}, {3.0, 4.0}}).to(kFloat16);
  EXPECT_EQ(values(half.triu()), (Vec{1, 2, 0, 4}));
  EXPECT_EQ(values(half.flip({0, 1})), (Vec{4, 3, 2, 1}));
  EXPECT_EQ(values(mask.logical_not().flip({1})), (Vec{0, 0, 0, 0}));
}

TEST(ShapeOpsTest, TriangleIndicesTakeDtypeOption) {
  const Tensor idx = tril_indices(3, 3, 0, kInt32);
  EXPECT_EQ(idx.dtype(), kInt32);
  EXPECT_EQ(values(idx), (Vec{0, 1, 1, 2, 2, 2, 0, 0, 1, 0, 1, 2}));
  EXPECT_EQ(tril_indices(3, 3, -5).sizes(), IntArrayRef({2, 0}));
  EXPECT_EQ(triu_indices(0, 0).sizes(), IntArrayRef({2, 0}));
}

TEST(ShapeOpsTest, InPlaceTriangleWritesThroughAStridedView) {
  Tensor base = arange(1, 10, 1, kFloat32).view({3, 3});
  Tensor view = base.t();
  const uint32_t version = base.version();
  Tensor& result = view.tril_();
  EXPECT_TRUE(result.is_same(view));
  EXPECT_EQ(values(base), (Vec{1, 2, 3, 0, 5, 6, 0, 0, 9}));
  EXPECT_GT(base.version(), version);
  view.triu_(1);
  EXPECT_EQ(values(base), (Vec{0, 0, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(ShapeOpsTest, InPlaceTriangleAcceptsAnExpandedTensor) {
  Tensor t = zeros({2, 3}).expand({3, 2, 3});
  t.tril_();
  EXPECT_EQ(values(t), Vec(18, 0.0));
}

TEST(ShapeOpsTest, LargeTrianglesAndFlipsMatchTheirComposition) {
  const Tensor big = arange(2 * 300 * 301, kFloat32).view({2, 300, 301});
  const Tensor rows = arange(300).view({300, 1}), cols = arange(301).view({1, 301});
  EXPECT_TRUE(all_close(big.tril(3), where(cols.sub(rows).le(3), big, zeros({}))));
  EXPECT_TRUE(all_close(big.triu(-2), where(cols.sub(rows).ge(-2), big, zeros({}))));
  EXPECT_TRUE(all_close(big.flip({2}), big.index_select(2, arange(300, -1, -1))));
  EXPECT_TRUE(all_close(
      big.transpose(1, 2).flip({0, 1}),
      big.transpose(1, 2).index_select(0, tensor({1, 0})).index_select(1, arange(300, -1, -1))));
}

// A flipped last dim reverses whole vectors of 4- and 8-byte elements at a
// time, then the row's tail one by one: rows of every length around the
// vector widths, in each dtype, against the gather of reversed indices.
TEST(ShapeOpsTest, FlippingTheLastDimReversesRowsOfEveryLengthAndDtype) {
  for (const DType dtype : {kFloat32, kInt32, kFloat64, kInt64, kFloat16, kUInt8}) {
    for (const int64_t n : {1, 3, 4, 7, 8, 9, 15, 16, 17, 33}) {
      const Tensor x = arange(3 * n, dtype).view({3, n});
      EXPECT_EQ(values(x.flip({1})), values(x.index_select(1, arange(n - 1, -1, -1))))
          << dtype << " rows of " << n;
    }
  }
}

TEST(ShapeOpsTest, DiagonalIsAViewWhoseWritesReachTheBase) {
  Tensor base = zeros({3, 4});
  Tensor d = base.diagonal(1);
  EXPECT_TRUE(d.shares_storage(base));
  EXPECT_EQ(d.sizes(), IntArrayRef({3}));
  EXPECT_EQ(d.strides(), IntArrayRef({5}));
  EXPECT_EQ(d.storage_offset(), 1);
  d.fill_(7);
  EXPECT_EQ(values(base), (Vec{0, 7, 0, 0, 0, 0, 7, 0, 0, 0, 0, 7}));
}

TEST(ShapeOpsTest, DiagonalOfSwappedDimsOfABatch) {
  const Tensor b = zeros({2, 3, 4});
  const Tensor d = b.diagonal(1, -1, 0);
  EXPECT_EQ(d.sizes(), IntArrayRef({3, 1}));
  EXPECT_EQ(d.strides(), IntArrayRef({4, 13}));
}

TEST(ShapeOpsTest, MovedimIsAView) {
  Tensor base = zeros({2, 3, 4});
  Tensor moved = base.movedim({0, 1}, {2, 0});
  EXPECT_EQ(moved.sizes(), IntArrayRef({3, 4, 2}));
  EXPECT_TRUE(moved.shares_storage(base));
  moved.select(2, 1).fill_(1);
  EXPECT_EQ(base.select(0, 1).sum().item<double>(), 12);
  EXPECT_EQ(base.sum().item<double>(), 12);
}

TEST(ShapeOpsTest, MeshgridGridsAreExpandedViews) {
  const Tensor a = tensor({1.0, 2.0, 3.0});
  const std::vector<Tensor> grids = meshgrid({a, tensor({4.0, 5.0})}, "ij");
  EXPECT_TRUE(grids[0].shares_storage(a));
  EXPECT_EQ(grids[0].strides(), IntArrayRef({1, 0}));
}

TEST(ShapeOpsTest, MeshgridWarnsWithoutIndexing) {
  testing::WarningCapture capture;
  const std::vector<Tensor> grids = meshgrid({tensor({1.0, 2.0}), tensor({3.0})});
  ASSERT_EQ(capture.messages().size(), 1u);
  EXPECT_EQ(capture.messages()[0],
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
            "argument.");
  EXPECT_EQ(grids[0].sizes(), IntArrayRef({2, 1}));
  meshgrid({tensor({1.0})}, "xy");
  EXPECT_EQ(capture.messages().size(), 1u);
}

TEST(ShapeOpsTest, MeshgridOfZeroDimAndXyIndexing) {
  const std::vector<Tensor> grids = meshgrid({scalar_tensor(2.0), tensor({1.0, 2.0, 3.0})}, "xy");
  EXPECT_EQ(grids[0].sizes(), IntArrayRef({3, 1}));
  EXPECT_EQ(values(grids[0]), (Vec{2, 2, 2}));
}

TEST(ShapeOpsTest, InPlaceIndexOpsWriteIntoSelf) {
  Tensor t = zeros({2, 3}).t();  // non-contiguous
  EXPECT_TRUE(t.index_fill_(0, tensor({1}), 5).is_same(t));
  EXPECT_EQ(values(t), (Vec{0, 0, 5, 5, 0, 0}));
  t.index_add_(1, tensor({0, 0}), ones({3, 2}), 0.5);
  EXPECT_EQ(values(t), (Vec{1, 0, 6, 5, 1, 0}));
  t.index_copy_(0, tensor({2}), full({1, 2}, -1.0));
  EXPECT_EQ(values(t), (Vec{1, 0, 6, 5, -1, -1}));
}

TEST(ShapeOpsTest, IndexAddConvertsAlphaToAnIntegerSelf) {
  EXPECT_EQ(values(arange(3).index_add(0, tensor({0}), ones({1}, kInt64), 2.5)), (Vec{2, 1, 2}));
}

TEST(ShapeOpsTest, ZeroDimInputs) {
  const Tensor s = scalar_tensor(3.0);
  EXPECT_EQ(s.flip({0}).item<double>(), 3);
  EXPECT_EQ(s.roll(1).item<double>(), 3);
  EXPECT_EQ(s.repeat({}).dim(), 0);
  EXPECT_EQ(values(s.repeat({2})), (Vec{3, 3}));
  EXPECT_EQ(s.tile({}).dim(), 0);
  EXPECT_EQ(values(s.repeat_interleave(3)), (Vec{3, 3, 3}));
  EXPECT_EQ(s.movedim(0, 0).dim(), 0);
  EXPECT_EQ(s.index_add(0, tensor({0}), scalar_tensor(2.0)).item<double>(), 5);
  EXPECT_EQ(s.index_fill(0, tensor({0}), 2).item<double>(), 2);
  EXPECT_EQ(s.index_copy(0, tensor({0}), scalar_tensor(4.0)).item<double>(), 4);
}

TEST(ShapeOpsTest, EmptyInputs) {
  const Tensor e = zeros({0, 3});
  EXPECT_EQ(e.tril().sizes(), IntArrayRef({0, 3}));
  EXPECT_EQ(e.flip({0, 1}).sizes(), IntArrayRef({0, 3}));
  EXPECT_EQ(e.roll(1, 0).sizes(), IntArrayRef({0, 3}));
  EXPECT_EQ(e.diagonal().sizes(), IntArrayRef({0}));
  EXPECT_EQ(e.repeat({2, 2}).sizes(), IntArrayRef({0, 6}));
  EXPECT_EQ(e.repeat_interleave(2, 1).sizes(), IntArrayRef({0, 6}));
  EXPECT_EQ(zeros({0}).diag().sizes(), IntArrayRef({0, 0}));
  EXPECT_EQ(zeros({3, 4}).diagonal(10).sizes(), IntArrayRef({0}));
  EXPECT_EQ(zeros({3, 4}).diagonal(-10).sizes(), IntArrayRef({0}));
  EXPECT_EQ(zeros({3, 4}).repeat({0, 2}).sizes(), IntArrayRef({0, 8}));
  EXPECT_EQ(zeros({3, 4}).repeat_interleave(0).sizes(), IntArrayRef({0}));
  EXPECT_EQ(values(ones({2}).index_add(0, empty({0}, kInt64), zeros({0}))), (Vec{1, 1}));
}

TEST(ShapeOpsTest, DiagOfAMatrixBeyondItsDiagonalsIsEmpty) {
  // PyTorch 1.13 fails here with "numel: integer multiplication overflow".
  EXPECT_EQ(zeros({3, 4}).diag(5).sizes(), IntArrayRef({0}));
}

TEST(ShapeOpsTest, RepeatInterleaveWithOneRepeatCopies) {
  const Tensor t = tensor({1.0, 2.0});
  const Tensor r = t.repeat_interleave(1, 0);
  EXPECT_FALSE(r.shares_storage(t));
  EXPECT_EQ(values(t.repeat_interleave(tensor({3}), 0)), (Vec{1, 1, 1, 2, 2, 2}));
  EXPECT_EQ(values(t.repeat_interleave(tensor({1, 2}), 0, 3)), (Vec{1, 2, 2}));
  EXPECT_EQ(repeat_interleave(tensor({1, 2}).to(kInt32)).dtype(), kInt32);
}

// ---- Errors -----------------------------------------------------------------------------------

TEST(ShapeOpsErrorTest, Triangles) {
  EXPECT_THROW_MSG(zeros({3}).tril(),
                   "Dimension out of range (expected to be in range of [-1, 0], but got -2)");
  EXPECT_THROW_MSG(scalar_tensor(1.0).triu_(),
                   "Dimension specified as -2 but tensor has no dimensions");
  EXPECT_THROW_MSG(tril_indices(-1, 3), "tril_indices: row must be non-negative, got-1");
  EXPECT_THROW_MSG(triu_indices(3, -1), "triu_indices: col must be non-negative, got-1");
  EXPECT_THROW_MSG(tril_indices(3, 3, 0, kFloat32),
                   "\"tril_indices\" not implemented for 'float32'");
}

TEST(ShapeOpsErrorTest, FlipsRollsAndRotations) {
  const Tensor x = zeros({3, 4});
  EXPECT_THROW_MSG(x.flip({0, -2}), "dim 0 appears multiple times in the list of dims");
  EXPECT_THROW_MSG(x.flip({2}), "Dimension out of range");
  EXPECT_THROW_MSG(zeros({3}).fliplr(), "Input must be >= 2-d.");
  EXPECT_THROW_MSG(scalar_tensor(1.0).flipud(), "Input must be >= 1-d.");
  EXPECT_THROW_MSG(x.roll({1, 2}, {0}),
                   "roll: shifts and dimensions must align. shifts: 2, dims:1");
  EXPECT_THROW_MSG(x.roll({1, 2}),
                   "roll: shifts and dimensions must align. shifts: 2, dims:0");
  EXPECT_THROW_MSG(x.roll(IntArrayRef{}, IntArrayRef{}), "roll: `shifts` required");
  EXPECT_THROW_MSG(x.roll(1, 5), "Dimension out of range");
  EXPECT_THROW_MSG(scalar_tensor(1.0).roll(1, 0),
                   "Dimension specified as 0 but tensor has no dimensions");
  EXPECT_THROW_MSG(x.rot90(1, {0}), "rot90: expected total rotation dims == 2, but got dims = 1");
  EXPECT_THROW_MSG(zeros({3}).rot90(), "rot90: expected total dims >= 2, but got total dims = 1");
  EXPECT_THROW_MSG(x.rot90(1, {0, -2}),
                   "rot90: expected rotation dims to be different, but got dim0 = 0 and dim1 = -2");
  EXPECT_THROW_MSG(x.rot90(2, {0, 5}), "rot90: Rotation dim1 out of range, dim1 = 5");
}

TEST(ShapeOpsErrorTest, Diagonals) {
  const Tensor x = zeros({3, 4});
  EXPECT_THROW_MSG(x.diagonal(0, 0, -2), "diagonal: diagonal dimensions cannot be identical 0, -2");
  EXPECT_THROW_MSG(zeros({3}).diagonal(),
                   "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
  EXPECT_THROW_MSG(zeros({2, 2, 2}).diag(),
                   "diag(): Supports 1D or 2D tensors. Got 3D (matrix or a vector expected)");
  EXPECT_THROW_MSG(scalar_tensor(1.0).diag(),
                   "diag(): Supports 1D or 2D tensors. Got 0D (matrix or a vector expected)");
  EXPECT_THROW_MSG(zeros({3}).diag_embed(0, 0, 0),
                   "diag_embed: diagonal dimensions cannot be identical 0, 0");
  EXPECT_THROW_MSG(zeros({3}).trace(), "trace: expected a matrix, but got tensor with dim 1");
}

TEST(ShapeOpsErrorTest, Repeats) {
  const Tensor x = zeros({3, 4});
  EXPECT_THROW_MSG(
      x.repeat({2}),
      "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  EXPECT_THROW_MSG(x.repeat({-1, 1}),
                   "Trying to create tensor with negative dimension -3: [-3, 4]");
  EXPECT_THROW_MSG(x.tile({-1}), "Trying to create tensor with negative dimension -4: [3, -4]");
  EXPECT_THROW_MSG(x.repeat_interleave(-1), "repeat_interleave: repeats can not be negative");
  EXPECT_THROW_MSG(x.repeat_interleave(tensor({1, -2, 3}), 0),
                   "repeat_interleave: repeats can not be negative");
  EXPECT_THROW_MSG(x.repeat_interleave(tensor({1, 2}), 0),
                   "repeat_interleave: repeats must have the same size as input along dim");
  EXPECT_THROW_MSG(x.repeat_interleave(tensor({{1, 2, 3}}), 0),
                   "repeat_interleave: repeats must be 0-dim or 1-dim tensor");
  EXPECT_THROW_MSG(x.repeat_interleave(tensor({1.0, 2.0, 3.0}), 0),
                   "repeat_interleave: repeats must be an int64 or int32 tensor, got float32");
  EXPECT_THROW_MSG(x.repeat_interleave(2, 0, 5),
                   "repeat_interleave: allocated size does not match required size");
  EXPECT_THROW_MSG(x.repeat_interleave(tensor({1, 2, 3}), 0, 5),
                   "repeat_interleave: allocated size does not match required size");
  EXPECT_THROW_MSG(repeat_interleave(tensor({{1, 2}})),
                   "repeat_interleave: repeat_interleave only accept 1D vector as repeat");
  EXPECT_THROW_MSG(scalar_tensor(1.0).repeat_interleave(3, 0),
                   "Dimension specified as 0 but tensor has no dimensions");
}

TEST(ShapeOpsErrorTest, MovedimAndMeshgrid) {
  const Tensor x = zeros({3, 4});
  EXPECT_THROW_MSG(x.movedim({0, 1}, {1}),
                   "movedim: Invalid source or destination dims: source ([0, 1] dims) should "
                   "contain the same number of dims as destination ([1] dims)");
  EXPECT_THROW_MSG(x.movedim({0, -2}, {1, 0}), "movedim: repeated dim in `source` ([0, -2])");
  EXPECT_THROW_MSG(x.movedim({0, 1}, {1, 1}), "movedim: repeated dim in `destination` ([1, 1])");
  EXPECT_THROW_MSG(x.movedim(0, 5), "Dimension out of range");
  EXPECT_THROW_MSG(meshgrid({}, "ij"), "meshgrid: meshgrid expects a non-empty TensorList");
  EXPECT_THROW_MSG(meshgrid({x}, "ij"),
                   "torch.meshgrid: Expected 0D or 1D tensor in the tensor list");
  EXPECT_THROW_MSG(meshgrid({zeros({2}), zeros({2}, kFloat64)}, "ij"),
                   "meshgrid: meshgrid expects all tensors to have the same dtype");
  EXPECT_THROW_MSG(meshgrid({zeros({2})}, "foo"),
                   "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: foo");
}

TEST(ShapeOpsErrorTest, MeshgridOnTwoDevices) {
  set_cpu_device_count(2);
  EXPECT_THROW_MSG(meshgrid({zeros({2}), zeros({2}, Device(kCPU, 1))}, "ij"),
                   "meshgrid: meshgrid expects all tensors to have the same device");
  set_cpu_device_count(1);
}

TEST(ShapeOpsErrorTest, RepeatInterleaveOfRepeatsAlone) {
  EXPECT_THROW_MSG(repeat_interleave(tensor({1.0, 2.0})),
                   "repeat_interleave: repeats must be an int64 or int32 tensor, got float32");
  EXPECT_THROW_MSG(repeat_interleave(tensor({1, -2})),
                   "repeat_interleave: repeats can not be negative");
  EXPECT_THROW_MSG(repeat_interleave(tensor({1, 2}), std::optional<int64_t>(4)),
                   "repeat_interleave: allocated size does not match required size");
}

TEST(ShapeOpsErrorTest, Rot90DimOutOfRange) {
  EXPECT_THROW_MSG(zeros({3, 4}).rot90(1, {5, 0}), "rot90: Rotation dim0 out of range, dim0 = 5");
}

TEST(ShapeOpsErrorTest, IndexAdd) {
  const Tensor x = zeros({3, 4});
  EXPECT_THROW_MSG(x.index_add(0, tensor({0.0}), ones({1, 4})),
                   "index_add_(): Expected dtype int32/int64 for index but got: float32");
  EXPECT_THROW_MSG(x.index_add(0, tensor({{0}}), ones({1, 4})),
                   "index_add_(): Index is supposed to be a vector, but got dim: 2");
  EXPECT_THROW_MSG(x.index_add(0, tensor({5}), ones({1, 4})), "index out of range in self");
  EXPECT_THROW_MSG(x.index_add(0, tensor({-1}), ones({1, 4})), "index out of range in self");
  EXPECT_THROW_MSG(
      x.index_add(0, tensor({0}), ones({1, 4}, kFloat64)),
      "index_add_(): self (float32) and source (float64) must have the same scalar type");
  EXPECT_THROW_MSG(
      x.index_add(0, tensor({0, 1}), ones({1, 4})),
      "index_add_(): Number of indices (2) should be equal to source.size(dim): (1), for dim: 0");
  EXPECT_THROW_MSG(x.index_add(0, tensor({0}), ones({1, 3})),
                   "index_add_(): source [1, 3] and self [3, 4] must match in every dimension "
                   "apart from dimension 0");
  EXPECT_THROW_MSG(x.index_add(2, tensor({0}), ones({1, 4})), "Dimension out of range");
}

TEST(ShapeOpsErrorTest, IndexCopyAndIndexFill) {
  const Tensor x = zeros({3, 4});
  EXPECT_THROW_MSG(
      x.index_copy(0, tensor({0}), ones({1, 3})),
      "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice "
      "shape: 4 at dimension 0 and source slice shape: 3 at dimension 0.");
  EXPECT_THROW_MSG(x.index_copy(0, tensor({0.0}), ones({1, 4})),
                   "index_copy_(): Expected a long tensor for index, but got float32");
  EXPECT_THROW_MSG(x.index_copy(0, tensor({5}), ones({1, 4})),
                   "index_copy_(): index 5 is out of bounds for dimension 0 with size 3");
  EXPECT_THROW_MSG(x.index_copy(0, tensor({0}), ones({1, 4}, kFloat64)),
                   "index_copy_(): self and source expected to have the same dtype, but got (self) "
                   "float32 and (source) float64");
  EXPECT_THROW_MSG(x.index_copy(0, tensor({0, 1}), ones({1, 4})),
                   "index_copy_(): Number of indices (2) should be equal to source.size(dim) (1)");
  EXPECT_THROW_MSG(x.index_copy(0, tensor({{0}}), ones({1, 4})),
                   "index_copy_(): Index should have dimension 1 or 0 (got 2)");
  EXPECT_THROW_MSG(x.index_fill(0, tensor({0.0}), 1),
                   "index_fill_(): Expected dtype int64 for index.");
  EXPECT_THROW_MSG(x.index_fill(0, tensor({{0}}), 1),
                   "index_fill_(): Index has to be a vector/scalar");
  EXPECT_THROW_MSG(x.index_fill(0, tensor({-4}), 1),
                   "index -4 is out of bounds for dimension 0 with size 3");
  EXPECT_THROW_MSG(zeros({3}).expand({2, 3}).index_fill_(1, tensor({0}), 1), "index_fill_");
}

TEST(ShapeOpsErrorTest, TakeAlongDim) {
  const Tensor x = zeros({3, 4});
  EXPECT_THROW_MSG(x.take_along_dim(tensor({{0.0}}), 0),
                   "torch.take_along_dim(): dtype of indices should be Long but got float32");
  EXPECT_THROW_MSG(x.take_along_dim(tensor({0}), 0),
                   "torch.take_along_dim(): input and indices should have the same number of "
                   "dimensions, but got 2 dimensions for input, and 1 dimensions for indices");
  EXPECT_THROW_MSG(x.take_along_dim(tensor({{5}}), 0),
                   "index 5 is out of bounds for dimension 0 with size 3");
  EXPECT_THROW_MSG(x.take_along_dim(tensor({20})),
                   "index 20 is out of bounds for dimension 0 with size 12");
  EXPECT_THROW_MSG(
      x.take_along_dim(tensor({{0, 0}}), 0),
      "The size of tensor a (4) must match the size of tensor b (2) at non-singleton dimension 1");
}

}  // namespace
}  // namespace torchlet
