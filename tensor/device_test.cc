#include "tensor/device.h"

#include <cstdlib>
#include <iostream>
#include <sstream>

#include "gtest/gtest.h"
#include "tensor/cuda/cuda_runtime.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

class CpuDevices : public ::testing::Test {
 protected:
  void TearDown() override { set_cpu_device_count(1); }
};

TEST(DeviceTest, ParsesAndPrintsIndexedDevices) {
  EXPECT_EQ(Device("cpu:1"), Device(kCPU, 1));
  EXPECT_EQ(Device("cuda:0"), Device(kCUDA, 0));
  EXPECT_EQ(Device("cpu").str(), "cpu:0");
  std::ostringstream out;
  out << Device(kCUDA, 3);
  EXPECT_EQ(out.str(), "cuda:3");
}

TEST(DeviceTest, RejectsMalformedStrings) {
  EXPECT_THROW_MSG(Device("tpu:0"), "Expected one of cpu, cuda device type");
  EXPECT_THROW_MSG(Device("cpu:x"), "Invalid device string: 'cpu:x'");
  EXPECT_THROW_MSG(Device("cpu:"), "Invalid device string");
}

TEST_F(CpuDevices, DefaultsToOneCpuDevice) { EXPECT_EQ(cpu_device_count(), 1); }

TEST_F(CpuDevices, CountIsSettable) {
  set_cpu_device_count(3);
  EXPECT_EQ(cpu_device_count(), 3);
  EXPECT_NO_THROW(check_device_exists(Device("cpu:2"), "test"));
}

TEST_F(CpuDevices, IndexBeyondCountIsAnError) {
  EXPECT_THROW_MSG(zeros({2}, Device("cpu:1")), "empty: device cpu:1 does not exist (1 CPU device");
  EXPECT_THROW_MSG(set_cpu_device_count(0),
                   "set_cpu_device_count: expected a count in [1, 1024], got 0");
  EXPECT_THROW_MSG(set_cpu_device_count(1025),
                   "set_cpu_device_count: expected a count in [1, 1024], got 1025");
}

// The variable is read once, on the first use of the CPU device count: run
// in a fresh process, which reads it.
TEST(DeviceTest, MalformedCpuDeviceCountInTheEnvironmentIsAnError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const auto first_use = [] {
    try {
      cpu_device_count();
    } catch (const Error& e) {
      std::cerr << e.what() << std::endl;
      std::exit(1);
    }
    std::exit(0);
  };
  ASSERT_EQ(setenv("TORCHLET_CPU_DEVICES", "4x", 1), 0);
  EXPECT_EXIT(first_use(), ::testing::ExitedWithCode(1),
              "TORCHLET_CPU_DEVICES must be an integer in \\[1, 1024\\], got '4x'");
  unsetenv("TORCHLET_CPU_DEVICES");
}

TEST(DeviceTest, CudaDevicesAreAbsentWithoutGpu) {
  if (cuda::device_count() > 0) GTEST_SKIP() << "a GPU is present";
  EXPECT_EQ(cuda_device_count(), 0);
  EXPECT_THROW_MSG(zeros({2}, Device("cuda:0")), "device cuda:0 does not exist (0 CUDA devices");
}

TEST_F(CpuDevices, DeviceGuardSetsTheCurrentDeviceForFactories) {
  set_cpu_device_count(2);
  EXPECT_EQ(current_device(), Device("cpu:0"));
  {
    DeviceGuard guard(Device("cpu:1"));
    EXPECT_EQ(zeros({2}).device(), Device("cpu:1"));
    EXPECT_EQ(zeros({2}, Device("cpu:0")).device(), Device("cpu:0"));
  }
  EXPECT_EQ(current_device(), Device("cpu:0"));
}

TEST_F(CpuDevices, DeviceGuardRejectsMissingDevice) {
  EXPECT_THROW_MSG(DeviceGuard guard(Device("cpu:5")), "DeviceGuard: device cpu:5 does not exist");
}

TEST_F(CpuDevices, MixingDevicesInOneOpNamesBoth) {
  set_cpu_device_count(2);
  Tensor a = ones({2}, Device("cpu:0"));
  Tensor b = ones({2}, Device("cpu:1"));
  EXPECT_THROW_MSG(a + b, "add: Expected all tensors to be on the same device, but found at least "
                          "two devices, cpu:0 and cpu:1!");
}

TEST_F(CpuDevices, ToCopiesAcrossCpuDevices) {
  set_cpu_device_count(2);
  Tensor a = arange(4);
  Tensor b = a.to(Device("cpu:1"));
  EXPECT_EQ(b.device(), Device("cpu:1"));
  EXPECT_FALSE(b.shares_storage(a));
  EXPECT_EQ(b.to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3}));
}

// Copies onto another core's device take the streaming path from 16 KB on
// (Note [Copies for another core]): every byte arrives whatever the
// alignment of either side and whatever is left after the whole lines.
TEST_F(CpuDevices, LargeCopiesOntoAnotherDeviceKeepEveryByteAtAnyAlignment) {
  set_cpu_device_count(2);
  const Tensor source = arange(20000, TensorOptions(kInt32));
  Tensor target = full({20000}, -1, TensorOptions(kInt32).device(Device("cpu:1")));
  for (int64_t numel : {4096, 4111, 19000}) {
    for (int64_t src_at : {0, 3}) {
      for (int64_t dst_at : {0, 1, 7, 16}) {
        target.fill_(-1);
        target.narrow(0, dst_at, numel).copy_(source.narrow(0, src_at, numel));
        const std::vector<int32_t> got = target.to_vector<int32_t>();
        int64_t wrong = 0;
        for (int64_t i = 0; i < 20000; ++i) {
          const int32_t want = i >= dst_at && i < dst_at + numel ? static_cast<int32_t>(i - dst_at + src_at) : -1;
          wrong += got[static_cast<size_t>(i)] != want;
        }
        EXPECT_EQ(wrong, 0) << numel << " elements from " << src_at << " to " << dst_at;
      }
    }
  }
  const Tensor moved = source.to(Device("cpu:1"));
  EXPECT_EQ(moved.to_vector<int32_t>(), source.to_vector<int32_t>());
}

}  // namespace
}  // namespace torchlet
