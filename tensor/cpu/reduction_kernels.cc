// CPU kernels for reductions, softmax and scans. The op layer permutes the
// input so that the reduced dims come last; each output position then reduces
// its reduced positions, visited as strided runs of the innermost reduced dim.
// Outputs run in parallel; a few outputs over many elements split their
// elements into chunks whose partial results are combined.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include "tensor/cpu/dispatch.h"
#include "tensor/cpu/kernels.h"
#include "tensor/cpu/reduced_float.h"
#include "tensor/parallel.h"
#include "tensor/tensor_body.h"

namespace torchlet::cpu {
namespace {

// ---- Geometry ------------------------------------------------------------------

// The input split into kept dims (outputs, row-major) and reduced dims
// (coalesced, innermost last, at least one). Strides are in elements.
struct Geometry {
  SizeVec kept_sizes, kept_strides;
  SizeVec red_sizes, red_strides;
  int64_t n_out = 1, n_red = 1;
};

Geometry make_geometry(const Tensor& in, int64_t reduced) {
  Geometry g;
  const int64_t split = in.dim() - reduced;
  for (int64_t d = 0; d < in.dim(); ++d) {
    const int64_t size = in.size(d), stride = in.stride(d);
    if (d < split) {
      g.kept_sizes.push_back(size);
      g.kept_strides.push_back(stride);
      g.n_out *= size;
      continue;
    }
    g.n_red *= size;
    if (size == 1) continue;
    if (!g.red_sizes.empty() && g.red_strides.back() == stride * size) {
      g.red_sizes.back() *= size;
      g.red_strides.back() = stride;
    } else {
      g.red_sizes.push_back(size);
      g.red_strides.push_back(stride);
    }
  }
  if (g.red_sizes.empty()) {
    g.red_sizes.push_back(1);
    g.red_strides.push_back(0);
  }
  return g;
}

// Offset of output `o`'s first reduced element.
int64_t kept_offset(const Geometry& g, int64_t o) {
  int64_t offset = 0;
  for (int64_t d = static_cast<int64_t>(g.kept_sizes.size()) - 1; d >= 0; --d) {
    offset += (o % g.kept_sizes[d]) * g.kept_strides[d];
    o /= g.kept_sizes[d];
  }
  return offset;
}

// Calls f(offset, stride, n, first) for the runs covering reduced positions
// [begin, end) in row-major order; `first` is the position of the run's start.
template <typename F>
void for_each_run(const Geometry& g, int64_t begin, int64_t end, F&& f) {
  if (begin >= end) return;
  const int nd = static_cast<int>(g.red_sizes.size());
  const int64_t inner = g.red_sizes[nd - 1], inner_stride = g.red_strides[nd - 1];
  SizeVec counter(nd, 0);
  int64_t offset = 0;
  int64_t rest = begin / inner;
  for (int d = nd - 2; d >= 0; --d) {
    counter[d] = rest % g.red_sizes[d];
    rest /= g.red_sizes[d];
    offset += counter[d] * g.red_strides[d];
  }
  int64_t i = begin % inner;
  for (int64_t pos = begin; pos < end;) {
    const int64_t n = std::min(inner - i, end - pos);
    f(offset + i * inner_stride, inner_stride, n, pos);
    pos += n;
    i = 0;
    for (int d = nd - 2; d >= 0; --d) {
      if (++counter[d] < g.red_sizes[d]) {
        offset += g.red_strides[d];
        break;
      }
      offset -= (g.red_sizes[d] - 1) * g.red_strides[d];
      counter[d] = 0;
    }
  }
}

template <typename Op, typename T>
typename Op::Acc accumulate(const Op& op, const T* base, const Geometry& g, int64_t begin,
                            int64_t end) {
  typename Op::Acc acc = op.init();
  for_each_run(g, begin, end, [&](int64_t offset, int64_t stride, int64_t n, int64_t first) {
    op.run(acc, base + offset, stride, n, first);
  });
  return acc;
}

// One output's elements in chunks across the threads, combined in order.
template <typename Op, typename T>
typename Op::Acc accumulate_chunked(const Op& op, const T* base, const Geometry& g) {
  const int64_t chunks = (g.n_red + kParallelGrain - 1) / kParallelGrain;
  std::vector<typename Op::Acc> partial(chunks, op.init());
  parallel_for(0, chunks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      partial[c] = accumulate(op, base, g, c * kParallelGrain,
                              std::min(g.n_red, (c + 1) * kParallelGrain));
    }
  });
  typename Op::Acc acc = partial[0];
  for (int64_t c = 1; c < chunks; ++c) acc = op.combine(acc, partial[c]);
  return acc;
}

// Calls write(o, acc) with each output's accumulated value.
template <typename Op, typename T, typename Write>
void reduce_outputs(const Op& op, const Tensor& in, int64_t reduced, Write&& write) {
  const Geometry g = make_geometry(in, reduced);
  const T* base = static_cast<const T*>(in.data_ptr());
  if (g.n_out < detail::split_threads() && g.n_red >= 2 * kParallelGrain) {
    for (int64_t o = 0; o < g.n_out; ++o) write(o, accumulate_chunked(op, base + kept_offset(g, o), g));
    return;
  }
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(g.n_red, 1));
  parallel_for(0, g.n_out, grain, [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o) {
      write(o, accumulate(op, base + kept_offset(g, o), g, 0, g.n_red));
    }
  });
}

template <typename Op, typename T>
void reduce_into(const Op& op, const Tensor& out, const Tensor& in, int64_t reduced) {
  auto* dst = out.data<typename Op::Out>();
  reduce_outputs<Op, T>(op, in, reduced,
                        [&](int64_t o, const typename Op::Acc& acc) { dst[o] = op.finish(acc); });
}

// ---- Accumulators --------------------------------------------------------------
// Each has init(), run(acc, p, stride, n, first) over one strided run,
// combine(a, b) of two partial results (a first) and finish(acc).

template <typename T>
bool is_nan(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(x);
  } else {
    return false;
  }
}

template <typename T>
using Wide = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
template <typename T>
using SumOut = std::conditional_t<std::is_floating_point_v<T>, T, int64_t>;

// Float partial sums of short blocks (vectorized by Eigen) added in double.
template <typename T>
double flat_sum(const T* p, int64_t n) {
  constexpr int64_t kBlock = 1024;
  double acc = 0;
  for (int64_t i = 0; i < n; i += kBlock) {
    acc += Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>(p + i, std::min(kBlock, n - i))
               .sum();
  }
  return acc;
}

template <typename T>
struct SumOp {
  using Acc = Wide<T>;
  using Out = SumOut<T>;
  Acc init() const { return 0; }
  void run(Acc& acc, const T* p, int64_t stride, int64_t n, int64_t) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (stride == 1) {
        acc += flat_sum(p, n);
        return;
      }
    }
    for (int64_t i = 0; i < n; ++i) acc += p[i * stride];
  }
  Acc combine(Acc a, Acc b) const { return a + b; }
  Out finish(Acc acc) const { return static_cast<Out>(acc); }
};

// Sum skipping NaNs.
template <typename T>
struct NanSumOp {
  using Acc = Wide<T>;
  using Out = SumOut<T>;
  Acc init() const { return 0; }
  void run(Acc& acc, const T* p, int64_t stride, int64_t n, int64_t) const {
    for (int64_t i = 0; i < n; ++i) {
      const T x = p[i * stride];
      if (!is_nan(x)) acc += x;
    }
  }
  Acc combine(Acc a, Acc b) const { return a + b; }
  Out finish(Acc acc) const { return static_cast<Out>(acc); }
};

template <typename T>
struct ProdOp {
  using Acc = Wide<T>;
  using Out = SumOut<T>;
  Acc init() const { return 1; }
  void run(Acc& acc, const T* p, int64_t stride, int64_t n, int64_t) const {
    for (int64_t i = 0; i < n; ++i) acc *= p[i * stride];
  }
  Acc combine(Acc a, Acc b) const { return a * b; }
  Out finish(Acc acc) const { return static_cast<Out>(acc); }
};

// amax (kLargest) or amin; NaN wins.
template <typename T, bool kLargest>
struct ExtremeOp {
  using Acc = T;
  using Out = T;
  static bool better(T x, T acc) {
    return is_nan(x) || (kLargest ? x > acc : x < acc);
  }
  Acc init() const {
    using L = std::numeric_limits<T>;
    if constexpr (std::is_floating_point_v<T>) return kLargest ? -L::infinity() : L::infinity();
    return kLargest ? L::lowest() : L::max();
  }
  void run(Acc& acc, const T* p, int64_t stride, int64_t n, int64_t) const {
    for (int64_t i = 0; i < n; ++i) {
      const T x = p[i * stride];
      if (better(x, acc)) acc = x;
    }
  }
  Acc combine(Acc a, Acc b) const { return better(b, a) ? b : a; }
  Out finish(Acc acc) const { return acc; }
};

// The value and position of the first maximum (kLargest) or minimum; the
// first NaN wins.
template <typename T, bool kLargest>
struct ArgOp {
  struct Acc {
    T value{};
    int64_t index = -1;
  };
  static bool better(T x, T v) {
    return kLargest ? x > v || (is_nan(x) && !is_nan(v)) : x < v || (is_nan(x) && !is_nan(v));
  }
  Acc init() const { return {}; }
  void run(Acc& acc, const T* p, int64_t stride, int64_t n, int64_t first) const {
    for (int64_t i = 0; i < n; ++i) {
      const T x = p[i * stride];
      if (acc.index < 0 || better(x, acc.value)) acc = {x, first + i};
    }
  }
  Acc combine(Acc a, Acc b) const {
    return a.index < 0 || (b.index >= 0 && better(b.value, a.value)) ? b : a;
  }
};

// all (kAll) or any; uint8 inputs give uint8, as in PyTorch.
template <typename T, bool kAll>
struct LogicalOp {
  using Acc = bool;
  using Out = std::conditional_t<std::is_same_v<T, uint8_t>, uint8_t, bool>;
  Acc init() const { return kAll; }
  void run(Acc& acc, const T* p, int64_t stride, int64_t n, int64_t) const {
    for (int64_t i = 0; i < n && acc == kAll; ++i) acc = static_cast<bool>(p[i * stride]);
  }
  Acc combine(Acc a, Acc b) const { return kAll ? a && b : a || b; }
  Out finish(Acc acc) const { return acc; }
};

// Mean and sum of squared deviations, merged run by run (Chan et al.).
struct Moments {
  double mean = 0, m2 = 0;
  int64_t n = 0;
};

Moments merge(const Moments& a, const Moments& b) {
  if (a.n == 0) return b;
  if (b.n == 0) return a;
  const int64_t n = a.n + b.n;
  const double delta = b.mean - a.mean;
  return {a.mean + delta * b.n / n, a.m2 + b.m2 + delta * delta * a.n * b.n / n, n};
}

template <typename T>
struct VarOp {
  using Acc = Moments;
  using Out = T;
  int64_t correction;
  bool take_sqrt;
  Acc init() const { return {}; }
  void run(Acc& acc, const T* p, int64_t stride, int64_t n, int64_t) const {
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += p[i * stride];
    const double mean = sum / n;
    double m2 = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double d = p[i * stride] - mean;
      m2 += d * d;
    }
    acc = merge(acc, {mean, m2, n});
  }
  Acc combine(const Acc& a, const Acc& b) const { return merge(a, b); }
  Out finish(const Acc& acc) const {
    const double var = acc.m2 / static_cast<double>(std::max<int64_t>(acc.n - correction, 0));
    return static_cast<T>(take_sqrt ? std::sqrt(var) : var);
  }
};

enum class NormKind { kZero, kOne, kTwo, kInf, kNegInf, kGeneral };

NormKind norm_kind(double p) {
  if (p == 0) return NormKind::kZero;
  if (p == 1) return NormKind::kOne;
  if (p == 2) return NormKind::kTwo;
  if (p == INFINITY) return NormKind::kInf;
  if (p == -INFINITY) return NormKind::kNegInf;
  return NormKind::kGeneral;
}

template <typename T>
struct NormOp {
  using Acc = double;
  using Out = T;
  NormKind kind;
  double p;
  static double nan_max(double a, double b) { return std::isnan(b) || b > a ? b : a; }
  static double nan_min(double a, double b) { return std::isnan(b) || b < a ? b : a; }
  Acc init() const { return kind == NormKind::kNegInf ? INFINITY : 0.0; }
  template <typename F>
  static void each(const T* p, int64_t stride, int64_t n, F f) {
    for (int64_t i = 0; i < n; ++i) f(std::abs(static_cast<double>(p[i * stride])));
  }
  void run(Acc& acc, const T* x, int64_t stride, int64_t n, int64_t) const {
    switch (kind) {
      case NormKind::kZero: return each(x, stride, n, [&](double a) { acc += a != 0; });
      case NormKind::kOne: return each(x, stride, n, [&](double a) { acc += a; });
      case NormKind::kTwo: return each(x, stride, n, [&](double a) { acc += a * a; });
      case NormKind::kInf: return each(x, stride, n, [&](double a) { acc = nan_max(acc, a); });
      case NormKind::kNegInf: return each(x, stride, n, [&](double a) { acc = nan_min(acc, a); });
      case NormKind::kGeneral: return each(x, stride, n, [&](double a) { acc += std::pow(a, p); });
    }
  }
  Acc combine(Acc a, Acc b) const {
    if (kind == NormKind::kInf) return nan_max(a, b);
    if (kind == NormKind::kNegInf) return nan_min(a, b);
    return a + b;
  }
  Out finish(Acc acc) const {
    if (kind == NormKind::kTwo) return static_cast<T>(std::sqrt(acc));
    if (kind == NormKind::kGeneral) return static_cast<T>(std::pow(acc, 1.0 / p));
    return static_cast<T>(acc);
  }
};

// ---- Along the last dim --------------------------------------------------------

// Offset of row `row` (row-major over all dims but the last) in `t`.
int64_t row_offset(const Tensor& t, int64_t row) {
  const IntArrayRef sizes = t.sizes(), strides = t.strides();
  int64_t offset = 0;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 2; d >= 0; --d) {
    offset += (row % sizes[d]) * strides[d];
    row /= sizes[d];
  }
  return offset;
}

// Calls f(in_row, in_stride, out_row, out_stride, n) for every row of the
// last dim of `in` and `out` (same shape), in parallel.
template <typename In, typename Out, typename F>
void for_each_row(const Tensor& out, const Tensor& in, F&& f) {
  if (in.numel() == 0) return;
  const int64_t n = in.size(-1);
  const int64_t rows = in.numel() / n;
  const In* src = static_cast<const In*>(in.data_ptr());
  Out* dst = static_cast<Out*>(out.data_ptr());
  const int64_t in_stride = in.stride(-1), out_stride = out.stride(-1);
  parallel_for(0, rows, std::max<int64_t>(1, kParallelGrain / n), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      f(src + row_offset(in, r), in_stride, dst + row_offset(out, r), out_stride, n);
    }
  });
}

template <typename T>
void softmax_row(const T* x, int64_t xs, T* y, int64_t ys, int64_t n, bool log) {
  T max = x[0];
  for (int64_t i = 1; i < n; ++i) max = ExtremeOp<T, true>::better(x[i * xs], max) ? x[i * xs] : max;
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += std::exp(static_cast<double>(x[i * xs]) - max);
  if (log) {
    const double shift = max + std::log(sum);
    for (int64_t i = 0; i < n; ++i) y[i * ys] = static_cast<T>(x[i * xs] - shift);
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    y[i * ys] = static_cast<T>(std::exp(static_cast<double>(x[i * xs]) - max) / sum);
  }
}

}  // namespace

void reduce_sum(const Tensor& out, const Tensor& in, int64_t reduced) {
  auto in_float32 = [=](const Tensor& o, const Tensor& x) { reduce_sum(o, x, reduced); };
  if (run_in_float32(out, in_float32, in)) return;
  dispatch_all(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    reduce_into<SumOp<T>, T>({}, out, in, reduced);
  });
}

void sum_leading_dim(const Tensor& out, const Tensor& in, int64_t rows, int64_t row_stride,
                     int64_t col_stride) {
  dispatch_floating(in.dtype(), "sum", [&](auto tag) {
    using T = decltype(tag);
    const int64_t cols = out.numel();
    const T* src = in.data<T>();
    T* dst = out.data<T>();
    if (col_stride == 0) {
      // Every column sums the same values in the same order: sum one.
      Wide<T> acc = 0;
      for (int64_t i = 0; i < rows; ++i) acc += src[i * row_stride];
      std::fill(dst, dst + cols, static_cast<T>(acc));
      return;
    }
    // SumOp's order: each column accumulated in Wide<T> from zero, row by
    // row; the rows are walked outermost so that the columns vectorize.
    // Threads take whole blocks of columns, so the order stays the same.
    constexpr int64_t kBlock = 64;
    const int64_t blocks = (cols + kBlock - 1) / kBlock;
    const int64_t grain = std::max<int64_t>(1, kParallelGrain / (rows * kBlock));
    parallel_for(0, blocks, grain, [&](int64_t begin, int64_t end) {
      Wide<T> acc[kBlock];
      for (int64_t j0 = begin * kBlock; j0 < std::min(cols, end * kBlock); j0 += kBlock) {
        const int64_t w = std::min(kBlock, cols - j0);
        for (int64_t j = 0; j < w; ++j) acc[j] = 0;
        for (int64_t i = 0; i < rows; ++i) {
          const T* row = src + i * row_stride + j0;
          for (int64_t j = 0; j < w; ++j) acc[j] += row[j];
        }
        for (int64_t j = 0; j < w; ++j) dst[j0 + j] = static_cast<T>(acc[j]);
      }
    });
  });
}

void sum_contiguous(const Tensor& out, const Tensor& in) {
  dispatch_floating(in.dtype(), "sum", [&](auto tag) {
    using T = decltype(tag);
    const SumOp<T> op;
    typename SumOp<T>::Acc acc = op.init();
    op.run(acc, in.data<T>(), 1, in.numel(), 0);
    *out.data<T>() = op.finish(acc);
  });
}

void reduce_prod(const Tensor& out, const Tensor& in, int64_t reduced) {
  auto in_float32 = [=](const Tensor& o, const Tensor& x) { reduce_prod(o, x, reduced); };
  if (run_in_float32(out, in_float32, in)) return;
  dispatch_all(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    reduce_into<ProdOp<T>, T>({}, out, in, reduced);
  });
}

void reduce_extreme(const Tensor& out, const Tensor& in, int64_t reduced, bool largest) {
  auto in_float32 = [=](const Tensor& o, const Tensor& x) {
    reduce_extreme(o, x, reduced, largest);
  };
  if (run_in_float32(out, in_float32, in)) return;
  dispatch_all(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (largest) return reduce_into<ExtremeOp<T, true>, T>({}, out, in, reduced);
    reduce_into<ExtremeOp<T, false>, T>({}, out, in, reduced);
  });
}

void reduce_logical(const Tensor& out, const Tensor& in, int64_t reduced, bool all) {
  auto in_float32 = [=](const Tensor& o, const Tensor& x) { reduce_logical(o, x, reduced, all); };
  if (run_in_float32(out, in_float32, in)) return;
  dispatch_all(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (all) return reduce_into<LogicalOp<T, true>, T>({}, out, in, reduced);
    reduce_into<LogicalOp<T, false>, T>({}, out, in, reduced);
  });
}

void reduce_arg(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t reduced,
                bool largest) {
  if (any_reduced({&in})) {
    const Tensor result = float32_result(values);
    reduce_arg(result, indices, float32_operand(in), reduced, largest);
    return store_result(values, result);
  }
  dispatch_all(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* value_out = values.defined() ? values.data<T>() : nullptr;
    int64_t* index_out = indices.data<int64_t>();
    auto write = [&](int64_t o, const auto& acc) {
      index_out[o] = acc.index;
      if (value_out) value_out[o] = acc.value;
    };
    if (largest) return reduce_outputs<ArgOp<T, true>, T>({}, in, reduced, write);
    reduce_outputs<ArgOp<T, false>, T>({}, in, reduced, write);
  });
}

void reduce_var(const Tensor& out, const Tensor& in, int64_t reduced, int64_t correction,
                bool take_sqrt) {
  auto in_float32 = [=](const Tensor& o, const Tensor& x) {
    reduce_var(o, x, reduced, correction, take_sqrt);
  };
  if (run_in_float32(out, in_float32, in)) return;
  dispatch_floating(in.dtype(), "var", [&](auto tag) {
    using T = decltype(tag);
    reduce_into<VarOp<T>, T>({correction, take_sqrt}, out, in, reduced);
  });
}

void reduce_norm(const Tensor& out, const Tensor& in, int64_t reduced, double p) {
  auto in_float32 = [=](const Tensor& o, const Tensor& x) { reduce_norm(o, x, reduced, p); };
  if (run_in_float32(out, in_float32, in)) return;
  dispatch_floating(in.dtype(), "norm", [&](auto tag) {
    using T = decltype(tag);
    reduce_into<NormOp<T>, T>({norm_kind(p), p}, out, in, reduced);
  });
}

void reduce_logsumexp(const Tensor& out, const Tensor& in, int64_t reduced) {
  auto in_float32 = [=](const Tensor& o, const Tensor& x) { reduce_logsumexp(o, x, reduced); };
  if (run_in_float32(out, in_float32, in)) return;
  dispatch_floating(in.dtype(), "logsumexp", [&](auto tag) {
    using T = decltype(tag);
    const Geometry g = make_geometry(in, reduced);
    const T* src = static_cast<const T*>(in.data_ptr());
    T* dst = out.data<T>();
    const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(g.n_red, 1));
    parallel_for(0, g.n_out, grain, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) {
        const T* base = src + kept_offset(g, o);
        double max = accumulate(ExtremeOp<T, true>{}, base, g, 0, g.n_red);
        if (std::isinf(max)) max = 0;
        double sum = 0;
        for_each_run(g, 0, g.n_red, [&](int64_t offset, int64_t stride, int64_t n, int64_t) {
          for (int64_t i = 0; i < n; ++i) sum += std::exp(base[offset + i * stride] - max);
        });
        dst[o] = static_cast<T>(std::log(sum) + max);
      }
    });
  });
}

void softmax_lastdim(const Tensor& out, const Tensor& in, bool log) {
  auto in_float32 = [=](const Tensor& o, const Tensor& x) { softmax_lastdim(o, x, log); };
  if (run_in_float32(out, in_float32, in)) return;
  dispatch_floating(in.dtype(), "softmax", [&](auto tag) {
    using T = decltype(tag);
    for_each_row<T, T>(out, in, [log](const T* x, int64_t xs, T* y, int64_t ys, int64_t n) {
      softmax_row(x, xs, y, ys, n, log);
    });
  });
}

void softmax_backward_lastdim(const Tensor& out, const Tensor& grad, const Tensor& output,
                              bool log) {
  auto in_float32 = [=](const Tensor& o, const Tensor& g, const Tensor& y) {
    softmax_backward_lastdim(o, g, y, log);
  };
  if (run_in_float32(out, in_float32, grad, output)) return;
  if (out.numel() == 0) return;
  const int64_t n = out.size(-1);
  const int64_t rows = out.numel() / n;
  const int64_t gs = grad.stride(-1), ys = output.stride(-1), os = out.stride(-1);
  dispatch_floating(out.dtype(), "softmax_backward", [&](auto tag) {
    using T = decltype(tag);
    const T* g0 = static_cast<const T*>(grad.data_ptr());
    const T* y0 = static_cast<const T*>(output.data_ptr());
    T* o0 = static_cast<T*>(out.data_ptr());
    parallel_for(0, rows, std::max<int64_t>(1, kParallelGrain / n), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const T* g = g0 + row_offset(grad, r);
        const T* y = y0 + row_offset(output, r);
        T* o = o0 + row_offset(out, r);
        double dot = 0;
        for (int64_t i = 0; i < n; ++i) dot += log ? g[i * gs] : g[i * gs] * y[i * ys];
        for (int64_t i = 0; i < n; ++i) {
          o[i * os] = log ? static_cast<T>(g[i * gs] - std::exp(static_cast<double>(y[i * ys])) * dot)
                          : static_cast<T>(y[i * ys] * (g[i * gs] - dot));
        }
      }
    });
  });
}

void cumulative_lastdim(const Tensor& out, const Tensor& in, bool prod) {
  auto in_float32 = [=](const Tensor& o, const Tensor& x) { cumulative_lastdim(o, x, prod); };
  if (run_in_float32(out, in_float32, in)) return;
  dispatch_all(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using Out = SumOut<T>;
    for_each_row<T, Out>(out, in, [prod](const T* x, int64_t xs, Out* y, int64_t ys, int64_t n) {
      Wide<T> acc = prod ? 1 : 0;
      for (int64_t i = 0; i < n; ++i) {
        acc = prod ? acc * x[i * xs] : acc + x[i * xs];
        y[i * ys] = static_cast<Out>(acc);
      }
    });
  });
}

void reduce_nansum(const Tensor& out, const Tensor& in, int64_t reduced) {
  auto in_float32 = [=](const Tensor& o, const Tensor& x) { reduce_nansum(o, x, reduced); };
  if (run_in_float32(out, in_float32, in)) return;
  dispatch_floating(in.dtype(), "nansum", [&](auto tag) {
    using T = decltype(tag);
    reduce_into<NanSumOp<T>, T>({}, out, in, reduced);
  });
}

void cumulative_extreme_lastdim(const Tensor& values, const Tensor& indices, const Tensor& in,
                                bool largest) {
  if (in.numel() == 0) return;
  dispatch_all(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const int64_t n = in.size(-1);
    const int64_t rows = in.numel() / n;
    const T* src = in.data<T>();
    T* dst = values.data<T>();
    int64_t* at = indices.data<int64_t>();
    const int64_t xs = in.stride(-1), vs = values.stride(-1), is = indices.stride(-1);
    parallel_for(0, rows, std::max<int64_t>(1, kParallelGrain / n), [&](int64_t begin,
                                                                          int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const T* x = src + row_offset(in, r);
        T* v = dst + row_offset(values, r);
        int64_t* ix = at + row_offset(indices, r);
        T best = x[0];
        int64_t where = 0;
        for (int64_t i = 0; i < n; ++i) {
          const T xi = x[i * xs];
          // PyTorch's rule: a NaN always takes over, an equal value too.
          if (is_nan(xi) || (!is_nan(best) && (largest ? xi >= best : xi <= best))) {
            best = xi;
            where = i;
          }
          v[i * vs] = best;
          ix[i * is] = where;
        }
      }
    });
  });
}

void logcumsumexp_lastdim(const Tensor& out, const Tensor& in) {
  dispatch_floating(in.dtype(), "logcumsumexp", [&](auto tag) {
    using T = decltype(tag);
    for_each_row<T, T>(out, in, [](const T* x, int64_t xs, T* y, int64_t ys, int64_t n) {
      T acc = -std::numeric_limits<T>::infinity();
      for (int64_t i = 0; i < n; ++i) {
        const T xi = x[i * xs];
        if (std::isnan(acc) || std::isnan(xi)) {
          acc = std::numeric_limits<T>::quiet_NaN();
        } else {
          const T lo = std::min(acc, xi), hi = std::max(acc, xi);
          // Equal infinities stay as they are (exp(inf - inf) is NaN).
          if (lo != hi || std::isfinite(lo)) acc = hi + std::log1p(std::exp(lo - hi));
        }
        y[i * ys] = acc;
      }
    });
  });
}

}  // namespace torchlet::cpu
