// MultiheadAttention: outputs, attention weights and the gradients of every
// input and parameter against PyTorch (nn/testdata/attention_golden.txt from
// tools/gen_transformer_golden.py, PyTorch's parameters loaded by name),
// parameter names, shapes and initialization, reprs, dropout, cloning and
// PyTorch's error texts.
#include "nn/attention.h"

#include <cmath>
#include <string>
#include <vector>

#include "autograd/golden_case.h"
#include "gtest/gtest.h"
#include "nn/nn.h"
#include "tensor/test_util.h"

namespace torchlet::nn {
namespace {

using testing::all_close;
using testing::printed;

constexpr testing::Tolerance kTolerance{1e-9, 1e-10};

class AttentionCase : public testing::GoldenCase {
 public:
  explicit AttentionCase(std::string name)
      : GoldenCase(testing::golden_file("nn/testdata/attention_golden.txt"), std::move(name),
                   kFloat64, kTolerance) {}

  /// Binds every parameter of `module` to PyTorch's, by its state_dict name.
  void bind_parameters(Module& module) {
    for (const auto& [name, p] : module.named_parameters()) bind(name, p);
  }

  /// The stored mask (bool masks are stored as 0 and 1).
  Variable mask(const std::string& key, bool is_bool) const {
    return Variable(is_bool ? GoldenCase::mask(key) : constant(key));
  }

  /// Compares `value` with the stored `<case>.<key>` and returns
  /// sum(value * cot_<key>), a term of the case's loss.
  Variable term(const std::string& key, const Variable& value) const {
    EXPECT_TRUE(all_close(value.data(), stored(key), kTolerance.rtol, kTolerance.atol)) << key;
    return (value * Variable(stored("cot_" + key))).sum();
  }

  /// Checks the outputs of a call and the gradients of its loss.
  void check_outputs(const std::tuple<Variable, Variable>& result) const {
    const auto& [output, weights] = result;
    Variable loss = term("output", output);
    if (weights.defined()) loss = loss + term("weights", weights);
    check(loss);
  }
};

enum class Inputs { kSelf, kSharedKeyValue, kSeparate };

// How the case was called in PyTorch: on one tensor (self-attention), on q
// and k = v, or on q, k and v.
std::tuple<Variable, Variable, Variable> inputs_of(AttentionCase& c, Inputs inputs) {
  if (inputs == Inputs::kSelf) {
    const Variable x = c.leaf("x");
    return {x, x, x};
  }
  const Variable q = c.leaf("q"), k = c.leaf("k");
  return {q, k, inputs == Inputs::kSharedKeyValue ? k : c.leaf("v")};
}

// ---- Against PyTorch --------------------------------------------------------------

TEST(MultiheadAttentionTest, CrossAndSelfAttentionMatchPyTorch) {
  for (const auto& [name, inputs] : {std::pair{"mha_cross", Inputs::kSeparate},
                                     std::pair{"mha_self", Inputs::kSelf}}) {
    SCOPED_TRACE(name);
    MultiheadAttention mha(4, 2);
    AttentionCase c(name);
    c.bind_parameters(*mha);
    const auto [q, k, v] = inputs_of(c, inputs);
    c.check_outputs(mha(q, k, v));
  }
}

TEST(MultiheadAttentionTest, WithoutBiasAndSharedKeyValueMatchesPyTorch) {
  MultiheadAttention mha(MultiheadAttentionOptions(4, 4).bias(false));
  AttentionCase c("mha_shared_kv_nobias");
  c.bind_parameters(*mha);
  const auto [q, k, v] = inputs_of(c, Inputs::kSharedKeyValue);
  c.check_outputs(mha(q, k, v));
}

TEST(MultiheadAttentionTest, BoolMasksMatchPyTorch) {
  MultiheadAttention mha(4, 2);
  AttentionCase c("mha_bool_masks");
  c.bind_parameters(*mha);
  const auto [q, k, v] = inputs_of(c, Inputs::kSelf);
  c.check_outputs(
      mha(q, k, v, c.mask("key_padding_mask", true), true, c.mask("attn_mask", true)));
}

TEST(MultiheadAttentionTest, FloatAttnMaskWithBoolPaddingMaskMatchesPyTorch) {
  for (const char* name : {"mha_float_masks", "mha_float_mask_bool_2d"}) {
    SCOPED_TRACE(name);
    MultiheadAttention mha(4, 2);
    AttentionCase c(name);
    c.bind_parameters(*mha);
    const auto [q, k, v] = inputs_of(c, Inputs::kSeparate);
    c.check_outputs(
        mha(q, k, v, c.mask("key_padding_mask", true), true, c.mask("attn_mask", false)));
  }
}

TEST(MultiheadAttentionTest, FloatPaddingMaskMatchesPyTorch) {
  MultiheadAttention mha(4, 2);
  AttentionCase c("mha_float_padding");
  c.bind_parameters(*mha);
  const auto [q, k, v] = inputs_of(c, Inputs::kSeparate);
  c.check_outputs(mha(q, k, v, c.mask("key_padding_mask", false)));
}

TEST(MultiheadAttentionTest, KdimVdimWithPerHeadWeightsMatchPyTorch) {
  MultiheadAttention mha(MultiheadAttentionOptions(4, 2).kdim(3).vdim(5));
  AttentionCase c("mha_kdim_vdim_per_head");
  c.bind_parameters(*mha);
  const auto [q, k, v] = inputs_of(c, Inputs::kSeparate);
  const auto result = mha(q, k, v, Variable(), true, Variable(), false);
  EXPECT_EQ(std::get<1>(result).sizes(), IntArrayRef({2, 2, 3, 5}));
  c.check_outputs(result);
}

TEST(MultiheadAttentionTest, BiasKVAndZeroAttentionMatchPyTorch) {
  MultiheadAttention mha(MultiheadAttentionOptions(4, 2).add_bias_kv(true).add_zero_attn(true));
  AttentionCase c("mha_bias_kv_zero_attn");
  c.bind_parameters(*mha);
  const auto [q, k, v] = inputs_of(c, Inputs::kSeparate);
  const auto result =
      mha(q, k, v, c.mask("key_padding_mask", true), true, c.mask("attn_mask", true));
  EXPECT_EQ(std::get<1>(result).sizes(), IntArrayRef({2, 3, 7}));
  c.check_outputs(result);
}

TEST(MultiheadAttentionTest, BatchFirstMatchesPyTorch) {
  MultiheadAttention self(MultiheadAttentionOptions(4, 2).batch_first(true));
  AttentionCase c("mha_batch_first");
  c.bind_parameters(*self);
  const auto [q, k, v] = inputs_of(c, Inputs::kSelf);
  const auto result = self(q, k, v, c.mask("key_padding_mask", true));
  EXPECT_EQ(std::get<0>(result).sizes(), IntArrayRef({2, 4, 4}));
  c.check_outputs(result);

  MultiheadAttention cross(MultiheadAttentionOptions(4, 2).batch_first(true).kdim(3).vdim(3));
  AttentionCase d("mha_batch_first_cross");
  d.bind_parameters(*cross);
  const auto [q2, k2, v2] = inputs_of(d, Inputs::kSharedKeyValue);
  d.check_outputs(cross(q2, k2, v2));
}

TEST(MultiheadAttentionTest, UnbatchedInputIgnoresBatchFirstAsPyTorch) {
  MultiheadAttention mha(MultiheadAttentionOptions(4, 2).batch_first(true));
  AttentionCase c("mha_unbatched_per_head");
  c.bind_parameters(*mha);
  const auto [q, k, v] = inputs_of(c, Inputs::kSeparate);
  const auto result = mha(q, k, v, c.mask("key_padding_mask", true), true,
                          c.mask("attn_mask", false), false);
  EXPECT_EQ(std::get<0>(result).sizes(), IntArrayRef({3, 4}));
  EXPECT_EQ(std::get<1>(result).sizes(), IntArrayRef({2, 3, 5}));
  c.check_outputs(result);
}

TEST(MultiheadAttentionTest, WithoutWeightsMatchesPyTorch) {
  MultiheadAttention mha(4, 2);
  AttentionCase c("mha_no_weights");
  c.bind_parameters(*mha);
  const auto [q, k, v] = inputs_of(c, Inputs::kSelf);
  const auto result = mha(q, k, v, Variable(), false);
  EXPECT_FALSE(std::get<1>(result).defined());
  c.check_outputs(result);
}

TEST(MultiheadAttentionTest, LoadsAStateDictSavedByPyTorch) {
  const auto& golden = testing::golden_file("nn/testdata/attention_golden.txt");
  MultiheadAttention mha(MultiheadAttentionOptions(4, 2).add_bias_kv(true).add_zero_attn(true));
  mha->to(kFloat64);
  StateDict state;
  const std::string c = "mha_bias_kv_zero_attn";
  for (const std::string& key : mha->state_dict().keys()) {
    state.insert(key, golden.at(c + ".in." + key));
  }
  mha->load_state_dict(state);
  mha->eval();
  const auto [output, weights] =
      mha(Variable(golden.at(c + ".in.q")), Variable(golden.at(c + ".in.k")),
          Variable(golden.at(c + ".in.v")),
          Variable(golden.at(c + ".in.key_padding_mask").to(kBool)), true,
          Variable(golden.at(c + ".in.attn_mask").to(kBool)));
  EXPECT_TRUE(all_close(output.data(), golden.at(c + ".output"), 1e-9, 1e-10));
  EXPECT_TRUE(all_close(weights.data(), golden.at(c + ".weights"), 1e-9, 1e-10));
}

// ---- Parameters, initialization, repr ----------------------------------------------

TEST(MultiheadAttentionTest, StateDictKeysAndShapesArePyTorchs) {
  // list(nn.MultiheadAttention(4, 2).state_dict()) in 1.13, and so on.
  MultiheadAttention packed(4, 2);
  EXPECT_EQ(packed->state_dict().keys(),
            (std::vector<std::string>{"in_proj_weight", "in_proj_bias", "out_proj.weight",
                                      "out_proj.bias"}));
  EXPECT_EQ(packed->in_proj_weight.sizes(), IntArrayRef({12, 4}));
  EXPECT_EQ(packed->in_proj_bias.sizes(), IntArrayRef({12}));
  EXPECT_FALSE(packed->q_proj_weight.defined());
  EXPECT_FALSE(packed->bias_k.defined());

  MultiheadAttention separate(MultiheadAttentionOptions(4, 2).kdim(3).vdim(5).add_bias_kv(true));
  EXPECT_EQ(separate->state_dict().keys(),
            (std::vector<std::string>{"q_proj_weight", "k_proj_weight", "v_proj_weight",
                                      "in_proj_bias", "bias_k", "bias_v", "out_proj.weight",
                                      "out_proj.bias"}));
  EXPECT_EQ(separate->k_proj_weight.sizes(), IntArrayRef({4, 3}));
  EXPECT_EQ(separate->v_proj_weight.sizes(), IntArrayRef({4, 5}));
  EXPECT_EQ(separate->bias_v.sizes(), IntArrayRef({1, 1, 4}));
  EXPECT_FALSE(separate->in_proj_weight.defined());

  MultiheadAttention no_bias(MultiheadAttentionOptions(6, 3).bias(false));
  EXPECT_EQ(no_bias->state_dict().keys(),
            (std::vector<std::string>{"in_proj_weight", "out_proj.weight"}));
  EXPECT_EQ(no_bias->head_dim(), 2);
  // kdim and vdim equal to embed_dim pack the weights, as PyTorch.
  EXPECT_TRUE(MultiheadAttention(MultiheadAttentionOptions(4, 2).kdim(4).vdim(4))
                  ->qkv_same_embed_dim());
}

TEST(MultiheadAttentionTest, InitializationIsPyTorchs) {
  manual_seed(0);
  MultiheadAttention mha(MultiheadAttentionOptions(64, 4).add_bias_kv(true));
  // xavier_uniform_ on [192, 64]: bound sqrt(6 / (192 + 64)).
  const double bound = std::sqrt(6.0 / 256);
  const double max = mha->in_proj_weight.data().abs().max().item<double>();
  EXPECT_LE(max, bound);
  EXPECT_GT(max, 0.9 * bound);
  EXPECT_EQ(mha->in_proj_bias.data().abs().sum().item<double>(), 0);
  EXPECT_EQ(mha->out_proj->bias.data().abs().sum().item<double>(), 0);
  // out_proj.weight keeps Linear's kaiming_uniform_: bound 1 / sqrt(64).
  EXPECT_LE(mha->out_proj->weight.data().abs().max().item<double>(), 0.125);
  // xavier_normal_ on [1, 1, 64]: fan_in 64, fan_out 64, std sqrt(2 / 128).
  const double std = mha->bias_k.data().std().item<double>();
  EXPECT_NEAR(std, 0.125, 0.04);

  MultiheadAttention separate(MultiheadAttentionOptions(64, 4).kdim(32));
  const double k_bound = std::sqrt(6.0 / 96);
  EXPECT_LE(separate->k_proj_weight.data().abs().max().item<double>(), k_bound);
  EXPECT_GT(separate->k_proj_weight.data().abs().max().item<double>(), 0.9 * k_bound);
}

TEST(MultiheadAttentionTest, ReprIsPyTorchs) {
  EXPECT_EQ(printed(MultiheadAttention(4, 2)),
            "MultiheadAttention(\n"
            "  (out_proj): NonDynamicallyQuantizableLinear(in_features=4, out_features=4, "
            "bias=True)\n"
            ")");
  EXPECT_EQ(printed(MultiheadAttention(MultiheadAttentionOptions(6, 2).bias(false).kdim(3))),
            "MultiheadAttention(\n"
            "  (out_proj): NonDynamicallyQuantizableLinear(in_features=6, out_features=6, "
            "bias=False)\n"
            ")");
}

TEST(MultiheadAttentionTest, CloneCopiesParametersAndKeepsTheOutProjectionsClass) {
  MultiheadAttention mha(MultiheadAttentionOptions(4, 2).add_bias_kv(true));
  auto copy = std::dynamic_pointer_cast<MultiheadAttentionImpl>(mha->clone());
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(printed(*copy), printed(mha));
  EXPECT_NE(std::dynamic_pointer_cast<NonDynamicallyQuantizableLinearImpl>(copy->out_proj.ptr()),
            nullptr);
  const Variable x(randn({3, 2, 4}));
  const auto [a, wa] = mha(x, x, x);
  const auto [b, wb] = copy->forward(x, x, x);
  EXPECT_TRUE(all_close(a.data(), b.data(), 0, 0));
  copy->bias_k.set_data(zeros({1, 1, 4}));
  copy->out_proj->weight.set_data(zeros({4, 4}));
  EXPECT_NE(mha->bias_k.data().abs().sum().item<double>(), 0);
  EXPECT_NE(mha->out_proj->weight.data().abs().sum().item<double>(), 0);
  // The copy's members are its registered parameters.
  EXPECT_TRUE(copy->get_parameter("bias_k").is_same(copy->bias_k));
}

// ---- Dropout -----------------------------------------------------------------------

TEST(MultiheadAttentionTest, DropoutAppliesInTrainingOnly) {
  manual_seed(0);
  MultiheadAttention mha(MultiheadAttentionOptions(4, 2).dropout(0.5));
  const Variable x(randn({6, 2, 4}));
  mha->eval();
  const auto [eval1, w1] = mha(x, x, x, Variable(), true, Variable(), false);
  const auto [eval2, w2] = mha(x, x, x);
  EXPECT_TRUE(all_close(eval1.data(), eval2.data(), 0, 0));
  mha->train();
  const auto [train, wt] = mha(x, x, x, Variable(), true, Variable(), false);
  EXPECT_FALSE(all_close(train.data(), eval1.data()));
  // Each weight is dropped or scaled by 1 / (1 - p).
  const std::vector<double> kept = testing::values(w1.data());
  const std::vector<double> dropped = testing::values(wt.data());
  for (size_t i = 0; i < kept.size(); ++i) {
    EXPECT_TRUE(dropped[i] == 0 || std::abs(dropped[i] - 2 * kept[i]) < 1e-5) << i;
  }
}

// ---- Errors ------------------------------------------------------------------------

TEST(MultiheadAttentionTest, BadOptionsAreRefusedAsPyTorch) {
  EXPECT_THROW_MSG(MultiheadAttention(5, 2), "embed_dim must be divisible by num_heads");
  EXPECT_THROW_MSG(MultiheadAttention(4, 0),
                   "MultiheadAttention: num_heads must be positive, got 0");
  EXPECT_THROW_MSG(MultiheadAttention(MultiheadAttentionOptions(4, 2).kdim(0)),
                   "MultiheadAttention: embed_dim, kdim and vdim must be positive, got 4, 0 and 4");
}

TEST(MultiheadAttentionTest, BadInputsAreRefusedAsPyTorch) {
  MultiheadAttention mha(4, 2);
  const Variable q(randn({3, 2, 4})), kv(randn({5, 2, 4}));
  EXPECT_THROW_MSG(mha(q, kv, kv, Variable(zeros({2, 5}, kInt64))),
                   "only bool and floating types of key_padding_mask are supported");
  EXPECT_THROW_MSG(mha(Variable(randn({3, 2, 3})), kv, kv),
                   "was expecting embedding dimension of 4, but got 3");
  EXPECT_THROW_MSG(mha(q, kv, kv, Variable(), true, Variable(zeros({3, 4}))),
                   "The shape of the 2D attn_mask is torch.Size([3, 4]), but should be (3, 5).");
  EXPECT_THROW_MSG(mha(q, Variable(), kv), "MultiheadAttention: query, key and value must be "
                                           "defined");
  MultiheadAttention kdim(MultiheadAttentionOptions(4, 2).kdim(3));
  EXPECT_THROW_MSG(kdim(q, kv, kv),
                   "expecting key weights shape of (4, 4), but got torch.Size([4, 3])");
  MultiheadAttention training(MultiheadAttentionOptions(4, 2).dropout(1.5));
  EXPECT_THROW_MSG(training(q, kv, kv),
                   "dropout probability has to be between 0 and 1, but got 1.5");
}

}  // namespace
}  // namespace torchlet::nn
