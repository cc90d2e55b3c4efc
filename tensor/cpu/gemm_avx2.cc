// The GEMM kernel built for the avx2 instruction set (see gemm_impl.inc).
#define TORCHLET_GEMM_ISA avx2
#define Eigen torchlet_eigen_avx2
// float32 products that block go to torchlet's own kernel.
#define TORCHLET_GEMM_F32_BLOCKED sgemm_avx2
#include "tensor/cpu/gemm_impl.inc"
