// Every functional op's gradient against finite differences in float64
// (reductions, weights, ignored targets, label smoothing, probability
// targets, spatial inputs); the fused ops also to second order, through
// their composite double-backward formulas. Embedding's padding row and
// scale_grad_by_freq change the gradient on purpose, so finite differences
// cannot check them: golden_test.cc compares them with PyTorch.
#include "autograd/gradcheck.h"

#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "nn/functional/functional.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

namespace F = nn::functional;
using testing::gradcheck;
using testing::gradgradcheck;
using testing::VariableFn;

// A float64 leaf with distinct values in [lo, hi), none at a kink of the
// piecewise ops (0 and the bounds used below).
Variable leaf(std::vector<int64_t> shape, double lo = -1.3, double hi = 1.7) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) {
    v[i] = lo + (hi - lo) * static_cast<double>((7 * i + 3) % (n * 7 + 1) % (n + 1)) / (n + 1) +
           0.01 * static_cast<double>(i) / n + 0.013;
  }
  return Variable(from_vector(v, shape), true);
}

// Rows of class probabilities (positive, summing to 1), a leaf.
Variable probabilities(int64_t rows, int64_t classes) {
  return Variable(leaf({rows, classes}).data().softmax(1), true);
}

Variable indices(std::vector<int64_t> values, std::vector<int64_t> shape) {
  return Variable(from_vector(values, shape));
}

const Variable& class_targets() {
  static const Variable t = indices({1, -100, 3, 0, 2}, {5});
  return t;
}
const Variable& class_weight() {
  static const Variable w(from_vector<double>({0.5, 1.5, 1.0, 2.0}, {4}));
  return w;
}

// Targets of +1 and -1, alternating from +1.
Variable signs(std::vector<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = i % 2 == 0 ? 1.0 : -1.0;
  return Variable(from_vector(v, shape));
}

struct Case {
  std::string name;
  VariableFn fn;
  variable_list inputs;
  bool second_order = false;
};

std::vector<Case> activation_cases() {
  return {
      {"relu", [](const variable_list& x) { return F::relu(x[0]); }, {leaf({7})}},
      {"relu6", [](const variable_list& x) { return F::relu6(x[0] * 5.0); }, {leaf({7})}},
      {"leaky_relu", [](const variable_list& x) { return F::leaky_relu(x[0], 0.1); }, {leaf({7})}},
      {"prelu", [](const variable_list& x) { return F::prelu(x[0], x[1]); },
       {leaf({2, 3, 2}), leaf({3}, 0.1, 0.5)}, true},
      {"elu", [](const variable_list& x) { return F::elu(x[0], 1.3); }, {leaf({7})}, true},
      {"selu", [](const variable_list& x) { return F::selu(x[0]); }, {leaf({7})}, true},
      {"celu", [](const variable_list& x) { return F::celu(x[0], 0.6); }, {leaf({7})}, true},
      {"gelu", [](const variable_list& x) { return F::gelu(x[0]); }, {leaf({7})}, true},
      {"gelu_tanh", [](const variable_list& x) { return F::gelu(x[0], "tanh"); }, {leaf({7})}, true},
      {"silu", [](const variable_list& x) { return F::silu(x[0]); }, {leaf({7})}, true},
      {"mish", [](const variable_list& x) { return F::mish(x[0]); }, {leaf({7})}, true},
      {"sigmoid", [](const variable_list& x) { return F::sigmoid(x[0]); }, {leaf({7})}, true},
      {"tanh", [](const variable_list& x) { return F::tanh(x[0]); }, {leaf({7})}, true},
      {"hardtanh", [](const variable_list& x) { return F::hardtanh(x[0], -0.5, 0.9); }, {leaf({7})}},
      {"softplus", [](const variable_list& x) { return F::softplus(x[0] * 4.0, 2.0, 3.0); },
       {leaf({7})}, true},
      {"softmax", [](const variable_list& x) { return F::softmax(x[0], 1); }, {leaf({2, 4})}, true},
      {"log_softmax", [](const variable_list& x) { return F::log_softmax(x[0], 0); },
       {leaf({3, 2})}, true},
  };
}

std::vector<Case> layer_cases() {
  return {
      {"linear", [](const variable_list& x) { return F::linear(x[0], x[1], x[2]); },
       {leaf({3, 4}), leaf({2, 4}), leaf({2})}, true},
      {"linear_transposed_input",
       [](const variable_list& x) { return F::linear(x[0].t(), x[1], x[2]); },
       {leaf({4, 3}), leaf({2, 4}), leaf({2})}, true},
      {"linear_nd_no_bias", [](const variable_list& x) { return F::linear(x[0], x[1]); },
       {leaf({2, 3, 4}), leaf({2, 4})}, true},
      {"bilinear", [](const variable_list& x) { return F::bilinear(x[0], x[1], x[2], x[3]); },
       {leaf({3, 2}), leaf({3, 4}), leaf({5, 2, 4}), leaf({5})}, true},
      {"layer_norm", [](const variable_list& x) { return F::layer_norm(x[0], {2, 3}, x[1], x[2]); },
       {leaf({2, 2, 3}), leaf({2, 3}), leaf({2, 3})}, true},
      {"layer_norm_plain", [](const variable_list& x) { return F::layer_norm(x[0], {4}); },
       {leaf({3, 4})}, true},
      {"embedding",
       [](const variable_list& x) {
         return F::embedding(indices({0, 2, 2, 4, 1, 0}, {2, 3}).data(), x[0]);
       },
       {leaf({5, 3})}, true},
  };
}

std::vector<Case> loss_cases() {
  std::vector<Case> cases;
  for (const std::string r : {"none", "mean", "sum"}) {
    cases.push_back({"mse_" + r, [r](const variable_list& x) { return F::mse_loss(x[0], x[1], r); },
                     {leaf({2, 3}), leaf({2, 3}, -0.5, 1.1)}, true});
    cases.push_back({"l1_" + r, [r](const variable_list& x) { return F::l1_loss(x[0], x[1], r); },
                     {leaf({2, 3}), leaf({2, 3}, -0.5, 1.1)}});
    cases.push_back({"smooth_l1_" + r,
                     [r](const variable_list& x) { return F::smooth_l1_loss(x[0], x[1], r, 0.6); },
                     {leaf({2, 3}), leaf({2, 3}, -0.5, 1.1)}});
    cases.push_back({"huber_" + r,
                     [r](const variable_list& x) { return F::huber_loss(x[0], x[1], r, 0.6); },
                     {leaf({2, 3}), leaf({2, 3}, -0.5, 1.1)}});
    cases.push_back({"cross_entropy_" + r,
                     [r](const variable_list& x) {
                       return F::cross_entropy(x[0], class_targets(), class_weight(), -100, r, 0.15);
                     },
                     {leaf({5, 4})}, true});
    cases.push_back({"nll_" + r,
                     [r](const variable_list& x) {
                       return F::nll_loss(x[0], class_targets(), class_weight(), -100, r);
                     },
                     {leaf({5, 4})}});
    cases.push_back({"bce_" + r,
                     [r](const variable_list& x) {
                       return F::binary_cross_entropy(x[0], x[1], Variable(leaf({3}).data()), r);
                     },
                     {leaf({2, 3}, 0.1, 0.9), leaf({2, 3}, 0.0, 1.0)}, true});
    cases.push_back({"bce_logits_" + r,
                     [r](const variable_list& x) {
                       return F::binary_cross_entropy_with_logits(
                           x[0], x[1], Variable(leaf({3}, 0.2, 1.0).data()), r,
                           Variable(leaf({3}, 0.5, 2.0).data()));
                     },
                     {leaf({2, 3}), leaf({2, 3}, 0.0, 1.0)}, true});
    cases.push_back({"kl_div_" + r,
                     [r](const variable_list& x) { return F::kl_div(x[0], x[1], r); },
                     {leaf({2, 3}), probabilities(2, 3)}, true});
    cases.push_back({"margin_ranking_" + r,
                     [r](const variable_list& x) {
                       return F::margin_ranking_loss(x[0], x[1], signs({6}), 0.25, r);
                     },
                     {leaf({6}), leaf({6}, -0.5, 1.1)}});
    cases.push_back({"hinge_embedding_" + r,
                     [r](const variable_list& x) {
                       return F::hinge_embedding_loss(x[0], signs({2, 3}), 0.9, r);
                     },
                     {leaf({2, 3})}});
    cases.push_back({"soft_margin_" + r,
                     [r](const variable_list& x) { return F::soft_margin_loss(x[0], x[1], r); },
                     {leaf({2, 3}), leaf({2, 3}, -1.0, 1.0)}, true});
    cases.push_back({"multilabel_soft_margin_" + r,
                     [r](const variable_list& x) {
                       return F::multilabel_soft_margin_loss(
                           x[0], x[1], Variable(leaf({4}, 0.5, 1.5).data()), r);
                     },
                     {leaf({3, 4}, -3.0, 3.0), leaf({3, 4}, 0.0, 1.0)}, true});
    cases.push_back({"cosine_embedding_" + r,
                     [r](const variable_list& x) {
                       return F::cosine_embedding_loss(x[0], x[1], signs({4}), -0.3, r);
                     },
                     {leaf({4, 3}), leaf({4, 3}, -0.9, 1.2)}, true});
    cases.push_back({"triplet_margin_" + r,
                     [r](const variable_list& x) {
                       return F::triplet_margin_loss(x[0], x[1], x[2], 1.0, 2.0, 1e-6, false, r);
                     },
                     {leaf({3, 4}), leaf({3, 4}, -1.0, 1.0), leaf({3, 4}, -0.8, 1.5)}, true});
    cases.push_back({"poisson_nll_" + r,
                     [r](const variable_list& x) {
                       return F::poisson_nll_loss(x[0], x[1], true, false, 1e-8, r);
                     },
                     {leaf({2, 3}), leaf({2, 3}, 0.0, 3.0)}, true});
    cases.push_back({"poisson_nll_full_" + r,
                     [r](const variable_list& x) {
                       return F::poisson_nll_loss(x[0], x[1], false, true, 1e-8, r);
                     },
                     {leaf({2, 3}, 0.2, 3.0), leaf({2, 3}, 0.3, 4.0)}, true});
    cases.push_back({"gaussian_nll_" + r,
                     [r](const variable_list& x) {
                       return F::gaussian_nll_loss(x[0], x[1], x[2], true, 1e-6, r);
                     },
                     {leaf({2, 3}), leaf({2, 3}, -0.5, 1.1), leaf({2, 3}, 0.2, 2.0)}, true});
  }
  cases.push_back({"cross_entropy_plain",
                   [](const variable_list& x) {
                     return F::cross_entropy(x[0], Variable(indices({1, 0, 3}, {3})));
                   },
                   {leaf({3, 4})}, true});
  cases.push_back({"cross_entropy_spatial",
                   [](const variable_list& x) {
                     return F::cross_entropy(x[0], indices({0, 2, 1, -100, 2, 1}, {2, 3}),
                                             Variable(), -100, "sum");
                   },
                   {leaf({2, 3, 3})}, true});
  cases.push_back({"cross_entropy_unbatched",
                   [](const variable_list& x) { return F::cross_entropy(x[0], indices({2}, {})); },
                   {leaf({4})}, true});
  cases.push_back({"cross_entropy_probabilities",
                   [](const variable_list& x) {
                     return F::cross_entropy(x[0], x[1], class_weight(), -100, "mean", 0.2);
                   },
                   {leaf({3, 4}), probabilities(3, 4)}, true});
  cases.push_back({"nll_spatial",
                   [](const variable_list& x) {
                     return F::nll_loss(x[0], indices({0, 2, 1, 1, 2, 0}, {2, 3}), Variable(), 1);
                   },
                   {leaf({2, 3, 3})}});
  cases.push_back({"kl_div_batchmean_log_target",
                   [](const variable_list& x) { return F::kl_div(x[0], x[1], "batchmean", true); },
                   {leaf({2, 3}), leaf({2, 3})}, true});
  cases.push_back({"cosine_embedding_1d",
                   [](const variable_list& x) {
                     const Variable dissimilar(scalar_tensor(-1.0, kFloat64));
                     return F::cosine_embedding_loss(x[0], x[1], dissimilar, -0.4);
                   },
                   {leaf({5}), leaf({5}, -0.9, 1.2)}, true});
  cases.push_back({"triplet_margin_swap_p3",
                   [](const variable_list& x) {
                     return F::triplet_margin_loss(x[0], x[1], x[2], 3.0, 3.0, 1e-3, true, "sum");
                   },
                   {leaf({3, 4}), leaf({3, 4}, -1.0, 1.0), leaf({3, 4}, -0.8, 1.5)}, true});
  cases.push_back({"gaussian_nll_homoscedastic",
                   [](const variable_list& x) {
                     return F::gaussian_nll_loss(x[0], x[1], x[2], false, 1e-6, "none");
                   },
                   {leaf({3, 2}), leaf({3, 2}, -0.5, 1.1), leaf({3}, 0.2, 2.0)}, true});
  return cases;
}

void run(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_TRUE(gradcheck(c.fn, c.inputs));
    if (c.second_order) {
      EXPECT_TRUE(gradgradcheck(c.fn, c.inputs));
    }
  }
}

TEST(FunctionalGradcheckTest, Activations) { run(activation_cases()); }
TEST(FunctionalGradcheckTest, LinearLayerNormAndEmbedding) { run(layer_cases()); }
TEST(FunctionalGradcheckTest, Losses) { run(loss_cases()); }

}  // namespace
}  // namespace torchlet
