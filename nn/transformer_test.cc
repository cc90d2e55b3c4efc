// The Transformer layers: outputs and the gradients of every input and
// parameter against PyTorch (nn/testdata/transformer_golden.txt from
// tools/gen_transformer_golden.py, PyTorch's parameters loaded by name), a
// checkpoint saved by PyTorch, state_dict keys, reprs, initialization,
// dropout, cloning, gradcheck and PyTorch's error texts.
#include "nn/transformer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "autograd/golden_case.h"
#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "nn/nn.h"
#include "tensor/test_util.h"

namespace torchlet::nn {
namespace {

using testing::all_close;
using testing::printed;

constexpr testing::Tolerance kTolerance{1e-9, 1e-10};

class TransformerCase : public testing::GoldenCase {
 public:
  explicit TransformerCase(std::string name)
      : GoldenCase(testing::golden_file("nn/testdata/transformer_golden.txt"), std::move(name),
                   kFloat64, kTolerance) {}

  /// Binds every parameter of `module` to PyTorch's, by its state_dict name.
  void bind_parameters(Module& module) {
    for (const auto& [name, p] : module.named_parameters()) bind(name, p);
  }

  /// The stored mask (bool masks are stored as 0 and 1).
  Variable mask(const std::string& key, bool is_bool) const {
    return Variable(is_bool ? GoldenCase::mask(key) : constant(key));
  }

  /// Compares the output with PyTorch's, then the gradients of the loss
  /// sum(output * cot_output).
  void check_output(const Variable& output) const {
    EXPECT_TRUE(all_close(output.data(), stored("output"), kTolerance.rtol, kTolerance.atol));
    check((output * Variable(stored("cot_output"))).sum());
  }
};

const Variable kNone;

// ---- Against PyTorch --------------------------------------------------------------

TEST(TransformerEncoderLayerTest, PostNormReluWithMasksMatchesPyTorch) {
  TransformerEncoderLayer layer(TransformerEncoderLayerOptions(4, 2).dim_feedforward(5));
  layer->eval();
  TransformerCase c("enc_post_relu");
  c.bind_parameters(*layer);
  c.check_output(layer(c.leaf("src"), c.mask("src_mask", false),
                       c.mask("src_key_padding_mask", true)));
}

TEST(TransformerEncoderLayerTest, PreNormGeluBatchFirstMatchesPyTorch) {
  const auto options = TransformerEncoderLayerOptions(4, 2)
                           .dim_feedforward(3)
                           .batch_first(true)
                           .norm_first(true)
                           .layer_norm_eps(1e-3);
  // "gelu", or a function computing it.
  for (const TransformerActivation& activation :
       {TransformerActivation("gelu"),
        TransformerActivation([](const Variable& x) { return functional::gelu(x); })}) {
    TransformerEncoderLayer layer(TransformerEncoderLayerOptions(options).activation(activation));
    layer->eval();
    TransformerCase c("enc_pre_gelu_batch_first");
    c.bind_parameters(*layer);
    c.check_output(layer(c.leaf("src"), kNone, c.mask("src_key_padding_mask", true)));
  }
}

TEST(TransformerEncoderLayerTest, UnbatchedInputMatchesPyTorch) {
  TransformerEncoderLayer layer(TransformerEncoderLayerOptions(4, 1).dim_feedforward(5));
  layer->eval();
  TransformerCase c("enc_unbatched");
  c.bind_parameters(*layer);
  c.check_output(layer(c.leaf("src"), c.mask("src_mask", false)));
}

TEST(TransformerDecoderLayerTest, PostNormReluWithMasksMatchesPyTorch) {
  TransformerDecoderLayer layer(TransformerDecoderLayerOptions(4, 2).dim_feedforward(3));
  layer->eval();
  TransformerCase c("dec_post_relu");
  c.bind_parameters(*layer);
  c.check_output(layer(c.leaf("tgt"), c.leaf("memory"), c.mask("tgt_mask", false), kNone, kNone,
                       c.mask("memory_key_padding_mask", true)));
}

TEST(TransformerDecoderLayerTest, PreNormGeluBatchFirstMatchesPyTorch) {
  TransformerDecoderLayer layer(TransformerDecoderLayerOptions(4, 2)
                                    .dim_feedforward(3)
                                    .activation("gelu")
                                    .batch_first(true)
                                    .norm_first(true));
  layer->eval();
  TransformerCase c("dec_pre_gelu_batch_first");
  c.bind_parameters(*layer);
  c.check_output(layer(c.leaf("tgt"), c.leaf("memory"), kNone, c.mask("memory_mask", true),
                       c.mask("tgt_key_padding_mask", true)));
}

TEST(TransformerEncoderTest, StackWithNormMatchesPyTorch) {
  TransformerEncoder encoder(
      TransformerEncoderLayer(TransformerEncoderLayerOptions(4, 2).dim_feedforward(3)), 2,
      LayerNorm(LayerNormOptions({4})));
  encoder->eval();
  TransformerCase c("encoder_norm");
  c.bind_parameters(*encoder);
  c.check_output(
      encoder(c.leaf("src"), c.mask("mask", false), c.mask("src_key_padding_mask", true)));
}

TEST(TransformerDecoderTest, NormFirstStackWithNormMatchesPyTorch) {
  TransformerDecoder decoder(TransformerDecoderOptions(
                                 TransformerDecoderLayer(TransformerDecoderLayerOptions(4, 2)
                                                             .dim_feedforward(3)
                                                             .norm_first(true)),
                                 2)
                                 .norm(LayerNorm(LayerNormOptions({4}))));
  decoder->eval();
  TransformerCase c("decoder_norm_first");
  c.bind_parameters(*decoder);
  c.check_output(decoder(c.leaf("tgt"), c.leaf("memory"), c.mask("tgt_mask", false), kNone,
                         kNone, c.mask("memory_key_padding_mask", true)));
}

TEST(TransformerTest, MatchesPyTorch) {
  Transformer model(
      TransformerOptions(4, 2).num_encoder_layers(1).num_decoder_layers(1).dim_feedforward(3));
  model->eval();
  TransformerCase c("transformer");
  c.bind_parameters(*model);
  c.check_output(model(c.leaf("src"), c.leaf("tgt"), kNone, c.mask("tgt_mask", false), kNone,
                       c.mask("src_key_padding_mask", true), kNone,
                       c.mask("memory_key_padding_mask", true)));
}

TEST(TransformerTest, BatchFirstNormFirstGeluMatchesPyTorch) {
  Transformer model(TransformerOptions(2, 2)
                        .num_encoder_layers(1)
                        .num_decoder_layers(1)
                        .dim_feedforward(3)
                        .activation("gelu")
                        .batch_first(true)
                        .norm_first(true));
  model->eval();
  TransformerCase c("transformer_batch_first_norm_first_gelu");
  c.bind_parameters(*model);
  c.check_output(model(c.leaf("src"), c.leaf("tgt"), c.mask("src_mask", false),
                       c.mask("tgt_mask", false)));
}

TEST(TransformerTest, LoadsASafetensorsCheckpointSavedByPyTorch) {
  const auto& golden = testing::golden_file("nn/testdata/transformer_golden.txt");
  Transformer model(
      TransformerOptions(4, 2).num_encoder_layers(2).num_decoder_layers(1).dim_feedforward(3));
  const StateDict state = load("nn/testdata/transformer_state.safetensors");
  // The file lists its tensors sorted by name.
  std::vector<std::string> keys = model->state_dict().keys();
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(state.keys(), keys);
  model->load_state_dict(state);
  model->eval();
  const Variable output = model(Variable(golden.at("checkpoint.in.src").to(kFloat32)),
                                Variable(golden.at("checkpoint.in.tgt").to(kFloat32)), kNone,
                                TransformerImpl::generate_square_subsequent_mask(3));
  EXPECT_EQ(output.dtype(), kFloat32);
  EXPECT_TRUE(all_close(output.data(), golden.at("checkpoint.output"), 1e-5, 1e-6));
}

// ---- Parameters, reprs, initialization ---------------------------------------------

TEST(TransformerTest, StateDictKeysArePyTorchs) {
  // list(nn.Transformer(4, 2, 1, 1, 8).state_dict()) in 1.13.
  const std::vector<std::string> expected = {
      "encoder.layers.0.self_attn.in_proj_weight",
      "encoder.layers.0.self_attn.in_proj_bias",
      "encoder.layers.0.self_attn.out_proj.weight",
      "encoder.layers.0.self_attn.out_proj.bias",
      "encoder.layers.0.linear1.weight",
      "encoder.layers.0.linear1.bias",
      "encoder.layers.0.linear2.weight",
      "encoder.layers.0.linear2.bias",
      "encoder.layers.0.norm1.weight",
      "encoder.layers.0.norm1.bias",
      "encoder.layers.0.norm2.weight",
      "encoder.layers.0.norm2.bias",
      "encoder.norm.weight",
      "encoder.norm.bias",
      "decoder.layers.0.self_attn.in_proj_weight",
      "decoder.layers.0.self_attn.in_proj_bias",
      "decoder.layers.0.self_attn.out_proj.weight",
      "decoder.layers.0.self_attn.out_proj.bias",
      "decoder.layers.0.multihead_attn.in_proj_weight",
      "decoder.layers.0.multihead_attn.in_proj_bias",
      "decoder.layers.0.multihead_attn.out_proj.weight",
      "decoder.layers.0.multihead_attn.out_proj.bias",
      "decoder.layers.0.linear1.weight",
      "decoder.layers.0.linear1.bias",
      "decoder.layers.0.linear2.weight",
      "decoder.layers.0.linear2.bias",
      "decoder.layers.0.norm1.weight",
      "decoder.layers.0.norm1.bias",
      "decoder.layers.0.norm2.weight",
      "decoder.layers.0.norm2.bias",
      "decoder.layers.0.norm3.weight",
      "decoder.layers.0.norm3.bias",
      "decoder.norm.weight",
      "decoder.norm.bias"};
  Transformer model(
      TransformerOptions(4, 2).num_encoder_layers(1).num_decoder_layers(1).dim_feedforward(8));
  EXPECT_EQ(model->state_dict().keys(), expected);
  EXPECT_EQ(model->state_dict().at("encoder.layers.0.linear1.weight").sizes(),
            IntArrayRef({8, 4}));
  // The encoder without a norm has none.
  TransformerEncoder encoder(TransformerEncoderLayer(4, 2), 2);
  EXPECT_TRUE(encoder->norm.is_empty());
  EXPECT_EQ(encoder->state_dict().keys().size(), 24u);
  EXPECT_EQ(encoder->state_dict().keys().back(), "layers.1.norm2.bias");
}

TEST(TransformerTest, DefaultsArePyTorchs) {
  const TransformerOptions o;
  EXPECT_EQ(o.d_model(), 512);
  EXPECT_EQ(o.nhead(), 8);
  EXPECT_EQ(o.num_encoder_layers(), 6);
  EXPECT_EQ(o.num_decoder_layers(), 6);
  EXPECT_EQ(o.dim_feedforward(), 2048);
  EXPECT_EQ(o.dropout(), 0.1);
  EXPECT_EQ(o.activation().name(), "relu");
  EXPECT_EQ(o.layer_norm_eps(), 1e-5);
  EXPECT_FALSE(o.batch_first());
  EXPECT_FALSE(o.norm_first());
  const TransformerEncoderLayerOptions layer(8, 2);
  EXPECT_EQ(layer.dim_feedforward(), 2048);
  EXPECT_EQ(layer.dropout(), 0.1);
  EXPECT_EQ(layer.activation().name(), "relu");
  EXPECT_EQ(layer.layer_norm_eps(), 1e-5);
}

TEST(TransformerTest, ReprsArePyTorchs) {
  const std::string encoder_layer =
      "TransformerEncoderLayer(\n"
      "  (self_attn): MultiheadAttention(\n"
      "    (out_proj): NonDynamicallyQuantizableLinear(in_features=4, out_features=4, "
      "bias=True)\n"
      "  )\n"
      "  (linear1): Linear(in_features=4, out_features=8, bias=True)\n"
      "  (dropout): Dropout(p=0.1, inplace=False)\n"
      "  (linear2): Linear(in_features=8, out_features=4, bias=True)\n"
      "  (norm1): LayerNorm((4,), eps=1e-05, elementwise_affine=True)\n"
      "  (norm2): LayerNorm((4,), eps=1e-05, elementwise_affine=True)\n"
      "  (dropout1): Dropout(p=0.1, inplace=False)\n"
      "  (dropout2): Dropout(p=0.1, inplace=False)\n"
      ")";
  EXPECT_EQ(printed(TransformerEncoderLayer(TransformerEncoderLayerOptions(4, 2)
                                                .dim_feedforward(8)
                                                .activation("gelu"))),
            encoder_layer);
  // print(nn.Transformer(4, 2, 1, 1, 8)) in 1.13.
  EXPECT_EQ(
      printed(Transformer(
          TransformerOptions(4, 2).num_encoder_layers(1).num_decoder_layers(1).dim_feedforward(8))),
      "Transformer(\n"
      "  (encoder): TransformerEncoder(\n"
      "    (layers): ModuleList(\n"
      "      (0): TransformerEncoderLayer(\n"
      "        (self_attn): MultiheadAttention(\n"
      "          (out_proj): NonDynamicallyQuantizableLinear(in_features=4, out_features=4, "
      "bias=True)\n"
      "        )\n"
      "        (linear1): Linear(in_features=4, out_features=8, bias=True)\n"
      "        (dropout): Dropout(p=0.1, inplace=False)\n"
      "        (linear2): Linear(in_features=8, out_features=4, bias=True)\n"
      "        (norm1): LayerNorm((4,), eps=1e-05, elementwise_affine=True)\n"
      "        (norm2): LayerNorm((4,), eps=1e-05, elementwise_affine=True)\n"
      "        (dropout1): Dropout(p=0.1, inplace=False)\n"
      "        (dropout2): Dropout(p=0.1, inplace=False)\n"
      "      )\n"
      "    )\n"
      "    (norm): LayerNorm((4,), eps=1e-05, elementwise_affine=True)\n"
      "  )\n"
      "  (decoder): TransformerDecoder(\n"
      "    (layers): ModuleList(\n"
      "      (0): TransformerDecoderLayer(\n"
      "        (self_attn): MultiheadAttention(\n"
      "          (out_proj): NonDynamicallyQuantizableLinear(in_features=4, out_features=4, "
      "bias=True)\n"
      "        )\n"
      "        (multihead_attn): MultiheadAttention(\n"
      "          (out_proj): NonDynamicallyQuantizableLinear(in_features=4, out_features=4, "
      "bias=True)\n"
      "        )\n"
      "        (linear1): Linear(in_features=4, out_features=8, bias=True)\n"
      "        (dropout): Dropout(p=0.1, inplace=False)\n"
      "        (linear2): Linear(in_features=8, out_features=4, bias=True)\n"
      "        (norm1): LayerNorm((4,), eps=1e-05, elementwise_affine=True)\n"
      "        (norm2): LayerNorm((4,), eps=1e-05, elementwise_affine=True)\n"
      "        (norm3): LayerNorm((4,), eps=1e-05, elementwise_affine=True)\n"
      "        (dropout1): Dropout(p=0.1, inplace=False)\n"
      "        (dropout2): Dropout(p=0.1, inplace=False)\n"
      "        (dropout3): Dropout(p=0.1, inplace=False)\n"
      "      )\n"
      "    )\n"
      "    (norm): LayerNorm((4,), eps=1e-05, elementwise_affine=True)\n"
      "  )\n"
      ")");
}

TEST(TransformerEncoderTest, LayersAreDeepCopiesOfTheLayerGiven) {
  TransformerEncoderLayer prototype(TransformerEncoderLayerOptions(4, 2).dim_feedforward(6));
  LayerNorm norm(LayerNormOptions({4}));
  TransformerEncoder encoder(prototype, 3, norm);
  ASSERT_EQ(encoder->layers->size(), 3u);
  const Tensor weight = prototype->linear1->weight.data();
  for (int64_t i = 0; i < 3; ++i) {
    auto layer = encoder->layers->ptr<TransformerEncoderLayerImpl>(i);
    EXPECT_NE(layer.get(), prototype.get());
    EXPECT_TRUE(all_close(layer->linear1->weight.data(), weight, 0, 0));
    EXPECT_FALSE(layer->linear1->weight.is_same(prototype->linear1->weight));
  }
  // The norm given is registered itself, as in PyTorch.
  EXPECT_EQ(encoder->norm.get(), norm.get());
  encoder->layers->ptr<TransformerEncoderLayerImpl>(0)->linear1->weight.set_data(zeros({6, 4}));
  EXPECT_NE(encoder->layers->ptr<TransformerEncoderLayerImpl>(1)
                ->linear1->weight.data()
                .abs()
                .sum()
                .item<double>(),
            0);
}

TEST(TransformerTest, InitializationIsXavierUniformForMatrices) {
  manual_seed(0);
  Transformer model(TransformerOptions(16, 2)
                        .num_encoder_layers(1)
                        .num_decoder_layers(1)
                        .dim_feedforward(48));
  // linear1.weight [48, 16]: xavier bound sqrt(6 / 64), far below Linear's
  // kaiming bound 1 / 4.
  const Variable w = model->get_parameter("encoder.layers.0.linear1.weight");
  const double bound = std::sqrt(6.0 / 64);
  EXPECT_LE(w.data().abs().max().item<double>(), bound);
  EXPECT_GT(w.data().abs().max().item<double>(), 0.25);
  const Variable out_w = model->get_parameter("decoder.layers.0.multihead_attn.out_proj.weight");
  EXPECT_GT(out_w.data().abs().max().item<double>(), 0.25);  // kaiming's bound is 1 / 4
  // Vectors keep their own initialization.
  EXPECT_EQ(testing::values(model->get_parameter("decoder.norm.weight").data()),
            std::vector<double>(16, 1.0));
  EXPECT_EQ(model->get_parameter("encoder.layers.0.self_attn.in_proj_bias")
                .data()
                .abs()
                .sum()
                .item<double>(),
            0);
}

TEST(TransformerTest, GenerateSquareSubsequentMaskIsPyTorchs) {
  const double inf = std::numeric_limits<double>::infinity();
  const Variable mask = TransformerImpl::generate_square_subsequent_mask(3);
  EXPECT_EQ(mask.dtype(), kFloat32);
  EXPECT_EQ(mask.sizes(), IntArrayRef({3, 3}));
  EXPECT_EQ(testing::values(mask.data()),
            (std::vector<double>{0, -inf, -inf, 0, 0, -inf, 0, 0, 0}));
  EXPECT_EQ(TransformerImpl::generate_square_subsequent_mask(0).sizes(), IntArrayRef({0, 0}));
  EXPECT_THROW_MSG(TransformerImpl::generate_square_subsequent_mask(-1),
                   "generate_square_subsequent_mask: sz must be non-negative, got -1");
}

TEST(TransformerTest, CustomEncoderAndDecoderAreUsed) {
  TransformerEncoder encoder(TransformerEncoderLayer(4, 2), 1);
  TransformerDecoder decoder(TransformerDecoderLayer(4, 2), 2);
  Transformer model(TransformerOptions(4, 2).custom_encoder(encoder).custom_decoder(decoder));
  EXPECT_EQ(model->encoder.get(), encoder.get());
  EXPECT_EQ(model->decoder->layers->size(), 2u);
  EXPECT_TRUE(model->encoder->norm.is_empty());
  model->eval();
  const Variable src(randn({5, 2, 4})), tgt(randn({3, 2, 4}));
  EXPECT_TRUE(all_close(model(src, tgt).data(), decoder(tgt, encoder(src)).data(), 0, 0));
}

// ---- Training mode, cloning, hooks -----------------------------------------------

TEST(TransformerTest, DropoutAppliesInTrainingOnly) {
  manual_seed(0);
  Transformer model(TransformerOptions(8, 2)
                        .num_encoder_layers(1)
                        .num_decoder_layers(1)
                        .dim_feedforward(16)
                        .dropout(0.5));
  const Variable src(randn({5, 2, 8})), tgt(randn({3, 2, 8}));
  model->eval();
  const Tensor eval1 = model(src, tgt).data();
  EXPECT_TRUE(all_close(model(src, tgt).data(), eval1, 0, 0));
  model->train();
  const Tensor train1 = model(src, tgt).data();
  const Tensor train2 = model(src, tgt).data();
  EXPECT_FALSE(all_close(train1, eval1));
  EXPECT_FALSE(all_close(train1, train2));
  // Without dropout, training computes what eval does.
  Transformer plain(TransformerOptions(8, 2)
                        .num_encoder_layers(1)
                        .num_decoder_layers(1)
                        .dim_feedforward(16)
                        .dropout(0.0));
  const Tensor train = plain(src, tgt).data();
  plain->eval();
  EXPECT_TRUE(all_close(plain(src, tgt).data(), train, 0, 0));
}

TEST(TransformerTest, CloneCopiesEverythingAndRunsTheSame) {
  Transformer model(TransformerOptions(4, 2)
                        .num_encoder_layers(2)
                        .num_decoder_layers(1)
                        .dim_feedforward(8)
                        .activation("gelu"));
  model->eval();
  auto copy = std::dynamic_pointer_cast<TransformerImpl>(model->clone());
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(printed(*copy), printed(model));
  EXPECT_EQ(copy->state_dict().keys(), model->state_dict().keys());
  const Variable src(randn({5, 2, 4})), tgt(randn({3, 2, 4}));
  const Variable mask = TransformerImpl::generate_square_subsequent_mask(3);
  EXPECT_TRUE(all_close(copy->forward(src, tgt, kNone, mask).data(),
                        model(src, tgt, kNone, mask).data(), 0, 0));
  for (const auto& [name, p] : copy->named_parameters()) {
    EXPECT_FALSE(p.is_same(model->get_parameter(name))) << name;
  }
  // The clone's encoder norm is its own.
  EXPECT_NE(copy->encoder->norm.get(), model->encoder->norm.get());
  copy->get_parameter("encoder.norm.weight").set_data(zeros({4}));
  EXPECT_EQ(model->get_parameter("encoder.norm.weight").data().sum().item<double>(), 4);
}

TEST(TransformerEncoderTest, LayersAreCalledWithTheirHooks) {
  TransformerEncoder encoder(TransformerEncoderLayer(4, 2), 2);
  encoder->eval();
  int calls = 0;
  encoder->layers->ptr<TransformerEncoderLayerImpl>(1)->register_forward_hook(
      [&](Module&, const Variable&, const Variable&, const Variable&, Variable& out) {
        ++calls;
        out = out * 0;
      });
  const Variable out = encoder(Variable(randn({3, 2, 4})));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(out.data().abs().sum().item<double>(), 0);
}

// ---- Finite differences ------------------------------------------------------------

Variable leaf(std::vector<int64_t> shape) { return Variable(randn(shape, kFloat64), true); }

variable_list with_parameters(Module& module, variable_list inputs) {
  module.to(kFloat64);
  for (const Variable& p : module.parameters()) inputs.push_back(p);
  return inputs;
}

TEST(TransformerGradcheckTest, LayersPassGradcheck) {
  manual_seed(0);
  TransformerEncoderLayer encoder(
      TransformerEncoderLayerOptions(4, 2).dim_feedforward(3).activation("gelu"));
  encoder->eval();
  const Variable padding(tensor({{false, false, true}, {false, false, false}}));
  EXPECT_TRUE(testing::gradcheck(
      [&](const variable_list& in) { return encoder(in[0], in[1], padding); },
      with_parameters(*encoder, {leaf({3, 2, 4}), leaf({3, 3})})));
  TransformerDecoderLayer decoder(
      TransformerDecoderLayerOptions(4, 2).dim_feedforward(3).norm_first(true).activation("gelu"));
  decoder->eval();
  EXPECT_TRUE(testing::gradcheck(
      [&](const variable_list& in) { return decoder(in[0], in[1]); },
      with_parameters(*decoder, {leaf({2, 2, 4}), leaf({3, 2, 4})})));
}

// ---- Errors ------------------------------------------------------------------------

TEST(TransformerErrorsTest, BadOptionsAreRefusedAsPyTorch) {
  EXPECT_THROW_MSG(TransformerEncoderLayer(TransformerEncoderLayerOptions(4, 2).activation("tanh")),
                   "activation should be relu/gelu, not tanh");
  EXPECT_THROW_MSG(TransformerDecoderLayer(TransformerDecoderLayerOptions(4, 2).activation("elu")),
                   "activation should be relu/gelu, not elu");
  EXPECT_THROW_MSG(
      TransformerEncoderLayer(
          TransformerEncoderLayerOptions(4, 2).activation(TransformerActivation::Function())),
      "activation should be relu/gelu or a function, got an empty function");
  EXPECT_THROW_MSG(TransformerEncoderLayer(4, 3), "embed_dim must be divisible by num_heads");
  EXPECT_THROW_MSG(TransformerDecoderLayer(TransformerDecoderLayerOptions(4, 2).dropout(1.5)),
                   "dropout probability has to be between 0 and 1, but got 1.5");
  EXPECT_THROW_MSG(Transformer(TransformerOptions(6, 4)),
                   "embed_dim must be divisible by num_heads");
  EXPECT_THROW_MSG(
      TransformerEncoderLayer(TransformerEncoderLayerOptions(4, 2).dim_feedforward(0)),
      "TransformerEncoderLayer: d_model and dim_feedforward must be positive, got 4 and 0");
  EXPECT_THROW_MSG(TransformerEncoder(TransformerEncoderLayer(4, 2), 0),
                   "TransformerEncoder: num_layers must be at least 1, got 0");
  EXPECT_THROW_MSG(TransformerDecoder(TransformerDecoderLayer(nullptr), 1),
                   "TransformerDecoder: decoder_layer must not be empty");
  EXPECT_THROW_MSG(TransformerEncoder(TransformerEncoderLayer(nullptr), 1),
                   "TransformerEncoder: encoder_layer must not be empty");
}

TEST(TransformerErrorsTest, BadInputsAreRefusedAsPyTorch) {
  Transformer model(
      TransformerOptions(4, 2).num_encoder_layers(1).num_decoder_layers(1).dim_feedforward(8));
  EXPECT_THROW_MSG(model(Variable(randn({3, 2, 4})), Variable(randn({3, 1, 4}))),
                   "the batch number of src and tgt must be equal");
  EXPECT_THROW_MSG(model(Variable(randn({3, 2, 4})), Variable(randn({3, 2, 5}))),
                   "the feature number of src and tgt must be equal to d_model");
  Transformer batch_first(TransformerOptions(4, 2)
                              .num_encoder_layers(1)
                              .num_decoder_layers(1)
                              .dim_feedforward(8)
                              .batch_first(true));
  EXPECT_THROW_MSG(batch_first(Variable(randn({2, 3, 4})), Variable(randn({1, 3, 4}))),
                   "the batch number of src and tgt must be equal");
  EXPECT_THROW_MSG(model(Variable(randn({3, 2, 4})), kNone),
                   "Transformer: src and tgt must be defined");
  TransformerEncoderLayer layer(4, 2);
  TransformerEncoder encoder(layer, 1);
  const Variable src(randn({3, 2, 4}));
  const Variable int_mask(zeros({2, 3}, kInt64));
  EXPECT_THROW_MSG(layer(src, kNone, int_mask),
                   "only bool and floating types of key_padding_mask are supported");
  EXPECT_THROW_MSG(encoder(src, kNone, int_mask),
                   "only bool and floating types of key_padding_mask are supported");
  EXPECT_THROW_MSG(layer(src, Variable(zeros({3, 4}))),
                   "The shape of the 2D attn_mask is torch.Size([3, 4]), but should be (3, 3).");
  TransformerDecoderLayer decoder(4, 2);
  // PyTorch's text: the memory's features meet the key projection.
  EXPECT_THROW_MSG(decoder(src, Variable(randn({5, 2, 3}))),
                   "mat1 and mat2 shapes cannot be multiplied (10x3 and 4x8)");
}

}  // namespace
}  // namespace torchlet::nn
