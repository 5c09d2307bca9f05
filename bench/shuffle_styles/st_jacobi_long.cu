// 9-point Jacobi with 64-bit (`long`) row offsets: idx = (long)j * nx + i.
// Replaceable loads by hand: 6 of 9 (per row, x-1 and x+1 from the x load or each other).
extern "C" __global__ void st_jacobi_long(const float *__restrict__ a, float *__restrict__ b, long nx,
                                          long ny) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x + 1;
  long j = (long)blockIdx.y * blockDim.y + threadIdx.y + 1;
  if (i >= nx - 1 || j >= ny - 1) return;
  long c = j * nx + i;
  b[c] = 0.25f * (a[c - nx - 1] + a[c - nx] + a[c - nx + 1] + a[c - 1] + a[c] + a[c + 1] + a[c + nx - 1] +
                  a[c + nx] + a[c + nx + 1]);
}
