// index_select, gather and scatter. gather and scatter walk the index's
// shape with the indexed tensor's stride along `dim` zeroed, so one loop
// gives every operand's offset and the index only adds its step.
#include <cstdint>
#include <type_traits>

#include "tensor/cuda/grid.h"
#include "tensor/cuda/launch.h"
#include "tensor/cuda/stream_state.h"

namespace torchlet::cuda {
namespace {

__device__ void offsets_of(const LoopArgs& loop, int64_t i, int64_t (&off)[kMaxLoopOperands]) {
  if (loop.ndim <= 1) {
    for (int op = 0; op < kMaxLoopOperands; ++op) off[op] = loop.ndim == 0 ? 0 : i * loop.strides[op][0];
    return;
  }
  loop_offsets(loop, i, off);
}

template <typename T>
__global__ void index_select_kernel(T* out, const T* src, const int64_t* index, int64_t src_size,
                                    int64_t n_index, int64_t inner, int64_t total) {
  TORCHLET_GRID_LOOP(i, total) {
    const int64_t k = i % inner;
    const int64_t j = (i / inner) % n_index;
    const int64_t o = i / (inner * n_index);
    out[i] = src[(o * src_size + index[j]) * inner + k];
  }
}

template <typename T>
__global__ void gather_kernel(LoopArgs loop, int64_t dim_stride) {
  TORCHLET_GRID_LOOP(i, loop.numel) {
    int64_t off[kMaxLoopOperands];
    offsets_of(loop, i, off);
    const int64_t at = *reinterpret_cast<const int64_t*>(loop.data[1] + off[1]);
    *reinterpret_cast<T*>(loop.data[0] + off[0]) =
        *reinterpret_cast<const T*>(loop.data[2] + off[2] + at * dim_stride);
  }
}

template <typename T, bool kAdd>
__global__ void scatter_kernel(LoopArgs loop, int64_t dim_stride) {
  TORCHLET_GRID_LOOP(i, loop.numel) {
    int64_t off[kMaxLoopOperands];
    offsets_of(loop, i, off);
    const int64_t at = *reinterpret_cast<const int64_t*>(loop.data[1] + off[1]);
    T* target = reinterpret_cast<T*>(loop.data[0] + off[0] + at * dim_stride);
    const T value = *reinterpret_cast<const T*>(loop.data[2] + off[2]);
    if constexpr (kAdd) {
      atomicAdd(target, value);
    } else {
      *target = value;
    }
  }
}

__device__ int64_t offset_at(const OffsetArgs& ix, int64_t i) {
  const int64_t k = i % ix.n_inner;
  const int64_t p = (i / ix.n_inner) % ix.n_positions;
  const int64_t o = i / (ix.n_inner * ix.n_positions);
  return ix.outer[o] + ix.positions[p] + ix.inner[k];
}

template <typename T>
__global__ void offset_gather_kernel(T* values, const T* view, OffsetArgs ix, int64_t total) {
  TORCHLET_GRID_LOOP(i, total) { values[i] = view[offset_at(ix, i)]; }
}

template <typename T, bool kAdd>
__global__ void offset_scatter_kernel(T* view, const T* values, OffsetArgs ix, int64_t total) {
  TORCHLET_GRID_LOOP(i, total) {
    T* target = view + offset_at(ix, i);
    if constexpr (!kAdd) {
      *target = values[i];
    } else if constexpr (std::is_same_v<T, bool>) {
      if (values[i]) *target = true;  // "or": every writer stores the same value
    } else {
      atomicAdd(target, values[i]);
    }
  }
}

// Calls fn(T{}) with T an unsigned type of `element_size` bytes.
template <typename F>
cudaError_t by_size(size_t element_size, F&& fn) {
  switch (element_size) {
    case 1: return fn(uint8_t{});
    case 2: return fn(uint16_t{});
    case 4: return fn(uint32_t{});
    case 8: return fn(uint64_t{});
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace

cudaError_t launch_offset_gather(size_t element_size, void* values, const void* view,
                                 const OffsetArgs& ix) {
  const int64_t total = ix.n_outer * ix.n_positions * ix.n_inner;
  if (total == 0) return cudaSuccess;
  return by_size(element_size, [&](auto tag) {
    using T = decltype(tag);
    offset_gather_kernel<T><<<blocks_for(total), kThreads, 0, launch_stream()>>>(static_cast<T*>(values),
                                                             static_cast<const T*>(view), ix,
                                                             total);
    return cudaGetLastError();
  });
}

cudaError_t launch_offset_scatter(DType dtype, bool accumulate, void* view, const void* values,
                                  const OffsetArgs& ix) {
  const int64_t total = ix.n_outer * ix.n_positions * ix.n_inner;
  if (total == 0) return cudaSuccess;
  const unsigned blocks = blocks_for(total);
  if (!accumulate) {
    return by_size(element_size(dtype), [&](auto tag) {
      using T = decltype(tag);
      offset_scatter_kernel<T, false><<<blocks, kThreads, 0, launch_stream()>>>(
          static_cast<T*>(view), static_cast<const T*>(values), ix, total);
      return cudaGetLastError();
    });
  }
  switch (dtype) {
    case DType::kFloat32:
      offset_scatter_kernel<float, true><<<blocks, kThreads, 0, launch_stream()>>>(
          static_cast<float*>(view), static_cast<const float*>(values), ix, total);
      break;
    case DType::kFloat64:
      offset_scatter_kernel<double, true><<<blocks, kThreads, 0, launch_stream()>>>(
          static_cast<double*>(view), static_cast<const double*>(values), ix, total);
      break;
    case DType::kInt32:
      offset_scatter_kernel<int, true><<<blocks, kThreads, 0, launch_stream()>>>(
          static_cast<int*>(view), static_cast<const int*>(values), ix, total);
      break;
    case DType::kInt64:
      offset_scatter_kernel<unsigned long long, true><<<blocks, kThreads, 0, launch_stream()>>>(
          static_cast<unsigned long long*>(view), static_cast<const unsigned long long*>(values),
          ix, total);
      break;
    case DType::kBool:
      offset_scatter_kernel<bool, true><<<blocks, kThreads, 0, launch_stream()>>>(
          static_cast<bool*>(view), static_cast<const bool*>(values), ix, total);
      break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t launch_index_select(size_t element_size, void* out, const void* src,
                                const int64_t* index, int64_t outer, int64_t src_size,
                                int64_t n_index, int64_t inner) {
  const int64_t total = outer * n_index * inner;
  if (total == 0) return cudaSuccess;
  return by_size(element_size, [&](auto tag) {
    using T = decltype(tag);
    index_select_kernel<T><<<blocks_for(total), kThreads, 0, launch_stream()>>>(
        static_cast<T*>(out), static_cast<const T*>(src), index, src_size, n_index, inner, total);
    return cudaGetLastError();
  });
}

cudaError_t launch_gather(size_t element_size, const LoopArgs& loop, int64_t dim_stride) {
  if (loop.numel == 0) return cudaSuccess;
  return by_size(element_size, [&](auto tag) {
    using T = decltype(tag);
    gather_kernel<T><<<blocks_for(loop.numel), kThreads, 0, launch_stream()>>>(loop, dim_stride);
    return cudaGetLastError();
  });
}

cudaError_t launch_scatter(DType dtype, bool add, const LoopArgs& loop, int64_t dim_stride) {
  if (loop.numel == 0) return cudaSuccess;
  const unsigned blocks = blocks_for(loop.numel);
  if (!add) {
    return by_size(element_size(dtype), [&](auto tag) {
      using T = decltype(tag);
      scatter_kernel<T, false><<<blocks, kThreads, 0, launch_stream()>>>(loop, dim_stride);
      return cudaGetLastError();
    });
  }
  switch (dtype) {
    case DType::kFloat32: scatter_kernel<float, true><<<blocks, kThreads, 0, launch_stream()>>>(loop, dim_stride); break;
    case DType::kFloat64: scatter_kernel<double, true><<<blocks, kThreads, 0, launch_stream()>>>(loop, dim_stride); break;
    case DType::kInt32: scatter_kernel<int, true><<<blocks, kThreads, 0, launch_stream()>>>(loop, dim_stride); break;
    case DType::kInt64:
      scatter_kernel<unsigned long long, true><<<blocks, kThreads, 0, launch_stream()>>>(loop, dim_stride);  // two's complement
      break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace torchlet::cuda
