// 5x5 box blur walking rows with a pointer increment (64-bit pointer arithmetic in a loop the
// compiler unrolls). Replaceable loads by hand: 20 of 25 (per row, 4 of the 5 lanes x-2..x+2).
extern "C" __global__ void st_blur5_ptr(const float *__restrict__ in, float *__restrict__ out, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x + 2;
  int y = blockIdx.y * blockDim.y + threadIdx.y + 2;
  if (x >= nx - 2 || y >= ny - 2) return;
  const float *p = in + (long)(y - 2) * nx + x;
  float s = 0.0f;
#pragma unroll
  for (int r = 0; r < 5; r++) {
    s += p[-2] + p[-1] + p[0] + p[1] + p[2];
    p += nx;
  }
  out[(long)y * nx + x] = s * (1.0f / 25.0f);
}
