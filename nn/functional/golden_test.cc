// Every functional op against PyTorch 1.13 in float32: the output and every
// input's gradient, from nn/functional/testdata/functional_golden.txt
// (tools/gen_functional_golden.py stores the inputs too, so each case here
// is the same call on the same values).
#include <map>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "autograd/golden_case.h"
#include "nn/functional/functional.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

namespace F = nn::functional;

// A case of nn/functional/testdata/functional_golden.txt, compared in float32.
class FunctionalCase : public testing::GoldenCase {
 public:
  explicit FunctionalCase(std::string name)
      : GoldenCase(testing::golden_file("nn/functional/testdata/functional_golden.txt"),
                   std::move(name), kFloat32, {1e-4, 1e-5}) {}
  /// Index and constant inputs as the Variables the functional ops take.
  Variable index(const std::string& input) const { return Variable(GoldenCase::index(input)); }
  Variable constant(const std::string& input) const {
    return Variable(GoldenCase::constant(input));
  }
};

void check_unary(const std::string& name, Variable (*fn)(const Variable&)) {
  FunctionalCase c(name);
  c.check(fn(c.leaf("x")));
}

TEST(FunctionalGoldenTest, ActivationsMatchAtRandomAndEdgePoints) {
  check_unary("relu", [](const Variable& x) { return F::relu(x); });
  check_unary("relu6", [](const Variable& x) { return F::relu6(x); });
  check_unary("leaky_relu", [](const Variable& x) { return F::leaky_relu(x, 0.2); });
  check_unary("elu", [](const Variable& x) { return F::elu(x, 1.5); });
  check_unary("selu", [](const Variable& x) { return F::selu(x); });
  check_unary("celu", [](const Variable& x) { return F::celu(x, 0.7); });
  check_unary("gelu", [](const Variable& x) { return F::gelu(x); });
  check_unary("gelu_tanh", [](const Variable& x) { return F::gelu(x, "tanh"); });
  check_unary("silu", [](const Variable& x) { return F::silu(x); });
  check_unary("mish", [](const Variable& x) { return F::mish(x); });
  check_unary("sigmoid", [](const Variable& x) { return F::sigmoid(x); });
  check_unary("tanh", [](const Variable& x) { return F::tanh(x); });
  check_unary("hardtanh", [](const Variable& x) { return F::hardtanh(x, -0.5, 2.0); });
  check_unary("softplus", [](const Variable& x) { return F::softplus(x, 2.0, 3.0); });
  check_unary("softmax", [](const Variable& x) { return F::softmax(x, 1); });
  check_unary("log_softmax", [](const Variable& x) { return F::log_softmax(x, 0); });
}

TEST(FunctionalGoldenTest, PreluPerChannelAndShared) {
  for (const std::string name : {"prelu", "prelu_scalar"}) {
    FunctionalCase c(name);
    const Variable x = c.leaf("x");
    c.check(F::prelu(x, c.leaf("w")));
  }
}

TEST(FunctionalGoldenTest, LinearWithBiasAndNdWithout) {
  FunctionalCase with_bias("linear");
  const Variable x = with_bias.leaf("x"), w = with_bias.leaf("w");
  with_bias.check(F::linear(x, w, with_bias.leaf("b")));
  FunctionalCase nd("linear_nd");
  const Variable x3 = nd.leaf("x");
  nd.check(F::linear(x3, nd.leaf("w")));
}

TEST(FunctionalGoldenTest, BilinearOverBatchDims) {
  FunctionalCase c("bilinear");
  const Variable x1 = c.leaf("x1"), x2 = c.leaf("x2"), w = c.leaf("w");
  c.check(F::bilinear(x1, x2, w, c.leaf("b")));
}

TEST(FunctionalGoldenTest, LayerNormAffineAndPlain) {
  FunctionalCase affine("layer_norm");
  const Variable x = affine.leaf("x"), w = affine.leaf("w");
  affine.check(F::layer_norm(x, {3, 4}, w, affine.leaf("b"), 1e-5));
  FunctionalCase plain("layer_norm_plain");
  plain.check(F::layer_norm(plain.leaf("x"), {5}, Variable(), Variable(), 1e-3));
}

TEST(FunctionalGoldenTest, EmbeddingPaddingRowGetsNoGradient) {
  FunctionalCase c("embedding_padding");
  const Variable w = c.leaf("w");
  c.check(F::embedding(c.index("idx").data(), w, 2));
}

TEST(FunctionalGoldenTest, EmbeddingScaleGradByFreq) {
  FunctionalCase c("embedding_freq");
  const Variable w = c.leaf("w");
  c.check(F::embedding(c.index("idx").data(), w, std::nullopt, std::nullopt, 2.0, true));
}

TEST(FunctionalGoldenTest, EmbeddingMaxNormRenormalizesReferencedRowsInPlace) {
  FunctionalCase c("embedding_max_norm");
  const Variable w = c.constant("w");
  F::embedding(FunctionalCase("embedding_padding").index("idx").data(), w, std::nullopt, 1.5);
  EXPECT_TRUE(testing::all_close(w.data(), c.stored("renormed"), 1e-5, 1e-6));
}

void check_regression(const std::string& loss) {
  for (const std::string reduction : {"none", "mean", "sum"}) {
    FunctionalCase c(loss + "_" + reduction);
    const Variable x = c.leaf("x"), y = c.leaf("y");
    if (loss == "mse") c.check(F::mse_loss(x, y, reduction));
    if (loss == "l1") c.check(F::l1_loss(x, y, reduction));
    if (loss == "smooth_l1") c.check(F::smooth_l1_loss(x, y, reduction, 0.5));
    if (loss == "huber") c.check(F::huber_loss(x, y, reduction, 0.7));
    if (loss == "kl_div") c.check(F::kl_div(x, y, reduction));
    if (loss == "bce") c.check(F::binary_cross_entropy(x, y, c.constant("w"), reduction));
    if (loss == "bce_logits") {
      c.check(F::binary_cross_entropy_with_logits(x, y, c.constant("w"), reduction,
                                                  c.constant("pw")));
    }
  }
}

TEST(FunctionalGoldenTest, MseLoss) { check_regression("mse"); }
TEST(FunctionalGoldenTest, L1Loss) { check_regression("l1"); }
TEST(FunctionalGoldenTest, SmoothL1Loss) { check_regression("smooth_l1"); }
TEST(FunctionalGoldenTest, HuberLoss) { check_regression("huber"); }
TEST(FunctionalGoldenTest, KlDiv) { check_regression("kl_div"); }
TEST(FunctionalGoldenTest, BinaryCrossEntropyWithWeight) { check_regression("bce"); }
TEST(FunctionalGoldenTest, BinaryCrossEntropyWithLogitsWeightAndPosWeight) {
  check_regression("bce_logits");
}

TEST(FunctionalGoldenTest, SmoothL1WithBetaZeroIsL1) {
  FunctionalCase c("smooth_l1_beta0");
  const Variable x = c.leaf("x");
  c.check(F::smooth_l1_loss(x, c.leaf("y"), "mean", 0.0));
}

TEST(FunctionalGoldenTest, KlDivBatchmeanAndLogTarget) {
  FunctionalCase batchmean("kl_div_batchmean");
  const Variable x = batchmean.leaf("x");
  batchmean.check(F::kl_div(x, batchmean.leaf("y"), "batchmean"));
  FunctionalCase log_target("kl_div_log_target");
  const Variable lx = log_target.leaf("x");
  log_target.check(F::kl_div(lx, log_target.leaf("y"), "sum", true));
}

TEST(FunctionalGoldenTest, BinaryCrossEntropyWithLogitsPlain) {
  FunctionalCase c("bce_logits_plain");
  const Variable x = c.leaf("x");
  c.check(F::binary_cross_entropy_with_logits(x, c.leaf("y")));
}

TEST(FunctionalGoldenTest, CrossEntropyClassIndices) {
  for (const std::string reduction : {"none", "mean", "sum"}) {
    FunctionalCase c("ce_" + reduction);
    c.check(F::cross_entropy(c.leaf("x"), c.index("t"), Variable(), -100, reduction));
  }
}

TEST(FunctionalGoldenTest, CrossEntropyWeightAndIgnoredTargets) {
  for (const std::string reduction : {"none", "mean", "sum"}) {
    FunctionalCase c("ce_weight_ignore_" + reduction);
    c.check(F::cross_entropy(c.leaf("x"), c.index("t"), c.constant("w"), -100, reduction));
  }
}

TEST(FunctionalGoldenTest, CrossEntropyLabelSmoothingWithWeight) {
  for (const std::string reduction : {"none", "mean", "sum"}) {
    FunctionalCase c("ce_smoothing_" + reduction);
    c.check(F::cross_entropy(c.leaf("x"), c.index("t"), c.constant("w"), -100, reduction, 0.2));
  }
}

TEST(FunctionalGoldenTest, CrossEntropyLabelSmoothingWithoutWeight) {
  for (const std::string reduction : {"none", "mean", "sum"}) {
    FunctionalCase c("ce_smoothing_plain_" + reduction);
    c.check(F::cross_entropy(c.leaf("x"), c.index("t"), Variable(), -100, reduction, 0.3));
  }
}

TEST(FunctionalGoldenTest, CrossEntropySpatialInput) {
  for (const std::string reduction : {"none", "mean", "sum"}) {
    FunctionalCase c("ce_nd_" + reduction);
    c.check(F::cross_entropy(c.leaf("x"), c.index("t"), Variable(), -100, reduction));
  }
}

TEST(FunctionalGoldenTest, CrossEntropyClassProbabilities) {
  for (const std::string reduction : {"none", "mean", "sum"}) {
    FunctionalCase c("ce_probs_" + reduction);
    const Variable x = c.leaf("x");
    c.check(F::cross_entropy(x, c.leaf("p"), c.constant("w"), -100, reduction, 0.1));
  }
}

TEST(FunctionalGoldenTest, CrossEntropyCustomIgnoreIndexAndUnbatched) {
  FunctionalCase ignore("ce_ignore_index_1");
  ignore.check(F::cross_entropy(ignore.leaf("x"), ignore.index("t"), Variable(), 1));
  FunctionalCase unbatched("ce_unbatched");
  unbatched.check(F::cross_entropy(unbatched.leaf("x"), unbatched.index("t")));
}

TEST(FunctionalGoldenTest, NllLossWeightIgnoreAndSpatial) {
  for (const std::string reduction : {"none", "mean", "sum"}) {
    FunctionalCase c("nll_" + reduction);
    c.check(F::nll_loss(c.leaf("x"), c.index("t"), c.constant("w"), -100, reduction));
    FunctionalCase nd("nll_nd_" + reduction);
    nd.check(F::nll_loss(nd.leaf("x"), nd.index("t"), Variable(), 0, reduction));
  }
}

TEST(FunctionalGoldenTest, MarginRankingLoss) {
  for (const std::string reduction : {"none", "mean", "sum"}) {
    FunctionalCase c("margin_ranking_" + reduction);
    const Variable x1 = c.leaf("x1"), x2 = c.leaf("x2");
    c.check(F::margin_ranking_loss(x1, x2, c.constant("t"), 0.3, reduction));
  }
}

TEST(FunctionalGoldenTest, HingeEmbeddingLoss) {
  for (const std::string reduction : {"none", "mean", "sum"}) {
    FunctionalCase c("hinge_embedding_" + reduction);
    c.check(F::hinge_embedding_loss(c.leaf("x"), c.constant("t"), 1.5, reduction));
  }
}

TEST(FunctionalGoldenTest, SoftMarginLoss) {
  for (const std::string reduction : {"none", "mean", "sum"}) {
    FunctionalCase c("soft_margin_" + reduction);
    c.check(F::soft_margin_loss(c.leaf("x"), c.constant("t"), reduction));
  }
}

TEST(FunctionalGoldenTest, MultilabelSoftMarginLossWithWeight) {
  for (const std::string reduction : {"none", "mean", "sum"}) {
    FunctionalCase c("multilabel_soft_margin_" + reduction);
    const Variable x = c.leaf("x"), y = c.leaf("y");
    c.check(F::multilabel_soft_margin_loss(x, y, c.constant("w"), reduction));
  }
}

TEST(FunctionalGoldenTest, CosineEmbeddingLoss) {
  for (const std::string reduction : {"none", "mean", "sum"}) {
    FunctionalCase c("cosine_embedding_" + reduction);
    const Variable x1 = c.leaf("x1"), x2 = c.leaf("x2");
    c.check(F::cosine_embedding_loss(x1, x2, c.constant("t"), -0.2, reduction));
  }
}

TEST(FunctionalGoldenTest, CosineEmbeddingLossOf1DInputs) {
  FunctionalCase similar("cosine_embedding_1d_similar");
  const Variable x1 = similar.leaf("x1"), x2 = similar.leaf("x2");
  similar.check(F::cosine_embedding_loss(x1, x2, similar.constant("t")));
  FunctionalCase dissimilar("cosine_embedding_1d_dissimilar");
  const Variable y1 = dissimilar.leaf("x1"), y2 = dissimilar.leaf("x2");
  dissimilar.check(F::cosine_embedding_loss(y1, y2, dissimilar.constant("t"), -0.5));
}

TEST(FunctionalGoldenTest, TripletMarginLoss) {
  for (const std::string reduction : {"none", "mean", "sum"}) {
    FunctionalCase c("triplet_margin_" + reduction);
    const Variable a = c.leaf("a"), p = c.leaf("p"), n = c.leaf("n");
    c.check(F::triplet_margin_loss(a, p, n, 1.0, 2.0, 1e-6, false, reduction));
  }
}

TEST(FunctionalGoldenTest, TripletMarginLossSwapOtherNormsAnd1DInputs) {
  FunctionalCase swap("triplet_margin_swap_p1");
  const Variable a = swap.leaf("a"), p = swap.leaf("p"), n = swap.leaf("n");
  swap.check(F::triplet_margin_loss(a, p, n, 2.0, 1.0, 1e-3, true, "none"));
  FunctionalCase p3("triplet_margin_p3_1d");
  const Variable a1 = p3.leaf("a"), p1 = p3.leaf("p"), n1 = p3.leaf("n");
  p3.check(F::triplet_margin_loss(a1, p1, n1, 3.0, 3.0));
}

TEST(FunctionalGoldenTest, PoissonNllLoss) {
  for (const std::string reduction : {"none", "mean", "sum"}) {
    FunctionalCase c("poisson_nll_" + reduction);
    const Variable x = c.leaf("x"), y = c.leaf("y");
    c.check(F::poisson_nll_loss(x, y, true, false, 1e-8, reduction));
    FunctionalCase full("poisson_nll_full_" + reduction);
    full.check(F::poisson_nll_loss(full.leaf("x"), full.constant("y"), false, true, 1e-8,
                                   reduction));
  }
  FunctionalCase eps("poisson_nll_eps");
  const Variable x = eps.leaf("x"), y = eps.leaf("y");
  eps.check(F::poisson_nll_loss(x, y, false, false, 0.1));
}

TEST(FunctionalGoldenTest, GaussianNllLoss) {
  for (const std::string reduction : {"none", "mean", "sum"}) {
    FunctionalCase c("gaussian_nll_" + reduction);
    const Variable x = c.leaf("x"), y = c.leaf("y"), var = c.leaf("var");
    c.check(F::gaussian_nll_loss(x, y, var, false, 1e-6, reduction));
  }
}

// var of input's shape without the last dim, with a last dim of 1 (some of
// it below eps: clamped, the gradient passing as if it were not), and a
// target broadcast against input.
TEST(FunctionalGoldenTest, GaussianNllLossVarShapesClampAndBroadcast) {
  FunctionalCase homoscedastic("gaussian_nll_homoscedastic");
  const Variable x = homoscedastic.leaf("x"), y = homoscedastic.leaf("y");
  homoscedastic.check(F::gaussian_nll_loss(x, y, homoscedastic.leaf("var"), true, 1e-6, "none"));
  FunctionalCase clamped("gaussian_nll_last_dim_one_clamped");
  const Variable cx = clamped.leaf("x"), cy = clamped.leaf("y");
  clamped.check(F::gaussian_nll_loss(cx, cy, clamped.leaf("var"), false, 0.05, "sum"));
  FunctionalCase broadcast("gaussian_nll_broadcast_target");
  const Variable bx = broadcast.leaf("x"), by = broadcast.leaf("y");
  broadcast.check(F::gaussian_nll_loss(bx, by, broadcast.leaf("var")));
}

}  // namespace
}  // namespace torchlet
