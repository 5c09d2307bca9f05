// 9-point Jacobi through row pointers and size_t: const float *r = a + (size_t)j * pitch.
// Replaceable loads by hand: 6 of 9.
extern "C" __global__ void st_jacobi_sizet(const float *__restrict__ a, float *__restrict__ b, size_t pitch,
                                           unsigned nx, unsigned ny) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x + 1;
  unsigned j = blockIdx.y * blockDim.y + threadIdx.y + 1;
  if (i >= nx - 1 || j >= ny - 1) return;
  const float *up = a + (size_t)(j - 1) * pitch;
  const float *mid = up + pitch;
  const float *dn = mid + pitch;
  b[(size_t)j * pitch + i] =
      (up[i - 1] + up[i] + up[i + 1]) * 0.1f + (mid[i - 1] + mid[i] * 2.0f + mid[i + 1]) * 0.2f +
      (dn[i - 1] + dn[i] + dn[i + 1]) * 0.1f;
}
