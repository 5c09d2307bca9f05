// 5-point Laplacian on a 2-D grid launched as a 1-D grid of blocks: blockIdx.x is split into
// (bx, by) with / and %, 64-bit offsets. Replaceable loads by hand: 2 of 5 (x-1, x+1).
extern "C" __global__ void st_flat2d(const float *__restrict__ a, float *__restrict__ b, int nx, int ny, int nbx) {
  int bx = blockIdx.x % nbx;
  int by = blockIdx.x / nbx;
  int x = bx * blockDim.x + threadIdx.x + 1;
  int y = by * blockDim.y + threadIdx.y + 1;
  if (x >= nx - 1 || y >= ny - 1) return;
  size_t c = (size_t)y * nx + x;
  b[c] = a[c - 1] + a[c + 1] + a[c - nx] + a[c + nx] - 4.0f * a[c];
}
