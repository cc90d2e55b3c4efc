#include "tensor/tensor_body.h"

#include "gtest/gtest.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::values;

TEST(TensorTest, MetadataOfAContiguousTensor) {
  Tensor t = zeros({2, 3, 4});
  EXPECT_EQ(t.dim(), 3);
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.size(-1), 4);
  EXPECT_EQ(t.strides(), IntArrayRef({12, 4, 1}));
  EXPECT_EQ(t.stride(0), 12);
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t.element_size(), 4u);
}

TEST(TensorTest, SizeOutOfRangeDimIsAnError) {
  EXPECT_THROW_MSG(zeros({2, 3}).size(2),
                   "size: Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

TEST(TensorTest, SizeOfAScalarIsAnError) {
  EXPECT_THROW_MSG(zeros({}).size(0), "size: Dimension specified as 0 but tensor has no dimensions");
}

TEST(TensorTest, StrideOfAScalarIsAnError) {
  EXPECT_THROW_MSG(zeros({}).stride(-1),
                   "stride: Dimension specified as -1 but tensor has no dimensions");
}

TEST(TensorTest, UndefinedTensorIsAnErrorNotACrash) {
  Tensor t;
  EXPECT_FALSE(t.defined());
  EXPECT_THROW_MSG(t.dim(), "Tensor: the tensor is undefined (default-constructed)");
  EXPECT_THROW_MSG(ones({1}) + t, "add: expected a defined tensor but got an undefined one");
}

TEST(TensorTest, CopiesShareData) {
  Tensor a = zeros({2});
  Tensor b = a;
  b.fill_(3);
  EXPECT_EQ(values(a), (std::vector<double>{3, 3}));
  EXPECT_TRUE(a.is_same(b));
}

TEST(TensorTest, CloneIsIndependent) {
  Tensor a = zeros({2});
  Tensor b = a.clone();
  b.fill_(1);
  EXPECT_EQ(values(a), (std::vector<double>{0, 0}));
  EXPECT_FALSE(a.shares_storage(b));
}

TEST(TensorTest, ContiguousCopiesOnlyWhenNeeded) {
  Tensor a = arange(6).view({2, 3});
  EXPECT_TRUE(a.contiguous().is_same(a));
  Tensor t = a.t().contiguous();
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(values(t), (std::vector<double>{0, 3, 1, 4, 2, 5}));
}

TEST(TensorTest, CopyBroadcastsAndConverts) {
  Tensor dst = zeros({2, 3}, kFloat64);
  dst.copy_(tensor({1, 2, 3}));
  EXPECT_EQ(values(dst), (std::vector<double>{1, 2, 3, 1, 2, 3}));
}

TEST(TensorTest, CopyIntoNonContiguousDestination) {
  Tensor dst = zeros({3, 2});
  dst.t().copy_(tensor({{1, 2, 3}, {4, 5, 6}}));
  EXPECT_EQ(values(dst), (std::vector<double>{1, 4, 2, 5, 3, 6}));
}

TEST(TensorTest, CopyFromOverlappingSelfIsCorrect) {
  Tensor a = arange(4).view({2, 2});
  a.copy_(a.t());
  EXPECT_EQ(values(a), (std::vector<double>{0, 2, 1, 3}));
}

// Destinations a few bytes past their source modulo 4 KiB are copied from
// the end (Note [4K aliasing] in tensor/cpu/copy_kernel.cc): every gap in
// that window, and lengths that leave a ragged head.
TEST(TensorTest, CopyJustPastItsSourceModuloAPageIsExact) {
  for (int64_t gap : {1, 7, 15}) {
    for (int64_t n : {64, 1000, 1003}) {
      Tensor buf = zeros({4096}, kFloat32);
      Tensor src = buf.narrow(0, 0, n);
      src.copy_(arange(n, kFloat32).add(1));
      buf.narrow(0, 1024 + gap, n).copy_(src);
      EXPECT_EQ(values(buf.narrow(0, 1024 + gap, n)), values(arange(n, kFloat32).add(1)))
          << "gap " << gap << " n " << n;
      EXPECT_EQ(buf.narrow(0, 1024 + gap + n, 4096 - 1024 - gap - n).abs().sum().item<float>(), 0)
          << "wrote past the end: gap " << gap << " n " << n;
    }
  }
}

TEST(TensorTest, CopyShapeMismatchIsAnError) {
  EXPECT_THROW_MSG(zeros({3}).copy_(zeros({2, 3})),
                   "copy_: output with shape [3] doesn't match the broadcast shape [2, 3]");
  EXPECT_THROW_MSG(zeros({3}).copy_(zeros({4})),
                   "copy_: The size of tensor a (3) must match the size of tensor b (4)");
}

TEST(TensorTest, WritingToAnExpandedTensorIsAnError) {
  Tensor e = zeros({1, 3}).expand({2, 3});
  EXPECT_THROW_MSG(e.fill_(1), "fill_: unsupported operation: more than one element");
}

TEST(TensorTest, InPlaceWritesBumpTheSharedVersion) {
  Tensor a = zeros({4});
  Tensor view = a.narrow(0, 1, 2);
  const uint32_t v0 = a.version();
  view.fill_(1);
  EXPECT_GT(a.version(), v0);
  EXPECT_EQ(a.version(), view.version());
  const uint32_t v1 = a.version();
  a.add_(1);
  EXPECT_GT(view.version(), v1);
  const uint32_t v2 = a.version();
  (void)(a + 1);
  EXPECT_EQ(a.version(), v2) << "an out-of-place op must not bump the version";
}

TEST(TensorTest, ItemReadsTheSingleElement) {
  EXPECT_EQ(tensor({{4.5}}).item<double>(), 4.5);
  EXPECT_EQ(tensor(7).item<int>(), 7);
  EXPECT_THROW_MSG(zeros({2}).item<float>(), "item: a Tensor with 2 elements cannot be converted");
}

TEST(TensorTest, ToVectorReadsLogicalOrder) {
  Tensor a = arange(6).view({2, 3}).t();
  EXPECT_EQ(a.to_vector<int64_t>(), (std::vector<int64_t>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
}

TEST(TensorTest, TypedDataChecksTheDtype) {
  Tensor a = tensor({1.5f, 2.5f});
  EXPECT_EQ(a.data<float>()[1], 2.5f);
  EXPECT_THROW_MSG(a.data<double>(), "data: expected a tensor of dtype float64 but got dtype float32");
}

TEST(TensorTest, ToSameDeviceAndDtypeIsTheSameTensor) {
  Tensor a = zeros({2});
  EXPECT_TRUE(a.to(kFloat32).is_same(a));
  EXPECT_FALSE(a.to(kFloat64).is_same(a));
}

TEST(TensorTest, OptionsMakeATensorOfTheSameDtypeAndDevice) {
  set_cpu_device_count(2);
  const Tensor t = zeros({2}, TensorOptions(kFloat64).device(Device("cpu:1")));
  const Tensor like = empty({3}, t.options());
  EXPECT_EQ(like.dtype(), kFloat64);
  EXPECT_EQ(like.device(), Device("cpu:1"));
  set_cpu_device_count(1);
}

TEST(TensorTest, OptionsWithAnotherDtypeKeepTheDevice) {
  set_cpu_device_count(2);
  const Tensor t = zeros({2}, TensorOptions(kFloat64).device(Device("cpu:1")));
  const Tensor index = empty({3}, t.options().dtype(kInt64));
  EXPECT_EQ(index.dtype(), kInt64);
  EXPECT_EQ(index.device(), Device("cpu:1"));
  set_cpu_device_count(1);
}

TEST(TensorTest, CudaTensorsNeedACudaBuild) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a GPU is present";
  EXPECT_THROW_MSG(zeros({2}).to(Device("cuda:0")), "to: device cuda:0 does not exist");
}

}  // namespace
}  // namespace torchlet
