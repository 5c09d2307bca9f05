// vecadd (PTXASW Table 2; KernelGen suite, C, 3-D): c = a + b elementwise. 2 global loads from two
// different arrays: nothing to share between lanes.
#include "common.h"

extern "C" __global__ void vecadd(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c,
                                  int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z;
  if (i >= nx || j >= ny || k >= nz) return;
  int x = IDX3(i, j, k);
  c[x] = a[x] + b[x];
}
