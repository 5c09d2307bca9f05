// lapgsrb (PTXASW Table 2; KernelGen suite, C, 3-D): the 25-point operator of the suite's
// Laplacian relaxation step: the centre, the 6 face neighbours, the 12 edge neighbours and the 6
// points two cells away along each axis, with four coefficients. 25 global loads of one array;
// along x: lanes i-2 … i+2 in the centre row, i-1 … i+1 in the rows j±1 and planes k±1.
#include "common.h"

extern "C" __global__ void lapgsrb(const float *__restrict__ w0, float *__restrict__ w1, float c0, float c1,
                                   float c2, float c3, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 2;
  int j = blockIdx.y * blockDim.y + threadIdx.y + 2;
  int k = blockIdx.z + 2;
  if (i >= nx - 2 || j >= ny - 2 || k >= nz - 2) return;
#define W(a, b, c) w0[IDX3(a, b, c)]
  float faces = W(i + 1, j, k) + W(i - 1, j, k) + W(i, j + 1, k) + W(i, j - 1, k) + W(i, j, k + 1) + W(i, j, k - 1);
  float edges = W(i + 1, j + 1, k) + W(i + 1, j, k + 1) + W(i + 1, j, k - 1) + W(i + 1, j - 1, k) +
                W(i, j + 1, k + 1) + W(i, j + 1, k - 1) + W(i, j - 1, k + 1) + W(i, j - 1, k - 1) +
                W(i - 1, j + 1, k) + W(i - 1, j, k + 1) + W(i - 1, j, k - 1) + W(i - 1, j - 1, k);
  float far = W(i + 2, j, k) + W(i - 2, j, k) + W(i, j + 2, k) + W(i, j - 2, k) + W(i, j, k + 2) + W(i, j, k - 2);
  w1[IDX3(i, j, k)] = c0 * W(i, j, k) + c1 * faces + c2 * edges + c3 * far;
#undef W
}
