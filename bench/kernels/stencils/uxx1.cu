// uxx1 (PTXASW Table 2; KernelGen suite, C, 3-D): the velocity update of a staggered-grid elastic
// wave code (AWP-ODC style): u1 = u0 + dth*b * (4th-order differences of the stresses xx, xy, xz),
// b the average buoyancy (inverse density, stored in d1 as staggered-grid codes do; the suite
// divides by the average density instead) of four cells. 17 global loads; along x: xx at lanes
// i-2, i-1, i, i+1.
#include "common.h"

extern "C" __global__ void uxx1(const float *__restrict__ u0, float *__restrict__ u1, const float *__restrict__ d1,
                                const float *__restrict__ xx, const float *__restrict__ xy,
                                const float *__restrict__ xz, float dth, float c1, float c2, int nx, int ny,
                                int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 2;
  int j = blockIdx.y * blockDim.y + threadIdx.y + 2;
  int k = blockIdx.z + 2;
  if (i >= nx - 1 || j >= ny - 1 || k >= nz - 1) return;
  float b = 0.25f * (d1[IDX3(i, j, k)] + d1[IDX3(i, j - 1, k)] + d1[IDX3(i, j, k - 1)] + d1[IDX3(i, j - 1, k - 1)]);
  u1[IDX3(i, j, k)] =
      u0[IDX3(i, j, k)] +
      (dth * b) * (c1 * (xx[IDX3(i, j, k)] - xx[IDX3(i - 1, j, k)]) + c2 * (xx[IDX3(i + 1, j, k)] - xx[IDX3(i - 2, j, k)]) +
                   c1 * (xy[IDX3(i, j, k)] - xy[IDX3(i, j - 1, k)]) + c2 * (xy[IDX3(i, j + 1, k)] - xy[IDX3(i, j - 2, k)]) +
                   c1 * (xz[IDX3(i, j, k)] - xz[IDX3(i, j, k - 1)]) + c2 * (xz[IDX3(i, j, k + 1)] - xz[IDX3(i, j, k - 2)]));
}
