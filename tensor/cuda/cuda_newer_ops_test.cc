// The newer tensor ops on CUDA tensors against the same ops on the CPU: the
// elementwise math, shape and index ops, NaN-aware statistics and searching,
// linear algebra, products, norms and resampling whose GPU paths (CUDA
// functors, compositions of CUDA ops, or round trips through the host) the
// suite had not run; forward values only, on strided inputs where natural.
// Each test is skipped, saying so, where no GPU is present.
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/pool.h"
#include "tensor/tensor.h"
#include "tensor/cuda/gpu_test_util.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::all_close;
using testing::same_on_gpu;
using testing::sample;
using testing::printed;

const Device kGpu("cuda:0");
const Device kCpu("cpu:0");
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor gpu(const Tensor& t) { return t.to(kGpu); }
Tensor host(const Tensor& t) { return t.to(kCpu); }
Tensor mT(const Tensor& t) { return t.transpose(-2, -1); }

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;
using Ops = std::vector<std::pair<std::string, Fn>>;
// A table entry: `name`, and the tensor the expression makes of the inputs `in`.
#define OP(name, ...) \
  { name, [=](const std::vector<Tensor>& in) -> Tensor { return __VA_ARGS__; } }

// How far the GPU's result may be from the CPU's.
struct Tol {
  double rtol, atol;
};
constexpr Tol kExact{0, 0};
// Device and host libm a few ulps apart, fused multiply-adds, sums in
// another order; atol for results near a root or after cancellation.
Tol math_tol(DType d) { return d == kFloat64 ? Tol{1e-12, 1e-12} : Tol{1e-5, 1e-5}; }
// Sums (and variances) of a few hundred elements in another order, as
// CudaOpsTest's reductions allow.
Tol sum_tol(DType d) { return d == kFloat64 ? Tol{1e-11, 1e-12} : Tol{1e-4, 1e-4}; }
// cuBLAS (no TF32) against Eigen, and what composes their products.
Tol product_tol(DType d) { return d == kFloat64 ? Tol{1e-10, 1e-10} : Tol{1e-4, 1e-4}; }

void expect_same(const Ops& ops, const std::vector<Tensor>& inputs, Tol tol,
                 const std::string& what) {
  for (const auto& [name, fn] : ops) {
    EXPECT_TRUE(same_on_gpu(fn, inputs, tol.rtol, tol.atol)) << name << " " << what;
  }
}

// A copy of `t` that `write` (given a handle to the copy) has written to.
Tensor written(const Tensor& t, const std::function<void(Tensor)>& write) {
  const Tensor copy = t.clone();
  write(copy);
  return copy;
}

// ---- Elementwise math (0a3a74f) ------------------------------------------------------------

using Unary = Tensor (*)(const Tensor&);
struct UnaryCase {
  const char* name;
  Unary op;
  Tensor& (Tensor::*in_place)();  // null where there is none
  Unary domain;                   // maps a sample into the op's domain
};
Tensor anywhere(const Tensor& t) { return t; }
Tensor in_unit(const Tensor& t) { return t.div(4).tanh(); }  // (-1, 1)
Tensor from_one(const Tensor& t) { return t.abs().add(1); }
Tensor positive(const Tensor& t) { return t.abs().add(0.01); }

const std::vector<UnaryCase> kUnaryMath = {
    {"sinh", [](const Tensor& t) { return sinh(t); }, &Tensor::sinh_, anywhere},
    {"cosh", [](const Tensor& t) { return t.cosh(); }, &Tensor::cosh_, anywhere},
    {"asin", [](const Tensor& t) { return asin(t); }, &Tensor::asin_, in_unit},
    {"acos", [](const Tensor& t) { return t.acos(); }, &Tensor::acos_, in_unit},
    {"atan", [](const Tensor& t) { return atan(t); }, &Tensor::atan_, anywhere},
    {"asinh", [](const Tensor& t) { return t.asinh(); }, &Tensor::asinh_, anywhere},
    {"acosh", [](const Tensor& t) { return acosh(t); }, &Tensor::acosh_, from_one},
    {"atanh", [](const Tensor& t) { return t.atanh(); }, &Tensor::atanh_, in_unit},
    {"expm1", [](const Tensor& t) { return expm1(t); }, &Tensor::expm1_, anywhere},
    {"log2", [](const Tensor& t) { return t.log2(); }, &Tensor::log2_, positive},
    {"log10", [](const Tensor& t) { return log10(t); }, &Tensor::log10_, positive},
    {"exp2", [](const Tensor& t) { return t.exp2(); }, &Tensor::exp2_, anywhere},
    {"erfc", [](const Tensor& t) { return erfc(t); }, &Tensor::erfc_, anywhere},
    {"erfinv", [](const Tensor& t) { return t.erfinv(); }, &Tensor::erfinv_, in_unit},
    {"lgamma", [](const Tensor& t) { return lgamma(t); }, &Tensor::lgamma_, positive},
    {"digamma", [](const Tensor& t) { return t.digamma(); }, &Tensor::digamma_, anywhere},
    {"trigamma", [](const Tensor& t) { return trigamma(t); }, nullptr, anywhere},
};

TEST(CudaNewerOpsTest, ElementwiseMathMatchesTheCpu) {
  REQUIRE_GPU();
  // Integers compute in float32 (where the domain's map keeps them integers).
  for (DType dtype : {kFloat32, kFloat64, kInt32}) {
    const Tensor x =
        dtype == kInt32 ? sample({5, 8}, dtype, 3).abs() + 1 : sample({9, 14}, dtype, 4);
    for (const UnaryCase& c : kUnaryMath) {
      const Unary op = c.op;
      expect_same({OP("", op(in[0])), OP("transposed", op(in[0].t())),
                   OP("strided", op(in[0].slice(1, 1, std::nullopt, 3)))},
                  {c.domain(x)}, math_tol(dtype == kInt32 ? kFloat32 : dtype),
                  c.name + (" " + printed(dtype)));
    }
  }
}

// Poles, zeros of both signs, the ends of each domain, infinities and NaN.
TEST(CudaNewerOpsTest, ElementwiseMathAtTheEdgesOfItsDomainsMatchesTheCpu) {
  REQUIRE_GPU();
  const Tensor edges =
      from_vector<double>({0.0, -0.0, 1.0, -1.0, 2.0, -2.0, -3.0, 0.5, -0.5, -1.5, -2.1, 1e-8,
                           -1e-8, 0.999999, -0.999999, 1.000001, 30.0, -30.0, 100.0, kInf, -kInf,
                           kNan});
  for (DType dtype : {kFloat32, kFloat64}) {
    for (const UnaryCase& c : kUnaryMath) {
      const Unary op = c.op;
      expect_same({OP(c.name, op(in[0]))}, {edges.to(dtype)}, math_tol(dtype), printed(dtype));
    }
  }
}

// The binary math of a [7, 9], b [9] and c [7, 1] (weights on both sides of
// 0.5).
Ops binary_math() {
  return {
      OP("hypot", hypot(in[0], in[1])), OP("logaddexp", in[0].logaddexp(in[1])),
      OP("logaddexp2", logaddexp2(in[0], in[1])),
      // 0 * log of negatives and of 0; NaN where x > 0 > y.
      OP("xlogy", xlogy(in[0].relu(), in[1])), OP("xlogy number y", in[0].xlogy(3.0)),
      OP("xlogy number x", xlogy(Scalar(2.0), in[1].abs())),
      OP("copysign", copysign(in[0], in[1])), OP("copysign -0.0", in[0].copysign(-0.0)),
      OP("lerp 0.3", lerp(in[0], in[1], 0.3)), OP("lerp 0.8", in[0].lerp(in[1], 0.8)),
      OP("lerp tensor", lerp(in[0], in[1], in[2])),
      OP("addcmul", addcmul(in[0], in[1], in[2], 0.5)),
      OP("addcdiv", in[0].addcdiv(in[1], in[2].abs() + 0.5, -2)),
  };
}

// The same ops on a.t(), b viewed as [9, 1] and c.t().
Ops on_transposes(const Ops& ops) {
  Ops out;
  for (const auto& [name, f] : ops) {
    const Fn fn = f;
    out.push_back(OP(name + " transposed", fn({in[0].t(), in[1].view({-1, 1}), in[2].t()})));
  }
  return out;
}

TEST(CudaNewerOpsTest, BinaryMathMatchesTheCpu) {
  REQUIRE_GPU();
  for (DType dtype : {kFloat32, kFloat64}) {
    for (const Ops& ops : {binary_math(), on_transposes(binary_math())}) {
      expect_same(ops,
                  {sample({7, 9}, dtype, 6), sample({9}, dtype, 7), sample({7, 1}, dtype, 8) / 4},
                  math_tol(dtype), printed(dtype));
    }
  }
  // Integers give float32 (xlogy, copysign) or stay integers (addcmul);
  // float32 with float64 gives float64.
  expect_same({OP("xlogy", xlogy(in[0].abs(), in[1])), OP("copysign", copysign(in[0], in[1])),
               OP("addcmul", addcmul(in[0], in[0], in[1], 2)), OP("hypot", hypot(in[2], in[3]))},
              {sample({5, 6}, kInt64, 9), sample({6}, kInt32, 10), sample({5, 6}, kFloat32, 11),
               sample({6}, kFloat64, 12)},
              math_tol(kFloat32), "integers and mixed");
}

// In-place forms on a strided and on a transposed view of a larger tensor.
TEST(CudaNewerOpsTest, InPlaceElementwiseMathWritesStridedViews) {
  REQUIRE_GPU();
  using View = Tensor (*)(const Tensor&);
  for (View view : {View([](const Tensor& t) { return t.slice(1, 0, 10, 2); }),
                    View([](const Tensor& t) { return t.t(); })}) {
    for (DType dtype : {kFloat32, kFloat64}) {
      const Tol tol = math_tol(dtype);
      for (const UnaryCase& c : kUnaryMath) {
        if (c.in_place == nullptr) continue;
        const auto op = c.in_place;
        expect_same({OP(c.name + std::string("_"),
                        written(in[0], [&](Tensor t) { (view(t).*op)(); }))},
                    {c.domain(sample({8, 10}, dtype, 13))}, tol, printed(dtype));
      }
      // Each writes the view v of in[0] with b (in[1], broadcast) and w (the
      // same view of in[2]).
      using Update = void (*)(Tensor, const Tensor&, const Tensor&);
      const std::vector<std::pair<std::string, Update>> updates = {
          {"hypot_", [](Tensor v, const Tensor& b, const Tensor&) { v.hypot_(b); }},
          {"xlogy_", [](Tensor v, const Tensor& b, const Tensor&) { v.xlogy_(b); }},
          {"xlogy_ number", [](Tensor v, const Tensor&, const Tensor&) { v.xlogy_(2.5); }},
          {"copysign_", [](Tensor v, const Tensor& b, const Tensor&) { v.copysign_(b); }},
          {"copysign_ number", [](Tensor v, const Tensor&, const Tensor&) { v.copysign_(-1.0); }},
          {"lerp_", [](Tensor v, const Tensor& b, const Tensor&) { v.lerp_(b, 0.25); }},
          {"lerp_ tensor", [](Tensor v, const Tensor& b, const Tensor& w) { v.lerp_(b, w); }},
          {"addcmul_", [](Tensor v, const Tensor& b, const Tensor& w) { v.addcmul_(b, w, 0.5); }},
          {"addcdiv_",
           [](Tensor v, const Tensor& b, const Tensor& w) { v.addcdiv_(b, w.abs() + 1, 2); }},
          // float64 operands into float32: computed wide, then stored.
          {"addcmul_ wider", [](Tensor v, const Tensor& b, const Tensor& w) {
             v.addcmul_(b.to(kFloat64), w.to(kFloat64), 3);
           }}};
      for (const auto& [name, update] : updates) {
        const Update u = update;
        expect_same({OP(name, written(in[0], [&](Tensor t) {
                      u(view(t), in[1].expand(view(t).sizes()), view(in[2]));
                    }))},
                    {sample({8, 10}, dtype, 14), sample({1}, dtype, 15),
                     sample({8, 10}, dtype, 16)},
                    tol, printed(dtype));
      }
    }
  }
}

TEST(CudaNewerOpsTest, ClosenessAndEqualityMatchTheCpu) {
  REQUIRE_GPU();
  for (DType dtype : {kFloat32, kFloat64}) {
    const Tensor a =
        from_vector<double>({1.0, kNan, kInf, -kInf, 1e-8, 2.0, 0.0, -3.0, 100.0, kNan}).to(dtype);
    const Tensor b =
        from_vector<double>({1.000001, kNan, kInf, kInf, 0.0, 2.1, -0.0, -3.00003, 100.001, 1.0})
            .to(dtype);
    expect_same({OP("isclose", isclose(in[0], in[1])),
                 OP("isclose equal_nan", in[0].isclose(in[1], 1e-5, 1e-8, true)),
                 OP("isclose exact", isclose(in[1], in[0], 0, 0)),
                 OP("isclose loose", isclose(in[0], in[1], 0.01, 0.2))},
                {a, b}, kExact, printed(dtype));
    for (const auto& [rtol, atol] : {Tol{1e-5, 1e-8}, Tol{0.01, 0.2}, Tol{1e-3, 0}}) {
      for (bool equal_nan : {false, true}) {
        const Tensor x = a.slice(0, 4, 9), y = b.slice(0, 4, 9);
        EXPECT_EQ(allclose(gpu(x), gpu(y), rtol, atol, equal_nan),
                  allclose(x, y, rtol, atol, equal_nan))
            << rtol << " " << atol << " " << equal_nan;
      }
    }
    const Tensor x = sample({6, 7}, dtype, 17);
    EXPECT_TRUE(equal(gpu(x), gpu(x).t().contiguous().t()));
    EXPECT_EQ(gpu(x).equal(gpu(x + 1e-3)), x.equal(x + 1e-3));
    EXPECT_FALSE(equal(gpu(x), gpu(x).slice(0, 0, 5)));
    EXPECT_FALSE(equal(gpu(a), gpu(a)));  // NaN is never equal
  }
  const Tensor i = sample({30}, kInt64, 18), j = i + sample({30}, kInt64, 19).clamp(-2, 2);
  expect_same({OP("isclose", isclose(in[0], in[1], 0, 1)),
               OP("isclose rtol", isclose(in[0], in[1], 0.1, 0)),
               OP("isclose bool", isclose(in[0].gt(0), in[1].gt(0)))},
              {i, j}, kExact, "integers");
  EXPECT_EQ(allclose(gpu(i), gpu(j), 0, 2), allclose(i, j, 0, 2));
}

TEST(CudaNewerOpsTest, Float16AndBfloat16MathMatchesTheCpu) {
  REQUIRE_GPU();
  for (DType dtype : {kFloat16, kBFloat16}) {
    const Tol tol = dtype == kFloat16 ? Tol{2e-3, 2e-3} : Tol{1e-2, 1e-2};  // an ulp
    for (const UnaryCase& c : kUnaryMath) {
      const Unary op = c.op;
      expect_same({OP(c.name, op(in[0]))}, {c.domain(sample({50}, kFloat32, 20)).to(dtype)}, tol,
                  printed(dtype));
    }
    expect_same(binary_math(),
                {sample({7, 9}, dtype, 21), sample({9}, dtype, 22), sample({7, 1}, dtype, 23) / 4},
                tol, printed(dtype));
  }
}

// ---- Shape and index ops (d8fc6e6) ----------------------------------------------------------

TEST(CudaNewerOpsTest, TrianglesFlipsRollsAndRotationsMatchTheCpu) {
  REQUIRE_GPU();
  for (DType dtype : {kFloat32, kFloat64, kInt64, kInt32, kUInt8, kBool}) {
    Ops ops = {
        OP("flip 0", flip(in[0], {0})), OP("flip -1 0", in[0].flip({-1, 0})),
        OP("flip all transposed", in[0].transpose(0, 2).flip({0, 1, 2})),
        OP("flip none", in[0].flip({})), OP("fliplr", fliplr(in[0].select(0, 1))),
        OP("flipud transposed", in[0].transpose(1, 2).flipud()),
        OP("roll flat", in[0].roll(4)), OP("roll flat strided", in[0].slice(2, 0, 7, 2).roll(-5)),
        OP("roll dim", in[0].roll(-3, 1)), OP("roll dims", roll(in[0], {1, -2}, {0, 2})),
        OP("roll a dim twice", roll(in[0], {4, 5}, {1, 1})),
        OP("roll past the size", in[0].transpose(0, 1).roll({13}, {0})),
    };
    for (int64_t d : {-7, -2, 0, 1, 3, 8}) {
      const std::string s = " " + std::to_string(d);
      ops.push_back(OP("tril" + s, in[0].tril(d)));
      ops.push_back(OP("triu transposed" + s, triu(in[0].transpose(1, 2), d)));
      ops.push_back(
          OP("tril_ strided" + s, written(in[0], [d](Tensor t) { t.slice(2, 1, 6).tril_(d); })));
      ops.push_back(OP("triu_ transposed" + s,
                       written(in[0], [d](Tensor t) { t.transpose(0, 2).triu_(d); })));
    }
    for (int64_t k : {-1, 0, 1, 2, 3, 6}) {
      ops.push_back(OP("rot90 " + std::to_string(k), in[0].rot90(k, {1, 2})));
      ops.push_back(OP("rot90 2 0 " + std::to_string(k), rot90(in[0], k, {2, 0})));
    }
    expect_same(ops, {sample({3, 5, 7}, dtype, 24)}, kExact, printed(dtype));
  }
}

TEST(CudaNewerOpsTest, DiagonalsRepeatsAndGridsMatchTheCpu) {
  REQUIRE_GPU();
  for (DType dtype : {kFloat32, kFloat64, kInt64, kBool}) {
    Ops ops = {
        OP("trace", in[2].trace()),
        OP("diagonal_backward", diagonal_backward(in[4], {4, 5, 6}, 1, 0, 2)),
        OP("repeat", in[0].repeat({2, 1, 1, 2})), OP("tile", tile(in[2].t(), {3})),
        OP("repeat_interleave flat", in[2].repeat_interleave(2)),
        OP("repeat_interleave dim", repeat_interleave(in[0], 3, 1)),
        OP("repeat_interleave tensor", in[2].repeat_interleave(in[3], 0)),
        OP("repeat_interleave int32", in[2].t().repeat_interleave(in[5], 0)),
        OP("repeat_interleave repeats", repeat_interleave(in[3], std::optional<int64_t>(6))),
        OP("movedim", in[0].movedim({0, 1}, {2, 0})),
        OP("meshgrid xy", meshgrid({in[1], in[2].select(0, 1)}, "xy")[1]),
    };
    for (int64_t o : {-2, 0, 1, 9}) {
      const std::string s = " " + std::to_string(o);
      ops.push_back(OP("diagonal" + s, diagonal(in[0], o, 0, 1)));
      ops.push_back(OP("diagonal 2 0" + s, in[0].diagonal(o, 2, 0)));
      ops.push_back(OP("diag of a matrix" + s, diag(in[2], o)));
      ops.push_back(OP("diag transposed" + s, in[2].t().diag(o)));
      ops.push_back(OP("diag of a vector" + s, diag(in[1], o)));
      ops.push_back(OP("diag_embed" + s, diag_embed(in[2], o)));
      ops.push_back(OP("diag_embed 0 2" + s, in[0].diag_embed(o, 0, 2)));
    }
    expect_same(ops,
                {sample({4, 5, 6}, dtype, 25), sample({5}, dtype, 26), sample({4, 6}, dtype, 27),
                 tensor({2, 0, 1, 3}), sample({5, 4}, dtype, 28),  // diagonal(1, 0, 2)'s shape
                 tensor({1, 0, 2, 1, 0, 3}).to(kInt32)},
                kExact, printed(dtype));
  }
  for (DType dtype : {kInt64, kInt32}) {
    for (int64_t offset : {-1, 0, 2}) {
      const Tensor lower = tril_indices(5, 4, offset, TensorOptions(dtype).device(kGpu));
      const Tensor upper = triu_indices(4, 6, offset, TensorOptions(dtype).device(kGpu));
      EXPECT_EQ(lower.device(), kGpu);
      EXPECT_EQ(upper.dtype(), dtype);
      EXPECT_TRUE(all_close(host(lower), tril_indices(5, 4, offset, dtype), 0, 0)) << offset;
      EXPECT_TRUE(all_close(host(upper), triu_indices(4, 6, offset, dtype), 0, 0)) << offset;
    }
  }
}

TEST(CudaNewerOpsTest, IndexAddCopyFillAndTakeAlongDimMatchTheCpu) {
  REQUIRE_GPU();
  for (DType dtype : {kFloat32, kFloat64, kInt64, kInt32}) {
    // Repeated indices add every slice (atomically on a GPU: in any order).
    expect_same({OP("index_add 1", in[0].index_add(1, in[1].remainder(4), in[2].narrow(2, 0, 3))),
                 OP("index_add 0 alpha", index_add(in[0], 0, in[1], in[3], 3)),
                 OP("index_add 2 int32", in[0].index_add(2, in[1].remainder(3).to(kInt32), in[2])),
                 OP("index_add_ transposed", written(in[0], [&](Tensor t) {
                   t.transpose(0, 2).index_add_(2, in[1], in[3].transpose(0, 2), 2);
                 }))},
                {sample({5, 4, 3}, dtype, 29), tensor({4, 0, 4, 2}), sample({5, 4, 4}, dtype, 30),
                 sample({4, 4, 3}, dtype, 31)},
                is_floating_point(dtype) ? math_tol(dtype) : kExact, printed(dtype));
  }
  // Dtypes GPUs cannot add atomically add in a wider one.
  for (DType dtype : {kUInt8, kBool, kFloat16, kBFloat16}) {
    expect_same({OP("index_add 1", in[0].index_add(1, in[1].remainder(4), in[2].narrow(2, 0, 3))),
                 OP("index_add_ transposed", written(in[0], [&](Tensor t) {
                   t.transpose(0, 2).index_add_(2, in[1], in[3].transpose(0, 2));
                 })),
                 OP("scatter_add", in[0].scatter_add(0, in[4], in[3]))},
                {sample({5, 4, 3}, dtype, 29), tensor({4, 0, 4, 2}), sample({5, 4, 4}, dtype, 30),
                 sample({4, 4, 3}, dtype, 31), randint(0, 5, {4, 4, 3})},
                dtype == kBFloat16  ? Tol{8e-3, 1e-2}  // one ulp: rounded once, not per add
                : dtype == kFloat16 ? Tol{2e-3, 1e-2}
                                    : kExact,
                printed(dtype));
  }
  for (DType dtype : {kFloat32, kFloat64, kInt64, kInt32, kUInt8, kBool}) {
    // Distinct indices for copies (repeated ones copy in no set order on a GPU).
    const Tensor at = randint(0, 4, {5, 2, 1});
    expect_same(
        {OP("index_copy 0", in[0].index_copy(0, in[1], in[2])),
         OP("index_copy 2", index_copy(in[0], 2, in[5], in[6].transpose(0, 2))),
         OP("index_copy_ strided", written(in[0], [&](Tensor t) {
           t.slice(1, 0, 4, 2).index_copy_(1, in[7], in[6].transpose(0, 2).narrow(1, 1, 2));
         })),
         OP("index_fill negative", in[0].index_fill(1, in[3], 1)),
         OP("index_fill_ transposed",
            written(in[0], [&](Tensor t) { t.transpose(0, 1).index_fill_(1, in[3], 0); })),
         OP("take_along_dim", take_along_dim(in[0], in[4], 1)),
         OP("take_along_dim broadcast", in[0].take_along_dim(in[4].narrow(0, 0, 1), 1)),
         OP("take_along_dim flat", in[0].take_along_dim(in[4].view({-1}).mul(5)))},
        {sample({5, 4, 3}, dtype, 32), tensor({3, 0, 2}), sample({3, 4, 3}, dtype, 33),
         tensor({-1, 0, 2, -1}), at, tensor({2, 0, 1}), sample({3, 4, 5}, dtype, 34),
         tensor({1, 0})},
        kExact, printed(dtype));
  }
}

// ---- Statistics, running extremes and searching (4ed1c2e) -----------------------------------

// `x` with NaNs in about a sixth of its entries, but in no lane's first.
Tensor with_nans(const Tensor& x, uint64_t seed) {
  Tensor mask = sample(x.sizes(), kFloat32, seed).gt(4);
  for (int64_t d = 0; d < x.dim(); ++d) mask.select(d, 0).fill_(false);
  return x.masked_fill(mask, kNan);
}

TEST(CudaNewerOpsTest, NanReductionsAndMomentsMatchTheCpu) {
  REQUIRE_GPU();
  for (DType dtype : {kFloat32, kFloat64}) {
    const Tensor x = with_nans(sample({6, 7, 5}, dtype, 35), 36);
    Tensor empty_lane = x.clone();
    empty_lane.select(1, 2).fill_(kNan);  // nanmean of nothing is NaN
    expect_same(
        {OP("nansum", in[0].nansum()), OP("nansum 1", nansum(in[0], {1})),
         OP("nansum 0 2 keepdim", in[0].nansum({0, 2}, true)),
         OP("nansum as float64", nansum(in[0].transpose(0, 2), {1}, false, kFloat64)),
         OP("nanmean", in[0].nanmean()), OP("nanmean 1", nanmean(in[1], {1})),
         OP("nanmean 0 2 keepdim", in[1].nanmean({0, 2}, true)),
         OP("std_mean std", std::get<0>(std_mean(in[0].nan_to_num(), {1}))),
         OP("std_mean mean", std::get<1>(std_mean(in[0].nan_to_num(), {1}))),
         OP("var_mean var", std::get<0>(var_mean(in[0].nan_to_num(), {0, 2}, false, true))),
         OP("var_mean mean", std::get<1>(var_mean(in[0].nan_to_num(), {0, 2}, false, true))),
         OP("aminmax min", std::get<0>(aminmax(in[0].nan_to_num()))),
         OP("aminmax max with NaN", std::get<1>(in[0].aminmax(1, true))),
         OP("count_nonzero", count_nonzero(in[0].relu(), {0, 2}))},
        {x, empty_lane}, sum_tol(dtype), printed(dtype));
  }
  for (DType dtype : {kInt64, kInt32, kUInt8, kBool}) {
    expect_same({OP("nansum", in[0].nansum({1})), OP("aminmax min", std::get<0>(in[0].aminmax(2))),
                 OP("aminmax max", std::get<1>(aminmax(in[0]))),
                 OP("count_nonzero", in[0].transpose(0, 1).count_nonzero({0}))},
                {sample({6, 7, 5}, dtype, 37)}, kExact, printed(dtype));
  }
}

TEST(CudaNewerOpsTest, MediansAndQuantilesMatchTheCpu) {
  REQUIRE_GPU();
  // Ties (integers) and NaNs: both devices take the stable sort's order.
  for (DType dtype : {kFloat32, kFloat64, kInt64, kInt32}) {
    Tensor x = sample({6, 7, 5}, dtype, 38);
    if (is_floating_point(dtype)) x = with_nans(x, 39);
    expect_same({OP("median", in[0].median()), OP("median 1", std::get<0>(median(in[0], 1))),
                 OP("median 1 indices", std::get<1>(median(in[0], 1))),
                 OP("median 0 keepdim", std::get<0>(in[0].transpose(0, 2).median(0, true))),
                 OP("median 0 indices", std::get<1>(in[0].transpose(0, 2).median(0, true))),
                 OP("nanmedian", nanmedian(in[0])),
                 OP("nanmedian 2", std::get<0>(in[0].nanmedian(2))),
                 OP("nanmedian 2 indices", std::get<1>(in[0].nanmedian(2))),
                 OP("nanmedian 0 indices", std::get<1>(nanmedian(in[0], 0, true)))},
                {x}, kExact, printed(dtype));
  }
  for (DType dtype : {kFloat32, kFloat64}) {
    Tensor x = with_nans(sample({6, 7, 5}, dtype, 40), 41);
    x.select(1, 3).fill_(kNan);  // lanes of NaNs only
    const Tensor q = from_vector<double>({0.0, 0.25, 0.5, 0.9, 1.0}).to(dtype);
    for (const std::string m : {"linear", "lower", "higher", "midpoint", "nearest"}) {
      expect_same(
          {OP("quantile", quantile(in[0], in[1], 1, false, m)),
           OP("quantile of all", in[0].quantile(0.3, std::nullopt, false, m)),
           OP("quantile no NaN", quantile(in[0].nan_to_num().transpose(0, 2), in[1], -1, true, m)),
           OP("nanquantile", nanquantile(in[0], in[1], 1, false, m)),
           OP("nanquantile keepdim", in[0].nanquantile(0.7, 0, true, m)),
           OP("nanquantile of all", nanquantile(in[0], in[1], std::nullopt, true, m))},
          {x, q}, math_tol(dtype), m + " " + printed(dtype));
    }
  }
}

TEST(CudaNewerOpsTest, RunningExtremesScansAndRunsMatchTheCpu) {
  REQUIRE_GPU();
  for (DType dtype : {kFloat32, kFloat64, kInt64, kInt32, kUInt8, kBool}) {
    Tensor x = sample({4, 9, 3}, dtype, 42);  // integers tie
    if (is_floating_point(dtype)) x = with_nans(x, 43);
    expect_same({OP("cummax", std::get<0>(cummax(in[0], 1))),
                 OP("cummax indices", std::get<1>(cummax(in[0], 1))),
                 OP("cummin", std::get<0>(in[0].transpose(0, 1).cummin(0))),
                 OP("cummin indices", std::get<1>(in[0].transpose(0, 1).cummin(0))),
                 OP("cummax last indices", std::get<1>(in[0].cummax(-1)))},
                {x}, kExact, printed(dtype));
  }
  for (DType dtype : {kFloat32, kFloat64}) {
    Tensor x = sample({5, 8}, dtype, 44);
    x.select(1, 2).fill_(-kInf);
    expect_same({OP("logcumsumexp", logcumsumexp(in[0], 1)),
                 OP("logcumsumexp transposed", in[0].t().logcumsumexp(1))},
                {x}, kExact, printed(dtype));
  }
  expect_same({OP("values", std::get<0>(unique_consecutive(in[0], true, true))),
               OP("inverse", std::get<1>(unique_consecutive(in[0], true, true))),
               OP("counts", std::get<2>(unique_consecutive(in[0], true, true))),
               OP("dim 1 values", std::get<0>(in[1].unique_consecutive(true, true, 1))),
               OP("dim 1 inverse", std::get<1>(in[1].unique_consecutive(true, true, 1))),
               OP("dim 1 counts", std::get<2>(in[1].unique_consecutive(true, true, 1))),
               OP("dim 0 counts", std::get<2>(unique_consecutive(in[1].t(), true, true, 0)))},
              {sample({40}, kInt64, 45).clamp(-1, 1),
               sample({3, 4}, kFloat32, 46).index_select(1, tensor({0, 0, 1, 2, 2, 2, 3, 1}))},
              kExact, "unique_consecutive");
}

TEST(CudaNewerOpsTest, SearchingAndCountingMatchTheCpu) {
  REQUIRE_GPU();
  for (DType dtype : {kFloat32, kFloat64, kInt64}) {
    Tensor values = sample({4, 6}, dtype, 47);
    if (is_floating_point(dtype)) values[0][0].fill_(kNan);  // past every element
    const Tensor unsorted = sample({10}, dtype, 48);
    expect_same(
        {OP("searchsorted", searchsorted(in[0], in[2])),
         OP("searchsorted right", searchsorted(in[0], in[2].t(), false, true)),
         OP("searchsorted side int32", searchsorted(in[0], in[2], true, false, "right")),
         OP("searchsorted batched", searchsorted(in[1], in[2])),
         OP("searchsorted sorter", searchsorted(in[3], in[2], false, false, std::nullopt, in[4])),
         OP("searchsorted number", searchsorted(in[0], Scalar(0.5))),
         OP("bucketize", bucketize(in[2], in[0])),
         OP("bucketize right int32", bucketize(in[2].t(), in[0], true, true)),
         OP("bucketize number", bucketize(Scalar(1), in[0]))},
        {std::get<0>(sample({10}, dtype, 49).sort()),
         std::get<0>(sample({4, 10}, dtype, 50).sort()), values, unsorted, unsorted.argsort()},
        kExact, printed(dtype));
  }
  const Tensor bins = randint(0, 9, {50});
  for (DType dtype : {kFloat32, kFloat64}) {
    expect_same({OP("bincount", in[0].bincount()),
                 OP("bincount weighted", bincount(in[0], in[1], 12)),
                 OP("histc of the range", in[1].histc(10)),
                 OP("histc", histc(in[1].view({5, 10}).t(), 7, -3, 3))},
                {bins, sample({50}, dtype, 51)}, kExact, printed(dtype));
  }
}

// ---- Linear algebra (730e00f, 3255b08) --------------------------------------------------------

// Matrices [..., n, n] near n I: well conditioned.
Tensor well_conditioned(IntArrayRef shape, DType dtype, uint64_t seed) {
  return sample(shape, dtype, seed).div(4).add(eye(shape.back(), dtype).mul(shape.back()));
}
// Symmetric positive definite matrices [..., n, n].
Tensor spd(IntArrayRef shape, DType dtype, uint64_t seed) {
  const Tensor x = sample(shape, dtype, seed).div(4);
  return matmul(x, mT(x)).add(eye(shape.back(), dtype));
}

// A CUDA tensor is factored on the host (a round trip); what composes the
// factors (pinv, matrix_rank, matrix_power, matrix_exp) runs on the GPU.
TEST(CudaNewerOpsTest, SolversInversesAndDeterminantsMatchTheCpu) {
  REQUIRE_GPU();
  const std::optional<double> none;
  for (DType dtype : {kFloat32, kFloat64}) {
    expect_same(
        {OP("solve", linalg::solve(in[0], in[1])), OP("solve vectors", linalg::solve(in[0], in[2])),
         OP("solve broadcast", linalg::solve(in[0][1], in[1])),
         OP("solve transposed", linalg::solve(mT(in[0]), in[1])),
         OP("inv", linalg::inv(in[0])), OP("inverse transposed", mT(in[0]).inverse()),
         OP("det", linalg::det(in[0].neg())),
         OP("slogdet sign", std::get<0>(linalg::slogdet(in[0].neg()))),
         OP("slogdet log", std::get<1>(slogdet(in[0]))), OP("logdet", in[3].logdet()),
         OP("cholesky", linalg::cholesky(in[3])),
         OP("cholesky upper", linalg::cholesky(mT(in[3]), true)),
         OP("cholesky_solve", cholesky_solve(in[8], linalg::cholesky(in[3]))),
         OP("cholesky_inverse", cholesky_inverse(linalg::cholesky(in[3], true), true)),
         OP("lstsq", linalg::lstsq(in[4], in[5]).solution),
         OP("lstsq rank", linalg::lstsq(in[7], in[5].narrow(1, 0, 6)).rank),
         OP("matrix_power 3", linalg::matrix_power(in[0], 3)),
         OP("matrix_power -2", in[0].matrix_power(-2)),
         OP("matrix_power 0", matrix_power(in[0], 0)),
         OP("matrix_exp", linalg::matrix_exp(in[6])), OP("pinv", linalg::pinv(in[4])),
         OP("pinv hermitian", linalg::pinv(in[3], none, none, true)),
         OP("pinverse", mT(in[4]).pinverse()), OP("matrix_rank", linalg::matrix_rank(in[7])),
         OP("matrix_rank hermitian", linalg::matrix_rank(in[3], none, none, true))},
        {well_conditioned({3, 5, 5}, dtype, 52), sample({3, 5, 2}, dtype, 53),
         sample({3, 5}, dtype, 54), spd({2, 4, 4}, dtype, 55), sample({3, 8, 4}, dtype, 56),
         sample({3, 8, 2}, dtype, 57), sample({2, 4, 4}, dtype, 58) / 8,
         matmul(sample({3, 6, 2}, dtype, 59), sample({3, 2, 5}, dtype, 60)),  // rank 2
         sample({2, 4, 3}, dtype, 61)},
        product_tol(dtype), printed(dtype));
  }
}

Tensor usv(const Tensor& u, const Tensor& s, const Tensor& vh) {
  return matmul(u.mul(s.unsqueeze(-2)), vh).flatten();
}
// Q^T Q: the identity where Q's columns are orthonormal.
Tensor gram(const Tensor& q) { return matmul(mT(q), q).flatten(); }

// The signs of singular vectors, eigenvectors and Q's columns are free: what
// is compared does not depend on them.
TEST(CudaNewerOpsTest, DecompositionsMatchTheCpuUpToSigns) {
  REQUIRE_GPU();
  for (DType dtype : {kFloat32, kFloat64}) {
    expect_same(
        {OP("svdvals", linalg::svdvals(in[0])), OP("svdvals wide", linalg::svdvals(mT(in[1]))),
         OP("svd", std::apply(usv, linalg::svd(in[0], false))),
         OP("svd full", [&] {
           auto [u, s, vh] = linalg::svd(in[1]);
           return cat({usv(u, s, vh.narrow(-2, 0, 4)), gram(u), gram(mT(vh))});
         }()),
         OP("torch svd", [&] {
           auto [u, s, v] = svd(mT(in[0]));
           return cat({usv(u, s, mT(v)), gram(u), gram(v)});
         }()),
         OP("torch svd values", std::get<1>(in[1].svd(true, false))),
         OP("eigvalsh", linalg::eigvalsh(in[2])),
         OP("eigvalsh upper", linalg::eigvalsh(in[2].triu(), "U")), OP("eigh", [&] {
           auto [w, v] = linalg::eigh(in[2].tril());
           return cat({usv(v, w, mT(v)), gram(v)});
         }()),
         OP("qr", [&] {
           auto [q, r] = linalg::qr(in[0]);
           return cat({matmul(q, r).flatten(), gram(q), r.abs().flatten()});
         }()),
         OP("qr complete", [&] {
           auto [q, r] = linalg::qr(mT(in[1]), "complete");
           return cat({matmul(q, r).flatten(), gram(q)});
         }()),
         OP("qr r", std::get<1>(linalg::qr(in[0], "r")).abs()),
         OP("torch qr", [&] {
           auto [q, r] = in[1].qr(false);
           return matmul(q, r);
         }())},
        {sample({3, 7, 5}, dtype, 62), sample({2, 4, 6}, dtype, 63), spd({3, 5, 5}, dtype, 64)},
        product_tol(dtype), printed(dtype));
  }
}

// The message of the torchlet::Error `f` throws; empty if it throws none.
std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(CudaNewerOpsTest, SvdOfANanMatrixOnTheGpuFailsAsOnTheCpu) {
  REQUIRE_GPU();
  Tensor a = ones({20, 20}, kFloat64);
  a[3][4].fill_(kNan);
  const Tensor batch = stack({ones({20, 20}, kFloat64), a});
  using Call = void (*)(const Tensor&, const Tensor&);
  const std::vector<std::pair<const char*, Call>> calls = {
      {"svd", [](const Tensor& m, const Tensor&) { linalg::svd(m); }},
      {"svdvals", [](const Tensor& m, const Tensor&) { linalg::svdvals(m.to(kFloat32)); }},
      {"pinv", [](const Tensor& m, const Tensor&) { linalg::pinv(m); }},
      {"torch svd", [](const Tensor& m, const Tensor&) { svd(m); }},
      {"batch", [](const Tensor&, const Tensor& b) { linalg::svd(b, false); }}};
  for (const auto& [name, call] : calls) {
    const Call f = call;
    const std::string on_cpu = message_of([&] { f(a, batch); });
    EXPECT_NE(on_cpu, "") << name;
    EXPECT_EQ(message_of([&] { f(gpu(a), gpu(batch)); }), on_cpu) << name;
  }
  EXPECT_THROW_MSG(linalg::svd(gpu(batch)),
                   "linalg.svd: (Batch element 1): The algorithm failed to converge because the "
                   "input matrix contained non-finite values.");
}

// ---- Products and norms (10b1a6e) --------------------------------------------------------------

TEST(CudaNewerOpsTest, EinsumMatchesTheCpu) {
  REQUIRE_GPU();
  const std::vector<std::pair<std::string, std::vector<SizeVec>>> cases = {
      {"ij,jk->ik", {{4, 5}, {5, 3}}}, {"ij,jk", {{4, 5}, {5, 3}}},
      {"bij,bjk->bik", {{3, 4, 5}, {3, 5, 2}}}, {"ii->", {{5, 5}}}, {"ii->i", {{5, 5}}},
      {"bii->bi", {{3, 4, 4}}}, {"...ij,...jk->...ik", {{2, 1, 4, 5}, {3, 5, 2}}},
      {"b...,b...->b", {{3, 4, 5}, {3, 4, 5}}}, {"i,j->ij", {{4}, {6}}}, {"i,i->", {{7}, {7}}},
      {"ij->ji", {{4, 6}}}, {"ijk->", {{3, 4, 5}}}, {"ij,jk,kl->il", {{3, 4}, {4, 5}, {5, 2}}},
      {"bn,anm,bm->ba", {{2, 3}, {4, 3, 5}, {2, 5}}},
  };
  for (DType dtype : {kFloat32, kFloat64}) {
    uint64_t seed = 65;
    for (const auto& [equation, shapes] : cases) {
      std::vector<Tensor> operands;
      for (const SizeVec& shape : shapes) operands.push_back(sample(shape, dtype, seed++));
      const std::string eq = equation;
      expect_same({OP(eq, einsum(eq, in))}, operands, product_tol(dtype), printed(dtype));
    }
    expect_same({OP("strided", einsum("ij,jk->ik", {in[0].t(), in[1].slice(1, 0, 6, 2)}))},
                {sample({5, 4}, dtype, 90), sample({5, 6}, dtype, 91)}, product_tol(dtype),
                printed(dtype));
  }
}

TEST(CudaNewerOpsTest, TensordotKronCrossAndMultiDotMatchTheCpu) {
  REQUIRE_GPU();
  for (DType dtype : {kFloat32, kFloat64}) {
    expect_same(
        {OP("tensordot 2", tensordot(in[0], in[1], 2)),
         OP("tensordot dims", tensordot(in[0], in[1].transpose(0, 1), {1, 2}, {1, 0})),
         OP("tensordot 0", tensordot(in[2], in[3], 0)), OP("kron", kron(in[2], in[3])),
         OP("kron transposed", in[3].kron(in[2].t())), OP("cross", cross(in[4], in[4].roll(1, 0))),
         OP("linalg.cross broadcast", linalg::cross(in[5], in[4].unsqueeze(0))),
         OP("cross dim 0", cross(in[6], in[6].roll(2, 1), 0)),
         OP("cross first dim of 3", in[6].cross(in[6].flip({1}))),
         OP("vecdot", linalg::vecdot(in[4], in[4].roll(1, 0))),
         OP("multi_dot vectors", linalg::multi_dot({in[7], in[8], in[6], in[6].select(0, 1)})),
         OP("multi_dot matrices", linalg::multi_dot({in[8].t(), in[8], in[6]}))},
        {sample({3, 4, 5}, dtype, 92), sample({4, 5, 6}, dtype, 93), sample({2, 3}, dtype, 94),
         sample({4, 1, 2}, dtype, 95), sample({4, 3}, dtype, 96), sample({2, 1, 3}, dtype, 97),
         sample({3, 5}, dtype, 98), sample({6}, dtype, 99), sample({6, 3}, dtype, 100)},
        product_tol(dtype), printed(dtype));
  }
}

TEST(CudaNewerOpsTest, CdistAndNormsMatchTheCpu) {
  REQUIRE_GPU();
  for (DType dtype : {kFloat32, kFloat64}) {
    Ops ops = {
        OP("cdist mm", cdist(in[2], mT(in[3]), 2, "use_mm_for_euclid_dist")),
        OP("cdist no mm", cdist(in[0], in[1], 2, "donot_use_mm_for_euclid_dist")),
        OP("matrix_norm fro", linalg::matrix_norm(in[4])),
        OP("matrix_norm nuc", linalg::matrix_norm(in[4], "nuc", {0, 2}, true)),
        OP("norm", linalg::norm(in[4])),
        OP("norm 3 dim 1", linalg::norm(in[4], 3.0, std::vector<int64_t>{1})),
        OP("norm fro", linalg::norm(in[4], "fro", std::vector<int64_t>{0, 1})),
        OP("norm of a matrix", linalg::norm(in[4].select(0, 1), 2.0)),
    };
    for (double p : {0.0, 0.5, 1.0, 2.0, 3.0, kInf, -kInf}) {
      const std::string s = " " + std::to_string(p);
      if (p >= 0) {
        ops.push_back(OP("cdist" + s, cdist(in[0], in[1], p)));  // mm for p = 2
        ops.push_back(OP("cdist batches" + s, cdist(in[2], mT(in[3]), p)));
      }
      ops.push_back(OP("vector_norm" + s, linalg::vector_norm(in[4], p)));
      ops.push_back(OP("vector_norm 1" + s, linalg::vector_norm(in[4], p, {1})));
      ops.push_back(OP("vector_norm 0 2 float64" + s,
                       linalg::vector_norm(in[4].transpose(0, 1), p, {0, 2}, true, kFloat64)));
    }
    for (double ord : {1.0, -1.0, 2.0, -2.0, kInf, -kInf}) {
      const std::string s = " " + std::to_string(ord);
      ops.push_back(OP("matrix_norm" + s, linalg::matrix_norm(in[4], ord)));
      ops.push_back(OP("matrix_norm 0 2" + s, linalg::matrix_norm(in[4], ord, {0, 2}, true)));
    }
    expect_same(ops,
                {sample({2, 30, 5}, dtype, 102), sample({2, 7, 5}, dtype, 103),
                 sample({3, 1, 6, 4}, dtype, 104), sample({2, 4, 5}, dtype, 105),
                 sample({3, 4, 5}, dtype, 106)},
                product_tol(dtype), printed(dtype));
  }
}

// ---- Resampling (866ddb1) ----------------------------------------------------------------------

TEST(CudaNewerOpsTest, InterpolationAndAreaPoolingMatchTheCpu) {
  REQUIRE_GPU();
  struct Case {
    SizeVec input, output;
    std::vector<double> scales;  // <= 0: none given
    ResampleMode mode;
    bool align_corners;
  };
  const std::vector<Case> cases = {
      {{2, 3, 7}, {12}, {-1}, ResampleMode::kNearestExact, false},
      {{2, 3, 7}, {4}, {-1}, ResampleMode::kNearest, false},
      {{1, 2, 5, 6}, {8, 9}, {1.7, 1.5}, ResampleMode::kNearestExact, false},
      {{1, 2, 5, 6}, {3, 4}, {-1, -1}, ResampleMode::kNearestExact, false},
      {{1, 1, 3, 4, 5}, {6, 5, 9}, {-1, -1, -1}, ResampleMode::kNearestExact, false},
      {{1, 1, 3, 4, 5}, {2, 7, 3}, {-1, -1, -1}, ResampleMode::kNearest, false},
      {{2, 3, 5, 6}, {9, 4}, {2.0, 0.7}, ResampleMode::kBilinear, false},
      {{2, 3, 5, 6}, {9, 4}, {-1, -1}, ResampleMode::kBilinear, true},
      {{2, 3, 7}, {12}, {-1}, ResampleMode::kLinear, false},
      {{2, 3, 7}, {4}, {1.7}, ResampleMode::kLinear, true},
      {{1, 2, 5, 6}, {8, 3}, {-1, -1}, ResampleMode::kLinear, false},
      {{1, 2, 3, 4, 5}, {6, 5, 9}, {-1, -1, -1}, ResampleMode::kLinear, false},
      {{1, 1, 2, 3, 4}, {5, 6, 7}, {2.5, 2.1, 1.8}, ResampleMode::kLinear, true},
      {{2, 3, 5, 6}, {10, 12}, {-1, -1}, ResampleMode::kBicubic, false},
      {{2, 3, 5, 6}, {3, 4}, {-1, -1}, ResampleMode::kBicubic, true},  // border taps clamped
      {{1, 2, 4, 7}, {9, 11}, {2.3, 1.6}, ResampleMode::kBicubic, false},
  };
  for (DType dtype : {kFloat32, kFloat64}) {
    for (const Case& c : cases) {
      // Forward: index_selects and the CPU's products and sums in its
      // order, exactly (Note [Composed resampling]); backward: sums
      // scattered in any order.
      const Tensor x = sample(c.input, dtype, 107);
      const Tensor y = resample_forward(x, c.output, c.scales, c.mode, c.align_corners);
      const std::string what = "mode " + std::to_string(static_cast<int>(c.mode)) + " to " +
                               shape_str(c.output) + " " + printed(dtype);
      expect_same({OP("", resample_forward(in[0], c.output, c.scales, c.mode, c.align_corners))},
                  {x}, kExact, what);
      expect_same(
          {OP("backward", resample_backward(in[0], c.input, c.scales, c.mode, c.align_corners))},
          {sample(y.sizes(), dtype, 108)}, math_tol(dtype), what);
    }
    // "area" is adaptive average pooling, over 1 to 3 dims.
    for (const auto& [input, size] : std::vector<std::pair<SizeVec, SizeVec>>{
             {{2, 3, 11}, {4}}, {{2, 3, 11}, {1}}, {{2, 3, 11}, {11}},
             {{2, 2, 5, 6, 7}, {3, 2, 4}}, {{2, 2, 5, 6, 7}, {5, 6, 7}}}) {
      const char* op = size.size() == 1 ? "adaptive_avg_pool1d" : "adaptive_avg_pool3d";
      const int64_t dims = static_cast<int64_t>(size.size());
      const SizeVec s = size, shape = input;
      const Tensor x = sample(input, dtype, 109);
      expect_same({OP("", adaptive_avg_pool_forward(op, in[0], s)),
                   OP("backward", adaptive_avg_pool_backward(in[1], shape, dims))},
                  {x, sample(adaptive_avg_pool_forward(op, x, s).sizes(), dtype, 110)},
                  math_tol(dtype), op + (" " + shape_str(size)) + " " + printed(dtype));
    }
  }
}

// ---- Refusals ---------------------------------------------------------------------------

// Math defined on floating dtypes only names the CUDA kernel, as PyTorch does.
TEST(CudaNewerOpsTest, FloatingOnlyMathOfIntegersNamesTheCudaKernel) {
  REQUIRE_GPU();
  const Tensor ints = gpu(tensor({1, 2, 3}));
  EXPECT_THROW_MSG(hypot(ints, ints), "hypot: \"hypot_cuda\" not implemented for 'Long'");
  EXPECT_THROW_MSG(logaddexp(ints, ints),
                   "logaddexp: \"logaddexp_cuda\" not implemented for 'Long'");
  EXPECT_THROW_MSG(logaddexp2(ints, ints),
                   "logaddexp2: \"logaddexp2_cuda\" not implemented for 'Long'");
  Tensor self = ints.clone();
  EXPECT_THROW_MSG(self.hypot_(ints), "hypot_: \"hypot_cuda\" not implemented for 'Long'");
}

#undef OP

}  // namespace
}  // namespace torchlet
