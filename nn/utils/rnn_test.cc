// Packed sequences: what pack_padded_sequence, pad_packed_sequence,
// pad_sequence and pack_sequence return and their gradients against PyTorch
// (nn/utils/testdata/rnn_golden.txt from tools/gen_packed_golden.py),
// gradcheck, round trips, PackedSequence's conversions and repr, and
// PyTorch's error texts.
#include "nn/utils/rnn.h"

#include <algorithm>
#include <string>
#include <vector>

#include "autograd/functions.h"
#include "autograd/golden_case.h"
#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "tensor/test_util.h"

namespace torchlet::nn::utils::rnn {
namespace {

using testing::all_close;
using testing::gradcheck;
using testing::values;

constexpr testing::Tolerance kTolerance{1e-12, 1e-14};

class PackedCase : public testing::GoldenCase {
 public:
  explicit PackedCase(const std::string& name)
      : GoldenCase(testing::golden_file("nn/utils/testdata/rnn_golden.txt"), name, kFloat64,
                   kTolerance) {}

  /// Compares `value` with the stored `<case>.<key>` and returns
  /// sum(value * cot_<key>), a term of the case's loss.
  Variable term(const std::string& key, const Variable& value) const {
    EXPECT_TRUE(all_close(value.data(), stored(key), kTolerance.rtol, kTolerance.atol)) << key;
    return (value * Variable(stored("cot_" + key))).sum();
  }

  /// Expects the int64 `value` to equal the stored `<case>.<key>` exactly.
  void expect_ints(const std::string& key, const Tensor& value) const {
    ASSERT_TRUE(value.defined()) << key;
    EXPECT_EQ(value.dtype(), kInt64) << key;
    EXPECT_EQ(values(value), values(stored(key))) << key;
  }

  /// The stored lengths.
  Tensor lengths() const { return stored("lengths").to(kInt64); }

  /// Checks a returned PackedSequence and returns its loss term.
  Variable packed(const PackedSequence& p, bool sorted) const {
    expect_ints("batch_sizes", p.batch_sizes());
    if (sorted) {
      expect_ints("sorted_indices", p.sorted_indices());
      expect_ints("unsorted_indices", p.unsorted_indices());
    } else {
      EXPECT_FALSE(p.sorted_indices().defined());
      EXPECT_FALSE(p.unsorted_indices().defined());
    }
    return term("data", p.data());
  }
};

Variable leaf(std::vector<int64_t> shape) { return Variable(randn(shape, kFloat64), true); }

// ---- pack_padded_sequence ----------------------------------------------------------

void check_pack(const std::string& name, bool batch_first, bool enforce_sorted) {
  SCOPED_TRACE(name);
  PackedCase c(name);
  const Variable x = c.leaf("x");
  const PackedSequence p = pack_padded_sequence(x, c.lengths(), batch_first, enforce_sorted);
  c.check(c.packed(p, !enforce_sorted));
}

TEST(PackPaddedSequenceTest, SortedBatchMatchesPyTorch) {
  check_pack("pack_sorted", false, true);
}

TEST(PackPaddedSequenceTest, UnsortedBatchFirstIsSortedAsPyTorch) {
  check_pack("pack_batch_first_unsorted", true, false);
}

TEST(PackPaddedSequenceTest, TiesKeepTheirOrderAndNoFeatureDimIsFine) {
  check_pack("pack_no_features_ties", false, false);
}

TEST(PackPaddedSequenceTest, UnenforcedSortedBatchRecordsTheIdentityOrder) {
  check_pack("pack_sorted_unenforced", false, false);
}

TEST(PackPaddedSequenceTest, TakesLengthsAsAVectorOrATensorOfAnyDtype) {
  const Variable x(randn({4, 3, 2}));
  const PackedSequence a = pack_padded_sequence(x, {2, 4, 1}, false, false);
  const PackedSequence b = pack_padded_sequence(x, tensor({2.5, 4.0, 1.0}), false, false);
  EXPECT_TRUE(all_close(a.data().data(), b.data().data(), 0, 0));
  EXPECT_EQ(values(a.batch_sizes()), (std::vector<double>{3, 2, 1, 1}));
  EXPECT_EQ(values(b.sorted_indices()), (std::vector<double>{1, 0, 2}));
}

// ---- pad_packed_sequence -----------------------------------------------------------

// The PackedSequence pack_padded_sequence makes for the case's lengths, its
// data the case's leaf.
PackedSequence packed_from(PackedCase& c, bool enforce_sorted) {
  const std::vector<double> lengths = values(c.lengths());
  const auto longest = static_cast<int64_t>(*std::max_element(lengths.begin(), lengths.end()));
  const PackedSequence shape =
      pack_padded_sequence(Variable(zeros({longest, static_cast<int64_t>(lengths.size()), 2})),
                           c.lengths(), false, enforce_sorted);
  return PackedSequence(c.leaf("data"), shape.batch_sizes(), shape.sorted_indices(),
                        shape.unsorted_indices());
}

void check_pad(const std::string& name, bool enforce_sorted, bool batch_first,
               double padding_value, std::optional<int64_t> total_length) {
  SCOPED_TRACE(name);
  PackedCase c(name);
  const PackedSequence p = packed_from(c, enforce_sorted);
  auto [padded, lengths] = pad_packed_sequence(p, batch_first, padding_value, total_length);
  c.expect_ints("lengths_out", lengths);
  c.check(c.term("padded", padded));
}

TEST(PadPackedSequenceTest, SortedBatchMatchesPyTorch) {
  check_pad("pad_sorted", true, false, 0.0, std::nullopt);
}

TEST(PadPackedSequenceTest, UnsortedBatchFirstWithPaddingValueMatchesPyTorch) {
  check_pad("pad_unsorted_batch_first_value", false, true, -1.5, std::nullopt);
}

TEST(PadPackedSequenceTest, TotalLengthPadsFurtherAsPyTorch) {
  check_pad("pad_total_length", true, false, 2.0, 5);
  check_pad("pad_unsorted_total_length_batch_first", false, true, 0.0, 4);
}

TEST(PadPackedSequenceTest, UndoesPackPaddedSequence) {
  const Variable x(randn({4, 3, 2}));
  const std::vector<int64_t> lengths = {2, 4, 1};
  for (const bool batch_first : {false, true}) {
    const Variable input = batch_first ? x.transpose(0, 1) : x;
    auto [padded, out_lengths] =
        pad_packed_sequence(pack_padded_sequence(input, lengths, batch_first, false),
                            batch_first, -7.0);
    EXPECT_EQ(values(out_lengths), (std::vector<double>{2, 4, 1}));
    const Variable back = batch_first ? padded.transpose(0, 1) : padded;
    for (int64_t b = 0; b < 3; ++b) {
      const int64_t n = lengths[static_cast<size_t>(b)];
      EXPECT_TRUE(all_close(back.data().select(1, b).narrow(0, 0, n),
                            x.data().select(1, b).narrow(0, 0, n), 0, 0));
      EXPECT_TRUE(all_close(back.data().select(1, b).narrow(0, n, 4 - n),
                            full({4 - n, 2}, -7.0), 0, 0));
    }
  }
}

// ---- pad_sequence and pack_sequence -------------------------------------------------

variable_list case_sequences(PackedCase& c, int count) {
  variable_list out;
  for (int i = 0; i < count; ++i) out.push_back(c.leaf("s" + std::to_string(i)));
  return out;
}

void check_pad_sequence(const std::string& name, int count, bool batch_first,
                        double padding_value) {
  SCOPED_TRACE(name);
  PackedCase c(name);
  const Variable padded = pad_sequence(case_sequences(c, count), batch_first, padding_value);
  c.check(c.term("padded", padded));
}

TEST(PadSequenceTest, StacksAndPadsAsPyTorch) { check_pad_sequence("pad_sequence", 3, false, 0); }

TEST(PadSequenceTest, BatchFirstWithPaddingValueMatchesPyTorch) {
  check_pad_sequence("pad_sequence_batch_first_value", 3, true, 7.0);
}

TEST(PadSequenceTest, LaterSequencesBroadcastToTheFirstAsPyTorch) {
  check_pad_sequence("pad_sequence_broadcast", 2, false, -1.0);
}

TEST(PadSequenceTest, TakesTheFirstSequencesDtype) {
  const Variable padded = pad_sequence(
      {Variable(randn({2, 3})), Variable(randn({3, 3}, kFloat64))}, false, 0.0);
  EXPECT_EQ(padded.dtype(), kFloat32);
  EXPECT_EQ(padded.sizes(), IntArrayRef({3, 2, 3}));
  EXPECT_EQ(pad_sequence({Variable(randn({0, 3})), Variable(randn({0, 3}))}).sizes(),
            IntArrayRef({0, 2, 3}));
}

void check_pack_sequence(const std::string& name, int count, bool enforce_sorted) {
  SCOPED_TRACE(name);
  PackedCase c(name);
  const PackedSequence p = pack_sequence(case_sequences(c, count), enforce_sorted);
  c.check(c.packed(p, !enforce_sorted));
}

TEST(PackSequenceTest, SortedSequencesMatchPyTorch) {
  check_pack_sequence("pack_sequence", 3, true);
}

TEST(PackSequenceTest, UnsortedSequencesMatchPyTorch) {
  check_pack_sequence("pack_sequence_unsorted", 3, false);
}

TEST(PackSequenceTest, UnpackSequenceAndUnpadSequenceGiveTheSequencesBack) {
  const variable_list sequences = {Variable(randn({2, 3})), Variable(randn({4, 3})),
                                   Variable(randn({1, 3}))};
  const variable_list unpacked = unpack_sequence(pack_sequence(sequences, false));
  ASSERT_EQ(unpacked.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_TRUE(all_close(unpacked[i].data(), sequences[i].data(), 0, 0)) << i;
  }
  for (const bool batch_first : {false, true}) {
    const variable_list unpadded = unpad_sequence(pad_sequence(sequences, batch_first),
                                                  from_vector<int64_t>({2, 4, 1}), batch_first);
    ASSERT_EQ(unpadded.size(), 3u);
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_TRUE(all_close(unpadded[i].data(), sequences[i].data(), 0, 0)) << i;
    }
  }
}

// ---- Finite differences -------------------------------------------------------------

TEST(PackedGradcheckTest, PackPaddedSequencePassesGradcheck) {
  for (const bool batch_first : {false, true}) {
    EXPECT_TRUE(gradcheck(
        [&](const variable_list& in) {
          return pack_padded_sequence(in[0], {2, 3, 1}, batch_first, false).data();
        },
        {leaf({3, 3, 2})}));
  }
}

TEST(PackedGradcheckTest, PadPackedSequencePassesGradcheck) {
  const PackedSequence shape =
      pack_padded_sequence(Variable(zeros({3, 3, 2})), {2, 3, 1}, false, false);
  EXPECT_TRUE(gradcheck(
      [&](const variable_list& in) {
        const PackedSequence p(in[0], shape.batch_sizes(), shape.sorted_indices());
        return std::get<0>(pad_packed_sequence(p, true, 0.5, 5));
      },
      {leaf({6, 2})}));
}

TEST(PackedGradcheckTest, PadSequenceAndPackSequencePassGradcheck) {
  EXPECT_TRUE(gradcheck(
      [](const variable_list& in) { return pad_sequence(in, true, -1.0); },
      {leaf({2, 2}), leaf({3, 1}), leaf({1, 2})}));
  EXPECT_TRUE(gradcheck(
      [](const variable_list& in) { return pack_sequence(in, false).data(); },
      {leaf({2, 2}), leaf({3, 2}), leaf({1, 2})}));
}

// ---- PackedSequence -------------------------------------------------------------------

TEST(PackedSequenceTest, InvertsSortedIndicesWhenNotGiven) {
  const PackedSequence p(Variable(randn({4})), from_vector<int64_t>({3, 1}),
                         from_vector<int64_t>({2, 0, 1}));
  EXPECT_EQ(values(p.unsorted_indices()), (std::vector<double>{1, 2, 0}));
  EXPECT_EQ(values(invert_permutation(from_vector<int64_t>({1, 3, 0, 2}))),
            (std::vector<double>{2, 0, 3, 1}));
  EXPECT_FALSE(invert_permutation(Tensor()).defined());
}

TEST(PackedSequenceTest, ToConvertsDataAndMovesTheIndices) {
  set_cpu_device_count(2);
  const Variable x(randn({3, 2}), true);
  const PackedSequence p = pack_padded_sequence(x, {1, 3}, false, false);
  const PackedSequence same = p.to(kFloat32);
  EXPECT_TRUE(same.data().is_same(p.data()));
  const PackedSequence doubled = p.to(kFloat64);
  EXPECT_EQ(doubled.data().dtype(), kFloat64);
  EXPECT_TRUE(doubled.data().requires_grad());
  EXPECT_EQ(doubled.sorted_indices().dtype(), kInt64);
  const Device cpu1(kCPU, 1);
  const PackedSequence moved = p.to(cpu1);
  EXPECT_EQ(moved.data().device(), cpu1);
  EXPECT_EQ(moved.sorted_indices().device(), cpu1);
  EXPECT_EQ(moved.unsorted_indices().device(), cpu1);
  EXPECT_EQ(moved.batch_sizes().device(), Device(kCPU, 0));
  EXPECT_FALSE(moved.is_cuda());
  moved.data().sum().backward();
  EXPECT_TRUE(all_close(x.grad().data(), tensor({{1.0f, 1.0f}, {0.0f, 1.0f}, {0.0f, 1.0f}})));
}

TEST(PackedSequenceTest, ReprIsPyTorchs) {
  // The examples of PyTorch 1.13's pack_sequence and pad_packed_sequence.
  EXPECT_EQ(testing::printed(pack_sequence({Variable(tensor({1, 2, 3})), Variable(tensor({4, 5})),
                                            Variable(tensor({6}))})),
            "PackedSequence(data=tensor([1, 4, 6, 2, 5, 3]), batch_sizes=tensor([3, 2, 1]), "
            "sorted_indices=None, unsorted_indices=None)");
  EXPECT_EQ(testing::printed(pack_padded_sequence(
                Variable(tensor({{1, 2, 0}, {3, 0, 0}, {4, 5, 6}})), {2, 1, 3}, true, false)),
            "PackedSequence(data=tensor([4, 1, 3, 5, 2, 6]), batch_sizes=tensor([3, 2, 1]), "
            "sorted_indices=tensor([2, 0, 1]), unsorted_indices=tensor([1, 2, 0]))");
}

// ---- Errors ------------------------------------------------------------------------

TEST(PackedErrorsTest, PackPaddedSequenceRefusesBadLengthsAsPyTorch) {
  const Variable x(randn({4, 3, 2}));
  EXPECT_THROW_MSG(pack_padded_sequence(x, {3, 4, 1}),
                   "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                   "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                   "pack_sequence to sidestep this requirement if you do not need ONNX "
                   "exportability.");
  EXPECT_THROW_MSG(pack_padded_sequence(x, {3, 2, 0}),
                   "Length of all samples has to be greater than 0, but found an element in "
                   "'lengths' that is <= 0");
  EXPECT_THROW_MSG(pack_padded_sequence(x, {3, -1, 2}, false, false),
                   "Length of all samples has to be greater than 0, but found an element in "
                   "'lengths' that is <= 0");
  EXPECT_THROW_MSG(pack_padded_sequence(x, {3, 2}),
                   "Expected `len(lengths)` to be equal to batch_size, but got 2 (batch_size=3)");
  EXPECT_THROW_MSG(pack_padded_sequence(x, {3, 2}, false, false),
                   "Expected `len(lengths)` to be equal to batch_size, but got 2 (batch_size=3)");
  EXPECT_THROW_MSG(pack_padded_sequence(x, {3, 2, 1}, true),
                   "Expected `len(lengths)` to be equal to batch_size, but got 3 (batch_size=4)");
  EXPECT_THROW_MSG(pack_padded_sequence(x, tensor({{3, 2, 1}})),
                   "'lengths' argument should be a 1D CPU int64 tensor, but got 2D cpu Long "
                   "tensor");
  EXPECT_THROW_MSG(pack_padded_sequence(x, Tensor()), "pack_padded_sequence: lengths is undefined");
}

TEST(PackedErrorsTest, PackPaddedSequenceRefusesBadInputs) {
  EXPECT_THROW_MSG(pack_padded_sequence(Variable(randn({0, 3, 2})), {3, 2, 1}),
                   "Cannot pack empty tensors.");
  EXPECT_THROW_MSG(pack_padded_sequence(Variable(randn({4})), {4}),
                   "pack_padded_sequence: expected input of at least 2 dimensions ([T, B, *], or "
                   "[B, T, *] with batch_first), got 1-D input of shape [4]");
  // PyTorch packs past the end of input here.
  EXPECT_THROW_MSG(pack_padded_sequence(Variable(randn({4, 3, 2})), {5, 2, 1}),
                   "pack_padded_sequence: a length of 5 exceeds the padded length 4 of input of "
                   "shape [4, 3, 2]");
  EXPECT_THROW_MSG(pack_sequence({Variable(randn({2, 3})), Variable(randn({3, 3}))}),
                   "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                   "True.");
  EXPECT_THROW_MSG(pack_sequence({Variable(randn({2, 3})), Variable(randn({0, 3}))}, false),
                   "Length of all samples has to be greater than 0");
  EXPECT_THROW_MSG(pack_sequence({}), "received an empty list of sequences");
}

TEST(PackedErrorsTest, PadPackedSequenceRefusesAShortTotalLengthAsPyTorch) {
  const PackedSequence p = pack_padded_sequence(Variable(randn({4, 3, 2})), {3, 2, 1});
  EXPECT_THROW_MSG(pad_packed_sequence(p, false, 0.0, 2),
                   "Expected total_length to be at least the length of the longest sequence in "
                   "input, but got total_length=2 and max sequence length being 3");
  EXPECT_THROW_MSG(pad_packed_sequence(p, false, 0.0, -1),
                   "but got total_length=-1 and max sequence length being 3");
  EXPECT_THROW_MSG(pad_packed_sequence(PackedSequence()),
                   "pad_packed_sequence: the PackedSequence is undefined");
}

TEST(PackedErrorsTest, PadSequenceRefusesMismatchedSequencesAsPyTorch) {
  EXPECT_THROW_MSG(pad_sequence({}), "received an empty list of sequences");
  EXPECT_THROW_MSG(pad_sequence({Variable(randn({2, 3})), Variable(randn({3, 4}))}),
                   "The size of tensor a (3) must match the size of tensor b (4) at "
                   "non-singleton dimension 1");
  EXPECT_THROW_MSG(pad_sequence({Variable(randn({2, 1})), Variable(randn({3, 3}))}),
                   "output with shape [3, 1] doesn't match the broadcast shape [3, 3]");
  EXPECT_THROW_MSG(pad_sequence({Variable(randn({2, 3})), Variable(randn({3, 3, 1}))}),
                   "output with shape [3, 3] doesn't match the broadcast shape [3, 3, 3]");
  EXPECT_THROW_MSG(pad_sequence({Variable(randn({2, 3})), Variable(scalar_tensor(1.0))}),
                   "Dimension specified as 0 but tensor has no dimensions");
  EXPECT_THROW_MSG(pad_sequence({Variable(randn({2})), Variable()}),
                   "pad_sequence: a sequence is undefined");
}

TEST(PackedErrorsTest, UnpadSequenceRefusesBadLengths) {
  const Variable padded(randn({4, 2, 3}));
  EXPECT_THROW_MSG(unpad_sequence(padded, from_vector<int64_t>({4})),
                   "unpad_sequence: expected 2 lengths for padded sequences of shape [4, 2, 3], "
                   "got 1");
  EXPECT_THROW_MSG(unpad_sequence(padded, from_vector<int64_t>({4, 5})),
                   "unpad_sequence: length 5 is out of range for padded sequences of length 4");
  EXPECT_THROW_MSG(unpad_sequence(Variable(randn({4})), from_vector<int64_t>({4})),
                   "unpad_sequence: expected padded sequences of at least 2 dimensions, got 1-D");
  EXPECT_THROW_MSG(unpad_sequence(padded, Tensor()),
                   "unpad_sequence: padded and lengths must be defined");
}

TEST(PackedErrorsTest, PackedSequenceRefusesInconsistentParts) {
  const Variable data(randn({4, 2}));
  EXPECT_THROW_MSG(PackedSequence(data, tensor({3.0, 1.0})),
                   "PackedSequence: batch_sizes must be a non-empty 1-D int64 tensor, got 1-D "
                   "Float tensor of shape [2]");
  EXPECT_THROW_MSG(PackedSequence(data, from_vector<int64_t>({1, 3})),
                   "PackedSequence: batch_sizes must be positive and non-increasing, got [1, 3]");
  EXPECT_THROW_MSG(PackedSequence(data, from_vector<int64_t>({2, 1})),
                   "PackedSequence: data has 4 rows but batch_sizes [2, 1] sum to 3");
  EXPECT_THROW_MSG(PackedSequence(Variable(scalar_tensor(1.0)), from_vector<int64_t>({1})),
                   "PackedSequence: data must have at least 1 dimension, got 0");
  EXPECT_THROW_MSG(PackedSequence(data, from_vector<int64_t>({3, 1}),
                                  from_vector<int64_t>({0, 1})),
                   "PackedSequence: sorted_indices must be a 1-D int64 tensor of "
                   "batch_sizes[0]=3 entries, got 1-D Long tensor of shape [2]");
  EXPECT_THROW_MSG(PackedSequence(data, from_vector<int64_t>({3, 1}),
                                  from_vector<int64_t>({0, 1, 1})),
                   "invert_permutation: expected a permutation of 0..2, got [0, 1, 1]");
  EXPECT_THROW_MSG(PackedSequence(data, from_vector<int64_t>({3, 1}), Tensor(),
                                  from_vector<int64_t>({0, 3, 1})),
                   "invert_permutation: expected a permutation of 0..2, got [0, 3, 1]");
  EXPECT_THROW_MSG(PackedSequence(Variable(), from_vector<int64_t>({1})),
                   "PackedSequence: data and batch_sizes must be defined");
  EXPECT_THROW_MSG(invert_permutation(tensor({1.0})),
                   "invert_permutation: expected a 1-D int64 tensor, got 1-D Float");
  EXPECT_THROW_MSG(PackedSequence().to(kFloat64), "PackedSequence.to: the sequence is undefined");
}

}  // namespace
}  // namespace torchlet::nn::utils::rnn
