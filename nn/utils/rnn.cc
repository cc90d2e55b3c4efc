#include "nn/utils/rnn.h"

#include <algorithm>
#include <string>
#include <utility>

#include "autograd/functions.h"
#include "tensor/shape.h"

namespace torchlet::nn::utils::rnn {

// Note [Packed sequences]
// ~~~~~~~~~~~~~~~~~~~~~~~
// Packing and padding are pure rearrangements, so each is one index_select
// whose index is worked out on the host from the lengths: pack selects the
// unpadded elements of the padded batch, flattened to [T * B, *] (or [B *
// T, *]), step by step; pad selects from data with one row of padding_value
// appended, every padded position pointing at that row. Autograd's
// index_select gives the gradients (scattered back to the selected rows),
// and the batch_first layouts and the sorting need no transpose or second
// pass: they only change the index. The checks and their messages follow
// PyTorch 1.13 (its Python code and ATen's _pack_padded_sequence,
// _pad_packed_sequence and pad_sequence), with checks of its own where
// PyTorch would read past the input or return a silently wrong result.

namespace {

// "cpu" or "cuda:0", as PyTorch prints devices in these messages.
std::string device_name(Device device) {
  return device.type == DeviceType::kCPU ? std::string("cpu") : device.str();
}

std::vector<int64_t> host_int64(const Tensor& t) { return t.to_vector<int64_t>(); }

// The trailing sizes (after the first `skip` dims), behind `lead`.
SizeVec with_lead(IntArrayRef lead, IntArrayRef sizes, size_t skip) {
  SizeVec out(lead.begin(), lead.end());
  for (size_t i = skip; i < sizes.size(); ++i) out.push_back(sizes[i]);
  return out;
}

// Checks that `indices` is a 1-D int64 tensor of `n` entries; `what` names it.
void check_indices(const Tensor& indices, int64_t n, const char* what) {
  TORCHLET_CHECK(indices.dim() == 1 && indices.dtype() == kInt64 && indices.size(0) == n,
                 "PackedSequence: ", what, " must be a 1-D int64 tensor of batch_sizes[0]=", n,
                 " entries, got ", indices.dim(), "-D ", scalar_type_name(indices.dtype()),
                 " tensor of shape ", shape_str(indices.sizes()));
}

// The lengths of the packed columns (longest first) from the batch sizes.
std::vector<int64_t> sorted_lengths(const std::vector<int64_t>& batch_sizes) {
  std::vector<int64_t> lengths(static_cast<size_t>(batch_sizes.front()), 0);
  for (const int64_t b : batch_sizes) {
    for (int64_t s = 0; s < b; ++s) ++lengths[static_cast<size_t>(s)];
  }
  return lengths;
}

}  // namespace

// ---- PackedSequence ------------------------------------------------------------

PackedSequence::PackedSequence(Variable data, Tensor batch_sizes, Tensor sorted_indices,
                               Tensor unsorted_indices)
    : data_(std::move(data)),
      batch_sizes_(std::move(batch_sizes)),
      sorted_indices_(std::move(sorted_indices)),
      unsorted_indices_(std::move(unsorted_indices)) {
  TORCHLET_CHECK(data_.defined() && batch_sizes_.defined(),
                 "PackedSequence: data and batch_sizes must be defined");
  TORCHLET_CHECK(batch_sizes_.device().type == DeviceType::kCPU,
                 "batch_sizes should always be on CPU. Instances of PackedSequence should never "
                 "be created manually. They should be instantiated by functions like "
                 "pack_sequence and pack_padded_sequences in nn.utils.rnn. "
                 "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence");
  TORCHLET_CHECK(batch_sizes_.dim() == 1 && batch_sizes_.dtype() == kInt64 &&
                     batch_sizes_.numel() > 0,
                 "PackedSequence: batch_sizes must be a non-empty 1-D int64 tensor, got ",
                 batch_sizes_.dim(), "-D ", scalar_type_name(batch_sizes_.dtype()),
                 " tensor of shape ", shape_str(batch_sizes_.sizes()));
  TORCHLET_CHECK(data_.dim() >= 1, "PackedSequence: data must have at least 1 dimension, got ",
                 data_.dim());
  const std::vector<int64_t> sizes = host_int64(batch_sizes_);
  int64_t total = 0;
  for (size_t t = 0; t < sizes.size(); ++t) {
    TORCHLET_CHECK(sizes[t] > 0 && (t == 0 || sizes[t] <= sizes[t - 1]),
                   "PackedSequence: batch_sizes must be positive and non-increasing, got ",
                   shape_str(sizes));
    total += sizes[t];
  }
  TORCHLET_CHECK(data_.size(0) == total, "PackedSequence: data has ", data_.size(0),
                 " rows but batch_sizes ", shape_str(sizes), " sum to ", total);
  if (sorted_indices_.defined()) {
    check_indices(sorted_indices_, sizes[0], "sorted_indices");
    if (!unsorted_indices_.defined()) unsorted_indices_ = invert_permutation(sorted_indices_);
  }
  if (unsorted_indices_.defined()) {
    check_indices(unsorted_indices_, sizes[0], "unsorted_indices");
    invert_permutation(unsorted_indices_);  // checks that it is a permutation
  }
}

PackedSequence PackedSequence::to(Device device, DType dtype) const {
  TORCHLET_CHECK(defined(), "PackedSequence.to: the sequence is undefined");
  if (device == data_.device() && dtype == data_.dtype()) return *this;
  const Variable data = data_.to(dtype).to(device);
  const auto move = [&](const Tensor& t) { return t.defined() ? t.to(device) : Tensor(); };
  return PackedSequence(data, batch_sizes_, move(sorted_indices_), move(unsorted_indices_));
}

PackedSequence PackedSequence::to(Device device) const {
  return to(device, defined() ? data_.dtype() : kFloat32);
}

PackedSequence PackedSequence::to(DType dtype) const {
  return to(defined() ? data_.device() : Device(), dtype);
}

std::ostream& operator<<(std::ostream& out, const PackedSequence& sequence) {
  const auto optional = [](const Tensor& t) { return t.defined() ? t.str() : std::string("None"); };
  out << "PackedSequence(data=" << sequence.data()
      << ", batch_sizes=" << optional(sequence.batch_sizes())
      << ", sorted_indices=" << optional(sequence.sorted_indices())
      << ", unsorted_indices=" << optional(sequence.unsorted_indices()) << ")";
  return out;
}

Tensor invert_permutation(const Tensor& permutation) {
  if (!permutation.defined()) return Tensor();
  TORCHLET_CHECK(permutation.dim() == 1 && permutation.dtype() == kInt64,
                 "invert_permutation: expected a 1-D int64 tensor, got ", permutation.dim(),
                 "-D ", scalar_type_name(permutation.dtype()));
  const std::vector<int64_t> p = host_int64(permutation);
  const auto n = static_cast<int64_t>(p.size());
  std::vector<int64_t> inverse(p.size(), -1);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = p[static_cast<size_t>(i)];
    TORCHLET_CHECK(v >= 0 && v < n && inverse[static_cast<size_t>(v)] < 0,
                   "invert_permutation: expected a permutation of 0..", n - 1, ", got ",
                   shape_str(p));
    inverse[static_cast<size_t>(v)] = i;
  }
  return from_vector(inverse).to(permutation.device());
}

// ---- Packing -------------------------------------------------------------------

PackedSequence pack_padded_sequence(const Variable& input, const Tensor& lengths_in,
                                    bool batch_first, bool enforce_sorted) {
  TORCHLET_CHECK(lengths_in.defined(), "pack_padded_sequence: lengths is undefined");
  const Tensor lengths_t = lengths_in.to(kInt64);
  TORCHLET_CHECK(lengths_t.dim() == 1 && lengths_t.device().type == DeviceType::kCPU,
                 "'lengths' argument should be a 1D CPU int64 tensor, but got ",
                 lengths_t.dim(), "D ", device_name(lengths_t.device()), " ",
                 scalar_type_name(lengths_t.dtype()), " tensor");
  TORCHLET_CHECK(input.dim() >= 2,
                 "pack_padded_sequence: expected input of at least 2 dimensions ([T, B, *], or "
                 "[B, T, *] with batch_first), got ",
                 input.dim(), "-D input of shape ", shape_str(input.sizes()));
  TORCHLET_CHECK(input.numel() > 0, "Cannot pack empty tensors.");
  const int64_t time_dim = batch_first ? 1 : 0;
  const int64_t steps = input.size(time_dim);
  const int64_t batch = input.size(1 - time_dim);
  std::vector<int64_t> lengths = host_int64(lengths_t);
  // PyTorch sorts first and then compares the count with the (sorted)
  // batch, so that fewer lengths than sequences drop sequences silently.
  TORCHLET_CHECK(static_cast<int64_t>(lengths.size()) == batch,
                 "Expected `len(lengths)` to be equal to batch_size, but got ", lengths.size(),
                 " (batch_size=", batch, ")");
  Tensor sorted_indices;
  std::vector<int64_t> order(lengths.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  if (!enforce_sorted) {
    // Stable: ties keep their order (as PyTorch's sort for up to 16
    // sequences; see the Note).
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return lengths[static_cast<size_t>(a)] > lengths[static_cast<size_t>(b)];
    });
    std::vector<int64_t> sorted(lengths.size());
    for (size_t i = 0; i < order.size(); ++i) sorted[i] = lengths[static_cast<size_t>(order[i])];
    lengths = std::move(sorted);
    sorted_indices = from_vector(order).to(input.device());
  }
  TORCHLET_CHECK(lengths.back() > 0,
                 "Length of all samples has to be greater than 0, but found an element in "
                 "'lengths' that is <= 0");
  for (size_t i = 0; i + 1 < lengths.size(); ++i) {
    TORCHLET_CHECK(lengths[i] >= lengths[i + 1],
                   "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                   "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                   "pack_sequence to sidestep this requirement if you do not need ONNX "
                   "exportability.");
  }
  // PyTorch packs past the end of input here without a word.
  TORCHLET_CHECK(lengths.front() <= steps, "pack_padded_sequence: a length of ", lengths.front(),
                 " exceeds the padded length ", steps, " of input of shape ",
                 shape_str(input.sizes()), (batch_first ? " (batch_first)" : ""));

  std::vector<int64_t> batch_sizes;
  std::vector<int64_t> index;
  for (int64_t t = 0; t < lengths.front(); ++t) {
    int64_t active = 0;
    while (active < batch && lengths[static_cast<size_t>(active)] > t) {
      const int64_t column = order[static_cast<size_t>(active)];
      index.push_back(batch_first ? column * steps + t : t * batch + column);
      ++active;
    }
    batch_sizes.push_back(active);
  }
  const Variable flat = input.reshape(with_lead({steps * batch}, input.sizes(), 2));
  const Variable data = flat.index_select(0, from_vector(index).to(input.device()));
  return PackedSequence(data, from_vector(batch_sizes), sorted_indices);
}

PackedSequence pack_padded_sequence(const Variable& input, const std::vector<int64_t>& lengths,
                                    bool batch_first, bool enforce_sorted) {
  return pack_padded_sequence(input, from_vector(lengths), batch_first, enforce_sorted);
}

std::tuple<Variable, Tensor> pad_packed_sequence(const PackedSequence& sequence,
                                                 bool batch_first, double padding_value,
                                                 std::optional<int64_t> total_length) {
  TORCHLET_CHECK(sequence.defined(), "pad_packed_sequence: the PackedSequence is undefined");
  const std::vector<int64_t> batch_sizes = host_int64(sequence.batch_sizes());
  int64_t steps = static_cast<int64_t>(batch_sizes.size());
  if (total_length) {
    TORCHLET_CHECK(*total_length >= steps,
                   "Expected total_length to be at least the length of the longest sequence in "
                   "input, but got total_length=",
                   *total_length, " and max sequence length being ", steps);
    steps = *total_length;
  }
  const Variable& data = sequence.data();
  const int64_t batch = batch_sizes.front();
  const int64_t rows = data.size(0);
  const std::vector<int64_t> lengths_sorted = sorted_lengths(batch_sizes);
  std::vector<int64_t> column_of(static_cast<size_t>(batch));  // output column -> packed column
  for (int64_t j = 0; j < batch; ++j) column_of[static_cast<size_t>(j)] = j;
  if (sequence.unsorted_indices().defined()) column_of = host_int64(sequence.unsorted_indices());
  std::vector<int64_t> offsets(batch_sizes.size(), 0);
  for (size_t t = 1; t < batch_sizes.size(); ++t) offsets[t] = offsets[t - 1] + batch_sizes[t - 1];

  // Every position of the output reads a row of data, or the padding row.
  std::vector<int64_t> index(static_cast<size_t>(steps * batch));
  std::vector<int64_t> lengths(static_cast<size_t>(batch));
  for (int64_t j = 0; j < batch; ++j) {
    const int64_t s = column_of[static_cast<size_t>(j)];
    const int64_t length = lengths_sorted[static_cast<size_t>(s)];
    lengths[static_cast<size_t>(j)] = length;
    for (int64_t t = 0; t < steps; ++t) {
      const int64_t row = t < length ? offsets[static_cast<size_t>(t)] + s : rows;
      index[static_cast<size_t>(batch_first ? j * steps + t : t * batch + j)] = row;
    }
  }
  const Variable padding(full(with_lead({1}, data.sizes(), 1), padding_value, data.options()));
  const Variable source = cat({data, padding}, 0);
  const Variable padded =
      source.index_select(0, from_vector(index).to(data.device()))
          .view(with_lead(batch_first ? SizeVec{batch, steps} : SizeVec{steps, batch},
                          data.sizes(), 1));
  return {padded, from_vector(lengths)};
}

Variable pad_sequence(const std::vector<Variable>& sequences, bool batch_first,
                      double padding_value) {
  TORCHLET_CHECK(!sequences.empty(), "pad_sequence: received an empty list of sequences");
  for (const Variable& s : sequences) {
    TORCHLET_CHECK(s.defined(), "pad_sequence: a sequence is undefined");
    TORCHLET_CHECK(s.dim() >= 1,
                   "pad_sequence: Dimension specified as 0 but tensor has no dimensions");
  }
  const Variable& first = sequences.front();
  int64_t max_length = 0;
  for (const Variable& s : sequences) max_length = std::max(max_length, s.size(0));
  std::vector<Variable> columns;
  columns.reserve(sequences.size());
  for (const Variable& s : sequences) {
    const SizeVec target = with_lead({s.size(0)}, first.sizes(), 1);
    const SizeVec broadcast = broadcast_shapes(target, s.sizes(), "pad_sequence");
    TORCHLET_CHECK(IntArrayRef(broadcast) == IntArrayRef(target),
                   "pad_sequence: output with shape ", shape_str(target),
                   " doesn't match the broadcast shape ", shape_str(broadcast));
    Variable column = s.to(first.dtype()).to(first.device()).expand(target);
    if (s.size(0) < max_length) {
      const Variable padding(full(with_lead({max_length - s.size(0)}, first.sizes(), 1),
                                  padding_value, first.options()));
      column = cat({column, padding}, 0);
    }
    columns.push_back(column);
  }
  return stack(columns, batch_first ? 0 : 1);
}

std::vector<Variable> unpad_sequence(const Variable& padded, const Tensor& lengths_in,
                                     bool batch_first) {
  TORCHLET_CHECK(padded.defined() && lengths_in.defined(),
                 "unpad_sequence: padded and lengths must be defined");
  TORCHLET_CHECK(padded.dim() >= 2,
                 "unpad_sequence: expected padded sequences of at least 2 dimensions, got ",
                 padded.dim(), "-D");
  const int64_t batch_dim = batch_first ? 0 : 1;
  const int64_t batch = padded.size(batch_dim);
  const int64_t steps = padded.size(1 - batch_dim);
  const std::vector<int64_t> lengths = host_int64(lengths_in.to(kInt64).reshape({-1}));
  TORCHLET_CHECK(static_cast<int64_t>(lengths.size()) == batch, "unpad_sequence: expected ",
                 batch, " lengths for padded sequences of shape ", shape_str(padded.sizes()),
                 ", got ", lengths.size());
  std::vector<Variable> out;
  out.reserve(lengths.size());
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t length = lengths[static_cast<size_t>(b)];
    TORCHLET_CHECK(length >= 0 && length <= steps, "unpad_sequence: length ", length,
                   " is out of range for padded sequences of length ", steps);
    out.push_back(padded.select(batch_dim, b).narrow(0, 0, length));
  }
  return out;
}

PackedSequence pack_sequence(const std::vector<Variable>& sequences, bool enforce_sorted) {
  const Variable padded = pad_sequence(sequences);
  std::vector<int64_t> lengths;
  lengths.reserve(sequences.size());
  for (const Variable& s : sequences) lengths.push_back(s.size(0));
  return pack_padded_sequence(padded, lengths, false, enforce_sorted);
}

std::vector<Variable> unpack_sequence(const PackedSequence& sequence) {
  auto [padded, lengths] = pad_packed_sequence(sequence, true);
  return unpad_sequence(padded, lengths, true);
}

}  // namespace torchlet::nn::utils::rnn
