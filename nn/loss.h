#pragma once

// Loss modules (torch.nn's losses): each holds its options and calls the
// nn::functional loss of the same name; forward(input, target).

#include <cstdint>
#include <string>
#include <utility>

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options.h"
#include "nn/stateless.h"

namespace torchlet::nn {

/// The option of a loss that only reduces: "none", "mean" or "sum".
struct ReductionOptions {
  TORCHLET_ARG(std::string, reduction) = "mean";
};
using MSELossOptions = ReductionOptions;
using L1LossOptions = ReductionOptions;

/// torch.nn.SmoothL1Loss's arguments.
struct SmoothL1LossOptions {
  TORCHLET_ARG(std::string, reduction) = "mean";
  TORCHLET_ARG(double, beta) = 1.0;
};

/// torch.nn.HuberLoss's arguments.
struct HuberLossOptions {
  TORCHLET_ARG(std::string, reduction) = "mean";
  TORCHLET_ARG(double, delta) = 1.0;
};

/// torch.nn.CrossEntropyLoss's arguments; an undefined weight is None.
struct CrossEntropyLossOptions {
  TORCHLET_ARG(Tensor, weight);
  TORCHLET_ARG(int64_t, ignore_index) = -100;
  TORCHLET_ARG(std::string, reduction) = "mean";
  TORCHLET_ARG(double, label_smoothing) = 0.0;
};

/// torch.nn.NLLLoss's arguments.
struct NLLLossOptions {
  TORCHLET_ARG(Tensor, weight);
  TORCHLET_ARG(int64_t, ignore_index) = -100;
  TORCHLET_ARG(std::string, reduction) = "mean";
};

/// torch.nn.BCELoss's arguments.
struct BCELossOptions {
  TORCHLET_ARG(Tensor, weight);
  TORCHLET_ARG(std::string, reduction) = "mean";
};

/// torch.nn.BCEWithLogitsLoss's arguments.
struct BCEWithLogitsLossOptions {
  TORCHLET_ARG(Tensor, weight);
  TORCHLET_ARG(std::string, reduction) = "mean";
  /// Weighs the positive term, broadcast along the last dim.
  TORCHLET_ARG(Tensor, pos_weight);
};

/// torch.nn.KLDivLoss's arguments; reduction may also be "batchmean".
struct KLDivLossOptions {
  TORCHLET_ARG(std::string, reduction) = "mean";
  TORCHLET_ARG(bool, log_target) = false;
};

/// torch.nn.MarginRankingLoss's arguments.
struct MarginRankingLossOptions {
  TORCHLET_ARG(double, margin) = 0.0;
  TORCHLET_ARG(std::string, reduction) = "mean";
};

/// torch.nn.HingeEmbeddingLoss's arguments.
struct HingeEmbeddingLossOptions {
  TORCHLET_ARG(double, margin) = 1.0;
  TORCHLET_ARG(std::string, reduction) = "mean";
};

using SoftMarginLossOptions = ReductionOptions;

/// torch.nn.MultiLabelSoftMarginLoss's arguments.
struct MultiLabelSoftMarginLossOptions {
  TORCHLET_ARG(Tensor, weight);
  TORCHLET_ARG(std::string, reduction) = "mean";
};

/// torch.nn.CosineEmbeddingLoss's arguments.
struct CosineEmbeddingLossOptions {
  TORCHLET_ARG(double, margin) = 0.0;
  TORCHLET_ARG(std::string, reduction) = "mean";
};

/// torch.nn.TripletMarginLoss's arguments.
struct TripletMarginLossOptions {
  TORCHLET_ARG(double, margin) = 1.0;
  TORCHLET_ARG(double, p) = 2.0;
  TORCHLET_ARG(double, eps) = 1e-6;
  TORCHLET_ARG(bool, swap) = false;
  TORCHLET_ARG(std::string, reduction) = "mean";
};

/// torch.nn.PoissonNLLLoss's arguments.
struct PoissonNLLLossOptions {
  TORCHLET_ARG(bool, log_input) = true;
  TORCHLET_ARG(bool, full) = false;
  TORCHLET_ARG(double, eps) = 1e-8;
  TORCHLET_ARG(std::string, reduction) = "mean";
};

/// torch.nn.GaussianNLLLoss's arguments.
struct GaussianNLLLossOptions {
  TORCHLET_ARG(bool, full) = false;
  TORCHLET_ARG(double, eps) = 1e-6;
  TORCHLET_ARG(std::string, reduction) = "mean";
};

/// The base of a loss with a class weight (PyTorch's _WeightedLoss): the
/// options' weight is the buffer `weight` (shared, not copied; an
/// undefined weight registers None), which forward uses, so that to() and
/// load_state_dict() reach it.
template <typename Derived, typename Options>
class WeightedLoss : public StatelessModule<Derived, Options> {
 public:
  explicit WeightedLoss(Options options = {})
      : StatelessModule<Derived, Options>(std::move(options)) {
    WeightedLoss::reset();
  }
  void reset() override { weight = this->register_buffer("weight", this->options.weight()); }

  Variable weight;
};

/// (input - target)^2 (torch.nn.MSELoss).
class MSELossImpl : public StatelessModule<MSELossImpl, MSELossOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& input, const Variable& target);
};
TORCHLET_MODULE(MSELoss);

/// |input - target| (torch.nn.L1Loss).
class L1LossImpl : public StatelessModule<L1LossImpl, L1LossOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& input, const Variable& target);
};
TORCHLET_MODULE(L1Loss);

/// Squared below beta, linear above (torch.nn.SmoothL1Loss).
class SmoothL1LossImpl : public StatelessModule<SmoothL1LossImpl, SmoothL1LossOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& input, const Variable& target);
};
TORCHLET_MODULE(SmoothL1Loss);

/// Squared below delta, linear above (torch.nn.HuberLoss).
class HuberLossImpl : public StatelessModule<HuberLossImpl, HuberLossOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& input, const Variable& target);
};
TORCHLET_MODULE(HuberLoss);

/// Cross-entropy of logits at class indices or class probabilities
/// (torch.nn.CrossEntropyLoss); see functional::cross_entropy.
class CrossEntropyLossImpl : public WeightedLoss<CrossEntropyLossImpl, CrossEntropyLossOptions> {
 public:
  using WeightedLoss::WeightedLoss;
  Variable forward(const Variable& input, const Variable& target);
};
TORCHLET_MODULE(CrossEntropyLoss);

/// Negative log-likelihood of log-probabilities (torch.nn.NLLLoss).
class NLLLossImpl : public WeightedLoss<NLLLossImpl, NLLLossOptions> {
 public:
  using WeightedLoss::WeightedLoss;
  Variable forward(const Variable& input, const Variable& target);
};
TORCHLET_MODULE(NLLLoss);

/// Binary cross-entropy of probabilities (torch.nn.BCELoss).
class BCELossImpl : public WeightedLoss<BCELossImpl, BCELossOptions> {
 public:
  using WeightedLoss::WeightedLoss;
  Variable forward(const Variable& input, const Variable& target);
};
TORCHLET_MODULE(BCELoss);

/// Binary cross-entropy of sigmoid(input), computed stably
/// (torch.nn.BCEWithLogitsLoss); pos_weight is the buffer `pos_weight`.
class BCEWithLogitsLossImpl
    : public WeightedLoss<BCEWithLogitsLossImpl, BCEWithLogitsLossOptions> {
 public:
  explicit BCEWithLogitsLossImpl(BCEWithLogitsLossOptions options = {});
  void reset() override;
  Variable forward(const Variable& input, const Variable& target);

  Variable pos_weight;

 private:
  void register_pos_weight();
};
TORCHLET_MODULE(BCEWithLogitsLoss);

/// Kullback-Leibler divergence of log-probabilities input from target
/// (torch.nn.KLDivLoss).
class KLDivLossImpl : public StatelessModule<KLDivLossImpl, KLDivLossOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& input, const Variable& target);
};
TORCHLET_MODULE(KLDivLoss);

/// max(0, -target * (input1 - input2) + margin) (torch.nn.MarginRankingLoss).
class MarginRankingLossImpl
    : public StatelessModule<MarginRankingLossImpl, MarginRankingLossOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& input1, const Variable& input2, const Variable& target);
};
TORCHLET_MODULE(MarginRankingLoss);

/// input where target is 1, max(0, margin - input) where it is -1
/// (torch.nn.HingeEmbeddingLoss).
class HingeEmbeddingLossImpl
    : public StatelessModule<HingeEmbeddingLossImpl, HingeEmbeddingLossOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& input, const Variable& target);
};
TORCHLET_MODULE(HingeEmbeddingLoss);

/// log(1 + exp(-target * input)) (torch.nn.SoftMarginLoss).
class SoftMarginLossImpl : public StatelessModule<SoftMarginLossImpl, SoftMarginLossOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& input, const Variable& target);
};
TORCHLET_MODULE(SoftMarginLoss);

/// Per-class logistic losses averaged over the classes
/// (torch.nn.MultiLabelSoftMarginLoss); weight is the buffer `weight`.
class MultiLabelSoftMarginLossImpl
    : public WeightedLoss<MultiLabelSoftMarginLossImpl, MultiLabelSoftMarginLossOptions> {
 public:
  using WeightedLoss::WeightedLoss;
  Variable forward(const Variable& input, const Variable& target);
};
TORCHLET_MODULE(MultiLabelSoftMarginLoss);

/// 1 - cos where target is 1, max(0, cos - margin) where it is -1
/// (torch.nn.CosineEmbeddingLoss).
class CosineEmbeddingLossImpl
    : public StatelessModule<CosineEmbeddingLossImpl, CosineEmbeddingLossOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& input1, const Variable& input2, const Variable& target);
};
TORCHLET_MODULE(CosineEmbeddingLoss);

/// max(0, margin + d(anchor, positive) - d(anchor, negative))
/// (torch.nn.TripletMarginLoss).
class TripletMarginLossImpl
    : public StatelessModule<TripletMarginLossImpl, TripletMarginLossOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& anchor, const Variable& positive, const Variable& negative);
};
TORCHLET_MODULE(TripletMarginLoss);

/// Negative log-likelihood of a Poisson-distributed target
/// (torch.nn.PoissonNLLLoss).
class PoissonNLLLossImpl : public StatelessModule<PoissonNLLLossImpl, PoissonNLLLossOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& input, const Variable& target);
};
TORCHLET_MODULE(PoissonNLLLoss);

/// Negative log-likelihood of a Gaussian-distributed target of mean input
/// and variance var (torch.nn.GaussianNLLLoss).
class GaussianNLLLossImpl : public StatelessModule<GaussianNLLLossImpl, GaussianNLLLossOptions> {
 public:
  using StatelessModule::StatelessModule;
  Variable forward(const Variable& input, const Variable& target, const Variable& var);
};
TORCHLET_MODULE(GaussianNLLLoss);

}  // namespace torchlet::nn
