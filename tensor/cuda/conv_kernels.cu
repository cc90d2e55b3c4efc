// im2col, col2im and pooling. A thread per output element; col2im gathers
// every patch entry that lands on its input element (no atomics), the
// pooling backwards scatter with atomicAdd as windows may overlap.
#include <cstdint>
#include <limits>

#include "tensor/cuda/grid.h"
#include "tensor/cuda/launch.h"
#include "tensor/cuda/stream_state.h"

namespace torchlet::cuda {
namespace {

template <typename T>
__global__ void im2col_kernel(T* columns, const T* input, ConvShape g) {
  const int64_t kernel = g.kernel[0] * g.kernel[1] * g.kernel[2];
  const int64_t out_plane = g.output[0] * g.output[1] * g.output[2];
  const int64_t in_plane = g.input[0] * g.input[1] * g.input[2];
  const int64_t total = g.batch * g.in_channels * kernel * out_plane;
  TORCHLET_GRID_LOOP(i, total) {
    int64_t rest = i;
    const int64_t ow = rest % g.output[2]; rest /= g.output[2];
    const int64_t oh = rest % g.output[1]; rest /= g.output[1];
    const int64_t od = rest % g.output[0]; rest /= g.output[0];
    const int64_t kw = rest % g.kernel[2]; rest /= g.kernel[2];
    const int64_t kh = rest % g.kernel[1]; rest /= g.kernel[1];
    const int64_t kd = rest % g.kernel[0]; rest /= g.kernel[0];
    const int64_t c = rest % g.in_channels;
    const int64_t n = rest / g.in_channels;
    const int64_t d = od * g.stride[0] - g.padding[0] + kd * g.dilation[0];
    const int64_t h = oh * g.stride[1] - g.padding[1] + kh * g.dilation[1];
    const int64_t w = ow * g.stride[2] - g.padding[2] + kw * g.dilation[2];
    const bool inside = d >= 0 && d < g.input[0] && h >= 0 && h < g.input[1] && w >= 0 &&
                        w < g.input[2];
    columns[i] = inside ? input[(n * g.in_channels + c) * in_plane +
                                (d * g.input[1] + h) * g.input[2] + w]
                        : T(0);
  }
}

// The output positions along one dim whose window reaches input position
// `x` at kernel offset k: o = (x + pad - k * dilation) / stride when exact.
__device__ bool source_of(int64_t x, int64_t k, int64_t stride, int64_t pad, int64_t dilation,
                          int64_t out, int64_t* o) {
  const int64_t shifted = x + pad - k * dilation;
  if (shifted < 0 || shifted % stride != 0) return false;
  *o = shifted / stride;
  return *o < out;
}

template <typename T>
__global__ void col2im_kernel(T* input, const T* columns, ConvShape g) {
  const int64_t out_plane = g.output[0] * g.output[1] * g.output[2];
  const int64_t kernel = g.kernel[0] * g.kernel[1] * g.kernel[2];
  const int64_t total = g.batch * g.in_channels * g.input[0] * g.input[1] * g.input[2];
  TORCHLET_GRID_LOOP(i, total) {
    int64_t rest = i;
    const int64_t w = rest % g.input[2]; rest /= g.input[2];
    const int64_t h = rest % g.input[1]; rest /= g.input[1];
    const int64_t d = rest % g.input[0]; rest /= g.input[0];
    const int64_t c = rest % g.in_channels;
    const int64_t n = rest / g.in_channels;
    const T* cols = columns + (n * g.in_channels + c) * kernel * out_plane;
    T sum = 0;
    for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
      int64_t od;
      if (!source_of(d, kd, g.stride[0], g.padding[0], g.dilation[0], g.output[0], &od)) continue;
      for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
        int64_t oh;
        if (!source_of(h, kh, g.stride[1], g.padding[1], g.dilation[1], g.output[1], &oh)) continue;
        for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
          int64_t ow;
          if (!source_of(w, kw, g.stride[2], g.padding[2], g.dilation[2], g.output[2], &ow)) {
            continue;
          }
          const int64_t row = (kd * g.kernel[1] + kh) * g.kernel[2] + kw;
          sum += cols[row * out_plane + (od * g.output[1] + oh) * g.output[2] + ow];
        }
      }
    }
    input[i] = sum;
  }
}

// Output element i's coordinates in its plane.
struct Position {
  int64_t plane, od, oh, ow;
};
__device__ Position position(const PoolShape& w, int64_t i) {
  Position p;
  p.ow = i % w.out[2]; i /= w.out[2];
  p.oh = i % w.out[1]; i /= w.out[1];
  p.od = i % w.out[0];
  p.plane = i / w.out[0];
  return p;
}

// One pooling window: the input positions begin[d], begin[d] + step[d], ...
// below end[d] along each dim, and the divisor of an average over it.
struct Window {
  int64_t begin[3], end[3], step[3];
  int64_t count;
};

// A max pool's window: dilated, begin moved past the padding by whole
// dilation steps (the CPU's max_span).
__device__ Window max_window(const PoolShape& w, const Position& p) {
  Window a;
  const int64_t o[3] = {p.od, p.oh, p.ow};
  for (int d = 0; d < 3; ++d) {
    a.begin[d] = o[d] * w.stride[d] - w.pad[d];
    a.end[d] = a.begin[d] + (w.kernel[d] - 1) * w.dilation[d] + 1;
    if (a.end[d] > w.in[d]) a.end[d] = w.in[d];
    while (a.begin[d] < 0) a.begin[d] += w.dilation[d];
    a.step[d] = w.dilation[d];
  }
  a.count = 1;
  return a;
}

// An average pool's window and divisor (the CPU's avg_span and divisor rule).
__device__ Window avg_window(const PoolShape& w, const Position& p) {
  Window a;
  const int64_t o[3] = {p.od, p.oh, p.ow};
  int64_t padded = 1, covered = 1;
  for (int d = 0; d < 3; ++d) {
    const int64_t begin = o[d] * w.stride[d] - w.pad[d];
    int64_t end = begin + w.kernel[d];
    if (end > w.in[d] + w.pad[d]) end = w.in[d] + w.pad[d];
    padded *= end - begin;
    a.begin[d] = begin < 0 ? 0 : begin;
    a.end[d] = end < w.in[d] ? end : w.in[d];
    a.step[d] = 1;
    covered *= a.end[d] > a.begin[d] ? a.end[d] - a.begin[d] : 0;
  }
  const int64_t count = w.divisor_override != 0 ? w.divisor_override
                        : w.count_include_pad   ? padded
                                                : covered;
  a.count = covered == 0 ? 1 : count;
  return a;
}

// Note [Adaptive windows] in tensor/cpu/pool_kernels.cc.
__device__ Window adaptive_window(const PoolShape& w, const Position& p) {
  Window a;
  const int64_t o[3] = {p.od, p.oh, p.ow};
  a.count = 1;
  for (int d = 0; d < 3; ++d) {
    a.begin[d] = (o[d] * w.in[d]) / w.out[d];
    a.end[d] = ((o[d] + 1) * w.in[d] + w.out[d] - 1) / w.out[d];
    a.step[d] = 1;
    a.count *= a.end[d] - a.begin[d];
  }
  return a;
}

// Calls fn(flat position in the plane) for every position of the window.
template <typename F>
__device__ void for_each_position(const PoolShape& w, const Window& a, F&& fn) {
  for (int64_t d = a.begin[0]; d < a.end[0]; d += a.step[0]) {
    for (int64_t h = a.begin[1]; h < a.end[1]; h += a.step[1]) {
      for (int64_t x = a.begin[2]; x < a.end[2]; x += a.step[2]) fn((d * w.in[1] + h) * w.in[2] + x);
    }
  }
}

// The running maximum as the CPU's (Note [Max pooling ties and NaN]): from
// -inf at the window's first position, replaced by a greater value or NaN.
template <typename T, bool kAdaptive>
__global__ void max_pool_kernel(T* out, int64_t* indices, const T* input, PoolShape w) {
  const int64_t out_plane = w.out[0] * w.out[1] * w.out[2];
  const int64_t in_plane = w.in[0] * w.in[1] * w.in[2];
  TORCHLET_GRID_LOOP(i, w.planes * out_plane) {
    const Position p = position(w, i);
    const Window a = kAdaptive ? adaptive_window(w, p) : max_window(w, p);
    const T* plane = input + p.plane * in_plane;
    T max = -std::numeric_limits<T>::infinity();
    int64_t at = (a.begin[0] * w.in[1] + a.begin[1]) * w.in[2] + a.begin[2];
    for_each_position(w, a, [&](int64_t index) {
      const T v = plane[index];
      if (v > max || v != v) {
        max = v;
        at = index;
      }
    });
    out[i] = max;
    if (indices != nullptr) indices[i] = at;
  }
}

template <typename T>
__global__ void max_pool_backward_kernel(T* grad_input, const T* grad_out, const int64_t* indices,
                                         PoolShape w) {
  const int64_t out_plane = w.out[0] * w.out[1] * w.out[2];
  const int64_t in_plane = w.in[0] * w.in[1] * w.in[2];
  TORCHLET_GRID_LOOP(i, w.planes * out_plane) {
    const int64_t at = indices[i];
    // A window over padding only keeps an index outside the plane.
    if (at >= 0 && at < in_plane) atomicAdd(grad_input + (i / out_plane) * in_plane + at, grad_out[i]);
  }
}

template <typename T, bool kAdaptive>
__global__ void avg_pool_kernel(T* out, const T* input, PoolShape w) {
  const int64_t out_plane = w.out[0] * w.out[1] * w.out[2];
  const int64_t in_plane = w.in[0] * w.in[1] * w.in[2];
  TORCHLET_GRID_LOOP(i, w.planes * out_plane) {
    const Position p = position(w, i);
    const Window a = kAdaptive ? adaptive_window(w, p) : avg_window(w, p);
    const T* plane = input + p.plane * in_plane;
    T sum = 0;
    for_each_position(w, a, [&](int64_t index) { sum += plane[index]; });
    out[i] = sum / static_cast<T>(a.count);
  }
}

// Overlapping windows share inputs: the gradient is added atomically.
template <typename T, bool kAdaptive>
__global__ void avg_pool_backward_kernel(T* grad_input, const T* grad_out, PoolShape w) {
  const int64_t out_plane = w.out[0] * w.out[1] * w.out[2];
  const int64_t in_plane = w.in[0] * w.in[1] * w.in[2];
  TORCHLET_GRID_LOOP(i, w.planes * out_plane) {
    const Position p = position(w, i);
    const Window a = kAdaptive ? adaptive_window(w, p) : avg_window(w, p);
    T* plane = grad_input + p.plane * in_plane;
    const T g = grad_out[i] / static_cast<T>(a.count);
    for_each_position(w, a, [&](int64_t index) { atomicAdd(plane + index, g); });
  }
}

template <typename F>
cudaError_t floating(DType dtype, F&& fn) {
  if (dtype == DType::kFloat32) return fn(float{});
  if (dtype == DType::kFloat64) return fn(double{});
  return cudaErrorInvalidValue;
}

int64_t conv_columns(const ConvShape& g) {
  return g.batch * g.in_channels * g.kernel[0] * g.kernel[1] * g.kernel[2] * g.output[0] *
         g.output[1] * g.output[2];
}

}  // namespace

cudaError_t launch_im2col(DType dtype, void* columns, const void* input, const ConvShape& g) {
  const int64_t n = conv_columns(g);
  if (n == 0) return cudaSuccess;
  return floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    im2col_kernel<T><<<blocks_for(n), kThreads, 0, launch_stream()>>>(static_cast<T*>(columns),
                                                  static_cast<const T*>(input), g);
    return cudaGetLastError();
  });
}

cudaError_t launch_col2im(DType dtype, void* input, const void* columns, const ConvShape& g) {
  const int64_t n = g.batch * g.in_channels * g.input[0] * g.input[1] * g.input[2];
  if (n == 0) return cudaSuccess;
  return floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    col2im_kernel<T><<<blocks_for(n), kThreads, 0, launch_stream()>>>(static_cast<T*>(input),
                                                  static_cast<const T*>(columns), g);
    return cudaGetLastError();
  });
}

cudaError_t launch_max_pool(DType dtype, void* out, int64_t* indices, const void* input,
                            const PoolShape& w) {
  const int64_t n = w.planes * w.out[0] * w.out[1] * w.out[2];
  if (n == 0) return cudaSuccess;
  return floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    max_pool_kernel<T, false><<<blocks_for(n), kThreads, 0, launch_stream()>>>(static_cast<T*>(out), indices,
                                                    static_cast<const T*>(input), w);
    return cudaGetLastError();
  });
}

cudaError_t launch_max_pool_backward(DType dtype, void* grad_input, const void* grad_out,
                                     const int64_t* indices, const PoolShape& w) {
  const int64_t n = w.planes * w.out[0] * w.out[1] * w.out[2];
  if (n == 0) return cudaSuccess;
  return floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    max_pool_backward_kernel<T><<<blocks_for(n), kThreads, 0, launch_stream()>>>(
        static_cast<T*>(grad_input), static_cast<const T*>(grad_out), indices, w);
    return cudaGetLastError();
  });
}

cudaError_t launch_adaptive_avg_pool(DType dtype, void* out, const void* input,
                                     const PoolShape& w) {
  const int64_t n = w.planes * w.out[0] * w.out[1] * w.out[2];
  if (n == 0) return cudaSuccess;
  return floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    avg_pool_kernel<T, true><<<blocks_for(n), kThreads, 0, launch_stream()>>>(static_cast<T*>(out),
                                                             static_cast<const T*>(input), w);
    return cudaGetLastError();
  });
}

cudaError_t launch_adaptive_max_pool(DType dtype, void* out, int64_t* indices, const void* input,
                                     const PoolShape& w) {
  const int64_t n = w.planes * w.out[0] * w.out[1] * w.out[2];
  if (n == 0) return cudaSuccess;
  return floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    max_pool_kernel<T, true><<<blocks_for(n), kThreads, 0, launch_stream()>>>(
        static_cast<T*>(out), indices, static_cast<const T*>(input), w);
    return cudaGetLastError();
  });
}

cudaError_t launch_adaptive_avg_pool_backward(DType dtype, void* grad_input, const void* grad_out,
                                              const PoolShape& w) {
  const int64_t n = w.planes * w.out[0] * w.out[1] * w.out[2];
  if (n == 0) return cudaSuccess;
  return floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    avg_pool_backward_kernel<T, true><<<blocks_for(n), kThreads, 0, launch_stream()>>>(
        static_cast<T*>(grad_input), static_cast<const T*>(grad_out), w);
    return cudaGetLastError();
  });
}

cudaError_t launch_avg_pool(DType dtype, void* out, const void* input, const PoolShape& w) {
  const int64_t n = w.planes * w.out[0] * w.out[1] * w.out[2];
  if (n == 0) return cudaSuccess;
  return floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    avg_pool_kernel<T, false><<<blocks_for(n), kThreads, 0, launch_stream()>>>(static_cast<T*>(out),
                                                    static_cast<const T*>(input), w);
    return cudaGetLastError();
  });
}

cudaError_t launch_avg_pool_backward(DType dtype, void* grad_input, const void* grad_out,
                                     const PoolShape& w) {
  const int64_t n = w.planes * w.out[0] * w.out[1] * w.out[2];
  if (n == 0) return cudaSuccess;
  return floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    avg_pool_backward_kernel<T, false><<<blocks_for(n), kThreads, 0, launch_stream()>>>(
        static_cast<T*>(grad_input), static_cast<const T*>(grad_out), w);
    return cudaGetLastError();
  });
}

}  // namespace torchlet::cuda
