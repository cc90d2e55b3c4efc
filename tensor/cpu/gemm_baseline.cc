// The GEMM kernel built for the baseline instruction set (see gemm_impl.inc).
#define TORCHLET_GEMM_ISA baseline
#define Eigen torchlet_eigen_baseline
#include "tensor/cpu/gemm_impl.inc"
