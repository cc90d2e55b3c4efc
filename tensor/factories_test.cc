#include "tensor/factories.h"

#include <cmath>
#include <cstdlib>
#include <set>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/device.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::values;

TEST(FactoriesTest, ZerosOnesFullHaveShapeAndValue) {
  EXPECT_EQ(values(zeros({2, 3})), std::vector<double>(6, 0.0));
  EXPECT_EQ(values(ones({4}, kInt32)), std::vector<double>(4, 1.0));
  Tensor f = full({2}, 7);
  EXPECT_EQ(f.dtype(), kInt64);
  EXPECT_EQ(values(f), (std::vector<double>{7, 7}));
  EXPECT_EQ(full({1}, 2.5).dtype(), kFloat32);
  EXPECT_EQ(full({1}, true).dtype(), kBool);
}

TEST(FactoriesTest, DefaultsToFloat32OnTheCurrentDevice) {
  Tensor t = empty({3});
  EXPECT_EQ(t.dtype(), kFloat32);
  EXPECT_EQ(t.device(), Device("cpu:0"));
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(zeros({2}).dtype(), kFloat32);
  EXPECT_EQ(ones({2}).dtype(), kFloat32);
  EXPECT_EQ(ones({2}, Device(kCPU, 0)).dtype(), kFloat32);
}

TEST(FactoriesTest, CpuMemoryIs64ByteAligned) {
  for (int n : {1, 3, 17, 1000}) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(empty({n}).data_ptr()) % 64, 0u);
  }
}

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
TEST(FactoriesTest, FreedSmallCpuBlockIsReusedBySameThread) {
  void* first = empty({100}).data_ptr();  // freed at the end of the statement
  EXPECT_EQ(empty({120}).data_ptr(), first);  // same 512-byte size class
}

// Blocks over 64 KiB go back to their CPU device's own cache, so a device's
// worker thread keeps writing memory its core already holds (Note [CPU
// block caches]).
TEST(FactoriesTest, FreedLargeCpuBlockIsReusedOnItsOwnDeviceOnly) {
  set_cpu_device_count(2);
  const TensorOptions on0 = TensorOptions().device(Device(kCPU, 0));
  const TensorOptions on1 = TensorOptions().device(Device(kCPU, 1));
  void* first = empty({1 << 16}, on1).data_ptr();  // 256 KiB, freed at once
  const Tensor elsewhere = empty({1 << 16}, on0);
  EXPECT_NE(elsewhere.data_ptr(), first);
  EXPECT_EQ(empty({1 << 16}, on1).data_ptr(), first);
  set_cpu_device_count(1);
}

// Blocks freed by another thread than made them reach threads that need
// them through the depot, not through free() and aligned_alloc (Note [CPU
// block caches]). Run in a fresh process, whose depot holds only what the
// test puts there.
TEST(FactoriesTest, SmallBlocksFreedOnAnotherThreadAreReusedThroughTheDepot) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const auto scenario = [] {
    constexpr int64_t kFloats = 5000;  // 20000 bytes: the 32 KiB size class
    std::vector<Tensor> made(64);
    std::thread maker([&made] {
      for (Tensor& t : made) t = empty({kFloats});
    });
    maker.join();
    std::set<void*> freed;
    for (Tensor& t : made) freed.insert(t.data_ptr());
    made.clear();  // this thread's bin keeps 32, the depot takes the rest
    bool all_reused = true;
    std::thread taker([&] {
      std::vector<Tensor> again(16);
      for (Tensor& t : again) {
        t = empty({kFloats});
        all_reused = all_reused && freed.count(t.data_ptr()) == 1;
      }
    });
    taker.join();
    std::exit(all_reused ? 0 : 1);
  };
  EXPECT_EXIT(scenario(), ::testing::ExitedWithCode(0), "");
}

TEST(FactoriesTest, ReusedBlockIsStillAlignedAndZeroedByZeros) {
  Tensor a = full({16}, 7.0);
  a = Tensor();
  Tensor z = zeros({16});
  EXPECT_EQ(reinterpret_cast<uintptr_t>(z.data_ptr()) % 64, 0u);
  EXPECT_EQ(z.sum().item<float>(), 0.0f);
}
#endif

// Sanitizer allocators abort on such a request instead of returning null.
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
TEST(FactoriesTest, CpuAllocationBeyondTheAddressSpaceIsAnError) {
  EXPECT_THROW_MSG(empty({int64_t{1} << 60}, kUInt8),
                   "CPU allocator: out of memory allocating 1152921504606846976 bytes");
}
#endif

TEST(FactoriesTest, LargeCpuBlocksWorkPastTheCachedSizes) {
  Tensor t = ones({1 << 17});  // 512 KiB, beyond the per-thread cache
  EXPECT_EQ(t.sum().item<float>(), static_cast<float>(1 << 17));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data_ptr()) % 64, 0u);
}

TEST(FactoriesTest, ZeroSizeTensorsAreValid) {
  Tensor t = zeros({0, 3});
  EXPECT_EQ(t.numel(), 0);
  EXPECT_EQ(t.sizes(), IntArrayRef({0, 3}));
}

TEST(FactoriesTest, NegativeSizeIsAnError) {
  EXPECT_THROW_MSG(zeros({2, -1}), "empty: Trying to create tensor with negative dimension -1: [2, -1]");
}

TEST(FactoriesTest, OverflowingSizeIsAnError) {
  EXPECT_THROW_MSG(empty({1LL << 40, 1LL << 40}), "overflows int64");
  EXPECT_THROW_MSG(empty({1LL << 62}, kFloat64), "overflows the address space");
}

TEST(FactoriesTest, ArangeIntegerAndFloat) {
  EXPECT_EQ(arange(5).dtype(), kInt64);
  EXPECT_EQ(values(arange(5)), (std::vector<double>{0, 1, 2, 3, 4}));
  EXPECT_EQ(values(arange(1, 10, 3)), (std::vector<double>{1, 4, 7}));
  EXPECT_EQ(values(arange(5, 0, -2)), (std::vector<double>{5, 3, 1}));
  Tensor f = arange(0, 1, 0.25);
  EXPECT_EQ(f.dtype(), kFloat32);
  EXPECT_EQ(values(f), (std::vector<double>{0, 0.25, 0.5, 0.75}));
}

TEST(FactoriesTest, ArangeRejectsBadSteps) {
  EXPECT_THROW_MSG(arange(0, 5, 0), "arange: step must be nonzero");
  EXPECT_THROW_MSG(arange(5, 0, 1), "arange: upper bound and larger bound inconsistent");
}

TEST(FactoriesTest, ArangeRejectsNonFiniteBounds) {
  EXPECT_THROW_MSG(arange(0, INFINITY), "arange: unsupported range: 0 -> inf");
  EXPECT_THROW_MSG(arange(NAN, 1.0), "arange: unsupported range: nan -> 1");
}

TEST(FactoriesTest, LinspaceIncludesBothEnds) {
  EXPECT_EQ(values(linspace(0, 1, 5)), (std::vector<double>{0, 0.25, 0.5, 0.75, 1}));
  EXPECT_EQ(linspace(0, 1, 0).numel(), 0);
  EXPECT_EQ(values(linspace(3, 7, 1)), (std::vector<double>{3}));
  EXPECT_THROW_MSG(linspace(0, 1, -1), "linspace: number of steps must be non-negative, got -1");
}

TEST(FactoriesTest, EyeIsIdentity) {
  EXPECT_EQ(values(eye(2)), (std::vector<double>{1, 0, 0, 1}));
  EXPECT_EQ(values(eye(2, 3)), (std::vector<double>{1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(eye(0).numel(), 0);
  EXPECT_THROW_MSG(eye(-1), "eye: n must be greater or equal to 0, got -1");
}

TEST(FactoriesTest, EyeRejectsANegativeColumnCount) {
  EXPECT_THROW_MSG(eye(2, -1), "eye: m must be greater or equal to 0, got -1");
}

TEST(FactoriesTest, LikeFactoriesCopyDtypeAndDevice) {
  Tensor t = ones({2, 2}, kFloat64);
  EXPECT_EQ(zeros_like(t).dtype(), kFloat64);
  EXPECT_EQ(ones_like(t, kInt32).dtype(), kInt32);
  EXPECT_EQ(values(full_like(t, 3)), std::vector<double>(4, 3.0));
  EXPECT_EQ(empty_like(t).sizes(), t.sizes());
}

TEST(FactoriesTest, FromVectorChecksTheElementCount) {
  Tensor t = from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(t.dtype(), kFloat32);
  EXPECT_EQ(t.size(1), 3);
  EXPECT_THROW_MSG(from_vector(std::vector<float>{1, 2, 3}, {2, 2}),
                   "from_vector: 3 values do not fill shape [2, 2] (4 elements)");
}

TEST(FactoriesTest, FromBlobSharesTheCallersMemory) {
  float data[4] = {1, 2, 3, 4};
  Tensor t = from_blob(data, {2, 2});
  data[3] = 9;
  EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{1, 2, 3, 9}));
  t.fill_(0);
  EXPECT_EQ(data[0], 0);
}

TEST(FactoriesTest, FromBlobRunsTheDeleter) {
  bool deleted = false;
  {
    static float data[2] = {1, 2};
    Tensor t = from_blob(data, {2}, {1}, {}, [&](void*) { deleted = true; });
  }
  EXPECT_TRUE(deleted);
}

TEST(FactoriesTest, FromBlobRejectsNegativeStrides) {
  float data[4] = {1, 2, 3, 4};
  EXPECT_THROW_MSG(from_blob(data, {2, 2}, {-2, 1}, {}),
                   "from_blob: negative strides are not supported: [-2, 1]");
}

TEST(FactoriesTest, FromBlobRejectsACudaDevice) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "needs a GPU (without one, cuda:0 does not exist)";
  float data[4] = {1, 2, 3, 4};
  EXPECT_THROW_MSG(from_blob(data, {4}, Device("cuda:0")),
                   "from_blob: only host memory on a CPU device can be wrapped, got cuda:0");
}

TEST(FactoriesTest, TensorLiteralsInferDtypeAndShape) {
  Tensor i = tensor({{1, 2}, {3, 4}});
  EXPECT_EQ(i.dtype(), kInt64);
  EXPECT_EQ(i.sizes(), IntArrayRef({2, 2}));
  EXPECT_EQ(tensor({1.5, 2}).dtype(), kFloat32);
  EXPECT_EQ(tensor({true, false}).dtype(), kBool);
  EXPECT_EQ(tensor(3.0).dim(), 0);
  EXPECT_EQ(tensor({1, 2}, kFloat64).dtype(), kFloat64);
}

TEST(FactoriesTest, RaggedLiteralIsAnError) {
  EXPECT_THROW_MSG(tensor({{1, 2}, {3}}), "tensor: expected sequence of length 2 at dim 1 (got 1)");
}

TEST(FactoriesTest, NumberWhereALiteralExpectsASequenceIsAnError) {
  EXPECT_THROW_MSG(tensor({{1, 2}, 3}),
                   "tensor: expected a sequence of length 2 at dim 1 but got a number");
}

TEST(FactoriesTest, ScalarTensorIsZeroDim) {
  Tensor t = scalar_tensor(2.5);
  EXPECT_EQ(t.dim(), 0);
  EXPECT_EQ(t.item<double>(), 2.5);
}

}  // namespace
}  // namespace torchlet
