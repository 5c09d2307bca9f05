// wave13pt (PTXASW Table 2; KernelGen suite, C, 3-D): one time step of the 4th-order wave equation
//   w2 = c0*w1(i,j,k) + c1*(6 neighbours at distance 1) + c2*(6 at distance 2) - w0(i,j,k).
// 14 global loads: 13 of w1 (lanes i-2 … i+2 in the centre row) and one of w0.
#include "common.h"

extern "C" __global__ void wave13pt(const float *__restrict__ w0, const float *__restrict__ w1,
                                    float *__restrict__ w2, float c0, float c1, float c2, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 2;
  int j = blockIdx.y * blockDim.y + threadIdx.y + 2;
  int k = blockIdx.z + 2;
  if (i >= nx - 2 || j >= ny - 2 || k >= nz - 2) return;
#define W(a, b, c) w1[IDX3(a, b, c)]
  w2[IDX3(i, j, k)] =
      c0 * W(i, j, k) +
      c1 * (W(i + 1, j, k) + W(i - 1, j, k) + W(i, j + 1, k) + W(i, j - 1, k) + W(i, j, k + 1) + W(i, j, k - 1)) +
      c2 * (W(i + 2, j, k) + W(i - 2, j, k) + W(i, j + 2, k) + W(i, j - 2, k) + W(i, j, k + 2) + W(i, j, k - 2)) -
      w0[IDX3(i, j, k)];
#undef W
}
