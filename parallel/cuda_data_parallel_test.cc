// DataParallel over CUDA devices against the plain module: one GPU runs the
// module directly, two or more replicate it. Skipped without a GPU.
#include <vector>

#include "nn/nn.h"
#include "nn/optim/optim.h"
#include "parallel/comm.h"
#include "parallel/data_parallel.h"
#include "tensor/cuda/cuda_runtime.h"
#include "tensor/test_util.h"

namespace torchlet::parallel {
namespace {

using ::torchlet::testing::all_close;

#define REQUIRE_GPUS(n)             \
  if (cuda::device_count() < (n)) \
  GTEST_SKIP() << "needs " << (n) << " GPU(s), " << cuda::device_count() << " present"

nn::Sequential mlp() { return nn::Sequential(nn::Linear(6, 16), nn::ReLU(), nn::Linear(16, 3)); }

nn::Sequential copy_of(const nn::Sequential& seq) {
  return nn::Sequential(std::dynamic_pointer_cast<nn::SequentialImpl>(seq->clone()));
}

void expect_matches_plain_module(const std::vector<DeviceId>& devices) {
  manual_seed(11);
  nn::Sequential seq = mlp();
  seq->to(Device("cuda:0"));
  nn::Sequential plain = copy_of(seq);
  DataParallel dp(seq, devices);
  const Variable x(randn({20, 6}).to(Device("cuda:0")));
  const Variable y = dp(x);
  EXPECT_EQ(y.device(), Device("cuda:0"));
  const Variable expected = plain(x);
  EXPECT_TRUE(all_close(y.data().to(Device("cpu:0")), expected.data().to(Device("cpu:0")), 1e-5,
                        1e-6));
  (y * y).sum().backward();
  (expected * expected).sum().backward();
  const std::vector<Variable> a = seq->parameters(), b = plain->parameters();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_TRUE(a[i].grad().defined()) << "parameter " << i;
    EXPECT_TRUE(all_close(a[i].grad().data().to(Device("cpu:0")),
                          b[i].grad().data().to(Device("cpu:0")), 1e-4, 1e-5))
        << "parameter " << i;
  }
}

TEST(CudaDataParallelTest, OneGpuRunsTheModuleItself) {
  REQUIRE_GPUS(1);
  expect_matches_plain_module({Device("cuda:0")});
}

TEST(CudaDataParallelTest, TwoGpusMatchThePlainModule) {
  REQUIRE_GPUS(2);
  expect_matches_plain_module({Device("cuda:0"), Device("cuda:1")});
}

// Note [NCCL paths]: each dtype's tensors as one buffer per GPU.
TEST(CudaDataParallelTest, CommMovesTensorsBetweenGpusThroughNccl) {
  REQUIRE_GPUS(2);
  const Device gpu0("cuda:0"), gpu1("cuda:1"), cpu("cpu:0");
  manual_seed(3);
  const std::vector<Tensor> tensors = {randn({4, 5}).to(gpu0), randn({7}).to(gpu0),
                                       randint(0, 9, {3}).to(gpu0), randn({2, 2}).to(gpu0)};
  const std::vector<std::vector<Tensor>> copies =
      comm::broadcast_coalesced(tensors, {gpu0, gpu1});
  ASSERT_EQ(copies.size(), 2u);
  for (size_t i = 0; i < tensors.size(); ++i) {
    EXPECT_EQ(copies[1][i].device(), gpu1);
    EXPECT_TRUE(all_close(copies[1][i].to(cpu), tensors[i].to(cpu), 0, 0)) << i;
  }
  EXPECT_TRUE(copies[1][0].shares_storage(copies[1][1]));  // one float32 buffer
  const std::vector<Tensor> sums = comm::reduce_add_coalesced(copies, gpu1);
  for (size_t i = 0; i < tensors.size(); ++i) {
    EXPECT_EQ(sums[i].device(), gpu1);
    EXPECT_TRUE(all_close(sums[i].to(cpu), (tensors[i] * 2).to(cpu), 0, 0)) << i;
  }
}

TEST(CudaDataParallelTest, DefaultDevicesAreEveryGpu) {
  REQUIRE_GPUS(1);
  nn::Sequential seq = mlp();
  seq->to(Device("cuda:0"));
  DataParallel dp(seq);
  EXPECT_EQ(dp->device_ids().size(), static_cast<size_t>(cuda::device_count()));
}

TEST(CudaDataParallelTest, DeviceIdsOfTwoDeviceTypesAreRejected) {
  REQUIRE_GPUS(1);
  nn::Sequential seq = mlp();
  const std::vector<DeviceId> mixed{Device("cpu:0"), Device("cuda:0")};
  EXPECT_THROW_MSG(DataParallel(seq, mixed),
                   "DataParallel: device_ids must all be of one device type, got cpu:0 and cuda:0");
}

}  // namespace
}  // namespace torchlet::parallel
