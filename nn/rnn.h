#pragma once

// Recurrent layers: RNN, LSTM, GRU and their cells (torch.nn.RNN, ...),
// with libtorch-style options; the layers also take a PackedSequence
// (nn/utils/rnn.h). See Note [Recurrent layers] in nn/rnn.cc.

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/utils/rnn.h"

namespace torchlet::nn {

namespace detail {

/// What the multi-layer layers' options share (PyTorch's RNNBase
/// arguments); `mode` is "RNN_TANH", "RNN_RELU", "LSTM" or "GRU".
struct RNNOptionsBase {
  RNNOptionsBase(std::string mode, int64_t input_size, int64_t hidden_size)
      : mode_(std::move(mode)), input_size_(input_size), hidden_size_(hidden_size) {}
  std::string mode_;
  int64_t input_size_;
  int64_t hidden_size_;
  int64_t num_layers_ = 1;
  bool bias_ = true;
  bool batch_first_ = false;
  double dropout_ = 0.0;
  bool bidirectional_ = false;
  int64_t proj_size_ = 0;
};

}  // namespace detail

// The chained setters every multi-layer options struct has.
#define TORCHLET_RNN_OPTION_SETTERS(Options)                                 \
  Options& num_layers(int64_t v) { num_layers_ = v; return *this; }          \
  Options& bias(bool v) { bias_ = v; return *this; }                         \
  /** input and output [batch, seq, feature] instead of [seq, batch, ...]. */ \
  Options& batch_first(bool v) { batch_first_ = v; return *this; }           \
  /** Dropout on the outputs of all but the last layer, in training. */      \
  Options& dropout(double v) { dropout_ = v; return *this; }                 \
  Options& bidirectional(bool v) { bidirectional_ = v; return *this; }       \
  int64_t input_size_;                                                       \
  int64_t hidden_size_;                                                      \
  int64_t num_layers_ = 1;                                                   \
  bool bias_ = true;                                                         \
  bool batch_first_ = false;                                                 \
  double dropout_ = 0.0;                                                     \
  bool bidirectional_ = false

/// torch.nn.RNN's arguments; nonlinearity is "tanh" or "relu".
struct RNNOptions {
  RNNOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  RNNOptions& nonlinearity(std::string v) { nonlinearity_ = std::move(v); return *this; }
  TORCHLET_RNN_OPTION_SETTERS(RNNOptions);
  std::string nonlinearity_ = "tanh";
};

/// torch.nn.LSTM's arguments; proj_size > 0 projects h to proj_size.
struct LSTMOptions {
  LSTMOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  LSTMOptions& proj_size(int64_t v) { proj_size_ = v; return *this; }
  TORCHLET_RNN_OPTION_SETTERS(LSTMOptions);
  int64_t proj_size_ = 0;
};

/// torch.nn.GRU's arguments.
struct GRUOptions {
  GRUOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  TORCHLET_RNN_OPTION_SETTERS(GRUOptions);
};

#undef TORCHLET_RNN_OPTION_SETTERS

/// What RNN, LSTM and GRU share (PyTorch's RNNBase): the checks of the
/// options, the parameters weight_ih_l{k}{_reverse}, weight_hh_l{k}...,
/// bias_ih_l{k}..., bias_hh_l{k}... (and weight_hr_l{k}... for an LSTM with
/// proj_size), registered in PyTorch's order and drawn uniform on
/// ±1/sqrt(hidden_size), and the repr.
template <typename Derived>
class RNNImplBase : public Cloneable<Derived> {
 public:
  void reset() override;
  /// Draws new weights (PyTorch's reset_parameters).
  void reset_parameters();
  std::string extra_repr() const override;
  const detail::RNNOptionsBase& base_options() const { return options_base_; }
  /// The parameters in registration (state_dict) order: per layer and
  /// direction, w_ih, w_hh[, b_ih, b_hh][, w_hr] (PyTorch's _flat_weights).
  const std::vector<Parameter>& flat_weights() const { return flat_weights_; }
  /// The parameters of each layer and direction (PyTorch's all_weights).
  std::vector<std::vector<Parameter>> all_weights() const;

 protected:
  explicit RNNImplBase(detail::RNNOptionsBase options);
  /// Runs the layers on time-major (or batch_first) 3-D `input` from hx
  /// (and cx for an LSTM), both [num_layers * num_directions, batch, *];
  /// returns output, h_n and c_n (undefined but for an LSTM). With
  /// `batch_sizes`, input and output are a PackedSequence's data (Note
  /// [Packed input]) and the states are in its sorted order.
  std::tuple<Variable, Variable, Variable> run(const Variable& input, const Variable& hx,
                                               const Variable& cx,
                                               const std::vector<int64_t>* batch_sizes = nullptr);
  /// forward_with_packed_input's common part: the checks, the default
  /// states, the states permuted into the packed order and back, and run().
  /// cx is for an LSTM only. Returns the output, h_n and c_n.
  std::tuple<utils::rnn::PackedSequence, Variable, Variable> run_packed(
      const utils::rnn::PackedSequence& input, Variable hx, Variable cx);
  /// PyTorch's check_input (3-D input, or 2-D packed data) and the
  /// hidden-size checks for a batch of `batch`.
  void check_input(const Variable& input, int64_t expected_dim = 3) const;
  void check_hidden_size(const Variable& hx, int64_t last, const char* what,
                         int64_t batch) const;
  /// RNN's and GRU's forward: unbatched input and hx, the default hx, the
  /// checks, then run().
  std::tuple<Variable, Variable> forward_single_state(const Variable& input, const Variable& hx);

  detail::RNNOptionsBase options_base_;
  std::vector<Parameter> flat_weights_;
  std::vector<std::string> flat_weights_names_;
};

/// A multi-layer Elman RNN (torch.nn.RNN): h_t = tanh or relu(x_t W_ihᵀ +
/// b_ih + h_{t-1} W_hhᵀ + b_hh).
class RNNImpl : public RNNImplBase<RNNImpl> {
 public:
  explicit RNNImpl(const RNNOptions& options);
  RNNImpl(int64_t input_size, int64_t hidden_size) : RNNImpl(RNNOptions(input_size, hidden_size)) {}
  /// input [seq, batch, input_size] ([batch, seq, ...] when batch_first) or
  /// unbatched [seq, input_size]; hx [num_layers * num_directions, batch,
  /// hidden_size] (unbatched: without batch), zeros when undefined. Returns
  /// output [seq, batch, num_directions * hidden_size] and h_n (hx's shape).
  std::tuple<Variable, Variable> forward(const Variable& input, const Variable& hx = {});
  /// forward on a PackedSequence (libtorch's name; hooks do not run): hx as
  /// forward's, in the order of the sequences before packing. Returns the
  /// output as a PackedSequence like the input and h_n, each sequence's
  /// state after its own last step, in that order.
  std::tuple<utils::rnn::PackedSequence, Variable> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, const Variable& hx = {});
  const RNNOptions& options() const { return options_; }

 private:
  RNNOptions options_;
};
TORCHLET_MODULE(RNN);

/// A multi-layer long short-term memory RNN (torch.nn.LSTM), gates i, f, g, o.
class LSTMImpl : public RNNImplBase<LSTMImpl> {
 public:
  explicit LSTMImpl(const LSTMOptions& options);
  LSTMImpl(int64_t input_size, int64_t hidden_size)
      : LSTMImpl(LSTMOptions(input_size, hidden_size)) {}
  /// input as RNN's; hx = (h_0, c_0), zeros when absent, h_0 [num_layers *
  /// num_directions, batch, proj_size or hidden_size], c_0 [..., hidden_size].
  /// Returns output and (h_n, c_n).
  std::tuple<Variable, std::tuple<Variable, Variable>> forward(
      const Variable& input, std::optional<std::tuple<Variable, Variable>> hx = std::nullopt);
  /// forward on a PackedSequence, as RNN's: returns the packed output and
  /// (h_n, c_n).
  std::tuple<utils::rnn::PackedSequence, std::tuple<Variable, Variable>>
  forward_with_packed_input(const utils::rnn::PackedSequence& packed_input,
                            std::optional<std::tuple<Variable, Variable>> hx = std::nullopt);
  const LSTMOptions& options() const { return options_; }

 private:
  LSTMOptions options_;
};
TORCHLET_MODULE(LSTM);

/// A multi-layer gated recurrent unit RNN (torch.nn.GRU), gates r, z, n with
/// n = tanh(W_in x + b_in + r * (W_hn h + b_hn)).
class GRUImpl : public RNNImplBase<GRUImpl> {
 public:
  explicit GRUImpl(const GRUOptions& options);
  GRUImpl(int64_t input_size, int64_t hidden_size) : GRUImpl(GRUOptions(input_size, hidden_size)) {}
  /// As RNN's forward.
  std::tuple<Variable, Variable> forward(const Variable& input, const Variable& hx = {});
  /// As RNN's forward_with_packed_input.
  std::tuple<utils::rnn::PackedSequence, Variable> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, const Variable& hx = {});
  const GRUOptions& options() const { return options_; }

 private:
  GRUOptions options_;
};
TORCHLET_MODULE(GRU);

/// torch.nn.RNNCell's arguments; nonlinearity is "tanh" or "relu".
struct RNNCellOptions {
  RNNCellOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  RNNCellOptions& bias(bool v) { bias_ = v; return *this; }
  RNNCellOptions& nonlinearity(std::string v) { nonlinearity_ = std::move(v); return *this; }
  int64_t input_size_;
  int64_t hidden_size_;
  bool bias_ = true;
  std::string nonlinearity_ = "tanh";
};

/// torch.nn.LSTMCell's and GRUCell's arguments.
struct LSTMCellOptions {
  LSTMCellOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  LSTMCellOptions& bias(bool v) { bias_ = v; return *this; }
  int64_t input_size_;
  int64_t hidden_size_;
  bool bias_ = true;
};
using GRUCellOptions = LSTMCellOptions;

/// What the cells share (PyTorch's RNNCellBase): weight_ih [chunks *
/// hidden, input], weight_hh [chunks * hidden, hidden], bias_ih and bias_hh
/// [chunks * hidden], drawn uniform on ±1/sqrt(hidden_size).
template <typename Derived>
class RNNCellImplBase : public Cloneable<Derived> {
 public:
  void reset() override;
  /// Draws new weights (PyTorch's reset_parameters).
  void reset_parameters();
  std::string extra_repr() const override;

  Parameter weight_ih;
  Parameter weight_hh;
  /// Undefined when constructed with bias(false).
  Parameter bias_ih;
  Parameter bias_hh;

 protected:
  RNNCellImplBase(int64_t input_size, int64_t hidden_size, bool bias, int64_t num_chunks,
                  std::string nonlinearity);
  /// Checks input (1-D or 2-D) and makes it and hx batched; returns whether
  /// input was batched. `name` is the class name in the message.
  bool prepare(const char* name, Variable& input, Variable* hx, Variable* cx) const;

  int64_t input_size_;
  int64_t hidden_size_;
  bool bias_;
  int64_t num_chunks_;
  std::string nonlinearity_;  // "" but for RNNCell
};

/// An Elman RNN cell (torch.nn.RNNCell).
class RNNCellImpl : public RNNCellImplBase<RNNCellImpl> {
 public:
  explicit RNNCellImpl(const RNNCellOptions& options);
  RNNCellImpl(int64_t input_size, int64_t hidden_size)
      : RNNCellImpl(RNNCellOptions(input_size, hidden_size)) {}
  /// input [batch, input_size] or [input_size]; hx [batch, hidden_size] (or
  /// [hidden_size]), zeros when undefined. Returns h'.
  Variable forward(const Variable& input, const Variable& hx = {});
};
TORCHLET_MODULE(RNNCell);

/// An LSTM cell (torch.nn.LSTMCell).
class LSTMCellImpl : public RNNCellImplBase<LSTMCellImpl> {
 public:
  explicit LSTMCellImpl(const LSTMCellOptions& options);
  LSTMCellImpl(int64_t input_size, int64_t hidden_size)
      : LSTMCellImpl(LSTMCellOptions(input_size, hidden_size)) {}
  /// hx = (h, c), zeros when absent. Returns (h', c').
  std::tuple<Variable, Variable> forward(
      const Variable& input, std::optional<std::tuple<Variable, Variable>> hx = std::nullopt);
};
TORCHLET_MODULE(LSTMCell);

/// A GRU cell (torch.nn.GRUCell).
class GRUCellImpl : public RNNCellImplBase<GRUCellImpl> {
 public:
  explicit GRUCellImpl(const GRUCellOptions& options);
  GRUCellImpl(int64_t input_size, int64_t hidden_size)
      : GRUCellImpl(GRUCellOptions(input_size, hidden_size)) {}
  /// As RNNCell's forward.
  Variable forward(const Variable& input, const Variable& hx = {});
};
TORCHLET_MODULE(GRUCell);

}  // namespace torchlet::nn
