// conv1d: a 1-D convolution with a run-time number of taps (a sliding window along a sequential
// loop). At iteration j+1 lane l loads in[i+j+1], which lane l+1 loaded at iteration j: reuse
// across iterations with delta 1 (warpsmith's beyond-the-paper case; docs/shuffle.md).
extern "C" __global__ void conv1d(const float *__restrict__ in, const float *__restrict__ w,
                                  float *__restrict__ out, int n, int taps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int j = 0; j < taps; ++j) s += w[j] * in[i + j];
  out[i] = s;
}
