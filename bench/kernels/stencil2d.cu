// 2-D stencils: a naive 5-point Jacobi sweep and a 16x16 shared-memory tiled 9-point stencil.

// Naive 5-point Jacobi step on an nx*ny grid (2-D grid of 2-D blocks, boundary left untouched).
extern "C" __global__ void jacobi2d_5pt(const float *__restrict__ a, float *__restrict__ b, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
  int i = y * nx + x;
  b[i] = 0.2f * (a[i] + a[i - 1] + a[i + 1] + a[i - nx] + a[i + nx]);
}

#define T2 16
// 9-point stencil with an (T2+2)^2 shared tile: corner/edge halo loads by boundary threads.
extern "C" __global__ void stencil2d_tiled_9pt(const float *__restrict__ a, float *__restrict__ b, int nx, int ny) {
  __shared__ float s[T2 + 2][T2 + 2];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * T2 + tx, y = blockIdx.y * T2 + ty;
  // Cooperative load of the tile with halo: (T2+2)^2 cells by T2*T2 threads.
  for (int idx = ty * T2 + tx; idx < (T2 + 2) * (T2 + 2); idx += T2 * T2) {
    int sy = idx / (T2 + 2), sx = idx % (T2 + 2);
    int gx = blockIdx.x * T2 + sx - 1, gy = blockIdx.y * T2 + sy - 1;
    s[sy][sx] = (gx >= 0 && gy >= 0 && gx < nx && gy < ny) ? a[gy * nx + gx] : 0.0f;
  }
  __syncthreads();
  if (x >= nx || y >= ny) return;
  float c = s[ty + 1][tx + 1];
  float e = s[ty + 1][tx] + s[ty + 1][tx + 2] + s[ty][tx + 1] + s[ty + 2][tx + 1];
  float d = s[ty][tx] + s[ty][tx + 2] + s[ty + 2][tx] + s[ty + 2][tx + 2];
  b[y * nx + x] = 0.5f * c + 0.1f * e + 0.025f * d;
}
