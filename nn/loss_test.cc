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

}  // namespace
}  // namespace torchlet::nn
