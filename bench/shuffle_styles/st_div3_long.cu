// Divergence of a vector field over three arrays, central differences, 64-bit indices.
// Replaceable loads by hand: 1 of 6 (ux[c+1] from lane+2's ux[c-1], delta 2).
extern "C" __global__ void st_div3_long(const double *__restrict__ ux, const double *__restrict__ uy,
                                        const double *__restrict__ uz, double *__restrict__ d, long nx, long ny,
                                        long nz) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x + 1;
  long j = blockIdx.y * (long)blockDim.y + threadIdx.y + 1;
  long k = blockIdx.z + 1L;
  if (i >= nx - 1 || j >= ny - 1 || k >= nz - 1) return;
  long sx = 1, sy = nx, sz = nx * ny;
  long c = i + j * sy + k * sz;
  d[c] = 0.5 * (ux[c + sx] - ux[c - sx]) + 0.5 * (uy[c + sy] - uy[c - sy]) + 0.5 * (uz[c + sz] - uz[c - sz]);
}
