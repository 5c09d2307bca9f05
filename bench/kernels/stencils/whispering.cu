// whispering (PTXASW Table 2; KernelGen suite, C, 2-D): one FDTD step of a 2-D TE-mode
// electromagnetic simulation (whispering-gallery modes): update both electric components from the
// magnetic field, the magnetic field from the new electric field, and accumulate the energy.
// The left (i-1) and lower (j-1) electric values are recomputed from the old fields, as in the
// suite, instead of being communicated. 19 global loads; along x: ca, e0_1 and cb at lanes i-1
// and i (delta 1) and h0 at i-1, i, i+1. The energy term divides by mu in the suite; here 1/mu is
// a parameter (inv_mu), so the kernel has no division sequence.
#include "common.h"

extern "C" __global__ void whispering(const float *__restrict__ e0x, const float *__restrict__ e0y,
                                      float *__restrict__ e1x, float *__restrict__ e1y,
                                      const float *__restrict__ h0, float *__restrict__ h1,
                                      const float *__restrict__ uem0, float *__restrict__ uem1,
                                      const float *__restrict__ ca, const float *__restrict__ cb,
                                      const float *__restrict__ da, const float *__restrict__ db, float inv_mu,
                                      float epsilon, int nx, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
  int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
  if (i >= nx - 1 || j >= ny - 1) return;
  int c = IDX2(i, j);
  float ex_new = ca[c] * e0x[c] + cb[c] * (h0[IDX2(i, j + 1)] - h0[c]);
  float ey_new = ca[c] * e0y[c] - cb[c] * (h0[IDX2(i + 1, j)] - h0[c]);
  float ex_below = ca[IDX2(i, j - 1)] * e0x[IDX2(i, j - 1)] + cb[IDX2(i, j - 1)] * (h0[c] - h0[IDX2(i, j - 1)]);
  float ey_left = ca[IDX2(i - 1, j)] * e0y[IDX2(i - 1, j)] - cb[IDX2(i - 1, j)] * (h0[c] - h0[IDX2(i - 1, j)]);
  e1x[c] = ex_new;
  e1y[c] = ey_new;
  float h = da[c] * h0[c] + db[c] * (ex_new - ex_below + ey_left - ey_new);
  h1[c] = h;
  uem1[c] = uem0[c] + 0.5f * (h * h * inv_mu + epsilon * (ex_new * ex_new + ey_new * ey_new));
}
