// CUTLASS 2.x device-wide SGEMM on the SIMT cores (CUTLASS's defaults: 128×128×8 threadblock
// tile, 32×64×8 warp tile, 8 warps, 256 threads, 2-stage pipeline through registers), all
// operands fp32 row-major. Compiled by tests/cutlass_kernels.rs with clang 22.
#include <cutlass/gemm/device/gemm.h>

using SGemm = cutlass::gemm::device::Gemm<float, cutlass::layout::RowMajor, float,
                                          cutlass::layout::RowMajor, float,
                                          cutlass::layout::RowMajor>;

template __global__ void cutlass::Kernel<SGemm::GemmKernel>(SGemm::GemmKernel::Params);
