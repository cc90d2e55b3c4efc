#include "tensor/index_ops.h"

#include <functional>
#include <map>

#include "gtest/gtest.h"
#include "tensor/tensor.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::all_close;
using testing::values;
using Vec = std::vector<double>;

// Golden results exported from PyTorch by tools/gen_index_golden.py.
const testing::GoldenFile& golden() {
  return testing::GoldenFile::get("tensor/testdata/index_golden.txt");
}

// The generator's inputs: x is 4x5 float32, x.flatten()[i] = ((7 * i) % 20 - 9.5) / 2;
// the rest are the index (and source) tensors of the golden cases.
struct Inputs {
  Tensor x, idx0, idx1, idx1_unique, src, sel0, sel1, flat, ints;
};

// Layout 0: contiguous; 1: transposed copies (1-D tensors step-sliced); 2:
// step-sliced copies.
Tensor lay(const Tensor& t, int layout) {
  if (layout == 0) return t;
  return layout == 1 && t.dim() == 2 ? testing::transposed_copy(t) : testing::strided_copy(t);
}

Inputs inputs(int layout) {
  std::vector<float> v;
  for (int i = 0; i < 20; ++i) v.push_back(((7 * i) % 20 - 9.5f) / 2);
  return {lay(from_vector(v, {4, 5}), layout),
          lay(tensor({{3, 0, 1, 2, 0}, {1, 0, 3, 0, 2}}), layout),
          lay(tensor({{4, 4}, {1, 2}, {3, 2}, {0, 4}}), layout),
          lay(tensor({{4, 0}, {1, 2}, {3, 2}, {0, 4}}), layout),
          lay(arange(10, kFloat32).view({2, 5}), layout),
          lay(tensor({3, 0, 3}), layout),
          lay(tensor({4, 1, 1, 0}), layout),
          lay(tensor({{-1, 0}, {7, -20}}), layout),
          lay(arange(10).view({2, 5}), layout)};
}

using Case = std::function<Tensor(const Inputs&)>;

const std::map<std::string, Case>& golden_cases() {
  static const auto* cases = new std::map<std::string, Case>{
      {"index_select_d0", [](const Inputs& in) { return in.x.index_select(0, in.sel0); }},
      {"index_select_d1", [](const Inputs& in) { return in.x.index_select(1, in.sel1); }},
      {"gather_d0", [](const Inputs& in) { return in.x.gather(0, in.idx0); }},
      {"gather_d1", [](const Inputs& in) { return in.x.gather(1, in.idx1); }},
      // src.t() (5x2, non-contiguous) is larger than the 4x2 index.
      {"scatter_d1", [](const Inputs& in) { return in.x.scatter(1, in.idx1_unique, -in.src.t()); }},
      {"scatter_add_d0", [](const Inputs& in) { return in.x.scatter_add(0, in.idx0, in.src); }},
      {"scatter_add_d1", [](const Inputs& in) { return in.x.scatter_add(1, in.idx1, in.src.t()); }},
      {"take", [](const Inputs& in) { return in.x.take(in.flat); }},
      {"masked_select_gt0", [](const Inputs& in) { return in.x.masked_select(in.x > 0); }},
      {"cat_d0_promote", [](const Inputs& in) { return cat({in.x, in.ints}, 0); }},
      {"cat_d1", [](const Inputs& in) { return cat({in.x, in.x.slice(1, 0, 2)}, 1); }},
      {"stack_d1", [](const Inputs& in) { return stack({in.x, in.x * 2}, 1); }},
  };
  return *cases;
}

TEST(IndexOpsGolden, MatchPyTorchOnEveryLayout) {
  for (int layout = 0; layout < 3; ++layout) {
    const Inputs in = inputs(layout);
    for (const auto& [name, op] : golden_cases()) {
      const Tensor out = op(in);
      EXPECT_EQ(out.dtype(), kFloat32) << name;
      EXPECT_TRUE(all_close(out, golden().at(name), 0, 0)) << name << " layout " << layout;
    }
  }
}

TEST(IndexOpsGolden, ExpandedInputsGiveTheSameResults) {
  const Tensor row = tensor({1.5, -2.0, 0.5});
  const Tensor wide = row.unsqueeze(0).expand({2, 3}), dense = wide.contiguous();
  const Tensor index = tensor({2, 0}).unsqueeze(0).expand({2, 2});
  EXPECT_TRUE(
      all_close(wide.index_select(1, tensor({2, 0})), dense.index_select(1, tensor({2, 0}))));
  EXPECT_TRUE(all_close(wide.gather(1, index), dense.gather(1, index.contiguous())));
  EXPECT_TRUE(all_close(zeros({2, 3}).scatter_add(1, index, wide),
                        tensor({{-2.0, 0.0, 1.5}, {-2.0, 0.0, 1.5}})));
  EXPECT_TRUE(all_close(wide.masked_select(wide > 0), tensor({1.5, 0.5, 1.5, 0.5})));
  EXPECT_TRUE(all_close(wide.take(tensor({5, -6})), tensor({0.5, 1.5})));
  EXPECT_TRUE(all_close(cat({wide, dense}, 1), cat({dense, dense}, 1)));
}

TEST(IndexSelect, Int32AndInt64IndexAlongEachDim) {
  const Tensor x = inputs(0).x;
  for (DType dtype : {kInt64, kInt32}) {
    EXPECT_TRUE(
        all_close(x.index_select(0, tensor({3, 0, 3}, dtype)), golden().at("index_select_d0")));
    EXPECT_TRUE(
        all_close(x.index_select(-1, tensor({4, 1, 1, 0}, dtype)), golden().at("index_select_d1")));
  }
  EXPECT_EQ(values(scalar_tensor(5.0).index_select(0, tensor({0}))), (Vec{5}));
}

TEST(IndexSelect, ZeroSizeDims) {
  EXPECT_EQ(zeros({2, 3}).index_select(1, zeros({0}, kInt64)).sizes(), IntArrayRef({2, 0}));
  EXPECT_EQ(zeros({0, 3}).index_select(1, tensor({2, 0})).sizes(), IntArrayRef({0, 2}));
}

TEST(IndexSelect, Errors) {
  const Tensor t = zeros({2, 3});
  EXPECT_THROW_MSG(t.index_select(0, tensor({2})), "index_select(): index out of range in self");
  EXPECT_THROW_MSG(t.index_select(0, tensor({2})),
                   "index 2 is out of bounds for dimension 0 with size 2");
  EXPECT_THROW_MSG(t.index_select(1, tensor({-1})),
                   "index -1 is out of bounds for dimension 1 with size 3");
  EXPECT_THROW_MSG(t.index_select(0, tensor({0.0})),
                   "index_select(): Expected dtype int32 or int64 for index");
  EXPECT_THROW_MSG(t.index_select(0, tensor({{0}})),
                   "index_select(): Index is supposed to be a vector, got shape [1, 1]");
  EXPECT_THROW_MSG(t.index_select(2, tensor({0})), "Dimension out of range");
  EXPECT_THROW_MSG(scalar_tensor(1.0).index_select(0, tensor({0, 0})),
                   "index_select(): Index to scalar can have only 1 value, got 2 value(s)");
}

TEST(Gather, IndexSmallerThanSelfAlongDims0And1) {
  const Tensor t = tensor({{1, 2, 3}, {4, 5, 6}});
  EXPECT_EQ(values(t.gather(0, tensor({{1, 0}}))), (Vec{4, 2}));
  EXPECT_EQ(values(t.gather(1, tensor({{2, 2, 0, 1}}))), (Vec{3, 3, 1, 2}));
  EXPECT_EQ(values(t.t().gather(1, tensor({{1}, {0}, {1}}))), (Vec{4, 2, 6}));
}

TEST(Gather, EmptyIndexGivesAnEmptyResultOfItsShape) {
  EXPECT_EQ(zeros({2, 3}).gather(0, zeros({0, 3}, kInt64)).sizes(), IntArrayRef({0, 3}));
  EXPECT_EQ(zeros({2, 3}).gather(1, zeros({0, 1, 1}, kInt32)).sizes(), IntArrayRef({0, 1, 1}));
  EXPECT_EQ(zeros({0, 3}).gather(1, zeros({0, 5}, kInt64)).sizes(), IntArrayRef({0, 5}));
}

TEST(Gather, Errors) {
  const Tensor t = zeros({2, 3});
  EXPECT_THROW_MSG(t.gather(0, tensor({{2}})),
                   "gather(): index 2 is out of bounds for dimension 0 with size 2");
  EXPECT_THROW_MSG(t.gather(0, tensor({{0}}, kInt32)),
                   "gather(): Expected dtype int64 for index, got int32");
  EXPECT_THROW_MSG(
      t.gather(0, tensor({0})),
      "gather(): Index tensor must have the same number of dimensions as input tensor");
  EXPECT_THROW_MSG(
      t.gather(1, zeros({3, 1}, kInt64)),
      "gather(): Size does not match at dimension 0 expected index [3, 1] to be smaller "
      "than self [2, 3] apart from dimension 1");
}

TEST(Scatter, TensorSourceAlongDims0And1) {
  const Tensor t = zeros({2, 3}, kInt64), src = tensor({{1, 2, 3}, {4, 5, 6}});
  EXPECT_EQ(values(t.scatter(0, tensor({{1, 0, 1}}), src)), (Vec{0, 2, 0, 1, 0, 3}));
  EXPECT_EQ(values(t.scatter(1, tensor({{2}, {0}}), src)), (Vec{0, 0, 1, 4, 0, 0}));
  EXPECT_EQ(values(t), Vec(6, 0.0));
}

TEST(Scatter, ScalarValue) {
  EXPECT_EQ(values(zeros({2, 3}).scatter(1, tensor({{2}, {0}}), 1.5)), (Vec{0, 0, 1.5, 1.5, 0, 0}));
  EXPECT_EQ(values(zeros({2, 3}, kInt64).scatter(0, zeros({1, 3}, kInt64), 7)),
            (Vec{7, 7, 7, 0, 0, 0}));
}

TEST(Scatter, InPlaceFormsModifySelfAndBumpVersion) {
  Tensor t = zeros({2, 3});
  const Tensor alias = t;
  uint32_t version = t.version();
  EXPECT_EQ(&t.scatter_(1, tensor({{1}, {2}}), ones({2, 1})), &t);
  EXPECT_GT(t.version(), version);
  version = t.version();
  t.scatter_(0, tensor({{1, 1, 1}}), -2.0);
  EXPECT_GT(t.version(), version);
  version = t.version();
  EXPECT_EQ(&t.scatter_add_(1, tensor({{0, 0}}), tensor({{3.0, 4.0}})), &t);
  EXPECT_GT(t.version(), version);
  EXPECT_EQ(values(alias), (Vec{7, 1, 0, -2, -2, -2}));
}

TEST(Scatter, NonContiguousSelfIsWrittenThrough) {
  Tensor base = zeros({3, 2});
  Tensor view = base.t();
  view.scatter_(1, tensor({{2}, {0}}), tensor({{5.0}, {6.0}}));
  EXPECT_EQ(values(base), (Vec{0, 6, 0, 0, 5, 0}));
  Tensor strided = testing::strided_copy(zeros({2, 2}));
  strided.scatter_add_(0, tensor({{1, 1}}), ones({1, 2}));
  EXPECT_EQ(values(strided), (Vec{0, 0, 1, 1}));
}

TEST(Scatter, EmptyIndexLeavesSelfUnchanged) {
  const Tensor t = ones({2, 3});
  EXPECT_EQ(values(t.scatter(0, zeros({0, 3}, kInt64), zeros({2, 3}))), Vec(6, 1.0));
  EXPECT_EQ(values(t.scatter(1, zeros({0, 1, 1}, kInt32), 5.0)), Vec(6, 1.0));
  EXPECT_EQ(zeros({0, 3}).scatter_add(0, zeros({0, 3}, kInt64), zeros({0, 3})).sizes(),
            IntArrayRef({0, 3}));
}

TEST(Scatter, Errors) {
  Tensor t = zeros({2, 3});
  EXPECT_THROW_MSG(t.scatter(0, tensor({{2}}), t),
                   "scatter(): index 2 is out of bounds for dimension 0 with size 2");
  EXPECT_THROW_MSG(t.scatter_add(0, tensor({{-1}}), t),
                   "index -1 is out of bounds for dimension 0 with size 2");
  EXPECT_THROW_MSG(t.scatter(0, tensor({{0}}), zeros({2, 3}, kInt64)),
                   "scatter(): Expected self.dtype to be equal to src.dtype");
  EXPECT_THROW_MSG(t.scatter_add_(0, tensor({{0}}), zeros({2, 3}, kFloat64)),
                   "scatter_add_(): Expected self.dtype to be equal to src.dtype");
  EXPECT_THROW_MSG(t.scatter(0, tensor({{0}}, kInt32), t),
                   "scatter(): Expected dtype int64 for index, got int32");
  EXPECT_THROW_MSG(t.scatter(0, tensor({0}), 1.0),
                   "Index tensor must have the same number of dimensions as self tensor");
  EXPECT_THROW_MSG(
      t.scatter(0, zeros({3, 1}, kInt64), t),
      "Expected index [3, 1] to be smaller than self [2, 3] apart from dimension 0 and "
      "to be smaller size than src [2, 3]");
  EXPECT_THROW_MSG(t.scatter(0, zeros({2, 3}, kInt64), zeros({1, 3})),
                   "to be smaller size than src [1, 3]");
  EXPECT_THROW_MSG(t.scatter(1, zeros({3, 2}, kInt64), 1.0),
                   "Expected index [3, 2] to be smaller than self [2, 3] apart from dimension 1");
  Tensor wide = zeros({3}).expand({2, 3});
  EXPECT_THROW_MSG(
      wide.scatter_(0, zeros({1, 1}, kInt64), 1.0),
      "more than one element of the written-to tensor refers to a single memory location");
}

TEST(ScatterAdd, AccumulatesDuplicateIndices) {
  EXPECT_EQ(values(zeros({3}).scatter_add(0, tensor({0, 2, 0, 0}), tensor({1.0, 2.0, 3.0, 4.0}))),
            (Vec{8, 0, 2}));
  Tensor t = ones({2, 2}, kInt64);
  t.scatter_add_(1, tensor({{1, 1, 1}, {0, 0, 1}}), tensor({{1, 2, 3}, {4, 5, 6}}));
  EXPECT_EQ(values(t), (Vec{1, 7, 10, 7}));
}

TEST(MaskedSelect, BroadcastBoolAndUint8Masks) {
  const Tensor t = tensor({{1, 2, 3}, {4, 5, 6}});
  for (DType dtype : {kBool, kUInt8}) {
    EXPECT_EQ(values(t.masked_select(tensor({{1}, {0}}, dtype))), (Vec{1, 2, 3})) << dtype;
    EXPECT_EQ(values(t.masked_select(tensor({0, 1, 1}, dtype))), (Vec{2, 3, 5, 6})) << dtype;
  }
  EXPECT_EQ(values(arange(3).masked_select(tensor({{true}, {false}}))), (Vec{0, 1, 2}));
  EXPECT_EQ(values(t.t().masked_select(tensor({true, false}))), (Vec{1, 2, 3}));
  EXPECT_EQ(t.masked_select(zeros({2, 3}, kBool)).sizes(), IntArrayRef({0}));
  EXPECT_EQ(zeros({0, 3}).masked_select(tensor({true, true, true})).sizes(), IntArrayRef({0}));
}

TEST(MaskedSelect, Errors) {
  EXPECT_THROW_MSG(zeros({2, 3}).masked_select(ones({3})),
                   "masked_select: expected BoolTensor or ByteTensor for mask");
  EXPECT_THROW_MSG(zeros({2, 3}).masked_select(zeros({2, 4}, kBool)),
                   "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
                   "dimension 1");
}

TEST(Take, NegativeIndicesCountFromTheEnd) {
  const Tensor t = arange(6).view({2, 3});
  EXPECT_EQ(values(t.take(tensor({-1, -6, 2}))), (Vec{5, 0, 2}));
  EXPECT_EQ(values(t.t().take(tensor({0, 1, -1}))), (Vec{0, 3, 5}));
  EXPECT_EQ(t.take(tensor({{0}, {-2}})).sizes(), IntArrayRef({2, 1}));
  EXPECT_EQ(values(scalar_tensor(5.0).take(tensor({{0, -1}}))), (Vec{5, 5}));
  EXPECT_EQ(zeros({0}).take(zeros({0, 2}, kInt64)).sizes(), IntArrayRef({0, 2}));
}

TEST(Take, Errors) {
  const Tensor t = zeros({2, 3});
  EXPECT_THROW_MSG(t.take(tensor({6})),
                   "take(): out of range: tried to access index 6 on a tensor of 6 elements.");
  EXPECT_THROW_MSG(t.take(tensor({-7})),
                   "out of range: tried to access index -7 on a tensor of 6 elements.");
  EXPECT_THROW_MSG(t.take(tensor({0}, kInt32)), "take(): Expected a long tensor for index");
  EXPECT_THROW_MSG(zeros({0}).take(tensor({0})), "take(): tried to take from an empty tensor");
}

TEST(OneHot, InferredAndExplicitNumClasses) {
  const Tensor labels = tensor({{1, 0}, {2, 0}});
  const Tensor inferred = one_hot(labels);
  EXPECT_EQ(inferred.dtype(), kInt64);
  EXPECT_EQ(inferred.sizes(), IntArrayRef({2, 2, 3}));
  EXPECT_EQ(values(inferred), (Vec{0, 1, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0}));
  const Tensor explicit_classes = one_hot(labels.t(), 4);
  EXPECT_EQ(explicit_classes.sizes(), IntArrayRef({2, 2, 4}));
  EXPECT_EQ(values(explicit_classes), (Vec{0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0}));
  EXPECT_EQ(one_hot(zeros({0}, kInt64), 3).sizes(), IntArrayRef({0, 3}));
}

TEST(OneHot, Errors) {
  EXPECT_THROW_MSG(one_hot(tensor({-1})), "one_hot: Class values must be non-negative");
  EXPECT_THROW_MSG(one_hot(tensor({-1, 5}), 3), "Class values must be non-negative");
  EXPECT_THROW_MSG(one_hot(tensor({3}), 3),
                   "one_hot: Class values must be smaller than num_classes");
  EXPECT_THROW_MSG(one_hot(tensor({1}), 0), "Class values must be smaller than num_classes");
  EXPECT_THROW_MSG(one_hot(zeros({0}, kInt64)),
                   "one_hot: Can not infer total number of classes from empty tensor.");
  EXPECT_THROW_MSG(one_hot(zeros({0}, kInt64), 0),
                   "one_hot: Can not infer total number of classes from empty tensor.");
  EXPECT_THROW_MSG(one_hot(tensor({1.0})), "one_hot: one_hot is only applicable to index tensor");
  EXPECT_THROW_MSG(one_hot(tensor({1}, kInt32)), "one_hot is only applicable to index tensor");
}

TEST(Cat, SkipsOneDimEmptyTensorsButPromotesWithThem) {
  const Tensor t = ones({2, 3});
  const Tensor c = cat({zeros({0}), t, zeros({0}, kFloat64)});
  EXPECT_EQ(c.dtype(), kFloat64);
  EXPECT_EQ(values(c), Vec(6, 1.0));
  EXPECT_EQ(cat({zeros({0}), zeros({0})}).sizes(), IntArrayRef({0}));
  EXPECT_EQ(cat({zeros({0, 3}), t}).sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(cat({t, zeros({2, 0})}, -1).sizes(), IntArrayRef({2, 3}));
}

TEST(Cat, NegativeDimAndIntegerInputs) {
  const Tensor c = cat({tensor({{1}, {2}}), tensor({{3, 4}, {5, 6}}, kInt32)}, -1);
  EXPECT_EQ(c.dtype(), kInt64);
  EXPECT_EQ(values(c), (Vec{1, 3, 4, 2, 5, 6}));
}

TEST(Cat, Errors) {
  EXPECT_THROW_MSG(cat({}), "cat(): expected a non-empty list of Tensors");
  EXPECT_THROW_MSG(cat({scalar_tensor(1.0)}),
                   "zero-dimensional tensor (at position 0) cannot be concatenated");
  EXPECT_THROW_MSG(cat({zeros({2, 3}), zeros({3})}),
                   "cat(): Tensors must have same number of dimensions: got 2 and 1");
  EXPECT_THROW_MSG(
      cat({zeros({2, 3}), zeros({2, 4})}),
      "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 "
      "for tensor number 1 in the list.");
  EXPECT_THROW_MSG(cat({zeros({0}), zeros({2, 3}), zeros({2, 4})}),
                   "for tensor number 2 in the list.");
  EXPECT_THROW_MSG(
      cat({zeros({2, 3}), zeros({3, 3})}, 1),
      "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3");
  EXPECT_THROW_MSG(cat({zeros({2, 3})}, 2),
                   "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

TEST(Stack, AlongDims0And1AndMinus1) {
  const Tensor a = tensor({{1, 2}, {3, 4}}), b = tensor({{5, 6}, {7, 8}});
  const std::vector<std::tuple<int64_t, SizeVec, Vec>> cases = {
      {0, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}},
      {1, {2, 2, 2}, {1, 2, 5, 6, 3, 4, 7, 8}},
      {-1, {2, 2, 2}, {1, 5, 2, 6, 3, 7, 4, 8}},
  };
  for (const auto& [dim, shape, want] : cases) {
    for (const Tensor& first : {a, testing::transposed_copy(a), testing::strided_copy(a)}) {
      const Tensor s = stack({first, b}, dim);
      EXPECT_EQ(s.sizes(), IntArrayRef(shape)) << dim;
      EXPECT_EQ(values(s), want) << dim;
    }
  }
  EXPECT_EQ(stack({zeros({0}), zeros({0})}).sizes(), IntArrayRef({2, 0}));
  EXPECT_EQ(values(stack({scalar_tensor(1.0), scalar_tensor(2.0)})), (Vec{1, 2}));
}

TEST(Stack, Errors) {
  EXPECT_THROW_MSG(stack({}), "stack(): expects a non-empty TensorList");
  EXPECT_THROW_MSG(
      stack({zeros({2}), zeros({3})}),
      "expects each tensor to be equal size, but got [2] at entry 0 and [3] at entry 1");
  EXPECT_THROW_MSG(stack({zeros({2}), zeros({2})}, 3), "Dimension out of range");
}

class MixedDevices : public ::testing::Test {
 protected:
  void SetUp() override { set_cpu_device_count(2); }
  void TearDown() override { set_cpu_device_count(1); }
};

TEST_F(MixedDevices, EveryOpRejectsTensorsOnAnotherDevice) {
  const Device other(kCPU, 1);
  const Tensor self = zeros({2, 3});
  const Tensor index = zeros({1, 1}, kInt64);
  const std::vector<std::function<void()>> ops = {
      [&] { self.index_select(0, tensor({0}).to(other)); },
      [&] { self.gather(0, index.to(other)); },
      [&] { self.scatter(0, index.to(other), self); },
      [&] { self.scatter(0, index, self.to(other)); },
      [&] { self.scatter(0, index.to(other), 1.0); },
      [&] { self.scatter_add(0, index, self.to(other)); },
      [&] { self.masked_select(ones({3}, kBool).to(other)); },
      [&] { self.take(tensor({0}).to(other)); },
      [&] { cat({self, self.to(other)}); },
      [&] { stack({self, self.to(other)}); },
  };
  for (const auto& op : ops) {
    EXPECT_THROW_MSG(
        op(), "Expected all tensors to be on the same device, but found at least two devices");
  }
}

}  // namespace
}  // namespace torchlet
