// 1-D 5-point smoothing in a grid-stride loop (64-bit loop index).
// Replaceable loads by hand: 4 of 5 (x-2..x+2 from the neighbours' loads in the same iteration).
extern "C" __global__ void st_gridstride(const float *__restrict__ in, float *__restrict__ out, long n) {
  for (long x = (long)blockIdx.x * blockDim.x + threadIdx.x + 2; x < n - 2; x += (long)gridDim.x * blockDim.x) {
    out[x] = 0.1f * in[x - 2] + 0.2f * in[x - 1] + 0.4f * in[x] + 0.2f * in[x + 1] + 0.1f * in[x + 2];
  }
}
