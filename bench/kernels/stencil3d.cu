// 3-D stencils: a naive 7-point Laplacian and a z-marching 25-point (radius 4) stencil that keeps
// a register queue of 9 planes per thread (high register pressure, classic spill candidate).

// Naive 7-point 3-D Laplacian; 3-D grid of 3-D blocks.
extern "C" __global__ void stencil3d_7pt(const float *__restrict__ a, float *__restrict__ b, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
  long plane = (long)nx * ny;
  long i = z * plane + (long)y * nx + x;
  b[i] = a[i - 1] + a[i + 1] + a[i - nx] + a[i + nx] + a[i - plane] + a[i + plane] - 6.0f * a[i];
}

#define R 4
// 25-point star stencil, each thread marches along z holding 2R+1 planes in registers.
extern "C" __global__ void stencil3d_25pt_zmarch(const float *__restrict__ a, float *__restrict__ b, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x + R;
  int y = blockIdx.y * blockDim.y + threadIdx.y + R;
  if (x >= nx - R || y >= ny - R) return;
  long plane = (long)nx * ny;
  long base = (long)y * nx + x;
  const float c[R + 1] = {-2.847f, 1.6f, -0.2f, 0.0253968f, -0.00178571f};
  float q[2 * R + 1];
#pragma unroll
  for (int k = 0; k < 2 * R + 1; ++k) q[k] = a[base + k * plane];
  for (int z = R; z < nz - R; ++z) {
    long i = base + z * plane;
    float acc = c[0] * q[R];
#pragma unroll
    for (int k = 1; k <= R; ++k)
      acc += c[k] * (q[R - k] + q[R + k] + a[i - k] + a[i + k] + a[i - k * nx] + a[i + k * nx]);
    b[i] = acc;
#pragma unroll
    for (int k = 0; k < 2 * R; ++k) q[k] = q[k + 1];
    if (z + R + 1 < nz) q[2 * R] = a[i + (R + 1) * plane];
  }
}
