#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "nn/data/generator.h"
#include "tensor/tensor_body.h"

namespace torchlet::data {

// Note [Sampler randomness]
// A random sampler draws from the Generator it is given, shared with whoever
// else holds it (PyTorch's `generator=` argument), so that seeding that
// Generator makes every epoch reproducible. Without one, each epoch draws from
// a fresh Generator seeded from the global generator (as PyTorch's
// RandomSampler does at every iter()), so `manual_seed(s)` before an epoch
// fixes its order. Permutations are the Generator's own randperm: a
// RandomSampler without replacement over n examples yields exactly
// `generator.randperm(n)`, and a SubsetRandomSampler maps it through its
// indices. Draws that are not permutations (with replacement, weighted) come
// from an engine seeded by 64 bits drawn from the Generator once per epoch.
// The Generator is torchlet's, not torch's Mersenne Twister: the same seed
// does not give PyTorch's index sequence, only its distribution.

/// Yields the dataset indices of an epoch (PyTorch's
/// `torch.utils.data.Sampler[int]`). DataLoader asks for them, on the loop's
/// thread, when an epoch starts.
class Sampler {
 public:
  virtual ~Sampler() = default;
  /// The indices of the next epoch, in order (PyTorch's
  /// `list(iter(sampler))`); a random sampler draws anew at every call.
  virtual std::vector<int64_t> epoch() = 0;
  /// How many indices an epoch yields (PyTorch's `len(sampler)`). A sampler
  /// that does not override it has no length, as a PyTorch sampler without
  /// `__len__`: calling it throws.
  virtual int64_t size() const;
};

/// 0, 1, ..., size-1 every epoch (PyTorch's `SequentialSampler`).
class SequentialSampler final : public Sampler {
 public:
  /// `size` is the dataset's size (>= 0).
  explicit SequentialSampler(int64_t size);
  std::vector<int64_t> epoch() override;
  int64_t size() const override { return size_; }

 private:
  int64_t size_;
};

/// Random indices into a dataset of `data_size` examples (PyTorch's
/// `RandomSampler(data_source, replacement, num_samples, generator)`).
/// Without replacement an epoch is a random permutation of the dataset,
/// repeated (each a fresh one) while num_samples exceeds it, the last one
/// cut short; with replacement, num_samples independent uniform draws. See
/// Note [Sampler randomness]. An epoch of whole permutations (num_samples a
/// multiple of the size, as by default) draws just those: the permutation
/// PyTorch draws after them and keeps none of is not drawn.
class RandomSampler final : public Sampler {
 public:
  /// `num_samples` defaults to `data_size`; it must be positive.
  explicit RandomSampler(int64_t data_size, bool replacement = false,
                         std::optional<int64_t> num_samples = std::nullopt,
                         std::shared_ptr<Generator> generator = nullptr);
  /// Throws when the dataset is empty but num_samples was given.
  std::vector<int64_t> epoch() override;
  /// num_samples.
  int64_t size() const override { return num_samples_; }

  int64_t num_samples() const { return num_samples_; }
  bool replacement() const { return replacement_; }
  const std::shared_ptr<Generator>& generator() const { return generator_; }

 private:
  int64_t data_size_;
  bool replacement_;
  int64_t num_samples_;
  std::shared_ptr<Generator> generator_;
};

/// The given indices in a random order, a fresh one every epoch (PyTorch's
/// `SubsetRandomSampler(indices, generator)`): `indices[p]` for p in
/// `generator.randperm(indices.size())`.
class SubsetRandomSampler final : public Sampler {
 public:
  explicit SubsetRandomSampler(std::vector<int64_t> indices,
                               std::shared_ptr<Generator> generator = nullptr);
  std::vector<int64_t> epoch() override;
  int64_t size() const override { return static_cast<int64_t>(indices_.size()); }

  const std::vector<int64_t>& indices() const { return indices_; }
  const std::shared_ptr<Generator>& generator() const { return generator_; }

 private:
  std::vector<int64_t> indices_;
  std::shared_ptr<Generator> generator_;
};

/// num_samples indices in [0, weights.size()), index i drawn with probability
/// proportional to weights[i] (PyTorch's `WeightedRandomSampler(weights,
/// num_samples, replacement, generator)`, which is torch.multinomial).
/// Without replacement each index is drawn at most once, every draw in
/// proportion to the weights still left; indices of weight 0 come only after
/// all the others.
class WeightedRandomSampler final : public Sampler {
 public:
  /// Throws, with torch.multinomial's messages, for a negative, infinite or
  /// NaN weight, weights summing to 0, or (without replacement) num_samples
  /// beyond the number of weights.
  WeightedRandomSampler(std::vector<double> weights, int64_t num_samples, bool replacement = true,
                        std::shared_ptr<Generator> generator = nullptr);
  /// `weights` is a 1-d tensor of any real dtype.
  WeightedRandomSampler(const Tensor& weights, int64_t num_samples, bool replacement = true,
                        std::shared_ptr<Generator> generator = nullptr);
  std::vector<int64_t> epoch() override;
  int64_t size() const override { return num_samples_; }

  const std::vector<double>& weights() const { return weights_; }
  int64_t num_samples() const { return num_samples_; }
  bool replacement() const { return replacement_; }
  const std::shared_ptr<Generator>& generator() const { return generator_; }

 private:
  std::vector<double> weights_;
  std::vector<double> cumulative_;  // running sums of weights_, for draws with replacement
  int64_t num_samples_;
  bool replacement_;
  std::shared_ptr<Generator> generator_;
};

/// Yields the batches of indices of an epoch (PyTorch's
/// `Sampler[List[int]]`, what DataLoader's `batch_sampler` takes). Derive from
/// it to choose each batch yourself.
class BatchSamplerBase {
 public:
  virtual ~BatchSamplerBase() = default;
  /// The batches of the next epoch, in order (PyTorch's
  /// `list(iter(batch_sampler))`).
  virtual std::vector<std::vector<int64_t>> epoch() = 0;
  /// How many batches an epoch yields (PyTorch's `len(batch_sampler)`); as
  /// Sampler::size, throws unless overridden.
  virtual int64_t size() const;
};

/// Groups the indices of `sampler` into batches of `batch_size`, the last
/// one smaller unless `drop_last` leaves it out (PyTorch's
/// `BatchSampler(sampler, batch_size, drop_last)`).
class BatchSampler final : public BatchSamplerBase {
 public:
  BatchSampler(std::shared_ptr<Sampler> sampler, int64_t batch_size, bool drop_last);
  std::vector<std::vector<int64_t>> epoch() override;
  /// From the sampler's size: floor(size / batch_size) with drop_last,
  /// ceil otherwise.
  int64_t size() const override;

  const std::shared_ptr<Sampler>& sampler() const { return sampler_; }
  int64_t batch_size() const { return batch_size_; }
  bool drop_last() const { return drop_last_; }

 private:
  std::shared_ptr<Sampler> sampler_;
  int64_t batch_size_;
  bool drop_last_;
};

}  // namespace torchlet::data
