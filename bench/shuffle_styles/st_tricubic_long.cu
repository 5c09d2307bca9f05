// Tricubic interpolation with 64-bit 3-D indices (`long` strides), 4x4x4 neighbourhood.
// Replaceable loads by hand: 48 of 67 (per row of four lanes i-1..i+2, three from a neighbour).
static __device__ __forceinline__ void weights(float t, float w[4]) {
  w[0] = -t * (t - 1.0f) * (t - 2.0f) * (1.0f / 6.0f);
  w[1] = (t + 1.0f) * (t - 1.0f) * (t - 2.0f) * 0.5f;
  w[2] = -(t + 1.0f) * t * (t - 2.0f) * 0.5f;
  w[3] = (t + 1.0f) * t * (t - 1.0f) * (1.0f / 6.0f);
}
extern "C" __global__ void st_tricubic_long(const float *__restrict__ u, const float *__restrict__ dx,
                                            const float *__restrict__ dy, const float *__restrict__ dz,
                                            float *__restrict__ v, long nx, long ny, long nz) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x + 1;
  long j = (long)blockIdx.y * blockDim.y + threadIdx.y + 1;
  long k = (long)blockIdx.z + 1;
  if (i >= nx - 2 || j >= ny - 2 || k >= nz - 2) return;
  long c = i + nx * (j + ny * k);
  float wx[4], wy[4], wz[4];
  weights(dx[c], wx);
  weights(dy[c], wy);
  weights(dz[c], wz);
  float s = 0.0f;
#pragma unroll
  for (long kk = -1; kk <= 2; kk++) {
    float sy = 0.0f;
#pragma unroll
    for (long jj = -1; jj <= 2; jj++) {
      const float *row = u + (c + nx * (jj + ny * kk));
      sy += wy[jj + 1] * (wx[0] * row[-1] + wx[1] * row[0] + wx[2] * row[1] + wx[3] * row[2]);
    }
    s += wz[kk + 1] * sy;
  }
  v[c] = s;
}
