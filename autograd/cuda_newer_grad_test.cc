// Backward on a GPU of the differentiable ops added since the CUDA suite last
// ran on one (elementwise math, shape and index ops, NaN-aware statistics,
// decompositions and solvers, products and norms): each op on leaves holding
// the same inputs on cpu:0 and cuda:0, one random upstream gradient, and the
// outputs and every input's gradient compared. Skipped without a GPU.
#include <cmath>
#include <exception>
#include <functional>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "autograd/autograd.h"
#include "gtest/gtest.h"
#include "tensor/test_matrices.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using ::testing::AssertionFailure;
using testing::all_close;
using testing::wavy;

const Device kGpu("cuda:0");
const Device kCpu("cpu:0");
constexpr double kInf = std::numeric_limits<double>::infinity();

using Fn = std::function<Variable(const variable_list&)>;

struct Case { std::string name; Fn fn; std::vector<Tensor> inputs; };

// float64 agrees to rounding (GPU and CPU sum and fuse differently); float32
// to a few ulps of its results.
double rtol_for(DType dtype) { return dtype == kFloat32 ? 1e-4 : 1e-10; }
double atol_for(DType dtype) { return dtype == kFloat32 ? 1e-5 : 1e-11; }

// `fn` on leaves holding `inputs` on the CPU and on the GPU, each followed by
// backward with one random upstream gradient: the same output, and for every
// input the same gradient, on the input's device and in its dtype.
::testing::AssertionResult same_on_gpu(const Fn& fn, const std::vector<Tensor>& inputs) {
  try {
    variable_list cpu, gpu;
    for (const Tensor& t : inputs) {
      cpu.emplace_back(t.clone(), true);
      gpu.emplace_back(t.to(kGpu), true);
    }
    const Variable expected = fn(cpu);
    manual_seed(1234);
    const Tensor upstream = randn(expected.sizes(), expected.dtype());
    expected.backward(Variable(upstream));
    const Variable actual = fn(gpu);
    if (actual.device() != kGpu) return AssertionFailure() << "result on " << actual.device();
    actual.backward(Variable(upstream.to(kGpu)));
    const double rtol = rtol_for(expected.dtype()), atol = atol_for(expected.dtype());
    if (auto r = all_close(actual.data().to(kCpu), expected.data(), rtol, atol); !r) {
      return AssertionFailure() << "forward: " << r.message();
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Variable want = cpu[i].grad(), got = gpu[i].grad();
      if (want.defined() != got.defined()) {
        return AssertionFailure() << "input " << i << ": gradient defined on the CPU "
                                  << want.defined() << ", on the GPU " << got.defined();
      }
      if (!want.defined()) continue;
      if (got.device() != kGpu || got.dtype() != want.dtype()) {
        return AssertionFailure() << "input " << i << ": gradient on " << got.device() << " in "
                                  << got.dtype();
      }
      const DType dtype = inputs[i].dtype();
      if (auto r = all_close(got.data().to(kCpu), want.data(), rtol_for(dtype), atol_for(dtype));
          !r) {
        return AssertionFailure() << "gradient of input " << i << ": " << r.message();
      }
    }
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return AssertionFailure() << "threw: " << e.what();
  }
}

void expect_same_on_gpu(const std::vector<Case>& cases) {
  for (const Case& c : cases) EXPECT_TRUE(same_on_gpu(c.fn, c.inputs)) << c.name;
}

// Uniform in [lo, hi).
Tensor uniform(IntArrayRef shape, double lo, double hi, uint64_t seed, DType dtype = kFloat64) {
  manual_seed(seed);
  return (rand(shape, kFloat64) * (hi - lo) + lo).to(dtype);
}

// Matrices of full rank with distinct singular values.
Tensor full_rank(std::vector<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return arange(n, kFloat64).pow(2).mul(0.37).sin().view(shape);
}

// `t` with one NaN in each row and in each of three columns (of a [3, 5]).
Tensor with_nans(const Tensor& t) {
  const Tensor mask = tensor({{0, 1, 0, 0, 0}, {0, 0, 0, 1, 0}, {0, 0, 0, 0, 1}}).to(kBool);
  return t.masked_fill(mask, std::nan(""));
}

// An int64 index tensor on `like`'s device.
Tensor idx(const Variable& like, const TensorLiteral& values) {
  return tensor(values).to(kInt64).to(like.device());
}

Variable mT(const Variable& x) { return x.transpose(-2, -1); }
Variable flat(const variable_list& parts) {
  variable_list flats;
  for (const Variable& p : parts) flats.push_back(p.reshape({-1}));
  return cat(flats, 0);
}
Variable spd(const Variable& x) {
  return x.matmul(mT(x)) + Variable(eye(x.size(-1), x.options()).mul(3.0));
}
Variable sym(const Variable& x) { return x + mT(x); }
// Losses of an SVD that do not depend on the singular vectors' signs: the
// product U S Vh (U's first k columns), and S with the squares of U and Vh.
using Svd = std::tuple<Variable, Variable, Variable>;
Variable svd_product(const Svd& usv) {
  const auto& [u, s, vh] = usv;
  return u.narrow(-1, 0, s.size(-1)).mul(s.unsqueeze(-2)).matmul(vh);
}
Variable svd_squares(const Svd& usv) {
  const auto& [u, s, vh] = usv;
  return flat({s, u * u, vh * vh});
}

// ---- 0a3a74f: elementwise math ----------------------------------------------------------

struct Unary { const char* name; Fn fn, inplace; double lo, hi; };

std::vector<Unary> unary_ops() {
#define TORCHLET_UNARY(op, lo, hi)                                                           \
  Unary {                                                                                     \
    #op, [](const variable_list& x) { return x[0].op(); },                                    \
        [](const variable_list& x) { return x[0].mul(1.0).op##_(); }, lo, hi                 \
  }
  return {TORCHLET_UNARY(sinh, -3, 3),     TORCHLET_UNARY(cosh, -3, 3),
          TORCHLET_UNARY(asin, -0.9, 0.9), TORCHLET_UNARY(acos, -0.9, 0.9),
          TORCHLET_UNARY(atan, -4, 4),     TORCHLET_UNARY(asinh, -4, 4),
          TORCHLET_UNARY(acosh, 1.2, 5),   TORCHLET_UNARY(atanh, -0.9, 0.9),
          TORCHLET_UNARY(expm1, -3, 3),    TORCHLET_UNARY(log2, 0.2, 5),
          TORCHLET_UNARY(log10, 0.2, 5),   TORCHLET_UNARY(exp2, -3, 3),
          TORCHLET_UNARY(erfc, -2, 2),     TORCHLET_UNARY(erfinv, -0.9, 0.9),
          TORCHLET_UNARY(lgamma, 0.2, 6),  TORCHLET_UNARY(digamma, 0.2, 6)};
#undef TORCHLET_UNARY
}

TEST(CudaNewerGradTest, UnaryMathAndInPlaceForms) {
  REQUIRE_GPU();
  for (DType dtype : {kFloat64, kFloat32}) {
    for (const Unary& u : unary_ops()) {
      const Tensor x = uniform({3, 5}, u.lo, u.hi, 1, dtype);
      EXPECT_TRUE(same_on_gpu(u.fn, {x})) << u.name << " " << dtype;
      EXPECT_TRUE(same_on_gpu(u.inplace, {x})) << u.name << "_ " << dtype;
    }
  }
  const Tensor negative = tensor({-2.5, -1.3, -0.7, -3.8}, kFloat64);  // between the poles
  EXPECT_TRUE(same_on_gpu([](const variable_list& x) { return x[0].lgamma(); }, {negative}));
  EXPECT_TRUE(same_on_gpu([](const variable_list& x) { return x[0].digamma(); }, {negative}));
}

TEST(CudaNewerGradTest, BinaryAndTernaryMathWithBroadcasting) {
  REQUIRE_GPU();
  using V = const variable_list&;
  for (DType dt : {kFloat64, kFloat32}) {
    // [3, 4] with [4] and [3, 1]: gradients summed back over broadcast dims.
    const Tensor a = uniform({3, 4}, -3, 3, 1, dt), row = uniform({4}, -3, 3, 2, dt);
    const Tensor col = uniform({3, 1}, -3, 3, 3, dt);
    const Tensor pos = uniform({3, 4}, 0.2, 3, 4, dt), pos_row = uniform({4}, 0.2, 3, 5, dt);
    const Tensor t2 = uniform({3, 4}, 0.5, 2, 6, dt), weight = uniform({3, 4}, -0.5, 1.5, 7, dt);
    expect_same_on_gpu({
        {"hypot", [](V x) { return x[0].hypot(x[1]); }, {a, row}},
        {"hypot col", [](V x) { return x[0].hypot(x[1]); }, {col, a}},
        {"logaddexp", [](V x) { return x[0].logaddexp(x[1]); }, {a, row}},
        {"logaddexp2", [](V x) { return x[0].logaddexp2(x[1]); }, {col, a}},
        {"xlogy", [](V x) { return x[0].xlogy(x[1]); }, {pos, pos_row}},
        {"xlogy scalar", [](V x) { return x[0].xlogy(2.5); }, {pos}},
        {"xlogy number self", [](V x) { return xlogy(3, x[0]); }, {pos}},
        {"copysign", [](V x) { return x[0].copysign(x[1]); }, {pos, row}},
        {"copysign scalar", [](V x) { return x[0].copysign(-1); }, {a}},
        {"lerp scalar", [](V x) { return x[0].lerp(x[1], 0.3); }, {col, row}},
        {"lerp tensor", [](V x) { return x[0].lerp(x[1], x[2]); }, {col, row, weight}},
        {"addcmul", [](V x) { return x[0].addcmul(x[1], x[2], -0.5); }, {col, row, t2}},
        {"addcdiv", [](V x) { return x[0].addcdiv(x[1], x[2], 2); }, {col, row, t2}},
        {"hypot_", [](V x) { return x[0].mul(1.0).hypot_(x[1]); }, {a, row}},
        {"xlogy_", [](V x) { return x[0].mul(1.0).xlogy_(x[1]); }, {pos, pos_row}},
        {"copysign_", [](V x) { return x[0].mul(1.0).copysign_(x[1]); }, {pos, row}},
        {"lerp_", [](V x) { return x[0].mul(1.0).lerp_(x[1], x[2]); }, {a, row, weight}},
        {"addcmul_", [](V x) { return x[0].mul(1.0).addcmul_(x[1], x[2], 0.5); }, {a, row, t2}},
        {"addcdiv_", [](V x) { return x[0].mul(1.0).addcdiv_(x[1], x[2], -2); }, {a, row, t2}},
    });
  }
}

// ---- d8fc6e6: triangles, flips, rolls, diagonals, repeats, index ops ----------------------

TEST(CudaNewerGradTest, ShapeOps) {
  REQUIRE_GPU();
  using V = const variable_list&;
  const Tensor b = wavy({2, 3, 4}), m = wavy({3, 4}, 0, 0.7), v = wavy({3}, 0, 1.1);
  const Tensor rows = wavy({3, 4}, 0, 1.3), cols = wavy({3, 2}, 0, 1.9);  // sources
  std::vector<Case> cases = {
      {"tril -1", [](V x) { return x[0].tril(-1); }, {b}},
      {"triu 2", [](V x) { return triu(x[0], 2); }, {b}},
      {"tril float32", [](V x) { return x[0].tril(1); }, {b.to(kFloat32)}},
      {"tril_", [](V x) { return x[0].mul(2).tril_(-1); }, {m}},
      {"triu_", [](V x) { return x[0].mul(2).triu_(1); }, {m}},
      {"flip", [](V x) { return x[0].flip({0, -1}); }, {b}},
      {"fliplr", [](V x) { return fliplr(x[0]); }, {b}},
      {"flipud", [](V x) { return x[0].flipud(); }, {b}},
      {"roll dims", [](V x) { return x[0].roll({1, -5, 2}, {0, 2, 2}); }, {b}},
      {"roll flat", [](V x) { return x[0].roll(7); }, {b}},
      {"rot90 dims", [](V x) { return x[0].rot90(1, {2, 0}); }, {b}},
      {"diagonal", [](V x) { return x[0].diagonal(1, -1, 0); }, {b}},
      {"diagonal 2", [](V x) { return diagonal(x[0], -1, 2, 1); }, {b}},
      {"diag of vector", [](V x) { return x[0].diag(-2); }, {v}},
      {"diag of matrix", [](V x) { return x[0].diag(1); }, {m}},
      {"diag_embed", [](V x) { return diag_embed(x[0], 1, 0, 2); }, {m}},
      {"trace", [](V x) { return trace(x[0]); }, {m}},
      {"repeat", [](V x) { return x[0].repeat({2, 1, 3}); }, {m}},
      {"tile", [](V x) { return x[0].tile({2}); }, {m}},
      {"repeat_interleave", [](V x) { return x[0].repeat_interleave(2); }, {m}},
      {"repeat_interleave dim", [](V x) { return x[0].repeat_interleave(3, -1); }, {m}},
      {"repeat_interleave tensor",
       [](V x) { return x[0].repeat_interleave(idx(x[0], {2, 0, 3}), 0); }, {m}},
      {"movedim", [](V x) { return x[0].movedim({0, 1}, {2, 0}); }, {b}},
      {"meshgrid", [](V x) { return flat(meshgrid({x[0], x[1]}, "xy")); }, {v, wavy({2})}},
      {"index_add", [](V x) { return x[0].index_add(0, idx(x[0], {2, 0, 2}), x[1], 2.5); },
       {m, rows}},
      {"index_add dim 1", [](V x) { return index_add(x[0], 1, idx(x[0], {3, 3}), x[1]); },
       {m, cols}},
      {"index_add_", [](V x) { return x[0].mul(1).index_add_(0, idx(x[0], {1, 1, 0}), x[1]); },
       {m, rows}},
      {"index_copy", [](V x) { return x[0].index_copy(1, idx(x[0], {3, 0}), x[1]); }, {m, cols}},
      {"index_copy_", [](V x) { return x[0].mul(1).index_copy_(1, idx(x[0], {1, 2}), x[1]); },
       {m, cols}},
      {"index_fill", [](V x) { return x[0].index_fill(0, idx(x[0], {-1, 0}), 3.0); }, {m}},
      {"index_fill_", [](V x) { return x[0].mul(1).index_fill_(1, idx(x[0], {2}), 3.0); }, {m}},
      {"take_along_dim", [](V x) { return x[0].take_along_dim(idx(x[0], {{0}, {2}}), 0); }, {m}},
      {"take_along_dim broadcast",
       [](V x) { return x[0].take_along_dim(idx(x[0], {{0, 0, 1, 3}}), 1); }, {wavy({1, 4})}},
      {"take_along_dim flat",
       [](V x) { return take_along_dim(x[0], idx(x[0], {11, 0, 11})); }, {m}},
  };
  for (int64_t k : {-1, 2, 3, 5}) {
    cases.push_back({"rot90 " + std::to_string(k), [k](V x) { return x[0].rot90(k); }, {m}});
  }
  expect_same_on_gpu(cases);
}

// ---- 4ed1c2e: NaN-aware reductions, medians, quantiles, running extremes -----------------

TEST(CudaNewerGradTest, Statistics) {
  REQUIRE_GPU();
  using V = const variable_list&;
  const Tensor x = wavy({3, 5}), nans = with_nans(x);
  const Tensor q = tensor({0.0, 0.3, 0.5, 0.85, 1.0}, kFloat64);
  std::vector<Case> cases = {
      {"nansum", [](V v) { return v[0].nansum(); }, {nans}},
      {"nansum dim", [](V v) { return v[0].nansum({-1}, true); }, {nans}},
      {"nansum float32", [](V v) { return v[0].nansum({0}); }, {nans.to(kFloat32)}},
      {"nanmean", [](V v) { return v[0].nanmean(); }, {nans}},
      {"nanmean dims", [](V v) { return v[0].nanmean({0}, true); }, {nans}},
      {"std_mean", [](V v) { auto [s, m] = std_mean(v[0], {1}, false, true); return s + m * 2.0; },
       {x}},
      {"var_mean", [](V v) { auto [s, m] = var_mean(v[0]); return s * 3.0 - m; }, {x}},
      {"aminmax dim", [](V v) { auto [lo, hi] = v[0].aminmax(-1); return lo * 2.0 + hi; }, {x}},
      {"aminmax", [](V v) { auto [lo, hi] = v[0].aminmax(std::nullopt, true); return lo - hi; },
       {x}},
      {"median", [](V v) { return v[0].median(); }, {x}},
      {"median with NaNs", [](V v) { return v[0].median(); }, {nans}},
      {"median dim", [](V v) { return std::get<0>(v[0].median(1)); }, {x}},
      {"median dim keepdim", [](V v) { return std::get<0>(v[0].median(-2, true)); }, {x}},
      {"median dim with NaNs", [](V v) { return std::get<0>(v[0].median(1)); }, {nans}},
      {"nanmedian", [](V v) { return v[0].nanmedian(); }, {nans}},
      {"nanmedian dim", [](V v) { return std::get<0>(v[0].nanmedian(0, true)); }, {nans}},
      {"nanmedian dim 1", [](V v) { return std::get<0>(v[0].nanmedian(1)); }, {nans}},
      {"quantile all", [q](V v) { return v[0].quantile(q.to(v[0].device())); }, {x}},
      {"cummax", [](V v) { return std::get<0>(v[0].cummax(1)); }, {x}},
      {"cummin", [](V v) { return std::get<0>(v[0].cummin(-2)); }, {x}},
      {"cummax float32", [](V v) { return std::get<0>(v[0].cummax(0)); }, {x.to(kFloat32)}},
      {"logcumsumexp", [](V v) { return v[0].logcumsumexp(1); }, {x}},
      {"logcumsumexp dim 0", [](V v) { return v[0].logcumsumexp(-2); }, {x}},
      {"logcumsumexp float32", [](V v) { return v[0].logcumsumexp(1); }, {x.to(kFloat32)}},
  };
  for (const std::string mode : {"linear", "lower", "higher", "midpoint", "nearest"}) {
    cases.push_back({"quantile " + mode,
                     [q, mode](V v) { return v[0].quantile(q.to(v[0].device()), 1, true, mode); },
                     {x}});
    cases.push_back({"nanquantile " + mode,
                     [mode](V v) { return v[0].nanquantile(0.4, -2, false, mode); }, {nans}});
  }
  expect_same_on_gpu(cases);
}

// ---- 730e00f, 3255b08: decompositions and solvers (float64, well conditioned) --------------

TEST(CudaNewerGradTest, DecompositionsAndSolvers) {
  REQUIRE_GPU();
  const testing::WarningCapture warnings;  // torch.cholesky's deprecation
  using V = const variable_list&;
  const Tensor sq = wavy({2, 3, 3}, 3.0), one = wavy({3, 3}, 3.0, 0.9);
  const Tensor near_one = wavy({2, 3, 3}, 1.0), plain = wavy({2, 3, 3}, 0, 1.3);
  const Tensor tall = full_rank({5, 3}), wide = full_rank({3, 5}), rhs = wavy({5, 2}, 0, 2.1);
  const Tensor singular = tensor({{1.0, 2.0, 3.0}, {0.0, 0.0, 0.0}, {4.0, 5.0, 7.0}}, kFloat64);
  const Fn inv = [](V x) { return linalg::inv(x[0]); };
  const Fn solve = [](V x) { return linalg::solve(x[0], x[1]); };
  const auto qr = [](std::string mode) -> Fn {
    return [mode](V x) { auto [q, r] = linalg::qr(x[0], mode); return flat({q, r}); };
  };
  std::vector<Case> cases = {
      {"linalg.inv", inv, {sq}},
      {"linalg.inv float32", inv, {sq.to(kFloat32)}},
      {"inverse", [](V x) { return x[0].inverse(); }, {one}},
      {"linalg.det", [](V x) { return linalg::det(x[0]); }, {near_one}},
      {"det", [](V x) { return x[0].det(); }, {one}},
      {"det of a singular matrix", [](V x) { return x[0].det(); },
       {stack({singular, eye(3, kFloat64)})}},
      {"slogdet", [](V x) { return std::get<1>(linalg::slogdet(x[0])); }, {near_one}},
      {"logdet", [](V x) { return logdet(spd(x[0])); }, {plain}},
      {"solve broadcast B", solve, {sq, wavy({3, 2}, 0, 1.7)}},
      {"solve vectors", solve, {sq, wavy({2, 3})}},
      {"solve one vector", solve, {one, wavy({3})}},
      {"solve float32", solve, {sq.to(kFloat32), wavy({2, 3}, 0, 0.5, kFloat32)}},
      {"qr tall", qr("reduced"), {tall}},
      {"qr square batch", qr("reduced"), {near_one}},
      {"qr wide", qr("reduced"), {wide}},
      {"qr complete wide", qr("complete"), {wide}},
      {"torch.qr R", [](V x) { return std::get<1>(x[0].qr()); }, {full_rank({4, 3})}},
      {"eigh L", [](V x) { auto [w, v] = linalg::eigh(sym(x[0])); return flat({w, v * v}); },
       {wavy({2, 4, 4})}},
      {"eigh U", [](V x) { auto [w, v] = linalg::eigh(sym(x[0]), "U"); return flat({w, v * v}); },
       {wavy({4, 4}, 0, 0.8)}},
      {"eigvalsh", [](V x) { return linalg::eigvalsh(sym(x[0])); }, {wavy({2, 4, 4})}},
      {"svdvals", [](V x) { return linalg::svdvals(x[0]).sum(); }, {tall}},
      {"svdvals float32", [](V x) { return linalg::svdvals(x[0]); }, {tall.to(kFloat32)}},
      {"svd U S Vh", [](V x) { return svd_product(linalg::svd(x[0], false)); }, {wide}},
      {"svd squares", [](V x) { return svd_squares(linalg::svd(x[0], false)); }, {tall}},
      {"svd batch", [](V x) { return svd_squares(linalg::svd(x[0], false)); },
       {full_rank({2, 3, 3})}},
      {"svd full_matrices", [](V x) { return svd_product(linalg::svd(x[0], true)); }, {tall}},
      {"torch.svd", [](V x) { auto [u, s, v] = svd(x[0]); return svd_product({u, s, mT(v)}); },
       {tall}},
      {"pinv tall", [](V x) { return linalg::pinv(x[0]); }, {tall}},
      {"pinverse wide", [](V x) { return x[0].pinverse(); }, {wide}},
      {"lstsq", [](V x) { return linalg::lstsq(x[0], x[1]).solution; }, {tall, rhs}},
      {"lstsq vector", [](V x) { return linalg::lstsq(x[0], x[1]).solution; },
       {tall, wavy({5}, 0, 0.4)}},
      {"matrix_power 3", [](V x) { return linalg::matrix_power(x[0], 3); }, {plain}},
      {"matrix_power -2", [](V x) { return x[0].matrix_power(-2); }, {sq}},
      {"matrix_exp", [](V x) { return linalg::matrix_exp(x[0]); }, {plain.mul(1.5)}},
  };
  for (bool up : {false, true}) {
    const std::string u = up ? " upper" : " lower";
    const auto chol = [up](const Variable& x) { return linalg::cholesky(spd(x), up); };
    cases.push_back({"linalg.cholesky" + u, [chol](V x) { return chol(x[0]); }, {plain}});
    cases.push_back({"cholesky" + u, [up](V x) { return spd(x[0]).cholesky(up); }, {one}});
    cases.push_back({"cholesky_solve" + u,
                     [chol, up](V x) { return cholesky_solve(x[0], chol(x[1]), up); },
                     {wavy({2, 3, 2}), plain.select(0, up ? 1 : 0)}});
    cases.push_back({"cholesky_inverse" + u,
                     [chol, up](V x) { return cholesky_inverse(chol(x[0]), up); }, {plain}});
  }
  expect_same_on_gpu(cases);
}

// ---- 10b1a6e: einsum, tensordot, kron, cross, cdist, norms ---------------------------------

TEST(CudaNewerGradTest, ProductsDistancesAndNorms) {
  REQUIRE_GPU();
  using V = const variable_list&;
  const auto ein = [](std::string eq) -> Fn { return [eq](V x) { return einsum(eq, x); }; };
  const Tensor m = wavy({3, 4}), b = wavy({2, 3, 4}, 0, 0.9);
  const Tensor x1 = wavy({2, 4, 3}), x2 = wavy({2, 5, 3}, 0, 0.7), v3 = wavy({4, 3});
  std::vector<Case> cases = {
      {"einsum matmul", ein("ij,jk->ik"), {wavy({2, 3}), wavy({3, 4}, 0, 1.1)}},
      {"einsum bmm", ein("bij,bjk->bik"), {b, wavy({2, 4, 2}, 0, 0.7)}},
      {"einsum trace", ein("ii"), {wavy({3, 3})}},
      {"einsum diagonal", ein("bii->bi"), {wavy({2, 3, 3})}},
      {"einsum bilinear", ein("bn,anm,bm->ba"),
       {wavy({2, 3}), wavy({4, 3, 2}, 0, 0.9), wavy({2, 2}, 0, 1.4)}},
      {"einsum ellipsis", ein("...ij,...jk->...ik"), {wavy({2, 1, 2, 3}), wavy({3, 3, 2}, 0, 0.5)}},
      {"einsum sum", ein("ij->"), {m}},
      {"einsum three", ein("i,i,i->"), {wavy({3}), wavy({3}, 0, 0.4), wavy({3}, 0, 0.8)}},
      {"einsum float32", ein("bij,bjk->bik"), {b.to(kFloat32), wavy({2, 4, 2}, 0, 0.7, kFloat32)}},
      {"tensordot 2", [](V x) { return tensordot(x[0], x[1], 2); },
       {wavy({2, 3, 2}), wavy({3, 2, 2}, 0, 0.6)}},
      {"tensordot dims", [](V x) { return tensordot(x[0], x[1], {1, 2}, {1, 0}); },
       {b, wavy({4, 3, 5}, 0, 0.6)}},
      {"kron", [](V x) { return kron(x[0], x[1]); }, {wavy({2, 3}), wavy({3, 2}, 0, 1)}},
      {"kron ranks", [](V x) { return x[0].kron(x[1]); }, {b, wavy({2, 2}, 0, 1)}},
      {"cross", [](V x) { return cross(x[0], x[1]); }, {v3, wavy({4, 3}, 0, 0.8)}},
      {"cross dim 0", [](V x) { return x[0].cross(x[1], 0); }, {m, wavy({3, 4}, 0, 0.8)}},
      {"linalg.cross broadcast", [](V x) { return linalg::cross(x[0], x[1]); },
       {v3, wavy({1, 3}, 0, 0.8)}},
      {"vecdot", [](V x) { return linalg::vecdot(x[0], x[1]); }, {m, wavy({4}, 0, 0.2)}},
      {"multi_dot", [](V x) { return linalg::multi_dot(x); },
       {wavy({3}), wavy({3, 4}, 0, 0.5), wavy({4, 5}, 0, 0.6), wavy({5})}},
      {"cdist mm", [](V x) { return cdist(x[0], x[1], 2, "use_mm_for_euclid_dist"); }, {x1, x2}},
      {"cdist broadcast batch", [](V x) { return cdist(x[0], x[1], 1.5); },
       {x1.narrow(0, 0, 1), x2}},
      {"cdist float32", [](V x) { return cdist(x[0], x[1], 3); },
       {wavy({4, 3}, 0, 0.3, kFloat32), wavy({5, 3}, 0, 0.7, kFloat32)}},
      {"matrix_norm fro", [](V x) { return linalg::matrix_norm(x[0]); }, {b}},
      {"matrix_norm nuc", [](V x) { return linalg::matrix_norm(x[0], "nuc"); }, {b}},
      {"linalg.norm", [](V x) { return linalg::norm(x[0]); }, {b}},
      {"linalg.norm dims",
       [](V x) { return linalg::norm(x[0], 2.0, std::vector<int64_t>{0, 2}, true); }, {b}},
  };
  for (double p : {1.0, 1.5, 2.0, 3.0, kInf}) {
    cases.push_back({"cdist p=" + std::to_string(p), [p](V x) { return cdist(x[0], x[1], p); },
                     {x1, x2}});
  }
  for (double ord : {2.0, 1.0, 3.0, 0.5, kInf, -kInf}) {
    cases.push_back({"vector_norm " + std::to_string(ord),
                     [ord](V x) { return linalg::vector_norm(x[0], ord, {1}, true); }, {b}});
    cases.push_back({"vector_norm all " + std::to_string(ord),
                     [ord](V x) { return linalg::vector_norm(x[0], ord); }, {m}});
  }
  for (double ord : {1.0, -1.0, kInf, -kInf, 2.0, -2.0}) {
    cases.push_back({"matrix_norm " + std::to_string(ord),
                     [ord](V x) { return linalg::matrix_norm(x[0], ord); }, {b}});
  }
  expect_same_on_gpu(cases);
}

// ---- A graph over both devices --------------------------------------------------------------

// A CPU leaf whose copy enters GPU ops, and GPU results brought back to the
// CPU to meet it again: the gradients match the all-CPU graph's.
TEST(CudaNewerGradTest, MixedDeviceBackwardMatchesTheCpu) {
  REQUIRE_GPU();
  const Tensor xd = uniform({3, 4}, -2, 2, 1), wd = uniform({3, 4}, 0.2, 3, 2);
  manual_seed(3);
  const Tensor upstream = randn({3, 4}, kFloat64);
  struct Run { Tensor y, x_grad, w_grad; };
  const auto run = [&](Device device) {
    const Variable x(xd.clone(), true);     // on the CPU
    const Variable w(wd.to(device), true);  // on `device`
    const Variable on_device = x.to(device).hypot(w).logcumsumexp(1).tril(1);
    const Variable back = on_device.to(kCpu) * x.sinh() + w.digamma().to(kCpu);
    const Variable y = back + linalg::vector_norm(x.to(device) * w, 3, {1}, true).to(kCpu);
    y.backward(Variable(upstream));
    EXPECT_EQ(x.grad().device(), kCpu);
    EXPECT_EQ(w.grad().device(), device);
    return Run{y.data(), x.grad().data(), w.grad().data().to(kCpu)};
  };
  const Run expected = run(kCpu), actual = run(kGpu);
  EXPECT_TRUE(all_close(actual.y, expected.y, 1e-10, 1e-11));
  EXPECT_TRUE(all_close(actual.x_grad, expected.x_grad, 1e-10, 1e-11));
  EXPECT_TRUE(all_close(actual.w_grad, expected.w_grad, 1e-10, 1e-11));
}

}  // namespace
}  // namespace torchlet
