// common.h — index helpers shared by the Table 2 stencil kernels (PTXASW, CC'23, Table 2: the
// KernelGen OpenACC suite). Included by each stencils/*.cu; bench/kernels/prelude.h comes first
// (-include), so CUDA's spellings are available.
//
// Mapping (the NVHPC/KernelGen one the paper describes, written as natural CUDA): the innermost
// parallel loop (i, unit stride) goes to threads along x, one thread per output point:
//   i = blockIdx.x * blockDim.x + threadIdx.x + halo
//   j = blockIdx.y * blockDim.y + threadIdx.y + halo
//   k = blockIdx.z + halo                               (3-D operators)
// Arrays are row-major with x fastest: A(i, j, k) = a[i + nx * (j + ny * k)].
#ifndef WARPSMITH_STENCILS_COMMON_H
#define WARPSMITH_STENCILS_COMMON_H

#define IDX2(i, j) ((i) + nx * (j))
#define IDX3(i, j, k) ((i) + nx * ((j) + ny * (k)))

#endif
