// gameoflife (PTXASW Table 2; KernelGen suite, C, 2-D): one generation of Conway's game of life on
// an integer grid (0 dead, 1 alive). 9 global loads: the cell and its 8 neighbours; the three
// loads of each row are lanes i-1, i, i+1.
#include "common.h"

extern "C" __global__ void gameoflife(const int *__restrict__ w0, int *__restrict__ w1, int nx, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
  int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
  if (i >= nx - 1 || j >= ny - 1) return;
  int n = w0[IDX2(i - 1, j - 1)] + w0[IDX2(i, j - 1)] + w0[IDX2(i + 1, j - 1)] +
          w0[IDX2(i - 1, j)] + w0[IDX2(i + 1, j)] +
          w0[IDX2(i - 1, j + 1)] + w0[IDX2(i, j + 1)] + w0[IDX2(i + 1, j + 1)];
  int c = w0[IDX2(i, j)];
  // Alive next: exactly 3 neighbours, or 2 neighbours and alive now.
  w1[IDX2(i, j)] = (n == 3 || (n == 2 && c != 0)) ? 1 : 0;
}
