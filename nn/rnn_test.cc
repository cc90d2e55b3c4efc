// The recurrent layers and cells: outputs, final states and the gradients of
// every input and parameter against PyTorch (nn/testdata/rnn_golden.txt from
// tools/gen_rnn_golden.py, PyTorch's parameters loaded by name), gradcheck,
// parameter names and order, reprs, dropout and PyTorch's error texts.
#include "nn/rnn.h"

#include <string>
#include <vector>

#include "autograd/golden_case.h"
#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "nn/nn.h"
#include "tensor/test_util.h"
#include "tensor/warning.h"

namespace torchlet::nn {
namespace {

using testing::all_close;
using testing::gradcheck;
using testing::printed;

constexpr testing::Tolerance kTolerance{1e-9, 1e-11};

class RNNCase : public testing::GoldenCase {
 public:
  explicit RNNCase(std::string name)
      : GoldenCase(testing::golden_file("nn/testdata/rnn_golden.txt"), std::move(name),
                   kFloat64, kTolerance) {}

  /// Binds every parameter of `module` to PyTorch's, by its state_dict name.
  void bind_parameters(Module& module) {
    for (const auto& [name, p] : module.named_parameters()) bind(name, p);
  }

  /// Compares `value` with the stored `<case>.<key>` and returns
  /// sum(value * cot_<key>), a term of the case's loss.
  Variable term(const std::string& key, const Variable& value) const {
    EXPECT_TRUE(all_close(value.data(), stored(key), kTolerance.rtol, kTolerance.atol)) << key;
    return (value * Variable(stored("cot_" + key))).sum();
  }
};

Variable leaf(std::vector<int64_t> shape) { return Variable(randn(shape, kFloat64), true); }

// ---- Against PyTorch --------------------------------------------------------------

void check_lstm(LSTM lstm, const std::string& name, bool with_hx) {
  SCOPED_TRACE(name);
  RNNCase c(name);
  c.bind_parameters(*lstm);
  const Variable x = c.leaf("x");
  auto [output, state] =
      with_hx ? lstm(x, std::make_tuple(c.leaf("h0"), c.leaf("c0"))) : lstm(x);
  auto [h_n, c_n] = state;
  c.check(c.term("output", output) + c.term("h_n", h_n) + c.term("c_n", c_n));
}

TEST(LSTMTest, OutputsAndGradientsMatchPyTorch) {
  check_lstm(LSTM(3, 4), "lstm", false);
  check_lstm(LSTM(LSTMOptions(3, 4).num_layers(2).bidirectional(true)), "lstm_2layer_bidir_hx",
             true);
  check_lstm(LSTM(LSTMOptions(3, 4).batch_first(true).bias(false)), "lstm_batch_first_nobias",
             false);
  check_lstm(LSTM(LSTMOptions(3, 4).num_layers(2)), "lstm_unbatched_hx", true);
}

TEST(LSTMTest, ProjectionMatchesPyTorch) {
  check_lstm(LSTM(LSTMOptions(3, 5).num_layers(2).bidirectional(true).proj_size(2).batch_first(
                 true)),
             "lstm_proj", true);
}

template <typename Layer>
void check_single_state(Layer layer, const std::string& name, bool with_hx) {
  SCOPED_TRACE(name);
  RNNCase c(name);
  c.bind_parameters(*layer);
  const Variable x = c.leaf("x");
  auto [output, h_n] = with_hx ? layer(x, c.leaf("h0")) : layer(x);
  c.check(c.term("output", output) + c.term("h_n", h_n));
}

TEST(GRUTest, OutputsAndGradientsMatchPyTorch) {
  check_single_state(GRU(3, 4), "gru", false);
  check_single_state(GRU(GRUOptions(3, 4).num_layers(2).bidirectional(true)),
                     "gru_2layer_bidir_hx", true);
  check_single_state(GRU(GRUOptions(3, 4).batch_first(true).bias(false)),
                     "gru_batch_first_nobias", false);
  check_single_state(GRU(GRUOptions(3, 4).num_layers(2)), "gru_unbatched_hx", true);
}

TEST(RNNTest, OutputsAndGradientsMatchPyTorch) {
  check_single_state(RNN(3, 4), "rnn", false);
  check_single_state(
      RNN(RNNOptions(3, 4).num_layers(2).bidirectional(true).nonlinearity("relu")),
      "rnn_relu_2layer_bidir_hx", true);
  check_single_state(RNN(RNNOptions(3, 4).batch_first(true).bias(false)),
                     "rnn_batch_first_nobias", false);
  check_single_state(RNN(RNNOptions(3, 4).batch_first(true)), "rnn_unbatched_batch_first",
                     false);
}

template <typename Cell>
void check_cell(Cell cell, const std::string& name, bool with_hx) {
  SCOPED_TRACE(name);
  RNNCase c(name);
  c.bind_parameters(*cell);
  const Variable x = c.leaf("x");
  const Variable h = with_hx ? cell(x, c.leaf("h0")) : cell(x);
  c.check(c.term("h_n", h));
}

TEST(RNNCellTest, CellsMatchPyTorch) {
  check_cell(RNNCell(3, 4), "rnn_cell_hx", true);
  check_cell(RNNCell(RNNCellOptions(3, 4).nonlinearity("relu")), "rnn_cell_relu_unbatched",
             false);
  check_cell(GRUCell(3, 4), "gru_cell_hx", true);
  check_cell(GRUCell(GRUCellOptions(3, 4).bias(false)), "gru_cell_unbatched_nobias", true);
  for (const bool with_hx : {true, false}) {
    const std::string name = with_hx ? "lstm_cell_hx" : "lstm_cell_unbatched_nobias";
    SCOPED_TRACE(name);
    LSTMCell cell(LSTMCellOptions(3, 4).bias(with_hx));
    RNNCase c(name);
    c.bind_parameters(*cell);
    const Variable x = c.leaf("x");
    auto [h, cs] = with_hx ? cell(x, std::make_tuple(c.leaf("h0"), c.leaf("c0"))) : cell(x);
    c.check(c.term("h_n", h) + c.term("c_n", cs));
  }
}

TEST(LSTMTest, LoadsAStateDictSavedByPyTorch) {
  const auto& golden = testing::golden_file("nn/testdata/rnn_golden.txt");
  LSTM lstm(LSTMOptions(3, 4).num_layers(2).bidirectional(true));
  lstm->to(kFloat64);  // loading copies into the parameters, keeping their dtype
  StateDict state;
  for (const std::string& key : lstm->state_dict().keys()) {
    state.insert(key, golden.at("lstm_2layer_bidir_hx.in." + key));
  }
  lstm->load_state_dict(state);
  const std::string c = "lstm_2layer_bidir_hx";
  auto [output, state_n] = lstm(Variable(golden.at(c + ".in.x")),
                                std::make_tuple(Variable(golden.at(c + ".in.h0")),
                                                Variable(golden.at(c + ".in.c0"))));
  EXPECT_TRUE(all_close(output.data(), golden.at(c + ".output"), 1e-9, 1e-11));
  EXPECT_TRUE(all_close(std::get<0>(state_n).data(), golden.at(c + ".h_n"), 1e-9, 1e-11));
  EXPECT_TRUE(all_close(std::get<1>(state_n).data(), golden.at(c + ".c_n"), 1e-9, 1e-11));
}

// ---- Finite differences ------------------------------------------------------------

// The layer's parameters as float64 leaves, after the input leaves.
variable_list with_parameters(Module& module, variable_list inputs) {
  module.to(kFloat64);
  for (const Variable& p : module.parameters()) inputs.push_back(p);
  return inputs;
}

TEST(RNNGradcheckTest, LSTMPassesGradcheck) {
  LSTM lstm(LSTMOptions(2, 3).num_layers(2).bidirectional(true));
  EXPECT_TRUE(gradcheck(
      [&](const variable_list& in) {
        auto [output, state] = lstm(in[0], std::make_tuple(in[1], in[2]));
        return cat({output.reshape({-1}), std::get<0>(state).reshape({-1}),
                    std::get<1>(state).reshape({-1})});
      },
      with_parameters(*lstm, {leaf({3, 2, 2}), leaf({4, 2, 3}), leaf({4, 2, 3})})));
  LSTM proj(LSTMOptions(2, 3).proj_size(1).batch_first(true));
  EXPECT_TRUE(gradcheck(
      [&](const variable_list& in) {
        auto [output, state] = proj(in[0]);
        return cat({output.reshape({-1}), std::get<1>(state).reshape({-1})});
      },
      with_parameters(*proj, {leaf({2, 3, 2})})));
}

TEST(RNNGradcheckTest, GRUAndRNNPassGradcheck) {
  GRU gru(GRUOptions(2, 3).num_layers(2).bidirectional(true));
  EXPECT_TRUE(gradcheck(
      [&](const variable_list& in) {
        auto [output, h_n] = gru(in[0], in[1]);
        return cat({output.reshape({-1}), h_n.reshape({-1})});
      },
      with_parameters(*gru, {leaf({3, 2, 2}), leaf({4, 2, 3})})));
  RNN rnn(RNNOptions(2, 3).num_layers(2).batch_first(true));
  EXPECT_TRUE(gradcheck(
      [&](const variable_list& in) {
        auto [output, h_n] = rnn(in[0], in[1]);
        return cat({output.reshape({-1}), h_n.reshape({-1})});
      },
      with_parameters(*rnn, {leaf({2, 3, 2}), leaf({2, 2, 3})})));
}

TEST(RNNGradcheckTest, CellsPassGradcheck) {
  RNNCell rnn_cell(2, 3);
  EXPECT_TRUE(gradcheck([&](const variable_list& in) { return rnn_cell(in[0], in[1]); },
                        with_parameters(*rnn_cell, {leaf({2, 2}), leaf({2, 3})})));
  GRUCell gru_cell(2, 3);
  EXPECT_TRUE(gradcheck([&](const variable_list& in) { return gru_cell(in[0], in[1]); },
                        with_parameters(*gru_cell, {leaf({2, 2}), leaf({2, 3})})));
  LSTMCell lstm_cell(2, 3);
  EXPECT_TRUE(gradcheck(
      [&](const variable_list& in) {
        auto [h, c] = lstm_cell(in[0], std::make_tuple(in[1], in[2]));
        return cat({h.reshape({-1}), c.reshape({-1})});
      },
      with_parameters(*lstm_cell, {leaf({2, 2}), leaf({2, 3}), leaf({2, 3})})));
}

// ---- Parameters, reprs, options ------------------------------------------------------

TEST(RNNParametersTest, NamesShapesAndOrderArePyTorchs) {
  LSTM lstm(LSTMOptions(3, 4).num_layers(2).bidirectional(true));
  // list(nn.LSTM(3, 4, num_layers=2, bidirectional=True).state_dict()) in 1.13.
  const std::vector<std::string> expected = {
      "weight_ih_l0",         "weight_hh_l0",         "bias_ih_l0",
      "bias_hh_l0",           "weight_ih_l0_reverse", "weight_hh_l0_reverse",
      "bias_ih_l0_reverse",   "bias_hh_l0_reverse",   "weight_ih_l1",
      "weight_hh_l1",         "bias_ih_l1",           "bias_hh_l1",
      "weight_ih_l1_reverse", "weight_hh_l1_reverse", "bias_ih_l1_reverse",
      "bias_hh_l1_reverse"};
  EXPECT_EQ(lstm->state_dict().keys(), expected);
  const StateDict state = lstm->state_dict();
  EXPECT_EQ(state.at("weight_ih_l0").sizes(), IntArrayRef({16, 3}));
  EXPECT_EQ(state.at("weight_hh_l0").sizes(), IntArrayRef({16, 4}));
  EXPECT_EQ(state.at("weight_ih_l1_reverse").sizes(), IntArrayRef({16, 8}));
  EXPECT_EQ(state.at("bias_hh_l1").sizes(), IntArrayRef({16}));
  EXPECT_EQ(lstm->flat_weights().size(), 16u);
  EXPECT_EQ(lstm->all_weights().size(), 4u);

  LSTM proj(LSTMOptions(3, 5).proj_size(2).bias(false));
  EXPECT_EQ(proj->state_dict().keys(),
            (std::vector<std::string>{"weight_ih_l0", "weight_hh_l0", "weight_hr_l0"}));
  EXPECT_EQ(proj->state_dict().at("weight_hh_l0").sizes(), IntArrayRef({20, 2}));
  EXPECT_EQ(proj->state_dict().at("weight_hr_l0").sizes(), IntArrayRef({2, 5}));

  EXPECT_EQ(GRU(3, 4)->state_dict().at("weight_ih_l0").sizes(), IntArrayRef({12, 3}));
  EXPECT_EQ(RNN(3, 4)->state_dict().at("weight_hh_l0").sizes(), IntArrayRef({4, 4}));
  EXPECT_EQ(LSTMCell(3, 4)->state_dict().keys(),
            (std::vector<std::string>{"weight_ih", "weight_hh", "bias_ih", "bias_hh"}));
  EXPECT_EQ(GRUCell(GRUCellOptions(3, 4).bias(false))->state_dict().keys(),
            (std::vector<std::string>{"weight_ih", "weight_hh"}));
  EXPECT_EQ(GRUCell(3, 4)->weight_ih.sizes(), IntArrayRef({12, 3}));
}

TEST(RNNParametersTest, InitIsUniformOnOneOverSqrtHidden) {
  LSTM lstm(LSTMOptions(3, 16).num_layers(2));
  const double bound = 0.25;
  for (const Variable& p : lstm->parameters()) {
    EXPECT_LE(p.data().abs().max().item<double>(), bound);
    EXPECT_GT(p.data().abs().max().item<double>(), 0.2);
  }
  GRUCell cell(3, 4);
  for (const Variable& p : cell->parameters()) {
    EXPECT_LE(p.data().abs().max().item<double>(), 0.5);
  }
}

TEST(RNNReprTest, ReprsArePyTorchs) {
  EXPECT_EQ(printed(LSTM(LSTMOptions(10, 20).num_layers(2).batch_first(true).bidirectional(true))),
            "LSTM(10, 20, num_layers=2, batch_first=True, bidirectional=True)");
  EXPECT_EQ(printed(RNN(3, 4)), "RNN(3, 4)");
  EXPECT_EQ(printed(RNN(RNNOptions(3, 4).nonlinearity("relu").bias(false).dropout(0.5)
                            .num_layers(2))),
            "RNN(3, 4, num_layers=2, bias=False, dropout=0.5)");
  EXPECT_EQ(printed(GRU(GRUOptions(3, 4).bias(false))), "GRU(3, 4, bias=False)");
  EXPECT_EQ(printed(LSTM(LSTMOptions(3, 4).proj_size(2))), "LSTM(3, 4, proj_size=2)");
  EXPECT_EQ(printed(RNNCell(3, 4)), "RNNCell(3, 4)");
  EXPECT_EQ(printed(RNNCell(RNNCellOptions(3, 4).bias(false).nonlinearity("relu"))),
            "RNNCell(3, 4, bias=False, nonlinearity=relu)");
  EXPECT_EQ(printed(LSTMCell(3, 4)), "LSTMCell(3, 4)");
  EXPECT_EQ(printed(GRUCell(GRUCellOptions(3, 4).bias(false))), "GRUCell(3, 4, bias=False)");
}

TEST(RNNOptionsTest, DropoutWithOneLayerWarnsAsPyTorch) {
  std::vector<std::string> warnings;
  {
    WarningHandlerGuard guard([&](const std::string& m) { warnings.push_back(m); });
    LSTM lstm(LSTMOptions(3, 4).dropout(0.25));
    EXPECT_EQ(printed(lstm), "LSTM(3, 4, dropout=0.25)");
    GRU gru(GRUOptions(3, 4).dropout(0.5).num_layers(2));
  }
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
            "expects num_layers greater than 1, but got dropout=0.25 and num_layers=1");
}

TEST(RNNOptionsTest, DropoutAppliesBetweenLayersInTrainingOnly) {
  manual_seed(0);
  GRU gru(GRUOptions(3, 4).num_layers(2).dropout(0.5));
  const Variable x(randn({6, 2, 3}));
  gru->eval();
  const auto [eval1, h1] = gru(x);
  const auto [eval2, h2] = gru(x);
  EXPECT_TRUE(all_close(eval1.data(), eval2.data(), 0, 0));
  gru->train();
  const auto [train, h3] = gru(x);
  EXPECT_FALSE(all_close(train.data(), eval1.data()));
  // Dropout 1 between the layers: the second layer sees zeros.
  GRU all(GRUOptions(3, 4).num_layers(2).dropout(1.0));
  GRU second(GRUOptions(4, 4));
  StateDict layer1;
  for (const std::string& key : second->state_dict().keys()) {
    layer1.insert(key, all->state_dict().at(key.substr(0, key.size() - 1) + "1"));
  }
  second->load_state_dict(layer1);
  const auto [dropped, hd] = all(x);
  const auto [expected, he] = second(Variable(zeros({6, 2, 4})));
  EXPECT_TRUE(all_close(dropped.data(), expected.data()));
}

TEST(RNNOptionsTest, BadOptionsAreRefusedAsPyTorch) {
  EXPECT_THROW_MSG(RNN(RNNOptions(3, 4).nonlinearity("sig")), "Unknown nonlinearity 'sig'");
  EXPECT_THROW_MSG(LSTM(LSTMOptions(3, 4).dropout(1.5)),
                   "dropout should be a number in range [0, 1] representing the probability of "
                   "an element being zeroed");
  EXPECT_THROW_MSG(LSTM(LSTMOptions(3, 4).proj_size(4)),
                   "proj_size has to be smaller than hidden_size");
  EXPECT_THROW_MSG(LSTM(LSTMOptions(3, 4).proj_size(-1)),
                   "proj_size should be a positive integer or zero to disable projections");
  EXPECT_THROW_MSG(GRU(3, 0), "proj_size has to be smaller than hidden_size");
  EXPECT_THROW_MSG(GRU(GRUOptions(3, 4).num_layers(0)), "num_layers must be at least 1, got 0");
  EXPECT_THROW_MSG(RNN(-1, 4), "input_size must be non-negative, got -1");
  EXPECT_THROW_MSG(LSTMCell(3, -2),
                   "input_size and hidden_size must be non-negative, got 3 and -2");
}

// ---- Shapes and errors -------------------------------------------------------------

TEST(RNNShapesTest, OutputShapesArePyTorchs) {
  LSTM lstm(LSTMOptions(3, 5).num_layers(2).bidirectional(true).batch_first(true));
  auto [output, state] = lstm(Variable(randn({2, 7, 3})));
  EXPECT_EQ(output.sizes(), IntArrayRef({2, 7, 10}));
  EXPECT_EQ(std::get<0>(state).sizes(), IntArrayRef({4, 2, 5}));
  EXPECT_EQ(std::get<1>(state).sizes(), IntArrayRef({4, 2, 5}));
  auto [unbatched, ustate] = lstm(Variable(randn({7, 3})));
  EXPECT_EQ(unbatched.sizes(), IntArrayRef({7, 10}));
  EXPECT_EQ(std::get<0>(ustate).sizes(), IntArrayRef({4, 5}));
  auto [gru_out, gru_h] = GRU(3, 5)(Variable(randn({7, 2, 3})));
  EXPECT_EQ(gru_out.sizes(), IntArrayRef({7, 2, 5}));
  EXPECT_EQ(gru_h.sizes(), IntArrayRef({1, 2, 5}));
  EXPECT_EQ(RNNCell(3, 5)(Variable(randn({3}))).sizes(), IntArrayRef({5}));
  auto [empty_batch, estate] = LSTM(3, 4)(Variable(randn({5, 0, 3})));
  EXPECT_EQ(empty_batch.sizes(), IntArrayRef({5, 0, 4}));
  EXPECT_THROW_MSG(LSTM(3, 4)(Variable(randn({0, 2, 3}))),
                   "Expected sequence length to be larger than 0 in RNN");
}

TEST(RNNErrorsTest, WrongInputsAreRefusedAsPyTorch) {
  LSTM lstm(3, 5);
  GRU gru(3, 5);
  RNN rnn(3, 5);
  EXPECT_THROW_MSG(lstm(Variable(randn({2, 4, 4}))),
                   "input.size(-1) must be equal to input_size. Expected 3, got 4");
  EXPECT_THROW_MSG(lstm(Variable(randn({2, 4, 3, 1}))), "input must have 3 dimensions, got 5");
  EXPECT_THROW_MSG(lstm(Variable(randn({4}))), "input must have 3 dimensions, got 2");
  EXPECT_THROW_MSG(rnn(Variable(randn({2, 4, 3, 1}))), "input must have 3 dimensions, got 5");
  EXPECT_THROW_MSG(rnn(Variable(randn({2, 4, 3})), Variable(randn({1, 3, 5}))),
                   "Expected hidden size (1, 4, 5), got [1, 3, 5]");
  EXPECT_THROW_MSG(gru(Variable(randn({2, 4, 3})), Variable(randn({1, 3, 5}))),
                   "Expected hidden size (1, 4, 5), got [1, 3, 5]");
  EXPECT_THROW_MSG(rnn(Variable(randn({2, 4, 3})), Variable(randn({4, 5}))),
                   "For batched 3-D input, hx should also be 3-D but got 2-D tensor");
  EXPECT_THROW_MSG(rnn(Variable(randn({4, 3})), Variable(randn({1, 1, 5}))),
                   "For unbatched 2-D input, hx should also be 2-D but got 3-D tensor");
  EXPECT_THROW_MSG(lstm(Variable(randn({2, 4, 3})),
                        std::make_tuple(Variable(randn({1, 3, 5})), Variable(randn({1, 4, 5})))),
                   "Expected hidden[0] size (1, 4, 5), got [1, 3, 5]");
  EXPECT_THROW_MSG(lstm(Variable(randn({2, 4, 3})),
                        std::make_tuple(Variable(randn({1, 4, 5})), Variable(randn({1, 3, 5})))),
                   "Expected hidden[1] size (1, 4, 5), got [1, 3, 5]");
  EXPECT_THROW_MSG(lstm(Variable(randn({2, 4, 3})),
                        std::make_tuple(Variable(randn({4, 5})), Variable(randn({4, 5})))),
                   "For batched 3-D input, hx and cx should also be 3-D but got (2-D, 2-D) "
                   "tensors");
  EXPECT_THROW_MSG(lstm(Variable(randn({4, 3})),
                        std::make_tuple(Variable(randn({1, 5})), Variable(randn({5})))),
                   "For unbatched 2-D input, hx and cx should also be 2-D but got (2-D, 1-D) "
                   "tensors");
  EXPECT_THROW_MSG(RNN(RNNOptions(3, 5).batch_first(true))(Variable(randn({2, 4, 3})),
                                                           Variable(randn({1, 3, 5}))),
                   "Expected hidden size (1, 2, 5), got [1, 3, 5]");
  EXPECT_THROW_MSG(RNN(RNNOptions(3, 5).num_layers(2).bidirectional(true))(
                       Variable(randn({2, 4, 3})), Variable(randn({1, 4, 5}))),
                   "Expected hidden size (4, 4, 5), got [1, 4, 5]");
  EXPECT_THROW_MSG(LSTM(LSTMOptions(3, 5).proj_size(2))(
                       Variable(randn({2, 4, 3})),
                       std::make_tuple(Variable(randn({1, 4, 5})), Variable(randn({1, 4, 5})))),
                   "Expected hidden[0] size (1, 4, 2), got [1, 4, 5]");
  EXPECT_THROW_MSG(lstm(Variable(randn({2, 4, 3})), std::make_tuple(Variable(), Variable())),
                   "LSTM: hx and cx must both be defined");
}

TEST(RNNErrorsTest, WrongCellInputsAreRefusedAsPyTorch) {
  RNNCell rnn(3, 5);
  LSTMCell lstm(3, 5);
  GRUCell gru(3, 5);
  EXPECT_THROW_MSG(rnn(Variable(randn({2, 4}))),
                   "input has inconsistent input_size: got 4 expected 3");
  EXPECT_THROW_MSG(rnn(Variable(randn({2, 3})), Variable(randn({3, 5}))),
                   "Input batch size 2 doesn't match hidden0 batch size 3");
  EXPECT_THROW_MSG(rnn(Variable(randn({2, 3})), Variable(randn({2, 4}))),
                   "hidden0 has inconsistent hidden_size: got 4, expected 5");
  EXPECT_THROW_MSG(rnn(Variable(randn({3})), Variable(randn({2, 5}))),
                   "hidden0 has inconsistent hidden_size: got 2, expected 5");
  EXPECT_THROW_MSG(rnn(Variable(randn({2, 3})), Variable(randn({5}))),
                   "Input batch size 2 doesn't match hidden0 batch size 5");
  EXPECT_THROW_MSG(rnn(Variable(randn({2, 2, 3}))),
                   "RNNCell: Expected input to be 1-D or 2-D but received 3-D tensor");
  EXPECT_THROW_MSG(lstm(Variable(randn({2, 3})),
                        std::make_tuple(Variable(randn({3, 5})), Variable(randn({2, 5})))),
                   "Input batch size 2 doesn't match hidden0 batch size 3");
  EXPECT_THROW_MSG(lstm(Variable(randn({2, 3})),
                        std::make_tuple(Variable(randn({2, 5})), Variable(randn({2, 4})))),
                   "hidden0 has inconsistent hidden_size: got 4, expected 5");
  EXPECT_THROW_MSG(lstm(Variable(randn({2, 4}))),
                   "input has inconsistent input_size: got 4 expected 3");
  EXPECT_THROW_MSG(gru(Variable(randn({2, 3})), Variable(randn({3, 5}))),
                   "Input batch size 2 doesn't match hidden0 batch size 3");
  EXPECT_THROW_MSG(gru(Variable(randn({2, 2, 3}))),
                   "GRUCell: Expected input to be 1-D or 2-D but received 3-D tensor");
  EXPECT_THROW_MSG(RNNCell(RNNCellOptions(3, 4).nonlinearity("x"))(Variable(randn({2, 3}))),
                   "Unknown nonlinearity: x");
  EXPECT_THROW_MSG(lstm(Variable(randn({2, 3})),
                        std::make_tuple(Variable(randn({2, 5})), Variable())),
                   "LSTMCell: hx and cx must both be defined");
}

TEST(RNNModuleTest, CloneCopiesParametersAndHooksSeeTheOutputs) {
  LSTM lstm(LSTMOptions(3, 4).num_layers(2));
  auto copy = std::dynamic_pointer_cast<LSTMImpl>(lstm->clone());
  ASSERT_NE(copy, nullptr);
  const Variable x(randn({5, 2, 3}));
  auto [a, sa] = lstm(x);
  auto [b, sb] = (*copy).forward(x);
  EXPECT_TRUE(all_close(a.data(), b.data(), 0, 0));
  copy->flat_weights()[0].set_data(zeros({16, 3}));
  EXPECT_NE(lstm->flat_weights()[0].data().abs().sum().item<double>(), 0);
  int calls = 0;
  // A hook takes the inputs of the call it fits (Note [Calling a module]).
  lstm->register_forward_hook(
      [&](Module&, const Variable&, std::tuple<Variable, std::tuple<Variable, Variable>>& out) {
        ++calls;
        std::get<0>(out) = std::get<0>(out) * 2;
      });
  auto [doubled, sd] = lstm(x);
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(all_close(doubled.data(), a.data() * 2));
}

}  // namespace
}  // namespace torchlet::nn
