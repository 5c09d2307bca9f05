// 13-point wave operator, 3-D, 64-bit offsets, with blockIdx.y carrying both y and z blocks
// (split with / and %). Replaceable loads by hand: 4 of 14 (the x+-1, x+-2 neighbours of w1).
#define IDX(i, j, k) ((long)(i) + (long)nx * ((long)(j) + (long)ny * (long)(k)))
extern "C" __global__ void st_wave13_divmod(const float *__restrict__ w0, const float *__restrict__ w1,
                                            float *__restrict__ w2, float c0, float c1, float c2, int nx,
                                            int ny, int nz, int nby) {
  int by = blockIdx.y % nby;
  int bz = blockIdx.y / nby;
  int i = blockIdx.x * blockDim.x + threadIdx.x + 2;
  int j = by * blockDim.y + threadIdx.y + 2;
  int k = bz + 2;
  if (i >= nx - 2 || j >= ny - 2 || k >= nz - 2) return;
  w2[IDX(i, j, k)] = c0 * w1[IDX(i, j, k)] +
                     c1 * (w1[IDX(i + 1, j, k)] + w1[IDX(i - 1, j, k)] + w1[IDX(i, j + 1, k)] +
                           w1[IDX(i, j - 1, k)] + w1[IDX(i, j, k + 1)] + w1[IDX(i, j, k - 1)]) +
                     c2 * (w1[IDX(i + 2, j, k)] + w1[IDX(i - 2, j, k)] + w1[IDX(i, j + 2, k)] +
                           w1[IDX(i, j - 2, k)] + w1[IDX(i, j, k + 2)] + w1[IDX(i, j, k - 2)]) -
                     w0[IDX(i, j, k)];
}
