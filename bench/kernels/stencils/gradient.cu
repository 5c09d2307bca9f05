// gradient (PTXASW Table 2; KernelGen suite, C, 3-D): the gradient of a scalar field by central
// differences, one output array per component. 6 global loads of the same array: two along x
// (lanes i-1 and i+1), two along y, two along z.
#include "common.h"

extern "C" __global__ void gradient(const float *__restrict__ f, float *__restrict__ gx, float *__restrict__ gy,
                                    float *__restrict__ gz, float h, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
  int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
  int k = blockIdx.z + 1;
  if (i >= nx - 1 || j >= ny - 1 || k >= nz - 1) return;
  int c = IDX3(i, j, k);
  gx[c] = h * (f[IDX3(i + 1, j, k)] - f[IDX3(i - 1, j, k)]);
  gy[c] = h * (f[IDX3(i, j + 1, k)] - f[IDX3(i, j - 1, k)]);
  gz[c] = h * (f[IDX3(i, j, k + 1)] - f[IDX3(i, j, k - 1)]);
}
