#pragma once

// TORCHLET_HOST_DEVICE marks a function that nvcc compiles for both the GPU
// and the host, and that the host compiler sees as a plain inline function:
// the per-element headers (elementwise_ops.h, optim_ops.h, loop_args.h,
// philox.h) use it so that their code runs in the kernels and in the host
// tests that hold it to the CPU's results.

#if defined(__CUDACC__)
#define TORCHLET_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define TORCHLET_HOST_DEVICE inline
#endif
