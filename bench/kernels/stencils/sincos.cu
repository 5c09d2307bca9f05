// sincos (PTXASW Table 2; KernelGen suite, Fortran, 3-D): xy = sin(x) + cos(y) elementwise over a
// 3-D grid. 2 global loads from two different arrays: nothing to share between lanes.
#include "common.h"

extern "C" __global__ void sincos_kernel(const float *__restrict__ x, const float *__restrict__ y,
                                         float *__restrict__ xy, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z;
  if (i >= nx || j >= ny || k >= nz) return;
  int c = IDX3(i, j, k);
  xy[c] = __sinf(x[c]) + __cosf(y[c]);
}
