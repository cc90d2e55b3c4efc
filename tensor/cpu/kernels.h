#pragma once

// CPU kernels behind the ops: validated arguments in, results out. Only the
// op layer (tensor/*.cc) calls these.

#include <cstdint>
#include <optional>
#include <vector>

#include "tensor/kernel_ops.h"
#include "tensor/scalar.h"
#include "tensor/tensor_body.h"

namespace torchlet::cpu {

/// dst[i] = cast(src[i]); src broadcasts to dst's shape.
void copy(const Tensor& dst, const Tensor& src);
/// dst[i, :] = row for every row i of a contiguous 2-D dst; `row` is
/// contiguous, of dst's dtype and of its row length (a bias broadcast into
/// addmm's output).
void copy_rows(const Tensor& dst, const Tensor& row);
/// dst[i] = value (converted to dst's dtype).
void fill(const Tensor& dst, Scalar value);

using ::torchlet::BinaryOp;
/// out = a op b, with a, b of the compute dtype (equal to out's, except for
/// comparisons and logical ops, whose out is bool). `alpha` scales b for
/// add and sub.
void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, Scalar alpha);

using ::torchlet::UnaryOp;
/// out = op(in); in has out's dtype (kLogicalNot and the kIs* tests write
/// bool from any dtype).
void unary(UnaryOp op, const Tensor& out, const Tensor& in);

/// out = round(in * 10^decimals) / 10^decimals, half to even (PyTorch's
/// formula, dividing first for negative `decimals`); floating dtypes.
void round_decimals(const Tensor& out, const Tensor& in, int64_t decimals);
/// out = in with NaN, +inf and -inf replaced; a null bound means the dtype's
/// largest (or lowest) finite value. Floating dtypes.
void nan_to_num(const Tensor& out, const Tensor& in, double nan, const double* posinf,
                const double* neginf);

/// out = clamp(in, lo, hi) where the bounds are given.
void clamp(const Tensor& out, const Tensor& in, const Scalar* lo, const Scalar* hi);

/// out = cond ? a : b, with a and b of out's dtype and cond bool.
void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b);

// ---- Reductions (cpu/reduction_kernels.cc) ----------------------------------
// `in`'s last `reduced` dims are reduced; `out` is contiguous with `in`'s
// other dims as its shape.

/// Sum; out is in's dtype for floats, int64 otherwise.
void reduce_sum(const Tensor& out, const Tensor& in, int64_t reduced);
/// out[j] = sum over i of in[i, j] for a float32 or float64 `in` viewed as
/// [rows, out.numel()] whose element (i, j) is at data + i * row_stride +
/// j * col_stride (col_stride 1, or 0 for rows that are one value expanded;
/// row_stride 0 when every row is the same): reduce_sum's result, bit for
/// bit, without its geometry; blocks of columns split across the intra-op
/// threads.
void sum_leading_dim(const Tensor& out, const Tensor& in, int64_t rows, int64_t row_stride,
                     int64_t col_stride);
/// The sum of every element of a contiguous float32 or float64 `in` with
/// fewer than 2 * kParallelGrain of them, into the 0-dim `out`: reduce_sum's
/// result bit for bit (it sums such a tensor as one run).
void sum_contiguous(const Tensor& out, const Tensor& in);
/// Product; dtypes as reduce_sum.
void reduce_prod(const Tensor& out, const Tensor& in, int64_t reduced);
/// amax (largest) or amin; NaN propagates.
void reduce_extreme(const Tensor& out, const Tensor& in, int64_t reduced, bool largest);
/// all or any: bool out (uint8 for uint8 in).
void reduce_logical(const Tensor& out, const Tensor& in, int64_t reduced, bool all);
/// Value (when `values` is defined) and int64 index of the first max or min.
void reduce_arg(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t reduced,
                bool largest);
/// Variance (or its square root) with `correction` subtracted from the count.
void reduce_var(const Tensor& out, const Tensor& in, int64_t reduced, int64_t correction,
                bool take_sqrt);
/// The p-norm (p may be 0 or +-inf).
void reduce_norm(const Tensor& out, const Tensor& in, int64_t reduced, double p);
/// log(sum(exp(x))), stabilized by the max.
void reduce_logsumexp(const Tensor& out, const Tensor& in, int64_t reduced);
/// Softmax (or log-softmax) along the last dim; out has in's shape.
void softmax_lastdim(const Tensor& out, const Tensor& in, bool log);
/// Their gradient along the last dim from `grad` and the op's `output`
/// (all three of one shape and dtype).
void softmax_backward_lastdim(const Tensor& out, const Tensor& grad, const Tensor& output,
                              bool log);
/// Running sum (or product) along the last dim; out has in's shape and
/// reduce_sum's dtype.
void cumulative_lastdim(const Tensor& out, const Tensor& in, bool prod);
/// Sum of the non-NaN elements; dtypes as reduce_sum.
void reduce_nansum(const Tensor& out, const Tensor& in, int64_t reduced);
/// Running max (largest) or min along the last dim: `values` (in's dtype)
/// and int64 `indices` of in's shape. An equal value moves the index on to
/// it; once a NaN is met the value stays NaN, indexed by the latest NaN.
void cumulative_extreme_lastdim(const Tensor& values, const Tensor& indices, const Tensor& in,
                                bool largest);
/// log(cumsum(exp(x))) along the last dim, a running log-add-exp; floating
/// dtypes, out of in's shape and dtype.
void logcumsumexp_lastdim(const Tensor& out, const Tensor& in);

// ---- Index ops (cpu/index_kernels.cc) ---------------------------------------
// The op has checked dtypes, devices and shapes. Index tensors are int64
// (gather's and scatter's may be empty of any dtype); a 0-dim index or
// `self` acts as a 1-element vector.

/// The first entry (row-major) of `index` outside [lo, hi), if any.
std::optional<int64_t> find_index_outside(const Tensor& index, int64_t lo, int64_t hi);
/// out[k] = index[k] + n where negative, else index[k]; out is contiguous
/// int64 of index's shape, entries are in [-n, n).
void wrap_indices(const Tensor& out, const Tensor& index, int64_t n);
/// out = the slices of src at `index` along dim: src and out contiguous,
/// out's size along dim index.numel(), index contiguous 1-D and in range.
/// Rows run in parallel.
void index_select(const Tensor& out, const Tensor& src, int64_t dim, const Tensor& index);
/// out[..., j, ...] = self[..., index[..., j, ...], ...] along dim: out (non-empty)
/// has index's shape, index is in range. Any dtype; runs in parallel.
void gather(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index);
enum class ScatterMode { kCopy, kAdd };
/// self[..., index[..., j, ...], ...] = src[..., j, ...] (or +=) along dim for every
/// element of a non-empty, in-range index; src is at least index's size in every
/// dim, self has no internal overlap and does not partially overlap src.
/// Serial in row-major order of index, so the last of repeated entries wins
/// (or all add). Does not bump self's version.
void scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
             ScatterMode mode);
/// How many elements of a bool or uint8 `mask` are nonzero.
int64_t count_mask(const Tensor& mask);
/// out (contiguous, count_mask(mask) elements) = the elements of values
/// where mask (bool or uint8, values' shape) is nonzero, row-major.
void masked_select(const Tensor& out, const Tensor& values, const Tensor& mask);

// Advanced indexing (t[...] and t[...] = v): element offsets, from the
// indexed view's first element, of the values read or written, in row-major
// order of the result (outer dims x selected positions x inner dims).
struct OffsetIndex {
  std::vector<int64_t> outer;
  std::vector<int64_t> positions;
  std::vector<int64_t> inner;
};
/// Turns indices into a dim of `size` elements (negative ones count from the
/// end) into element offsets by `stride`, in place; returns the first index
/// outside [-size, size) (the rest left as they were), if any.
std::optional<int64_t> indices_to_offsets(std::vector<int64_t>& indices, int64_t size,
                                          int64_t stride);
/// The cells (offsets) whose mask entry is set, in order; equal lengths.
std::vector<int64_t> masked_offsets(const std::vector<int64_t>& cells,
                                    const std::vector<bool>& mask);
/// out (contiguous, src's dtype) = src at every offset of `ix`, in order.
void offset_gather(const Tensor& out, const Tensor& src, const OffsetIndex& ix);
/// dst at every offset of `ix` = src (contiguous, dst's dtype, one element
/// per offset), in order; with `accumulate` it adds (or, for bool, ors)
/// instead, so a repeated offset receives every value aimed at it. Does not
/// bump dst's version.
void offset_scatter(const Tensor& dst, const Tensor& src, const OffsetIndex& ix,
                    bool accumulate);

// ---- Sorting (cpu/sort_kernels.cc) ------------------------------------------
// Order is total: NaN is the largest value, ties keep their positions.

/// Sorts every lane of src along dim and writes the first values.size(dim)
/// of each to `values` and their positions to int64 `indices` (one shape,
/// src's otherwise). src is at least 1-D, not float16 or bfloat16. Lanes
/// run in parallel.
void sort_lanes(const Tensor& values, const Tensor& indices, const Tensor& src, int64_t dim,
                bool descending);
/// Row-major positions of the nonzero elements of t (any dtype, strided).
std::vector<int64_t> nonzero_positions(const Tensor& t);
/// Row i of out (contiguous int64 [positions.size(), sizes.size()]) = the
/// coordinates in `sizes` of row-major position positions[i].
void positions_to_coords(const Tensor& out, const std::vector<int64_t>& positions,
                         IntArrayRef sizes);
/// unique's bookkeeping over n sorted elements: first (bool) marks where a
/// group starts (first[0] set), order (int64) is each one's original
/// position; sets inverse[order[i]] to i's group and counts each group
/// into zeroed `counts`. All 1-D contiguous, inverse int64 [n].
void unique_groups(const Tensor& inverse, const Tensor& counts, const Tensor& first,
                   const Tensor& order);
/// The lower median of every lane of src along dim, by PyTorch's selection
/// (std::nth_element, ties ordered by position): `values` (src's dtype)
/// and int64 `indices` of src's shape with dim of size 1. Without
/// `ignore_nan` a lane's first NaN is its median; with it, NaNs are left
/// out. src is at least 1-D, not float16 or bfloat16, lanes non-empty.
void median_lanes(const Tensor& values, const Tensor& indices, const Tensor& src, int64_t dim,
                  bool ignore_nan);

// ---- Searching and counting (cpu/sort_kernels.cc) ----------------------------

/// out[r, j] = how many elements of row r of `sorted` (the one row for
/// every r when it has one) are < values[r, j] (<= with `right`), reading
/// the row in the order `sorter` (int64, sorted's shape) gives when it is
/// defined. sorted and values are contiguous 2-D of one dtype, out
/// contiguous int64 or int32 of values' shape. Rows run in parallel.
void searchsorted(const Tensor& out, const Tensor& sorted, const Tensor& values,
                  const Tensor& sorter, bool right);
/// out[input[i]] += weights[i] (1 without weights) into a zeroed out;
/// input contiguous 1-D int64 in [0, out.numel()), weights contiguous 1-D
/// of out's dtype (float32 or float64) or undefined (out int64).
void bincount(const Tensor& out, const Tensor& input, const Tensor& weights);
/// Counts into a zeroed out (in's dtype, out.numel() bins) the elements of
/// a contiguous floating `in` in [min, max] by equal-width bins, the last
/// one closed; elements outside and NaNs are skipped.
void histc(const Tensor& out, const Tensor& in, double min, double max);

// ---- Shape ops (cpu/shape_kernels.cc) ---------------------------------------

/// out = in with the elements outside the lower (or upper) triangle from
/// `diagonal` of the last two dims zeroed: one shape (>= 2-D) and dtype,
/// any strides. With out the same tensor as in, only the zeros are written.
/// Rows run in parallel.
void triangle(const Tensor& out, const Tensor& in, int64_t diagonal, bool lower);
/// out = in reversed along the dims marked in `flipped` (one per dim):
/// one shape and dtype, out not overlapping in. Runs in parallel.
void flip(const Tensor& out, const Tensor& in, const std::vector<bool>& flipped);
/// The coordinates of the triangle of a row x col matrix, row by row, into
/// a contiguous int64 out of [2, count].
void triangle_indices(const Tensor& out, int64_t row, int64_t col, int64_t offset, bool lower);
/// out (contiguous int64) = i repeated counts[i] times, for each i of the
/// contiguous non-negative int64 `counts` (out has their sum of elements).
void repeat_indices(const Tensor& out, const Tensor& counts);

// ---- Factory fills (cpu/factory_kernels.cc) ---------------------------------
// `out` is a fresh contiguous 1-D tensor of any dtype.

/// out[i] = start + i * step, computed in int64 when `integral`, else in
/// double, then converted.
void arange(const Tensor& out, Scalar start, Scalar step, bool integral);
/// out evenly spaced from start to end inclusive, exact at both ends
/// (PyTorch's symmetric evaluation); one element is `start`.
void linspace(const Tensor& out, double start, double end);

}  // namespace torchlet::cpu
