// jacobi (PTXASW Table 2 and Listing 4; KernelGen suite, Fortran, 2-D): a 9-point Jacobi sweep
//   w1 = c0*w0(i,j) + c1*(4 edge neighbours) + c2*(4 corner neighbours).
// 9 global loads: three rows of lanes i-1, i, i+1.
#include "common.h"

extern "C" __global__ void jacobi(const float *__restrict__ w0, float *__restrict__ w1, float c0, float c1,
                                  float c2, int nx, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
  int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
  if (i >= nx - 1 || j >= ny - 1) return;
  w1[IDX2(i, j)] = c0 * w0[IDX2(i, j)] +
                   c1 * (w0[IDX2(i - 1, j)] + w0[IDX2(i, j - 1)] + w0[IDX2(i + 1, j)] + w0[IDX2(i, j + 1)]) +
                   c2 * (w0[IDX2(i - 1, j - 1)] + w0[IDX2(i - 1, j + 1)] + w0[IDX2(i + 1, j - 1)] +
                         w0[IDX2(i + 1, j + 1)]);
}
