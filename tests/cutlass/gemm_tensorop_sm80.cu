// CUTLASS 2.x device-wide GEMM, sm_80 tensor cores: fp16 A (row-major) × fp16 B (column-major)
// → fp32 C, 128×128×32 threadblock tile, 64×64×32 warp tile (4 warps, 128 threads), mma.sync
// m16n8k16, 3-stage cp.async pipeline (CUTLASS's defaults for Sm80). Compiled by
// tests/cutlass_kernels.rs with clang 22 against the headers of PyPI's nvidia-cutlass 4.2.
#include <cutlass/gemm/device/gemm.h>

using Gemm = cutlass::gemm::device::Gemm<
    cutlass::half_t, cutlass::layout::RowMajor, cutlass::half_t, cutlass::layout::ColumnMajor,
    float, cutlass::layout::RowMajor, float, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
    cutlass::gemm::GemmShape<128, 128, 32>, cutlass::gemm::GemmShape<64, 64, 32>,
    cutlass::gemm::GemmShape<16, 8, 16>>;

template __global__ void cutlass::Kernel<Gemm::GemmKernel>(Gemm::GemmKernel::Params);
