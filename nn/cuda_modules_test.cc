// The layers, activations, distances, losses and resampling added since the
// GPU suite last ran, on cuda:0 against the same on cpu:0: each case is
// built from the same seed on both, given the same inputs, and must give the
// same outputs and, after the backward of the same weighted sum of its
// outputs, the same gradients of every parameter and input. Skipped where
// no GPU is present.
#include <functional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "nn/functional/functional.h"
#include "nn/nn.h"
#include "tensor/test_util.h"

namespace torchlet::nn {
namespace {

namespace F = functional;
namespace R = utils::rnn;
using ::torchlet::testing::all_close;
using Vars = std::vector<Variable>;

constexpr Device kCpu(kCPU, 0);
constexpr Device kGpu(kCUDA, 0);

// A case's input: a leaf that gets a gradient (floating point, by default)
// or a constant (indices, masks, targets: see fixed()).
struct Input {
  Input(Tensor t) : value(std::move(t)), grad(value.is_floating_point()) {}  // NOLINT: implicit
  Tensor value;
  bool grad;
};

Input fixed(Tensor t) {
  Input in(std::move(t));
  in.grad = false;
  return in;
}

// What a case gives on one device, moved to the CPU.
struct Run {
  Vars::size_type parameters = 0;
  std::vector<Tensor> outputs;
  std::vector<Tensor> grads;  // the parameters', then the inputs' (undefined where none)
};

constexpr auto kNoModule = [] { return nullptr; };

// Builds the case's module (`make`, under a fixed seed) on `device`, runs
// forward(module, inputs) and backpropagates the sum of each floating
// output times a fixed random tensor.
template <typename Make, typename Forward>
Run run_on(Device device, const Make& make, const Forward& forward,
           const std::vector<Input>& inputs) {
  manual_seed(5);
  auto module = make();
  Vars params;
  if constexpr (!std::is_same_v<decltype(module), std::nullptr_t>) {
    module->to(device);
    params = module->parameters();
  }
  Vars xs;
  for (const Input& in : inputs) xs.emplace_back(in.value.to(device), in.grad);
  const Vars outs = forward(module, xs);
  Run run;
  run.parameters = params.size();
  manual_seed(6);
  Variable loss;
  for (const Variable& out : outs) {
    run.outputs.push_back(out.data().to(kCpu));
    if (!out.is_floating_point()) continue;
    EXPECT_EQ(out.device(), device) << "output " << run.outputs.size() - 1;
    if (!out.requires_grad()) continue;
    const Variable term = (out * Variable(randn(out.sizes()).to(device))).sum();
    loss = loss.defined() ? loss + term : term;
  }
  if (loss.defined()) loss.backward();
  params.insert(params.end(), xs.begin(), xs.end());
  for (const Variable& v : params) {
    run.grads.push_back(v.grad().defined() ? v.grad().data().to(kCpu) : Tensor());
  }
  return run;
}

template <typename Make, typename Forward>
void expect_same(const Make& make, const Forward& forward, const std::vector<Input>& inputs,
                 double rtol = 1e-4, double atol = 1e-5) {
  const Run cpu = run_on(kCpu, make, forward, inputs);
  const Run gpu = run_on(kGpu, make, forward, inputs);
  ASSERT_EQ(gpu.outputs.size(), cpu.outputs.size());
  for (size_t i = 0; i < cpu.outputs.size(); ++i) {
    EXPECT_TRUE(all_close(gpu.outputs[i], cpu.outputs[i], rtol, atol)) << "output " << i;
  }
  ASSERT_EQ(gpu.grads.size(), cpu.grads.size());
  for (size_t i = 0; i < cpu.grads.size(); ++i) {
    const std::string what = i < cpu.parameters
                                 ? "gradient of parameter " + std::to_string(i)
                                 : "gradient of input " + std::to_string(i - cpu.parameters);
    ASSERT_EQ(gpu.grads[i].defined(), cpu.grads[i].defined()) << what;
    if (cpu.grads[i].defined()) {
      EXPECT_TRUE(all_close(gpu.grads[i], cpu.grads[i], rtol, atol)) << what;
    }
  }
}

// A unary function of the first input, as a case's forward.
std::function<Vars(std::nullptr_t, const Vars&)> unary(std::function<Variable(const Variable&)> f) {
  return [f = std::move(f)](std::nullptr_t, const Vars& x) { return Vars{f(x[0])}; };
}

// +1 or -1, at random.
Tensor signs(IntArrayRef sizes) { return randn(sizes).sign(); }

// Row b of a [batch, steps] key padding mask masks the last b steps.
Tensor padding_mask(int64_t batch, int64_t steps) {
  return arange(steps).unsqueeze(0).ge(arange(batch).neg().add(steps).unsqueeze(1));
}

// ---- Recurrent layers ---------------------------------------------------------------

TEST(CudaModulesTest, RnnTanhAndReluMatchTheCpu) {
  REQUIRE_GPU();
  manual_seed(1);
  const Tensor x = randn({6, 3, 5}), h0 = randn({4, 3, 7});
  for (const char* nonlinearity : {"tanh", "relu"}) {
    SCOPED_TRACE(nonlinearity);
    expect_same(
        [&] {
          return RNN(RNNOptions(5, 7).nonlinearity(nonlinearity).num_layers(2).bidirectional(true));
        },
        [](RNN& m, const Vars& in) {
          auto [out, h] = m->forward(in[0], in[1]);
          return Vars{out, h};
        },
        {x, h0});
  }
}

TEST(CudaModulesTest, LstmWithProjectionsBidirectionalTwoLayersBatchFirstMatchesTheCpu) {
  REQUIRE_GPU();
  manual_seed(2);
  const Tensor x = randn({3, 6, 5}), h0 = randn({4, 3, 4}), c0 = randn({4, 3, 8});
  expect_same(
      [] {
        return LSTM(LSTMOptions(5, 8).proj_size(4).num_layers(2).bidirectional(true).batch_first(
            true));
      },
      [](LSTM& m, const Vars& in) {
        auto [out, state] = m->forward(in[0], std::make_tuple(in[1], in[2]));
        return Vars{out, std::get<0>(state), std::get<1>(state)};
      },
      {x, h0, c0});
  // Default states, no projection.
  expect_same([] { return LSTM(LSTMOptions(5, 6).num_layers(2)); },
              [](LSTM& m, const Vars& in) {
                auto [out, state] = m->forward(in[0]);
                return Vars{out, std::get<0>(state), std::get<1>(state)};
              },
              {x.transpose(0, 1).contiguous()});
}

TEST(CudaModulesTest, GruMatchesTheCpu) {
  REQUIRE_GPU();
  manual_seed(3);
  const Tensor x = randn({6, 3, 5}), h0 = randn({4, 3, 6});
  expect_same([] { return GRU(GRUOptions(5, 6).num_layers(2).bidirectional(true)); },
              [](GRU& m, const Vars& in) {
                auto [out, h] = m->forward(in[0], in[1]);
                return Vars{out, h};
              },
              {x, h0});
}

TEST(CudaModulesTest, CellsMatchTheCpu) {
  REQUIRE_GPU();
  manual_seed(4);
  const Tensor x1 = randn({4, 5}), x2 = randn({4, 5}), h = randn({4, 7}), c = randn({4, 7});
  for (const char* nonlinearity : {"tanh", "relu"}) {
    SCOPED_TRACE(nonlinearity);
    expect_same([&] { return RNNCell(RNNCellOptions(5, 7).nonlinearity(nonlinearity)); },
                [](RNNCell& m, const Vars& in) {
                  const Variable h1 = m(in[0], in[2]);
                  return Vars{h1, m(in[1], h1)};
                },
                {x1, x2, h});
  }
  expect_same([] { return LSTMCell(5, 7); },
              [](LSTMCell& m, const Vars& in) {
                const auto [h1, c1] = m->forward(in[0], std::make_tuple(in[2], in[3]));
                const auto [h2, c2] = m->forward(in[1], std::make_tuple(h1, c1));
                return Vars{h1, h2, c2};
              },
              {x1, x2, h, c});
  expect_same([] { return GRUCell(5, 7); },
              [](GRUCell& m, const Vars& in) {
                const Variable h1 = m(in[0], in[2]);
                return Vars{h1, m(in[1], h1)};
              },
              {x1, x2, h});
}

TEST(CudaModulesTest, PackedSequencesThroughLstmAndGruMatchTheCpu) {
  REQUIRE_GPU();
  manual_seed(5);
  const Tensor x = randn({5, 3, 4});
  // Unsorted lengths: the states are permuted into the packed order and back.
  expect_same([] { return LSTM(LSTMOptions(4, 6).bidirectional(true)); },
              [](LSTM& m, const Vars& in) {
                const R::PackedSequence packed =
                    R::pack_padded_sequence(in[0], std::vector<int64_t>{3, 5, 2}, false, false);
                auto [out, state] = m->forward_with_packed_input(packed);
                const Variable padded = std::get<0>(R::pad_packed_sequence(out));
                return Vars{padded, std::get<0>(state), std::get<1>(state)};
              },
              {x});
  expect_same([] { return GRU(GRUOptions(4, 6).num_layers(2).batch_first(true)); },
              [](GRU& m, const Vars& in) {
                const R::PackedSequence packed =
                    R::pack_padded_sequence(in[0], std::vector<int64_t>{5, 4, 2}, true);
                auto [out, h] = m->forward_with_packed_input(packed, in[1]);
                return Vars{std::get<0>(R::pad_packed_sequence(out, true, -1.0, 6)), h};
              },
              {x.transpose(0, 1).contiguous(), randn({2, 3, 6})});
}

// ---- Attention and Transformers -----------------------------------------------------

TEST(CudaModulesTest, MultiheadAttentionWithMasksMatchesTheCpu) {
  REQUIRE_GPU();
  manual_seed(6);
  const Tensor q = randn({4, 2, 8}), k = randn({5, 2, 8}), v = randn({5, 2, 8});
  // Query i may not attend to key j > i + 1; batch b loses its last b keys.
  const Tensor attn_mask = arange(5).unsqueeze(0).gt(arange(4).add(1).unsqueeze(1));
  expect_same([] { return MultiheadAttention(8, 2); },
              [](MultiheadAttention& m, const Vars& in) {
                auto [out, weights] = m->forward(in[0], in[1], in[2], in[3], true, in[4]);
                return Vars{out, weights};
              },
              {q, k, v, padding_mask(2, 5), attn_mask});
  // Separate projections, bias_kv, zero_attn, batch_first, an additive
  // per-head mask and the weights of each head.
  const auto options =
      MultiheadAttentionOptions(8, 2).kdim(6).vdim(3).add_bias_kv(true).add_zero_attn(true)
          .batch_first(true);
  expect_same([&] { return MultiheadAttention(options); },
              [](MultiheadAttention& m, const Vars& in) {
                auto [out, weights] =
                    m->forward(in[0], in[1], in[2], Variable(), true, in[3], false);
                return Vars{out, weights};
              },
              {randn({2, 4, 8}), randn({2, 5, 6}), randn({2, 5, 3}), fixed(randn({4, 4, 5}))});
}

TEST(CudaModulesTest, TransformerLayersMatchTheCpu) {
  REQUIRE_GPU();
  manual_seed(7);
  const Tensor src = randn({5, 2, 8}), tgt = randn({4, 2, 8});
  const Tensor src_mask = Transformer::Impl::generate_square_subsequent_mask(5).data();
  const Tensor tgt_mask = Transformer::Impl::generate_square_subsequent_mask(4).data();
  for (const bool norm_first : {false, true}) {
    SCOPED_TRACE(norm_first ? "pre-norm gelu" : "post-norm relu");
    const auto options = TransformerLayerOptions(8, 2).dim_feedforward(16).dropout(0.0)
                             .norm_first(norm_first).activation(norm_first ? "gelu" : "relu");
    expect_same(
        [&] {
          TransformerEncoderLayer layer(options);
          layer->eval();
          return layer;
        },
        [](TransformerEncoderLayer& m, const Vars& in) { return Vars{m(in[0], in[1], in[2])}; },
        {src, fixed(src_mask), padding_mask(2, 5)}, 1e-4, 2e-5);
    expect_same(
        [&] {
          TransformerDecoderLayer layer(options);
          layer->eval();
          return layer;
        },
        [](TransformerDecoderLayer& m, const Vars& in) {
          return Vars{m->forward(in[0], in[1], in[2], Variable(), in[3], in[4])};
        },
        {tgt, src, fixed(tgt_mask), padding_mask(2, 4), padding_mask(2, 5)}, 1e-4, 2e-5);
  }
}

TEST(CudaModulesTest, TransformerMatchesTheCpu) {
  REQUIRE_GPU();
  manual_seed(8);
  const Tensor src = randn({2, 5, 8}), tgt = randn({2, 4, 8});
  const Tensor tgt_mask = Transformer::Impl::generate_square_subsequent_mask(4).data();
  expect_same(
      [] {
        Transformer t(TransformerOptions(8, 2).num_encoder_layers(2).num_decoder_layers(2)
                          .dim_feedforward(16).batch_first(true));
        t->eval();  // dropout 0.1 off
        return t;
      },
      [](Transformer& m, const Vars& in) {
        return Vars{m->forward(in[0], in[1], Variable(), in[2], Variable(), in[3])};
      },
      {src, tgt, fixed(tgt_mask), padding_mask(2, 5)}, 1e-3, 1e-4);
}

// ---- EmbeddingBag -------------------------------------------------------------------

TEST(CudaModulesTest, EmbeddingBagMatchesTheCpu) {
  REQUIRE_GPU();
  manual_seed(9);
  const Tensor flat = randint(0, 10, {9}), offsets = tensor({0, 2, 2, 6});  // an empty bag
  const Tensor fixed_bags = randint(0, 10, {3, 4});
  for (const char* mode : {"sum", "mean", "max"}) {
    SCOPED_TRACE(mode);
    expect_same([&] { return EmbeddingBag(EmbeddingBagOptions(10, 4).mode(mode)); },
                [](EmbeddingBag& m, const Vars& in) { return Vars{m(in[0], in[1].data())}; },
                {flat, offsets});
    expect_same([&] { return EmbeddingBag(EmbeddingBagOptions(10, 4).mode(mode).padding_idx(3)); },
                [](EmbeddingBag& m, const Vars& in) { return Vars{m(in[0])}; }, {fixed_bags});
  }
  // per_sample_weights, include_last_offset and max_norm (the weight is
  // renormalized in place: compared as an output).
  expect_same(
      [] {
        return EmbeddingBag(
            EmbeddingBagOptions(10, 4).mode("sum").include_last_offset(true).max_norm(1.5));
      },
      [](EmbeddingBag& m, const Vars& in) {
        const Variable out = m(in[0], in[1].data(), in[2]);
        return Vars{out, Variable(m->weight.data().clone())};
      },
      {flat, tensor({0, 2, 2, 6, 9}), randn({9})});
}

TEST(CudaModulesTest, FunctionalEmbeddingBagMatchesTheCpu) {
  REQUIRE_GPU();
  manual_seed(10);
  expect_same(kNoModule,
              [](std::nullptr_t, const Vars& in) {
                return Vars{F::embedding_bag(in[0].data(), in[1], in[2].data(), std::nullopt, 2.0,
                                             true, "mean", false, Variable(), false, -1)};
              },
              {randint(0, 8, {10}), randn({8, 5}), tensor({0, 3, 7})});
  expect_same(kNoModule,
              [](std::nullptr_t, const Vars& in) {
                return Vars{F::embedding_bag(in[0].data(), in[1], Tensor(), std::nullopt, 2.0,
                                             false, "sum", false, in[2])};
              },
              {randint(0, 8, {3, 4}), randn({8, 5}), randn({3, 4})});
}

// ---- Activations and distances ------------------------------------------------------

TEST(CudaModulesTest, ActivationsMatchTheCpu) {
  REQUIRE_GPU();
  manual_seed(11);
  const Tensor x = randn({4, 6}).mul(3);  // every branch, beyond Hardswish's +-3 too
  const std::vector<std::pair<const char*, std::function<Variable(const Variable&)>>> cases = {
      {"Hardswish", [](const Variable& v) { return Hardswish()(v); }},
      {"Hardsigmoid", [](const Variable& v) { return Hardsigmoid()(v); }},
      {"LogSigmoid", [](const Variable& v) { return LogSigmoid()(v); }},
      {"Softsign", [](const Variable& v) { return Softsign()(v); }},
      {"Tanhshrink", [](const Variable& v) { return Tanhshrink()(v); }},
      {"Threshold", [](const Variable& v) { return Threshold(ThresholdOptions(0.1, 20))(v); }},
      {"Softshrink", [](const Variable& v) { return Softshrink(0.5)(v); }},
      {"Hardshrink", [](const Variable& v) { return Hardshrink(0.5)(v); }},
      {"GLU", [](const Variable& v) { return GLU(1)(v); }},
      {"Softmin", [](const Variable& v) { return Softmin(1)(v); }},
      {"CELU", [](const Variable& v) { return CELU(CELUOptions().alpha(1.5))(v); }},
  };
  for (const auto& [name, f] : cases) {
    SCOPED_TRACE(name);
    expect_same(kNoModule, unary(f), {x});
  }
}

TEST(CudaModulesTest, NormalizeCosineSimilarityAndPairwiseDistanceMatchTheCpu) {
  REQUIRE_GPU();
  manual_seed(12);
  const Tensor a = randn({4, 6}), b = randn({4, 6});
  expect_same(kNoModule,
              [](std::nullptr_t, const Vars& in) {
                return Vars{F::normalize(in[0]), F::normalize(in[0], 1.0, 0),
                            F::cosine_similarity(in[0], in[1]),
                            F::cosine_similarity(in[0], in[1], 0),
                            F::pairwise_distance(in[0], in[1]),
                            F::pairwise_distance(in[0], in[1], 1.0, 1e-6, true),
                            F::pairwise_distance(in[0], in[1], 3.0)};
              },
              {a, b});
}

// ---- Losses -------------------------------------------------------------------------

TEST(CudaModulesTest, NewLossesMatchTheCpu) {
  REQUIRE_GPU();
  manual_seed(13);
  const Tensor x1 = randn({4, 6}), x2 = randn({4, 6}), x3 = randn({4, 6});
  const Input sign6 = fixed(signs({6})), sign4 = fixed(signs({4}));
  const auto loss = [](auto f) {
    return [f](std::nullptr_t, const Vars& in) { return Vars{f(in)}; };
  };
  expect_same(kNoModule, loss([](const Vars& in) {
                return F::margin_ranking_loss(in[0], in[1], in[2], 0.2);
              }),
              {randn({6}), randn({6}), sign6});
  expect_same(kNoModule, loss([](const Vars& in) {
                return F::hinge_embedding_loss(in[0], in[1], 1.0, "sum");
              }),
              {randn({6}), sign6});
  expect_same(kNoModule,
              loss([](const Vars& in) { return F::soft_margin_loss(in[0], in[1], "none"); }),
              {randn({6}), sign6});
  expect_same(kNoModule, loss([](const Vars& in) {
                return F::multilabel_soft_margin_loss(in[0], in[1], in[2], "none");
              }),
              {randn({3, 5}), fixed(randint(0, 2, {3, 5}).to(kFloat32)), fixed(rand({5}))});
  expect_same(kNoModule, loss([](const Vars& in) {
                return F::cosine_embedding_loss(in[0], in[1], in[2], 0.1);
              }),
              {x1, x2, sign4});
  for (const bool swap : {false, true}) {
    expect_same(kNoModule, loss([swap](const Vars& in) {
                  return F::triplet_margin_loss(in[0], in[1], in[2], 1.0, 2.0, 1e-6, swap);
                }),
                {x1, x2, x3});
  }
  const Input counts = fixed(randint(0, 5, {4, 6}).to(kFloat32));
  expect_same(kNoModule,
              loss([](const Vars& in) { return F::poisson_nll_loss(in[0], in[1]); }),
              {x1, counts});
  expect_same(kNoModule, loss([](const Vars& in) {
                return F::poisson_nll_loss(in[0], in[1], false, true, 1e-8, "sum");
              }),
              {rand({4, 6}).add(0.5), counts});
  expect_same(kNoModule, loss([](const Vars& in) {
                return F::gaussian_nll_loss(in[0], in[1], in[2], true);
              }),
              {x1, x2, rand({4, 6}).add(0.1)});
  expect_same(kNoModule, loss([](const Vars& in) {
                return F::gaussian_nll_loss(in[0], in[1], in[2], false, 1e-6, "none");
              }),
              {x1, x2, rand({4, 1}).add(0.1)});
}

// ---- Resampling and ConvTranspose2d's output_size -----------------------------------

Vars resampled(const Variable& x, const std::vector<F::InterpolateFuncOptions>& options) {
  Vars out;
  for (const F::InterpolateFuncOptions& o : options) out.push_back(F::interpolate(x, o));
  return out;
}

TEST(CudaModulesTest, BilinearAreaAndNearestExactInterpolationMatchTheCpu) {
  REQUIRE_GPU();
  using Mode = F::InterpolateMode;
  manual_seed(14);
  const auto o = [] { return F::InterpolateFuncOptions(); };
  expect_same(kNoModule,
              [&](std::nullptr_t, const Vars& in) {
                return resampled(
                    in[0], {o().size({8, 4}).mode(Mode::kBilinear),
                            o().size({8, 4}).mode(Mode::kBilinear).align_corners(true),
                            o().scale_factor({1.5, 0.6}).mode(Mode::kBilinear),
                            o().scale_factor({1.5, 0.6}).mode(Mode::kBilinear).align_corners(true),
                            o().size({3, 4}).mode(Mode::kArea),
                            o().size({9, 5}).mode(Mode::kNearestExact),
                            o().scale_factor({0.7}).mode(Mode::kNearestExact)});
              },
              {randn({2, 3, 5, 7})});
  expect_same(kNoModule,
              [&](std::nullptr_t, const Vars& in) {
                return resampled(in[0], {o().size({4}).mode(Mode::kArea),
                                         o().scale_factor({1.7}).mode(Mode::kNearestExact)});
              },
              {randn({2, 3, 10})});
  expect_same(kNoModule,
              [&](std::nullptr_t, const Vars& in) {
                return resampled(in[0], {o().size({2, 3, 4}).mode(Mode::kArea),
                                         o().size({3, 7, 5}).mode(Mode::kNearestExact)});
              },
              {randn({1, 2, 4, 6, 6})});
}

TEST(CudaModulesTest, LinearBicubicAndTrilinearInterpolationMatchTheCpu) {
  REQUIRE_GPU();
  using Mode = F::InterpolateMode;
  manual_seed(16);
  const auto o = [] { return F::InterpolateFuncOptions(); };
  expect_same(kNoModule,
              [&](std::nullptr_t, const Vars& in) {
                return resampled(in[0], {o().size({9}).mode(Mode::kLinear),
                                         o().size({4}).mode(Mode::kLinear).align_corners(true),
                                         o().scale_factor({1.7}).mode(Mode::kLinear)});
              },
              {randn({2, 3, 6})});
  expect_same(kNoModule,
              [&](std::nullptr_t, const Vars& in) {
                return resampled(
                    in[0], {o().size({7, 9}).mode(Mode::kBicubic),
                            o().size({3, 4}).mode(Mode::kBicubic).align_corners(true),
                            o().scale_factor({1.5, 0.6}).mode(Mode::kBicubic)});
              },
              {randn({2, 3, 5, 6})});
  expect_same(kNoModule,
              [&](std::nullptr_t, const Vars& in) {
                return resampled(
                    in[0], {o().size({4, 5, 6}).mode(Mode::kTrilinear),
                            o().size({2, 7, 3}).mode(Mode::kTrilinear).align_corners(true)});
              },
              {randn({1, 2, 3, 4, 5})});
}

TEST(CudaModulesTest, ConvTranspose2dWithOutputSizeMatchesTheCpu) {
  REQUIRE_GPU();
  manual_seed(15);
  expect_same([] { return ConvTranspose2d(ConvTranspose2dOptions(3, 4, 3).stride(2).padding(1)); },
              [](ConvTranspose2d& m, const Vars& in) {
                return Vars{m->forward(in[0], {10, 9}), m->forward(in[0], {2, 4, 9, 10})};
              },
              {randn({2, 3, 5, 5})}, 1e-4, 2e-5);
}

}  // namespace
}  // namespace torchlet::nn
