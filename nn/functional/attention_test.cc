// multi_head_attention_forward: outputs, attention weights and gradients
// against PyTorch (nn/functional/testdata/attention_golden.txt from
// tools/gen_transformer_golden.py), gradcheck, dropout in training, the
// masks' dtypes and PyTorch's error texts.
#include "nn/functional/attention.h"

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "autograd/autograd.h"
#include "autograd/golden_case.h"
#include "autograd/gradcheck.h"
#include "nn/functional/dropout.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

namespace F = nn::functional;
using testing::all_close;

constexpr testing::Tolerance kTolerance{1e-9, 1e-10};

class AttentionCase : public testing::GoldenCase {
 public:
  explicit AttentionCase(std::string name)
      : GoldenCase(testing::golden_file("nn/functional/testdata/attention_golden.txt"),
                   std::move(name), kFloat64, kTolerance) {}

  /// Compares `value` with the stored `<case>.<key>` and returns
  /// sum(value * cot_<key>), a term of the case's loss.
  Variable term(const std::string& key, const Variable& value) const {
    EXPECT_TRUE(all_close(value.data(), stored(key), kTolerance.rtol, kTolerance.atol)) << key;
    return (value * Variable(stored("cot_" + key))).sum();
  }
};

// ---- Against PyTorch --------------------------------------------------------------

TEST(MultiHeadAttentionForwardTest, PackedSelfAttentionMatchesPyTorch) {
  AttentionCase c("packed_self");
  const Variable x = c.leaf("x");
  auto [output, weights] = F::multi_head_attention_forward(
      x, x, x, 4, 2, c.leaf("in_proj_weight"), c.leaf("in_proj_bias"), Variable(), Variable(),
      false, 0.0, c.leaf("out_proj_weight"), c.leaf("out_proj_bias"), /*training=*/false);
  EXPECT_EQ(weights.sizes(), IntArrayRef({2, 3, 3}));
  c.check(c.term("output", output) + c.term("weights", weights));
}

TEST(MultiHeadAttentionForwardTest, SeparateWeightsAndPerHeadWeightsMatchPyTorch) {
  AttentionCase c("separate_per_head");
  auto [output, weights] = F::multi_head_attention_forward(
      c.leaf("q"), c.leaf("k"), c.leaf("v"), 4, 2, Variable(), c.leaf("in_proj_bias"),
      Variable(), Variable(), false, 0.0, c.leaf("out_proj_weight"), Variable(), false,
      Variable(), true, Variable(c.constant("attn_mask")), /*use_separate_proj_weight=*/true,
      c.leaf("q_proj_weight"), c.leaf("k_proj_weight"), c.leaf("v_proj_weight"), Variable(),
      Variable(), /*average_attn_weights=*/false);
  EXPECT_EQ(weights.sizes(), IntArrayRef({2, 2, 3, 5}));
  c.check(c.term("output", output) + c.term("weights", weights));
}

TEST(MultiHeadAttentionForwardTest, StaticKeyValueAndZeroAttentionMatchPyTorch) {
  AttentionCase c("static_kv_zero_attn");
  auto [output, weights] = F::multi_head_attention_forward(
      c.leaf("q"), Variable(c.constant("k")), Variable(c.constant("v")), 4, 2,
      c.leaf("in_proj_weight"), Variable(), Variable(), Variable(), /*add_zero_attn=*/true, 0.0,
      c.leaf("out_proj_weight"), c.leaf("out_proj_bias"), false,
      Variable(c.mask("key_padding_mask")), true, Variable(), false, Variable(), Variable(),
      Variable(), c.leaf("static_k"), c.leaf("static_v"));
  EXPECT_EQ(weights.sizes(), IntArrayRef({2, 3, 7}));
  c.check(c.term("output", output) + c.term("weights", weights));
}

TEST(MultiHeadAttentionForwardTest, BiasKVOnUnbatchedInputMatchesPyTorch) {
  AttentionCase c("bias_kv_unbatched");
  auto [output, weights] = F::multi_head_attention_forward(
      c.leaf("q"), c.leaf("k"), c.leaf("v"), 4, 1, c.leaf("in_proj_weight"),
      c.leaf("in_proj_bias"), c.leaf("bias_k"), c.leaf("bias_v"), false, 0.0,
      c.leaf("out_proj_weight"), c.leaf("out_proj_bias"), false,
      Variable(c.mask("key_padding_mask")), true, Variable(c.constant("attn_mask")));
  EXPECT_EQ(output.sizes(), IntArrayRef({3, 4}));
  EXPECT_EQ(weights.sizes(), IntArrayRef({3, 6}));
  c.check(c.term("output", output) + c.term("weights", weights));
}

TEST(MultiHeadAttentionForwardTest, WithoutWeightsReturnsAnUndefinedSecondOutput) {
  AttentionCase c("need_weights_false");
  auto [output, weights] = F::multi_head_attention_forward(
      c.leaf("q"), c.leaf("k"), c.leaf("v"), 4, 4, c.leaf("in_proj_weight"),
      c.leaf("in_proj_bias"), Variable(), Variable(), false, 0.0, c.leaf("out_proj_weight"),
      c.leaf("out_proj_bias"), false, Variable(), /*need_weights=*/false);
  EXPECT_FALSE(weights.defined());
  c.check(c.term("output", output));
}

// ---- Finite differences ------------------------------------------------------------

Variable leaf(std::vector<int64_t> shape) { return Variable(randn(shape, kFloat64), true); }

TEST(MultiHeadAttentionForwardTest, PassesGradcheckWithMasksBiasKVAndZeroAttention) {
  manual_seed(0);
  // q, k, v, in_proj_weight, in_proj_bias, bias_k, bias_v, out_proj_weight,
  // out_proj_bias and a floating attn_mask, all differentiated.
  const variable_list inputs = {leaf({2, 2, 4}), leaf({3, 2, 4}), leaf({3, 2, 4}),
                                leaf({12, 4}),   leaf({12}),      leaf({1, 1, 4}),
                                leaf({1, 1, 4}), leaf({4, 4}),    leaf({4}),
                                leaf({2, 3})};
  const Variable padding(tensor({{false, true, false}, {false, false, false}}));
  EXPECT_TRUE(testing::gradcheck(
      [&](const variable_list& in) {
        auto [output, weights] = F::multi_head_attention_forward(
            in[0], in[1], in[2], 4, 2, in[3], in[4], in[5], in[6], /*add_zero_attn=*/true, 0.0,
            in[7], in[8], false, padding, true, in[9]);
        return cat({output.reshape({-1}), weights.reshape({-1})});
      },
      inputs));
}

TEST(MultiHeadAttentionForwardTest, PassesGradcheckWithSeparateWeightsAndPerHeadWeights) {
  manual_seed(1);
  const variable_list inputs = {leaf({3, 4}), leaf({2, 3}), leaf({2, 5}), leaf({4, 4}),
                                leaf({4, 3}), leaf({4, 5}), leaf({4, 4})};
  const Variable padding(randn({2}, kFloat64));
  EXPECT_TRUE(testing::gradcheck(
      [&](const variable_list& in) {
        auto [output, weights] = F::multi_head_attention_forward(
            in[0], in[1], in[2], 4, 2, Variable(), Variable(), Variable(), Variable(), false,
            0.0, in[6], Variable(), false, padding, true, Variable(), true, in[3], in[4], in[5],
            Variable(), Variable(), /*average_attn_weights=*/false);
        return cat({output.reshape({-1}), weights.reshape({-1})});
      },
      inputs));
}

// ---- Masks -----------------------------------------------------------------------

struct Weights {
  Variable in_proj_weight{randn({12, 4}, kFloat64)};
  Variable in_proj_bias{randn({12}, kFloat64)};
  Variable out_proj_weight{randn({4, 4}, kFloat64)};
  Variable out_proj_bias{randn({4}, kFloat64)};

  std::tuple<Variable, Variable> attend(const Variable& q, const Variable& kv,
                                        const Variable& key_padding_mask,
                                        const Variable& attn_mask, double dropout_p = 0,
                                        bool training = false, bool average = true) const {
    return F::multi_head_attention_forward(q, kv, kv, 4, 2, in_proj_weight, in_proj_bias,
                                           Variable(), Variable(), false, dropout_p,
                                           out_proj_weight, out_proj_bias, training,
                                           key_padding_mask, true, attn_mask, false, Variable(),
                                           Variable(), Variable(), Variable(), Variable(),
                                           average);
  }
};

TEST(MultiHeadAttentionForwardTest, BoolMaskIsMinusInfinityAsAFloatMask) {
  manual_seed(2);
  const Weights w;
  const Variable q(randn({3, 2, 4}, kFloat64)), kv(randn({4, 2, 4}, kFloat64));
  const Tensor mask = randn({3, 4}).gt(0.5);
  const Tensor as_float = zeros({3, 4}, kFloat64).masked_fill(mask, -INFINITY);
  const Tensor padding = tensor({{false, false, true, false}, {true, false, false, false}});
  const auto [a, wa] = w.attend(q, kv, Variable(padding), Variable(mask));
  const auto [b, wb] = w.attend(q, kv, Variable(padding), Variable(as_float));
  const auto [c, wc] = w.attend(q, kv, Variable(padding.to(kFloat64).mul(-1e300)),
                                Variable(as_float));
  EXPECT_TRUE(all_close(a.data(), b.data(), 1e-12, 1e-12));
  EXPECT_TRUE(all_close(a.data(), c.data(), 1e-12, 1e-12));
  // The masked keys get no weight.
  EXPECT_EQ(wa.data().select(0, 0).select(1, 2).abs().sum().item<double>(), 0);
  EXPECT_EQ(wa.data().select(0, 1).select(1, 0).abs().sum().item<double>(), 0);
}

TEST(MultiHeadAttentionForwardTest, ByteAttnMaskWarnsAndActsAsBool) {
  manual_seed(3);
  const Weights w;
  const Variable q(randn({3, 2, 4}, kFloat64)), kv(randn({4, 2, 4}, kFloat64));
  const Tensor mask = randn({3, 4}).gt(0.5);
  testing::WarningCapture warnings;
  const auto [a, wa] = w.attend(q, kv, Variable(), Variable(mask.to(kUInt8)));
  ASSERT_EQ(warnings.messages().size(), 1u);
  EXPECT_EQ(warnings.messages()[0],
            "Byte tensor for attn_mask in nn.MultiheadAttention is deprecated. Use bool tensor "
            "instead.");
  const auto [b, wb] = w.attend(q, kv, Variable(), Variable(mask));
  EXPECT_TRUE(all_close(a.data(), b.data(), 0, 0));
}

TEST(MultiHeadAttentionForwardTest, FloatPaddingMaskIsAddedToAFloatAttnMask) {
  // A deliberate difference from 1.13, which drops the padding mask here.
  manual_seed(4);
  const Weights w;
  const Variable q(randn({3, 2, 4}, kFloat64)), kv(randn({4, 2, 4}, kFloat64));
  const Tensor attn = randn({3, 4}, kFloat64);
  const Tensor padding = randn({2, 4}, kFloat64);
  const auto [a, wa] = w.attend(q, kv, Variable(padding), Variable(attn));
  // The same sum as one 3-D float mask [N * num_heads, L, S].
  const Tensor sum = attn.unsqueeze(0).add(padding.unsqueeze(1).unsqueeze(1).expand({2, 2, 3, 4})
                                               .reshape({4, 3, 4}));
  const auto [b, wb] = w.attend(q, kv, Variable(), Variable(sum));
  EXPECT_TRUE(all_close(a.data(), b.data(), 1e-12, 1e-12));
}

// ---- Dropout ---------------------------------------------------------------------

TEST(MultiHeadAttentionForwardTest, DropoutZeroesOrScalesEachAttentionWeightInTraining) {
  manual_seed(5);
  const Weights w;
  const Variable q(randn({6, 3, 4}, kFloat64)), kv(randn({8, 3, 4}, kFloat64));
  const auto [eval_out, eval_w] = w.attend(q, kv, Variable(), Variable(), 0.5, false, false);
  manual_seed(6);
  const auto [train_out, train_w] = w.attend(q, kv, Variable(), Variable(), 0.5, true, false);
  const std::vector<double> kept = testing::values(eval_w.data());
  const std::vector<double> dropped = testing::values(train_w.data());
  int64_t zeros_seen = 0;
  for (size_t i = 0; i < kept.size(); ++i) {
    EXPECT_TRUE(dropped[i] == 0 || std::abs(dropped[i] - 2 * kept[i]) < 1e-12) << i;
    zeros_seen += dropped[i] == 0;
  }
  EXPECT_GT(zeros_seen, static_cast<int64_t>(kept.size()) / 4);
  EXPECT_LT(zeros_seen, 3 * static_cast<int64_t>(kept.size()) / 4);
  EXPECT_FALSE(all_close(train_out.data(), eval_out.data()));
}

TEST(MultiHeadAttentionForwardTest, DropoutDrawsTheMaskOfFunctionalDropout) {
  manual_seed(7);
  const Weights w;
  const Variable q(randn({3, 2, 4}, kFloat64)), kv(randn({5, 2, 4}, kFloat64));
  const auto [eval_out, eval_w] = w.attend(q, kv, Variable(), Variable(), 0.3, false, false);
  manual_seed(8);
  const auto [train_out, train_w] = w.attend(q, kv, Variable(), Variable(), 0.3, true, false);
  manual_seed(8);
  const Variable expected = F::dropout(eval_w.reshape({4, 3, 5}), 0.3);
  EXPECT_TRUE(all_close(train_w.data(), expected.data().view({2, 2, 3, 5}), 1e-12, 1e-14));
}

TEST(MultiHeadAttentionForwardTest, DropoutOneLeavesOnlyTheOutputBias) {
  const Weights w;
  const Variable q(randn({3, 2, 4}, kFloat64)), kv(randn({5, 2, 4}, kFloat64));
  const auto [out, weights] = w.attend(q, kv, Variable(), Variable(), 1.0, true);
  EXPECT_TRUE(all_close(out.data(), w.out_proj_bias.data().expand({3, 2, 4}), 0, 1e-14));
  // Out of training, dropout_p is not even checked (PyTorch sets it to 0).
  EXPECT_NO_THROW(w.attend(q, kv, Variable(), Variable(), 2.0, false));
  EXPECT_THROW_MSG(w.attend(q, kv, Variable(), Variable(), 2.0, true),
                   "dropout probability has to be between 0 and 1, but got 2");
}

// ---- Errors ----------------------------------------------------------------------

TEST(MultiHeadAttentionForwardTest, BadShapesAreRefusedAsPyTorch) {
  const Weights w;
  const Variable q(randn({3, 2, 4}, kFloat64)), kv(randn({5, 2, 4}, kFloat64));
  const Variable q2(randn({3, 4}, kFloat64)), kv2(randn({5, 4}, kFloat64));
  auto call = [&](const Variable& query, const Variable& key, const Variable& value,
                  const Variable& padding = Variable(), const Variable& mask = Variable()) {
    return F::multi_head_attention_forward(query, key, value, 4, 2, w.in_proj_weight,
                                           w.in_proj_bias, Variable(), Variable(), false, 0.0,
                                           w.out_proj_weight, w.out_proj_bias, false, padding,
                                           true, mask);
  };
  EXPECT_THROW_MSG(call(q, kv2, kv),
                   "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                   "2-D and 3-D tensors respectively");
  EXPECT_THROW_MSG(call(q, kv, kv, Variable(zeros({5}, kBool))),
                   "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D "
                   "but found 1-D tensor instead");
  EXPECT_THROW_MSG(call(q, kv, kv, Variable(), Variable(zeros({1, 4, 3, 5}))),
                   "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                   "found 4-D tensor instead");
  EXPECT_THROW_MSG(call(Variable(randn({4}, kFloat64)), kv, kv),
                   "query should be unbatched 2D or batched 3D tensor but received 1-D query "
                   "tensor");
  EXPECT_THROW_MSG(call(q2, kv2, kv),
                   "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                   "2-D and 3-D tensors respectively");
  EXPECT_THROW_MSG(call(q2, kv2, kv2, Variable(zeros({2, 5}, kBool))),
                   "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D "
                   "but found 2-D tensor instead");
  EXPECT_THROW_MSG(call(q2, kv2, kv2, Variable(), Variable(zeros({5}))),
                   "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                   "but found 1-D tensor instead");
  EXPECT_THROW_MSG(call(q2, kv2, kv2, Variable(), Variable(zeros({3, 3, 5}))),
                   "Expected `attn_mask` shape to be (2, 3, 5) but got torch.Size([3, 3, 5])");
  EXPECT_THROW_MSG(call(Variable(randn({3, 2, 3}, kFloat64)), kv, kv),
                   "was expecting embedding dimension of 4, but got 3");
  EXPECT_THROW_MSG(call(q, kv, Variable(randn({4, 2, 4}, kFloat64))),
                   "key shape torch.Size([5, 2, 4]) does not match value shape "
                   "torch.Size([4, 2, 4])");
  EXPECT_THROW_MSG(call(q, kv, kv, Variable(zeros({2, 4}, kBool))),
                   "expecting key_padding_mask shape of (2, 5), but got torch.Size([2, 4])");
  EXPECT_THROW_MSG(call(q, kv, kv, Variable(zeros({2, 5}, kInt64))),
                   "only bool and floating types of key_padding_mask are supported");
  EXPECT_THROW_MSG(call(q, kv, kv, Variable(), Variable(zeros({3, 5}, kInt64))),
                   "Only float, byte, and bool types are supported for attn_mask, not "
                   "torch.int64");
  EXPECT_THROW_MSG(call(q, kv, kv, Variable(), Variable(zeros({3, 4}))),
                   "The shape of the 2D attn_mask is torch.Size([3, 4]), but should be (3, 5).");
  EXPECT_THROW_MSG(call(q, kv, kv, Variable(), Variable(zeros({3, 3, 5}))),
                   "The shape of the 3D attn_mask is torch.Size([3, 3, 5]), but should be "
                   "(4, 3, 5).");
}

TEST(MultiHeadAttentionForwardTest, BadWeightsAreRefusedAsPyTorch) {
  const Weights w;
  const Variable q(randn({3, 2, 4}, kFloat64)), k(randn({5, 2, 3}, kFloat64)),
      v(randn({5, 2, 5}, kFloat64));
  const Variable wq(randn({4, 4}, kFloat64)), wk(randn({4, 3}, kFloat64)),
      wv(randn({4, 5}, kFloat64));
  auto separate = [&](const Variable& query, const Variable& key, const Variable& value,
                      const Variable& q_w, const Variable& k_w, const Variable& v_w,
                      const Variable& bias = Variable()) {
    return F::multi_head_attention_forward(query, key, value, 4, 2, Variable(), bias, Variable(),
                                           Variable(), false, 0.0, w.out_proj_weight, Variable(),
                                           false, Variable(), true, Variable(), true, q_w, k_w,
                                           v_w);
  };
  EXPECT_NO_THROW(separate(q, k, v, wq, wk, wv));
  EXPECT_THROW_MSG(separate(q, k, Variable(randn({6, 2, 5}, kFloat64)), wq, wk, wv),
                   "key's sequence and batch dims torch.Size([5, 2]) do not match value's "
                   "torch.Size([6, 2])");
  EXPECT_THROW_MSG(separate(q, k, v, Variable(), wk, wv),
                   "use_separate_proj_weight is True but q_proj_weight is None");
  EXPECT_THROW_MSG(separate(q, k, v, wq, Variable(), wv),
                   "use_separate_proj_weight is True but k_proj_weight is None");
  EXPECT_THROW_MSG(separate(q, k, v, wq, wk, Variable()),
                   "use_separate_proj_weight is True but v_proj_weight is None");
  EXPECT_THROW_MSG(separate(q, k, v, wk, wk, wv),
                   "expecting query weights shape of (4, 4), but got torch.Size([4, 3])");
  EXPECT_THROW_MSG(separate(q, k, v, wq, wq, wv),
                   "expecting key weights shape of (4, 3), but got torch.Size([4, 4])");
  EXPECT_THROW_MSG(separate(q, k, v, wq, wk, wk),
                   "expecting value weights shape of (4, 5), but got torch.Size([4, 3])");
  EXPECT_THROW_MSG(separate(q, k, v, wq, wk, wv, Variable(randn({15}, kFloat64))),
                   "expecting query bias shape of (4,), but got torch.Size([5])");

  const Variable kv(randn({5, 2, 4}, kFloat64));
  auto packed = [&](int64_t heads, const Variable& in_w, const Variable& bias_k,
                    const Variable& bias_v, const Variable& static_k = Variable()) {
    return F::multi_head_attention_forward(q, kv, kv, 4, heads, in_w, Variable(), bias_k, bias_v,
                                           false, 0.0, w.out_proj_weight, Variable(), false,
                                           Variable(), true, Variable(), false, Variable(),
                                           Variable(), Variable(), static_k);
  };
  EXPECT_THROW_MSG(packed(3, w.in_proj_weight, Variable(), Variable()),
                   "embed_dim 4 not divisible by num_heads 3");
  EXPECT_THROW_MSG(packed(0, w.in_proj_weight, Variable(), Variable()),
                   "multi_head_attention_forward: num_heads must be positive, got 0");
  EXPECT_THROW_MSG(packed(2, Variable(), Variable(), Variable()),
                   "use_separate_proj_weight is False but in_proj_weight is None");
  EXPECT_THROW_MSG(packed(2, w.in_proj_weight, Variable(randn({1, 1, 4}, kFloat64)), Variable()),
                   "multi_head_attention_forward: bias_k and bias_v must be given together");
  const Variable bias(randn({1, 1, 4}, kFloat64));
  EXPECT_THROW_MSG(packed(2, w.in_proj_weight, bias, bias, Variable(randn({4, 5, 2}, kFloat64))),
                   "bias cannot be added to static key.");
  EXPECT_THROW_MSG(packed(2, w.in_proj_weight, Variable(), Variable(),
                          Variable(randn({3, 5, 2}, kFloat64))),
                   "expecting static_k.size(0) of 4, but got 3");
  EXPECT_THROW_MSG(packed(2, w.in_proj_weight, Variable(), Variable(),
                          Variable(randn({4, 5, 3}, kFloat64))),
                   "expecting static_k.size(2) of 2, but got 3");
  EXPECT_THROW_MSG(packed(2, Variable(randn({10, 4}, kFloat64)), Variable(), Variable()),
                   "multi_head_attention_forward: expecting in_proj_weight shape of (12, 4), but "
                   "got torch.Size([10, 4])");
  EXPECT_THROW_MSG(packed(2, w.in_proj_weight, Variable(), Variable(),
                          Variable(randn({4, 5}, kFloat64))),
                   "expecting static_k to be 3-D, but got torch.Size([4, 5])");
  EXPECT_THROW_MSG(F::multi_head_attention_forward(q, kv, kv, 4, 2, w.in_proj_weight,
                                                   Variable(randn({8}, kFloat64)), Variable(),
                                                   Variable(), false, 0.0, w.out_proj_weight,
                                                   Variable()),
                   "multi_head_attention_forward: expecting in_proj_bias shape of (12,), but got "
                   "torch.Size([8])");
  EXPECT_THROW_MSG(F::multi_head_attention_forward(
                       q, kv, kv, 4, 2, w.in_proj_weight, Variable(), bias, bias, false, 0.0,
                       w.out_proj_weight, Variable(), false, Variable(), true, Variable(), false,
                       Variable(), Variable(), Variable(), Variable(),
                       Variable(randn({4, 5, 2}, kFloat64))),
                   "bias cannot be added to static value.");
  EXPECT_THROW_MSG(F::multi_head_attention_forward(q, Variable(), kv, 4, 2, w.in_proj_weight,
                                                   Variable(), Variable(), Variable(), false,
                                                   0.0, w.out_proj_weight, Variable()),
                   "multi_head_attention_forward: query, key and value must be defined");
}

}  // namespace
}  // namespace torchlet
