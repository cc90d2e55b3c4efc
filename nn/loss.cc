#include "nn/loss.h"

#include "nn/functional/loss.h"

namespace torchlet::nn {

namespace F = functional;

Variable MSELossImpl::forward(const Variable& input, const Variable& target) {
  return F::mse_loss(input, target, options.reduction());
}

Variable L1LossImpl::forward(const Variable& input, const Variable& target) {
  return F::l1_loss(input, target, options.reduction());
}

Variable SmoothL1LossImpl::forward(const Variable& input, const Variable& target) {
  return F::smooth_l1_loss(input, target, options.reduction(), options.beta());
}

Variable HuberLossImpl::forward(const Variable& input, const Variable& target) {
  return F::huber_loss(input, target, options.reduction(), options.delta());
}

Variable CrossEntropyLossImpl::forward(const Variable& input, const Variable& target) {
  return F::cross_entropy(input, target, weight, options.ignore_index(), options.reduction(),
                          options.label_smoothing());
}

Variable NLLLossImpl::forward(const Variable& input, const Variable& target) {
  return F::nll_loss(input, target, weight, options.ignore_index(), options.reduction());
}

Variable BCELossImpl::forward(const Variable& input, const Variable& target) {
  return F::binary_cross_entropy(input, target, weight, options.reduction());
}

BCEWithLogitsLossImpl::BCEWithLogitsLossImpl(BCEWithLogitsLossOptions options)
    : WeightedLoss(std::move(options)) {
  register_pos_weight();
}

void BCEWithLogitsLossImpl::reset() {
  WeightedLoss::reset();
  register_pos_weight();
}

void BCEWithLogitsLossImpl::register_pos_weight() {
  pos_weight = register_buffer("pos_weight", options.pos_weight());
}

Variable BCEWithLogitsLossImpl::forward(const Variable& input, const Variable& target) {
  return F::binary_cross_entropy_with_logits(input, target, weight, options.reduction(),
                                             pos_weight);
}

Variable KLDivLossImpl::forward(const Variable& input, const Variable& target) {
  return F::kl_div(input, target, options.reduction(), options.log_target());
}

Variable MarginRankingLossImpl::forward(const Variable& input1, const Variable& input2,
                                        const Variable& target) {
  return F::margin_ranking_loss(input1, input2, target, options.margin(), options.reduction());
}

Variable HingeEmbeddingLossImpl::forward(const Variable& input, const Variable& target) {
  return F::hinge_embedding_loss(input, target, options.margin(), options.reduction());
}

Variable SoftMarginLossImpl::forward(const Variable& input, const Variable& target) {
  return F::soft_margin_loss(input, target, options.reduction());
}

Variable MultiLabelSoftMarginLossImpl::forward(const Variable& input, const Variable& target) {
  return F::multilabel_soft_margin_loss(input, target, weight, options.reduction());
}

Variable CosineEmbeddingLossImpl::forward(const Variable& input1, const Variable& input2,
                                          const Variable& target) {
  return F::cosine_embedding_loss(input1, input2, target, options.margin(), options.reduction());
}

Variable TripletMarginLossImpl::forward(const Variable& anchor, const Variable& positive,
                                        const Variable& negative) {
  return F::triplet_margin_loss(anchor, positive, negative, options.margin(), options.p(),
                                options.eps(), options.swap(), options.reduction());
}

Variable PoissonNLLLossImpl::forward(const Variable& input, const Variable& target) {
  return F::poisson_nll_loss(input, target, options.log_input(), options.full(),
                             options.eps(), options.reduction());
}

Variable GaussianNLLLossImpl::forward(const Variable& input, const Variable& target,
                                      const Variable& var) {
  return F::gaussian_nll_loss(input, target, var, options.full(), options.eps(),
                              options.reduction());
}

}  // namespace torchlet::nn
