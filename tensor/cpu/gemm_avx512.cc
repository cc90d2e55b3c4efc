// The GEMM kernel built for the avx512 instruction set (see gemm_impl.inc).
#define TORCHLET_GEMM_ISA avx512
#define Eigen torchlet_eigen_avx512
// float32 products that block go to torchlet's own kernel.
#define TORCHLET_GEMM_F32_BLOCKED sgemm_avx512
#include "tensor/cpu/gemm_impl.inc"
