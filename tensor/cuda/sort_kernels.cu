// Sorting lanes on the GPU with CUB's radix sorts: stable, so equal keys
// keep their positions, as the CPU's comparison sort does. Floating keys
// are first made canonical (every NaN one positive quiet NaN, the largest
// key; -0.0 as +0.0, equal to it) so that the radix order is the CPU's
// total order; the caller gathers the values from the original lanes.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>

#include <cstdint>
#include <limits>

#include "tensor/cuda/grid.h"
#include "tensor/cuda/launch.h"
#include "tensor/cuda/stream_state.h"

namespace torchlet::cuda {
namespace {

template <typename T>
__global__ void canonical_keys_kernel(T* out, const T* in, int64_t n) {
  TORCHLET_GRID_LOOP(i, n) {
    const T x = in[i];
    out[i] = x != x ? std::numeric_limits<T>::quiet_NaN() : (x == T(0) ? T(0) : x);
  }
}

__global__ void lane_positions_kernel(int64_t* out, int64_t rows, int64_t n, int* offsets) {
  TORCHLET_GRID_LOOP(i, rows * n) {
    out[i] = i % n;
    if (i % n == 0) offsets[i / n] = static_cast<int>(i);
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) offsets[rows] = static_cast<int>(rows * n);
}

// Sorts, or with a.temp null only sets `bytes` to the scratch the sort
// needs (CUB's convention); `bytes` is the scratch's size otherwise.
template <typename T>
cudaError_t sort_pairs(const SortArgs& a, size_t& bytes) {
  const T* keys_in = static_cast<const T*>(a.keys_in);
  T* keys_out = static_cast<T*>(a.keys_out);
  const int items = static_cast<int>(a.rows * a.n);
  const int segments = static_cast<int>(a.rows);
  constexpr int kBits = static_cast<int>(sizeof(T) * 8);
  const cudaStream_t stream = launch_stream();
  if (a.rows == 1) {
    // One lane: the device-wide sort (the segmented one gives a segment a
    // single block).
    return a.descending
               ? cub::DeviceRadixSort::SortPairsDescending(a.temp, bytes, keys_in, keys_out,
                                                           a.positions_in, a.positions_out, items, 0,
                                                           kBits, stream)
               : cub::DeviceRadixSort::SortPairs(a.temp, bytes, keys_in, keys_out,
                                                 a.positions_in, a.positions_out, items, 0, kBits,
                                                 stream);
  }
  return a.descending ? cub::DeviceSegmentedRadixSort::SortPairsDescending(
                            a.temp, bytes, keys_in, keys_out, a.positions_in, a.positions_out,
                            items, segments, a.offsets, a.offsets + 1, 0, kBits, stream)
                      : cub::DeviceSegmentedRadixSort::SortPairs(
                            a.temp, bytes, keys_in, keys_out, a.positions_in, a.positions_out,
                            items, segments, a.offsets, a.offsets + 1, 0, kBits, stream);
}

template <typename F>
cudaError_t dispatch_keys(DType dtype, F&& f) {
  switch (dtype) {
    case DType::kFloat32: return f(float{});
    case DType::kFloat64: return f(double{});
    case DType::kInt64: return f(int64_t{});
    case DType::kInt32: return f(int32_t{});
    case DType::kUInt8: return f(uint8_t{});
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace

cudaError_t launch_canonical_keys(DType dtype, void* out, const void* in, int64_t n) {
  if (n == 0) return cudaSuccess;
  if (dtype == DType::kFloat32) {
    canonical_keys_kernel<<<blocks_for(n), kThreads, 0, launch_stream()>>>(static_cast<float*>(out),
                                                        static_cast<const float*>(in), n);
  } else if (dtype == DType::kFloat64) {
    canonical_keys_kernel<<<blocks_for(n), kThreads, 0, launch_stream()>>>(static_cast<double*>(out),
                                                        static_cast<const double*>(in), n);
  } else {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t launch_lane_positions(int64_t* positions, int* offsets, int64_t rows, int64_t n) {
  if (rows * n == 0) return cudaSuccess;
  lane_positions_kernel<<<blocks_for(rows * n), kThreads, 0, launch_stream()>>>(positions, rows, n, offsets);
  return cudaGetLastError();
}

cudaError_t sort_temp_bytes(DType dtype, SortArgs args, size_t* bytes) {
  args.temp = nullptr;
  return dispatch_keys(dtype, [&](auto tag) { return sort_pairs<decltype(tag)>(args, *bytes); });
}

cudaError_t launch_sort_pairs(DType dtype, const SortArgs& args) {
  if (args.rows * args.n == 0) return cudaSuccess;
  size_t bytes = args.temp_bytes;
  return dispatch_keys(dtype, [&](auto tag) { return sort_pairs<decltype(tag)>(args, bytes); });
}

}  // namespace torchlet::cuda
