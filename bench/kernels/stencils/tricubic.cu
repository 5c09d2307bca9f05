// tricubic (PTXASW Table 2; KernelGen suite, C, 3-D): tricubic interpolation of a field at a
// point displaced by (dx, dy, dz) from each grid point, from the 4x4x4 neighbourhood
// i-1 … i+2, j-1 … j+2, k-1 … k+2 with Lagrange weights. 67 global loads: the three displacement
// components and 64 field values (16 rows of four lanes i-1 … i+2).
#include "common.h"

static __device__ __forceinline__ void lagrange4(float t, float w[4]) {
  // Cubic Lagrange weights for nodes -1, 0, 1, 2 at t in [0, 1).
  w[0] = -t * (t - 1.0f) * (t - 2.0f) * (1.0f / 6.0f);
  w[1] = (t + 1.0f) * (t - 1.0f) * (t - 2.0f) * 0.5f;
  w[2] = -(t + 1.0f) * t * (t - 2.0f) * 0.5f;
  w[3] = (t + 1.0f) * t * (t - 1.0f) * (1.0f / 6.0f);
}

extern "C" __global__ void tricubic(const float *__restrict__ u, const float *__restrict__ dx,
                                    const float *__restrict__ dy, const float *__restrict__ dz,
                                    float *__restrict__ v, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
  int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
  int k = blockIdx.z + 1;
  if (i >= nx - 2 || j >= ny - 2 || k >= nz - 2) return;
  int c = IDX3(i, j, k);
  float wx[4], wy[4], wz[4];
  lagrange4(dx[c], wx);
  lagrange4(dy[c], wy);
  lagrange4(dz[c], wz);
  float s = 0.0f;
#pragma unroll
  for (int kk = 0; kk < 4; kk++) {
    float sy = 0.0f;
#pragma unroll
    for (int jj = 0; jj < 4; jj++) {
      float sx = 0.0f;
#pragma unroll
      for (int ii = 0; ii < 4; ii++) sx += wx[ii] * u[IDX3(i + ii - 1, j + jj - 1, k + kk - 1)];
      sy += wy[jj] * sx;
    }
    s += wz[kk] * sy;
  }
  v[c] = s;
}
