// 7-point 3-D Laplacian, size_t strides from a 3-D macro, z from blockIdx.z.
// Replaceable loads by hand: 2 of 7 (x-1, x+1).
#define AT(p, i, j, k) (p)[(size_t)(i) + sx * (size_t)(j) + sxy * (size_t)(k)]
extern "C" __global__ void st_lap3d_sizet(const float *__restrict__ u, float *__restrict__ v, unsigned nx,
                                          unsigned ny, unsigned nz) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x + 1;
  unsigned j = blockIdx.y * blockDim.y + threadIdx.y + 1;
  unsigned k = blockIdx.z + 1;
  if (i >= nx - 1 || j >= ny - 1 || k >= nz - 1) return;
  size_t sx = nx, sxy = (size_t)nx * ny;
  AT(v, i, j, k) = AT(u, i - 1, j, k) + AT(u, i + 1, j, k) + AT(u, i, j - 1, k) + AT(u, i, j + 1, k) +
                   AT(u, i, j, k - 1) + AT(u, i, j, k + 1) - 6.0f * AT(u, i, j, k);
}
