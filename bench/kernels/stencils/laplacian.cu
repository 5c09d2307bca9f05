// laplacian (PTXASW Table 2; KernelGen suite, C, 3-D): the 7-point Laplacian. 7 global loads of
// one array: lanes i-1, i, i+1 in the centre row, four in other rows and planes.
#include "common.h"

extern "C" __global__ void laplacian(const float *__restrict__ w0, float *__restrict__ w1, float alpha,
                                     float beta, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
  int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
  int k = blockIdx.z + 1;
  if (i >= nx - 1 || j >= ny - 1 || k >= nz - 1) return;
  w1[IDX3(i, j, k)] = alpha * w0[IDX3(i, j, k)] +
                      beta * (w0[IDX3(i + 1, j, k)] + w0[IDX3(i - 1, j, k)] + w0[IDX3(i, j + 1, k)] +
                              w0[IDX3(i, j - 1, k)] + w0[IDX3(i, j, k + 1)] + w0[IDX3(i, j, k - 1)]);
}
