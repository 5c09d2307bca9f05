// 2-D 5-point stencil with a reflecting boundary (branches on the edges), 64-bit offsets.
// Replaceable loads by hand: 2 of 5 on the interior path (x-1 and x+1 from the neighbours' centre
// loads); the boundary paths load from other addresses.
extern "C" __global__ void st_branch(const float *__restrict__ a, float *__restrict__ b, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  long c = (long)y * nx + x;
  float l = x > 0 ? a[c - 1] : a[c];
  float r = x < nx - 1 ? a[c + 1] : a[c];
  float u = y > 0 ? a[c - nx] : a[c];
  float d = y < ny - 1 ? a[c + nx] : a[c];
  b[c] = l + r + u + d - 4.0f * a[c];
}
