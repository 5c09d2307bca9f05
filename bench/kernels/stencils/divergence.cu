// divergence (PTXASW Table 2; KernelGen suite, C, 3-D): the divergence of a vector field given as
// three arrays, central differences along each axis. 6 global loads; along x, u(i+1) and u(i-1)
// are two lanes apart (delta 2), the other four are in other rows or planes.
#include "common.h"

extern "C" __global__ void divergence(const float *__restrict__ u, const float *__restrict__ v,
                                      const float *__restrict__ w, float *__restrict__ div,
                                      float h, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
  int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
  int k = blockIdx.z + 1;
  if (i >= nx - 1 || j >= ny - 1 || k >= nz - 1) return;
  div[IDX3(i, j, k)] = h * ((u[IDX3(i + 1, j, k)] - u[IDX3(i - 1, j, k)]) +
                            (v[IDX3(i, j + 1, k)] - v[IDX3(i, j - 1, k)]) +
                            (w[IDX3(i, j, k + 1)] - w[IDX3(i, j, k - 1)]));
}
