// RNN, LSTM and GRU on packed sequences (forward_with_packed_input): the
// packed output, h_n, c_n and the gradients of the padded input, the
// initial states and every parameter against PyTorch
// (nn/testdata/packed_golden.txt from tools/gen_packed_golden.py), against
// each sequence run alone and the unpacked path, gradcheck, and PyTorch's
// error texts.
#include <string>
#include <vector>

#include "autograd/golden_case.h"
#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "nn/nn.h"
#include "nn/rnn.h"
#include "nn/utils/rnn.h"
#include "tensor/test_util.h"

namespace torchlet::nn {
namespace {

using testing::all_close;
using testing::gradcheck;
using testing::values;
using utils::rnn::pack_padded_sequence;
using utils::rnn::PackedSequence;
using utils::rnn::pad_packed_sequence;

constexpr testing::Tolerance kTolerance{1e-9, 1e-11};

class PackedRNNCase : public testing::GoldenCase {
 public:
  explicit PackedRNNCase(const std::string& name)
      : GoldenCase(testing::golden_file("nn/testdata/packed_golden.txt"), name, kFloat64,
                   kTolerance) {}

  /// Binds every parameter of `module` to PyTorch's, by its state_dict name.
  void bind_parameters(Module& module) {
    for (const auto& [name, p] : module.named_parameters()) bind(name, p);
  }

  /// The case's padded input x, packed as PyTorch packed it.
  PackedSequence packed_input(bool batch_first, bool enforce_sorted) {
    return pack_padded_sequence(leaf("x"), stored("lengths").to(kInt64), batch_first,
                                enforce_sorted);
  }

  /// Compares `value` with the stored `<case>.<key>` and returns
  /// sum(value * cot_<key>), a term of the case's loss.
  Variable term(const std::string& key, const Variable& value) const {
    EXPECT_TRUE(all_close(value.data(), stored(key), kTolerance.rtol, kTolerance.atol)) << key;
    return (value * Variable(stored("cot_" + key))).sum();
  }

  /// Checks the packed output's batch sizes and returns its data's term.
  Variable output_term(const PackedSequence& output) const {
    EXPECT_EQ(values(output.batch_sizes()), values(stored("batch_sizes")));
    return term("output", output.data());
  }
};

Variable leaf(std::vector<int64_t> shape) { return Variable(randn(shape, kFloat64), true); }

// ---- Against PyTorch --------------------------------------------------------------

void check_lstm(LSTM lstm, const std::string& name, bool enforce_sorted, bool with_hx) {
  SCOPED_TRACE(name);
  PackedRNNCase c(name);
  c.bind_parameters(*lstm);
  const PackedSequence input = c.packed_input(lstm->options().batch_first_, enforce_sorted);
  auto [output, state] =
      with_hx ? lstm->forward_with_packed_input(input, std::make_tuple(c.leaf("h0"), c.leaf("c0")))
              : lstm->forward_with_packed_input(input);
  auto [h_n, c_n] = state;
  c.check(c.output_term(output) + c.term("h_n", h_n) + c.term("c_n", c_n));
}

TEST(PackedLSTMTest, OneLayerSortedMatchesPyTorch) {
  check_lstm(LSTM(2, 3), "lstm", true, false);
}

TEST(PackedLSTMTest, TwoLayersBidirectionalWithInitialStateMatchPyTorch) {
  check_lstm(LSTM(LSTMOptions(2, 2).num_layers(2).bidirectional(true)), "lstm_2layer_bidir_hx",
             false, true);
}

TEST(PackedLSTMTest, BatchFirstBidirectionalMatchesPyTorch) {
  check_lstm(LSTM(LSTMOptions(2, 2).batch_first(true).bidirectional(true)),
             "lstm_batch_first_bidir", false, false);
}

TEST(PackedLSTMTest, ProjectionMatchesPyTorch) {
  check_lstm(LSTM(LSTMOptions(2, 2).num_layers(2).bidirectional(true).proj_size(1)),
             "lstm_proj_2layer_bidir_hx", false, true);
}

template <typename Layer>
void check_single_state(Layer layer, const std::string& name, bool enforce_sorted,
                        bool with_hx) {
  SCOPED_TRACE(name);
  PackedRNNCase c(name);
  c.bind_parameters(*layer);
  const PackedSequence input = c.packed_input(layer->options().batch_first_, enforce_sorted);
  auto [output, h_n] = with_hx ? layer->forward_with_packed_input(input, c.leaf("h0"))
                               : layer->forward_with_packed_input(input);
  c.check(c.output_term(output) + c.term("h_n", h_n));
}

TEST(PackedGRUTest, OneLayerSortedMatchesPyTorch) {
  check_single_state(GRU(2, 3), "gru", true, false);
}

TEST(PackedGRUTest, TwoLayersBidirectionalWithInitialStateMatchPyTorch) {
  check_single_state(GRU(GRUOptions(2, 2).num_layers(2).bidirectional(true)),
                     "gru_2layer_bidir_hx", false, true);
}

TEST(PackedGRUTest, BatchFirstWithoutBiasWithInitialStateMatchesPyTorch) {
  check_single_state(GRU(GRUOptions(2, 3).batch_first(true).bias(false)),
                     "gru_batch_first_nobias_hx", false, true);
}

TEST(PackedRNNTest, OneLayerSortedMatchesPyTorch) {
  check_single_state(RNN(2, 3), "rnn", true, false);
}

TEST(PackedRNNTest, ReluTwoLayersBidirectionalWithInitialStateMatchPyTorch) {
  check_single_state(
      RNN(RNNOptions(2, 3).num_layers(2).bidirectional(true).nonlinearity("relu")),
      "rnn_relu_2layer_bidir_hx", false, true);
}

TEST(PackedRNNTest, BatchFirstTwoLayersMatchPyTorch) {
  check_single_state(RNN(RNNOptions(2, 3).batch_first(true).num_layers(2)),
                     "rnn_batch_first_2layer", false, false);
}

// ---- Against the unpacked path ------------------------------------------------------

TEST(PackedLSTMTest, EachSequenceMatchesRunningItAlone) {
  LSTM lstm(LSTMOptions(3, 4).num_layers(2).bidirectional(true));
  lstm->to(kFloat64);
  const std::vector<int64_t> lengths = {3, 5, 1, 5};
  const Variable x(randn({5, 4, 3}, kFloat64));
  const Variable h0(randn({4, 4, 4}, kFloat64));
  const Variable c0(randn({4, 4, 4}, kFloat64));
  auto [output, state] = lstm->forward_with_packed_input(
      pack_padded_sequence(x, lengths, false, false), std::make_tuple(h0, c0));
  auto [h_n, c_n] = state;
  auto [padded, out_lengths] = pad_packed_sequence(output);
  EXPECT_EQ(values(out_lengths), (std::vector<double>{3, 5, 1, 5}));
  for (int64_t b = 0; b < 4; ++b) {
    SCOPED_TRACE(b);
    const int64_t n = lengths[static_cast<size_t>(b)];
    auto [alone, alone_state] =
        lstm(x.narrow(0, 0, n).narrow(1, b, 1),
             std::make_tuple(h0.narrow(1, b, 1), c0.narrow(1, b, 1)));
    EXPECT_TRUE(all_close(padded.data().narrow(0, 0, n).narrow(1, b, 1), alone.data(), 1e-12,
                          1e-14));
    EXPECT_TRUE(all_close(h_n.data().narrow(1, b, 1), std::get<0>(alone_state).data(), 1e-12,
                          1e-14));
    EXPECT_TRUE(all_close(c_n.data().narrow(1, b, 1), std::get<1>(alone_state).data(), 1e-12,
                          1e-14));
  }
}

TEST(PackedGRUTest, EqualLengthsMatchTheUnpackedPath) {
  GRU gru(GRUOptions(3, 4).num_layers(2).bidirectional(true).batch_first(true));
  const Variable x(randn({3, 5, 3}));
  const Variable h0(randn({4, 3, 4}));
  auto [output, h_n] =
      gru->forward_with_packed_input(pack_padded_sequence(x, {5, 5, 5}, true), h0);
  auto [expected, expected_h] = gru(x, h0);
  EXPECT_TRUE(all_close(std::get<0>(pad_packed_sequence(output, true)).data(), expected.data(),
                        1e-6, 1e-7));
  EXPECT_TRUE(all_close(h_n.data(), expected_h.data(), 1e-6, 1e-7));
  EXPECT_FALSE(output.sorted_indices().defined());
}

TEST(PackedRNNTest, OutputKeepsTheInputsOrderAndBatchSizes) {
  RNN rnn(3, 4);
  const PackedSequence input =
      pack_padded_sequence(Variable(randn({4, 3, 3})), {2, 4, 3}, false, false);
  auto [output, h_n] = rnn->forward_with_packed_input(input);
  EXPECT_EQ(output.data().sizes(), IntArrayRef({9, 4}));
  EXPECT_EQ(values(output.batch_sizes()), values(input.batch_sizes()));
  EXPECT_EQ(values(output.sorted_indices()), (std::vector<double>{1, 2, 0}));
  EXPECT_EQ(values(output.unsorted_indices()), (std::vector<double>{2, 0, 1}));
  EXPECT_EQ(h_n.sizes(), IntArrayRef({1, 3, 4}));
}

// ---- Finite differences ------------------------------------------------------------

// The layer's parameters as float64 leaves, after the input leaves.
variable_list with_parameters(Module& module, variable_list inputs) {
  module.to(kFloat64);
  for (const Variable& p : module.parameters()) inputs.push_back(p);
  return inputs;
}

TEST(PackedGradcheckTest, LSTMPassesGradcheck) {
  LSTM lstm(LSTMOptions(2, 2).num_layers(2).bidirectional(true).proj_size(1));
  EXPECT_TRUE(gradcheck(
      [&](const variable_list& in) {
        auto [output, state] = lstm->forward_with_packed_input(
            pack_padded_sequence(in[0], {2, 3, 1}, false, false), std::make_tuple(in[1], in[2]));
        return cat({output.data().reshape({-1}), std::get<0>(state).reshape({-1}),
                    std::get<1>(state).reshape({-1})});
      },
      with_parameters(*lstm, {leaf({3, 3, 2}), leaf({4, 3, 1}), leaf({4, 3, 2})})));
}

TEST(PackedGradcheckTest, GRUAndRNNPassGradcheck) {
  GRU gru(GRUOptions(2, 2).bidirectional(true).batch_first(true));
  EXPECT_TRUE(gradcheck(
      [&](const variable_list& in) {
        auto [output, h_n] = gru->forward_with_packed_input(
            pack_padded_sequence(in[0], {1, 3, 2}, true, false), in[1]);
        return cat({output.data().reshape({-1}), h_n.reshape({-1})});
      },
      with_parameters(*gru, {leaf({3, 3, 2}), leaf({2, 3, 2})})));
  RNN rnn(RNNOptions(2, 2).num_layers(2));
  EXPECT_TRUE(gradcheck(
      [&](const variable_list& in) {
        auto [output, h_n] =
            rnn->forward_with_packed_input(pack_padded_sequence(in[0], {3, 2}), in[1]);
        return cat({output.data().reshape({-1}), h_n.reshape({-1})});
      },
      with_parameters(*rnn, {leaf({3, 2, 2}), leaf({2, 2, 2})})));
}

// ---- Errors -----------------------------------------------------------------------

TEST(PackedErrorsTest, WrongInputsAreRefusedAsPyTorch) {
  const PackedSequence p = pack_padded_sequence(Variable(randn({4, 3, 3})), {4, 2, 1});
  EXPECT_THROW_MSG(LSTM(2, 4)->forward_with_packed_input(p),
                   "input.size(-1) must be equal to input_size. Expected 2, got 3");
  EXPECT_THROW_MSG(GRU(3, 4)->forward_with_packed_input(p, Variable(randn({1, 2, 4}))),
                   "Expected hidden size (1, 3, 4), got [1, 2, 4]");
  EXPECT_THROW_MSG(GRU(3, 4)->forward_with_packed_input(p, Variable(randn({3, 4}))),
                   "Expected hidden size (1, 3, 4), got [3, 4]");
  EXPECT_THROW_MSG(RNN(RNNOptions(3, 4).num_layers(2))
                       ->forward_with_packed_input(p, Variable(randn({1, 3, 4}))),
                   "Expected hidden size (2, 3, 4), got [1, 3, 4]");
  EXPECT_THROW_MSG(LSTM(3, 4)->forward_with_packed_input(
                       p, std::make_tuple(Variable(randn({1, 3, 4})), Variable(randn({1, 2, 4})))),
                   "Expected hidden[1] size (1, 3, 4), got [1, 2, 4]");
  EXPECT_THROW_MSG(LSTM(LSTMOptions(3, 4).proj_size(2))
                       ->forward_with_packed_input(p, std::make_tuple(Variable(randn({1, 3, 4})),
                                                                      Variable(randn({1, 3, 4})))),
                   "Expected hidden[0] size (1, 3, 2), got [1, 3, 4]");
  EXPECT_THROW_MSG(GRU(3, 4)->forward_with_packed_input(
                       PackedSequence(Variable(randn({7, 1, 3})), p.batch_sizes())),
                   "input must have 2 dimensions, got 3");
  EXPECT_THROW_MSG(LSTM(3, 4)->forward_with_packed_input(
                       p, std::make_tuple(Variable(), Variable())),
                   "LSTM: hx and cx must both be defined");
  EXPECT_THROW_MSG(GRU(3, 4)->forward_with_packed_input(PackedSequence()),
                   "GRU: the PackedSequence input is undefined");
}

}  // namespace
}  // namespace torchlet::nn
