#include "nn/tensorboard/event.h"

#include <algorithm>
#include <cmath>

#include "nn/tensorboard/proto_encoder.h"
#include "tensor/error.h"

namespace torchlet::tensorboard {
namespace {

// Event and Summary field numbers (event.proto, summary.proto).
constexpr int kEventWallTime = 1, kEventStep = 2, kEventFileVersion = 3, kEventSummary = 5;
constexpr int kSummaryValue = 1;
constexpr int kValueTag = 1, kValueSimpleValue = 2, kValueHisto = 5;
constexpr int kHistoMin = 1, kHistoMax = 2, kHistoNum = 3, kHistoSum = 4, kHistoSumSquares = 5,
              kHistoBucketLimit = 6, kHistoBucket = 7;

// proto3 leaves out scalar fields equal to their default.
void put_double(ProtoEncoder& out, int field, double value) {
  if (value != 0) out.float64(field, value);
}

std::string event(double wall_time, int64_t step, int what_field, std::string_view what) {
  ProtoEncoder out;
  put_double(out, kEventWallTime, wall_time);
  if (step != 0) out.varint(kEventStep, static_cast<uint64_t>(step));
  out.bytes(what_field, what);
  return out.data();
}

std::string summary(std::string_view value) {
  return ProtoEncoder().bytes(kSummaryValue, value).data();
}

}  // namespace

const std::vector<double>& tensorflow_bins() {
  static const std::vector<double> bins = [] {
    std::vector<double> positive;
    for (double v = 1e-12; v < 1e20; v *= 1.1) positive.push_back(v);
    std::vector<double> edges;
    for (auto it = positive.rbegin(); it != positive.rend(); ++it) edges.push_back(-*it);
    edges.push_back(0);
    edges.insert(edges.end(), positive.begin(), positive.end());
    return edges;
  }();
  return bins;
}

Histogram make_histogram(const std::vector<double>& values) {
  TORCHLET_CHECK(!values.empty(), "add_histogram: the input has no element.");
  const std::vector<double>& edges = tensorflow_bins();
  std::vector<double> counts(edges.size() - 1, 0.0);
  Histogram h;
  h.min = values[0];
  h.max = values[0];
  for (double v : values) {
    TORCHLET_CHECK(std::isfinite(v), "add_histogram: values must be finite, got ", v);
    h.min = std::min(h.min, v);
    h.max = std::max(h.max, v);
    h.sum += v;
    h.sum_squares += v * v;
    // numpy.histogram: bin i is [edge i, edge i+1), the last one closed.
    if (v < edges.front() || v > edges.back()) continue;
    const size_t upper = std::upper_bound(edges.begin(), edges.end(), v) - edges.begin();
    counts[std::min(upper - 1, counts.size() - 1)] += 1;
  }
  h.num = static_cast<double>(values.size());
  const auto nonzero = [](double c) { return c > 0; };
  const size_t first = std::find_if(counts.begin(), counts.end(), nonzero) - counts.begin();
  TORCHLET_CHECK(first < counts.size(), "add_histogram: every value is outside the bins");
  const size_t last = counts.rend() - std::find_if(counts.rbegin(), counts.rend(), nonzero) - 1;
  // TensorBoard keeps only right edges: an empty bin on the left keeps the
  // leftmost edge.
  if (first > 0) {
    h.bucket.assign(counts.begin() + first - 1, counts.begin() + last + 1);
  } else {
    h.bucket.push_back(0);
    h.bucket.insert(h.bucket.end(), counts.begin(), counts.begin() + last + 1);
  }
  h.bucket_limit.assign(edges.begin() + first, edges.begin() + last + 2);
  return h;
}

std::string file_version_event(double wall_time) {
  return event(wall_time, 0, kEventFileVersion, "brain.Event:2");
}

std::string scalar_event(std::string_view tag, float value, int64_t step, double wall_time) {
  ProtoEncoder v;
  v.bytes(kValueTag, tag).float32(kValueSimpleValue, value);
  return event(wall_time, step, kEventSummary, summary(v.data()));
}

std::string histogram_event(std::string_view tag, const Histogram& histogram, int64_t step,
                            double wall_time) {
  ProtoEncoder histo;
  put_double(histo, kHistoMin, histogram.min);
  put_double(histo, kHistoMax, histogram.max);
  put_double(histo, kHistoNum, histogram.num);
  put_double(histo, kHistoSum, histogram.sum);
  put_double(histo, kHistoSumSquares, histogram.sum_squares);
  histo.packed_float64(kHistoBucketLimit, histogram.bucket_limit);
  histo.packed_float64(kHistoBucket, histogram.bucket);
  ProtoEncoder v;
  v.bytes(kValueTag, tag).bytes(kValueHisto, histo.data());
  return event(wall_time, step, kEventSummary, summary(v.data()));
}

}  // namespace torchlet::tensorboard
