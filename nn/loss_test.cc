#include "nn/loss.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nn/functional/loss.h"
#include "nn/module_golden.h"
#include "tensor/test_util.h"

namespace torchlet::nn {
namespace {

namespace F = functional;
using testing::ModuleCase;
using testing::printed;
using testing::pytorch_repr;

// Checks `loss` on the case's x (a leaf) and target (class indices when
// `index_target`), and its repr.
template <typename Holder>
void check_loss(const std::string& name, Holder loss, bool index_target = false) {
  ModuleCase golden(name);
  loss->to(kFloat64);
  const Variable x = golden.leaf("x");
  const Variable target(index_target ? golden.index("target") : golden.constant("target"));
  golden.check(loss(x, target));
  EXPECT_EQ(printed(*loss), pytorch_repr(name));
}

TEST(LossModuleTest, RegressionLossesMatchPyTorch) {
  check_loss("mse_sum", MSELoss(MSELossOptions().reduction("sum")));
  check_loss("l1_none", L1Loss(L1LossOptions().reduction("none")));
  check_loss("smooth_l1", SmoothL1Loss(SmoothL1LossOptions().beta(0.5)));
  check_loss("huber", HuberLoss(HuberLossOptions().delta(2.0)));
}

TEST(LossModuleTest, CrossEntropyOverNdIndicesWithWeightIgnoreIndexAndSmoothingMatchesPyTorch) {
  ModuleCase golden("cross_entropy_nd");
  check_loss("cross_entropy_nd",
             CrossEntropyLoss(CrossEntropyLossOptions()
                                  .weight(golden.constant("weight"))
                                  .ignore_index(1)
                                  .label_smoothing(0.1)),
             /*index_target=*/true);
}

TEST(LossModuleTest, CrossEntropyOverProbabilitiesMatchesPyTorch) {
  check_loss("cross_entropy_probs",
             CrossEntropyLoss(CrossEntropyLossOptions().reduction("sum")));
}

TEST(LossModuleTest, WeightedNllAndBceMatchPyTorch) {
  check_loss("nll", NLLLoss(NLLLossOptions().weight(ModuleCase("nll").constant("weight"))),
             /*index_target=*/true);
  check_loss("bce", BCELoss(BCELossOptions().weight(ModuleCase("bce").constant("weight"))));
}

TEST(LossModuleTest, BceWithLogitsWithPosWeightMatchesPyTorch) {
  check_loss("bce_with_logits",
             BCEWithLogitsLoss(BCEWithLogitsLossOptions().pos_weight(
                 ModuleCase("bce_with_logits").constant("pos_weight"))));
}

TEST(LossModuleTest, KlDivBatchmeanOfLogTargetsMatchesPyTorch) {
  check_loss("kl_div", KLDivLoss(KLDivLossOptions().reduction("batchmean").log_target(true)));
}

TEST(LossModuleTest, DefaultReprsMatchPyTorch) {
  EXPECT_EQ(printed(*CrossEntropyLoss()), pytorch_repr("cross_entropy_default"));
  EXPECT_EQ(printed(*MSELoss()), pytorch_repr("mse_default"));
  EXPECT_EQ(printed(*BCEWithLogitsLoss()), pytorch_repr("bce_with_logits_default"));
}

TEST(LossModuleTest, ModuleAndFunctionalGiveIdenticalResults) {
  const Variable logits(randn({4, 3}));
  const Variable target(tensor({int64_t{0}, 2, 1, 2}));
  const Tensor weight = rand({3});
  CrossEntropyLoss loss(CrossEntropyLossOptions().weight(weight).label_smoothing(0.2));
  EXPECT_EQ(loss(logits, target).item<double>(),
            F::cross_entropy(logits, target, Variable(weight), -100, "mean", 0.2).item<double>());
  const Variable y(randn({4, 3}));
  EXPECT_EQ(HuberLoss(HuberLossOptions().delta(0.3))(logits, y).item<double>(),
            F::huber_loss(logits, y, "mean", 0.3).item<double>());
}

TEST(LossModuleTest, WeightsAreBuffersAsInPyTorch) {
  const Tensor weight = rand({3}), pos_weight = rand({3});
  CrossEntropyLoss ce(CrossEntropyLossOptions().weight(weight));
  EXPECT_EQ(ce->state_dict().keys(), (std::vector<std::string>{"weight"}));
  EXPECT_EQ(ce->weight.data().data_ptr(), weight.data_ptr());
  EXPECT_TRUE(ce->parameters().empty());
  BCEWithLogitsLoss bce(BCEWithLogitsLossOptions().weight(weight).pos_weight(pos_weight));
  EXPECT_EQ(bce->state_dict().keys(), (std::vector<std::string>{"weight", "pos_weight"}));
  EXPECT_TRUE(CrossEntropyLoss()->state_dict().keys().empty());
  EXPECT_TRUE(BCEWithLogitsLoss()->state_dict().keys().empty());
}

TEST(LossModuleTest, ToConvertsTheWeightBufferUsedByForward) {
  CrossEntropyLoss loss(CrossEntropyLossOptions().weight(ones({3})));
  loss->to(kFloat64);
  EXPECT_EQ(loss->weight.dtype(), kFloat64);
  const Variable out = loss(Variable(randn({2, 3}, kFloat64)), Variable(tensor({int64_t{0}, 1})));
  EXPECT_EQ(out.dtype(), kFloat64);
}

TEST(LossModuleTest, CloneCopiesTheWeightBuffers) {
  BCEWithLogitsLoss loss(BCEWithLogitsLossOptions().pos_weight(tensor({2.0f, 3.0f})));
  auto copy = std::dynamic_pointer_cast<BCEWithLogitsLossImpl>(loss->clone());
  EXPECT_EQ(testing::values(copy->pos_weight.data()), (std::vector<double>{2, 3}));
  EXPECT_NE(copy->pos_weight.data().data_ptr(), loss->pos_weight.data().data_ptr());
}

TEST(LossModuleTest, AnUnknownReductionIsRefusedAsPyTorch) {
  MSELoss loss(MSELossOptions().reduction("avg"));
  EXPECT_THROW_MSG(loss(Variable(zeros({2})), Variable(zeros({2}))),
                   "avg is not a valid value for reduction");
}

TEST(LossModuleTest, HingeSoftMarginAndMultilabelSoftMarginMatchPyTorch) {
  check_loss("hinge_embedding", HingeEmbeddingLoss(HingeEmbeddingLossOptions().margin(2.0)));
  check_loss("soft_margin", SoftMarginLoss(SoftMarginLossOptions().reduction("none")));
  check_loss("multilabel_soft_margin",
             MultiLabelSoftMarginLoss(MultiLabelSoftMarginLossOptions().weight(
                 ModuleCase("multilabel_soft_margin").constant("weight"))));
}

TEST(LossModuleTest, FullPoissonNllOfRatesMatchesPyTorch) {
  check_loss("poisson_nll",
             PoissonNLLLoss(PoissonNLLLossOptions().log_input(false).full(true).eps(1e-6)));
}

TEST(LossModuleTest, MarginRankingAndCosineEmbeddingMatchPyTorch) {
  ModuleCase ranking("margin_ranking");
  MarginRankingLoss ranking_loss(MarginRankingLossOptions().margin(0.4).reduction("sum"));
  const Variable x1 = ranking.leaf("x1"), x2 = ranking.leaf("x2");
  ranking.check(ranking_loss(x1, x2, Variable(ranking.constant("target"))));
  EXPECT_EQ(printed(*ranking_loss), pytorch_repr("margin_ranking"));

  ModuleCase cosine("cosine_embedding");
  CosineEmbeddingLoss cosine_loss(CosineEmbeddingLossOptions().margin(0.1).reduction("none"));
  const Variable y1 = cosine.leaf("x1"), y2 = cosine.leaf("x2");
  cosine.check(cosine_loss(y1, y2, Variable(cosine.constant("target"))));
  EXPECT_EQ(printed(*cosine_loss), pytorch_repr("cosine_embedding"));
}

TEST(LossModuleTest, TripletMarginWithSwapMatchesPyTorch) {
  ModuleCase golden("triplet_margin");
  TripletMarginLoss loss(TripletMarginLossOptions().margin(1.5).p(1.5).eps(1e-4).swap(true));
  const Variable anchor = golden.leaf("anchor"), positive = golden.leaf("positive");
  golden.check(loss(anchor, positive, golden.leaf("negative")));
  EXPECT_EQ(printed(*loss), pytorch_repr("triplet_margin"));
}

TEST(LossModuleTest, HomoscedasticGaussianNllMatchesPyTorch) {
  ModuleCase golden("gaussian_nll");
  GaussianNLLLoss loss(GaussianNLLLossOptions().full(true).eps(1e-3).reduction("sum"));
  const Variable x = golden.leaf("x"), target = golden.leaf("target");
  golden.check(loss(x, target, golden.leaf("var")));
  EXPECT_EQ(printed(*loss), pytorch_repr("gaussian_nll"));
}

TEST(LossModuleTest, DefaultReprsOfMarginAndLikelihoodLossesMatchPyTorch) {
  EXPECT_EQ(printed(*MarginRankingLoss()), pytorch_repr("margin_ranking_default"));
  EXPECT_EQ(printed(*HingeEmbeddingLoss()), pytorch_repr("hinge_embedding_default"));
  EXPECT_EQ(printed(*SoftMarginLoss()), pytorch_repr("soft_margin_default"));
  EXPECT_EQ(printed(*MultiLabelSoftMarginLoss()), pytorch_repr("multilabel_soft_margin_default"));
  EXPECT_EQ(printed(*CosineEmbeddingLoss()), pytorch_repr("cosine_embedding_default"));
  EXPECT_EQ(printed(*TripletMarginLoss()), pytorch_repr("triplet_margin_default"));
  EXPECT_EQ(printed(*PoissonNLLLoss()), pytorch_repr("poisson_nll_default"));
  EXPECT_EQ(printed(*GaussianNLLLoss()), pytorch_repr("gaussian_nll_default"));
}

TEST(LossModuleTest, DefaultOptionsAreTorchs) {
  EXPECT_EQ(MarginRankingLossOptions().margin(), 0.0);
  EXPECT_EQ(HingeEmbeddingLossOptions().margin(), 1.0);
  EXPECT_EQ(CosineEmbeddingLossOptions().margin(), 0.0);
  const TripletMarginLossOptions triplet;
  EXPECT_EQ(triplet.margin(), 1.0);
  EXPECT_EQ(triplet.p(), 2.0);
  EXPECT_EQ(triplet.eps(), 1e-6);
  EXPECT_FALSE(triplet.swap());
  const PoissonNLLLossOptions poisson;
  EXPECT_TRUE(poisson.log_input());
  EXPECT_FALSE(poisson.full());
  EXPECT_EQ(poisson.eps(), 1e-8);
  EXPECT_FALSE(GaussianNLLLossOptions().full());
  EXPECT_EQ(GaussianNLLLossOptions().eps(), 1e-6);
  EXPECT_EQ(GaussianNLLLossOptions().reduction(), "mean");
}

TEST(LossModuleTest, MultiLabelSoftMarginWeightIsABuffer) {
  const Tensor weight = rand({3});
  MultiLabelSoftMarginLoss loss(MultiLabelSoftMarginLossOptions().weight(weight));
  EXPECT_EQ(loss->state_dict().keys(), (std::vector<std::string>{"weight"}));
  EXPECT_EQ(loss->weight.data().data_ptr(), weight.data_ptr());
  EXPECT_TRUE(MultiLabelSoftMarginLoss()->state_dict().keys().empty());
  const Variable x(randn({2, 3})), y(rand({2, 3}));
  EXPECT_EQ(loss(x, y).item<double>(),
            F::multilabel_soft_margin_loss(x, y, Variable(weight)).item<double>());
}

TEST(LossModuleTest, ModulesPassTheirOptionsToTheFunctionalLosses) {
  const Variable a(randn({4, 3})), b(randn({4, 3})), c(randn({4, 3}));
  const Variable t(tensor({1.0f, -1.0f, -1.0f, 1.0f}));
  EXPECT_EQ(TripletMarginLoss(TripletMarginLossOptions().p(1).swap(true).reduction("sum"))(a, b, c)
                .item<double>(),
            F::triplet_margin_loss(a, b, c, 1.0, 1.0, 1e-6, true, "sum").item<double>());
  EXPECT_EQ(CosineEmbeddingLoss(CosineEmbeddingLossOptions().margin(-0.5))(a, b, t).item<double>(),
            F::cosine_embedding_loss(a, b, t, -0.5).item<double>());
  const Variable var(rand({4, 3}));
  EXPECT_EQ(GaussianNLLLoss(GaussianNLLLossOptions().eps(0.3))(a, b, var).item<double>(),
            F::gaussian_nll_loss(a, b, var, false, 0.3).item<double>());
  EXPECT_EQ(PoissonNLLLoss(PoissonNLLLossOptions().eps(0.1).log_input(false))(var, c.abs())
                .item<double>(),
            F::poisson_nll_loss(var, c.abs(), false, false, 0.1).item<double>());
}

TEST(LossModuleTest, MarginAndLikelihoodModulesRefuseAnUnknownReductionAsPyTorch) {
  const Variable x(randn({3})), t(tensor({1.0f, -1.0f, 1.0f}));
  EXPECT_THROW_MSG(SoftMarginLoss(SoftMarginLossOptions().reduction("avg"))(x, t),
                   "avg is not a valid value for reduction");
  EXPECT_THROW_MSG(PoissonNLLLoss(PoissonNLLLossOptions().reduction("avg"))(x, t.abs()),
                   "avg is not valid");
}

}  // namespace
}  // namespace torchlet::nn
