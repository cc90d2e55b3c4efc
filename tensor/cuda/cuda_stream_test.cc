// Streams and events on GPUs (Note [Streams] in tensor/cuda/stream.h). The
// ordering tests queue a kernel that spins for ~0.1 s first, so work that
// skipped a wait would run while it spins and read stale data.
#include "tensor/cuda/stream.h"

#include <vector>

#include "gtest/gtest.h"
#include "tensor/cuda/cuda_runtime.h"
#include "tensor/executor.h"
#include "tensor/tensor.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

bool has_gpu() { return cuda::device_count() > 0; }

const Device kGpu("cuda:0");
// About 0.1 s on a 2 GHz GPU.
constexpr int64_t kLongSpin = 200'000'000;

std::vector<float> values(const Tensor& t) {
  const Tensor c = t.to(Device("cpu:0")).contiguous();
  return std::vector<float>(c.data<float>(), c.data<float>() + c.numel());
}

TEST(CudaStreamTest, StreamsNeedAGpu) {
  if (has_gpu()) GTEST_SKIP() << "a GPU is present";
  EXPECT_THROW_MSG(cuda::current_stream(0), "cuda::current_stream");
  EXPECT_THROW_MSG(cuda::Stream::create(0), "cuda::Stream::create");
  EXPECT_THROW_MSG(cuda::sleep_cycles(0, 1), "cuda::sleep_cycles");
  cuda::Event never_recorded;
  EXPECT_TRUE(never_recorded.query());
  EXPECT_TRUE(cuda::Stream().is_default());
}

TEST(CudaStreamTest, CurrentStreamIsTheDefaultUntilAGuardPicksAnother) {
  if (!has_gpu()) GTEST_SKIP() << "needs a GPU";
  EXPECT_EQ(cuda::current_stream(0), cuda::default_stream(0));
  EXPECT_TRUE(cuda::current_stream(0).is_default());
  const cuda::Stream s = cuda::Stream::create(0);
  EXPECT_FALSE(s.is_default());
  EXPECT_EQ(s.device_index(), 0);
  {
    cuda::StreamGuard guard(s);
    EXPECT_EQ(cuda::current_stream(0), s);
  }
  EXPECT_TRUE(cuda::current_stream(0).is_default());
  EXPECT_THROW_MSG(cuda::current_stream(cuda::device_count()),
                   "cuda::current_stream: device cuda:");
}

TEST(CudaStreamTest, EventsMarkWhereAStreamsWorkHasGot) {
  if (!has_gpu()) GTEST_SKIP() << "needs a GPU";
  const cuda::Stream s = cuda::Stream::create(0);
  cuda::Event start(/*enable_timing=*/true), end(/*enable_timing=*/true);
  start.record(s);
  {
    cuda::StreamGuard guard(s);
    cuda::sleep_cycles(0, kLongSpin);
  }
  end.record(s);
  EXPECT_FALSE(end.query());
  EXPECT_FALSE(s.query());
  end.synchronize();
  EXPECT_TRUE(end.query());
  EXPECT_TRUE(s.query());
  EXPECT_GT(start.elapsed_time(end), 1.0f);  // milliseconds
  cuda::Event untimed;
  untimed.record(s);
  EXPECT_THROW_MSG(untimed.elapsed_time(end), "cuda::Event::elapsed_time: both events must be "
                   "made with enable_timing=true");
}

TEST(CudaStreamTest, OpsQueueOnTheCurrentStream) {
  if (!has_gpu()) GTEST_SKIP() << "needs a GPU";
  const cuda::Stream s = cuda::Stream::create(0);
  Tensor a = ones({256, 256}, kGpu);
  Tensor b = full({256, 256}, 2.0, kGpu);
  cuda::StreamGuard guard(s);
  // A first pass makes what may synchronize the host: the cuBLAS handle of
  // this stream and the memory blocks it uses.
  const auto ops = [&] {
    a.fill_(3.0);                    // a fill
    Tensor c = a.mm(b).add(1.0);     // cuBLAS, then an elementwise kernel
    return c.sum();                  // a reduction
  };
  ops();
  s.synchronize();
  a.fill_(1.0);
  cuda::sleep_cycles(0, kLongSpin);
  const Tensor total = ops();
  EXPECT_FALSE(s.query());  // queued behind the spin, not waited for
  // Reading on the host copies on s, after everything above.
  EXPECT_EQ(total.item<float>(), 256.0f * 256.0f * (3.0f * 2.0f * 256.0f + 1.0f));
  EXPECT_TRUE(s.query());
}

TEST(CudaStreamTest, WaitStreamOrdersTwoStreams) {
  if (!has_gpu()) GTEST_SKIP() << "needs a GPU";
  const cuda::Stream producer = cuda::Stream::create(0);
  const cuda::Stream consumer = cuda::Stream::create(0);
  Tensor x = zeros({1 << 20}, kGpu);
  cuda::synchronize(0);
  {
    cuda::StreamGuard guard(producer);
    cuda::sleep_cycles(0, kLongSpin);
    x.fill_(1.0);
  }
  consumer.wait_stream(producer);
  cuda::StreamGuard guard(consumer);
  const Tensor y = x + 1;
  for (float v : values(y)) ASSERT_EQ(v, 2.0f);
}

TEST(CudaStreamTest, MemoryIsReusedOnlyByTheStreamThatFreedIt) {
  if (!has_gpu()) GTEST_SKIP() << "needs a GPU";
  const cuda::Stream s = cuda::Stream::create(0);
  void* freed_on_s = nullptr;
  {
    cuda::StreamGuard guard(s);
    freed_on_s = empty({1 << 18}, kGpu).data_ptr();
  }
  const Tensor on_default = empty({1 << 18}, kGpu);
  EXPECT_NE(on_default.data_ptr(), freed_on_s);
  cuda::StreamGuard guard(s);
  EXPECT_EQ(empty({1 << 18}, kGpu).data_ptr(), freed_on_s);
}

TEST(CudaStreamTest, RecordStreamNeedsAGpuTensor) {
  EXPECT_THROW_MSG(ones({2}).record_stream(cuda::Stream()),
                   "record_stream: expected a CUDA tensor, but got a 'cpu:0' tensor");
}

TEST(CudaStreamTest, RecordStreamKeepsFreedMemoryUntilThatStreamIsDone) {
  if (!has_gpu()) GTEST_SKIP() << "needs a GPU";
  const cuda::Stream side = cuda::Stream::create(0);
  Tensor x = empty({1 << 20}, kGpu);  // on the default stream
  x.fill_(3.0);
  void* const x_memory = x.data_ptr();
  side.wait_stream(cuda::current_stream(0));
  Tensor y;
  {
    cuda::StreamGuard guard(side);
    cuda::sleep_cycles(0, kLongSpin);
    y = x * 2;  // reads x once the spin is over
  }
  x.record_stream(side);
  x = Tensor();  // freed while `side` has yet to read it
  // Without the record, this would take x's memory and overwrite it while
  // `side` spins.
  Tensor z = empty({1 << 20}, kGpu);
  EXPECT_NE(z.data_ptr(), x_memory);
  z.fill_(-1.0);
  cuda::current_stream(0).wait_stream(side);
  for (float v : values(y)) ASSERT_EQ(v, 6.0f);
  side.synchronize();
  EXPECT_EQ(empty({1 << 20}, kGpu).data_ptr(), x_memory);  // reused once `side` is done
}

TEST(CudaStreamTest, ExecutorTasksRunOnTheirOwnStreamAfterTheSubmittersWork) {
  if (!has_gpu()) GTEST_SKIP() << "needs a GPU";
  // A stream of our own does not wait for others by itself, so only the
  // executor's events order the hand-offs.
  const cuda::Stream s = cuda::Stream::create(0);
  cuda::StreamGuard guard(s);
  Tensor x = zeros({1 << 20}, kGpu);
  cuda::sleep_cycles(0, kLongSpin);
  x.fill_(1.0);
  Tensor y;
  cuda::Stream task_stream;
  device_executor(kGpu).submit([&] {
    task_stream = cuda::current_stream(0);
    y = x + 1;
  }).get();
  EXPECT_NE(task_stream, s);
  EXPECT_FALSE(task_stream.is_default());
  // Read on s: after the task's work.
  for (float v : values(y * 2)) ASSERT_EQ(v, 4.0f);
}

}  // namespace
}  // namespace torchlet
