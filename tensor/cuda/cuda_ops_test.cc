// Ops on CUDA tensors against the same ops on the CPU, on the same inputs:
// strided, broadcast and wrapped-number operands, every computing dtype.
// Each test is skipped, saying so, where no GPU is present.
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/cuda/cuda_runtime.h"
#include "tensor/conv.h"
#include "tensor/cuda/cudnn_conv.h"
#include "tensor/nn_kernels.h"
#include "tensor/norm.h"
#include "tensor/pool.h"
#include "tensor/sorting.h"
#include "tensor/optim_kernels.h"
#include "tensor/index_ops.h"
#include "tensor/tensor.h"
#include "tensor/cuda/gpu_test_util.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::all_close;
using testing::same_on_gpu;
using testing::sample;

const Device kGpu("cuda:0");
const Device kCpu("cpu:0");

Tensor gpu(const Tensor& t) { return t.to(kGpu); }

// A 2-d convolution's parameters: stride and dilation 1, `padding` on both
// sides of both dims.
ConvParams conv2d_params(int64_t padding) {
  ConvParams p;
  p.stride = {1, 1};
  p.padding = {padding, padding};
  p.dilation = {1, 1};
  p.output_padding = {0, 0};
  return p;
}
Tensor host(const Tensor& t) { return t.to(kCpu); }

double rtol_for(DType dtype) { return dtype == kFloat32 ? 1e-5 : 1e-12; }

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

TEST(CudaOpsTest, CatAndStackCopyOnTheGpu) {
  REQUIRE_GPU();
  const Tensor a = sample({3, 4}, kFloat32, 35), b = sample({2, 4}, kInt64, 36);
  EXPECT_TRUE(same_on_gpu([](auto& in) { return cat({in[0], in[1]}, 0); }, {a, b}));
  EXPECT_TRUE(same_on_gpu([](auto& in) { return stack({in[0], in[0] * 2}, 1); }, {a}));
}

TEST(CudaOpsTest, RandomTensorsOnTheGpuFollowTheSeed) {
  REQUIRE_GPU();
  manual_seed(5);
  const Tensor on_gpu = randn({1001}, TensorOptions().device(kGpu));
  const Tensor next = randn({1001}, TensorOptions().device(kGpu));
  manual_seed(5);
  const Tensor again = randn({1001}, TensorOptions().device(kGpu));
  EXPECT_EQ(on_gpu.device(), kGpu);
  EXPECT_TRUE(all_close(host(on_gpu), host(again)));
  EXPECT_FALSE(all_close(host(on_gpu), host(next)));  // the generator moved on
}

TEST(CudaOpsTest, RandomDistributionsOnTheGpuHaveTheirMoments) {
  REQUIRE_GPU();
  manual_seed(6);
  const int64_t n = 1 << 20;
  for (DType dtype : {kFloat32, kFloat64, kBFloat16}) {
    const TensorOptions o = TensorOptions(dtype).device(kGpu);
    const Tensor u = empty({n}, o).uniform_(-1, 3).to(kFloat64);
    EXPECT_NEAR(u.mean().item<double>(), 1.0, 0.01) << dtype;
    EXPECT_NEAR(u.var().item<double>(), 16.0 / 12, 0.01) << dtype;
    EXPECT_GE(u.amin().item<double>(), -1.0);
    EXPECT_LT(u.amax().item<double>(), 3.0 + (dtype == kBFloat16 ? 0.02 : 0.0));
    const Tensor z = empty({n}, o).normal_(2, 0.5).to(kFloat64);
    EXPECT_NEAR(z.mean().item<double>(), 2.0, 0.01) << dtype;
    EXPECT_NEAR(z.std().item<double>(), 0.5, 0.01) << dtype;
  }
  const Tensor k = randint(-3, 4, {n}, TensorOptions().device(kGpu));
  EXPECT_EQ(k.amin().item<int64_t>(), -3);
  EXPECT_EQ(k.amax().item<int64_t>(), 3);
  EXPECT_NEAR(k.to(kFloat64).mean().item<double>(), 0.0, 0.01);
  const Tensor mask = bernoulli({n}, 0.3, TensorOptions().device(kGpu));
  EXPECT_NEAR(mask.mean().item<double>(), 0.3, 0.005);
  EXPECT_THROW_MSG(bernoulli(full({3}, 1.5, kGpu)), "bernoulli: expected p to be in [0, 1]");
}

TEST(CudaOpsTest, StridedRandomFillsWriteEveryElement) {
  REQUIRE_GPU();
  Tensor t = full({64, 64}, -7.0, kGpu).t();
  t.uniform_(0, 1);
  EXPECT_GE(host(t).amin().item<double>(), 0.0);
}

// Note [Composed resampling]: the CPU's results, the gradients within
// rounding of the CPU's sums.
TEST(CudaOpsTest, ResamplingMatchesTheCpu) {
  REQUIRE_GPU();
  const Tensor x = sample({2, 3, 5, 6}, kFloat32, 14);
  for (ResampleMode mode : {ResampleMode::kNearest, ResampleMode::kBilinear}) {
    for (bool align_corners : {false, true}) {
      if (mode == ResampleMode::kNearest && align_corners) continue;
      for (const SizeVec& size : {SizeVec{10, 12}, SizeVec{3, 4}}) {
        EXPECT_TRUE(same_on_gpu(
            [&](auto& in) { return resample_forward(in[0], size, {-1, -1}, mode, align_corners); },
            {x}, 0, 0));
        const Tensor g = sample({2, 3, size[0], size[1]}, kFloat32, 15);
        EXPECT_TRUE(same_on_gpu(
            [&](auto& in) {
              return resample_backward(in[0], x.sizes(), {-1, -1}, mode, align_corners);
            },
            {g}, 1e-5, 1e-5));
      }
    }
  }
}

TEST(CudaOpsTest, IndexOpsMatchTheCpu) {
  REQUIRE_GPU();
  for (DType dtype : {kFloat32, kFloat64, kInt64, kInt32, kUInt8, kBool}) {
    const Tensor x = sample({6, 5, 4}, dtype, 39);
    const Tensor rows = tensor({4, 0, 4, 2});
    EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].index_select(0, in[1]); }, {x, rows}))
        << dtype;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].index_select(2, in[1].remainder(4)); },
                            {x, rows}))
        << dtype;
    const Tensor idx = randint(0, 5, {6, 3, 4});
    EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].gather(1, in[1]); }, {x, idx})) << dtype;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].t().gather(0, in[1].t()); },
                            {x.select(2, 0), idx.select(2, 0).slice(1, 0, 2)}))
        << dtype;
  }
  // Scatter with distinct indices (repeated ones copy in no set order on a GPU).
  const Tensor base = sample({4, 6}, kFloat32, 40);
  const Tensor perm = tensor({{3, 0, 5, 1, 2, 4}, {1, 2, 0, 5, 4, 3}});
  const Tensor src = sample({2, 6}, kFloat32, 41);
  EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].scatter(1, in[1], in[2]); },
                          {base, perm, src}));
  EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].scatter(1, in[1], 7.5); }, {base, perm}));
  // scatter_add with repeats: every value arrives.
  const Tensor repeats = randint(0, 4, {50});
  for (DType dtype : {kFloat32, kFloat64, kInt64, kInt32}) {
    EXPECT_TRUE(same_on_gpu(
        [](auto& in) { return zeros({4}, in[1].options()).scatter_add(0, in[0], in[1]); },
        {repeats, sample({50}, dtype, 42)}, 1e-5))
        << dtype;
  }
}

TEST(CudaOpsTest, AdvancedIndexingMatchesTheCpu) {
  REQUIRE_GPU();
  using indexing::Slice;
  const Tensor x = sample({5, 6, 4}, kFloat32, 59);
  const Tensor rows = tensor({3, 0, -1});
  const Tensor mask = sample({5, 6}, kBool, 60);
  EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].index({in[1]}); }, {x, rows}));
  EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].index({Slice(), in[1].remainder(6)}); },
                          {x, rows}));
  EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].index({in[1]}); }, {x, mask}));
  EXPECT_TRUE(same_on_gpu(
      [](auto& in) {
        Tensor t = in[0].clone();
        t.index_put_({in[1]}, 0.5);
        return t;
      },
      {x, mask}));
  const Tensor repeated = tensor({1, 1, 4, 1});
  const Tensor values = sample({4, 6, 4}, kFloat32, 61);
  EXPECT_TRUE(same_on_gpu(
      [](auto& in) {
        Tensor t = in[0].clone();
        t.index_put_({in[1]}, in[2], /*accumulate=*/true);
        return t;
      },
      {x, repeated, values}, 1e-5));
}

TEST(CudaOpsTest, MaskedSelectTakeAndNonzeroMatchTheCpu) {
  REQUIRE_GPU();
  const Tensor x = sample({4, 7}, kFloat32, 62);
  const Tensor mask = sample({7}, kBool, 63);  // broadcast over rows
  EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].masked_select(in[1]); }, {x, mask}));
  EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].take(in[1]); },
                          {x, tensor({{0, -1}, {27, 5}})}));
  EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].gt(0).nonzero(); }, {x}));
}

TEST(CudaOpsTest, IndicesOutOfRangeOnTheGpuAreNamed) {
  REQUIRE_GPU();
  const Tensor x = zeros({3, 2}, kGpu);
  EXPECT_THROW_MSG(x.index_select(0, gpu(tensor({0, 3}))),
                   "index_select(): index out of range in self: index 3 is out of bounds for "
                   "dimension 0 with size 3");
  EXPECT_THROW_MSG(x.gather(1, gpu(tensor({{0}, {2}, {1}}))),
                   "gather(): index 2 is out of bounds for dimension 1 with size 2");
}

TEST(CudaOpsTest, FillWritesStridedViews) {
  REQUIRE_GPU();
  Tensor t = zeros({6, 8}, kGpu);
  t.slice(1, 0, std::nullopt, 2).fill_(5);
  Tensor expected = zeros({6, 8});
  expected.slice(1, 0, std::nullopt, 2).fill_(5);
  EXPECT_TRUE(all_close(host(t), expected));
}

// Every kind of elementwise kernel writing through a view: one strided run
// (a slice with a step), two dims (a transpose), an offset inner run.
TEST(CudaOpsTest, InPlaceOpsWriteEveryKindOfView) {
  REQUIRE_GPU();
  using View = std::function<Tensor(const Tensor&)>;
  const std::vector<std::pair<const char*, View>> views = {
      {"step", [](const Tensor& t) { return t.slice(1, 0, std::nullopt, 2); }},
      {"transpose", [](const Tensor& t) { return t.t(); }},
      {"offset", [](const Tensor& t) { return t.slice(1, 1, 7); }},
  };
  using Op = std::function<void(Tensor&, const Tensor&)>;
  const std::vector<std::pair<const char*, Op>> ops = {
      {"fill_", [](Tensor& v, const Tensor&) { v.fill_(5); }},
      {"zero_", [](Tensor& v, const Tensor&) { v.zero_(); }},
      {"add_", [](Tensor& v, const Tensor& o) { v.add_(o, 2); }},
      {"mul_ number", [](Tensor& v, const Tensor&) { v.mul_(3); }},
      {"neg_", [](Tensor& v, const Tensor&) { v.neg_(); }},
      {"clamp_", [](Tensor& v, const Tensor&) { v.clamp_(-1, 1); }},
      {"copy_", [](Tensor& v, const Tensor& o) { v.copy_(o); }},
      {"masked_fill_", [](Tensor& v, const Tensor& o) { v.masked_fill_(o.gt(0), -7); }},
  };
  for (const auto& [view_name, view] : views) {
    for (const auto& [op_name, op] : ops) {
      Tensor expected = sample({6, 8}, kFloat32, 2);
      Tensor actual = gpu(expected);
      Tensor v = view(expected), gv = view(actual);
      const Tensor other = sample(v.sizes(), kFloat32, 3);
      op(v, other);
      op(gv, gpu(other));
      EXPECT_TRUE(all_close(host(actual), expected)) << op_name << " on a " << view_name << " view";
    }
  }
}

// The flat path's packs: operands not aligned to 16 bytes, lengths that
// leave a tail, a one-element operand on the device, every pack width.
TEST(CudaOpsTest, ContiguousOpsHandleUnalignedOperandsAndTails) {
  REQUIRE_GPU();
  for (DType dtype : {kFloat32, kFloat64, kInt64, kUInt8}) {
    const Tensor a = sample({1031}, dtype, 4), b = sample({1031}, dtype, 5);
    const Tensor one = sample({1}, dtype, 6);
    for (int64_t start : {0, 1, 3}) {
      auto part = [start](const Tensor& t) { return t.slice(0, start, 1031 - 2); };
      EXPECT_TRUE(same_on_gpu([&](auto& in) { return part(in[0]) + part(in[1]); }, {a, b}))
          << dtype << " from " << start;
      EXPECT_TRUE(same_on_gpu([&](auto& in) { return part(in[0]) * in[1]; }, {a, one}))
          << dtype << " from " << start;
      EXPECT_TRUE(same_on_gpu([&](auto& in) { return part(in[0]).lt(part(in[1])); }, {a, b}))
          << dtype << " from " << start;
      EXPECT_TRUE(same_on_gpu([&](auto& in) { return part(in[0]).to(kFloat32); }, {a}))
          << dtype << " from " << start;
      EXPECT_TRUE(same_on_gpu([&](auto& in) { return part(in[0]) - 2; }, {a}))
          << dtype << " from " << start;
    }
  }
}

// Values and positions equal to the CPU's, ties and NaN included: both are
// stable with NaN the largest value and -0.0 equal to +0.0.
TEST(CudaOpsTest, SortingMatchesTheCpuExactly) {
  REQUIRE_GPU();
  const double nan = std::nan("");
  const Tensor special = tensor({{3.0, nan, -0.0, 1.0, 0.0, nan, -2.0, 1.0, 3.0},
                                 {0.0, -0.0, 5.0, 5.0, -1.0, 2.0, nan, 2.0, -7.0}});
  auto same = [](const std::tuple<Tensor, Tensor>& gpu_result,
                 const std::tuple<Tensor, Tensor>& cpu_result) {
    const auto& [gv, gi] = gpu_result;
    const auto& [cv, ci] = cpu_result;
    return testing::all_close(host(gv), cv, 0, 0) &&
           testing::all_close(host(gi), ci, 0, 0);
  };
  for (DType dtype : {kFloat32, kFloat64, kBFloat16, kInt64, kInt32, kUInt8, kBool}) {
    const Tensor small = is_floating_point(dtype) ? special.to(dtype)
                                                  : sample({2, 9}, kInt64, 9).clamp(0, 3).to(dtype);
    const Tensor big = sample({3, 700, 5}, dtype, 10);
    for (const Tensor& t : {small, big}) {
      const Tensor g = gpu(t);
      for (bool descending : {false, true}) {
        for (int64_t dim = 0; dim < t.dim(); ++dim) {
          EXPECT_TRUE(same(g.sort(dim, descending), t.sort(dim, descending)))
              << dtype << " sort dim " << dim << (descending ? " descending" : "");
        }
        EXPECT_TRUE(same(g.topk(2, -1, descending), t.topk(2, -1, descending)))
            << dtype << " topk";
      }
      EXPECT_TRUE(same(g.kthvalue(2, 0, true), t.kthvalue(2, 0, true))) << dtype << " kthvalue";
      const auto [gu, ginv, gcount] = unique(g, true, true, true);
      const auto [cu, cinv, ccount] = unique(t, true, true, true);
      EXPECT_TRUE(testing::all_close(host(gu), cu, 0, 0)) << dtype << " unique";
      EXPECT_TRUE(testing::all_close(host(ginv), cinv, 0, 0)) << dtype << " unique inverse";
      EXPECT_TRUE(testing::all_close(host(gcount), ccount, 0, 0)) << dtype << " unique counts";
    }
  }
  // One long lane (the device-wide sort), and empty ones.
  const Tensor lane = sample({100003}, kFloat32, 11).round();
  EXPECT_TRUE(same(gpu(lane).sort(0), lane.sort(0)));
  EXPECT_TRUE(same(gpu(lane).sort(0, true), lane.sort(0, true)));
  EXPECT_EQ(std::get<0>(gpu(zeros({0, 3})).sort(0)).numel(), 0);
  EXPECT_EQ(shape_str(std::get<1>(gpu(zeros({4, 0})).topk(0, 1)).sizes()), "[4, 0]");
}

TEST(CudaOpsTest, OneHotMaxUnpoolAndEmbeddingRenormMatchTheCpu) {
  REQUIRE_GPU();
  const Tensor labels = tensor({{3, 0}, {1, 3}, {2, 2}});
  EXPECT_TRUE(same_on_gpu([](auto& in) { return one_hot(in[0]); }, {labels}));
  EXPECT_TRUE(same_on_gpu([](auto& in) { return one_hot(in[0], 6); }, {labels}));
  EXPECT_THROW_MSG(one_hot(gpu(tensor({1, -2})), 3),
                   "one_hot: Class values must be non-negative, got -2");

  PoolGeometry geometry;
  geometry.kernel = {2, 2};
  geometry.stride = {2, 2};
  geometry.padding = {0, 0};
  geometry.dilation = {1, 1};
  const Tensor x = sample({2, 3, 6, 8}, kFloat32, 12);
  const MaxPoolForward pooled = max_pool_forward("max_pool2d", x, geometry, true);
  EXPECT_TRUE(same_on_gpu(
      [](auto& in) { return max_unpool2d_forward(in[0], in[1], {6, 8}); },
      {pooled.output, pooled.indices}));
  Tensor bad = pooled.indices.clone();
  bad.view({-1})[5].fill_(48);
  EXPECT_THROW_MSG(max_unpool2d_forward(gpu(pooled.output), gpu(bad), {6, 8}),
                   "Found an invalid max index: 48 (output volumes are of size 6x8");

  for (double p : {2.0, 1.0, 3.0}) {
    Tensor weight = sample({10, 4}, kFloat32, 13);
    Tensor on_gpu = gpu(weight);
    const Tensor rows = tensor({7, 1, 7, 3, 0});
    embedding_renorm_(weight, rows, 1.5, p);
    embedding_renorm_(on_gpu, gpu(rows), 1.5, p);
    EXPECT_TRUE(all_close(host(on_gpu), weight)) << "norm " << p;
  }
}

TEST(CudaOpsTest, FactoriesMatchTheCpu) {
  REQUIRE_GPU();
  for (DType dtype : {kFloat32, kFloat64, kInt64, kInt32, kBFloat16, kFloat16}) {
    const TensorOptions cpu_options(dtype), gpu_options = TensorOptions(dtype).device(kGpu);
    EXPECT_TRUE(all_close(host(arange(-3, 1000, 7, gpu_options)), arange(-3, 1000, 7, cpu_options)))
        << dtype;
    EXPECT_TRUE(all_close(host(linspace(-1, 2.5, 1001, gpu_options)),
                          linspace(-1, 2.5, 1001, cpu_options), 0, 0))
        << dtype;
  }
  const TensorOptions on_gpu = TensorOptions(kFloat64).device(kGpu);
  EXPECT_TRUE(all_close(host(arange(0.5, -2.0, -0.3, on_gpu)),
                        arange(0.5, -2.0, -0.3, TensorOptions(kFloat64)), 0, 0));
  EXPECT_EQ(arange(5, Device("cuda:0")).dtype(), kInt64);
  EXPECT_EQ(linspace(0, 1, 0, on_gpu).numel(), 0);
  EXPECT_TRUE(all_close(host(linspace(2, 3, 1, on_gpu)), full({1}, 2.0, kFloat64)));
}

TEST(CudaOpsTest, NanToNumAndRoundWithDecimalsMatchTheCpu) {
  REQUIRE_GPU();
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor special = tensor({std::nan(""), inf, -inf, 1.25, -3.5, 12345.678});
  for (DType dtype : {kFloat32, kFloat64, kBFloat16, kFloat16}) {
    const Tensor t = special.to(dtype);
    EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].nan_to_num(); }, {t})) << dtype;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].nan_to_num(0.5, 7.0, -8.0); }, {t}))
        << dtype;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].t().nan_to_num(1.0); }, {t.view({2, 3})}))
        << dtype;
    for (int64_t decimals : {2, 1, -1, -2}) {
      EXPECT_TRUE(same_on_gpu([decimals](auto& in) { return in[0].round(decimals); },
                              {sample({9, 7}, kFloat32, 8).to(dtype) * 37}))
          << dtype << " decimals " << decimals;
    }
  }
  Tensor x = gpu(special);
  x.nan_to_num_(0.0, 1.0, -1.0);
  EXPECT_TRUE(all_close(host(x), special.nan_to_num(0.0, 1.0, -1.0)));
  Tensor y = gpu(tensor({1.2345, -9.8765}));
  y.round_(2);
  EXPECT_TRUE(all_close(host(y), tensor({1.23, -9.88}), 0, 1e-6));
  EXPECT_THROW_MSG(gpu(tensor({1, 2})).round(1),
                   "round: \"round_cuda\" not implemented for 'Long'");
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

TEST(CudaOpsTest, VarianceAndNormsMatchTheCpu) {
  REQUIRE_GPU();
  for (DType dtype : {kFloat32, kFloat64}) {
    const Tensor x = sample({17, 33, 5}, dtype, 37);
    const double rtol = rtol_for(dtype) * 10;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].var(); }, {x}, rtol)) << dtype;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].var({1}, false, true); }, {x}, rtol));
    EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].std({0, 2}); }, {x}, rtol)) << dtype;
    const double inf = std::numeric_limits<double>::infinity();
    for (double p : {0.0, 1.0, 2.0, 3.0, inf, -inf}) {
      EXPECT_TRUE(same_on_gpu([p](auto& in) { return in[0].norm(p); }, {x}, rtol)) << p;
      EXPECT_TRUE(same_on_gpu([p](auto& in) { return in[0].norm(p, {1}); }, {x}, rtol)) << p;
    }
  }
  const Tensor big = sample({1 << 21}, kFloat32, 38);
  EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].var(); }, {big}, 1e-5));
  EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].norm(); }, {big}, 1e-5));
}

TEST(CudaOpsTest, LogsumexpAndScansMatchTheCpu) {
  REQUIRE_GPU();
  const Tensor x = sample({9, 6, 5}, kFloat32, 55);
  EXPECT_TRUE(same_on_gpu([](auto& in) { return logsumexp(in[0], {1}); }, {x}, 1e-5));
  EXPECT_TRUE(same_on_gpu([](auto& in) { return logsumexp(in[0], {0, 2}, true); }, {x}, 1e-5));
  const Tensor with_inf = tensor({{-INFINITY, -INFINITY}, {1.0, INFINITY}});
  EXPECT_TRUE(same_on_gpu([](auto& in) { return logsumexp(in[0], {1}); }, {with_inf}));
  for (DType dtype : {kFloat32, kFloat64, kInt64, kInt32, kUInt8, kBool}) {
    const Tensor t = sample({7, 12}, dtype, 56);
    EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].cumsum(1); }, {t}, 1e-5)) << dtype;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].cumsum(0); }, {t}, 1e-5)) << dtype;
  }
  EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].cumprod(1); }, {x / 3}, 1e-5));
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

TEST(CudaOpsTest, Float16AndBfloat16ComputeInFloat32AndRoundOnceAsTheCpu) {
  REQUIRE_GPU();
  for (DType dtype : {kFloat16, kBFloat16}) {
    const Tensor a = sample({33, 8}, kFloat32, 53).to(dtype);
    const Tensor b = sample({8}, kFloat32, 54).to(dtype);
    EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0] + in[1]; }, {a, b})) << dtype;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return add(in[0], in[1], 3); }, {a, b})) << dtype;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0] * 0.1; }, {a})) << dtype;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return exp(in[0]); }, {a})) << dtype;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].gt(in[1]); }, {a, b})) << dtype;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].sum({0}); }, {a})) << dtype;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].argmax(1); }, {a})) << dtype;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return softmax(in[0], 1); }, {a})) << dtype;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return mm(in[0], in[0].t()); }, {a}, 1e-2, 1e-2))
        << dtype;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return where(in[0].gt(0), in[0], in[1]); }, {a, b}))
        << dtype;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].t().contiguous(); }, {a})) << dtype;
    EXPECT_TRUE(same_on_gpu([](auto& in) { return in[0].to(kInt32); }, {a})) << dtype;
  }
}

TEST(CudaOpsTest, Float16ConvolutionIsRefusedAsOnTheCpu) {
  REQUIRE_GPU();
  const ConvParams p = conv2d_params(0);
  const TensorOptions half = TensorOptions(kFloat16).device(kGpu);
  EXPECT_THROW_MSG(convolution(zeros({1, 1, 4, 4}, half), zeros({1, 1, 3, 3}, half), Tensor(), p),
                   "\"convolution\" not implemented for 'Half'");
}

TEST(CudaOpsTest, MixingDevicesNamesBoth) {
  REQUIRE_GPU();
  EXPECT_THROW_MSG(zeros({2}, kGpu) + zeros({2}),
                   "Expected all tensors to be on the same device, but found at least two "
                   "devices, cuda:0 and cpu:0!");
}

TEST(CudaOpsTest, CrossEntropyAndItsGradientMatchTheCpu) {
  REQUIRE_GPU();
  const Tensor logits = sample({40, 7}, kFloat32, 21);
  const Tensor target = randint(0, 7, {40});
  target[3].fill_(-100);  // ignored
  const Tensor weight = sample({7}, kFloat32, 22).abs() + 0.1;
  for (double smoothing : {0.0, 0.2}) {
    for (bool weighted : {false, true}) {
      const Tensor w = weighted ? weight : Tensor();
      const CrossEntropyForward cpu_f = cross_entropy_forward(logits, target, w, -100, smoothing);
      const CrossEntropyForward gpu_f = cross_entropy_forward(
          gpu(logits), gpu(target), weighted ? gpu(w) : Tensor(), -100, smoothing);
      EXPECT_TRUE(all_close(host(gpu_f.loss), cpu_f.loss, 1e-5, 1e-6));
      EXPECT_TRUE(all_close(host(gpu_f.probs), cpu_f.probs, 1e-5, 1e-7));
      EXPECT_DOUBLE_EQ(gpu_f.total_weight, cpu_f.total_weight);
      const Tensor grad_loss = sample({40}, kFloat32, 23);
      const Tensor cpu_g = cross_entropy_backward(grad_loss, 0.5, cpu_f.probs, target, w,
                                                  logits.sizes(), -100, smoothing);
      const Tensor gpu_g = cross_entropy_backward(gpu(grad_loss), 0.5, gpu_f.probs, gpu(target),
                                                  weighted ? gpu(w) : Tensor(), logits.sizes(),
                                                  -100, smoothing);
      EXPECT_TRUE(all_close(host(gpu_g), cpu_g, 1e-5, 1e-6))
          << "smoothing " << smoothing << " weighted " << weighted;
    }
  }
}

TEST(CudaOpsTest, BatchNormAndItsGradientMatchTheCpu) {
  REQUIRE_GPU();
  const Tensor x = sample({8, 3, 5, 4}, kFloat32, 43);
  const Tensor w = sample({3}, kFloat32, 44), b = sample({3}, kFloat32, 45);
  const Tensor g = sample({8, 3, 5, 4}, kFloat32, 46);
  for (bool training : {true, false}) {
    Tensor cpu_mean = sample({3}, kFloat32, 47), cpu_var = sample({3}, kFloat32, 48).abs() + 0.5;
    Tensor gpu_mean = gpu(cpu_mean), gpu_var = gpu(cpu_var);
    const BatchNormForward cf = batch_norm_forward(x, w, b, cpu_mean, cpu_var, training, 0.1, 1e-5);
    const BatchNormForward gf = batch_norm_forward(gpu(x), gpu(w), gpu(b), gpu_mean, gpu_var,
                                                   training, 0.1, 1e-5);
    EXPECT_TRUE(all_close(host(gf.output), cf.output, 1e-4, 1e-5)) << training;
    EXPECT_TRUE(all_close(host(gpu_mean), cpu_mean, 1e-5, 1e-6)) << "running mean";
    EXPECT_TRUE(all_close(host(gpu_var), cpu_var, 1e-5, 1e-6)) << "running var";
    const BatchNormBackward cb =
        batch_norm_backward(g, x, w, cf.mean, cf.invstd, training, {true, true, true});
    const BatchNormBackward gb = batch_norm_backward(gpu(g), gpu(x), gpu(w), gf.mean, gf.invstd,
                                                     training, {true, true, true});
    EXPECT_TRUE(all_close(host(gb.grad_input), cb.grad_input, 1e-4, 1e-5)) << training;
    EXPECT_TRUE(all_close(host(gb.grad_weight), cb.grad_weight, 1e-4, 1e-4)) << training;
    EXPECT_TRUE(all_close(host(gb.grad_bias), cb.grad_bias, 1e-4, 1e-4)) << training;
  }
}

TEST(CudaOpsTest, LayerNormAndItsGradientMatchTheCpu) {
  REQUIRE_GPU();
  const Tensor x = sample({6, 7, 10}, kFloat32, 49);
  const Tensor w = sample({7, 10}, kFloat32, 50), b = sample({7, 10}, kFloat32, 51);
  const Tensor g = sample({6, 7, 10}, kFloat32, 52);
  const LayerNormForward cf = layer_norm_forward(x, {7, 10}, w, b, 1e-5);
  const LayerNormForward gf = layer_norm_forward(gpu(x), {7, 10}, gpu(w), gpu(b), 1e-5);
  EXPECT_TRUE(all_close(host(gf.output), cf.output, 1e-4, 1e-5));
  EXPECT_TRUE(all_close(host(gf.rstd), cf.rstd, 1e-4, 1e-5));
  const LayerNormBackward cb = layer_norm_backward(g, x, {7, 10}, cf.mean, cf.rstd, w, true);
  const LayerNormBackward gb =
      layer_norm_backward(gpu(g), gpu(x), {7, 10}, gf.mean, gf.rstd, gpu(w), true);
  EXPECT_TRUE(all_close(host(gb.grad_input), cb.grad_input, 1e-4, 1e-5));
  EXPECT_TRUE(all_close(host(gb.grad_weight), cb.grad_weight, 1e-4, 1e-4));
  EXPECT_TRUE(all_close(host(gb.grad_bias), cb.grad_bias, 1e-4, 1e-4));
}

TEST(CudaOpsTest, FusedOptimizerUpdatesMatchTheCpu) {
  REQUIRE_GPU();
  const Tensor p0 = sample({1000}, kFloat32, 24), g = sample({1000}, kFloat32, 25);
  const Tensor s0 = sample({1000}, kFloat32, 26), s1 = sample({1000}, kFloat32, 27).abs();
  auto check = [&](const char* what, const std::function<void(const std::vector<Tensor>&)>& f) {
    std::vector<Tensor> cpu_t{p0.clone(), g.clone(), s0.clone(), s1.clone(), s1.clone() * 2};
    std::vector<Tensor> gpu_t;
    for (const Tensor& t : cpu_t) gpu_t.push_back(gpu(t));
    f(cpu_t);
    f(gpu_t);
    for (size_t i = 0; i < cpu_t.size(); ++i) {
      EXPECT_TRUE(all_close(host(gpu_t[i]), cpu_t[i], 1e-5, 1e-6)) << what << " tensor " << i;
    }
  };
  check("sgd", [](auto& t) {
    SgdUpdate o;
    o.lr = 0.1;
    o.momentum = 0.9;
    o.weight_decay = 1e-2;
    o.nesterov = true;
    sgd_update_(t[0], t[1], t[2], o);
  });
  check("adam", [](auto& t) {
    AdamUpdate o;
    o.lr = 1e-3;
    o.beta1 = 0.9;
    o.beta2 = 0.999;
    o.eps = 1e-8;
    o.amsgrad = true;
    o.step = 2;
    adam_update_(t[0], t[1], t[2], t[3], t[4], o);
  });
  check("rmsprop", [](auto& t) {
    RmspropUpdate o;
    o.lr = 1e-2;
    o.alpha = 0.99;
    o.eps = 1e-8;
    o.momentum = 0.5;
    rmsprop_update_(t[0], t[1], t[3], Tensor(), t[2], o);
  });
  check("adagrad", [](auto& t) {
    AdagradUpdate o;
    o.clr = 1e-2;
    o.eps = 1e-10;
    adagrad_update_(t[0], t[1], t[3], o);
  });
}

// Convolutions of every kind, and their two gradients (the weight's, and
// the input's as the transposed convolution), on the GPU and the CPU.
void expect_convolutions_match_the_cpu() {
  struct Case {
    SizeVec input, weight;
    ConvParams params;
  };
  ConvParams plain;
  plain.stride = {1, 1};
  plain.padding = {2, 2};
  plain.dilation = {1, 1};
  plain.output_padding = {0, 0};
  ConvParams strided = plain;
  strided.stride = {2, 1};
  strided.padding = {1, 0};
  strided.dilation = {1, 2};
  ConvParams grouped = plain;
  grouped.padding = {0, 0};
  grouped.groups = 2;
  ConvParams one_d;
  one_d.stride = {2};
  one_d.padding = {1};
  one_d.dilation = {1};
  one_d.output_padding = {0};
  ConvParams three_d;
  three_d.stride = {1, 2, 1};
  three_d.padding = {1, 0, 1};
  three_d.dilation = {1, 1, 2};
  three_d.output_padding = {0, 0, 0};
  for (const Case& c : {Case{{4, 1, 28, 28}, {6, 1, 5, 5}, plain},
                        Case{{3, 4, 11, 9}, {5, 4, 3, 3}, strided},
                        Case{{2, 4, 7, 7}, {6, 2, 3, 3}, grouped},
                        Case{{3, 4, 17}, {6, 4, 3}, one_d},
                        Case{{2, 3, 5, 6, 7}, {4, 3, 3, 2, 3}, three_d}}) {
    for (DType dtype : {kFloat32, kFloat64}) {
      const Tensor x = sample(c.input, dtype, 28);
      const Tensor w = sample(c.weight, dtype, 29);
      const Tensor b = sample({c.weight[0]}, dtype, 30);
      const double rtol = dtype == kFloat32 ? 1e-4 : 1e-12;
      const ConvParams p = c.params;
      EXPECT_TRUE(same_on_gpu([p](auto& in) { return convolution(in[0], in[1], in[2], p); },
                              {x, w, b}, rtol, 1e-3))
          << shape_str(c.input) << " " << dtype;
      const Tensor y = convolution(x, w, b, p);
      const Tensor g = sample(y.sizes(), dtype, 31);
      EXPECT_TRUE(same_on_gpu(
          [p, &c](auto& in) { return convolution_backward_weight(in[0], in[1], c.weight, p); },
          {x, g}, rtol, 1e-3))
          << shape_str(c.input) << " " << dtype;
      ConvParams t = p;
      t.transposed = true;  // the input's gradient is the transposed convolution
      EXPECT_TRUE(same_on_gpu([t](auto& in) { return convolution(in[0], in[1], Tensor(), t); },
                              {g, w}, rtol, 1e-3))
          << shape_str(c.input) << " " << dtype;
    }
  }
}

TEST(CudaOpsTest, ConvolutionsAndTheirGradientsMatchTheCpu) {
  REQUIRE_GPU();
  cuda::set_cudnn_enabled(false);  // im2col + cuBLAS
  expect_convolutions_match_the_cpu();
  cuda::set_cudnn_enabled(true);
}

// The same through cuDNN, with float32 kept exact (no TF32), then with only
// deterministic algorithms.
TEST(CudaOpsTest, CudnnConvolutionsAndTheirGradientsMatchTheCpu) {
  REQUIRE_GPU();
  if (!cuda::cudnn_is_available()) GTEST_SKIP() << "libcudnn.so.9 not found";
  const int64_t min_macs = cuda::cudnn_min_macs();
  cuda::set_cudnn_min_macs(0);  // every convolution, however small
  cuda::set_cudnn_allow_tf32(false);
  const int64_t before = cuda::cudnn_passes_run();
  expect_convolutions_match_the_cpu();
  EXPECT_GT(cuda::cudnn_passes_run(), before);
  cuda::set_cudnn_deterministic(true);
  expect_convolutions_match_the_cpu();
  cuda::set_cudnn_deterministic(false);
  cuda::set_cudnn_allow_tf32(true);
  cuda::set_cudnn_min_macs(min_macs);
}

// By default cuDNN takes a convolution of at least 2^27 multiply-adds a
// pass, and smaller ones stay on im2col + cuBLAS.
TEST(CudaOpsTest, CudnnTakesConvolutionsOfEnoughWork) {
  REQUIRE_GPU();
  if (!cuda::cudnn_is_available()) GTEST_SKIP() << "libcudnn.so.9 not found";
  const ConvParams p = conv2d_params(1);
  const Tensor w = gpu(sample({64, 64, 3, 3}, kFloat32, 42));
  // 64 x 56 x 56 x 64 x 9 = 115.6M multiply-adds a sample.
  const Tensor one = gpu(sample({1, 64, 56, 56}, kFloat32, 43));  // 116M
  const Tensor two = gpu(sample({2, 64, 56, 56}, kFloat32, 44));  // 231M
  int64_t before = cuda::cudnn_passes_run();
  convolution(one, w, Tensor(), p);
  EXPECT_EQ(cuda::cudnn_passes_run(), before);
  convolution(two, w, Tensor(), p);
  EXPECT_EQ(cuda::cudnn_passes_run(), before + 1);
  cuda::set_cudnn_enabled(false);
  before = cuda::cudnn_passes_run();
  convolution(two, w, Tensor(), p);
  EXPECT_EQ(cuda::cudnn_passes_run(), before);
  cuda::set_cudnn_enabled(true);
}

// Without a GPU: the descriptors made for a geometry describe it (cuDNN
// derives the geometry's own output shape from them), for 1-, 2- and 3-d
// convolutions with strides, padding, dilation and groups.
TEST(CudaOpsTest, CudnnDescriptorsDescribeTheGeometry) {
  if (!cuda::cudnn_is_available()) GTEST_SKIP() << "libcudnn.so.9 not found (or no --config=cuda)";
  struct Case {
    cpu::ConvGeometry g;
    std::vector<int64_t> want;
  };
  const auto geometry = [](int64_t batch, int64_t cin, int64_t cout, int64_t groups,
                           std::array<int64_t, 3> input, std::array<int64_t, 3> output,
                           std::array<int64_t, 3> kernel, std::array<int64_t, 3> stride,
                           std::array<int64_t, 3> padding, std::array<int64_t, 3> dilation) {
    cpu::ConvGeometry g;
    g.batch = batch;
    g.in_channels = cin;
    g.out_channels = cout;
    g.groups = groups;
    g.input = input;
    g.output = output;
    g.kernel = kernel;
    g.stride = stride;
    g.padding = padding;
    g.dilation = dilation;
    return g;
  };
  const std::vector<Case> cases = {
      // LeNet's first layer: 28x28, kernel 5, padding 2.
      {geometry(64, 1, 6, 1, {1, 28, 28}, {1, 28, 28}, {1, 5, 5}, {1, 1, 1}, {0, 2, 2}, {1, 1, 1}),
       {64, 6, 28, 28}},
      // Strided and dilated: (11 + 2 - 3) / 2 + 1 = 6 rows, 9 - 2 * 2 = 5 columns.
      {geometry(3, 4, 5, 1, {1, 11, 9}, {1, 6, 5}, {1, 3, 3}, {1, 2, 1}, {0, 1, 0}, {1, 1, 2}),
       {3, 5, 6, 5}},
      // Two groups.
      {geometry(2, 4, 6, 2, {1, 7, 7}, {1, 5, 5}, {1, 3, 3}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}),
       {2, 6, 5, 5}},
      // 1-d, as 2-d with a height of 1: (17 + 2 - 3) / 2 + 1 = 9.
      {geometry(3, 4, 6, 1, {1, 1, 17}, {1, 1, 9}, {1, 1, 3}, {1, 1, 2}, {0, 0, 1}, {1, 1, 1}),
       {3, 6, 1, 9}},
      // 3-d.
      {geometry(2, 3, 4, 1, {5, 6, 7}, {5, 3, 5}, {3, 2, 3}, {1, 2, 1}, {1, 0, 1}, {1, 1, 2}),
       {2, 4, 5, 3, 5}},
  };
  for (const Case& c : cases) {
    for (DType dtype : {kFloat32, kFloat64}) {
      EXPECT_EQ(cuda::cudnn_output_shape(c.g, dtype), c.want) << dtype;
    }
  }
}

// A LeNet-sized convolution again after the first call takes the remembered
// algorithm and gives the same result bit for bit.
TEST(CudaOpsTest, CudnnConvolutionRepeatsItsResult) {
  REQUIRE_GPU();
  if (!cuda::cudnn_is_available()) GTEST_SKIP() << "libcudnn.so.9 not found";
  const int64_t min_macs = cuda::cudnn_min_macs();
  cuda::set_cudnn_min_macs(0);
  cuda::set_cudnn_allow_tf32(false);
  const ConvParams p = conv2d_params(2);
  const Tensor x = gpu(sample({64, 1, 28, 28}, kFloat32, 40));
  const Tensor w = gpu(sample({6, 1, 5, 5}, kFloat32, 41));
  const Tensor first = host(convolution(x, w, Tensor(), p));
  const Tensor second = host(convolution(x, w, Tensor(), p));
  cuda::set_cudnn_allow_tf32(true);
  cuda::set_cudnn_min_macs(min_macs);
  EXPECT_EQ(testing::values(first), testing::values(second));
}

TEST(CudaOpsTest, Im2colAndCol2imMatchTheCpu) {
  REQUIRE_GPU();
  const Tensor x = sample({2, 3, 9, 8}, kFloat32, 32);
  EXPECT_TRUE(same_on_gpu([](auto& in) { return im2col(in[0], {3, 2}, {1, 2}, {1, 0}, {2, 1}); },
                          {x}));
  const Tensor cols = im2col(x, {3, 2}, {1, 2}, {1, 0}, {2, 1});
  EXPECT_TRUE(same_on_gpu(
      [](auto& in) { return col2im(in[0], {9, 8}, {3, 2}, {1, 2}, {1, 0}, {2, 1}); }, {cols}));
}

TEST(CudaOpsTest, AdaptivePoolingAndItsGradientMatchTheCpu) {
  REQUIRE_GPU();
  const Tensor x = sample({2, 3, 11, 7}, kFloat32, 57);
  for (const SizeVec& size : {SizeVec{1, 1}, SizeVec{4, 3}, SizeVec{11, 7}}) {
    EXPECT_TRUE(same_on_gpu(
        [&](auto& in) { return adaptive_avg_pool_forward("adaptive_avg_pool2d", in[0], size); },
        {x}))
        << shape_str(size);
    const MaxPoolForward f = adaptive_max_pool_forward("adaptive_max_pool2d", x, size, true);
    EXPECT_TRUE(same_on_gpu(
        [&](auto& in) {
          return adaptive_max_pool_forward("adaptive_max_pool2d", in[0], size, true).indices;
        },
        {x}))
        << shape_str(size);
    const Tensor g = sample(f.output.sizes(), kFloat32, 58);
    EXPECT_TRUE(same_on_gpu(
        [&](auto& in) { return adaptive_avg_pool_backward(in[0], x.sizes(), 2); }, {g}, 1e-5))
        << shape_str(size);
  }
}

TEST(CudaOpsTest, PoolingAndItsGradientMatchTheCpu) {
  REQUIRE_GPU();
  const Tensor x = sample({3, 4, 13, 12}, kFloat32, 33);
  PoolGeometry lenet;
  lenet.spatial_dims = 2;
  lenet.kernel = {2, 2};
  lenet.stride = {2, 2};
  lenet.padding = {0, 0};
  lenet.dilation = {1, 1};
  PoolGeometry odd = lenet;
  odd.kernel = {3, 2};
  odd.stride = {2, 1};
  odd.padding = {1, 1};
  odd.dilation = {1, 1};
  for (const PoolGeometry& geometry : {lenet, odd}) {
    EXPECT_TRUE(same_on_gpu(
        [&](auto& in) { return max_pool_forward("max_pool2d", in[0], geometry, true).output; },
        {x}));
    EXPECT_TRUE(same_on_gpu(
        [&](auto& in) { return max_pool_forward("max_pool2d", in[0], geometry, true).indices; },
        {x}));
    const MaxPoolForward f = max_pool_forward("max_pool2d", x, geometry, true);
    const Tensor g = sample(f.output.sizes(), kFloat32, 34);
    EXPECT_TRUE(same_on_gpu(
        [&](auto& in) { return max_pool_backward(in[0], in[1], x.sizes(), 2); }, {g, f.indices}));
    for (bool include_pad : {true, false}) {
      EXPECT_TRUE(same_on_gpu(
          [&](auto& in) {
            return avg_pool_forward("avg_pool2d", in[0], geometry, include_pad, std::nullopt);
          },
          {x}));
      EXPECT_TRUE(same_on_gpu(
          [&](auto& in) {
            return avg_pool_backward(in[0], x.sizes(), geometry, include_pad, std::nullopt);
          },
          {g}));
    }
  }
}

}  // namespace
}  // namespace torchlet
