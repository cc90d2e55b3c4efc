#pragma once

// Shape ops: triangles, flips, rolls, diagonals, repeats and moved dims
// (the Tensor methods of the same names, and torch.* factories).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tensor/tensor_body.h"

namespace torchlet {

Tensor tril(const Tensor& t, int64_t diagonal = 0);
Tensor triu(const Tensor& t, int64_t diagonal = 0);
/// The (row, col) coordinates of the lower (tril) or upper (triu) triangle
/// of a row x col matrix from `offset`, as a 2 x N tensor (int64 by default),
/// row by row.
Tensor tril_indices(int64_t row, int64_t col, int64_t offset = 0,
                    TensorOptions options = {});
Tensor triu_indices(int64_t row, int64_t col, int64_t offset = 0,
                    TensorOptions options = {});
Tensor flip(const Tensor& t, IntArrayRef dims);
Tensor fliplr(const Tensor& t);
Tensor flipud(const Tensor& t);
Tensor roll(const Tensor& t, IntArrayRef shifts, IntArrayRef dims = {});
Tensor rot90(const Tensor& t, int64_t k = 1, IntArrayRef dims = {0, 1});
Tensor diagonal(const Tensor& t, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);
Tensor diag(const Tensor& t, int64_t diagonal = 0);
Tensor diag_embed(const Tensor& t, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1);
Tensor trace(const Tensor& t);
Tensor tile(const Tensor& t, IntArrayRef dims);
Tensor repeat_interleave(const Tensor& t, int64_t repeats,
                         std::optional<int64_t> dim = std::nullopt,
                         std::optional<int64_t> output_size = std::nullopt);
Tensor repeat_interleave(const Tensor& t, const Tensor& repeats,
                         std::optional<int64_t> dim = std::nullopt,
                         std::optional<int64_t> output_size = std::nullopt);
/// torch.repeat_interleave(repeats): each index i repeated repeats[i] times.
/// Pass output_size as a std::optional<int64_t>: with a plain integer,
/// repeat_interleave(repeats, 4) repeats each element of `repeats` 4 times.
Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size = std::nullopt);
Tensor movedim(const Tensor& t, IntArrayRef source, IntArrayRef destination);
Tensor movedim(const Tensor& t, int64_t source, int64_t destination);
Tensor moveaxis(const Tensor& t, IntArrayRef source, IntArrayRef destination);
Tensor moveaxis(const Tensor& t, int64_t source, int64_t destination);
/// Coordinate grids of 1-D (or 0-dim) inputs, as expanded views; `indexing`
/// is "ij" (matrix) or "xy" (Cartesian: the first two dims swapped). Without
/// it "ij", with PyTorch 1.13's warning that the default will change.
std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors);
std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors, const std::string& indexing);

/// The permutation movedim applies: result dim i is input dim perm[i].
std::vector<int64_t> movedim_permutation(int64_t ndim, IntArrayRef source,
                                         IntArrayRef destination);
/// The gradient of diagonal(offset, dim1, dim2): zeros of `input_sizes`
/// with `grad` written on that diagonal.
Tensor diagonal_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t offset,
                         int64_t dim1, int64_t dim2);

}  // namespace torchlet
