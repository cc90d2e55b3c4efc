#include "tensor/cuda/cuda_runtime.h"

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

TEST(CudaRuntimeTest, OpsOnCudaTensorsNameTheLimit) {
  if (!has_gpu()) GTEST_SKIP() << "needs a GPU";
  Tensor t = zeros({4}, Device("cuda:0"));
  EXPECT_THROW_MSG(t.exp(), "exp: not available for CUDA tensors in this build");
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

}  // namespace
}  // namespace torchlet
