#include "nn/rnn.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "autograd/functions.h"
#include "nn/functional/dropout.h"
#include "nn/functional/linear.h"
#include "nn/init.h"
#include "nn/repr.h"
#include "tensor/warning.h"

namespace torchlet::nn {

// Note [Recurrent layers]
// ~~~~~~~~~~~~~~~~~~~~~~~
// The layers compose differentiable ops, so autograd gives their gradients
// (no backward of their own). Per layer and direction, the input projection
// of every time step is one linear over [seq * batch, features] (with b_hh
// folded into it for RNN and LSTM, whose b_hh is only ever added); each step
// then adds h W_hhᵀ (one addmm) and applies the cell. GRU keeps b_hh apart:
// its n gate is tanh(W_in x + b_in + r * (W_hn h + b_hn)). The reverse
// direction walks the steps backwards and writes each output at its own
// step. Between layers (not after the last) the outputs go through dropout
// in training. The checks and their messages, and the handling of unbatched
// input (unsqueezed, then squeezed back), follow PyTorch 1.13's Python code,
// including the order in which they fire.

// Note [Packed input]
// ~~~~~~~~~~~~~~~~~~~
// A PackedSequence's data holds step t's rows for the batch_sizes[t]
// longest sequences, one after another, so the input projection is still
// one linear over all of data, split into the steps by batch_sizes. The
// states are in the packed (sorted) order, longest sequence first. Going
// forward, when a step has fewer rows than the last, the state rows of the
// sequences that ended are set aside as their final states and the rest run
// on; the final state is the running rows followed by those set aside, last
// first. Going backward, each sequence starts from its own initial state at
// its own last step: when a step has more rows than the one after it, the
// initial states of the sequences that start there join the running rows,
// and the state after step 0 is the final one. Each step's output rows are
// exactly its rows of data, so the output is the steps' outputs
// concatenated, the directions side by side. The caller permutes the
// initial states into the packed order and the final ones back (PyTorch's
// permute_hidden); without sorted indices the order is the input's.

namespace {

namespace F = functional;

// One LSTM step from the input projection gx (biases included unless b_hh
// is given): (h', c').
std::pair<Variable, Variable> lstm_step(const Variable& gx, const Variable& h, const Variable& c,
                                        const Variable& w_hh, const Variable& b_hh) {
  const Variable gates = b_hh.defined() ? gx + F::linear(h, w_hh, b_hh) : addmm(gx, h, w_hh.t());
  const std::vector<Variable> g = gates.chunk(4, 1);
  const Variable c_next = g[1].sigmoid() * c + g[0].sigmoid() * g[2].tanh();
  return {g[3].sigmoid() * c_next.tanh(), c_next};
}

// One GRU step from the input projection gx (b_ih included).
Variable gru_step(const Variable& gx, const Variable& h, const Variable& w_hh,
                  const Variable& b_hh) {
  const std::vector<Variable> gi = gx.chunk(3, 1);
  const std::vector<Variable> gh = F::linear(h, w_hh, b_hh).chunk(3, 1);
  const Variable r = (gi[0] + gh[0]).sigmoid();
  const Variable z = (gi[1] + gh[1]).sigmoid();
  const Variable n = (gi[2] + r * gh[2]).tanh();
  return n + z * (h - n);
}

// One Elman step from the input projection gx (biases included unless b_hh
// is given).
Variable rnn_step(const Variable& gx, const Variable& h, const Variable& w_hh,
                  const Variable& b_hh, bool relu) {
  const Variable pre = b_hh.defined() ? gx + F::linear(h, w_hh, b_hh) : addmm(gx, h, w_hh.t());
  return relu ? pre.relu() : pre.tanh();
}

int64_t gate_multiplier(const std::string& mode) {
  if (mode == "LSTM") return 4;
  if (mode == "GRU") return 3;
  return 1;
}

// PyTorch's RNNBase.__init__ checks, in its order.
void check_options(const detail::RNNOptionsBase& o) {
  TORCHLET_CHECK(o.dropout_ >= 0 && o.dropout_ <= 1,
                 "dropout should be a number in range [0, 1] representing the probability of an "
                 "element being zeroed");
  if (o.dropout_ > 0 && o.num_layers_ == 1) {
    warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
         "expects num_layers greater than 1, but got dropout=" +
         detail::float_repr(o.dropout_) + " and num_layers=" + std::to_string(o.num_layers_));
  }
  TORCHLET_CHECK(o.proj_size_ >= 0,
                 "proj_size should be a positive integer or zero to disable projections");
  TORCHLET_CHECK(o.proj_size_ < o.hidden_size_, "proj_size has to be smaller than hidden_size");
  // PyTorch fails later (IndexError: list index out of range).
  TORCHLET_CHECK(o.num_layers_ >= 1, "num_layers must be at least 1, got ", o.num_layers_);
  TORCHLET_CHECK(o.input_size_ >= 0, "input_size must be non-negative, got ", o.input_size_);
}

template <typename Options>
detail::RNNOptionsBase to_base(std::string mode, const Options& o) {
  detail::RNNOptionsBase base(std::move(mode), o.input_size_, o.hidden_size_);
  base.num_layers_ = o.num_layers_;
  base.bias_ = o.bias_;
  base.batch_first_ = o.batch_first_;
  base.dropout_ = o.dropout_;
  base.bidirectional_ = o.bidirectional_;
  return base;
}

std::string rnn_mode(const std::string& nonlinearity) {
  if (nonlinearity == "tanh") return "RNN_TANH";
  TORCHLET_CHECK(nonlinearity == "relu", "Unknown nonlinearity '", nonlinearity, "'");
  return "RNN_RELU";
}

detail::RNNOptionsBase lstm_base(const LSTMOptions& o) {
  detail::RNNOptionsBase base = to_base("LSTM", o);
  base.proj_size_ = o.proj_size_;
  return base;
}

}  // namespace

// ---- RNNImplBase ----------------------------------------------------------------

template <typename Derived>
RNNImplBase<Derived>::RNNImplBase(detail::RNNOptionsBase options)
    : options_base_(std::move(options)) {
  check_options(options_base_);
  reset();
}

template <typename Derived>
void RNNImplBase<Derived>::reset() {
  const detail::RNNOptionsBase& o = options_base_;
  const int64_t gate_size = gate_multiplier(o.mode_) * o.hidden_size_;
  const int64_t num_directions = o.bidirectional_ ? 2 : 1;
  const int64_t real_hidden = o.proj_size_ > 0 ? o.proj_size_ : o.hidden_size_;
  flat_weights_.clear();
  flat_weights_names_.clear();
  auto add = [this](std::string name, SizeVec shape) {
    flat_weights_.push_back(this->register_parameter(name, torchlet::empty(shape)));
    flat_weights_names_.push_back(std::move(name));
  };
  for (int64_t layer = 0; layer < o.num_layers_; ++layer) {
    for (int64_t direction = 0; direction < num_directions; ++direction) {
      const int64_t layer_input = layer == 0 ? o.input_size_ : real_hidden * num_directions;
      const std::string suffix = std::to_string(layer) + (direction == 1 ? "_reverse" : "");
      add("weight_ih_l" + suffix, {gate_size, layer_input});
      add("weight_hh_l" + suffix, {gate_size, real_hidden});
      if (o.bias_) {
        add("bias_ih_l" + suffix, {gate_size});
        add("bias_hh_l" + suffix, {gate_size});
      }
      if (o.proj_size_ > 0) add("weight_hr_l" + suffix, {o.proj_size_, o.hidden_size_});
    }
  }
  reset_parameters();
}

template <typename Derived>
void RNNImplBase<Derived>::reset_parameters() {
  const int64_t hidden = options_base_.hidden_size_;
  const double stdv = hidden > 0 ? 1.0 / std::sqrt(static_cast<double>(hidden)) : 0;
  for (Parameter& weight : flat_weights_) init::uniform_(weight, -stdv, stdv);
}

template <typename Derived>
std::vector<std::vector<Parameter>> RNNImplBase<Derived>::all_weights() const {
  const detail::RNNOptionsBase& o = options_base_;
  const size_t groups = static_cast<size_t>(o.num_layers_ * (o.bidirectional_ ? 2 : 1));
  const size_t per = flat_weights_.size() / groups;
  std::vector<std::vector<Parameter>> out;
  for (size_t g = 0; g < groups; ++g) {
    out.emplace_back(flat_weights_.begin() + g * per, flat_weights_.begin() + (g + 1) * per);
  }
  return out;
}

template <typename Derived>
std::string RNNImplBase<Derived>::extra_repr() const {
  const detail::RNNOptionsBase& o = options_base_;
  std::string s = std::to_string(o.input_size_) + ", " + std::to_string(o.hidden_size_);
  if (o.proj_size_ != 0) s += ", proj_size=" + std::to_string(o.proj_size_);
  if (o.num_layers_ != 1) s += ", num_layers=" + std::to_string(o.num_layers_);
  if (!o.bias_) s += ", bias=False";
  if (o.batch_first_) s += ", batch_first=True";
  if (o.dropout_ != 0) s += ", dropout=" + detail::float_repr(o.dropout_);
  if (o.bidirectional_) s += ", bidirectional=True";
  return s;
}

template <typename Derived>
void RNNImplBase<Derived>::check_input(const Variable& input, int64_t expected_dim) const {
  TORCHLET_CHECK(input.dim() == expected_dim, "input must have ", expected_dim,
                 " dimensions, got ", input.dim());
  TORCHLET_CHECK(options_base_.input_size_ == input.size(-1),
                 "input.size(-1) must be equal to input_size. Expected ",
                 options_base_.input_size_, ", got ", input.size(-1));
}

template <typename Derived>
void RNNImplBase<Derived>::check_hidden_size(const Variable& hx, int64_t last, const char* what,
                                             int64_t batch) const {
  const detail::RNNOptionsBase& o = options_base_;
  const SizeVec expected = {o.num_layers_ * (o.bidirectional_ ? 2 : 1), batch, last};
  TORCHLET_CHECK(hx.sizes() == IntArrayRef(expected), "Expected ", what, " size ",
                 detail::tuple_repr(expected), ", got ", shape_str(hx.sizes()));
}

template <typename Derived>
std::tuple<Variable, Variable, Variable> RNNImplBase<Derived>::run(
    const Variable& input_in, const Variable& hx, const Variable& cx,
    const std::vector<int64_t>* batch_sizes) {
  const detail::RNNOptionsBase& o = options_base_;
  const bool lstm = o.mode_ == "LSTM";
  const bool gru = o.mode_ == "GRU";
  const bool relu = o.mode_ == "RNN_RELU";
  const int64_t num_directions = o.bidirectional_ ? 2 : 1;
  const size_t per = flat_weights_.size() / static_cast<size_t>(o.num_layers_ * num_directions);
  // Packed input (Note [Packed input]): data [rows, features], the steps'
  // row counts in batch_sizes.
  const bool packed = batch_sizes != nullptr;
  const Variable input = o.batch_first_ && !packed ? input_in.transpose(0, 1) : input_in;
  const int64_t steps = packed ? static_cast<int64_t>(batch_sizes->size()) : input.size(0);
  const int64_t batch = packed ? 0 : input.size(1);
  TORCHLET_CHECK(steps > 0, "Expected sequence length to be larger than 0 in RNN");

  std::vector<Variable> h_n, c_n;
  Variable layer_input = input;
  for (int64_t layer = 0; layer < o.num_layers_; ++layer) {
    std::vector<Variable> direction_outputs;
    for (int64_t direction = 0; direction < num_directions; ++direction) {
      const int64_t index = layer * num_directions + direction;
      const Parameter* w = &flat_weights_[static_cast<size_t>(index) * per];
      const Variable& w_ih = w[0];
      const Variable& w_hh = w[1];
      Variable b_ih, b_hh;
      if (o.bias_) {
        b_ih = w[2];
        b_hh = w[3];
      }
      const Variable w_hr = o.proj_size_ > 0 ? Variable(w[per - 1]) : Variable();
      // The input projection of every step at once (Note [Recurrent layers]).
      const Variable in_bias = (o.bias_ && !gru) ? b_ih + b_hh : b_ih;
      // unbind (or split), not select per step: its backward writes every
      // step's gradient into one tensor, where each select's would be a
      // zero tensor of the whole projection (quadratic in the sequence
      // length).
      const std::vector<Variable> projected_steps =
          packed ? F::linear(layer_input, w_ih, in_bias).split_with_sizes(*batch_sizes, 0)
                 : F::linear(layer_input.reshape({steps * batch, layer_input.size(2)}), w_ih,
                             in_bias)
                       .view({steps, batch, w_ih.size(0)})
                       .unbind(0);
      const Variable h0 = hx.select(0, index);
      const Variable c0 = lstm ? cx.select(0, index) : Variable();
      Variable h = h0;
      Variable c = c0;
      // Packed: the final states of the sequences that ended, forward.
      std::vector<Variable> h_ended, c_ended;
      if (packed && direction == 1) {
        h = h0.narrow(0, 0, batch_sizes->back());
        if (lstm) c = c0.narrow(0, 0, batch_sizes->back());
      }
      std::vector<Variable> outputs(static_cast<size_t>(steps));
      for (int64_t s = 0; s < steps; ++s) {
        const int64_t t = direction == 0 ? s : steps - 1 - s;
        const Variable& gx = projected_steps[static_cast<size_t>(t)];
        if (packed) {
          const int64_t rows = (*batch_sizes)[static_cast<size_t>(t)];
          const int64_t running = h.size(0);
          if (rows < running) {
            h_ended.push_back(h.narrow(0, rows, running - rows));
            h = h.narrow(0, 0, rows);
            if (lstm) {
              c_ended.push_back(c.narrow(0, rows, running - rows));
              c = c.narrow(0, 0, rows);
            }
          } else if (rows > running) {
            h = cat({h, h0.narrow(0, running, rows - running)}, 0);
            if (lstm) c = cat({c, c0.narrow(0, running, rows - running)}, 0);
          }
        }
        if (lstm) {
          std::tie(h, c) = lstm_step(gx, h, c, w_hh, Variable());
          if (w_hr.defined()) h = mm(h, w_hr.t());
        } else if (gru) {
          h = gru_step(gx, h, w_hh, b_hh);
        } else {
          h = rnn_step(gx, h, w_hh, Variable(), relu);
        }
        outputs[static_cast<size_t>(t)] = h;
      }
      if (!h_ended.empty()) {
        h_ended.push_back(h);
        std::reverse(h_ended.begin(), h_ended.end());
        h = cat(h_ended, 0);
        if (lstm) {
          c_ended.push_back(c);
          std::reverse(c_ended.begin(), c_ended.end());
          c = cat(c_ended, 0);
        }
      }
      h_n.push_back(h);
      if (lstm) c_n.push_back(c);
      direction_outputs.push_back(packed ? cat(outputs, 0) : stack(outputs, 0));
    }
    layer_input = num_directions == 2 ? cat(direction_outputs, packed ? 1 : 2)
                                      : direction_outputs[0];
    if (o.dropout_ > 0 && this->is_training() && layer + 1 < o.num_layers_) {
      layer_input = F::dropout(layer_input, o.dropout_, true);
    }
  }
  const Variable output = o.batch_first_ && !packed ? layer_input.transpose(0, 1) : layer_input;
  return {output, stack(h_n, 0), lstm ? stack(c_n, 0) : Variable()};
}

template <typename Derived>
std::tuple<utils::rnn::PackedSequence, Variable, Variable> RNNImplBase<Derived>::run_packed(
    const utils::rnn::PackedSequence& input, Variable hx, Variable cx) {
  const detail::RNNOptionsBase& o = options_base_;
  const bool lstm = o.mode_ == "LSTM";
  TORCHLET_CHECK(input.defined(), o.mode_ == "GRU" ? "GRU" : lstm ? "LSTM" : "RNN",
                 ": the PackedSequence input is undefined");
  const Variable& data = input.data();
  const std::vector<int64_t> batch_sizes = input.batch_sizes().to_vector<int64_t>();
  const int64_t batch = batch_sizes.front();
  const int64_t layers = o.num_layers_ * (o.bidirectional_ ? 2 : 1);
  const int64_t real_hidden = o.proj_size_ > 0 ? o.proj_size_ : o.hidden_size_;
  if (!hx.defined()) hx = Variable(zeros({layers, batch, real_hidden}, data.options()));
  if (lstm && !cx.defined()) cx = Variable(zeros({layers, batch, o.hidden_size_}, data.options()));
  check_input(data, 2);
  check_hidden_size(hx, real_hidden, lstm ? "hidden[0]" : "hidden", batch);
  if (lstm) check_hidden_size(cx, o.hidden_size_, "hidden[1]", batch);
  // PyTorch's permute_hidden: each sequence's state into its packed column.
  const Tensor& sorted = input.sorted_indices();
  if (sorted.defined()) {
    hx = hx.index_select(1, sorted);
    if (lstm) cx = cx.index_select(1, sorted);
  }
  auto [output, h_n, c_n] = run(data, hx, cx, &batch_sizes);
  const Tensor& unsorted = input.unsorted_indices();
  if (unsorted.defined()) {
    h_n = h_n.index_select(1, unsorted);
    if (lstm) c_n = c_n.index_select(1, unsorted);
  }
  return {utils::rnn::PackedSequence(output, input.batch_sizes(), sorted, unsorted), h_n, c_n};
}

// ---- RNN, LSTM, GRU --------------------------------------------------------------

template <typename Derived>
std::tuple<Variable, Variable> RNNImplBase<Derived>::forward_single_state(const Variable& input_in,
                                                                          const Variable& hx_in) {
  const detail::RNNOptionsBase& o = options_base_;
  Variable input = input_in;
  Variable hx = hx_in;
  const bool batched = input.dim() == 3;
  const int64_t batch_dim = o.batch_first_ ? 0 : 1;
  if (!batched) {
    input = input.unsqueeze(batch_dim);
    if (hx.defined()) {
      TORCHLET_CHECK(hx.dim() == 2, "For unbatched 2-D input, hx should also be 2-D but got ",
                     hx.dim(), "-D tensor");
      hx = hx.unsqueeze(1);
    }
  } else {
    TORCHLET_CHECK(!hx.defined() || hx.dim() == 3,
                   "For batched 3-D input, hx should also be 3-D but got ", hx.dim(),
                   "-D tensor");
  }
  if (!hx.defined()) {
    hx = Variable(zeros({o.num_layers_ * (o.bidirectional_ ? 2 : 1), input.size(batch_dim),
                         o.hidden_size_},
                        input.options()));
  }
  check_input(input);
  check_hidden_size(hx, o.hidden_size_, "hidden", input.size(batch_dim));
  auto [output, h_n, unused] = run(input, hx, Variable());
  (void)unused;
  if (!batched) {
    output = output.squeeze(batch_dim);
    h_n = h_n.squeeze(1);
  }
  return {output, h_n};
}

RNNImpl::RNNImpl(const RNNOptions& options)
    : RNNImplBase(to_base(rnn_mode(options.nonlinearity_), options)), options_(options) {}

GRUImpl::GRUImpl(const GRUOptions& options)
    : RNNImplBase(to_base("GRU", options)), options_(options) {}

LSTMImpl::LSTMImpl(const LSTMOptions& options)
    : RNNImplBase(lstm_base(options)), options_(options) {}

std::tuple<Variable, Variable> RNNImpl::forward(const Variable& input, const Variable& hx) {
  return forward_single_state(input, hx);
}

std::tuple<Variable, Variable> GRUImpl::forward(const Variable& input, const Variable& hx) {
  return forward_single_state(input, hx);
}

std::tuple<utils::rnn::PackedSequence, Variable> RNNImpl::forward_with_packed_input(
    const utils::rnn::PackedSequence& packed_input, const Variable& hx) {
  auto [output, h_n, unused] = run_packed(packed_input, hx, Variable());
  (void)unused;
  return {output, h_n};
}

std::tuple<utils::rnn::PackedSequence, Variable> GRUImpl::forward_with_packed_input(
    const utils::rnn::PackedSequence& packed_input, const Variable& hx) {
  auto [output, h_n, unused] = run_packed(packed_input, hx, Variable());
  (void)unused;
  return {output, h_n};
}

std::tuple<utils::rnn::PackedSequence, std::tuple<Variable, Variable>>
LSTMImpl::forward_with_packed_input(const utils::rnn::PackedSequence& packed_input,
                                    std::optional<std::tuple<Variable, Variable>> hx_in) {
  Variable hx, cx;
  if (hx_in) {
    std::tie(hx, cx) = *hx_in;
    TORCHLET_CHECK(hx.defined() && cx.defined(), "LSTM: hx and cx must both be defined");
  }
  auto [output, h_n, c_n] = run_packed(packed_input, hx, cx);
  return {output, {h_n, c_n}};
}

std::tuple<Variable, std::tuple<Variable, Variable>> LSTMImpl::forward(
    const Variable& input_in, std::optional<std::tuple<Variable, Variable>> hx_in) {
  const detail::RNNOptionsBase& o = options_base_;
  Variable input = input_in;
  const bool batched = input.dim() == 3;
  const int64_t batch_dim = o.batch_first_ ? 0 : 1;
  if (!batched) input = input.unsqueeze(batch_dim);
  Variable hx, cx;
  const int64_t real_hidden = o.proj_size_ > 0 ? o.proj_size_ : o.hidden_size_;
  if (!hx_in) {
    const int64_t layers = o.num_layers_ * (o.bidirectional_ ? 2 : 1);
    const int64_t batch = input.size(batch_dim);
    hx = Variable(zeros({layers, batch, real_hidden}, input.options()));
    cx = Variable(zeros({layers, batch, o.hidden_size_}, input.options()));
  } else {
    std::tie(hx, cx) = *hx_in;
    TORCHLET_CHECK(hx.defined() && cx.defined(), "LSTM: hx and cx must both be defined");
    if (batched) {
      TORCHLET_CHECK(hx.dim() == 3 && cx.dim() == 3,
                     "For batched 3-D input, hx and cx should also be 3-D but got (", hx.dim(),
                     "-D, ", cx.dim(), "-D) tensors");
    } else {
      TORCHLET_CHECK(hx.dim() == 2 && cx.dim() == 2,
                     "For unbatched 2-D input, hx and cx should also be 2-D but got (", hx.dim(),
                     "-D, ", cx.dim(), "-D) tensors");
      hx = hx.unsqueeze(1);
      cx = cx.unsqueeze(1);
    }
  }
  check_input(input);
  check_hidden_size(hx, real_hidden, "hidden[0]", input.size(batch_dim));
  check_hidden_size(cx, o.hidden_size_, "hidden[1]", input.size(batch_dim));
  auto [output, h_n, c_n] = run(input, hx, cx);
  if (!batched) {
    output = output.squeeze(batch_dim);
    h_n = h_n.squeeze(1);
    c_n = c_n.squeeze(1);
  }
  return {output, {h_n, c_n}};
}

// ---- The cells -------------------------------------------------------------------

template <typename Derived>
RNNCellImplBase<Derived>::RNNCellImplBase(int64_t input_size, int64_t hidden_size, bool bias,
                                          int64_t num_chunks, std::string nonlinearity)
    : input_size_(input_size),
      hidden_size_(hidden_size),
      bias_(bias),
      num_chunks_(num_chunks),
      nonlinearity_(std::move(nonlinearity)) {
  TORCHLET_CHECK(input_size >= 0 && hidden_size >= 0,
                 "input_size and hidden_size must be non-negative, got ", input_size, " and ",
                 hidden_size);
  reset();
}

template <typename Derived>
void RNNCellImplBase<Derived>::reset() {
  const int64_t gates = num_chunks_ * hidden_size_;
  weight_ih = this->register_parameter("weight_ih", torchlet::empty({gates, input_size_}));
  weight_hh = this->register_parameter("weight_hh", torchlet::empty({gates, hidden_size_}));
  bias_ih = this->register_parameter("bias_ih", bias_ ? torchlet::empty({gates}) : Tensor());
  bias_hh = this->register_parameter("bias_hh", bias_ ? torchlet::empty({gates}) : Tensor());
  reset_parameters();
}

template <typename Derived>
void RNNCellImplBase<Derived>::reset_parameters() {
  const double stdv = hidden_size_ > 0 ? 1.0 / std::sqrt(static_cast<double>(hidden_size_)) : 0;
  for (Parameter* weight : {&weight_ih, &weight_hh, &bias_ih, &bias_hh}) {
    if (weight->defined()) init::uniform_(*weight, -stdv, stdv);
  }
}

template <typename Derived>
std::string RNNCellImplBase<Derived>::extra_repr() const {
  std::string s = std::to_string(input_size_) + ", " + std::to_string(hidden_size_);
  if (!bias_) s += ", bias=False";
  if (!nonlinearity_.empty() && nonlinearity_ != "tanh") s += ", nonlinearity=" + nonlinearity_;
  return s;
}

template <typename Derived>
bool RNNCellImplBase<Derived>::prepare(const char* name, Variable& input, Variable* hx,
                                       Variable* cx) const {
  TORCHLET_CHECK(input.dim() == 1 || input.dim() == 2, name,
                 ": Expected input to be 1-D or 2-D but received ", input.dim(), "-D tensor");
  const bool batched = input.dim() == 2;
  if (!batched) input = input.unsqueeze(0);
  for (Variable* state : {hx, cx}) {
    if (state == nullptr) continue;
    if (!state->defined()) {
      *state = Variable(zeros({input.size(0), hidden_size_}, input.options()));
    } else if (!batched) {
      *state = state->unsqueeze(0);
    }
  }
  return batched;
}

namespace {

// ATen's check_rnn_cell_forward_input and _hidden (every state is "hidden0").
void check_cell(const Variable& input, int64_t input_size, const Variable& state,
                int64_t hidden_size, bool check_input) {
  if (check_input) {
    TORCHLET_CHECK(input.size(1) == input_size, "input has inconsistent input_size: got ",
                   input.size(1), " expected ", input_size);
  }
  TORCHLET_CHECK(input.size(0) == state.size(0), "Input batch size ", input.size(0),
                 " doesn't match hidden0 batch size ", state.size(0));
  TORCHLET_CHECK(state.size(1) == hidden_size, "hidden0 has inconsistent hidden_size: got ",
                 state.size(1), ", expected ", hidden_size);
}

}  // namespace

RNNCellImpl::RNNCellImpl(const RNNCellOptions& options)
    : RNNCellImplBase(options.input_size_, options.hidden_size_, options.bias_, 1,
                      options.nonlinearity_) {}

LSTMCellImpl::LSTMCellImpl(const LSTMCellOptions& options)
    : RNNCellImplBase(options.input_size_, options.hidden_size_, options.bias_, 4, "") {}

GRUCellImpl::GRUCellImpl(const GRUCellOptions& options)
    : RNNCellImplBase(options.input_size_, options.hidden_size_, options.bias_, 3, "") {}

Variable RNNCellImpl::forward(const Variable& input_in, const Variable& hx_in) {
  Variable input = input_in, hx = hx_in;
  const bool batched = prepare("RNNCell", input, &hx, nullptr);
  TORCHLET_CHECK(nonlinearity_ == "tanh" || nonlinearity_ == "relu",
                 "Unknown nonlinearity: ", nonlinearity_);
  check_cell(input, input_size_, hx, hidden_size_, true);
  Variable h = rnn_step(F::linear(input, weight_ih, bias_ih), hx, weight_hh,
                        bias_hh.defined() ? Variable(bias_hh) : Variable(),
                        nonlinearity_ == "relu");
  return batched ? h : h.squeeze(0);
}

std::tuple<Variable, Variable> LSTMCellImpl::forward(
    const Variable& input_in, std::optional<std::tuple<Variable, Variable>> hx_in) {
  Variable input = input_in, hx, cx;
  if (hx_in) {
    std::tie(hx, cx) = *hx_in;
    TORCHLET_CHECK(hx.defined() && cx.defined(), "LSTMCell: hx and cx must both be defined");
  }
  const bool batched = prepare("LSTMCell", input, &hx, &cx);
  check_cell(input, input_size_, hx, hidden_size_, true);
  check_cell(input, input_size_, cx, hidden_size_, false);
  auto [h, c] = lstm_step(F::linear(input, weight_ih, bias_ih), hx, cx, weight_hh,
                          bias_hh.defined() ? Variable(bias_hh) : Variable());
  if (!batched) return {h.squeeze(0), c.squeeze(0)};
  return {h, c};
}

Variable GRUCellImpl::forward(const Variable& input_in, const Variable& hx_in) {
  Variable input = input_in, hx = hx_in;
  const bool batched = prepare("GRUCell", input, &hx, nullptr);
  check_cell(input, input_size_, hx, hidden_size_, true);
  Variable h = gru_step(F::linear(input, weight_ih, bias_ih), hx, weight_hh, bias_hh);
  return batched ? h : h.squeeze(0);
}

template class RNNImplBase<RNNImpl>;
template class RNNImplBase<LSTMImpl>;
template class RNNImplBase<GRUImpl>;
template class RNNCellImplBase<RNNCellImpl>;
template class RNNCellImplBase<LSTMCellImpl>;
template class RNNCellImplBase<GRUCellImpl>;

}  // namespace torchlet::nn
