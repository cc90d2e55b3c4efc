#pragma once

// Packed sequences (torch.nn.utils.rnn): PackedSequence, which RNN, LSTM and
// GRU take in place of a padded batch, and the functions that pack, pad and
// unpad batches of sequences of different lengths. See Note [Packed
// sequences] in nn/utils/rnn.cc.

#include <cstdint>
#include <optional>
#include <ostream>
#include <tuple>
#include <vector>

#include "autograd/variable.h"

namespace torchlet::nn::utils::rnn {

/// A batch of sequences of different lengths, packed step by step
/// (torch.nn.utils.rnn.PackedSequence): `data` holds, for each time step in
/// order, the elements of the sequences still running at that step, longest
/// sequence first; `batch_sizes` (int64, on the CPU) how many there are at
/// each step. Sequences "abc" and "x" pack as data "axbc", batch_sizes
/// [2, 1, 1]. When the batch was sorted by length on packing,
/// `sorted_indices` says which input sequence each packed column is and
/// `unsorted_indices` is its inverse (both int64 on data's device);
/// otherwise both are undefined. Made by pack_padded_sequence and
/// pack_sequence rather than by hand.
class PackedSequence {
 public:
  PackedSequence() = default;
  /// unsorted_indices, when undefined, is the inverse of sorted_indices.
  /// batch_sizes must be a 1-D int64 tensor on the CPU whose entries are
  /// positive, non-increasing and sum to data.size(0); the indices, 1-D
  /// int64 permutations of batch_sizes[0] entries.
  PackedSequence(Variable data, Tensor batch_sizes, Tensor sorted_indices = {},
                 Tensor unsorted_indices = {});

  const Variable& data() const { return data_; }
  const Tensor& batch_sizes() const { return batch_sizes_; }
  const Tensor& sorted_indices() const { return sorted_indices_; }
  const Tensor& unsorted_indices() const { return unsorted_indices_; }
  bool defined() const { return data_.defined(); }
  bool is_cuda() const { return data_.device().is_cuda(); }

  /// data converted (differentiably), the indices moved to data's new
  /// device; batch_sizes stays on the CPU. This sequence itself when data
  /// is already there.
  PackedSequence to(Device device) const;
  PackedSequence to(DType dtype) const;
  PackedSequence to(Device device, DType dtype) const;

 private:
  Variable data_;
  Tensor batch_sizes_;
  Tensor sorted_indices_;
  Tensor unsorted_indices_;
};

/// PyTorch's repr: PackedSequence(data=tensor(...), batch_sizes=tensor(...),
/// sorted_indices=None, unsorted_indices=None).
std::ostream& operator<<(std::ostream& out, const PackedSequence& sequence);

/// The inverse of a permutation (1-D int64): out[permutation[i]] = i.
/// Undefined for an undefined permutation.
Tensor invert_permutation(const Tensor& permutation);

/// Packs a padded batch `input` [T, B, *] ([B, T, *] with batch_first) of
/// sequences of `lengths` (B of them, each in 1..T; any dtype, converted to
/// int64, on the CPU). With enforce_sorted the lengths must be
/// non-increasing; otherwise the batch is sorted by decreasing length first
/// (stable) and the PackedSequence records the order. Differentiable: the
/// gradient of data flows back to the unpadded elements of input.
PackedSequence pack_padded_sequence(const Variable& input, const Tensor& lengths,
                                    bool batch_first = false, bool enforce_sorted = true);
PackedSequence pack_padded_sequence(const Variable& input, const std::vector<int64_t>& lengths,
                                    bool batch_first = false, bool enforce_sorted = true);

/// The inverse of pack_padded_sequence: the padded batch [T, B, *] ([B, T,
/// *] with batch_first), in the order of the sequences before packing,
/// padding_value past each sequence's end, T the longest length or
/// total_length (which may not be shorter); and the lengths (int64, CPU).
/// Differentiable with respect to sequence.data().
std::tuple<Variable, Tensor> pad_packed_sequence(
    const PackedSequence& sequence, bool batch_first = false, double padding_value = 0.0,
    std::optional<int64_t> total_length = std::nullopt);

/// Stacks sequences [L_i, *] into [T, B, *] ([B, T, *] with batch_first), T
/// the longest L_i, padding with padding_value. `*` and the dtype are the
/// first sequence's; the others broadcast to it (as PyTorch's copy_ does).
/// Differentiable with respect to every sequence.
Variable pad_sequence(const std::vector<Variable>& sequences, bool batch_first = false,
                      double padding_value = 0.0);

/// The inverse of pad_sequence: each sequence of `padded` cut to its length.
/// Views of `padded` (PyTorch 1.13 transposes its argument in place; this
/// leaves it alone).
std::vector<Variable> unpad_sequence(const Variable& padded, const Tensor& lengths,
                                     bool batch_first = false);

/// pad_sequence then pack_padded_sequence: packs sequences [L_i, *], of
/// non-increasing lengths unless enforce_sorted is false.
PackedSequence pack_sequence(const std::vector<Variable>& sequences, bool enforce_sorted = true);

/// The inverse of pack_sequence: the sequences, in their original order.
std::vector<Variable> unpack_sequence(const PackedSequence& sequence);

}  // namespace torchlet::nn::utils::rnn
