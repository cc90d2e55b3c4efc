// DataParallel over the attention, Transformer and packed recurrent
// modules, on 2 and 3 CPU devices, against the plain module in float64:
// the same outputs, the same parameter gradients after backward, and the
// same parameters after three steps of the Adam family; and dropout in
// training, which each replica draws from its own device's generator.
//
// As in PyTorch, every Variable argument (positional or named) is scattered
// along dim and every other value is copied: a tensor that every replica
// needs whole, such as a causal mask, belongs in a buffer of the module
// (copied to every replica's device), not in the arguments.
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "nn/optim/optim.h"
#include "nn/utils/rnn.h"
#include "parallel/data_parallel.h"
#include "parallel/testing.h"
#include "tensor/random.h"
#include "tensor/test_util.h"

namespace torchlet::parallel {
namespace {

using testing::Kwargs;
using ::torchlet::testing::all_close;

constexpr int64_t kModel = 8;  // d_model and embed_dim
constexpr int64_t kHeads = 2;
constexpr int64_t kSeq = 5;

/// A float64 tensor of smooth, distinct values in [-1, 1].
Variable input(std::vector<int64_t> shape, double start = 0.0, bool requires_grad = true) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = std::sin(start + 0.77 * i);
  return Variable(from_vector(v, shape), requires_grad);
}

std::vector<int64_t> shape_of(const Variable& v) {
  return std::vector<int64_t>(v.sizes().begin(), v.sizes().end());
}

/// A [batch, seq] key padding mask: row r pads its last r % 3 positions
/// (no row is all padding).
Variable padding_mask(int64_t batch, int64_t seq) {
  std::vector<int64_t> v;
  for (int64_t r = 0; r < batch; ++r) {
    for (int64_t s = 0; s < seq; ++s) v.push_back(s >= seq - r % 3 ? 1 : 0);
  }
  return Variable(from_vector(v, {batch, seq}).to(kBool));
}

/// A float64 copy of `module`, to compare DataParallel's module with.
template <typename M>
std::shared_ptr<M> copy_of(const std::shared_ptr<M>& module) {
  return std::dynamic_pointer_cast<M>(module->clone());
}

template <typename M>
std::shared_ptr<M> to_double(std::shared_ptr<M> m) {
  m->to(kFloat64);
  return m;
}

::testing::AssertionResult same_grads(const nn::Module& a, const nn::Module& b) {
  const std::vector<Variable> pa = a.parameters(), pb = b.parameters();
  if (pa.size() != pb.size()) return ::testing::AssertionFailure() << "parameter counts differ";
  for (size_t i = 0; i < pa.size(); ++i) {
    if (!pa[i].grad().defined() || !pb[i].grad().defined()) {
      return ::testing::AssertionFailure() << "parameter " << i << " has no gradient";
    }
    auto r = all_close(pa[i].grad().data(), pb[i].grad().data(), 1e-9, 1e-12);
    if (!r) return r << " (parameter " << i << ")";
  }
  return ::testing::AssertionSuccess();
}

// Adam's family divides each step by sqrt(v) + eps: a gradient that is zero
// in exact arithmetic (the key projection's bias, which softmax ignores) is
// rounding noise of 1e-17 to 1e-16, different in the two, and moves its
// parameter by about lr * noise / eps. The tests' eps of 1e-6 keeps that
// under 1e-12, a hundredth of the tolerance.
::testing::AssertionResult same_parameters(const nn::Module& a, const nn::Module& b) {
  const std::vector<Variable> pa = a.parameters(), pb = b.parameters();
  if (pa.size() != pb.size()) return ::testing::AssertionFailure() << "parameter counts differ";
  for (size_t i = 0; i < pa.size(); ++i) {
    auto r = all_close(pa[i].data(), pb[i].data(), 1e-9, 1e-10);
    if (!r) return r << " (parameter " << i << ")";
  }
  return ::testing::AssertionSuccess();
}

/// A loss whose gradient reaches every output element differently (the sum
/// of squares of a layer norm's output is nearly constant).
Variable weighted_sum(const Variable& y) { return (y * input(shape_of(y), 0.3, false)).sum(); }

/// Three optimizer steps of `module` through `dp_loss` and of `plain`
/// through `plain_loss`: the losses, and the gradients after each backward,
/// match; then the parameters.
template <typename Optimizer, typename Options, typename DpLoss, typename PlainLoss>
void expect_trains_alike(nn::Module& module, nn::Module& plain, const Options& options,
                         DpLoss dp_loss, PlainLoss plain_loss) {
  Optimizer opt(module.parameters(), options);
  Optimizer plain_opt(plain.parameters(), options);
  for (int step = 0; step < 3; ++step) {
    opt.zero_grad();
    plain_opt.zero_grad();
    const Variable loss = dp_loss(step), expected = plain_loss(step);
    EXPECT_TRUE(all_close(loss.data(), expected.data(), 1e-12, 1e-12)) << "step " << step;
    loss.backward();
    expected.backward();
    EXPECT_TRUE(same_grads(module, plain)) << "step " << step;
    opt.step();
    plain_opt.step();
  }
  EXPECT_TRUE(same_parameters(module, plain));
}

nn::TransformerEncoderLayerOptions layer_options(bool batch_first, double dropout = 0.0) {
  return nn::TransformerEncoderLayerOptions(kModel, kHeads)
      .dim_feedforward(16)
      .dropout(dropout)
      .batch_first(batch_first);
}

/// A batch-first TransformerEncoder whose causal mask is a buffer, the way
/// a PyTorch user hands DataParallel a tensor that every replica needs
/// whole: arguments are scattered, buffers are copied to every replica. The
/// key padding mask comes as a named argument (PyTorch's kwargs).
class CausalEncoderImpl : public nn::Cloneable<CausalEncoderImpl> {
 public:
  CausalEncoderImpl() { reset(); }
  void reset() override {
    encoder = register_module(
        "encoder", nn::TransformerEncoder(nn::TransformerEncoderLayer(layer_options(true)), 2,
                                          nn::LayerNorm(nn::LayerNormOptions({kModel}))));
    causal_mask =
        register_buffer("causal_mask", nn::TransformerImpl::generate_square_subsequent_mask(kSeq),
                        /*persistent=*/false);
  }
  Variable forward(const Variable& src, const Kwargs& kwargs) {
    return encoder(src, causal_mask, kwargs.at("src_key_padding_mask"));
  }
  nn::TransformerEncoder encoder{nullptr};
  Variable causal_mask;
};
TORCHLET_MODULE(CausalEncoder);

/// A batch-first LSTM over padded sequences of the given lengths, packed
/// inside forward (a PackedSequence is not scattered); padded back to the
/// whole batch's length so that the replicas' outputs can be gathered
/// (PyTorch's total_length, for the same reason).
class PackedLstmImpl : public nn::Cloneable<PackedLstmImpl> {
 public:
  PackedLstmImpl() { reset(); }
  void reset() override {
    lstm = register_module("lstm", nn::LSTM(nn::LSTMOptions(3, 4).num_layers(2).batch_first(true)));
  }
  Variable forward(const Variable& padded, const Tensor& lengths) {
    const auto packed = nn::utils::rnn::pack_padded_sequence(padded, lengths, /*batch_first=*/true,
                                                             /*enforce_sorted=*/false);
    const auto out = std::get<0>(lstm->forward_with_packed_input(packed));
    return std::get<0>(
        nn::utils::rnn::pad_packed_sequence(out, /*batch_first=*/true, 0.0, padded.size(1)));
  }
  nn::LSTM lstm{nullptr};
};
TORCHLET_MODULE(PackedLstm);

class DataParallelModulesTest : public testing::OnDevices {
 protected:
  /// A batch that splits unevenly over the devices.
  int64_t batch() const { return 2 * count() + 1; }
};

TEST_P(DataParallelModulesTest, EncoderWithPaddingKwargAndCausalMaskBufferTrainsAsThePlainModule) {
  const auto net = to_double(CausalEncoder().ptr());
  const auto plain = copy_of(net);
  DataParallel dp(net, device_ids());
  const Variable src = input({batch(), kSeq, kModel});
  const Kwargs kwargs{{"src_key_padding_mask", padding_mask(batch(), kSeq)}};
  const Variable y = dp->forward_kwargs(kwargs, src);
  const Variable expected = plain->forward(src, kwargs);
  EXPECT_EQ(y.device(), Device(kCPU, 0));
  EXPECT_TRUE(all_close(y.data(), expected.data(), 1e-12, 1e-12));
  expect_trains_alike<optim::Adam>(
      *net, *plain, optim::AdamOptions(1e-2).eps(1e-6),
      [&](int step) {
        return weighted_sum(dp->forward_kwargs(kwargs, input(shape_of(src), step, false)));
      },
      [&](int step) {
        return weighted_sum(plain->forward(input(shape_of(src), step, false), kwargs));
      });
}

TEST_P(DataParallelModulesTest, EncoderTakesThePaddingMaskAsAScatteredPositionalArgument) {
  const auto encoder =
      to_double(nn::TransformerEncoder(nn::TransformerEncoderLayer(layer_options(true)), 2).ptr());
  const auto plain = copy_of(encoder);
  DataParallel dp(encoder, device_ids());
  const Variable src = input({batch(), kSeq, kModel});
  const Variable pad = padding_mask(batch(), kSeq);
  // An undefined Variable (PyTorch's None) is copied to every replica.
  const Variable y = dp(src, Variable(), pad);
  const Variable expected = plain->forward(src, Variable(), pad);
  EXPECT_TRUE(all_close(y.data(), expected.data(), 1e-12, 1e-12));
  weighted_sum(y).backward();
  weighted_sum(expected).backward();
  EXPECT_TRUE(same_grads(*encoder, *plain));
}

// Every Variable argument is scattered, as every tensor argument is in
// PyTorch: a [S, S] mask reaches each replica as a slice of its rows.
TEST_P(DataParallelModulesTest, ACausalMaskPassedAsAnArgumentIsScatteredAndRefused) {
  const auto encoder =
      to_double(nn::TransformerEncoder(nn::TransformerEncoderLayer(layer_options(true)), 1).ptr());
  DataParallel dp(encoder, device_ids());
  const Variable mask(
      nn::TransformerImpl::generate_square_subsequent_mask(2 * count()).data().to(kFloat64));
  const std::string n = std::to_string(2 * count());
  EXPECT_THROW_MSG(dp(input({2 * count(), 2 * count(), kModel}), mask),
                   "in replica 0 on device cpu:0.\nThe shape of the 2D attn_mask is "
                   "torch.Size([2, " + n + "]), but should be (" + n + ", " + n + ").");
}

TEST_P(DataParallelModulesTest, SequenceFirstEncoderLayerSplitAlongDimOneTrainsAsThePlainModule) {
  const auto layer = to_double(nn::TransformerEncoderLayer(layer_options(false)).ptr());
  const auto plain = copy_of(layer);
  DataParallel dp(layer, device_ids(), std::nullopt, /*dim=*/1);
  const std::vector<int64_t> shape{kSeq, batch(), kModel};
  const Variable src = input(shape);
  const Variable y = dp(src);
  ASSERT_EQ(shape_of(y), shape);
  EXPECT_TRUE(all_close(y.data(), plain->forward(src).data(), 1e-12, 1e-12));
  expect_trains_alike<optim::NAdam>(
      *layer, *plain, optim::NAdamOptions(1e-2).eps(1e-6),
      [&](int step) { return weighted_sum(dp(input(shape, step, false))); },
      [&](int step) { return weighted_sum(plain->forward(input(shape, step, false))); });
}

// Cross-attention with kdim and vdim of their own (separate projection
// weights, in_proj_weight registered undefined) and learned bias_k and
// bias_v: the output and the weights are gathered as a tuple, both
// batch-first. (Without batch_first the output has the batch in dim 1 and
// the weights in dim 0, so no one dim gathers both, in PyTorch either.)
TEST_P(DataParallelModulesTest, MultiheadAttentionOutputAndWeightsAreGatheredAsATuple) {
  const auto attn = to_double(nn::MultiheadAttention(nn::MultiheadAttentionOptions(kModel, kHeads)
                                                         .kdim(6)
                                                         .vdim(4)
                                                         .add_bias_kv(true)
                                                         .batch_first(true))
                                  .ptr());
  const auto plain = copy_of(attn);
  DataParallel dp(attn, device_ids());
  const int64_t n = batch();
  const Variable q = input({n, 3, kModel}), k = input({n, kSeq, 6}, 0.4),
                 v = input({n, kSeq, 4}, 0.9);
  const Variable pad = padding_mask(n, kSeq);
  const auto [out, weights] = dp(q, k, v, pad, /*need_weights=*/true, Variable(),
                                 /*average_attn_weights=*/false);
  const auto [expected, expected_weights] = plain->forward(q, k, v, pad, true, Variable(), false);
  EXPECT_TRUE(all_close(out.data(), expected.data(), 1e-12, 1e-12));
  // [N, num_heads, L, S + 1]: bias_k adds a key.
  EXPECT_EQ(shape_of(weights), (std::vector<int64_t>{n, kHeads, 3, kSeq + 1}));
  EXPECT_TRUE(all_close(weights.data(), expected_weights.data(), 1e-12, 1e-12));
  const auto loss = [](const std::tuple<Variable, Variable>& r) {
    return weighted_sum(std::get<0>(r)) + weighted_sum(std::get<1>(r));
  };
  expect_trains_alike<optim::RAdam>(
      *attn, *plain, optim::RAdamOptions(1e-2).eps(1e-6),
      [&](int step) { return loss(dp(input(shape_of(q), step, false), k, v, pad)); },
      [&](int step) { return loss(plain->forward(input(shape_of(q), step, false), k, v, pad)); });
}

TEST_P(DataParallelModulesTest, TransformerInEvalModeMatchesThePlainModule) {
  const auto transformer = to_double(nn::Transformer(nn::TransformerOptions(kModel, kHeads)
                                                         .num_encoder_layers(2)
                                                         .num_decoder_layers(2)
                                                         .dim_feedforward(16)
                                                         .batch_first(true))
                                         .ptr());
  transformer->eval();
  const auto plain = copy_of(transformer);
  DataParallel dp(transformer, device_ids());
  const int64_t n = batch();
  const Variable src = input({n, kSeq, kModel}), tgt = input({n, 4, kModel}, 0.5);
  const Variable plain_src = input({n, kSeq, kModel}), plain_tgt = input({n, 4, kModel}, 0.5);
  const Variable src_pad = padding_mask(n, kSeq), tgt_pad = padding_mask(n, 4);
  const Variable y = dp(src, tgt, Variable(), Variable(), Variable(), src_pad, tgt_pad, src_pad);
  const Variable expected = plain->forward(plain_src, plain_tgt, Variable(), Variable(), Variable(),
                                           src_pad, tgt_pad, src_pad);
  EXPECT_TRUE(all_close(y.data(), expected.data(), 1e-12, 1e-12));
  weighted_sum(y).backward();
  weighted_sum(expected).backward();
  EXPECT_TRUE(same_grads(*transformer, *plain));
  EXPECT_TRUE(all_close(src.grad().data(), plain_src.grad().data(), 1e-9, 1e-12));
  EXPECT_TRUE(all_close(tgt.grad().data(), plain_tgt.grad().data(), 1e-9, 1e-12));
}

TEST_P(DataParallelModulesTest, PackedLstmOverScatteredLengthsTrainsAsThePlainModule) {
  const auto net = to_double(PackedLstm().ptr());
  const auto plain = copy_of(net);
  DataParallel dp(net, device_ids());
  const int64_t n = batch();
  std::vector<int64_t> lengths;
  for (int64_t i = 0; i < n; ++i) lengths.push_back(1 + (i * 3) % kSeq);
  const Tensor lengths_t = from_vector(lengths);
  const Variable x = input({n, kSeq, 3});
  const Variable y = dp(x, lengths_t);
  const Variable expected = plain->forward(x, lengths_t);
  EXPECT_TRUE(all_close(y.data(), expected.data(), 1e-12, 1e-12));
  expect_trains_alike<optim::Adam>(
      *net, *plain, optim::AdamOptions(1e-2).eps(1e-6),
      [&](int step) { return weighted_sum(dp(input(shape_of(x), step, false), lengths_t)); },
      [&](int step) {
        return weighted_sum(plain->forward(input(shape_of(x), step, false), lengths_t));
      });
}

// ---- Dropout in training mode ------------------------------------------------------

// PyTorch's replicas draw their dropout masks from their own device's
// generator, never from the original's; so do torchlet's, from each CPU
// device's own. Replaying each chunk on a copy of the module on its device,
// after the same seed, reproduces the output exactly.
TEST_P(DataParallelModulesTest, EachReplicaDrawsItsDropoutMasksFromItsDevicesGenerator) {
  const auto layer = to_double(nn::TransformerEncoderLayer(layer_options(true, 0.3)).ptr());
  DataParallel dp(layer, device_ids());
  const Variable src = input({2 * count(), kSeq, kModel}, 0.0, false);
  dp(src);  // builds the replicas, whose construction draws on cpu:0
  std::vector<std::shared_ptr<nn::TransformerEncoderLayerImpl>> copies;
  for (const Device& device : devices()) {
    copies.push_back(
        std::dynamic_pointer_cast<nn::TransformerEncoderLayerImpl>(layer->clone(device)));
  }
  manual_seed(5);
  const Variable y = dp(src);
  manual_seed(5);
  const std::vector<Variable> chunks = src.chunk(count());
  for (int i = 0; i < count(); ++i) {
    const Device device = devices()[static_cast<size_t>(i)];
    const Variable replayed = copies[static_cast<size_t>(i)]->forward(chunks[i].to(device));
    EXPECT_TRUE(all_close(y.chunk(count())[i].data(), replayed.data().to(Device(kCPU, 0)), 0, 0))
        << "replica " << i;
  }
  layer->eval();
  EXPECT_FALSE(all_close(y.data(), dp(src).data(), 1e-6, 1e-6));  // dropout did act
}

// MultiheadAttention returns its weights after dropout: in training each
// is 0 or the eval weight / (1 - p), and every replica drops some.
TEST_P(DataParallelModulesTest, MultiheadAttentionDropoutMasksEveryReplicasWeights) {
  const double p = 0.5;
  const auto attn =
      to_double(nn::MultiheadAttention(
                    nn::MultiheadAttentionOptions(kModel, kHeads).dropout(p).batch_first(true))
                    .ptr());
  DataParallel dp(attn, device_ids());
  const Variable x = input({2 * count(), kSeq, kModel}, 0.0, false);
  const Variable weights = std::get<1>(dp(x, x, x, Variable(), true, Variable(), false));
  attn->eval();
  const Variable eval_weights =
      std::get<1>(attn->forward(x, x, x, Variable(), true, Variable(), false));
  const std::vector<double> w = ::torchlet::testing::values(weights.data()),
                            e = ::torchlet::testing::values(eval_weights.data());
  ASSERT_EQ(w.size(), e.size());
  const size_t per_replica = w.size() / static_cast<size_t>(count());
  for (int r = 0; r < count(); ++r) {
    int dropped = 0, kept = 0;
    for (size_t i = r * per_replica; i < (r + 1) * per_replica; ++i) {
      if (w[i] == 0) {
        ++dropped;
      } else {
        ++kept;
        EXPECT_NEAR(w[i], e[i] / (1 - p), 1e-12) << "element " << i;
      }
    }
    EXPECT_GT(dropped, 0) << "replica " << r;
    EXPECT_GT(kept, 0) << "replica " << r;
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, DataParallelModulesTest, ::testing::Values(2, 3),
                         ::testing::PrintToStringParamName());

}  // namespace
}  // namespace torchlet::parallel
