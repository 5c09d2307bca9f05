// gaussblur (PTXASW Table 2; KernelGen suite, C, 2-D): a 5x5 Gaussian blur with separable weights
// (1 4 6 4 1)/16 per axis. 25 global loads: five rows of five lanes i-2 … i+2.
#include "common.h"

extern "C" __global__ void gaussblur(const float *__restrict__ w0, float *__restrict__ w1, int nx, int ny) {
  const float g[5] = {1.0f / 16, 4.0f / 16, 6.0f / 16, 4.0f / 16, 1.0f / 16};
  int i = blockIdx.x * blockDim.x + threadIdx.x + 2;
  int j = blockIdx.y * blockDim.y + threadIdx.y + 2;
  if (i >= nx - 2 || j >= ny - 2) return;
  float s = 0.0f;
#pragma unroll
  for (int dj = -2; dj <= 2; dj++) {
    float row = 0.0f;
#pragma unroll
    for (int di = -2; di <= 2; di++) row += g[di + 2] * w0[IDX2(i + di, j + dj)];
    s += g[dj + 2] * row;
  }
  w1[IDX2(i, j)] = s;
}
