// matmul (PTXASW Table 2; KernelGen suite, Fortran, 2-D): C = A·B, one thread per element of C,
// a sequential loop over k inside. The loads of the loop read A(i,k) (lanes on consecutive rows
// of A, no two lanes on the same element) and B(k,j) (the same element on every lane of a warp
// row): no neighbouring-lane reuse along x, as the paper reports (0 shuffles).
#include "common.h"

// a: nx x nk (column i, row k: a[i + nx*k]), b: nk x ny (b[k + nk*j]), c: nx x ny.
extern "C" __global__ void matmul(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c,
                                  int nx, int ny, int nk) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= nx || j >= ny) return;
  float s = 0.0f;
  for (int k = 0; k < nk; k++) s += a[i + nx * k] * b[k + nk * j];
  c[IDX2(i, j)] = s;
}
