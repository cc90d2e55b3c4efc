// GPU benchmarks, named as the ones tools/bench_pytorch_cuda.py times with
// the device's PyTorch in the same call: GEMM (float32 without TF32, and
// bfloat16), a large add against a device-to-device copy of the same bytes
// (the bandwidth ceiling), and a LeNet-5 training step. Each iteration of
// the kernel benchmarks queues kBatch ops and synchronizes, and reports the
// time per op (manual time), as the PyTorch script times 20 ops per
// synchronization: the GPU's time, without one host round trip per op. Ten
// such iterations each (Google Benchmark would otherwise run each until
// half a second of per-op time had passed: twenty times that in all).
#include <chrono>

#include "benchmark/benchmark.h"
#include "examples/lenet.h"
#include "nn/functional/functional.h"
#include "nn/nn.h"
#include "nn/optim/optim.h"
#include "tensor/conv.h"
#include "tensor/cuda/cuda_runtime.h"

namespace torchlet {
namespace {

const Device kGpu("cuda:0");

bool skip_without_gpu(benchmark::State& state) {
  if (cuda::device_count() > 0) return false;
  state.SkipWithError("needs a GPU");
  return true;
}

constexpr int kBatch = 20;

// Runs `op` kBatch times per iteration, then synchronizes; the iteration's
// time is the time per op.
template <typename Op>
void time_batches(benchmark::State& state, Op&& op) {
  op();
  cuda::synchronize(0);
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kBatch; ++i) op();
    cuda::synchronize(0);
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    state.SetIterationTime(elapsed.count() / kBatch);
  }
}

// Arg 0: n; arg 1: 0 float32, 1 bfloat16, 2 bfloat16 with every partial
// sum in float32 (reduced-precision split-K sums turned off).
void BM_Gemm(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  const int64_t n = state.range(0);
  const DType dtype = state.range(1) == 0 ? kFloat32 : kBFloat16;
  cuda::set_matmul_allow_bf16_reduced_precision_reduction(state.range(1) != 2);
  manual_seed(0);
  const Tensor a = randn({n, n}).to(dtype).to(kGpu), b = randn({n, n}).to(dtype).to(kGpu);
  Tensor c;
  time_batches(state, [&] { c = a.mm(b); });
  cuda::set_matmul_allow_bf16_reduced_precision_reduction(true);
  state.counters["TFLOP/s"] = benchmark::Counter(2.0 * n * n * n * state.iterations() / 1e12,
                                                  benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Gemm)
    ->Args({4096, 0})
    ->Args({4096, 1})
    ->Args({4096, 2})
    ->Iterations(10)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

constexpr int64_t kLarge = int64_t{1} << 26;  // 256 MiB of float32

// Bytes moved per iteration: two read, one written.
void BM_AddLarge(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  const Tensor a = full({kLarge}, 1.0, kGpu), b = full({kLarge}, 2.0, kGpu);
  Tensor c;
  time_batches(state, [&] { c = a + b; });
  state.SetBytesProcessed(state.iterations() * kLarge * 4 * 3);
}
BENCHMARK(BM_AddLarge)->Iterations(10)->UseManualTime()->Unit(benchmark::kMillisecond);

// The bandwidth ceiling: one read, one write.
void BM_CopyLarge(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  const Tensor a = full({kLarge}, 1.0, kGpu);
  Tensor c = empty({kLarge}, kGpu);
  time_batches(state, [&] { c.copy_(a); });
  state.SetBytesProcessed(state.iterations() * kLarge * 4 * 2);
}
BENCHMARK(BM_CopyLarge)->Iterations(10)->UseManualTime()->Unit(benchmark::kMillisecond);

// examples/lenet_benchmark.cc's step (SGD with momentum, batch 64) on cuda:0.
void lenet_steps(benchmark::State& state) {
  manual_seed(0);
  nn::Sequential net = examples::make_lenet();
  net->to(kGpu);
  const Variable x(randn({64, 1, 28, 28}).to(kGpu));
  const Variable y(randint(0, 10, {64}).to(kGpu));
  optim::SGD opt(net->parameters(), optim::SGDOptions(0.01).momentum(0.9));
  for (auto _ : state) {
    opt.zero_grad();
    const Variable loss = nn::functional::cross_entropy(net->forward(x), y);
    loss.backward();
    opt.step();
    benchmark::DoNotOptimize(loss.item<float>());
  }
}

void BM_LenetStep(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  lenet_steps(state);
}
BENCHMARK(BM_LenetStep)->UseRealTime()->Unit(benchmark::kMillisecond);

// The same step with every convolution through cuDNN (by default LeNet's are
// too small for it: cuda::cudnn_min_macs).
void BM_LenetStepCudnn(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  if (!cuda::cudnn_is_available()) {
    state.SkipWithError("libcudnn.so.9 not found");
    return;
  }
  const int64_t min_macs = cuda::cudnn_min_macs();
  cuda::set_cudnn_min_macs(0);
  lenet_steps(state);
  cuda::set_cudnn_min_macs(min_macs);
}
BENCHMARK(BM_LenetStepCudnn)->UseRealTime()->Unit(benchmark::kMillisecond);

// A dense 3x3 convolution (64 to 64 channels, 56x56, batch 32, 4 or 1:
// 3.7G, 462M or 116M multiply-adds a pass), forward and both gradients, through
// im2col + cuBLAS (0) and cuDNN (1) with TF32 off
// (tools/bench_pytorch_cuda.py's BM_Conv2dFwdBwd/1/N is PyTorch's cuDNN
// path).
void BM_Conv2dFwdBwd(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  const bool cudnn = state.range(0) == 1;
  if (cudnn && !cuda::cudnn_is_available()) {
    state.SkipWithError("libcudnn.so.9 not found");
    return;
  }
  const int64_t batch = state.range(1);
  cuda::set_cudnn_enabled(cudnn);
  const int64_t min_macs = cuda::cudnn_min_macs();
  cuda::set_cudnn_min_macs(0);
  const bool tf32 = cuda::cudnn_allow_tf32();
  cuda::set_cudnn_allow_tf32(false);
  manual_seed(0);
  ConvParams p;
  p.stride = {1, 1};
  p.padding = {1, 1};
  p.dilation = {1, 1};
  p.output_padding = {0, 0};
  const Tensor x = randn({batch, 64, 56, 56}).to(kGpu);
  const Tensor w = randn({64, 64, 3, 3}).to(kGpu);
  const Tensor g = randn({batch, 64, 56, 56}).to(kGpu);
  ConvParams t = p;
  t.transposed = true;
  time_batches(state, [&] {
    benchmark::DoNotOptimize(convolution(x, w, Tensor(), p).data_ptr());
    benchmark::DoNotOptimize(convolution_backward_weight(x, g, w.sizes(), p).data_ptr());
    benchmark::DoNotOptimize(convolution(g, w, Tensor(), t).data_ptr());
  });
  cuda::set_cudnn_enabled(true);
  cuda::set_cudnn_min_macs(min_macs);
  cuda::set_cudnn_allow_tf32(tf32);
}
BENCHMARK(BM_Conv2dFwdBwd)->ArgsProduct({{0, 1}, {32, 4, 1}})->Iterations(10)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace torchlet
