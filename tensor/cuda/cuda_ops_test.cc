// Ops on CUDA tensors against the same ops on the CPU, on the same inputs:
// strided, broadcast and wrapped-number operands, every computing dtype.
// Each test is skipped, saying so, where no GPU is present.
#include <cmath>
#include <functional>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/cuda/cuda_runtime.h"
#include "tensor/tensor.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::all_close;

#define REQUIRE_GPU() \
  if (cuda::device_count() == 0) GTEST_SKIP() << "needs a GPU (none present, or built without --config=cuda)"

const Device kGpu("cuda:0");
const Device kCpu("cpu:0");

Tensor gpu(const Tensor& t) { return t.to(kGpu); }
Tensor host(const Tensor& t) { return t.to(kCpu); }

double rtol_for(DType dtype) { return dtype == kFloat32 ? 1e-5 : 1e-12; }

// `fn` on the CPU inputs and on their GPU copies gives the same result.
::testing::AssertionResult same_on_gpu(const std::function<Tensor(const std::vector<Tensor>&)>& fn,
                                       const std::vector<Tensor>& inputs, double rtol = 1e-5,
                                       double atol = 1e-6) {
  std::vector<Tensor> on_gpu;
  for (const Tensor& t : inputs) on_gpu.push_back(gpu(t));
  const Tensor expected = fn(inputs);
  const Tensor actual = fn(on_gpu);
  if (actual.device() != kGpu) {
    return ::testing::AssertionFailure() << "result on " << actual.device();
  }
  if (actual.dtype() != expected.dtype()) {
    return ::testing::AssertionFailure() << "dtype " << actual.dtype() << " vs " << expected.dtype();
  }
  return all_close(host(actual), expected, rtol, atol);
}

Tensor sample(IntArrayRef shape, DType dtype, uint64_t seed = 1) {
  manual_seed(seed);
  Tensor t = randn(shape) * 4;
  if (dtype == kBool) return t.gt(0);
  if (dtype == kUInt8) return t.abs().to(kUInt8);
  return is_floating_point(dtype) ? t.to(dtype) : t.round().to(dtype);
}

const std::vector<DType> kDtypes = {kFloat32, kFloat64, kInt64, kInt32, kUInt8, kBool};

TEST(CudaOpsTest, CopiesConvertEveryDtypePair) {
  REQUIRE_GPU();
  for (DType from : kDtypes) {
    for (DType to : kDtypes) {
      const Tensor src = sample({37, 5}, from);
      EXPECT_TRUE(same_on_gpu([to](auto& in) { return in[0].to(to); }, {src}))
          << from << " -> " << to;
    }
  }
}

TEST(CudaOpsTest, CopiesHandleStridedSourcesAndDestinations) {
  REQUIRE_GPU();
  const Tensor src = sample({64, 48}, kFloat32);
  EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].t().contiguous(); }, {src}));
  EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].slice(1, 1, 40, 3).contiguous(); }, {src}));
  EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0][3].expand({7, 48}).contiguous(); }, {src}));
  // Into a non-contiguous destination, on the GPU and across devices.
  Tensor dst = zeros({48, 64}, kGpu).t();
  dst.copy_(src);
  EXPECT_TRUE(all_close(host(dst), src));
  Tensor back = zeros({48, 64}).t();
  back.copy_(gpu(src).t().contiguous().t());
  EXPECT_TRUE(all_close(back, src));
  Tensor half = gpu(src).to(kFloat16);
  EXPECT_TRUE(all_close(host(half).to(kFloat32), src.to(kFloat16).to(kFloat32)));
}

TEST(CudaOpsTest, FillWritesStridedViews) {
  REQUIRE_GPU();
  Tensor t = zeros({6, 8}, kGpu);
  t.slice(1, 0, std::nullopt, 2).fill_(5);
  Tensor expected = zeros({6, 8});
  expected.slice(1, 0, std::nullopt, 2).fill_(5);
  EXPECT_TRUE(all_close(host(t), expected));
}

TEST(CudaOpsTest, BinaryOpsMatchTheCpuInEveryDtype) {
  REQUIRE_GPU();
  using Fn = std::function<Tensor(const std::vector<Tensor>&)>;
  const std::vector<std::pair<const char*, Fn>> ops = {
      {"add", [](auto& in) { return add(in[0], in[1], 2); }},
      {"sub", [](auto& in) { return in[0] - in[1]; }},
      {"mul", [](auto& in) { return in[0] * in[1]; }},
      {"maximum", [](auto& in) { return maximum(in[0], in[1]); }},
      {"minimum", [](auto& in) { return minimum(in[0], in[1]); }},
      {"eq", [](auto& in) { return eq(in[0], in[1]); }},
      {"lt", [](auto& in) { return lt(in[0], in[1]); }},
      {"ge", [](auto& in) { return ge(in[0], in[1]); }},
      {"logical_and", [](auto& in) { return logical_and(in[0], in[1]); }},
  };
  for (DType dtype : kDtypes) {
    const Tensor a = sample({33, 17}, dtype, 1);
    const Tensor b = sample({17}, dtype, 2);  // broadcast along rows
    for (const auto& [name, fn] : ops) {
      if (dtype == kBool && (std::string(name) == "sub" || std::string(name) == "add")) continue;
      EXPECT_TRUE(same_on_gpu(fn, {a, b})) << name << " " << dtype;
      EXPECT_TRUE(same_on_gpu(fn, {a.t(), b.view({17, 1})})) << name << " strided " << dtype;
    }
  }
}

TEST(CudaOpsTest, DivisionFamilyMatchesTheCpu) {
  REQUIRE_GPU();
  for (DType dtype : {kFloat32, kFloat64, kInt64, kInt32}) {
    const Tensor a = sample({50}, dtype, 3);
    const Tensor b = where(sample({50}, dtype, 4).eq(0), ones({50}, dtype),
                           sample({50}, dtype, 4));
    EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0] / in[1]; }, {a, b})) << dtype;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return floor_divide(in[0], in[1]); }, {a, b}))
        << dtype;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return remainder(in[0], in[1]); }, {a, b})) << dtype;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return fmod(in[0], in[1]); }, {a, b})) << dtype;
  }
}

TEST(CudaOpsTest, WrappedNumbersAndTypePromotionFollowTheCpu) {
  REQUIRE_GPU();
  const Tensor i = sample({40}, kInt32);
  const Tensor f = sample({40}, kFloat32);
  EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0] + 2; }, {i}));
  EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0] * 0.5; }, {i}));   // float32 result
  EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0] + in[1]; }, {i, f}));
  EXPECT_TRUE(same_on_gpu([](auto& in) { return pow(in[0], 2.0); }, {f}));
  EXPECT_TRUE(same_on_gpu([](auto& in) { return remainder(3.5, in[0]); }, {f}));
  EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].gt(0.25); }, {f}));
}

TEST(CudaOpsTest, InPlaceOpsWriteTheirOperand) {
  REQUIRE_GPU();
  const Tensor a = sample({20, 30}, kFloat32, 5);
  const Tensor b = sample({30}, kFloat32, 6);
  EXPECT_TRUE(same_on_gpu([](auto& in) { Tensor t = in[0].clone(); t.add_(in[1], 0.5); return t; },
                          {a, b}));
  EXPECT_TRUE(same_on_gpu([](auto& in) { Tensor t = in[0].clone(); t.mul_(3); return t; }, {a}));
  EXPECT_TRUE(same_on_gpu([](auto& in) { Tensor t = in[0].clone(); t.relu_(); return t; }, {a}));
  EXPECT_TRUE(same_on_gpu([](auto& in) { Tensor t = in[0].clone().t(); t.sub_(in[1].view({30, 1})); return t; },
                          {a, b}));
}

TEST(CudaOpsTest, UnaryOpsMatchTheCpu) {
  REQUIRE_GPU();
  using Fn = std::function<Tensor(const std::vector<Tensor>&)>;
  const std::vector<std::pair<const char*, Fn>> ops = {
      {"exp", [](auto& in) { return exp(in[0]); }},
      {"log", [](auto& in) { return log(abs(in[0]) + 0.1); }},
      {"sqrt", [](auto& in) { return sqrt(abs(in[0])); }},
      {"sigmoid", [](auto& in) { return sigmoid(in[0]); }},
      {"tanh", [](auto& in) { return tanh(in[0]); }},
      {"gelu", [](auto& in) { return gelu(in[0]); }},
      {"gelu_tanh", [](auto& in) { return gelu(in[0], "tanh"); }},
      {"relu", [](auto& in) { return relu(in[0]); }},
      {"neg", [](auto& in) { return neg(in[0]); }},
      {"abs", [](auto& in) { return abs(in[0]); }},
      {"sign", [](auto& in) { return sign(in[0]); }},
      {"round", [](auto& in) { return round(in[0]); }},
      {"floor", [](auto& in) { return floor(in[0]); }},
      {"isnan", [](auto& in) { return isnan(in[0] / in[0]); }},
      {"logical_not", [](auto& in) { return logical_not(in[0]); }},
  };
  for (DType dtype : {kFloat32, kFloat64}) {
    const Tensor x = sample({257}, dtype, 7);
    for (const auto& [name, fn] : ops) {
      EXPECT_TRUE(same_on_gpu(fn, {x}, rtol_for(dtype) * 10)) << name << " " << dtype;
    }
  }
  const Tensor ints = sample({100}, kInt64, 8);
  EXPECT_TRUE(same_on_gpu([](auto& in) { return exp(in[0]); }, {ints}));  // float32 result
  EXPECT_TRUE(same_on_gpu([](auto& in) { return abs(in[0]); }, {ints}));
}

TEST(CudaOpsTest, WhereClampAndMaskedFillMatchTheCpu) {
  REQUIRE_GPU();
  const Tensor x = sample({30, 4}, kFloat32, 9);
  const Tensor c = sample({4}, kBool, 10);
  EXPECT_TRUE(same_on_gpu([](auto& in) { return where(in[1], in[0], -in[0]); }, {x, c}));
  EXPECT_TRUE(same_on_gpu([](auto& in) { return where(in[1], in[0], 0.0); }, {x, c}));
  EXPECT_TRUE(same_on_gpu([](auto& in) { return clamp(in[0], -1, 1.5); }, {x}));
  EXPECT_TRUE(same_on_gpu([](auto& in) { return clamp(in[0], std::nullopt, 0); }, {x}));
  EXPECT_TRUE(same_on_gpu([](auto& in) { return masked_fill(in[0], in[1], 7); }, {x, c}));
}

TEST(CudaOpsTest, ReductionsMatchTheCpu) {
  REQUIRE_GPU();
  for (DType dtype : {kFloat32, kFloat64, kInt64, kInt32, kUInt8, kBool}) {
    const Tensor x = sample({23, 19, 7}, dtype, 11);
    const double rtol = is_floating_point(dtype) ? rtol_for(dtype) : 0;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].sum(); }, {x}, rtol)) << dtype;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].sum({0, 2}); }, {x}, rtol)) << dtype;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].sum({1}, true); }, {x}, rtol)) << dtype;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].amax({1}); }, {x})) << dtype;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].amin(); }, {x})) << dtype;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].any(2); }, {x})) << dtype;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].all(0); }, {x})) << dtype;
    if (dtype != kBool) {
      EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].argmax(1); }, {x})) << dtype;
      EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].argmin(); }, {x})) << dtype;
      EXPECT_TRUE(same_on_gpu([](auto& in) { return std::get<0>(in[0].max(2)); }, {x})) << dtype;
    }
  }
  const Tensor f = sample({23, 19, 7}, kFloat32, 12);
  EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].mean({0}); }, {f}));
  EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].prod(1); }, {f / 4}, 1e-4));
}

TEST(CudaOpsTest, LargeReductionsSplitAcrossBlocksAndStillMatch) {
  REQUIRE_GPU();
  const Tensor big = sample({3, 1 << 20}, kFloat32, 13);
  EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].sum(); }, {big}, 1e-5, 1e-2));
  EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].sum({1}); }, {big}, 1e-5, 1e-2));
  EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].amax({1}); }, {big}));
  EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].argmax(1); }, {big}));
  EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].t().sum({0}); }, {big}, 1e-5, 1e-2));
}

TEST(CudaOpsTest, ArgmaxTakesTheFirstOfTiesAndOfNans) {
  REQUIRE_GPU();
  const Tensor x = gpu(tensor({{1.0, 3.0, 3.0, 0.0}, {NAN, 2.0, NAN, 5.0}}));
  EXPECT_EQ(host(x.argmax(1)).to_vector<int64_t>(), (std::vector<int64_t>{1, 0}));
  EXPECT_TRUE(std::isnan(host(x.amax()).item<double>()));
}

TEST(CudaOpsTest, SoftmaxAndItsGradientMatchTheCpu) {
  REQUIRE_GPU();
  for (DType dtype : {kFloat32, kFloat64}) {
    const Tensor x = sample({31, 10}, dtype, 14);
    const Tensor g = sample({31, 10}, dtype, 15);
    const double rtol = rtol_for(dtype) * 10;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return softmax(in[0], 1); }, {x}, rtol)) << dtype;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return log_softmax(in[0], 0); }, {x}, rtol)) << dtype;
    EXPECT_TRUE(same_on_gpu(
        [](auto& in) { return softmax_backward(in[1], softmax(in[0], 1), 1); }, {x, g}, rtol))
        << dtype;
    EXPECT_TRUE(same_on_gpu(
        [](auto& in) { return log_softmax_backward(in[1], log_softmax(in[0], 0), 0); }, {x, g},
        rtol))
        << dtype;
  }
}

TEST(CudaOpsTest, MatrixProductsMatchTheCpuInEveryLayout) {
  REQUIRE_GPU();
  for (DType dtype : {kFloat32, kFloat64}) {
    const Tensor a = sample({65, 33}, dtype, 16);
    const Tensor b = sample({33, 47}, dtype, 17);
    const Tensor bias = sample({47}, dtype, 18);
    const double rtol = dtype == kFloat32 ? 1e-4 : 1e-12;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return mm(in[0], in[1]); }, {a, b}, rtol, 1e-4));
    EXPECT_TRUE(same_on_gpu([](auto& in) { return mm(in[0].t().contiguous().t(), in[1]); },
                            {a, b}, rtol, 1e-4));
    EXPECT_TRUE(same_on_gpu([](auto& in) { return mm(in[0], in[1].t().contiguous().t()); },
                            {a, b}, rtol, 1e-4));
    EXPECT_TRUE(same_on_gpu([](auto& in) { return addmm(in[2], in[0], in[1], 0.5, 2); },
                            {a, b, bias}, rtol, 1e-4));
    EXPECT_TRUE(same_on_gpu([](auto& in) { return mm(in[0].slice(1, 0, 33, 2), in[1].slice(0, 0, 33, 2)); },
                            {a, b}, rtol, 1e-4));
    const Tensor batch1 = sample({4, 9, 5}, dtype, 19);
    const Tensor batch2 = sample({4, 5, 6}, dtype, 20);
    EXPECT_TRUE(same_on_gpu([](auto& in) { return bmm(in[0], in[1]); }, {batch1, batch2}, rtol,
                            1e-4));
    EXPECT_TRUE(same_on_gpu([](auto& in) { return matmul(in[0], in[1][0]); }, {batch1, batch2},
                            rtol, 1e-4));
  }
}

TEST(CudaOpsTest, ProductsWithAnEmptyInnerDimAreZero) {
  REQUIRE_GPU();
  const Tensor out = mm(zeros({3, 0}, kGpu), zeros({0, 4}, kGpu));
  EXPECT_TRUE(all_close(host(out), zeros({3, 4})));
}

TEST(CudaOpsTest, Float16ArithmeticIsRefusedByName) {
  REQUIRE_GPU();
  const Tensor h = zeros({4}, TensorOptions(kFloat16).device(kGpu));
  EXPECT_THROW_MSG(h + h, "float16 tensors on CUDA devices are not supported yet");
}

TEST(CudaOpsTest, MixingDevicesNamesBoth) {
  REQUIRE_GPU();
  EXPECT_THROW_MSG(zeros({2}, kGpu) + zeros({2}),
                   "Expected all tensors to be on the same device, but found at least two "
                   "devices, cuda:0 and cpu:0!");
}

}  // namespace
}  // namespace torchlet
