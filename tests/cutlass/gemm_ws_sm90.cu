// CUTLASS 3.x GEMM for sm_90a built by CUTLASS's collective builders (fp16 × fp16 → fp32,
// 128×128×64 tile, cluster 1×1×1, automatic schedule): a warp-specialised kernel with a TMA
// producer warpgroup and consumer warpgroups (384 threads, `.maxntid 384`), `wgmma.mma_async`,
// `mbarrier` waits pasted as one braced block per call (each defining the labels LAB_WAIT and
// DONE), `setmaxnreg`. Compiled by tests/cutlass_kernels.rs with clang 22.
#include <cute/tensor.hpp>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/kernel/gemm_universal.hpp>

using namespace cute;
using TileShape = Shape<_128, _128, _64>;
using ClusterShape = Shape<_1, _1, _1>;
using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
    cutlass::epilogue::collective::EpilogueTileAuto, float, float, float,
    cutlass::layout::RowMajor, 4, float, cutlass::layout::RowMajor, 4,
    cutlass::epilogue::collective::EpilogueScheduleAuto>::CollectiveOp;
using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, cutlass::half_t,
    cutlass::layout::RowMajor, 8, cutlass::half_t, cutlass::layout::ColumnMajor, 8, float,
    TileShape, ClusterShape,
    cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(
        sizeof(typename Epilogue::SharedStorage))>,
    cutlass::gemm::collective::KernelScheduleAuto>::CollectiveOp;
using GemmKernel =
    cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>, Mainloop, Epilogue>;

template __global__ void cutlass::device_kernel<GemmKernel>(typename GemmKernel::Params);
