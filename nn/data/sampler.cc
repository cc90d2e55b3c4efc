#include "nn/data/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include "tensor/error.h"

namespace torchlet::data {
namespace {

/// The generator an epoch draws from: the sampler's own, else `fresh`,
/// seeded from the global generator (Note [Sampler randomness]).
Generator& epoch_generator(const std::shared_ptr<Generator>& own, std::optional<Generator>& fresh) {
  if (own) return *own;
  fresh.emplace();
  return *fresh;
}

/// An engine seeded by 64 fair bits from `generator`, each the first element
/// of a permutation of two (the Generator's only draw).
std::mt19937_64 seeded_engine(Generator& generator) {
  uint64_t seed = 0;
  for (int bit = 0; bit < 64; ++bit) {
    seed = (seed << 1) | static_cast<uint64_t>(generator.randperm(2)[0]);
  }
  return std::mt19937_64(seed);
}

/// Uniform on [0, bound), without modulo bias.
int64_t uniform_below(std::mt19937_64& engine, int64_t bound) {
  const uint64_t b = static_cast<uint64_t>(bound);
  const uint64_t limit =
      std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % b;
  uint64_t x = engine();
  while (x >= limit) x = engine();
  return static_cast<int64_t>(x % b);
}

/// Uniform on the open interval (0, 1): the midpoints of 2^52 equal steps.
double uniform_open(std::mt19937_64& engine) {
  return (static_cast<double>(engine() >> 12) + 0.5) * 0x1.0p-52;
}

/// A shape as Python prints a tuple: (), (3,), (2, 3).
std::string python_tuple(IntArrayRef sizes) {
  if (sizes.size() == 1) return absl::StrCat("(", sizes[0], ",)");
  return absl::StrCat("(", absl::StrJoin(sizes.begin(), sizes.end(), ", "), ")");
}

void check_num_samples(int64_t num_samples) {
  TORCHLET_CHECK(
      num_samples > 0,
      "num_samples should be a positive integer value, but got num_samples=", num_samples);
}

/// torch.multinomial's checks of a 1-d distribution, in its order and words.
void check_weights(const std::vector<double>& weights, int64_t num_samples, bool replacement) {
  const int64_t categories = static_cast<int64_t>(weights.size());
  if (!replacement) {
    TORCHLET_CHECK(num_samples <= categories,
                   "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
    for (double w : weights) {
      TORCHLET_CHECK(w >= 0 && std::isfinite(w),
                     "probability tensor contains either `inf`, `nan` or element < 0");
    }
  } else {
    for (double w : weights) {
      TORCHLET_CHECK(w >= 0,
                     "invalid multinomial distribution (encountering probability entry < 0)");
      TORCHLET_CHECK(std::isfinite(w),
                     "invalid multinomial distribution (encountering probability entry = "
                     "infinity or NaN)");
    }
  }
  const double sum = std::accumulate(weights.begin(), weights.end(), 0.0);
  TORCHLET_CHECK(sum > 0, "invalid multinomial distribution (sum of probabilities <= 0)");
}

std::vector<double> weights_of(const Tensor& weights) {
  TORCHLET_CHECK(weights.defined(), "WeightedRandomSampler: the weights tensor is undefined");
  TORCHLET_CHECK(weights.dim() == 1,
                 "weights should be a 1d sequence but given weights have shape ",
                 python_tuple(weights.sizes()));
  return weights.to_vector<double>();
}

}  // namespace

int64_t Sampler::size() const {
  detail::throw_error("Sampler: this sampler has no length (its class does not override size())");
}

SequentialSampler::SequentialSampler(int64_t size) : size_(size) {
  TORCHLET_CHECK(size >= 0, "SequentialSampler: the dataset size must be non-negative, got ", size);
}

std::vector<int64_t> SequentialSampler::epoch() {
  std::vector<int64_t> indices(static_cast<size_t>(size_));
  std::iota(indices.begin(), indices.end(), int64_t{0});
  return indices;
}

RandomSampler::RandomSampler(int64_t data_size, bool replacement,
                             std::optional<int64_t> num_samples,
                             std::shared_ptr<Generator> generator)
    : data_size_(data_size),
      replacement_(replacement),
      num_samples_(num_samples.value_or(data_size)),
      generator_(std::move(generator)) {
  TORCHLET_CHECK(data_size >= 0, "RandomSampler: the dataset size must be non-negative, got ",
                 data_size);
  check_num_samples(num_samples_);
}

std::vector<int64_t> RandomSampler::epoch() {
  TORCHLET_CHECK(data_size_ > 0, "RandomSampler: cannot draw num_samples=", num_samples_,
                 " samples from an empty dataset");
  std::optional<Generator> fresh;
  Generator& generator = epoch_generator(generator_, fresh);
  std::vector<int64_t> indices;
  indices.reserve(static_cast<size_t>(num_samples_));
  if (replacement_) {
    std::mt19937_64 engine = seeded_engine(generator);
    for (int64_t i = 0; i < num_samples_; ++i) indices.push_back(uniform_below(engine, data_size_));
    return indices;
  }
  // Whole permutations, then one more cut short where num_samples is not a
  // multiple of the size (PyTorch draws that one, and throws it away, even
  // when it keeps none of it).
  while (static_cast<int64_t>(indices.size()) < num_samples_) {
    const std::vector<int64_t> perm = generator.randperm(data_size_);
    const int64_t keep = std::min(data_size_, num_samples_ - static_cast<int64_t>(indices.size()));
    indices.insert(indices.end(), perm.begin(), perm.begin() + keep);
  }
  return indices;
}

SubsetRandomSampler::SubsetRandomSampler(std::vector<int64_t> indices,
                                         std::shared_ptr<Generator> generator)
    : indices_(std::move(indices)), generator_(std::move(generator)) {}

std::vector<int64_t> SubsetRandomSampler::epoch() {
  std::optional<Generator> fresh;
  const std::vector<int64_t> perm =
      epoch_generator(generator_, fresh).randperm(static_cast<int64_t>(indices_.size()));
  std::vector<int64_t> out;
  out.reserve(perm.size());
  for (int64_t p : perm) out.push_back(indices_[p]);
  return out;
}

WeightedRandomSampler::WeightedRandomSampler(std::vector<double> weights, int64_t num_samples,
                                             bool replacement, std::shared_ptr<Generator> generator)
    : weights_(std::move(weights)),
      num_samples_(num_samples),
      replacement_(replacement),
      generator_(std::move(generator)) {
  check_num_samples(num_samples_);
  check_weights(weights_, num_samples_, replacement_);
  cumulative_.resize(weights_.size());
  std::partial_sum(weights_.begin(), weights_.end(), cumulative_.begin());
}

WeightedRandomSampler::WeightedRandomSampler(const Tensor& weights, int64_t num_samples,
                                             bool replacement, std::shared_ptr<Generator> generator)
    : WeightedRandomSampler(weights_of(weights), num_samples, replacement, std::move(generator)) {}

std::vector<int64_t> WeightedRandomSampler::epoch() {
  std::optional<Generator> fresh;
  std::mt19937_64 engine = seeded_engine(epoch_generator(generator_, fresh));
  const int64_t categories = static_cast<int64_t>(weights_.size());
  std::vector<int64_t> indices;
  indices.reserve(static_cast<size_t>(num_samples_));
  if (replacement_) {
    // The first index whose running sum exceeds u * total; a weight of 0
    // never does, as its running sum equals its predecessor's.
    const double total = cumulative_.back();
    for (int64_t i = 0; i < num_samples_; ++i) {
      const double u = uniform_open(engine) * total;
      auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), u);
      // u rounded up to the total: the last index of positive weight.
      if (it == cumulative_.end()) {
        it = std::lower_bound(cumulative_.begin(), cumulative_.end(), total);
      }
      indices.push_back(it - cumulative_.begin());
    }
    return indices;
  }
  // Successive draws in proportion to the weights left are the indices in
  // decreasing order of log(u_i) / w_i, u_i uniform on (0, 1) (the
  // exponential race torch.multinomial runs). Keys sort decreasing: positive
  // weights first, then the larger log(u) / w, then (weights of 0 alike) the
  // lower index, as the key holds -i.
  std::vector<std::tuple<bool, double, int64_t>> keys;
  keys.reserve(weights_.size());
  for (int64_t i = 0; i < categories; ++i) {
    const double u = uniform_open(engine);
    const bool positive = weights_[i] > 0;
    keys.emplace_back(positive, positive ? std::log(u) / weights_[i] : 0.0, -i);
  }
  std::partial_sort(keys.begin(), keys.begin() + num_samples_, keys.end(),
                    [](const auto& a, const auto& b) { return a > b; });
  for (int64_t i = 0; i < num_samples_; ++i) indices.push_back(-std::get<2>(keys[i]));
  return indices;
}

int64_t BatchSamplerBase::size() const {
  detail::throw_error(
      "BatchSamplerBase: this batch sampler has no length (its class does not override "
      "size())");
}

BatchSampler::BatchSampler(std::shared_ptr<Sampler> sampler, int64_t batch_size, bool drop_last)
    : sampler_(std::move(sampler)), batch_size_(batch_size), drop_last_(drop_last) {
  TORCHLET_CHECK(batch_size_ > 0,
                 "batch_size should be a positive integer value, but got batch_size=", batch_size_);
  TORCHLET_CHECK(sampler_ != nullptr, "BatchSampler: the sampler is null");
}

std::vector<std::vector<int64_t>> BatchSampler::epoch() {
  const std::vector<int64_t> indices = sampler_->epoch();
  std::vector<std::vector<int64_t>> batches;
  for (size_t start = 0; start < indices.size(); start += static_cast<size_t>(batch_size_)) {
    const size_t stop = std::min(indices.size(), start + static_cast<size_t>(batch_size_));
    if (drop_last_ && stop - start < static_cast<size_t>(batch_size_)) break;
    batches.emplace_back(indices.begin() + start, indices.begin() + stop);
  }
  return batches;
}

int64_t BatchSampler::size() const {
  const int64_t n = sampler_->size();
  return drop_last_ ? n / batch_size_ : (n + batch_size_ - 1) / batch_size_;
}

}  // namespace torchlet::data
