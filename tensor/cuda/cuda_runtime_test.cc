#include "tensor/cuda/cuda_runtime.h"
#include "tensor/cuda/nccl.h"

#include "gtest/gtest.h"
#include "tensor/tensor.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

bool has_gpu() { return cuda::device_count() > 0; }

TEST(CudaRuntimeTest, DeviceCountIsZeroWithoutAGpuOrCudaBuild) {
  if (has_gpu()) GTEST_SKIP() << "a GPU is present";
  EXPECT_EQ(cuda::device_count(), 0);
  EXPECT_THROW(cuda::device_properties(0), Error);
}

TEST(CudaRuntimeTest, ReportsDeviceProperties) {
  if (!has_gpu()) GTEST_SKIP() << "needs a GPU";
  const cuda::DeviceProperties p = cuda::device_properties(0);
  EXPECT_FALSE(p.name.empty());
  EXPECT_GT(p.total_memory, 0u);
  EXPECT_GT(p.multiprocessor_count, 0);
}

TEST(CudaRuntimeTest, HostDeviceRoundTripPreservesValues) {
  if (!has_gpu()) GTEST_SKIP() << "needs a GPU";
  Tensor host = arange(1000, kFloat32).view({10, 100}).t();
  Tensor gpu = host.to(Device("cuda:0"));
  EXPECT_EQ(gpu.device(), Device("cuda:0"));
  EXPECT_TRUE(testing::all_close(gpu.to(Device("cpu:0")), host.contiguous()));
}

TEST(CudaRuntimeTest, FillRunsOnTheGpu) {
  if (!has_gpu()) GTEST_SKIP() << "needs a GPU";
  for (DType dtype : {kFloat32, kFloat64, kInt64, kUInt8}) {
    Tensor t = full({1 << 16}, 3, TensorOptions(dtype).device(Device("cuda:0")));
    EXPECT_EQ(t.to(Device("cpu:0")).to_vector<double>(), std::vector<double>(1 << 16, 3.0));
  }
}

TEST(CudaRuntimeTest, Tf32IsOffUntilAllowed) {
  EXPECT_FALSE(cuda::matmul_allow_tf32());
  cuda::set_matmul_allow_tf32(true);
  EXPECT_TRUE(cuda::matmul_allow_tf32());
  if (has_gpu()) {
    // TF32 keeps 10 mantissa bits: its inputs round 1 + 2^-12 to 1, which
    // a full float32 product keeps.
    const Tensor a = full({128, 128}, 1.0 + 1.0 / 4096, Device("cuda:0"));
    const double tf32 = a.mm(a)[0][0].item<double>();
    cuda::set_matmul_allow_tf32(false);
    const double exact = a.mm(a)[0][0].item<double>();
    EXPECT_EQ(tf32, 128.0);
    EXPECT_NEAR(exact, 128 * (1.0 + 1.0 / 2048), 1e-4);
  }
  cuda::set_matmul_allow_tf32(false);
}

TEST(CudaRuntimeTest, CudnnSwitchesStartAsDocumentedAndKeepWhatIsSet) {
  EXPECT_TRUE(cuda::cudnn_enabled());
  EXPECT_EQ(cuda::cudnn_min_macs(), int64_t{1} << 27);
  EXPECT_TRUE(cuda::cudnn_allow_tf32());
  EXPECT_FALSE(cuda::cudnn_deterministic());
  cuda::set_cudnn_enabled(false);
  cuda::set_cudnn_min_macs(0);
  cuda::set_cudnn_allow_tf32(false);
  cuda::set_cudnn_deterministic(true);
  EXPECT_FALSE(cuda::cudnn_enabled());
  EXPECT_EQ(cuda::cudnn_min_macs(), 0);
  EXPECT_FALSE(cuda::cudnn_allow_tf32());
  EXPECT_TRUE(cuda::cudnn_deterministic());
  cuda::set_cudnn_enabled(true);
  cuda::set_cudnn_min_macs(int64_t{1} << 27);
  cuda::set_cudnn_allow_tf32(true);
  cuda::set_cudnn_deterministic(false);
}

// Without --config=cuda, or where libcudnn.so.9 is not found, cuDNN is
// unavailable and its version 0; where it is found, a version 9.x.
TEST(CudaRuntimeTest, CudnnVersionIsThatOfTheLibraryFoundOrZero) {
  if (cuda::cudnn_is_available()) {
    EXPECT_EQ(cuda::cudnn_version() / 10000, 9);
  } else {
    EXPECT_EQ(cuda::cudnn_version(), 0);
  }
}

TEST(CudaRuntimeTest, ReducedPrecisionSumsAreAllowedUntilTurnedOff) {
  EXPECT_TRUE(cuda::matmul_allow_fp16_reduced_precision_reduction());
  EXPECT_TRUE(cuda::matmul_allow_bf16_reduced_precision_reduction());
  cuda::set_matmul_allow_bf16_reduced_precision_reduction(false);
  EXPECT_FALSE(cuda::matmul_allow_bf16_reduced_precision_reduction());
  EXPECT_TRUE(cuda::matmul_allow_fp16_reduced_precision_reduction());
  if (has_gpu()) {
    // A long inner dimension (which cuBLAS may split): with float32 sums
    // throughout, the one rounding of the CPU's product.
    manual_seed(7);
    const Tensor a = randn({8, 1 << 16}).to(kBFloat16), b = randn({1 << 16, 8}).to(kBFloat16);
    const Tensor expected = a.mm(b).to(kFloat32);
    const Tensor actual = a.to(Device("cuda:0")).mm(b.to(Device("cuda:0"))).to(Device("cpu:0"));
    EXPECT_TRUE(testing::all_close(actual.to(kFloat32), expected, 1e-2, 1e-1));
  }
  cuda::set_matmul_allow_bf16_reduced_precision_reduction(true);
  cuda::set_matmul_allow_fp16_reduced_precision_reduction(false);
  EXPECT_FALSE(cuda::matmul_allow_fp16_reduced_precision_reduction());
  cuda::set_matmul_allow_fp16_reduced_precision_reduction(true);
}

TEST(CudaRuntimeTest, PinningMemoryNeedsAGpu) {
  if (has_gpu()) GTEST_SKIP() << "a GPU is present";
  EXPECT_FALSE(zeros({2}).is_pinned());
  EXPECT_THROW_MSG(zeros({2}).pin_memory(), "pin_memory: ");
  EXPECT_THROW_MSG(empty_pinned({2}), "pin_memory: ");
}

TEST(CudaRuntimeTest, PinnedMemoryCopiesWithoutBlocking) {
  if (!has_gpu()) GTEST_SKIP() << "needs a GPU";
  const Device gpu("cuda:0"), cpu("cpu:0");
  const Tensor values = arange(1 << 20, kFloat32);
  const Tensor pinned = values.pin_memory();
  EXPECT_TRUE(pinned.is_pinned());
  EXPECT_FALSE(values.is_pinned());
  EXPECT_TRUE(pinned.pin_memory().is_same(pinned));
  EXPECT_TRUE(pinned.slice(0, 5).is_pinned());
  const Tensor on_gpu = pinned.to(gpu, /*non_blocking=*/true);
  const Tensor back = on_gpu.mul(2).to(cpu, /*non_blocking=*/true);
  EXPECT_TRUE(back.is_pinned());
  cuda::synchronize(0);
  EXPECT_TRUE(testing::all_close(back, values * 2, 0, 0));
  // From pageable memory, or with a conversion, non_blocking copies block.
  EXPECT_TRUE(testing::all_close(values.to(gpu, true).to(cpu), values, 0, 0));
  EXPECT_TRUE(testing::all_close(pinned.to(gpu, kFloat64, true).to(cpu), values.to(kFloat64), 0, 0));
  Tensor landing = empty_pinned({1 << 20});
  landing.copy_(on_gpu, /*non_blocking=*/true);
  cuda::synchronize(0);
  EXPECT_TRUE(testing::all_close(landing, values, 0, 0));
  EXPECT_THROW_MSG(on_gpu.pin_memory(),
                   "pin_memory: cannot pin 'cuda:0' float32 tensor: only dense CPU tensors can be "
                   "pinned");
}

TEST(CudaRuntimeTest, NcclNeedsCudaTensors) {
  if (has_gpu()) GTEST_SKIP() << "a GPU is present";
  EXPECT_THROW_MSG(cuda::nccl::broadcast({zeros({2})}), "nccl::broadcast: ");
  EXPECT_THROW_MSG(cuda::nccl::reduce({zeros({2})}, zeros({2})), "nccl::reduce: ");
  EXPECT_FALSE(cuda::nccl::is_available({zeros({2})}));
}

// One rank: the communicator is made and cached, and the collectives run.
TEST(CudaRuntimeTest, NcclCollectivesRunWithOneRank) {
  if (!has_gpu()) GTEST_SKIP() << "needs a GPU";
  EXPECT_GT(cuda::nccl::version(), 20000);
  const Device gpu("cuda:0");
  const Tensor x = arange(1000, TensorOptions(kFloat32).device(gpu));
  EXPECT_TRUE(cuda::nccl::is_available({x}, /*reducing=*/true));
  for (int round = 0; round < 2; ++round) {  // the second reuses the communicator
    cuda::nccl::broadcast({x});
    Tensor sum = empty({1000}, TensorOptions(kFloat32).device(gpu));
    cuda::nccl::reduce({x}, sum);
    EXPECT_TRUE(testing::all_close(sum.to(Device("cpu:0")), arange(1000, kFloat32), 0, 0));
  }
  const Tensor flags = x.gt(500);
  cuda::nccl::broadcast({flags});
  EXPECT_EQ(flags.sum().item<int64_t>(), 499);
  EXPECT_THROW_MSG(cuda::nccl::broadcast({x, x}),
                   "nccl::broadcast: expected each tensor on a different GPU, got two on cuda:0");
  EXPECT_THROW_MSG(cuda::nccl::reduce({flags}, flags),
                   "nccl::reduce: NCCL cannot sum bool tensors");
  EXPECT_THROW_MSG(cuda::nccl::broadcast({zeros({2})}),
                   "nccl::broadcast: expected CUDA tensors, got one on cpu:0");
  EXPECT_THROW_MSG(cuda::nccl::reduce({x}, empty({3}, gpu)),
                   "nccl::reduce: the output must be a contiguous float32 tensor of 1000 elements "
                   "on cuda:0");
}

TEST(CudaRuntimeTest, SynchronizeWaitsForQueuedKernels) {
  if (!has_gpu()) GTEST_SKIP() << "needs a GPU";
  Tensor t = full({1 << 20}, 1.5, Device("cuda:0"));
  t.mul_(2);
  cuda::synchronize(0);
  EXPECT_EQ(t.sum().item<double>(), 3.0 * (1 << 20));
  EXPECT_THROW_MSG(cuda::synchronize(cuda::device_count()), "cuda::synchronize: device cuda:");
}

TEST(CudaRuntimeTest, MemoryStatisticsNeedAGpu) {
  if (has_gpu()) GTEST_SKIP() << "a GPU is present";
  EXPECT_THROW_MSG(cuda::synchronize(0), "cuda::synchronize");
  EXPECT_THROW_MSG(cuda::memory_allocated(0), "cuda::memory_allocated");
  EXPECT_THROW_MSG(cuda::memory_reserved(0), "cuda::memory_reserved");
  cuda::empty_cache();  // nothing cached, nothing to do
}

TEST(CudaRuntimeTest, TensorsAreCountedAndTheirMemoryCached) {
  if (!has_gpu()) GTEST_SKIP() << "needs a GPU";
  cuda::empty_cache();
  const size_t before = cuda::memory_allocated(0);
  {
    Tensor t = zeros({1 << 20}, Device("cuda:0"));  // 4 MiB
    EXPECT_EQ(cuda::memory_allocated(0), before + (size_t{4} << 20));
    EXPECT_GE(cuda::max_memory_allocated(0), before + (size_t{4} << 20));
  }
  EXPECT_EQ(cuda::memory_allocated(0), before);
  const size_t reserved = cuda::memory_reserved(0);
  EXPECT_GE(reserved, size_t{4} << 20);  // kept for the next tensor
  Tensor again = zeros({1 << 20}, Device("cuda:0"));
  EXPECT_EQ(cuda::memory_reserved(0), reserved);  // served from the cache
}

TEST(CudaRuntimeTest, OutOfMemoryIsAnErrorAndTheGpuStaysUsable) {
  if (!has_gpu()) GTEST_SKIP() << "needs a GPU";
  const int64_t too_many = static_cast<int64_t>(cuda::device_properties(0).total_memory);
  EXPECT_THROW_MSG(empty({too_many}, Device("cuda:0")), "CUDA out of memory. Tried to allocate");
  Tensor t = full({16}, 2, Device("cuda:0"));
  EXPECT_EQ(t.to(Device("cpu:0")).to_vector<double>(), std::vector<double>(16, 2.0));
}

}  // namespace
}  // namespace torchlet
