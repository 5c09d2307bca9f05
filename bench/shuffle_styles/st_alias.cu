// 5-point Laplacian without __restrict__, 64-bit indices: the store may alias the inputs, but all
// loads come before it. Replaceable loads by hand: 2 of 5.
extern "C" __global__ void st_alias(const float *a, float *b, long nx, long ny) {
  long x = blockIdx.x * (long)blockDim.x + threadIdx.x + 1;
  long y = blockIdx.y * (long)blockDim.y + threadIdx.y + 1;
  if (x >= nx - 1 || y >= ny - 1) return;
  long c = y * nx + x;
  b[c] = a[c - 1] + a[c + 1] + a[c - nx] + a[c + nx] - 4.0f * a[c];
}
