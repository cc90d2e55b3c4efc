// The backward engine on GPUs (Note [Streams] in tensor/cuda/stream.h):
// nodes on a GPU run on its executor's stream, and the caller's stream waits
// for them when backward returns. Skipped without a GPU.
#include <vector>

#include "autograd/autograd.h"
#include "gtest/gtest.h"
#include "tensor/cuda/cuda_runtime.h"
#include "tensor/cuda/stream.h"
#include "tensor/test_util.h"

namespace torchlet::autograd {
namespace {

bool has_gpu() { return cuda::device_count() > 0; }

const Device kGpu("cuda:0");

// y = 2x, whose backward first spins the GPU for ~0.1 s, so that a reader
// that did not wait for the backward's stream sees an unfinished gradient.
struct SlowDouble : Function<SlowDouble> {
  static Variable forward(AutogradContext*, const Variable& x) { return x * 2; }
  static variable_list backward(AutogradContext*, variable_list grads) {
    backward_streams().push_back(cuda::current_stream(0));
    cuda::sleep_cycles(0, 200'000'000);
    return {grads[0] * 2};
  }
  static std::vector<cuda::Stream>& backward_streams() {
    static std::vector<cuda::Stream> streams;
    return streams;
  }
};

TEST(CudaEngineTest, BackwardOnAGpuExecutorIsJoinedToTheCallersStream) {
  if (!has_gpu()) GTEST_SKIP() << "needs a GPU";
  const cuda::Stream s = cuda::Stream::create(0);
  cuda::StreamGuard guard(s);  // waits for no other stream by itself
  const Variable w(ones({1 << 20}, kGpu), /*requires_grad=*/true);
  SlowDouble::backward_streams().clear();
  SlowDouble::apply(w).sum().backward();
  ASSERT_EQ(SlowDouble::backward_streams().size(), 1u);
  EXPECT_NE(SlowDouble::backward_streams()[0], s);  // the executor's own
  // Read on the caller's stream right away.
  const Tensor g = w.grad().data().to(Device("cpu:0"));
  for (int64_t i = 0; i < g.numel(); ++i) ASSERT_EQ(g.data<float>()[i], 2.0f) << i;
}

// y = x on the CPU for x on the GPU; its node runs on the CPU, and its
// backward queues the GPU gradient behind a ~0.1 s spin on the caller's
// stream, handing it to a GPU node (another thread, another stream).
struct SlowlyToCpu : Function<SlowlyToCpu> {
  static Variable forward(AutogradContext*, const Variable& x) {
    return Variable(x.data().to(Device("cpu:0")));
  }
  static variable_list backward(AutogradContext*, variable_list grads) {
    const Tensor g = grads[0].data().to(kGpu);
    cuda::sleep_cycles(0, 200'000'000);
    return {Variable(g * 3)};
  }
};

TEST(CudaEngineTest, AGpuGradientMadeByAnotherDevicesNodeIsWaitedFor) {
  if (!has_gpu()) GTEST_SKIP() << "needs a GPU";
  const cuda::Stream s = cuda::Stream::create(0);
  cuda::StreamGuard guard(s);
  const Variable w(ones({1 << 20}, kGpu), /*requires_grad=*/true);
  // w's AccumulateGrad runs on the GPU's executor and must wait for the
  // CPU node's work on s.
  SlowlyToCpu::apply(w * 1).sum().backward();
  const Tensor g = w.grad().data().to(Device("cpu:0"));
  for (int64_t i = 0; i < g.numel(); ++i) ASSERT_EQ(g.data<float>()[i], 3.0f) << i;
}

}  // namespace
}  // namespace torchlet::autograd
