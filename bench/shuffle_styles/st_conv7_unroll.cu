// 7-tap 1-D convolution with the taps unrolled and an int64 (`long long`) index.
// Replaceable loads by hand: 6 of 14 (in[x-3..x+3] from one another; the 7 weight loads are
// uniform: every lane reads the same address, nothing to shuffle).
extern "C" __global__ void st_conv7_unroll(const float *__restrict__ in, const float *__restrict__ w,
                                           float *__restrict__ out, long long n) {
  long long x = blockIdx.x * (long long)blockDim.x + threadIdx.x + 3;
  if (x >= n - 3) return;
  float s = 0.0f;
#pragma unroll
  for (int t = -3; t <= 3; t++) s += w[t + 3] * in[x + t];
  out[x] = s;
}
