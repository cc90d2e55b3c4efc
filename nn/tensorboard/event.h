#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace torchlet::tensorboard {

/// TensorBoard's HistogramProto: the values' summary statistics and bucket
/// counts, each bucket given by its right edge.
struct Histogram {
  double min = 0;
  double max = 0;
  double num = 0;
  double sum = 0;
  double sum_squares = 0;
  std::vector<double> bucket_limit;
  std::vector<double> bucket;
};

/// The bucket edges of PyTorch's `bins='tensorflow'`: +-1e-12 * 1.1^k up to
/// 1e20, and 0.
const std::vector<double>& tensorflow_bins();

/// PyTorch's `make_histogram(values, tensorflow_bins())`: counts per bin
/// (values outside the edges are left out, as numpy.histogram does), trimmed
/// to the bins from the first to the last non-empty one plus an empty bin on
/// the left. Throws unless `values` is non-empty and finite.
Histogram make_histogram(const std::vector<double>& values);

/// Serialized Event messages (tensorflow/core/util/event.proto), with
/// proto3's rule that fields holding their default value are left out.
/// The first record of every event file: file_version "brain.Event:2".
std::string file_version_event(double wall_time);
/// A Summary with one simple_value (what `add_scalar` writes).
std::string scalar_event(std::string_view tag, float value, int64_t step, double wall_time);
/// A Summary with one histo (what `add_histogram` writes).
std::string histogram_event(std::string_view tag, const Histogram& histogram, int64_t step,
                            double wall_time);

}  // namespace torchlet::tensorboard
